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

import random
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

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
from tests.helpers.strategies import one_in, seeded

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

# Built from a seed hypothesis draws (``seeded``): drawing each of a file's
# many choices cost hypothesis more than running every stage on it.
TEXTS = ["Lisboa", "Porto", "Rio", "Zona Sul", "Ana", "a, b", "x"]
ODD_TEXTS = ["d''Ávila", "a [b]", "x<y", ""]
CATEGORIES = ["PESSOA", "LOCAL", "ORGANIZACAO", "PESSOA|LOCAL", "LOCAL|PESSOA", "OBRA", "", "XPTO"]
TYPES = ["INDIVIDUAL", "HUMANO", "GRUPOIND|PAIS", "", "OUTRO|"]
ITEMS = [
    "Correcto",
    "Em_Falta",
    "Parcialmente_Correcto_por_Excesso(0.5; 0.5)",
    "Parcialmente_Correcto_por_Defeito(0.3333333333333333; 0.6666666666666667)",
]
TAG_NAMES = ["EM", "EM", "EM", "LOCAL", "PESSOA|ORGANIZACAO"]
STRAY_LINES = ["DOC X", "", "EOD", "<ALT>", "junk"]
STRAY_MARKS = ["<ALT03>", "</ALT2>", "<ALT1>", "</ALT>"]


def plain_tag(rng: random.Random, text: str | None = None, spurious: bool = False) -> str:
    name = rng.choice(TAG_NAMES)
    attributes = []
    if not one_in(rng, 6):
        attributes.append(("ID", f"d-{rng.randint(1, 6)}"))
    if spurious:
        if name == "EM":
            attributes.append(("CATEG", "ESPURIO"))
        else:
            name = "ESPURIO"
    else:
        if not one_in(rng, 10):
            attributes.append(("CATEG", rng.choice(CATEGORIES)))
        if one_in(rng, 2):
            attributes.append(("TIPO", rng.choice(TYPES)))
    if text is None:
        text = rng.choice(ODD_TEXTS) if one_in(rng, 31) else rng.choice(TEXTS)
    spaces = "  " if one_in(rng, 41) else " "
    head = "".join(f'{spaces}{key}="{value}"' for key, value in attributes)
    return f"<{name}{head}>{text}</{name}>"


def plain_record(rng: random.Random, text: str | None = None, spurious: bool = False) -> str:
    gold = plain_tag(rng, text, spurious)
    if not spurious and one_in(rng, 4):
        system, count = "[null]", 1
    else:
        entities = [plain_tag(rng) for _ in range(rng.randint(1, 5))]
        if one_in(rng, 11):
            entities = [entities[0], *entities]  # the same entity twice
        system, count = "[" + ", ".join(entities) + "]", len(entities)
    items = ["Espurio"] * count if spurious else rng.choices(ITEMS, k=count)
    bad = rng.randint(0, 60)
    if bad == 0:
        items.append("Correcto")  # one item too many
    elif bad == 1:
        items[0] = "Corecto"
    elif bad == 2:
        system = "[null]"  # a spurious record without entity, or a count off
    marker = "::" if one_in(rng, 21) else ":"
    suffix = "^0.5" if one_in(rng, 21) else ""
    return f"{gold} ---> {system}{marker}[{', '.join(items)}]{suffix}"


def alt_block(rng: random.Random) -> list[str]:
    segmentations = [rng.choices(TEXTS, k=rng.randint(1, 3)) for _ in range(rng.randint(1, 2))]
    lines = ["<ALT>"]
    for number in range(1, rng.randint(1, 4) + 1):
        lines.append(f"<ALT{number}>")
        if not one_in(rng, 7):  # else an empty alternative
            for text in rng.choice(segmentations):
                if one_in(rng, 5):
                    lines.append(plain_record(rng, spurious=True))
                lines.append(plain_record(rng, text))
        if one_in(rng, 61):
            lines.append(rng.choice(STRAY_LINES))
        lines.append(f"</ALT{number}>")
    lines.append("</ALT>")
    return lines


def plain_veu_file(rng: random.Random) -> str:
    lines = ["#PESSOA:LOCAL(HUMANO{PAIS,DIVISAO,RUA}):ORGANIZACAO:OBRA"]
    for number in range(rng.randint(1, 3)):
        lines.append(f"DOC D{number}")
        for _ in range(rng.randint(0, 12)):
            kind = rng.randint(0, 9)
            if kind < 4:
                lines.extend(alt_block(rng))
            elif kind < 5:
                lines.append(plain_record(rng, spurious=True))
            else:
                lines.append(plain_record(rng))
        lines.extend(["EOD", ""])
        if one_in(rng, 31):
            lines.append(rng.choice(STRAY_MARKS))
    eol = "\r\n" if one_in(rng, 11) else "\n"
    return eol.join(lines) + eol


SLOW = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SLOW
@given(text=seeded(plain_veu_file))
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
