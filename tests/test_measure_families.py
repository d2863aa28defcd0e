"""Each measure family's one formula serves the report and the bootstrap alike.

For random counts: the figures a report prints (its JSON) are the family's
array function on the report's one count row, and that function on a
matrix of rows (what the bootstrap hands it, one row per resample) gives,
row by row, the bits of the one-row figures.  So the intervals are
intervals of the very measure the report shows.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.measures.core import RowColumns, figures_of_row
from harem_pipeline.measures.identification import identification_figures, measures_from_counts
from harem_pipeline.measures.morphology import morphology_figures
from harem_pipeline.measures.spans import compute_measures, span_figures
from harem_pipeline.model import Scenario, make_span
from harem_pipeline.reports.ida2id import ida2id_json_object
from harem_pipeline.reports.ida2mor import ida2mor_json_object
from harem_pipeline.stages.ida2id import IdentificationCounts
from harem_pipeline.stages.ida2mor import FieldCounts, MorphologyCounts, MorphologyTotals
from harem_pipeline.stages.spans import count_document, span_counts_as_mapping
from harem_pipeline.stages.tally import DocumentCounts

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
small = st.integers(min_value=0, max_value=40)
weights = st.floats(min_value=0.0, max_value=0.5, allow_nan=False)


@st.composite
def identification_counts(draw) -> IdentificationCounts:
    partial = draw(st.lists(weights, max_size=6))
    return IdentificationCounts(
        total_cd=draw(small),
        identified=draw(small) + len(partial),
        correct=draw(small),
        partial_occurrences=len(partial),
        partial_correct_sum=sum(partial),
        partial_incorrect_sum=sum(1 - w for w in partial),
        spurious=draw(small),
        missing=draw(small),
    )


field_counts = st.builds(
    FieldCounts,
    correct=small,
    partially_correct=small,
    incorrect=small,
    missing=small,
    spurious=small,
    over_specified=small,
    partially_over_specified=small,
    total_cd=small,
    total_system=small,
)


def same(a: float | None, b: float | None) -> bool:
    """Equal to the last bit, undefined (None/NaN) counting as equal."""
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def stacked(rows: list[dict[str, float]]) -> dict[str, np.ndarray]:
    keys = {key for row in rows for key in row}
    return {key: np.array([row.get(key, 0) for row in rows], dtype=float) for key in keys}


@SETTINGS
@given(identification_counts(), identification_counts())
def test_identification_report_is_the_formula_on_one_row(
    a: IdentificationCounts, b: IdentificationCounts
) -> None:
    report = ida2id_json_object(a, measures_from_counts(a), "sig")
    row = figures_of_row(identification_figures, a.as_mapping())
    for key, value in row.items():
        assert same(report[key], value), key
    both = identification_figures(stacked([a.as_mapping(), b.as_mapping()]))
    other = figures_of_row(identification_figures, b.as_mapping())
    for key in row:
        assert same(float(both[key][0]), row[key]) and same(float(both[key][1]), other[key])


@SETTINGS
@given(field_counts, field_counts, field_counts, field_counts)
def test_morphology_report_is_the_formula_on_one_row(
    gender: FieldCounts, number: FieldCounts, combined: FieldCounts, other: FieldCounts
) -> None:
    totals = MorphologyTotals(gender, number, combined)
    counts = MorphologyCounts.from_documents([DocumentCounts("d", totals)])
    report = ida2mor_json_object(counts, Scenario.ABSOLUTE, "sig")
    row = figures_of_row(morphology_figures, totals.as_mapping())
    for key, value in row.items():
        field, _, measure = key.partition(".")
        assert same(report["fields"][field][measure], value), key
    second = MorphologyTotals(other, other, other)
    both = morphology_figures(stacked([totals.as_mapping(), second.as_mapping()]))
    for key in row:
        assert same(float(both[key][0]), row[key]), key


spans = st.lists(
    st.tuples(st.integers(0, 30), st.integers(1, 4), st.sampled_from(["A", "B", "A|B"])),
    max_size=8,
).map(lambda items: [make_span(s, s + n, label) for s, n, label in items])


@SETTINGS
@given(spans, spans)
def test_span_measures_are_the_formula_on_one_row(gold: list, system: list) -> None:
    counts = count_document(gold, system)
    measures = compute_measures(counts)
    figures = span_figures(RowColumns(span_counts_as_mapping(counts)))
    for view in ("labelled", "unlabelled"):
        for name in ("exact", "overlap", "intersection"):
            prf = getattr(getattr(measures, view), name)
            for key, value in (("precision", prf.precision), ("recall", prf.recall)):
                assert same(value, float(figures[f"{view}.{name}.{key}"][0]))
            assert same(prf.f1, float(figures[f"{view}.{name}.f1"][0]))
    for label, label_measures in measures.per_label:
        f1 = float(figures[f"per_label.{label}.exact.f1"][0])
        assert same(label_measures.exact.f1, f1)
