"""Bad files, devices and faults of the system: one stderr line, exit 2, nothing half-written.

Each case below was a traceback, a hang or a silent accept: a doubled
``.alinhado`` header, a closed standard output, an input's control
characters reaching the terminal, a corrupt gzip member, a device as
input, JSON nested past Python's recursion limit, empty intermediate
files, a dead scheduler, a full disk, a golden collection with a category
the grid lacks, a file of the wrong stage, a NUL byte in an attribute.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harem_pipeline.cli import main
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
