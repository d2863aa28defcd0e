"""Properties of the semantic chain (hypothesis, derandomised)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.errors import InputError
from harem_pipeline.formats import semantic
from harem_pipeline.formats.alinhado import Header, Tag, parse_line, parse_lines
from harem_pipeline.formats.semantic import (
    LevelResult,
    SemanticScore,
    format_semantic_score,
    parse_semantic_score,
)
from harem_pipeline.formats.veils import format_veil, parse_veil, read_grid
from harem_pipeline.measures.semantic import (
    CLASSIFICATION_PREFIX,
    COUNT_NAMES,
    semantic_figures,
)
from harem_pipeline.reports.ida import official_lines
from harem_pipeline.stages.emir import (
    EmirParams,
    Weights,
    evaluate_lines,
    filter_from_header,
    score_pair,
)
from harem_pipeline.stages.ida import tally_semantic
from harem_pipeline.text.numbers import java_double
from tests.helpers.semantic import written

SETTINGS = settings(derandomize=True, deadline=None, max_examples=200)
GRID = read_grid()
HEADER = format_veil(parse_veil(None, GRID))
VEIL = filter_from_header(HEADER, GRID, "test")

CATEGORIES = list(GRID.categories) + ["ESTRANHA"]


@functools.cache
def sampled(values: tuple[str, ...]) -> st.SearchStrategy[str]:
    """``st.sampled_from(values)`` built once for each tuple of values (built anew at each
    draw it costs its construction and checks each time; the values drawn are the same)."""
    return st.sampled_from(values)


TUPLE_COUNTS = st.integers(1, 3)


@st.composite
def entity(draw: st.DrawFn) -> Tag:
    """An EM with 1–3 vague (category, type, subtype) tuples, some outside the grid."""
    n = draw(TUPLE_COUNTS)
    cats, types, subs = [], [], []
    for _ in range(n):
        cat = draw(sampled(tuple(CATEGORIES)))
        grid_types = list(GRID.types(cat)) if cat in GRID.categories else []
        typ = draw(sampled((*grid_types, "", "XTIPO")))
        grid_subs = list(GRID.subtypes(cat, typ)) if typ in grid_types else []
        sub = draw(sampled((*grid_subs, "", "XSUB")))
        cats.append(cat)
        types.append(typ)
        subs.append(sub)
    attrs = [("CATEG", "|".join(cats))]
    if any(types):
        attrs.append(("TIPO", "|".join(types)))
    if any(subs):
        attrs.append(("SUBTIPO", "|".join(subs)))
    return Tag("EM", tuple(attrs), "x")


@SETTINGS
@given(entity(), entity())
def test_csc_at_most_both_maxima(gold: Tag, system: Tag) -> None:
    result = score_pair(gold, system, 1.0, 1.0, VEIL, Weights())
    assert result.csc <= result.max_csc_gold + 1e-12
    assert result.csc <= result.max_csc_system + 1e-12


@SETTINGS
@given(st.lists(entity(), min_size=1, max_size=12))
def test_perfect_run_classification_is_one(golds: list[Tag]) -> None:
    """A run equal to the collection: P = R = F = 1 in the absolute scenario, muc style."""
    lines = [Header(HEADER), parse_line("DOC d")]
    for index, gold in enumerate(golds):
        tag = Tag(gold.name, (("ID", str(index)), *gold.attributes), gold.text)
        lines.append(parse_line(f"{_fmt(tag)} ---> [{_fmt(tag)}]:[Correcto]"))
    lines.append(parse_line("EOD"))
    emir = parse_lines(written(evaluate_lines(lines, EmirParams()), ":"))
    figures = semantic_figures(tally_semantic(emir).total.as_mapping())
    for key in ("precisao", "abrangencia", "medida_f"):
        assert figures[CLASSIFICATION_PREFIX + key] == 1.0
        assert figures[key] == 1.0


def _fmt(tag: Tag) -> str:
    from harem_pipeline.formats.alinhado import format_tag

    return format_tag(tag)


COUNT = st.floats(0, 1e5, allow_nan=False, allow_infinity=False)


@SETTINGS
@given(st.fixed_dictionaries({name: COUNT for name in COUNT_NAMES}))
def test_report_figure_is_the_function_of_one_row(counts: dict[str, float]) -> None:
    """The text report's digits are the array formula applied to a one-row column."""
    text = official_lines("h", semantic_figures(counts))
    columns = {name: np.array([value, 1.0]) for name, value in counts.items()}
    arrays = semantic_figures(columns)
    from_arrays = official_lines("h", {key: value[0] for key, value in arrays.items()})
    assert text == from_arrays
    for line in text:
        if ": " in line and not line.startswith("\t"):
            number = line.rsplit(": ", 1)[1]
            assert number == java_double(float(number)) or number in ("NaN", "Infinity")


NAMES = st.lists(st.sampled_from(["PESSOA", "LOCAL", "null", "X_1"]), max_size=3).map(tuple)
NUMBER = st.floats(0, 100, allow_nan=False)


@SETTINGS
@given(
    st.builds(LevelResult, NAMES, NAMES, NAMES),
    st.builds(LevelResult, NAMES, NAMES, NAMES),
    st.builds(LevelResult, NAMES, NAMES, NAMES),
    NUMBER,
    NUMBER,
    NUMBER,
    NUMBER,
    st.none() | NUMBER,
    st.booleans(),
)
def test_score_round_trip(cat, typ, sub, a, b, c, d, alt, paren) -> None:
    score = SemanticScore(cat, typ, sub, a, b, c, d, alt, paren and alt is not None)
    text = format_semantic_score(score)
    assert parse_semantic_score(text) == score
    assert format_semantic_score(parse_semantic_score(text)) == text


@SETTINGS
@given(
    st.builds(LevelResult, NAMES, NAMES, NAMES),
    st.builds(LevelResult, NAMES, NAMES, NAMES),
    NUMBER,
    st.none() | NUMBER,
    st.booleans(),
)
def test_a_score_read_again_is_the_score_read_first(cat, typ, a, alt, paren) -> None:
    """Items read before are taken from what was read (remembered by their text)."""
    score = SemanticScore(cat, typ, typ, a, a, a, a, alt, paren and alt is not None)
    text = format_semantic_score(score)
    first = parse_semantic_score(text, "a.emir", 1)
    assert parse_semantic_score(text, "b.emir", 2) == first == score
    assert semantic._read_semantic_score(text) is first


def test_a_bad_item_is_an_error_each_time_it_is_read() -> None:
    """A bad item names the file and line it is read at, each time."""
    for path, line in (("f.emir", 1), ("g.emir", 7)):
        with pytest.raises(InputError, match=f"^{path}, line {line}: expected an Emir item"):
            parse_semantic_score("{Categoria(x)}", path, line)
