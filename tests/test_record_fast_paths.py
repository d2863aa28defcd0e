"""The raw-line paths of AvalIDa, Véus, AltinaID and Ida2ID against the general ones.

The identification stages read files a chunk of raw lines at a time and copy
the records ``scan_record`` reads (``formats/alinhado.py``), handing every
other line to ``parse_line`` and the general code.  These tests hold the
two paths to the same bytes, counts and errors: on reference record files
(:data:`AGREEMENT_FILES`), on hand-made odd lines and on generated files of
records written in canonical and non-canonical ways, good and broken.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats import alinhado as fmt
from harem_pipeline.formats.alinhado import (
    Line,
    LineChunk,
    Record,
    format_line,
    format_lines,
    iter_line_chunks,
    iter_lines,
    parse_line,
    raw_is_spurious,
    raw_tag,
    scan_record,
)
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.stages.altida import (
    chosen_block_text,
    select_alternatives,
    select_alternatives_chunks,
)
from harem_pipeline.stages.avalida import evaluate_chunks, evaluate_lines
from harem_pipeline.stages.ida2id import tally_identification, tally_identification_chunks
from harem_pipeline.stages.veus import apply_veus, apply_veus_chunks
from harem_pipeline.text.atoms import atoms
from harem_pipeline.text.tokens import is_letter_or_digit
from tests.helpers.paths import DATA, one_veil_of_the_real_run
from tests.helpers.strategies import one_in, seeded

RECORD_FILES = sorted(
    path
    for path in (DATA / "reference").glob("*/*")
    # the Aligner's token view, the ReRelEM chain and the official pages are other formats
    if path.parent.name not in ("etiquetas", "rerelem", "official")
    and not path.name.endswith((".ida.gz", ".globalid.gz", ".stderr.gz", ".md", ".xml"))
    and not path.name.endswith(".stderr")
) + [DATA / "lampada2" / "exemplo0" / "ficheiro.alinhado"]


def read_text(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso8859-1")


def check_scan(body: str) -> bool:
    """What ``scan_record`` reads is what ``parse_line`` reads, and the line is canonical;
    whether ``scan_record`` reads it."""
    scanned = scan_record(body)
    if scanned is None:
        return False
    gold, system, list_end, marker, items, suffix = scanned
    record = parse_line(body)
    assert isinstance(record, Record)
    assert format_line(record) == body
    assert raw_tag(gold) == record.gold
    assert raw_is_spurious(gold) == record.gold.is_spurious
    assert (None if system is None else tuple(map(raw_tag, system))) == record.system
    assert (marker, items, suffix) == (record.marker, record.evaluation, record.suffix)
    assert body[list_end:].startswith(marker + "[" if marker else "")
    assert format_line(Record(record.gold, record.system)) == body[:list_end]
    return True


@pytest.mark.parametrize(
    "path", one_veil_of_the_real_run(RECORD_FILES), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_scan_agrees_with_the_parser_on_every_reference_line(path: Path) -> None:
    lines = read_text(path).splitlines()
    scanned = 0
    for body in lines:
        scanned += check_scan(body)
    if path.name.endswith((".alinhado.gz", ".avalida.gz", ".veu.gz", ".alinhado")):
        assert scanned  # the fast path is taken on identification files


ODD_LINES = [
    '<EM ID="1">a</EM> ---> [null]',
    '<EM ID="1">a</EM> ---> []',
    '<EM ID="1">a</EM> ---> []:[Em_Falta]',
    '<EM  ID="1">a</EM> ---> [null]',
    '<EM ID="1" >a</EM> ---> [null]',
    '<EM ID = "1">a</EM> ---> [null]',
    '<EM ID="1">a <b</EM> ---> [null]',
    '<EM ID="1">a</EM></EM> ---> [null]',
    '<EM ID="1">a</LOCAL></EM> ---> [null]',
    '<EM ID="1">a</EM> ---> [null]:[Em_Falta]',
    '<EM ID="1">a</EM> ---> [null]::[Em_Falta]^0.5',
    '<EM ID="1">a</EM> ---> [null]:::[Em_Falta]',
    '<EM ID="1">a</EM> ---> [null]:[Em_Falta, Em_Falta]',
    '<EM ID="1">a</EM> ---> [null]:[]',
    '<EM ID="1">a</EM> ---> [null]:[Espúrio]',
    '<EM ID="1">a</EM> ---> [null]:[Corecto]',
    '<EM ID="1">a</EM> ---> [null]junk',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[Correcto]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>, <EM ID="3">b</EM>]:[Correcto]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>, <EM ID="3">b</EM>]:[Correcto, Espurio]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>,<EM ID="3">b</EM>]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[Parcialmente_Correcto_por_Excesso(0.25; 0.75)]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[Parcialmente_Correcto_por_Defeito(x; 0.75)]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[Parcialmente_Correcto_por_Excesso(0.25;0.75)]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[{Categoria(Correcto:[PESSOA]) Peso(1.0)}]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[(Género: Correcto) (Número: Correcto)]',
    '<EM ID="1">a</EM> ---> [<EM ID="2">a</EM>]:[Correcto]]',
    '<EM ID="1" CATEG="ESPURIO">a</EM> ---> [<EM ID="2">a</EM>]',
    '<EM CATEG="PESSOA|ESPURIO" ID="1">a</EM> ---> [<EM ID="2">a</EM>]',
    '<EM TIPO="ESPURIO">a</EM> ---> [<EM ID="2">a</EM>]',
    "<ESPURIO>a</ESPURIO> ---> [<LOCAL>a</LOCAL>]",
    "<COISA|ESPURIO>a</COISA|ESPURIO> ---> [<LOCAL>a</LOCAL>]",
    '<LOCAL TIPO="PAIS" MORF="M,S">Brasil</LOCAL> ---> [<LOCAL>Brasil</LOCAL>]:[Correcto]',
    "<OMITIDO>a</OMITIDO> ---> [null]",
    "<VERIFICACAO_MANUAL><EM>a</EM> ---> [null]</VERIFICACAO_MANUAL>",
    "<ALT>",
    "<ALT01>",
    "</ALT2>",
    "<ALTx>",
    "",
    "EOD",
    "DOC x",
    "#header",
    "HAREM-1-2 PT Web",
    "[<EM>a</EM>]",
    '<EM ID="1">a\r</EM> ---> [null]',
    '<EM ID="1">ação ² x</EM> ---> [<EM ID="2">ação</EM>]',
]


@pytest.mark.parametrize("body", ODD_LINES)
def test_scan_agrees_with_the_parser_on_odd_lines(body: str) -> None:
    check_scan(body)


def test_verbatim_lines_are_written_back_as_read() -> None:
    for body in ["", "EOD", "DOC x", "# a", "<ALT>", "</ALT>", "<ALT1>", "</ALT12>", "<ALT0>"]:
        assert fmt.is_verbatim(body)
        assert format_line(parse_line(body)) == body
    for body in ["<ALT01>", "HAREM-1-2 PT Web", "<EM>a</EM> ---> [null]", "DOCx", "<ALTx>"]:
        assert not fmt.is_verbatim(body)


def test_atoms_fast_path_agrees_with_the_character_check() -> None:
    for code in range(0x300):
        text = f"a{chr(code)}b {chr(code)}9"
        expected: list[str] = []
        part = ""
        for char in text:
            if is_letter_or_digit(char):
                part += char
            elif part:
                expected.append(part.upper())
                part = ""
        if part:
            expected.append(part.upper())
        assert atoms(text) == expected, hex(code)


# ---------------------------------------------------------------------------
# Whole files: chunks against lines, stages against stages


def general_stage(
    stage: str, path: Path, lines: Iterable[Line] | None = None, **options
) -> tuple[str, str | bytes]:
    """The general path's output text (or error), as the steps wrote it before.

    ``lines``: the file's lines already read (what :func:`iter_lines` gives), so
    that the stages of one file share one reading; None reads the file.
    """
    name = str(path)
    try:
        if lines is None:
            encoding, lines = iter_lines(path)
        if stage == "avalida":
            return "ok", format_lines(evaluate_lines(lines, name))
        if stage == "veus":
            veil = parse_veil(options.get("veil"), read_grid())
            out = apply_veus(
                lines, options["style"], veil, None, options.get("variant"), source=name
            )
            return "ok", format_lines(out, ":")
        if stage == "altida":
            return "ok", format_lines(select_alternatives(lines, name), ":")
        tally = tally_identification(lines, name)
        return "ok", repr(tally)
    except InputError as error:
        return "error", str(error)


def fast_stage(
    stage: str, path: Path, chunks: Iterable[LineChunk] | None = None, **options
) -> tuple[str, str | bytes]:
    """The raw-line path's output text (or error); ``chunks`` as for ``lines`` above."""
    name = str(path)
    try:
        if chunks is None:
            encoding, chunks = iter_line_chunks(path)
        if stage == "avalida":
            return "ok", "".join(evaluate_chunks(chunks, name))
        if stage == "veus":
            veil = parse_veil(options.get("veil"), read_grid())
            out = apply_veus_chunks(
                chunks, options["style"], veil, None, options.get("variant"), source=name
            )
            return "ok", "".join(out)
        if stage == "altida":
            return "ok", "".join(select_alternatives_chunks(chunks, name))
        return "ok", repr(tally_identification_chunks(chunks, name))
    except InputError as error:
        return "error", str(error)


STAGE_RUNS = [
    ("avalida", {}),
    ("veus", {"style": "harem"}),
    ("veus", {"style": "muc"}),
    ("veus", {"style": "relaxado"}),
    ("veus", {"style": "muc", "veil": "PESSOA:LOCAL(HUMANO{PAIS})"}),
    ("veus", {"style": "harem", "variant": "pt"}),
    ("altida", {}),
    ("ida2id", {}),
]


CHUNK_SIZES = (1 << 20, 7)  # the stages' own size, and (nearly) a chunk per line

READS = {
    "avalida": (".alinhado", ".alinhado.gz"),
    "veus": (".avalida.gz",),
    "altida": (".veu.gz",),
    "ida2id": (".veu.gz", ".avalida.gz"),
}
"""The reference files each stage reads in a campaign, by the end of their names (Ida2ID
reads AltinaID's output, a ``.veu`` without ALT blocks; the ``.veu`` files have them).
Every stage run meets every other shape in the generated files below."""


def runs_reading(path: Path) -> list[tuple[str, dict]]:
    """The stage runs of :data:`STAGE_RUNS` that read a file of ``path``'s kind."""
    return [(stage, options) for stage, options in STAGE_RUNS if path.name.endswith(READS[stage])]


def check_file(
    path: Path,
    monkeypatch: pytest.MonkeyPatch,
    runs: list[tuple[str, dict]] = STAGE_RUNS,
    sizes: tuple[int, ...] = CHUNK_SIZES,
) -> None:
    """Every stage run of ``runs`` gives the same on both paths, at each chunk size.

    The file is read once for all the runs (its lines, and its chunks at each
    size, checked to be the same lines); a file whose reading fails is read
    by each run itself, so that each reports its error as it would.
    """
    lines = read_or_none(lambda: list(iter_lines(path)[1]))
    chunkings = {}
    for size in sizes:
        monkeypatch.setattr(fmt, "CHUNK_BYTES", size)
        chunkings[size] = read_or_none(lambda: list(iter_line_chunks(path)[1]))
    monkeypatch.setattr(fmt, "CHUNK_BYTES", 1 << 20)
    if all(chunks is not None for chunks in chunkings.values()):
        assert len({repr(lines_of(chunks)) for chunks in chunkings.values()}) == 1
    for stage, options in runs:
        expected = general_stage(stage, path, lines, **options)
        for size, chunks in chunkings.items():
            monkeypatch.setattr(fmt, "CHUNK_BYTES", size)
            got = fast_stage(stage, path, None if chunks is None else copied(chunks), **options)
            assert got == expected, (stage, options, size)
        monkeypatch.setattr(fmt, "CHUNK_BYTES", 1 << 20)


def read_or_none(read: Callable[[], list]) -> list | None:
    try:
        return read()
    except InputError:
        return None


def copied(chunks: list[LineChunk]) -> list[LineChunk]:
    """Chunks no stage run can change for the next one."""
    return [LineChunk(c.first, list(c.bodies), list(c.eols)) for c in chunks]


def lines_of(chunks: Iterable[LineChunk]) -> list[tuple[int, str, str]]:
    """``(number, text, line end)`` of each line of the chunks."""
    return [(c.first + i, body, c.eols[i]) for c in chunks for i, body in enumerate(c.bodies)]


REAL_RUN_VEU = DATA / "reference" / "gabriel" / "cenario4_categs_muc.veu.gz"
AGREEMENT_FILES = [
    p for p in RECORD_FILES if runs_reading(p) and (p.parent.name != "gabriel" or p == REAL_RUN_VEU)
]
"""The worked examples' record files some stage reads, and one ``.veu`` of the real Second
HAREM run (AltinaID's choices on real blocks).  The real run's other files meet the Java's
outputs as a campaign reads them (test_avalida, test_veus, test_ida2id)."""


@pytest.mark.parametrize("path", AGREEMENT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stages_agree_on_reference_files(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the stages' own chunk size, and a line a chunk on the worked examples."""
    sizes = CHUNK_SIZES[:1] if path == REAL_RUN_VEU else CHUNK_SIZES
    check_file(path, monkeypatch, runs_reading(path), sizes)


def test_every_stage_reads_some_reference_files() -> None:
    for stage, _ in STAGE_RUNS:
        assert len([p for p in AGREEMENT_FILES if p.name.endswith(READS[stage])]) >= 3, stage


def test_chunks_are_the_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = {
        "crlf": b"DOC a\r\n<EM>x</EM> ---> [null]\r\nEOD\r\n",
        "mixed": b"DOC a\n<EM>x</EM> ---> [null]\r\n\r\nEOD",
        "bom": b"\xef\xbb\xbfDOC a\n",
        "bom-only": b"\xef\xbb\xbf",
        "latin": b"DOC a\n<EM>\xe9</EM> ---> [null]\n",
        "bad-utf8-after-bom": b"\xef\xbb\xbfDOC a\n<EM>\xe9</EM> ---> [null]\n",
        "lone-cr": b"DOC a\r\r\n<EM>x\ry</EM> ---> [null]\n",
        "empty": b"",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        for size in (1, 3, 1 << 20):
            monkeypatch.setattr(fmt, "CHUNK_BYTES", size)
            assert chunk_lines(path) == parsed_lines(path), (name, size)


def chunk_lines(path: Path) -> object:
    try:
        encoding, chunks = iter_line_chunks(path)
        return encoding, lines_of(chunks)
    except InputError as error:
        return str(error)


def parsed_lines(path: Path) -> object:
    try:
        encoding, lines = iter_lines(path)
        return encoding, [(line.line, format_line(line), line.eol) for line in lines]
    except InputError as error:
        return str(error)


# Generated files: records written canonically or not, with odd tags, lists and verdicts.

# Built from a seed hypothesis draws (``seeded``): drawing each of a file's many
# choices cost hypothesis more than the checks on it.
TEXTS = ["a", "A b", "a  b", "", "x<y", "ação", "4000m²", "D.Francisco", "a b"]
NAMES = ["EM", "LOCAL", "ESPURIO", "COISA|ESPURIO", "PESSOA"]
ATTRS = [
    ' ID="1"',
    ' ID="2"',
    ' CATEG="PESSOA"',
    ' CATEG="ESPURIO"',
    ' CATEG="LOCAL|PESSOA"',
    ' TIPO="HUMANO" SUBTIPO="PAIS"',
    '  CATEG="LOCAL"',
    ' MORF="F,S"',
]
SPACES = ["", "", "", " "]
VERDICTS = [
    "Correcto",
    "Em_Falta",
    "Espurio",
    "Espúrio",
    "Parcialmente_Correcto_por_Excesso(0.25; 0.75)",
    "Parcialmente_Correcto_por_Defeito(0.1; 0.9)",
    "Parcialmente_Correcto_por_Defeito(0.1;0.9)",
]
OTHER_LINES = ["", "EOD", "DOC d2", "# x", "HAREM-9-9 PT Web", "<ALT01>"]


def random_tag(rng: random.Random) -> str:
    name, attrs = rng.choice(NAMES), "".join(rng.choices(ATTRS, k=rng.randint(0, 3)))
    return f"<{name}{attrs}{rng.choice(SPACES)}>{rng.choice(TEXTS)}</{name}>"


def random_record(rng: random.Random) -> str:
    gold = random_tag(rng)
    system = None if one_in(rng, 2) else [random_tag(rng) for _ in range(rng.randint(0, 3))]
    listed = "[null]" if system is None else "[" + ", ".join(system) + "]"
    text = f"{gold} ---> {listed}"
    if one_in(rng, 2):
        wanted = 1 if not system else len(system)
        count = rng.choice([wanted, wanted, wanted, 0, wanted + 1])
        items = ", ".join(rng.choices(VERDICTS, k=count))
        text += rng.choice([":", "::"]) + f"[{items}]" + rng.choice(["", "^0.5"])
    return text


def file_text(rng: random.Random, lines: list[str]) -> str:
    """The lines and EOD, with LF or CRLF ends, the last line's end now and then left out."""
    end = rng.choice(["\n", "\r\n"])
    return end.join([*lines, "EOD"]) + rng.choice([end, ""])


def random_file(rng: random.Random) -> str:
    lines = ["# run", "DOC d1"]
    for _ in range(rng.randint(0, 12)):
        kind = rng.randint(0, 9)
        if kind < 6:
            lines.append(random_record(rng))
        elif kind < 8:
            lines.append(rng.choice(OTHER_LINES))
        else:
            block = ["<ALT>"]
            for n in range(1, rng.randint(1, 3) + 1):
                records = [random_record(rng) for _ in range(rng.randint(0, 2))]
                block += [f"<ALT{n}>", *records, f"</ALT{n}>"]
            lines += [*block, "</ALT>"]
    return file_text(rng, lines)


def records() -> st.SearchStrategy[str]:
    return seeded(random_record)


def files() -> st.SearchStrategy[str]:
    return seeded(random_file)


@settings(max_examples=150, deadline=None)
@given(body=records())
def test_scan_agrees_with_the_parser_on_generated_records(body: str) -> None:
    check_scan(body)


@settings(max_examples=120, deadline=None)
@given(text=files())
def test_stages_agree_on_generated_files(text: str, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("gen") / "f.alinhado"
    path.write_bytes(text.encode("utf-8"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        check_file(path, monkeypatch)
        # and the same file once evaluated by the general AvalIDa
        status, evaluated = general_stage("avalida", path)
        if status == "ok":
            path.write_bytes(evaluated.encode("utf-8"))
            check_file(path, monkeypatch)


def test_odd_lines_take_both_paths() -> None:
    """The hand-made lines hold lines the scanner reads and lines it leaves to the parser."""
    read = sum(scan_record(body) is not None for body in ODD_LINES)
    assert 5 < read < len(ODD_LINES) - 5


# ---------------------------------------------------------------------------
# AltinaID's raw ALT blocks: record_marker, chosen_block_text


def check_marker(body: str) -> None:
    """``record_marker`` reads a line exactly when ``scan_record`` does, and says the same."""
    scanned = scan_record(body)
    expected = None if scanned is None else (scanned[2], scanned[3])
    assert fmt.record_marker(body) == expected


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_record_marker_agrees_with_the_scan_on_every_reference_line(path: Path) -> None:
    for body in read_text(path).splitlines():
        check_marker(body)


@settings(max_examples=150, deadline=None)
@given(body=st.one_of(records(), st.sampled_from(ODD_LINES)))
def test_record_marker_agrees_with_the_scan_on_generated_records(body: str) -> None:
    check_marker(body)


def raw_blocks(path: Path) -> list[list[tuple[int, str, str]]]:
    """The ``<ALT>`` … ``</ALT>`` blocks of a file, as the raw lines AltinaID holds."""
    blocks: list[list[tuple[int, str, str]]] = []
    block: list[tuple[int, str, str]] | None = None
    for number, body, eol in fmt.iter_numbered_lines(path)[1]:
        if body == "<ALT>":
            block = []
        if block is not None:
            block.append((number, body, eol))
            if body == "</ALT>":
                blocks.append(block)
                block = None
    return blocks


ALT_FILES = [
    DATA / "reference" / "exemplo1" / "total_harem.veu.gz",
    DATA / "reference" / "gabriel" / "total_harem.veu.gz",
    DATA / "reference" / "gabriel" / "run.alinhado.avalida.gz",
]


@pytest.mark.parametrize("path", ALT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_reference_alt_blocks_are_read_raw(path: Path) -> None:
    """Every ALT block of these files is chosen from its raw lines, as the general path chooses."""
    blocks = raw_blocks(path)
    assert blocks
    for block in blocks:
        text = chosen_block_text(block)
        assert text is not None, block[0][0]
        lines = [parse_line(body, str(path), number, eol) for number, body, eol in block]
        assert text == format_lines(select_alternatives(lines, str(path)), ":")


BLOCK_LINES = [
    "",
    "# note",
    "<ALT01>",
    "<ALT0>",
    "</ALT1>",
    "<ALT>",
    "</ALT>",
    "DOC d3",
    "EOD",
    "HAREM-9-9 PT Web",
    "<OMITIDO>x</OMITIDO>",
    '<EM ID="1">a</EM> ---> [null]',
    "<ALT1>\r",
]


def random_alt_block(rng: random.Random) -> list[str]:
    """A block, mostly well formed: alternatives of evaluated records, and now and then
    a stray line (between or inside alternatives), a bad marker or a missing end."""
    block = ["<ALT>"]
    for n in (rng.randint(0, 3) for _ in range(rng.randint(0, 3))):
        if one_in(rng, 5):
            block.append(rng.choice(BLOCK_LINES))
        block.append(f"<ALT{n}>")
        for _ in range(rng.randint(0, 3)):
            block.append(rng.choice(BLOCK_LINES) if one_in(rng, 6) else random_record(rng))
        block.append(f"</ALT{n}>")
    if not one_in(rng, 7):
        block.append("</ALT>")
    return block


def random_alt_file(rng: random.Random) -> str:
    lines = ["# run", "DOC d1"]
    for _ in range(rng.randint(1, 5)):
        if one_in(rng, 2):
            lines.append(random_record(rng))
        lines += random_alt_block(rng)
    return file_text(rng, lines)


def alt_files() -> st.SearchStrategy[str]:
    return seeded(random_alt_file)


@settings(max_examples=200, deadline=None)
@given(text=alt_files())
def test_altida_paths_agree_on_generated_alt_blocks(text: str, tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("alt") / "f.veu"
    path.write_bytes(text.encode("utf-8"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        expected = general_stage("altida", path)
        for size in (fmt.CHUNK_BYTES, 7):
            monkeypatch.setattr(fmt, "CHUNK_BYTES", size)
            assert fast_stage("altida", path) == expected, size
        # and the same file once evaluated by the general AvalIDa
        status, evaluated = general_stage("avalida", path)
        if status == "ok":
            path.write_bytes(evaluated.encode("utf-8"))
            expected = general_stage("altida", path)
            for size in (fmt.CHUNK_BYTES, 7):
                monkeypatch.setattr(fmt, "CHUNK_BYTES", size)
                assert fast_stage("altida", path) == expected, size
