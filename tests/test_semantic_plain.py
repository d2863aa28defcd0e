"""Plain records (alts', altsem's and espurios' fast path) give the general path's bytes
and errors; the semantic record's two readings agree.

alts, altsem and espurios read a plain record line
(:class:`~harem_pipeline.formats.semantic.PlainRecord`) without building
its tags and copy what it holds.  In production they read runs of such lines
(test_semantic_runs) and a line alone only outside them.  Here each stage reads
every line alone and by the general reader, on a sample of the reference inputs
(:data:`~tests.helpers.semantic.SAMPLE`) and on generated files full of
the unusual (attribute spacing, brackets, ``''``, ``<`` in texts, duplicate
entities, vague and First HAREM entities, ALT blocks, bad items and
counts): the texts written, or the errors raised, must be the same.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import format_line, iter_lines, parse_line
from harem_pipeline.formats.semantic import (
    PlainRecord,
    SemanticRecord,
    as_semantic,
    iter_plain_runs,
    parse_semantic_line,
    read_plain_emir_record,
    read_plain_record,
    read_record_line,
)
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.espurios import collect_spurious
from tests.helpers.semantic import (
    ALTS,
    EMIRS,
    REFERENCE,
    VEUS,
    general_emir,
    general_written,
    outcome,
    records,
    sampled,
    unzipped,
    veu_files,
    written,
)

Stage = Callable[[Iterable, str], Iterable]

ALTS_STAGES: dict[str, tuple[Stage, str | None, Callable]] = {
    "alts": (organise_alts, ":", read_plain_record),
    "espurios": (collect_spurious, None, read_plain_record),
}

NO_RUN = re.compile(r"(?!)")


def iter_plain_lines(path: Path, plain: Callable, parse: Callable) -> tuple[str, Iterable]:
    """The lines of ``path`` each read alone by ``plain`` (else ``parse``): the runs'
    reader with no run."""
    return iter_plain_runs(path, NO_RUN, plain, parse)


def both_ways(
    path: Path, stage: Stage, marker: str | None, emir_input: bool, reader: Callable | None = None
) -> None:
    """``stage`` on ``path`` read by ``reader`` (default: as plain) and by the general reader."""
    general_parse = parse_semantic_line if emir_input else parse_line
    plain_reader = reader or (read_plain_emir_record if emir_input else read_plain_record)

    def general() -> str:
        return general_written(
            path, stage, marker, general_parse, lambda: read_once(path, iter_lines, general_parse)
        )

    def plain() -> str:
        lines = read_once(path, iter_plain_lines, plain_reader, general_parse)
        return written(stage(lines, str(path)), marker)

    assert outcome(plain) == outcome(general)


READ_ONCE: OrderedDict[tuple, list | None] = OrderedDict()
"""The last few readings of :func:`read_once`, by the file's bytes and how it was read."""


def read_once(path: Path, reader: Callable, *how: Callable) -> Iterable:
    """``reader(path, *how)``'s lines, read once for all the stages run on the same bytes.

    The lines are immutable, so each stage may walk the same list.  A reading
    that fails is not kept: each stage then reads the file itself, as lazily as
    before, so its own error may come first, exactly as it would.
    """
    key = (hashlib.sha256(path.read_bytes()).digest(), reader, how)
    if key not in READ_ONCE:
        try:
            READ_ONCE[key] = list(reader(path, *how)[1])
        except InputError:
            READ_ONCE[key] = None
        while len(READ_ONCE) > 4:  # the readings of one file at a time, not the suite's
            READ_ONCE.popitem(last=False)
    lines = READ_ONCE[key]
    return reader(path, *how)[1] if lines is None else iter(lines)


@pytest.mark.parametrize("source", sampled(VEUS), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_alts_on_reference_inputs(source: Path, tmp_path: Path) -> None:
    both_ways(unzipped(source, tmp_path), organise_alts, ":", emir_input=False)


@pytest.mark.parametrize("stage", sorted(set(ALTS_STAGES) - {"alts"}))  # alts reads a .veu
@pytest.mark.parametrize("source", sampled(ALTS), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_alts_stages_on_reference_inputs(source: Path, stage: str, tmp_path: Path) -> None:
    function, marker, reader = ALTS_STAGES[stage]
    both_ways(unzipped(source, tmp_path), function, marker, emir_input=False, reader=reader)


@pytest.mark.parametrize("source", sampled(EMIRS), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_emir_stages_on_reference_inputs(source: Path, tmp_path: Path) -> None:
    """ALTina on the Emir files it reads in a campaign (absolute ``.emir``)."""
    path = unzipped(source, tmp_path)
    if source.name.endswith(".emir.gz"):
        both_ways(path, select_alternatives, ":", emir_input=True)


def test_reference_records_are_nearly_all_plain() -> None:
    """The fast path is the common path (else these tests would test little)."""
    path = REFERENCE / "gabriel" / "total_harem.veu.alts.gz"
    lines = gzip.decompress(path.read_bytes()).decode("latin-1").split("\n")
    records = [line for line in lines if " ---> " in line]
    plain = [line for line in records if read_plain_record(line) is not None]
    assert len(plain) > 0.9 * len(records)


def test_reference_records_are_nearly_all_canonical() -> None:
    """Most records are read by the canonical expression (else the property below would
    test little)."""
    for name in ("total_harem.veu.alts.gz", "total_harem.veu.alts.emir.gz"):
        path = REFERENCE / "gabriel" / name
        lines = gzip.decompress(path.read_bytes()).decode("latin-1").split("\n")
        records = [line for line in lines if " ---> " in line]
        read = [read_record_line(line, None, 0, "\n") for line in records]
        canonical = [r for r in read if isinstance(r, SemanticRecord) and r.parsed is None]
        assert len(canonical) > 0.7 * len(records)


GOLD = '<EM ID="g1" CATEG="LOCAL|PESSOA" TIPO="HUMANO" COMENT="x">Porto</EM>'


def test_a_record_is_known_by_its_classic_values_and_what_follows_its_list() -> None:
    line = f'{GOLD} ---> [<EM ID="s9" CATEG="LOCAL" SUBTIPO="PAIS">Porto</EM>]:[Correcto]^0.5'
    record = read_record_line(line, None, 7, "\n")
    assert isinstance(record, SemanticRecord) and record.parsed is None
    assert record.key == (
        ("LOCAL|PESSOA", "HUMANO", None), (("LOCAL", None, "PAIS"),), (0,), ("Correcto",), "^0.5"
    )  # fmt: skip
    assert record.head() == line.partition(":[")[0]
    odd_value = '<EM CATEG="LOCAL" COMENT=" TIPO=">Porto</EM> ---> [null]:[Em_Falta]'
    odd = read_record_line(odd_value, None, 1, "\n")
    assert odd.key.gold == ("LOCAL", None, None)  # type: ignore[union-attr]
    line = '<LOCAL TIPO="PAIS">Porto</LOCAL> ---> [null]::[Em_Falta]'
    first_harem = read_record_line(line, None, 1, "\n")
    assert first_harem.key[:2] == (("LOCAL", "PAIS", None), None)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "line",
    [
        '<EM TIPO="HUMANO" CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',  # TIPO first
        '<EM CATEG="LOCAL" CATEG="PESSOA">Porto</EM> ---> [null]:[Em_Falta]',  # a second CATEG
        '<EM CATEG="LOCAL" X="1" TIPO="HUMANO">Porto</EM> ---> [null]:[Em_Falta]',  # TIPO late
        "<EM CATEG=\"LOCAL\">d''Ávila</EM> ---> [null]:[Em_Falta]",  # '' is reprinted
        f"{GOLD} ---> [<EM>a</EM>, <EM>a</EM>]:[Espurio, Correcto]",  # two system entities
        '<EM  CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',  # two spaces
        '<EM CATEG="A[1]">Porto</EM> ---> [null]:[Em_Falta]',  # a bracket in a value
    ],
)
def test_records_not_in_the_canonical_shape_are_read_by_the_grammar(line: str) -> None:
    """The full grammar's reading, with the same key as the Java reads the line."""
    record = read_record_line(line, None, 1, "\n")
    assert isinstance(record, SemanticRecord) and record.parsed == parse_line(line)


def test_the_key_picks_the_first_entity_read_back_the_same() -> None:
    line = f"{GOLD} ---> [<EM>a''b</EM>, <EM>a'b</EM>, <EM>c</EM>]:[Espurio, Correcto, Espurio]"
    assert read_record_line(line, None, 1, "\n").key.picks == (0, 0, 2)  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None)
@given(line=records())
def test_both_readings_of_a_record_agree(line: str) -> None:
    """A line the canonical expression reads has the full grammar's key and is written
    back as the grammar's reading is (the property every semantic stage relies on)."""
    try:
        record = read_record_line(line, None, 1, "\n")
    except InputError:  # the grammar refuses it: so does every stage
        return
    if not isinstance(record, SemanticRecord) or record.parsed is not None:
        return
    general = as_semantic(parse_line(line))
    assert isinstance(general, SemanticRecord)
    assert record.key == general.key
    assert record.head() == general.head()
    for emir_line in (line.partition(":[")[0] + ":[{x}]",):
        emir = read_record_line(emir_line, None, 1, "\n")
        assert emir.key == as_semantic(parse_semantic_line(emir_line)).key  # type: ignore[union-attr]


# ---------------------------------------------------------------------------
# Generated files

SLOW = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SLOW
@given(text=veu_files())
def test_every_stage_on_generated_files(text: str, tmp_path: Path) -> None:
    veu = tmp_path / "g.veu"
    veu.write_bytes(text.encode("latin-1"))
    both_ways(veu, organise_alts, ":", emir_input=False)
    for function, marker, reader in ALTS_STAGES.values():
        both_ways(veu, function, marker, emir_input=False, reader=reader)
    emir = general_emir(veu)  # the general path's .emir: the input of altsem and ida
    if emir is None:
        return
    both_ways(emir, select_alternatives, ":", emir_input=True)
    both_ways(emir, organise_alts, ":", emir_input=False)  # Emir lines are never plain here


@settings(max_examples=300, deadline=None)
@given(line=records())
def test_a_plain_record_is_the_general_record_written_back(line: str) -> None:
    plain = read_plain_record(line)
    if plain is None:
        return
    record = parse_line(line)
    assert isinstance(plain, PlainRecord)
    assert plain.head + ":" + plain.tail == format_line(record, ":")
    assert plain.items == tuple(item.text for item in record.evaluation or ())
