"""Runs of plain lines (alts, altsem and espurios's fast path) give the general path's bytes.

:func:`~harem_pipeline.formats.semantic.iter_plain_runs` hands these
stages whole runs of lines one match checked
(:class:`~harem_pipeline.formats.semantic.PlainRun`); outside ALT blocks
they copy them, inside they cut each line at its marks and keep plain
records as read.  Here each stage runs on the runs and on the general
reader, on a sample of the reference inputs
(:data:`~tests.helpers.semantic.SAMPLE`, with the usual and with tiny
chunks, so runs are cut anywhere; all of them meet the Java's files in
test_semantic_reference) and on generated files full of ALT blocks of plain
records (merged alternatives, vague entities, spurious records, the same
entity twice, bad lines, ``''``, CRLF): the texts written, or the errors
raised, must be the same.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import harem_pipeline.formats.alinhado as alinhado_format
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import iter_lines, parse_line
from harem_pipeline.formats.semantic import (
    PlainRecord,
    PlainRun,
    iter_plain_runs,
    parse_semantic_line,
    plain_emir_run,
    plain_run,
    read_plain_emir_record,
    read_plain_record,
    read_run_line,
)
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.espurios import collect_spurious
from tests.helpers.semantic import (
    ALTS,
    EMIRS,
    REFERENCE,
    VEUS,
    by_chunk_size,
    general_emir,
    general_written,
    outcome,
    sampled,
    set_chunk_size,
    unzipped,
    veu_files,
    written,
)

Stage = Callable[[Iterable, str], Iterable]


def runs_both_ways(path: Path, stage: Stage, marker: str | None, emir_input: bool) -> None:
    """The stage on the runs reader and on the general reader: same text or same error."""
    parse = parse_semantic_line if emir_input else parse_line

    def general() -> str:
        return general_written(path, stage, marker, parse)

    def runs() -> str:
        if emir_input:
            _, lines = iter_plain_runs(path, plain_emir_run(), read_plain_emir_record, parse)
        else:
            _, lines = iter_plain_runs(path)
        return written(stage(lines, str(path)), marker)

    assert outcome(runs) == outcome(general)


def every_stage(path: Path) -> None:
    """alts and espurios on ``path``; altsem on the general path's Emir file of its .alts."""
    runs_both_ways(path, organise_alts, ":", emir_input=False)
    runs_both_ways(path, collect_spurious, None, emir_input=False)
    emir = general_emir(path)
    if emir is None:
        return
    runs_both_ways(emir, select_alternatives, ":", emir_input=True)


@pytest.mark.parametrize(("source", "chunk_size"), by_chunk_size(VEUS))
def test_alts_runs_on_reference_inputs(
    source: Path, chunk_size: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_chunk_size(chunk_size, monkeypatch)
    runs_both_ways(unzipped(source, tmp_path), organise_alts, ":", emir_input=False)


@pytest.mark.parametrize(("source", "chunk_size"), by_chunk_size(ALTS))
def test_espurios_runs_on_reference_inputs(
    source: Path, chunk_size: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_chunk_size(chunk_size, monkeypatch)
    path = unzipped(source, tmp_path)
    runs_both_ways(path, collect_spurious, None, emir_input=False)


@pytest.mark.parametrize(
    ("source", "chunk_size"),
    by_chunk_size([p for p in EMIRS if p.name.endswith(".emir.gz")]),  # what ALTina reads
)
def test_altsem_runs_on_reference_inputs(
    source: Path, chunk_size: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_chunk_size(chunk_size, monkeypatch)
    runs_both_ways(unzipped(source, tmp_path), select_alternatives, ":", emir_input=True)


def test_reference_lines_are_mostly_in_runs(tmp_path: Path) -> None:
    """The run path is the common path, ALT blocks included (else these tests test little)."""
    for source, run, plain, parse in (
        (REFERENCE / "gabriel" / "total_harem.veu.gz", plain_run(), read_plain_record, parse_line),
        (
            REFERENCE / "gabriel" / "total_harem.veu.alts.emir.gz",
            plain_emir_run(),
            read_plain_emir_record,
            parse_semantic_line,
        ),
    ):
        path = unzipped(source, tmp_path)
        _, items = iter_plain_runs(path, run, plain, parse)
        in_runs = alone = 0
        for item in items:
            if type(item) is PlainRun:
                in_runs += item.text.count("\n")
            else:
                alone += 1
        assert in_runs > 0.95 * (in_runs + alone)


@pytest.mark.parametrize("source", sampled([*VEUS, *ALTS, *EMIRS]), ids=lambda p: p.name)
def test_a_run_line_is_its_plain_record(source: Path, tmp_path: Path) -> None:
    """:func:`read_run_line` cuts a run's record as the plain readers read it."""
    emir = ".emir" in source.name or ".altrel" in source.name
    run, plain = (
        (plain_emir_run(), read_plain_emir_record) if emir else (plain_run(), read_plain_record)
    )
    path = unzipped(source, tmp_path)
    _, items = iter_plain_runs(path, run, plain, parse_semantic_line if emir else parse_line)
    for item in items:
        if type(item) is not PlainRun:
            continue
        for number, body in item.bodies():
            line = read_run_line(body, number, emir)
            if isinstance(line, PlainRecord):
                assert line == plain(body, number, "\n")
            else:
                assert line == parse_line(body, None, number)


# ---------------------------------------------------------------------------
# Generated files: ALT blocks of plain records

TEXTS = st.sampled_from(["Lisboa", "Porto", "Rio", "Zona Sul", "Ana", "a, b", "x"])
ODD_TEXTS = st.sampled_from(["d''Ávila", "a [b]", "x<y", ""])
CATEGORIES = st.sampled_from(
    ["PESSOA", "LOCAL", "ORGANIZACAO", "PESSOA|LOCAL", "LOCAL|PESSOA", "OBRA", "", "XPTO"]
)
TYPES = st.sampled_from(["INDIVIDUAL", "HUMANO", "GRUPOIND|PAIS", "", "OUTRO|"])
ITEMS = st.sampled_from(
    [
        "Correcto",
        "Em_Falta",
        "Parcialmente_Correcto_por_Excesso(0.5; 0.5)",
        "Parcialmente_Correcto_por_Defeito(0.3333333333333333; 0.6666666666666667)",
    ]
)


TAG_NAMES = st.sampled_from(["EM", "EM", "EM", "LOCAL", "PESSOA|ORGANIZACAO"])
IDS = st.integers(1, 6)
SIX = st.integers(0, 5)
TEN = st.integers(0, 9)
SPACING = st.integers(0, 40)
ODD_TEXT = st.integers(0, 30)
NULL_SYSTEM = st.integers(0, 3)
TWICE = st.integers(0, 10)
BAD = st.integers(0, 60)
ONE_IN_21 = st.integers(0, 20)
EMPTY_ALTERNATIVE = st.integers(0, 6)
SPURIOUS_FIRST = st.integers(0, 4)
STRAY_LINES = st.sampled_from(["DOC X", "", "EOD", "<ALT>", "junk"])
STRAY_MARKS = st.sampled_from(["<ALT03>", "</ALT2>", "<ALT1>", "</ALT>"])
SEGMENTATIONS = st.lists(st.lists(TEXTS, min_size=1, max_size=3), min_size=1, max_size=2)
"""The strategies the composites below draw from, built once (drawing a strategy built
anew each time costs its construction and checks; the values drawn are the same)."""


@st.composite
def plain_tags(draw: st.DrawFn, text: str | None = None, spurious: bool = False) -> str:
    name = draw(TAG_NAMES)
    attributes = []
    if draw(SIX):
        attributes.append(("ID", f"d-{draw(IDS)}"))
    if spurious:
        if name == "EM":
            attributes.append(("CATEG", "ESPURIO"))
        else:
            name = "ESPURIO"
    else:
        if draw(TEN):
            attributes.append(("CATEG", draw(CATEGORIES)))
        if draw(st.booleans()):
            attributes.append(("TIPO", draw(TYPES)))
    if text is None:
        text = draw(ODD_TEXTS) if draw(ODD_TEXT) == 0 else draw(TEXTS)
    spaces = "  " if draw(SPACING) == 0 else " "
    head = "".join(f'{spaces}{key}="{value}"' for key, value in attributes)
    return f"<{name}{head}>{text}</{name}>"


ANY_PLAIN_TAGS = st.lists(plain_tags(), min_size=1, max_size=5)
GOLD_TAGS = functools.cache(plain_tags)
"""plain_tags(text, spurious), one strategy for each (text, spurious)."""
ITEM_LISTS = functools.cache(lambda count: st.lists(ITEMS, min_size=count, max_size=count))


@st.composite
def plain_records(draw: st.DrawFn, text: str | None = None, spurious: bool = False) -> str:
    gold = draw(GOLD_TAGS(text, spurious))
    if not spurious and draw(NULL_SYSTEM) == 0:
        system, count = "[null]", 1
    else:
        entities = draw(ANY_PLAIN_TAGS)
        if draw(TWICE) == 0:
            entities = [entities[0], *entities]  # the same entity twice
        system, count = "[" + ", ".join(entities) + "]", len(entities)
    if spurious:
        items = ["Espurio"] * count
    else:
        items = draw(ITEM_LISTS(count))
    bad = draw(BAD)
    if bad == 0:
        items.append("Correcto")  # one item too many
    elif bad == 1:
        items[0] = "Corecto"
    elif bad == 2:
        system = "[null]"  # a spurious record without entity, or a count off
    marker = "::" if draw(ONE_IN_21) == 0 else ":"
    suffix = "^0.5" if draw(ONE_IN_21) == 0 else ""
    return f"{gold} ---> {system}{marker}[{', '.join(items)}]{suffix}"


SPURIOUS_RECORDS = plain_records(spurious=True)
ANY_RECORDS = plain_records()
RECORDS_OF = functools.cache(plain_records)
"""plain_records(text), one strategy for each text."""


@st.composite
def alt_blocks(draw: st.DrawFn) -> list[str]:
    segmentations = draw(SEGMENTATIONS)
    lines = ["<ALT>"]
    for number in range(1, draw(st.integers(1, 4)) + 1):
        lines.append(f"<ALT{number}>")
        if draw(EMPTY_ALTERNATIVE):  # else an empty alternative
            for text in draw(st.sampled_from(segmentations)):
                if draw(SPURIOUS_FIRST) == 0:
                    lines.append(draw(SPURIOUS_RECORDS))
                lines.append(draw(RECORDS_OF(text)))
        if draw(BAD) == 0:
            lines.append(draw(STRAY_LINES))
        lines.append(f"</ALT{number}>")
    lines.append("</ALT>")
    return lines


ALT_BLOCKS = alt_blocks()


@st.composite
def plain_veu_files(draw: st.DrawFn) -> str:
    lines = ["#PESSOA:LOCAL(HUMANO{PAIS,DIVISAO,RUA}):ORGANIZACAO:OBRA"]
    for number in range(draw(st.integers(1, 3))):
        lines.append(f"DOC D{number}")
        for _ in range(draw(st.integers(0, 12))):
            kind = draw(TEN)
            if kind < 4:
                lines.extend(draw(ALT_BLOCKS))
            elif kind < 5:
                lines.append(draw(SPURIOUS_RECORDS))
            else:
                lines.append(draw(ANY_RECORDS))
        lines.extend(["EOD", ""])
        if draw(ODD_TEXT) == 0:
            lines.append(draw(STRAY_MARKS))
    eol = "\r\n" if draw(TWICE) == 0 else "\n"
    return eol.join(lines) + eol


SLOW = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SLOW
@given(text=plain_veu_files())
def test_every_stage_on_generated_alt_blocks(text: str, tmp_path: Path) -> None:
    veu = tmp_path / "g.veu"
    veu.write_bytes(text.encode("latin-1"))
    every_stage(veu)
    _, lines = iter_lines(veu)
    try:  # the .alts (with ^w suffixes and the blocks' spurious records) read again
        alts_text = written(organise_alts(lines, str(veu)), ":")
    except InputError:
        return
    alts = tmp_path / "g.alts"
    alts.write_bytes(alts_text.encode("latin-1"))
    runs_both_ways(alts, collect_spurious, None, emir_input=False)
    every_stage(alts)


@SLOW
@given(text=veu_files())
def test_every_stage_on_generated_unusual_files(text: str, tmp_path: Path) -> None:
    veu = tmp_path / "g.veu"
    veu.write_bytes(text.encode("latin-1"))
    every_stage(veu)


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
@pytest.mark.parametrize("flaw", [b"\xff", b"\x81", b"\r", b""])
def test_runs_of_a_later_chunk_read_as_the_lines(
    encoding: str, flaw: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk after the first is decoded whole; an undecodable byte or a CR in it reads
    (or fails) as the general reader reads the lines."""
    monkeypatch.setattr(alinhado_format, "CHUNK_BYTES", 300)
    record = '<EM ID="1" CATEG="LOCAL">São Paulo</EM> ---> [null]:[Em_Falta]'.encode(encoding)
    lines = [b"#LOCAL", b"DOC D1", *[record] * 12, b"<ALT>", b"<ALT1>", record, b"</ALT1>"]
    lines += [b"</ALT>", record[:-3] + flaw + record[-3:], record, b"EOD"]
    path = tmp_path / "f.veu"
    path.write_bytes(b"\n".join(lines) + b"\n")
    runs_both_ways(path, organise_alts, ":", emir_input=False)
    runs_both_ways(path, collect_spurious, None, emir_input=False)
