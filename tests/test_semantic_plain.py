"""Plain records (the semantic stages' fast path) give the general path's bytes and errors.

Every stage of the semantic chain reads a plain record line
(:class:`~harem_pipeline.formats.semantic.PlainRecord`) without building
its tags and copies or reuses what it wrote for an earlier line of the same
key.  Here each stage runs both ways, on every reference input and on
generated files full of the unusual (attribute spacing, brackets, ``''``,
``<`` in texts, duplicate entities, vague and First HAREM entities, ALT
blocks, bad items and counts): the texts written, or the errors raised,
must be the same.
"""

from __future__ import annotations

import gzip
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Line, format_line, iter_lines, parse_line
from harem_pipeline.formats.semantic import (
    PlainRecord,
    iter_plain_lines,
    iter_semantic_lines,
    parse_semantic_line,
    read_plain_emir_record,
    read_plain_record,
)
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.emir import EmirParams, evaluate_lines, parse_weights
from harem_pipeline.stages.espurios import collect_spurious
from harem_pipeline.stages.ida import tally_semantic
from tests.helpers.semantic import REFERENCE

Stage = Callable[[Iterable, str], Iterable]

EMIR_VARIANTS = (
    EmirParams(),
    EmirParams(relative=True),
    EmirParams(parse_weights("1;2;1;0.5", penalties=True)),
)

ALTS_STAGES: dict[str, tuple[Stage, str | None]] = {
    "alts": (organise_alts, ":"),
    "espurios": (collect_spurious, None),
    **{
        f"emir{i}": (lambda lines, path, p=params: evaluate_lines(lines, p, path), ":")
        for i, params in enumerate(EMIR_VARIANTS)
    },
}


def written(items: Iterable[Line | str], marker: str | None) -> str:
    """What the step writes of a stage's output (texts as they are)."""
    return "".join(
        item if isinstance(item, str) else format_line(item, marker) + item.eol for item in items
    )


def outcome(run: Callable[[], object]) -> object:
    """The result, or the error's message (both paths must fail the same way)."""
    try:
        return run()
    except InputError as error:
        return ("error", str(error))


def both_ways(path: Path, stage: Stage, marker: str | None, emir_input: bool) -> None:
    general_parse = parse_semantic_line if emir_input else parse_line
    plain_reader = read_plain_emir_record if emir_input else read_plain_record

    def general() -> str:
        lines = read_once(path, iter_lines, general_parse)
        return written(stage(lines, str(path)), marker)

    def plain() -> str:
        lines = read_once(path, iter_plain_lines, plain_reader, general_parse)
        return written(stage(lines, str(path)), marker)

    assert outcome(plain) == outcome(general)


def tallies_both_ways(path: Path) -> None:
    def general() -> object:
        return tally_semantic(read_once(path, iter_semantic_lines), str(path))

    def plain() -> object:
        lines = read_once(path, iter_plain_lines, read_plain_emir_record, parse_semantic_line)
        return tally_semantic(lines, str(path))

    def plain_views() -> object:
        lines = read_once(path, iter_plain_lines, read_plain_emir_record, parse_semantic_line)
        return tally_semantic(lines, str(path), first_harem=True)

    def general_views() -> object:
        return tally_semantic(read_once(path, iter_semantic_lines), str(path), first_harem=True)

    assert outcome(plain) == outcome(general)
    assert outcome(plain_views) == outcome(general_views)


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


def unzipped(source: Path, folder: Path) -> Path:
    target = folder / source.name.removesuffix(".gz")
    target.write_bytes(gzip.decompress(source.read_bytes()))
    return target


VEUS = sorted(REFERENCE.glob("*/*.veu.gz"))
ALTS = sorted(REFERENCE.glob("*/*.veu.alts.gz"))
EMIRS = sorted(
    [*REFERENCE.glob("*/*.emir.gz"), *REFERENCE.glob("*/*.emir_relativo.gz")]
    + list(REFERENCE.glob("*/*.altrel.gz"))
)


@pytest.mark.parametrize("source", VEUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_alts_on_reference_inputs(source: Path, tmp_path: Path) -> None:
    both_ways(unzipped(source, tmp_path), organise_alts, ":", emir_input=False)


@pytest.mark.parametrize("stage", sorted(ALTS_STAGES))
@pytest.mark.parametrize("source", ALTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_alts_stages_on_reference_inputs(source: Path, stage: str, tmp_path: Path) -> None:
    function, marker = ALTS_STAGES[stage]
    both_ways(unzipped(source, tmp_path), function, marker, emir_input=False)


@pytest.mark.parametrize("source", EMIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_emir_stages_on_reference_inputs(source: Path, tmp_path: Path) -> None:
    path = unzipped(source, tmp_path)
    both_ways(path, select_alternatives, ":", emir_input=True)
    tallies_both_ways(path)


def test_reference_records_are_nearly_all_plain() -> None:
    """The fast path is the common path (else these tests would test little)."""
    path = REFERENCE / "gabriel" / "total_harem.veu.alts.gz"
    lines = gzip.decompress(path.read_bytes()).decode("latin-1").split("\n")
    records = [line for line in lines if " ---> " in line]
    plain = [line for line in records if read_plain_record(line) is not None]
    assert len(plain) > 0.9 * len(records)


# ---------------------------------------------------------------------------
# Generated files

NAMES = st.sampled_from(["EM", "EM", "EM", "LOCAL", "PESSOA|ORGANIZACAO", "ESPURIO"])
CATEGORIES = st.sampled_from(
    ["PESSOA", "LOCAL", "ORGANIZACAO", "PESSOA|LOCAL", "ESPURIO", "", "OBRA|ESPURIO", "XPTO"]
)
TYPES = st.sampled_from(["INDIVIDUAL", "HUMANO", "GRUPOIND|PAIS", "", "OUTRO"])
SUBTYPES = st.sampled_from(["PAIS", "DIVISAO", "", "OUTRO|RUA"])
TEXTS = st.sampled_from(
    ["Lisboa", "Rio de Janeiro", "a [b]", "d''Ávila", "x<y", "", "São Paulo", "1 = 2", "a, b"]
)
SPACES = st.sampled_from([" ", " ", " ", " ", "  ", "\t"])
IDS = st.sampled_from(["1", "2", "3", "9", "a=b"])


@st.composite
def tags(draw: st.DrawFn) -> str:
    name = draw(NAMES)
    attributes = []
    if draw(st.booleans()):
        attributes.append(("ID", draw(IDS)))
    if draw(st.integers(0, 4)):
        attributes.append(("CATEG", draw(CATEGORIES)))
    if draw(st.booleans()):
        attributes.append(("TIPO", draw(TYPES)))
    if draw(st.booleans()):
        attributes.append(("SUBTIPO", draw(SUBTYPES)))
    if draw(st.integers(0, 5)) == 0:
        attributes.append(("CATEG", draw(CATEGORIES)))  # a second CATEG: the first counts
    attributes = draw(st.permutations(attributes))
    head = "".join(
        f'{draw(SPACES)}{key}{"=" if draw(st.integers(0, 9)) else " = "}"{value}"'
        for key, value in attributes
    )
    return f"<{name}{head}>{draw(TEXTS)}</{name}>"


ITEMS = st.sampled_from(
    [
        "Correcto",
        "Correcto",
        "Em_Falta",
        "Espurio",
        "Parcialmente_Correcto_por_Excesso(0.5; 0.5)",
        "Parcialmente_Correcto_por_Defeito(0.3333333333333333; 0.6666666666666667)",
        "Parcialmente_Correcto_por_Defeito(x; y)",
        "Corecto",
        "(Género: M) (Número: S) (Combinada: 1)",
    ]
)


@st.composite
def records(draw: st.DrawFn) -> str:
    gold = draw(tags())
    kind = draw(st.integers(0, 5))
    if kind == 0:
        system, count = "[null]", 1
    else:
        chosen = draw(st.lists(tags(), min_size=1, max_size=3))
        if kind == 1 and chosen:
            chosen = [chosen[0], chosen[0]]  # the same entity twice
        system, count = "[" + ", ".join(chosen) + "]", len(chosen)
    if draw(st.integers(0, 12)) == 0:
        count += 1  # one item too many
    items = ", ".join(draw(st.lists(ITEMS, min_size=count, max_size=count)))
    marker = draw(st.sampled_from([":", "::"]))
    suffix = draw(st.sampled_from(["", "", "", "^0.5", "^0.3333333333333333", "^x"]))
    if draw(st.integers(0, 30)) == 0:
        return f"{gold} --> {system}{marker}[{items}]"
    return f"{gold} ---> {system}{marker}[{items}]{suffix}"


@st.composite
def veu_files(draw: st.DrawFn) -> str:
    lines = ["#PESSOA:LOCAL(HUMANO{PAIS,DIVISAO,RUA}):ORGANIZACAO"]
    for number in range(draw(st.integers(1, 4))):
        lines.append(f"DOC D{number}")
        for _ in range(draw(st.integers(0, 6))):
            if draw(st.integers(0, 3)):
                lines.append(draw(records()))
                continue
            lines.append("<ALT>")
            for alternative in range(1, draw(st.integers(1, 3)) + 1):
                lines.append(f"<ALT{alternative}>")
                lines.extend(draw(st.lists(records(), max_size=3)))
                lines.append(f"</ALT{alternative}>")
            lines.append("</ALT>")
        lines.append(draw(st.sampled_from(["EOD", "", "<ALT03>"])))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return eol.join(lines) + eol


SLOW = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SLOW
@given(text=veu_files())
def test_every_stage_on_generated_files(text: str, tmp_path: Path) -> None:
    veu = tmp_path / "g.veu"
    veu.write_bytes(text.encode("latin-1"))
    both_ways(veu, organise_alts, ":", emir_input=False)
    for function, marker in ALTS_STAGES.values():
        both_ways(veu, function, marker, emir_input=False)
    try:  # the general path's .emir (when there is one) is the input of altsem and ida
        _, lines = iter_lines(veu)
        emir_text = written(evaluate_lines(organise_alts(lines, str(veu)), EmirParams()), ":")
    except InputError:
        return
    emir = tmp_path / "g.emir"
    emir.write_bytes(emir_text.encode("latin-1"))
    both_ways(emir, select_alternatives, ":", emir_input=True)
    tallies_both_ways(emir)
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
