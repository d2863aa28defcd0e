"""Classic values read from attributes as written, and a repeated entity's item.

The canonical reading of a record takes the classic values (CATEG, TIPO,
SUBTIPO) of its entities from the attributes as written
(:func:`~harem_pipeline.formats.semantic.read_record_line`); here on attribute
texts made to mislead a text search (``=`` and attribute names inside values,
repeated names).  Emir and Ida give a repeated entity the first copy's item,
whatever its own (``EvaluatedAlignment.getScore``), yet check every item.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import format_line, parse_line
from harem_pipeline.formats.semantic import (
    SemanticRecord,
    as_semantic,
    classic_key,
    iter_records,
    read_record_line,
)
from harem_pipeline.pipeline.ida_counts import read_tally
from harem_pipeline.stages.emir import EmirParams, evaluate_lines

KEYS = st.sampled_from(["CATEG", "TIPO", "SUBTIPO", "ID", "MORF", "XCATEG", "CATEGX"])
VALUES = st.sampled_from(
    ["PESSOA", "LOCAL|PESSOA", "", "a CATEG=", " TIPO=", "x=y", "=", "HUMANO", "1 SUBTIPO=b"]
)


@st.composite
def plain_tags(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(["EM", "LOCAL", "PESSOA", "ESPURIO"]))
    attributes = draw(st.lists(st.tuples(KEYS, VALUES), max_size=6))
    head = "".join(f' {key}="{value}"' for key, value in attributes)
    return f"<{name}{head}>texto</{name}>"


@settings(max_examples=400, deadline=None)
@given(gold=plain_tags(), system=plain_tags())
def test_the_canonical_key_is_the_key_of_the_parsed_record(gold: str, system: str) -> None:
    """Classic values read from the attributes as written are those of the parsed tags."""
    line = f"{gold} ---> [{system}]:[Correcto]"
    record = read_record_line(line, None, 1, "\n")
    general = as_semantic(parse_line(line))
    assert isinstance(record, SemanticRecord) and isinstance(general, SemanticRecord)
    assert record.key == general.key
    assert general.key.gold == classic_key(parse_line(line).gold)  # type: ignore[union-attr]


ITEMS = st.sampled_from(
    [
        "Correcto",
        "Correcto",
        "Espurio",
        "Parcialmente_Correcto_por_Defeito(0.25; 0.75)",
        "{Categoria(Correcto:[PESSOA] Espurio:[] Em_Falta:[]) Tipo(Correcto:[] Espurio:[] "
        "Em_Falta:[]) Subtipo(Correcto:[] Espurio:[] Em_Falta:[]) MaxCSC_CD(1.5) "
        "MaxCSC_S(1.5) CSC(1.5) Peso(1.0)}",
        "Bogus",
        "{x}",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    gold=plain_tags(),
    systems=st.lists(plain_tags(), min_size=2, max_size=4),
    repeated=st.booleans(),
    data=st.data(),
    suffix=st.sampled_from(["", "", "^0.5", " x"]),
)
def test_a_list_of_entities_is_read_as_the_parsed_record_is(
    gold: str, systems: list[str], repeated: bool, data: st.DataObject, suffix: str
) -> None:
    """Several system entities (an entity written twice among them: the items are taken
    from the first), one item each or not: the key is the full grammar's, or the line is
    left to the full grammar, whose outcome (record or error) is then the one."""
    if repeated:
        systems.append(systems[0])
    count = len(systems) + data.draw(st.sampled_from([0, 0, 0, 0, -1, 1]))
    items = data.draw(st.lists(ITEMS, min_size=count, max_size=count))
    line = f"{gold} ---> [{', '.join(systems)}]:[{', '.join(items)}]{suffix}"
    try:
        general = as_semantic(parse_line(line))
    except InputError:
        with pytest.raises(InputError):
            read_record_line(line, None, 1, "\n")
        return
    record = read_record_line(line, None, 1, "\n")
    assert isinstance(record, SemanticRecord) and isinstance(general, SemanticRecord)
    assert record.key == general.key
    assert record.head() == general.head() and record.listed() == general.listed()


def _outcome(run):
    try:
        return run()
    except InputError as error:
        return ("error", str(error))


def _written(items) -> str:
    return "".join(
        item if isinstance(item, str) else format_line(item, ":") + item.eol for item in items
    )


HEADER = "#PESSOA:LOCAL(HUMANO{PAIS,DIVISAO,RUA}):ORGANIZACAO"
X = '<EM ID="1" CATEG="LOCAL" TIPO="HUMANO">X</EM>'
GOLD = '<EM ID="g" CATEG="LOCAL" TIPO="HUMANO" SUBTIPO="PAIS">X</EM>'
TWICE = f"{GOLD} ---> [{X}, {X}]"


def _write(path: Path, records: list[str]) -> Path:
    path.write_text("\n".join([HEADER, "DOC d", *records, "EOD", ""]), "latin-1")
    return path


@pytest.mark.parametrize("params", [EmirParams(), EmirParams(relative=True)])
@pytest.mark.parametrize(
    "second", ["Em_Falta", "Parcialmente_Correcto_por_Excesso(0.5; 0.5)", "Espurio"]
)
def test_emir_on_a_repeated_entity(tmp_path: Path, params: EmirParams, second: str) -> None:
    """The second copy of an entity takes the first one's item, whatever its own."""
    records = [f"{TWICE}:[Correcto, Correcto]", f"{TWICE}:[Correcto, {second}]"]
    alts = _write(tmp_path / "r.alts", records)
    _, lines = iter_records(alts)
    written = _written(evaluate_lines(lines, params, str(alts))).splitlines()
    first, again = (line for line in written if " ---> " in line)
    assert first == again and first.count("Peso(1.0)") == 2
    bad = _write(tmp_path / "b.alts", [*records, f"{records[1]}^x"])
    _, lines = iter_records(bad)
    with pytest.raises(InputError, match="line 5"):  # the ^x suffix, on the last line
        _written(evaluate_lines(lines, params, str(bad)))


ITEM = (
    "{{Categoria(Correcto:[LOCAL] Espurio:[] Em_Falta:[]) Tipo(Correcto:[HUMANO] Espurio:[] "
    "Em_Falta:[]) Subtipo(Correcto:[] Espurio:[] Em_Falta:[PAIS]) MaxCSC_CD({max_cd}) "
    "MaxCSC_S(2.5) CSC(2.5) Peso({weight})}}"
)


@pytest.mark.parametrize(
    ("second", "valid"),
    [
        (ITEM.format(max_cd="x", weight="1.0"), False),
        ("{Categoria(Correcto:[LOCAL])}", False),
        (ITEM.format(max_cd="2.75", weight="0.5"), True),
        (ITEM.format(max_cd="2.75", weight="1.0"), True),
    ],
)
def test_ida_on_a_repeated_entity(tmp_path: Path, second: str, valid: bool) -> None:
    """A repeated entity's own item is read and checked but not counted: the record counts
    as one whose copies both have the first item."""
    first = ITEM.format(max_cd="2.75", weight="1.0")
    emir = _write(
        tmp_path / "r.emir", [f"{TWICE}:[{first}, {first}]", f"{TWICE}:[{first}, {second}]"]
    )
    same = _write(tmp_path / "s.emir", [f"{TWICE}:[{first}, {first}]"] * 2)
    if not valid:
        with pytest.raises(InputError, match="line 4"):
            read_tally(emir)
        return
    assert read_tally(emir)[1].total == read_tally(same)[1].total
