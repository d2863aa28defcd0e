"""Plain records (the semantic stages' fast path) give the general path's bytes and errors.

Every stage of the semantic chain reads a plain record line
(:class:`~harem_pipeline.formats.semantic.PlainRecord`) without building
its tags and copies or reuses what it wrote for an earlier line of the same
key; Emir and Ida read a keyed record line
(:class:`~harem_pipeline.formats.semantic.KeyedRecord`) by its key alone, the
others as plain.  In production they read runs and blocks of such lines
(test_semantic_runs, test_semantic_keyed_blocks) and a line alone only
outside them.  Here each stage reads every line alone and by the general
reader, on a sample of the reference inputs
(:data:`~tests.helpers.semantic.SAMPLE`) and on generated files full of
the unusual (attribute spacing, brackets, ``''``, ``<`` in texts, duplicate
entities, vague and First HAREM entities, ALT blocks, bad items and
counts): the texts written, or the errors raised, must be the same.
"""

from __future__ import annotations

import gzip
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import format_line, iter_lines, parse_line
from harem_pipeline.formats.semantic import (
    PlainRecord,
    iter_plain_lines,
    keyed_or,
    parse_semantic_line,
    read_keyed_record,
    read_plain_emir_record,
    read_plain_record,
)
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.espurios import collect_spurious
from harem_pipeline.stages.ida import tally_semantic
from tests.helpers.semantic import (
    ALTS,
    EMIR_STAGES,
    EMIRS,
    REFERENCE,
    VEUS,
    general_emir,
    general_tally,
    general_written,
    outcome,
    records,
    repeated_key_files,
    sampled,
    unzipped,
    veu_files,
    written,
)

Stage = Callable[[Iterable, str], Iterable]

READ_ALTS_KEYED = keyed_or(read_plain_record)
"""How Emir reads an ``.alts`` file."""
READ_EMIR_KEYED = keyed_or(read_plain_emir_record)
"""How Ida reads an ``.emir`` file."""

ALTS_STAGES: dict[str, tuple[Stage, str | None, Callable]] = {
    "alts": (organise_alts, ":", read_plain_record),
    "espurios": (collect_spurious, None, read_plain_record),
    **{f"emir-{name}": (stage, ":", READ_ALTS_KEYED) for name, stage in EMIR_STAGES.items()},
}


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


def tallies_both_ways(path: Path) -> None:
    """Ida's counts as read as plain and by the general reader, as the file says and with
    the 2005 views: the same counts (every sum the same bits) or the same error."""
    for views in (None, True):

        def plain(views: bool | None = views) -> object:
            lines = read_once(path, iter_plain_lines, READ_EMIR_KEYED, parse_semantic_line)
            return tally_semantic(lines, str(path), first_harem=views)

        assert outcome(plain) == outcome(lambda views=views: general_tally(path, views))


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
    """Ida on each Emir file; ALTina on those it reads in a campaign (absolute ``.emir``)."""
    path = unzipped(source, tmp_path)
    if source.name.endswith(".emir.gz"):
        both_ways(path, select_alternatives, ":", emir_input=True)
    tallies_both_ways(path)


def test_reference_records_are_nearly_all_plain() -> None:
    """The fast path is the common path (else these tests would test little)."""
    path = REFERENCE / "gabriel" / "total_harem.veu.alts.gz"
    lines = gzip.decompress(path.read_bytes()).decode("latin-1").split("\n")
    records = [line for line in lines if " ---> " in line]
    plain = [line for line in records if read_plain_record(line) is not None]
    assert len(plain) > 0.9 * len(records)


def test_reference_records_are_nearly_all_keyed() -> None:
    """Emir's and Ida's cache is looked up by key for most records (else it would test little)."""
    for name in ("total_harem.veu.alts.gz", "total_harem.veu.alts.emir.gz"):
        path = REFERENCE / "gabriel" / name
        lines = gzip.decompress(path.read_bytes()).decode("latin-1").split("\n")
        records = [line for line in lines if " ---> " in line]
        keyed = [line for line in records if read_keyed_record(line) is not None]
        assert len(keyed) > 0.7 * len(records)


GOLD = '<EM ID="g1" CATEG="LOCAL|PESSOA" TIPO="HUMANO" COMENT="x">Porto</EM>'


def test_a_keyed_record_is_known_by_its_classic_values_and_what_follows_its_list() -> None:
    line = f'{GOLD} ---> [<EM ID="s9" CATEG="LOCAL" SUBTIPO="PAIS">Porto</EM>]:[Correcto]^0.5'
    keyed = read_keyed_record(line, 7)
    assert keyed is not None
    assert keyed.key == (
        "EM", ' CATEG="LOCAL|PESSOA" TIPO="HUMANO"', "EM", ' CATEG="LOCAL" SUBTIPO="PAIS"',
        ":[Correcto]^0.5",
    )  # fmt: skip
    assert line[: keyed.head_end] == line.partition(":[")[0]
    odd_value = '<EM CATEG="LOCAL" COMENT=" TIPO=">Porto</EM> ---> [null]:[Em_Falta]'
    assert read_keyed_record(odd_value).key[:2] == ("EM", ' CATEG="LOCAL"')  # type: ignore[union-attr]
    assert read_keyed_record(f"{GOLD} ---> [null]::[Em_Falta]").key[2:] == (  # type: ignore[union-attr]
        None, None, "::[Em_Falta]"
    )  # fmt: skip
    assert read_keyed_record(f"{GOLD} ---> [<EM>P</EM>]::[Espurio]").key[2:4] == ("EM", "")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "line",
    [
        '<EM TIPO="HUMANO" CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',  # TIPO first
        '<EM CATEG="LOCAL" CATEG="PESSOA">Porto</EM> ---> [null]:[Em_Falta]',  # a second CATEG
        '<EM CATEG="LOCAL" X="1" TIPO="HUMANO">Porto</EM> ---> [null]:[Em_Falta]',  # TIPO late
        "<EM CATEG=\"LOCAL\">d''Ávila</EM> ---> [null]:[Em_Falta]",  # '' is reprinted
        '<EM CATEG="LOCAL">d\'Ávila</EM> ---> [null]:[Em_Falta]',  # no quote marks at all
        f"{GOLD} ---> [<EM>a</EM>, <EM>b</EM>]:[Espurio, Espurio]",  # two system entities
        '<EM  CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',  # two spaces
        '<EM CATEG="A[1]">Porto</EM> ---> [null]:[Em_Falta]',  # a bracket in a value
        "DOC H2-1",
        "",
    ],
)
def test_lines_not_in_the_keyed_shape_are_read_as_before(line: str) -> None:
    assert read_keyed_record(line) is None


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
    tallies_both_ways(emir)
    both_ways(emir, organise_alts, ":", emir_input=False)  # Emir lines are never plain here


@SLOW
@given(text=repeated_key_files())
def test_emir_and_ida_on_records_of_one_key(text: str, tmp_path: Path) -> None:
    veu = tmp_path / "r.veu"
    veu.write_bytes(text.encode("latin-1"))
    for name, (function, marker, reader) in ALTS_STAGES.items():
        if name.startswith("emir"):
            both_ways(veu, function, marker, emir_input=False, reader=reader)
    emir = general_emir(veu)
    if emir is None:
        return
    tallies_both_ways(emir)


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
