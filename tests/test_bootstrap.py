"""Document bootstrap (numpy form): intervals and paired p-values on hand-checkable cases."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.measures.bootstrap import (
    interval_table,
    linear_percentile,
    paired_table,
    percentile_interval,
    resampled_totals,
    weighted_sum,
)
from harem_pipeline.measures.resampling import NO_BOOTSTRAP, Resampling


def precision(columns):
    """P = correct / found per resample; NaN where nothing was found."""
    correct, found = columns["correct"], columns["found"]
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"p": np.where(found > 0, correct / np.where(found > 0, found, 1), np.nan)}


FIGURES = st.one_of(
    st.floats(0, 1, allow_nan=False),
    st.sampled_from([0.0, 0.5, 1.0, 1 / 3, 2 / 3, 0.1, 0.7]),
    st.floats(-1e6, 1e6, allow_nan=False),
)


@settings(max_examples=400, deadline=None)
@given(
    values=st.lists(FIGURES, min_size=1, max_size=60),
    percent=st.sampled_from([2.5, 97.5, 50.0, 0.0, 100.0, 25.0, 0.1, 99.9]),
)
def test_linear_percentile_is_numpys_bit_for_bit(values: list[float], percent: float) -> None:
    # the intervals of every report come from it: one last bit changed moves a JSON digit
    ordered = sorted(values)
    assert linear_percentile(ordered, percent) == float(np.percentile(values, percent))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(FIGURES, st.just(float("nan"))), min_size=1, max_size=60))
def test_percentile_interval_is_numpys_over_the_defined_values(values: list[float]) -> None:
    defined = [v for v in values if v == v]
    expected = [float(x) for x in np.percentile(defined, [2.5, 97.5])] if defined else None
    assert percentile_interval(np.array(values)) == expected


def test_identical_documents_give_a_degenerate_interval() -> None:
    docs = [{"correct": 1, "found": 2}] * 10
    assert interval_table(docs, precision, Resampling(200)) == {"p": [0.5, 0.5]}


def test_interval_contains_the_full_value_and_is_seeded() -> None:
    docs = [{"correct": c, "found": 4} for c in (0, 1, 2, 3, 4, 2, 3, 1)]
    first = interval_table(docs, precision, Resampling(300, 7))
    assert first == interval_table(docs, precision, Resampling(300, 7))
    low, high = first["p"]
    assert low <= 0.5 <= high and low < high  # 16 / 32 over the whole file


def test_no_resamples_is_off_and_no_documents_is_undefined() -> None:
    assert interval_table([{"correct": 1, "found": 1}], precision, NO_BOOTSTRAP) is None
    assert interval_table([], precision) == {"p": None}


def test_paired_clear_winner_and_no_difference() -> None:
    a = {f"d{i}": {"correct": 1, "found": 4} for i in range(20)}
    b = {f"d{i}": {"correct": 3, "found": 4} for i in range(20)}
    b["only-b"] = {"correct": 0, "found": 100}  # not shared: ignored
    results, shared = paired_table(a, b, precision, Resampling(200))
    assert shared == 20
    (result,) = results
    assert (result.a, result.b, result.difference, result.p_value) == (0.25, 0.75, 0.5, 0.0)
    (same,), _ = paired_table(a, a, precision, Resampling(50))
    assert same.difference == 0 and same.p_value == 1.0


@settings(derandomize=True, deadline=None, max_examples=50)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5)).map(
            lambda t: {"correct": min(t), "found": max(t)}
        ),
        min_size=1,
        max_size=12,
    )
)
def test_interval_bounds_are_ordered_and_in_range(docs) -> None:
    (interval,) = interval_table(docs, precision, Resampling(50)).values()
    if interval is not None:
        low, high = interval
        assert 0 <= low <= high <= 1


def _sum_in_row_order(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Each resample's totals by plain Python floats, one document after another."""
    return np.array(
        [
            [
                sum_in_order(float(w) * float(m) for w, m in zip(draws, column, strict=True))
                for column in matrix.T
            ]
            for draws in weights
        ]
    )


def sum_in_order(values) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


@settings(derandomize=True, deadline=None, max_examples=40)
@given(
    st.integers(1, 60),
    st.integers(1, 4),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_weighted_sum_has_the_bits_of_a_sum_in_document_order(documents, counts, whole, seed):
    """The bootstrap's totals do not depend on how BLAS orders a sum (its threads, the
    processor): fractional counts are added document by document, so the bits are
    those of plain floats added in row order; whole counts are exact in any order."""
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 7, (documents, counts)).astype(float)
    if not whole:
        matrix = matrix / rng.choice([3.0, 7.0, 10.0], size=matrix.shape)
    weights = rng.integers(0, 4, (5, documents)).astype(float)
    assert np.array_equal(weighted_sum(weights, matrix), _sum_in_row_order(weights, matrix))


@settings(derandomize=True, deadline=None, max_examples=40)
@given(st.integers(1, 60), st.lists(st.booleans(), min_size=2, max_size=6), st.integers(0, 2**32))
def test_weighted_sum_of_mixed_columns_keeps_the_bits_of_each(documents, whole, seed):
    """Whole-number columns beside fractional ones (the span measures' exact counts beside
    their coverages): each column has the bits of its own row-order sum."""
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 7, (documents, len(whole))).astype(float)
    for column, is_whole in enumerate(whole):
        if not is_whole:
            matrix[:, column] /= rng.choice([3.0, 7.0, 10.0], size=documents)
    weights = rng.integers(0, 4, (5, documents)).astype(float)
    assert np.array_equal(weighted_sum(weights, matrix), _sum_in_row_order(weights, matrix))


def test_resampled_totals_of_fractional_counts_are_row_order_sums():
    """The 387-document case whose totals differed between one and two BLAS threads."""
    rng = np.random.default_rng(1)
    matrix = rng.random((387, 6)) * rng.integers(0, 5, (387, 6))
    (totals,) = resampled_totals([matrix], Resampling(20, 7))
    picks = np.random.default_rng(7).integers(0, 387, size=(20, 387))
    weights = np.array([np.bincount(row, minlength=387) for row in picks], dtype=float)
    assert np.array_equal(totals, _sum_in_row_order(weights, matrix))
