"""Properties of the span measures over random documents (hypothesis, derandomized)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.measures.spans import compute_measures
from harem_pipeline.model import Span
from harem_pipeline.stages.spans import count_document, count_documents, sum_counts
from tests.helpers.span_strategies import (
    LABELS,
    documents,
    flat_spans,
    free_spans,
)

SETTINGS = settings(derandomize=True, deadline=None, max_examples=100)


def naive_counts(gold: list[Span], system: list[Span], labelled: bool) -> dict[str, float]:
    """An independent, literal reading of docs/spec/measures.md (pairwise sums, no sweep)."""

    def match(a: Span, b: Span) -> bool:
        return not labelled or bool(a[2] & b[2])

    def tokens(s: Span) -> set[int]:
        return set(range(s[0], s[1]))

    def side(mine: list[Span], other: list[Span]) -> dict[str, float]:
        out = {"n": len(mine), "exact": 0, "overlap": 0, "coverage": 0.0, "cat": [0] * 5}
        for s in mine:
            same = [o for o in other if o[:2] == s[:2]]
            over = [o for o in other if tokens(o) & tokens(s)]
            out["exact"] += any(match(s, o) for o in same)
            out["overlap"] += any(match(s, o) for o in over)
            covered = set().union(*(tokens(o) for o in over if match(s, o))) & tokens(s)
            out["coverage"] += len(covered) / len(tokens(s))
            if any(match(s, o) for o in same):
                out["cat"][0] += 1
            elif same:
                out["cat"][1] += 1
            elif any(match(s, o) for o in over):
                out["cat"][2] += 1
            elif over:
                out["cat"][3] += 1
            else:
                out["cat"][4] += 1
        return out

    return {"system": side(system, gold), "gold": side(gold, system)}


def pairwise_coverage(gold: list[Span], system: list[Span]) -> tuple[float, float]:
    """The intersection formula of docs/spec/measures.md verbatim.

    P = Σ_s Σ_g c(g, s) / |S|, R = Σ_g Σ_s c(s, g) / |G|.
    """

    def c(s: Span, s2: Span) -> float:
        if not (s[2] & s2[2]):
            return 0.0
        return max(0, min(s[1], s2[1]) - max(s[0], s2[0])) / (s2[1] - s2[0])

    return (
        sum(c(g, s) for s in system for g in gold),
        sum(c(s, g) for g in gold for s in system),
    )


def all_prfs(measures):
    for view in (measures.labelled, measures.unlabelled):
        yield view.exact
        yield view.overlap
        yield view.intersection
        yield from (view.semeval.strict, view.semeval.exact, view.semeval.partial)
        yield view.semeval.type
    for _label, lm in measures.per_label:
        yield from (lm.exact, lm.overlap, lm.intersection)


@SETTINGS
@given(documents(free_spans))
def test_counts_equal_a_naive_implementation(docs) -> None:
    for gold, system in docs:
        counts = count_document(gold, system)
        for labelled, view in ((True, counts.labelled), (False, counts.unlabelled)):
            ref = naive_counts(gold, system, labelled)
            m, c = view.match, view.categories
            assert (m.system, m.gold) == (ref["system"]["n"], ref["gold"]["n"])
            assert (m.exact_system, m.exact_gold) == (ref["system"]["exact"], ref["gold"]["exact"])
            assert (m.overlap_system, m.overlap_gold) == (
                ref["system"]["overlap"],
                ref["gold"]["overlap"],
            )
            assert math.isclose(m.intersection_system, ref["system"]["coverage"])
            assert math.isclose(m.intersection_gold, ref["gold"]["coverage"])
            assert [
                c.system_correct,
                c.system_label_error,
                c.system_boundary_error,
                c.system_label_boundary_error,
                c.spurious,
            ] == ref["system"]["cat"]
            assert [
                c.gold_correct,
                c.gold_label_error,
                c.gold_boundary_error,
                c.gold_label_boundary_error,
                c.missing,
            ] == ref["gold"]["cat"]
        per_label = dict(counts.per_label)
        for label in LABELS:
            only = frozenset((label,))
            g = [(a, b, only) for a, b, labels in gold if label in labels]
            s = [(a, b, only) for a, b, labels in system if label in labels]
            if not g and not s:
                assert label not in per_label
                continue
            ref, pl = naive_counts(g, s, True), per_label[label]
            assert (pl.system, pl.exact_system, pl.overlap_system) == (
                ref["system"]["n"],
                ref["system"]["exact"],
                ref["system"]["overlap"],
            )
            assert (pl.gold, pl.exact_gold, pl.overlap_gold) == (
                ref["gold"]["n"],
                ref["gold"]["exact"],
                ref["gold"]["overlap"],
            )
            assert math.isclose(pl.intersection_system, ref["system"]["coverage"])
            assert math.isclose(pl.intersection_gold, ref["gold"]["coverage"])


@SETTINGS
@given(documents(flat_spans))
def test_intersection_is_the_spec_formula_without_overlapping_spans(docs) -> None:
    for gold, system in docs:
        m = count_document(gold, system).labelled.match
        p, r = pairwise_coverage(gold, system)
        assert math.isclose(m.intersection_system, p, abs_tol=1e-12)
        assert math.isclose(m.intersection_gold, r, abs_tol=1e-12)


@SETTINGS
@given(documents(flat_spans))
def test_exact_le_intersection_le_overlap(docs) -> None:
    m = compute_measures(count_documents(docs))
    views = [m.labelled, m.unlabelled, *(lm for _label, lm in m.per_label)]
    for view in views:
        for attr in ("precision", "recall"):
            e, i, o = (
                getattr(getattr(view, k), attr) for k in ("exact", "intersection", "overlap")
            )
            if e is None:
                assert i is None and o is None
                continue
            assert e <= i + 1e-12
            assert i <= o + 1e-12


@SETTINGS
@given(documents(free_spans))
def test_labelled_le_unlabelled(docs) -> None:
    m = compute_measures(count_documents(docs))
    for name in ("exact", "overlap", "intersection"):
        lab, unl = getattr(m.labelled, name), getattr(m.unlabelled, name)
        for attr in ("precision", "recall", "f1"):
            a, b = getattr(lab, attr), getattr(unl, attr)
            if a is not None:
                assert a <= b + 1e-12
    for name in ("strict", "exact", "partial", "type"):
        lab, unl = getattr(m.labelled.semeval, name), getattr(m.unlabelled.semeval, name)
        if lab.precision is not None:
            assert lab.precision <= unl.precision + 1e-12
        if lab.recall is not None:
            assert lab.recall <= unl.recall + 1e-12


@SETTINGS
@given(documents(free_spans), st.randoms(use_true_random=False))
def test_invariant_under_document_order(docs, rng) -> None:
    shuffled = list(docs)
    rng.shuffle(shuffled)
    a, b = count_documents(docs), count_documents(shuffled)
    for x, y in ((a.labelled, b.labelled), (a.unlabelled, b.unlabelled)):
        assert x.categories == y.categories
        assert (x.match.exact_system, x.match.overlap_gold) == (
            y.match.exact_system,
            y.match.overlap_gold,
        )
        assert math.isclose(x.match.intersection_system, y.match.intersection_system)
        assert math.isclose(x.match.intersection_gold, y.match.intersection_gold)
    assert [label for label, _ in a.per_label] == [label for label, _ in b.per_label]


@SETTINGS
@given(documents(free_spans))
def test_every_measure_lies_in_0_1(docs) -> None:
    for value in all_prfs(compute_measures(count_documents(docs))):
        for x in (value.precision, value.recall, value.f1):
            assert x is None or 0.0 <= x <= 1.0 + 1e-12


@SETTINGS
@given(documents(free_spans))
def test_perfect_system_scores_one_everywhere(docs) -> None:
    # The system is the gold in another order, so the full (non fast) path runs too.
    perfect = [(gold, list(reversed(gold))) for gold, _system in docs]
    m = compute_measures(count_documents(perfect))
    for value in all_prfs(m):
        if value.f1 is not None:
            assert math.isclose(value.f1, 1.0)
    if any(gold for gold, _ in perfect):
        assert m.labelled.exact.f1 == 1.0


@SETTINGS
@given(documents(free_spans))
def test_categories_conserve_span_counts(docs) -> None:
    counts = count_documents(docs)
    n_system = sum(len(s) for _g, s in docs)
    n_gold = sum(len(g) for g, _s in docs)
    for view in (counts.labelled, counts.unlabelled):
        assert view.categories.system_total == n_system == view.match.system
        assert view.categories.gold_total == n_gold == view.match.gold


@SETTINGS
@given(documents(free_spans))
def test_streamed_tally_equals_sum_of_document_counts(docs) -> None:
    streamed = count_documents(docs)
    summed = sum_counts(count_document(g, s) for g, s in docs)
    assert streamed.labelled.categories == summed.labelled.categories
    assert streamed.unlabelled.categories == summed.unlabelled.categories
    assert [(label, c.exact_system, c.overlap_gold) for label, c in streamed.per_label] == [
        (label, c.exact_system, c.overlap_gold) for label, c in summed.per_label
    ]
