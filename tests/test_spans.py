"""Span measures on the worked examples of docs/spec/measures.md and hand-computed cases."""

from __future__ import annotations

import pytest

from harem_pipeline.measures.spans import PRF, compute_measures
from harem_pipeline.model import make_span
from harem_pipeline.stages.spans import (
    CategoryCounts,
    SpanTally,
    count_document,
    count_documents,
    sum_counts,
)


def spans(*triples: tuple[int, int, str]):
    return [make_span(s, e, label) for s, e, label in triples]


def approx_prf(value: PRF, p: float | None, r: float | None) -> None:
    assert value.precision == (None if p is None else pytest.approx(p))
    assert value.recall == (None if r is None else pytest.approx(r))
    assert value.f1 == (
        None
        if p is None or r is None
        else pytest.approx(0.0 if p + r == 0 else 2 * p * r / (p + r))
    )


# Second worked example of docs/spec/measures.md (intersection): gold [0,4) A,
# [6,8) B; system [2,6) A, [6,7) B, [7,9) A.
SPEC_GOLD = spans((0, 4, "A"), (6, 8, "B"))
SPEC_SYSTEM = spans((2, 6, "A"), (6, 7, "B"), (7, 9, "A"))


def test_spec_example_intersection_labelled_and_unlabelled() -> None:
    m = compute_measures(count_document(SPEC_GOLD, SPEC_SYSTEM))
    # docs/spec/measures.md: P = 1.5/3 = 0.5, R = 1.0/2 = 0.5
    approx_prf(m.labelled.intersection, 0.5, 0.5)
    # docs/spec/measures.md: unlabelled P = 2/3, R = 0.75
    approx_prf(m.unlabelled.intersection, 2 / 3, 0.75)


def test_spec_example_other_measures_by_hand() -> None:
    m = compute_measures(count_document(SPEC_GOLD, SPEC_SYSTEM))
    # No system span has the boundaries of a gold span: exact 0/3, 0/2.
    approx_prf(m.labelled.exact, 0.0, 0.0)
    # [2,6) A overlaps [0,4) A; [6,7) B overlaps [6,8) B; [7,9) A overlaps only B.
    approx_prf(m.labelled.overlap, 2 / 3, 2 / 2)
    # Unlabelled, [7,9) overlaps [6,8) too.
    approx_prf(m.unlabelled.overlap, 3 / 3, 2 / 2)
    c = m.labelled.categories
    assert c == CategoryCounts(
        system_correct=0,
        system_label_error=0,
        system_boundary_error=2,  # [2,6) A and [6,7) B
        system_label_boundary_error=1,  # [7,9) A against [6,8) B
        spurious=0,
        gold_correct=0,
        gold_label_error=0,
        gold_boundary_error=2,  # [0,4) A by [2,6) A; [6,8) B by [6,7) B
        gold_label_boundary_error=0,
        missing=0,
    )
    # partial: 0.5 credit for each of the 3 overlapping system and 2 gold spans.
    approx_prf(m.labelled.semeval.partial, 1.5 / 3, 1.0 / 2)
    # type: overlapping with the right label: 2 of 3 system, 2 of 2 gold.
    approx_prf(m.labelled.semeval.type, 2 / 3, 1.0)
    approx_prf(m.labelled.semeval.strict, 0.0, 0.0)


def test_russian_example_sergeyu_lazarevu() -> None:
    # «Сергею лазареву в новом клипе ...»: gold PER = tokens 0-1, system PER = token 0.
    tokens = "Сергею лазареву в новом клипе сердце и лицо разбила красотка-боксерша".split()
    assert tokens[0] == "Сергею"
    m = compute_measures(count_document(spans((0, 2, "PER")), spans((0, 1, "PER"))))
    # Original: precision contribution 1 (the system span is fully inside the gold
    # one), recall contribution 0.5 (the gold span is half covered).
    approx_prf(m.labelled.intersection, 1.0, 0.5)
    approx_prf(m.labelled.exact, 0.0, 0.0)  # CoNLL: wrong boundaries, wrong entity
    approx_prf(m.labelled.overlap, 1.0, 1.0)
    assert m.labelled.categories.system_boundary_error == 1
    assert m.labelled.categories.gold_boundary_error == 1
    approx_prf(m.labelled.semeval.partial, 0.5, 0.5)


def test_one_system_span_over_two_gold_spans_is_never_twice_correct() -> None:
    # nervaluate's fault: a system span overlapping two gold spans.
    gold = spans((0, 2, "A"), (0, 3, "B"))
    system = spans((0, 2, "A"))
    c = count_document(gold, system).labelled.categories
    assert (c.system_correct, c.system_total) == (1, 1)
    assert (c.gold_correct, c.gold_label_boundary_error, c.gold_total) == (1, 1, 2)
    m = compute_measures(count_document(gold, system))
    approx_prf(m.labelled.semeval.strict, 1.0, 0.5)


def test_system_span_covering_two_gold_spans() -> None:
    gold = spans((0, 2, "A"), (2, 4, "A"))
    system = spans((0, 4, "A"))
    m = compute_measures(count_document(gold, system))
    c = m.labelled.categories
    assert (c.system_boundary_error, c.gold_boundary_error) == (1, 2)
    # coverage of [0,4) by both gold spans: 2/4 + 2/4 = 1; each gold span fully covered.
    approx_prf(m.labelled.intersection, 1.0, 1.0)
    approx_prf(m.labelled.exact, 0.0, 0.0)


def test_categories_label_error_missing_spurious() -> None:
    gold = spans((0, 1, "PER"), (3, 5, "LOC"), (7, 8, "ORG"))
    system = spans((0, 1, "LOC"), (3, 5, "LOC"), (10, 12, "PER"))
    c = count_document(gold, system).labelled.categories
    assert c == CategoryCounts(
        system_correct=1,
        system_label_error=1,
        spurious=1,
        gold_correct=1,
        gold_label_error=1,
        missing=1,
    )
    u = count_document(gold, system).unlabelled.categories
    assert (u.system_correct, u.spurious, u.gold_correct, u.missing) == (2, 1, 2, 1)


def test_vague_labels_match_by_intersection() -> None:
    gold = [make_span(0, 2, "PESSOA|ORGANIZACAO")]
    system = [make_span(0, 2, "ORGANIZACAO")]
    counts = count_document(gold, system)
    m = compute_measures(counts)
    approx_prf(m.labelled.exact, 1.0, 1.0)
    per_label = dict(m.per_label)
    # Per label ORGANIZACAO both sides carry it; PESSOA only the gold span does.
    approx_prf(per_label["ORGANIZACAO"].exact, 1.0, 1.0)
    approx_prf(per_label["PESSOA"].exact, None, 0.0)


def test_undefined_ratios_are_none_not_zero() -> None:
    m = compute_measures(count_document([], []))
    assert m.labelled.exact == PRF(None, None, None)
    m = compute_measures(count_document(spans((0, 1, "A")), []))
    assert m.labelled.exact == PRF(None, 0.0, None)
    m = compute_measures(count_document([], spans((0, 1, "A"))))
    assert m.labelled.intersection == PRF(0.0, None, None)


def test_f_is_zero_when_precision_and_recall_are_zero() -> None:
    # one system span and one gold span, apart and with other labels: P = R = 0, F = 0
    m = compute_measures(count_document(spans((0, 1, "A")), spans((2, 3, "B"))))
    assert m.labelled.exact == PRF(0.0, 0.0, 0.0)


def test_counts_add_up_across_documents() -> None:
    docs = [(SPEC_GOLD, SPEC_SYSTEM), (spans((0, 2, "PER")), spans((0, 1, "PER")))]
    total = count_documents(docs)
    assert total == sum_counts(count_document(g, s) for g, s in docs)
    assert total.labelled.match.system == 4
    assert total.labelled.match.gold == 3
    # intersection numerators: 1.5 + 1 (precision), 1.0 + 0.5 (recall)
    assert total.labelled.match.intersection_system == pytest.approx(2.5)
    assert total.labelled.match.intersection_gold == pytest.approx(1.5)


def test_identical_sides_take_the_fast_path_with_the_same_result() -> None:
    gold = spans((0, 2, "A"), (3, 4, "B"))
    fast = SpanTally()
    fast.add_document(gold, list(gold))
    slow = SpanTally()
    slow.add_document(gold, list(reversed(gold)))  # not equal as lists: full path
    assert fast.counts() == slow.counts()


def test_a_view_s_slots_are_added_to_once_each() -> None:
    """``unit_slots`` adds a side's columns to a view's slots with one ``+=`` at an index
    array, which adds once to a slot named twice: each view names a slot once."""
    from harem_pipeline.stages import spans

    for slots, columns in spans._FROM:
        assert len(set(slots.tolist())) == len(slots) == len(columns)
