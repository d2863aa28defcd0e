"""Document bootstrap: intervals and paired p-values on hand-checkable cases."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.bootstrap import (
    _percentile,
    add_counts,
    confidence_intervals,
    paired_bootstrap,
)


def precision(counts):
    found = counts.get("found", 0)
    return {"p": counts.get("correct", 0) / found if found else None}


def test_add_counts_sums_picked_documents_with_repeats() -> None:
    docs = [{"correct": 1, "found": 2}, {"correct": 3, "found": 3, "x": 1}]
    assert add_counts(docs, [0, 1, 1]) == {"correct": 7, "found": 8, "x": 2}


def test_percentile_matches_linear_interpolation() -> None:
    # numpy.percentile([1, 2, 3, 4], 2.5) == 1.075 (by hand: position 0.075 between 1 and 2).
    assert abs(_percentile([1, 2, 3, 4], 0.025) - 1.075) < 1e-12
    assert _percentile([5.0], 0.975) == 5.0


def test_identical_documents_give_a_degenerate_interval() -> None:
    docs = [{"correct": 1, "found": 2}] * 10
    assert confidence_intervals(docs, precision, ["p"], resamples=200) == {"p": [0.5, 0.5]}


def test_interval_contains_the_full_value_and_is_seeded() -> None:
    docs = [{"correct": c, "found": 4} for c in (0, 1, 2, 3, 4, 2, 3, 1)]
    first = confidence_intervals(docs, precision, ["p"], resamples=300, seed=7)
    again = confidence_intervals(docs, precision, ["p"], resamples=300, seed=7)
    assert first == again
    low, high = first["p"]
    assert low <= 0.5 <= high and low < high


def test_no_documents_or_no_resamples_is_undefined() -> None:
    assert confidence_intervals([], precision, ["p"]) == {"p": None}
    assert confidence_intervals([{"correct": 1, "found": 1}], precision, ["p"], 0) == {"p": None}


def test_paired_bootstrap_clear_winner_and_no_difference() -> None:
    a = {f"d{i}": {"correct": 1, "found": 4} for i in range(20)}
    b = {f"d{i}": {"correct": 3, "found": 4} for i in range(20)}
    b["only-b"] = {"correct": 0, "found": 100}  # not shared: ignored
    results, shared = paired_bootstrap(a, b, precision, ["p"], resamples=200)
    assert shared == 20
    (result,) = results
    assert (result.a, result.b, result.difference, result.p_value) == (0.25, 0.75, 0.5, 0.0)
    same, _ = paired_bootstrap(a, a, precision, ["p"], resamples=50)
    assert same[0].difference == 0 and same[0].p_value == 1.0


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
    (interval,) = confidence_intervals(docs, precision, ["p"], resamples=50).values()
    if interval is not None:
        low, high = interval
        assert 0 <= low <= high <= 1
