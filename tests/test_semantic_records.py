"""The semantic chain's record: one type, two readings that agree.

A record line of an ``.alts``, ``.emir`` or ``.altrel`` file is read once
into a :class:`~harem_pipeline.formats.semantic.SemanticRecord`: by the
canonical expression when it has the shape the chain writes, else by the
full grammar.  Every semantic stage decides on its key and writes its head
back, so both readings must give the same key and the same head.
"""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import parse_line
from harem_pipeline.formats.semantic import (
    SemanticRecord,
    as_semantic,
    parse_semantic_line,
    read_record_line,
)
from tests.helpers.semantic import REFERENCE, records


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
        '<EM  CATEG="LOCAL">Porto</EM> ---> [null]:[Em_Falta]',  # two spaces
        '<EM CATEG="A[1]">Porto</EM> ---> [null]:[Em_Falta]',  # a bracket in a value
    ],
)
def test_records_not_in_the_canonical_shape_are_read_by_the_grammar(line: str) -> None:
    """The full grammar's reading, with the same key as the Java reads the line."""
    record = read_record_line(line, None, 1, "\n")
    assert isinstance(record, SemanticRecord) and record.parsed == parse_line(line)


def test_a_list_of_entities_is_read_by_the_expression_with_its_picks() -> None:
    """Two entities written the same take the first one's item, as the Java looks them up."""
    listed = '[<EM>a</EM>, <EM CATEG="LOCAL">b</EM>, <EM>a</EM>]'
    line = f"{GOLD} ---> {listed}:[Espurio, Correcto, Correcto]"
    record = read_record_line(line, None, 1, "\n")
    assert isinstance(record, SemanticRecord) and record.parsed is None
    assert record.key.systems == ((None, None, None), ("LOCAL", None, None), (None, None, None))
    assert record.key.picks == (0, 1, 0)
    assert record.key == as_semantic(parse_line(line)).key  # type: ignore[union-attr]


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
    assert record.unchanged() == general.unchanged()
    assert record.listed() == general.listed()
    aligned = 1 if record.key.systems is None else len(record.key.systems)
    for emir_line in (line.partition(":[")[0] + ":[" + ", ".join(["{x}"] * aligned) + "]",):
        emir = read_record_line(emir_line, None, 1, "\n")
        assert emir.key == as_semantic(parse_semantic_line(emir_line)).key  # type: ignore[union-attr]
