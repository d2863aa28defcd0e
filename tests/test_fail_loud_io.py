"""Bad files, devices and faults of the system: one stderr line, exit 2, nothing half-written.

Each case below was a traceback, a hang or a silent accept: a doubled
``.alinhado`` header, a closed standard output, an input's control
characters reaching the terminal, a corrupt gzip member, a device as
input, JSON nested past Python's recursion limit, empty intermediate
files, a dead scheduler, a full disk, a golden collection with a category
the grid lacks, a file of the wrong stage, a NUL byte in an attribute.
"""

from __future__ import annotations

import gzip
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.text import atomic
from tests.helpers.campaign import make_campaign
from tests.helpers.paths import DATA, ROOT

FIRST_CD = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"


def one_error_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"harem {command}: error: ") and err.count("\n") == 1, err
    return err


def harem(*args: str, shell_tail: str = "") -> subprocess.CompletedProcess[bytes]:
    """``harem ARGS`` in a process of its own (``shell_tail``: redirections for a shell)."""
    command = [sys.executable, "-m", "harem_pipeline", "--quiet", *args]
    if shell_tail:
        command = ["sh", "-c", " ".join(f"'{a}'" for a in command) + " " + shell_tail]
    return subprocess.run(command, cwd=ROOT, capture_output=True, check=False, timeout=300)


# ---------------------------------------------------------------------------
# A doubled or misplaced .alinhado header


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("# run.txt\n# cd.txt\n# run.txt\n# cd.txt\nDOC d\nEOD\n", 3),  # heard twice
        ("# run.txt\n# cd.txt\nDOC d\nEOD\n# run.txt\nDOC e\nEOD\n", 5),  # two files in one
        ("DOC d\n# run.txt\nEOD\n", 2),
    ],
)
def test_avalida_refuses_a_header_line_out_of_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: int
) -> None:
    source = tmp_path / "run.alinhado"
    source.write_text(text, encoding="utf-8")
    target = tmp_path / "out.avalida"
    assert main(["avalida", str(source), "-o", str(target)]) == 2
    err = one_error_line(capsys, "avalida")
    assert err == (
        f"harem avalida: error: {source}, line {line}: expected the two # header lines "
        f"(run, collection) on lines 1 and 2 only, found another one: # run.txt\n"
    )
    assert not target.exists()


def test_avalida_takes_the_two_header_lines_at_the_top(tmp_path: Path) -> None:
    source = tmp_path / "run.alinhado"
    source.write_text("# run.txt\n# cd.txt\nDOC d\nEOD\n", encoding="utf-8")
    assert main(["avalida", str(source), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out").read_text(encoding="utf-8") == "# run.txt\n# cd.txt\nDOC d\nEOD\n"


# ---------------------------------------------------------------------------
# A closed standard output


@pytest.mark.parametrize(
    "args",
    [
        ["stats", str(FIRST_CD)],
        ["simulate", "--cd", str(FIRST_CD), "--profile", "weak"],
        ["export", str(FIRST_CD), "--format", "harem-json", "-o", "-"],
    ],
)
def test_a_closed_standard_output_is_one_line(args: list[str]) -> None:
    done = harem(*args, shell_tail=">&-")
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"harem {args[0]}: error: -: expected an open standard output, found it closed\n"
    )


# ---------------------------------------------------------------------------
# Control characters of an input never reach the terminal raw


def test_an_escape_sequence_in_an_input_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "run.alinhado"
    source.write_bytes(b"\x1b[2J\x1b[31mFORGED: all tests passed\x1b[0m\nEOD\n")
    assert main(["avalida", str(source), "-o", str(tmp_path / "out")]) == 2
    err = one_error_line(capsys, "avalida")
    assert "\x1b" not in err
    assert "found \\x1b[2J\\x1b[31mFORGED: all tests passed\\x1b[0m\n" in err


def test_control_characters_in_a_file_name_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "\x1b[31mred\u202e.alinhado"
    assert main(["avalida", str(missing)]) == 2
    err = one_error_line(capsys, "avalida")
    assert "\\x1b[31mred\\u202e.alinhado: expected an existing file" in err
    assert not any(c in err for c in "\x1b\u202e")


def test_a_warning_quoting_an_input_is_escaped(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # The aligner warns about a run document the collection lacks, naming its DOCID.
    cd = tmp_path / "cd.xml"
    run = tmp_path / "run.xml"
    doc = '<DOC DOCID="{}"><P>A <EM ID="1" CATEG="LOCAL">Lisboa</EM>.</P></DOC>'
    cd.write_text(f"<colHAREM>{doc.format('d1')}</colHAREM>\n", encoding="utf-8")
    both = doc.format("d1") + doc.format("d\x1b[2J")
    run.write_text(f"<colHAREM>{both}</colHAREM>\n", encoding="utf-8")
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(tmp_path / "a")]) == 0
    err = capfd.readouterr().err
    assert "d\\x1b[2J" in err and "\x1b" not in err


# ---------------------------------------------------------------------------
# A corrupt or cut gzip member; a device or a pipe as input


def corrupt_gzip(target: Path, cut: bool) -> Path:
    data = gzip.compress(FIRST_CD.read_bytes())
    if cut:
        data = data[: len(data) // 2]
    else:  # flip bits in the middle of the deflate stream
        middle = len(data) // 2
        data = (
            data[:middle]
            + bytes(b ^ 0x55 for b in data[middle : middle + 64])
            + data[middle + 64 :]
        )
    target.write_bytes(data)
    return target


@pytest.mark.parametrize(
    ("cut", "found"),
    [
        (False, "corrupt data ("),
        (True, "one cut short"),
    ],
)
@pytest.mark.parametrize("command", ["stats", "align", "avalida", "export"])
def test_a_corrupt_gzip_member_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, cut: bool, found: str
) -> None:
    bad = corrupt_gzip(tmp_path / "cd.txt.gz", cut)
    out = tmp_path / "out"
    argv = {
        "stats": ["stats", str(bad)],
        "align": ["align", "--cd", str(bad), "--run", str(FIRST_CD), "-o", str(out)],
        "avalida": ["avalida", str(bad), "-o", str(out)],
        "export": ["export", str(bad), "--format", "harem-json", "-o", str(out)],
    }[command]
    assert main(argv) == 2
    err = one_error_line(capsys, command)
    assert err.startswith(
        f"harem {command}: error: {bad}: expected a whole gzip file, found {found}"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("device", "kind"), [("/dev/zero", "a character device"), ("/dev/null", "a character device")]
)
@pytest.mark.parametrize("command", ["stats", "avalida", "vizir", "ida", "ida2id", "ida2mor"])
def test_a_device_as_input_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, device: str, kind: str, command: str
) -> None:
    argv = [command, device] + ([] if command == "stats" else ["-o", str(tmp_path / "out")])
    argv += ["-abs"] if command in ("vizir", "ida2mor") else []
    assert main(argv) == 2
    assert one_error_line(capsys, command) == (
        f"harem {command}: error: {device}: expected a regular file (an input is read more "
        f"than once), found {kind}\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_pipe_as_input_is_refused_not_read_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its encoding read first, its lines then: the second reading would find it empty.
    fifo = tmp_path / "in.alinhado"
    os.mkfifo(fifo)
    assert main(["avalida", str(fifo), "-o", str(tmp_path / "out")]) == 2
    assert one_error_line(capsys, "avalida").endswith("found a pipe\n")


# ---------------------------------------------------------------------------
# JSON nested 10^5 deep, for every JSON reader

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("command", "name", "text", "line"),
    [
        ("check", "r.json", DEEP, ""),
        ("compare", "r.json", DEEP, ""),
        ("report", "summary.json", DEEP, ""),
        ("import", "p.json", DEEP, ", line 1"),
        ("import", "p.json", f"[\n{DEEP}]", ", line 2"),
        ("import", "p.jsonl", DEEP + "\n", ", line 1"),
        (
            "measures",
            "m.jsonl",
            '{"tokens": [], "gold": [], "system": []}\n' + DEEP + "\n",
            ", line 2",
        ),
    ],
)
def test_json_nested_too_deep_is_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    name: str,
    text: str,
    line: str,
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    fmt = "jsonl" if name.endswith(".jsonl") else "harem-json"
    argv = {
        "check": ["check", str(path), "--min", "medida_f=0"],
        "compare": ["compare", str(path), str(path)],
        "report": ["report", str(tmp_path)],
        "import": ["import", str(path), "--format", fmt, "--cd", str(FIRST_CD), "-o", str(out)],
        "measures": ["measures", str(path), "--format", "tokens-jsonl", "-o", str(out)],
    }[command]
    assert main(argv) == 2
    assert one_error_line(capsys, command) == (
        f"harem {command}: error: {path}{line}: expected JSON nested a few hundred levels "
        "deep at most, found deeper nesting\n"
    )
    assert not out.exists() and not (tmp_path / "report.html").exists()


# ---------------------------------------------------------------------------
# Empty intermediate files, predictions of no document, a summary of {}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["avalida", "run.alinhado"], "an .alinhado file (AlinhEM's records)"),
        (["altida", "run.veu"], "a Véus result (evaluated records)"),
        (["vizir", "run.veu", "-abs"], "a Véus result (evaluated records)"),
        (["ida2id", "run.altida"], "an .altida file (AltinaID's records)"),
        (["altmor", "run.vizir"], "a .vizir file (Vizir's scored records)"),
        (["ida2mor", "run.altmor", "-abs"], "an .altmor file (AltinaMor's records)"),
        (["avalida", "run.alinhado.gz"], "an .alinhado file (AlinhEM's records)"),
    ],
)
def test_an_empty_intermediate_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    empty = tmp_path / argv[1]
    empty.write_bytes(gzip.compress(b"") if empty.suffix == ".gz" else b"")
    out = tmp_path / "out"
    assert main([argv[0], str(empty), *argv[2:], "-o", str(out)]) == 2
    assert one_error_line(capsys, argv[0]) == (
        f"harem {argv[0]}: error: {empty}: expected {expected}, found an empty file\n"
    )
    assert not out.exists() and not (tmp_path / "out.json").exists()


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [("p.json", "[]\n", "harem-json"), ("p.jsonl", "", "jsonl"), ("p.conll", "", "conll")],
)
def test_predictions_of_no_document_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, fmt: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "run.txt"
    assert main(["import", str(path), "--format", fmt, "--cd", str(FIRST_CD), "-o", str(out)]) == 2
    assert one_error_line(capsys, "import") == (
        f"harem import: error: {path}: expected at least one predicted document, found none\n"
    )
    assert not out.exists()


def test_a_summary_of_an_empty_object_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "summary.json").write_text("{}\n", encoding="utf-8")
    assert main(["report", str(tmp_path)]) == 2
    assert one_error_line(capsys, "report") == (
        f"harem report: error: {tmp_path / 'summary.json'}: expected the campaign summary "
        "harem run writes (keys rows, campaign, reports), found an empty object\n"
    )
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("command", ["check", "compare"])
def test_a_report_of_an_empty_object_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = tmp_path / "summary.json"
    path.write_text("{}\n", encoding="utf-8")
    argv = (
        ["check", str(path), "--min", "medida_f=0"]
        if command == "check"
        else [
            "compare",
            str(path),
            str(path),
        ]
    )
    assert main(argv) == 2
    expected = {
        "check": "expected the key 'medida_f', found an empty object",
        "compare": "expected the JSON of harem ida2id, ida2mor, ida or measures, "
        "found another JSON document",
    }[command]
    assert one_error_line(capsys, command) == f"harem {command}: error: {path}: {expected}\n"


# ---------------------------------------------------------------------------
# A dead scheduler, a full disk


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _NotFound(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
        self.send_error(404)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def not_a_scheduler() -> Iterator[str]:
    """An HTTP server on loopback that answers 404 to everything (not a luigid)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_dead_scheduler_is_one_line_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path)
    url = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    assert main(["run", "--config", str(config), "--scheduler-url", url]) == 2
    assert time.monotonic() - started < 10  # Luigi's retries took 62 s
    assert one_error_line(capsys, "run") == (
        f"harem run: error: --scheduler-url: expected a luigid answering at {url}, "
        "found none (Connection refused)\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_server_that_is_not_a_scheduler_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], not_a_scheduler: str
) -> None:
    config = make_campaign(tmp_path)
    url = not_a_scheduler.replace("//", "//user:secret@")
    assert main(["run", "--config", str(config), "--scheduler-url", url]) == 2
    # (the credentials are never printed)
    assert one_error_line(capsys, "run") == (
        f"harem run: error: --scheduler-url: expected a luigid answering at {not_a_scheduler}, "
        "found none (Not Found)\n"
    )  # the credentials are never printed


def test_a_scheduler_url_that_is_no_address_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path)
    assert main(["run", "--config", str(config), "--scheduler-url", "luigid:8082"]) == 2
    assert one_error_line(capsys, "run") == (
        "harem run: error: --scheduler-url: expected an http://HOST:PORT address of a luigid, "
        "found 'luigid:8082'\n"
    )


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file atomic_write opens is written to /dev/full: ENOSPC from the kernel."""
    real_fdopen = os.fdopen

    def fdopen(fd: int, mode: str = "r", *args: object, **kwargs: object) -> object:
        if "w" not in mode:
            return real_fdopen(fd, mode, *args, **kwargs)
        os.close(fd)  # the temporary file stays empty; /dev/full takes the bytes
        return open("/dev/full", mode, *args, **kwargs)  # noqa: SIM115

    monkeypatch.setattr(atomic.os, "fdopen", fdopen)


@pytest.mark.usefixtures("full_disk")
def test_a_full_disk_is_one_line_and_keeps_the_old_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "run.alinhado"
    source.write_text("# r\n# c\nDOC d\nEOD\n", encoding="utf-8")
    target = tmp_path / "run.avalida"
    target.write_text("the previous output\n", encoding="utf-8")
    assert main(["avalida", str(source), "-o", str(target)]) == 2
    assert one_error_line(capsys, "avalida") == (
        f"harem avalida: error: {target}: not written (No space left on device); what was "
        "there before is unchanged\n"
    )
    assert target.read_text(encoding="utf-8") == "the previous output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.alinhado", "run.avalida"]


def test_a_full_device_as_output_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(FIRST_CD), "--format", "harem-json", "-o", "/dev/full"]) == 2
    assert one_error_line(capsys, "export") == (
        "harem export: error: /dev/full: not written (No space left on device)\n"
    )


@pytest.mark.usefixtures("full_disk")
def test_a_full_disk_in_a_campaign_is_a_line_per_task_not_a_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    config = make_campaign(tmp_path)
    assert main(["run", "--config", str(config), "--workers", "1"]) == 2
    err = capfd.readouterr().err
    assert "Traceback" not in err
    alinhado = tmp_path / "out" / "strong" / "strong.alinhado"
    assert f"{alinhado}: not written (No space left on device); what was there" in err
    assert err.endswith(
        f"harem run: error: {tmp_path / 'out' / 'summary.md'}: not written (No space left on "
        "device); what was there before is unchanged\n"
    )
    assert not alinhado.exists()


# ---------------------------------------------------------------------------
# A golden category the grid lacks


def test_a_golden_category_the_grid_lacks_is_said_before_the_campaign(tmp_path: Path) -> None:
    from harem_pipeline.pipeline.config import load_campaign
    from harem_pipeline.pipeline.preflight import campaign_warnings

    config = make_campaign(tmp_path)
    cd = tmp_path / "cd.txt"
    data = cd.read_bytes()
    first = data.index(b"<PESSOA ")
    typo = data[:first] + b"<PESOA " + data[first + 8 :]
    close = typo.index(b"</PESSOA>", first)
    cd.write_bytes(typo[:close] + b"</PESOA>" + typo[close + 9 :])
    line = typo[:first].count(b"\n") + 1
    docid = typo[:first].rsplit(b"<DOCID>", 1)[1].split(b"<", 1)[0].decode()
    assert campaign_warnings(load_campaign(config)) == [
        f"{cd}, line {line}, document {docid}: warning: category 'PESOA' is not in the grid "
        "harem2005.conf (1 entities); it is scored as the grid lacking it"
    ]


def test_both_commands_say_a_golden_category_the_grid_lacks_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.helpers.campaign import luigi_command

    config = make_campaign(tmp_path, documents=2)
    cd = tmp_path / "cd.txt"
    data = cd.read_bytes()
    first = data.index(b"<PESSOA ")
    close = data.index(b"</PESSOA>", first)
    cd.write_bytes(
        data[:first] + b"<PESOA " + data[first + 8 : close] + b"</PESOA>" + data[close + 9 :]
    )
    said = "warning: category 'PESOA' is not in the grid harem2005.conf (1 entities)"
    result = luigi_command("FullEvaluation", "--local-scheduler", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [line for line in result.stderr.splitlines() if said in line] == [
        line for line in result.stderr.splitlines() if line.startswith(str(cd))
    ]
    assert result.stderr.count(said) == 1
    shutil.rmtree(tmp_path / "out")
    assert main(["run", "--config", str(config), "--quiet"]) == 0
    assert capsys.readouterr().err.count(said) == 1


def test_the_shipped_collections_use_their_grid_s_categories() -> None:
    from harem_pipeline.formats.harem_xml import read_collection
    from harem_pipeline.model import FIRST_HAREM
    from harem_pipeline.stages.emir import choose_grid
    from harem_pipeline.stages.gold import category_uses, unknown_category_warnings

    found = {}
    for path in sorted(DATA.glob("**/*")):
        if path.name.startswith(("cd", "CD", "Coleccao", "Segundo")) and "meta" not in path.name:
            collection = read_collection(path)
            grid = choose_grid(collection.format == FIRST_HAREM, None)
            found[path.name] = unknown_category_warnings(category_uses(collection), grid, "x")
    assert len(found) >= 6
    # The one exception is the official LÂMPADA 2.0 file: six entities under the First
    # HAREM's earlier name of COISA (see harem_pipeline/stages/gold.py).
    assert {name: lines for name, lines in found.items() if lines} == {
        "CDPrimeiroHAREMprimeiroevento.xml.gz": [
            "x, line 2823, document HAREM-594-08181: warning: category 'OBJECTO' is not in the "
            "grid harem.conf (6 entities); it is scored as the grid lacking it"
        ]
    }


# ---------------------------------------------------------------------------
# A file of the wrong stage; a NUL byte in an attribute

EXEMPLO0 = DATA / "lampada2" / "exemplo0"


@pytest.fixture(scope="module")
def alinhado(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("aligned") / "run.alinhado"
    cd, run = EXEMPLO0 / "cd.xml", EXEMPLO0 / "participacao.xml"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(target)]) == 0
    return target


@pytest.mark.parametrize("command", ["altida", "alts"])
def test_an_alinhado_given_to_a_stage_of_veus_results_is_refused(
    alinhado: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    capsys.readouterr()
    out = tmp_path / "out"
    assert main([command, str(alinhado), "-o", str(out)]) == 2
    assert one_error_line(capsys, command) == (
        f"harem {command}: error: {alinhado}, line 6: expected a Véus result (evaluated "
        "records): records with their evaluation (harem avalida, then harem veus), found a "
        "record without one (an .alinhado file?)\n"
    )
    assert not out.exists()


def test_a_collection_given_as_metadata_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    cd = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
    assert main(["stats", "--meta", str(cd)]) == 2
    assert one_error_line(capsys, "stats") == (
        f"harem stats: error: {cd}, line 4, document H2-dftre765: expected collection "
        "metadata, a <VARIANTE> in every <DOC> (colSegundoHAREM-meta.xml), found a DOC "
        "without one (a collection?)\n"
    )


@pytest.mark.parametrize("side", ["cd", "run"])
def test_a_nul_byte_in_an_attribute_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str
) -> None:
    files = {"cd": EXEMPLO0 / "cd.xml", "run": EXEMPLO0 / "participacao.xml"}
    data = files[side].read_bytes()
    at = data.index(b'CATEG="') + len(b'CATEG="')
    bad = tmp_path / files[side].name
    bad.write_bytes(data[:at] + b"\x00" + data[at:])
    files[side] = bad
    line = data[:at].count(b"\n") + 1
    out = tmp_path / "out.alinhado"
    assert (
        main(["align", "--cd", str(files["cd"]), "--run", str(files["run"]), "-o", str(out)]) == 2
    )
    err = one_error_line(capsys, "align")
    assert err.startswith(
        f"harem align: error: {bad}, line {line}: expected a tag without NUL characters, found <EM "
    )
    assert 'CATEG="\\x00' in err and "\x00" not in err
    assert not out.exists()


def test_a_nul_byte_in_a_first_harem_attribute_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = FIRST_CD.read_bytes()
    at = data.index(b'TIPO="') + len(b'TIPO="')
    bad = tmp_path / "cd.txt"
    bad.write_bytes(data[:at] + b"\x00" + data[at:])
    assert main(["stats", str(bad)]) == 2
    line = data[:at].count(b"\n") + 1
    assert one_error_line(capsys, "stats").startswith(
        f"harem stats: error: {bad}, line {line}: expected a tag without NUL characters"
    )


def test_a_usage_error_quoting_an_argument_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["stats", str(FIRST_CD), "\x1b[2J\x1b[31mFORGED"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith("harem: error: unrecognized arguments: \\x1b[2J\\x1b[31mFORGED\n")
    assert "\x1b" not in err
