"""Document bootstrap (numpy form): intervals and paired p-values on hand-checkable cases."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.measures.bootstrap import interval_table, paired_table, percentile_interval


def precision(columns):
    """P = correct / found per resample; NaN where nothing was found."""
    correct, found = columns["correct"], columns["found"]
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"p": np.where(found > 0, correct / np.where(found > 0, found, 1), np.nan)}


def test_percentile_matches_linear_interpolation() -> None:
    # numpy's linear rule: the 2.5th percentile of 1..4 lies 0.075 of the way from 1 to 2.
    low, high = percentile_interval(np.array([1.0, 2.0, 3.0, 4.0]))
    assert abs(low - 1.075) < 1e-12 and abs(high - 3.925) < 1e-12
    assert percentile_interval(np.array([np.nan])) is None


def test_identical_documents_give_a_degenerate_interval() -> None:
    docs = [{"correct": 1, "found": 2}] * 10
    assert interval_table(docs, precision, resamples=200) == {"p": [0.5, 0.5]}


def test_interval_contains_the_full_value_and_is_seeded() -> None:
    docs = [{"correct": c, "found": 4} for c in (0, 1, 2, 3, 4, 2, 3, 1)]
    first = interval_table(docs, precision, resamples=300, seed=7)
    assert first == interval_table(docs, precision, resamples=300, seed=7)
    low, high = first["p"]
    assert low <= 0.5 <= high and low < high  # 16 / 32 over the whole file


def test_no_resamples_is_off_and_no_documents_is_undefined() -> None:
    assert interval_table([{"correct": 1, "found": 1}], precision, 0) is None
    assert interval_table([], precision) == {"p": None}


def test_paired_clear_winner_and_no_difference() -> None:
    a = {f"d{i}": {"correct": 1, "found": 4} for i in range(20)}
    b = {f"d{i}": {"correct": 3, "found": 4} for i in range(20)}
    b["only-b"] = {"correct": 0, "found": 100}  # not shared: ignored
    results, shared = paired_table(a, b, precision, resamples=200)
    assert shared == 20
    (result,) = results
    assert (result.a, result.b, result.difference, result.p_value) == (0.25, 0.75, 0.5, 0.0)
    (same,), _ = paired_table(a, a, precision, resamples=50)
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
    (interval,) = interval_table(docs, precision, resamples=50).values()
    if interval is not None:
        low, high = interval
        assert 0 <= low <= high <= 1
