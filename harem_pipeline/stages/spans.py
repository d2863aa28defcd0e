"""Span measures: exact, error categories, SemEval-2013, overlap and intersection.

Counts first, like sacrebleu: ``count_document`` turns one document's gold and
system spans into ``SpanCounts``, a bag of sufficient statistics that add up
across documents (``+``); :mod:`harem_pipeline.measures.spans` turns counts
-- and nothing else -- into precision, recall and F.  A bootstrap resamples
per-document counts and never looks at spans again.

Span convention: a span is the tuple ``(start, end, labels)`` over token
positions of one document, ``end`` exclusive, ``labels`` a non-empty
``frozenset`` of label names.  Ordinary NER data has one label per span;
HAREM's vague entities (``A|B``) carry several, and two spans *match* when
their label sets intersect.  Any reader (CoNLL, JSON lines, a HAREM alignment)
only has to produce such tuples per document.

For every span of one side we look at the spans of the other side that share
at least one token with it, and record (once per span, so a system span that
overlaps two gold spans is never counted twice):

* its error category, first that applies: ``correct`` (same boundaries,
  labels match), ``label_error`` (same boundaries, labels differ),
  ``boundary_error`` (overlaps a matching span, other boundaries),
  ``label_boundary_error`` (overlaps only spans with other labels and other
  boundaries), else ``spurious`` for a system span and ``missing`` for a
  gold span.  Each side's categories therefore add up to its number of spans;
* whether it overlaps a matching span (overlap measure);
* its coverage by the matching spans of the other side, ``|s ∩ ⋃O| / |s|``
  (intersection measure of Johansson & Moschitti).  When the other side has
  no overlapping spans -- always so for CoNLL data -- this equals the sum of
  pairwise coverages of docs/spec/measures.md, ``Σ |s ∩ o| / |s|``; taking the
  union keeps every value in [0, 1] for nested spans as well.

Precision uses the system side, recall the gold side.  *Unlabelled* measures
treat every pair of labels as matching.  *Per label* ``L`` keeps, on both
sides, the spans whose label set contains ``L`` and matches them as
labelled.  A ratio with a zero denominator is ``None`` (undefined), never 0
or 1; F is 0 when P and R are both 0.

SemEval-2013 measures come from the categories: strict counts ``correct``;
exact counts ``correct`` and ``label_error``; partial adds half of
``boundary_error`` and ``label_boundary_error`` to exact; type counts
``correct`` and ``boundary_error``.

Feeding spans from another source (a HAREM alignment, say) takes one call
per document and nothing else::

    tally = SpanTally()
    for doc in documents:                      # any order
        tally.add_document(doc.gold_spans, doc.system_spans)
    measures = compute_measures(tally.counts())   # harem_pipeline.measures.spans

with spans built by ``make_span(start, end, "PESSOA|ORGANIZACAO")`` over the
document's token numbers.  Per-document ``count_document`` results are what a
bootstrap resamples; ``sum_counts`` adds them up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from functools import reduce
from operator import add, itemgetter, le
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from harem_pipeline.model import Span

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from harem_pipeline.stages.span_units import UnitCounts

# Category indexes, shared by both sides; the last slot is ``spurious`` on the
# system side and ``missing`` on the gold side.
CORRECT, LABEL_ERROR, BOUNDARY_ERROR, LABEL_BOUNDARY_ERROR, UNMATCHED = range(5)
CATEGORY_NAMES = (
    "correct",
    "label_error",
    "boundary_error",
    "label_boundary_error",
    "missing",
    "spurious",
)

# Layout of the internal running tally of one view (labelled or unlabelled):
# [spans, overlap, intersection, cat0..cat4] for the system side, then the same
# for the gold side.  Per-label tallies hold [spans, exact, overlap, intersection]
# per side.  Flat lists of numbers keep the hot path free of objects.
SPANS, OVERLAP, COVERAGE, CATEGORY = 0, 1, 2, 3
"""Slots of one side of a view's tally; ``CATEGORY + c`` counts category ``c``."""
_VIEW_WIDTH = 8
GOLD_SIDE = _VIEW_WIDTH
"""The gold side's offset in a view's tally (the system side's is 0)."""
_START, _END, _LABELS = itemgetter(0), itemgetter(1), itemgetter(2)
L_SPANS, L_EXACT, L_OVERLAP, L_COVERAGE = 0, 1, 2, 3
"""Slots of one side of a per-label tally."""
_LABEL_WIDTH = 4
TallyRow = list[Any]
"""A flat running tally: counts (``int``) and coverage sums (``float``) by slot."""


@dataclass(frozen=True, slots=True)
class MatchCounts:
    """Sufficient statistics of the exact, overlap and intersection measures.

    ``*_system`` numerators go with ``system`` spans (precision), ``*_gold``
    with ``gold`` spans (recall).  Intersection sums are coverages, so floats.
    """

    system: int = 0
    gold: int = 0
    exact_system: int = 0
    exact_gold: int = 0
    overlap_system: int = 0
    overlap_gold: int = 0
    intersection_system: float = 0.0
    intersection_gold: float = 0.0

    def __add__(self, other: MatchCounts) -> MatchCounts:
        return MatchCounts(*(a + b for a, b in zip(_values(self), _values(other), strict=True)))


@dataclass(frozen=True, slots=True)
class CategoryCounts:
    """How many spans of each side fall in each error category.

    ``system_*`` add up to the number of system spans and ``gold_*`` to the
    number of gold spans (``missing`` is gold-only, ``spurious`` system-only).
    """

    system_correct: int = 0
    system_label_error: int = 0
    system_boundary_error: int = 0
    system_label_boundary_error: int = 0
    spurious: int = 0
    gold_correct: int = 0
    gold_label_error: int = 0
    gold_boundary_error: int = 0
    gold_label_boundary_error: int = 0
    missing: int = 0

    @property
    def system_total(self) -> int:
        return sum(_values(self)[:5])

    @property
    def gold_total(self) -> int:
        return sum(_values(self)[5:])

    def __add__(self, other: CategoryCounts) -> CategoryCounts:
        return CategoryCounts(*(a + b for a, b in zip(_values(self), _values(other), strict=True)))


@dataclass(frozen=True, slots=True)
class ViewCounts:
    """Counts of one view (labelled or unlabelled) over all labels."""

    match: MatchCounts = MatchCounts()
    categories: CategoryCounts = CategoryCounts()

    def __add__(self, other: ViewCounts) -> ViewCounts:
        return ViewCounts(self.match + other.match, self.categories + other.categories)


@dataclass(frozen=True, slots=True)
class SpanCounts:
    """Everything the span measures need, summable across documents.

    ``per_label`` is sorted by label so equal counts compare equal.
    """

    labelled: ViewCounts = ViewCounts()
    unlabelled: ViewCounts = ViewCounts()
    per_label: tuple[tuple[str, MatchCounts], ...] = ()

    def __add__(self, other: SpanCounts) -> SpanCounts:
        merged = dict(self.per_label)
        for label, counts in other.per_label:
            merged[label] = merged[label] + counts if label in merged else counts
        return SpanCounts(
            self.labelled + other.labelled,
            self.unlabelled + other.unlabelled,
            tuple(sorted(merged.items())),
        )


def _values(obj: DataclassInstance) -> tuple[Any, ...]:
    return tuple(getattr(obj, f.name) for f in fields(obj))


def sum_counts(counts: Iterable[SpanCounts]) -> SpanCounts:
    """Add up per-document counts (the empty sum is all zeros)."""
    total = SpanCounts()
    for item in counts:
        total = total + item
    return total


class SpanTally:
    """A running sum of counts over documents, kept as flat lists of numbers.

    This is the streaming form of ``sum_counts(count_document(...) ...)``:
    adding a document costs no allocation beyond its own spans, so a file of
    any size is scored in the memory of one document.  Spans found on both
    sides are only counted (by label set) and folded in by ``counts()``:
    on real data most spans are right, and this keeps them out of the judge.
    """

    __slots__ = (
        "labelled",
        "unlabelled",
        "per_label",
        "identical",
        "identical_labels",
        "min_overlap",
        "listing",
        "sets",
    )

    def __init__(self, min_overlap: float = 0.0, listing: Listing | None = None) -> None:
        """``min_overlap``: see :func:`check_min_overlap`; ``listing`` collects the
        errors and the confusion (None: counts only)."""
        self.min_overlap = min_overlap
        self.listing = listing
        self.labelled: TallyRow = [0] * (2 * _VIEW_WIDTH)
        self.unlabelled: TallyRow = [0] * (2 * _VIEW_WIDTH)
        self.per_label: dict[str, TallyRow] = {}
        # Spans found identical on both sides, kept as a number and a Counter
        # of label sets (see ``_tally_identical``).
        self.identical = 0
        self.identical_labels: Counter[frozenset[str]] = Counter()
        self.sets = LabelSets()

    def add_document(self, gold: Sequence[Span], system: Sequence[Span]) -> None:
        """Add one document's spans (any order; spans may overlap or repeat)."""
        shared, gold, system = split_shared(gold, system)
        if shared:
            _tally_identical(self, shared)
        if gold or system:
            self.add_apart(gold, system)

    def add_identical(self, labels: frozenset[str], number: int) -> None:
        """Add ``number`` spans of ``labels`` found on both sides, correct on both.

        For a reader that finds the spans two sides share in bulk (see ``add_apart``).
        """
        self.identical += number
        self.identical_labels[labels] += number

    def add_apart(self, gold: Sequence[Span], system: Sequence[Span]) -> None:
        """Add one document's spans, each side sorted, the spans both sides share taken out
        (``add_identical``), or sides with spans that overlap each other."""
        sets = self.sets
        g, s = sets.arrays(gold), sets.arrays(system)
        for spans, others, side in ((s, g, 0), (g, s, GOLD_SIDE)):
            judged = judge(spans, others, sets, self.min_overlap, side != 0)
            bounds = np.array([0, len(spans.start)])
            found = contributions(judged, spans, sets)
            store(self, unit_slots([Piece(found, side, bounds)], np.array([0, 1]), self))
            if self.listing is not None:
                segment = np.zeros(len(spans.start), np.int64)
                list_judged(
                    self.listing,
                    judged,
                    sets,
                    QuotedSpans(*spans),
                    QuotedSpans(*others),
                    segment,
                    side != 0,
                )

    def counts(self) -> SpanCounts:
        """Freeze the running sum into ``SpanCounts``."""
        labelled, unlabelled = list(self.labelled), list(self.unlabelled)
        n = self.identical
        for view in (labelled, unlabelled):
            for side in (0, _VIEW_WIDTH):
                for offset in (SPANS, OVERLAP, COVERAGE, CATEGORY + CORRECT):
                    view[side + offset] += n
        rows = {label: list(row) for label, row in self.per_label.items()}
        for label, k in identical_per_label(self).items():
            row = rows.setdefault(label, [0] * (2 * _LABEL_WIDTH))
            for i in range(2 * _LABEL_WIDTH):
                row[i] += k
        per_label = tuple(
            (label, MatchCounts(t[0], t[4], t[1], t[5], t[2], t[6], float(t[3]), float(t[7])))
            for label, t in sorted(rows.items())
        )
        return SpanCounts(_freeze_view(labelled), _freeze_view(unlabelled), per_label)


def _freeze_view(t: list) -> ViewCounts:
    s, g = t[:_VIEW_WIDTH], t[_VIEW_WIDTH:]
    match = MatchCounts(s[0], g[0], s[3], g[3], s[1], g[1], float(s[2]), float(g[2]))
    return ViewCounts(match, CategoryCounts(*s[3:8], *g[3:8]))


def count_document(
    gold: Sequence[Span],
    system: Sequence[Span],
    min_overlap: float = 0.0,
    listing: Listing | None = None,
) -> SpanCounts:
    """The counts of one document: its gold spans against its system spans.

    With ``listing``, the document's errors are left in ``listing.pending``
    and its spans added to the confusion.
    """
    tally = SpanTally(min_overlap, listing)
    tally.add_document(gold, system)
    if listing is not None:
        listing.absorb(tally)
    return tally.counts()


def check_min_overlap(value: float) -> float:
    """The overlap measure's threshold: a share of the gold span's tokens, in [0, 1].

    0 (the default) counts a pair that shares any token; ``F`` > 0 needs
    ``|s ∩ g| >= F·|g|`` for a system span ``s`` and a gold span ``g`` of the
    same label (nervaluate's minimum-overlap reading).  Only the overlap
    measure changes: categories and intersection do not depend on it.
    """
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"a minimum overlap between 0 and 1, not {value}")
    return value


# --------------------------------------------------------------------------
# Errors and confusion

KIND_NAMES = CATEGORY_NAMES[1:]
"""The kinds of error a span can be (every category but ``correct``)."""
MISSING_KEY, SPURIOUS_KEY, BOUNDARY_KEY = "(missing)", "(spurious)", "(boundary)"
ConfusionKey = frozenset[str] | str
"""A row or column of the confusion: a label set or one of the keys above."""
"""Confusion keys beside the labels: a gold span no system span overlaps (column
``(missing)``), a system span no gold span overlaps (row ``(spurious)``), and a
span whose overlapping spans all have other boundaries (column or row
``(boundary)``)."""


class Listing:
    """What the judge found about individual spans: errors and confusion.

    ``pending`` holds the errors (:class:`ErrorBatch`) of the documents added
    since it was last emptied.  The reader empties it after each document
    or block, adding where each segment is (``span_errors.format_errors``).

    ``confusion`` counts ``(gold key, system key)`` pairs, a key a label set
    (or one of the keys above): each gold span pairs with the system span of
    the same boundaries (a matching one first) or with a column key; each
    system span without a same-boundary gold span pairs with a row key.
    Spans found on both sides are folded in by :meth:`absorb` from the
    tally's ``identical_labels`` before the tally is cleared.  When neither
    side repeats a boundary pair (always so for CoNLL data), each label's
    row adds up to its gold spans and its column to its system spans.
    """

    __slots__ = ("pending", "confusion")

    def __init__(self) -> None:
        self.pending: list[ErrorBatch] = []
        self.confusion: Counter[tuple[ConfusionKey, ConfusionKey]] = Counter()

    def absorb(self, tally: SpanTally) -> None:
        """Add the tally's identical spans to the diagonal (call before clearing it)."""
        for labels, k in tally.identical_labels.items():
            self.add_shared(labels, k)

    def add_shared(self, labels: frozenset[str], number: int) -> None:
        """``number`` spans of ``labels`` found on both sides: each its own diagonal cell."""
        self.confusion[labels, labels] += number


class QuotedSpans(NamedTuple):
    """Spans as an error listing quotes them: positions in their segment (a sentence,
    a document) and label-set numbers."""

    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray


class ErrorBatch(NamedTuple):
    """The errors of one judged side: one entry per span not ``correct``, as lists.

    Entry ``i`` is span ``(start[i], end[i], sets[kind[i]])`` of segment
    ``segment[i]``; the spans of the other side it touches are
    ``others[bounds[i]:bounds[i + 1]]``.
    """

    gold: bool
    segment: list[int]
    start: list[int]
    end: list[int]
    category: list[int]
    kind: list[int]
    bounds: list[int]
    others: QuotedSpans
    sets: list[frozenset[str]]


def error_order(batches: Sequence[ErrorBatch]) -> np.ndarray:
    """The entries of ``batches``, numbered on across them, in listing order: by segment,
    then by start, gold before system, by end and by labels (sorted names), ties as
    they come (a document's errors in reading order)."""
    sets = {labels for batch in batches for labels in batch.sets}
    rank = {labels: r for r, labels in enumerate(sorted(sets, key=sorted))}
    keys = [
        np.concatenate([batch.segment for batch in batches]).astype(np.int64),
        np.concatenate([batch.start for batch in batches]).astype(np.int64),
        np.concatenate([np.full(len(batch.start), not batch.gold) for batch in batches]),
        np.concatenate([batch.end for batch in batches]).astype(np.int64),
        np.concatenate(
            [np.array([rank[s] for s in batch.sets], np.int64)[batch.kind] for batch in batches]
        ),
    ]
    return np.lexsort(keys[::-1])


SIDES = ("system", "gold")
"""The names of the two sides, by ``gold``."""
KINDS_BY_SIDE = (
    (*CATEGORY_NAMES[:UNMATCHED], CATEGORY_NAMES[-1]),
    CATEGORY_NAMES[: UNMATCHED + 1],
)
"""A category's name by side (system, gold): an unmatched span is spurious or missing."""


def list_judged(
    listing: Listing,
    judged: Judged,
    sets: LabelSets,
    spans: QuotedSpans,
    others: QuotedSpans,
    segment: np.ndarray,
    gold_side: bool,
) -> None:
    """Record a judged side in ``listing``: each span's confusion cell, and an error
    for each span not ``correct`` (with the spans of ``others`` it touches).

    ``spans`` and ``others`` are the two sides as an error quotes them, and
    ``segment`` each span's segment.  A gold span pairs with the label set
    of the span of its boundaries, else ``(missing)`` or ``(boundary)``; a
    system span without such a span pairs with ``(spurious)`` or
    ``(boundary)`` as its row.
    """
    category = judged.category
    kinds = spans.kind
    labels = sets.sets
    keys: list[ConfusionKey] = [*labels, MISSING_KEY, BOUNDARY_KEY, SPURIOUS_KEY]
    unmatched = len(labels) + (0 if gold_side else 2)
    key = np.where(category == UNMATCHED, unmatched, len(labels) + 1)
    if gold_side:
        rows, columns = kinds, np.where(category <= LABEL_ERROR, judged.same_kind, key)
    else:
        shown = category > LABEL_ERROR
        rows, columns = key[shown], kinds[shown]
    if len(rows):
        width = len(keys)
        numbers = np.bincount(rows * width + columns)
        for cell in np.flatnonzero(numbers).tolist():
            listing.confusion[keys[cell // width], keys[cell % width]] += int(numbers[cell])
    wrong = np.flatnonzero(category != CORRECT)
    if not len(wrong):
        return
    bounds = np.searchsorted(judged.pair_span, np.arange(len(category) + 1))
    first = bounds[wrong]
    counts = bounds[wrong + 1] - first
    ends = np.cumsum(counts)
    pairs = np.repeat(first - (ends - counts), counts) + np.arange(int(ends[-1]))
    touching = judged.pair_other[pairs]
    listing.pending.append(
        ErrorBatch(
            gold_side,
            segment[wrong].tolist(),
            spans.start[wrong].tolist(),
            spans.end[wrong].tolist(),
            category[wrong].tolist(),
            kinds[wrong].tolist(),
            [0, *ends.tolist()],
            QuotedSpans(others.start[touching], others.end[touching], others.kind[touching]),
            labels,
        )
    )


def count_documents(documents: Iterable[tuple[Sequence[Span], Sequence[Span]]]) -> SpanCounts:
    """The summed counts of ``(gold, system)`` pairs, streamed one document at a time."""
    tally = SpanTally()
    for gold, system in documents:
        tally.add_document(gold, system)
    return tally.counts()


def split_shared(
    gold: Sequence[Span], system: Sequence[Span]
) -> tuple[Collection[Span], list[Span], list[Span]]:
    """A document's spans found on both sides, and the rest of each side, sorted.

    Identical sides share every span, whatever the spans touch (each finds
    its twin).  Without overlaps inside a side, a span found on both sides
    touches nothing else, so it is correct on every measure and is only
    counted; with overlaps, nothing is taken out.
    """
    if gold == system:
        return gold, [], []
    gold = sorted(gold)
    system = sorted(system)
    if _is_flat(gold) and _is_flat(system):
        common = set(gold).intersection(system)
        if common:
            return (
                common,
                [g for g in gold if g not in common],
                [s for s in system if s not in common],
            )
    return (), gold, system


def _is_flat(spans: list[Span]) -> bool:
    """Whether sorted ``spans`` are pairwise disjoint (C-level comparisons only)."""
    return all(map(le, map(_END, spans), map(_START, spans[1:])))


def _tally_identical(tally: SpanTally, spans: Collection[Span]) -> None:
    """Spans found on both sides: each is correct on both sides, fully covered.

    True of identical sides whatever the spans touch (each finds its twin), and
    of the common spans of flat sides (they touch nothing else).  Only their
    number and label sets are kept; ``counts()`` folds them in.
    """
    tally.identical += len(spans)
    tally.identical_labels.update(map(_LABELS, spans))


def identical_per_label(tally: SpanTally) -> dict[str, int]:
    """The number of identical spans carrying each label, labels sorted.

    Summed as integers first and in label order, so each label's float
    columns receive one addition whatever the iteration order of the label
    sets (which ``PYTHONHASHSEED`` changes): the floats come out the same
    in every process.
    """
    per_label: dict[str, int] = {}
    for labels, k in tally.identical_labels.items():
        for label in labels:
            per_label[label] = per_label.get(label, 0) + k
    return dict(sorted(per_label.items()))


class SpanArrays(NamedTuple):
    """One side's spans as arrays, sorted by start then end: token positions and each
    span's label set (its number in the tally's :class:`LabelSets`)."""

    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray


class LabelSets:
    """The label sets a tally has met, numbered in order of first sight.

    Two spans *match* when their sets share a label; :meth:`matching` is
    that relation as a table over the numbers, so the judge compares
    numbers, never sets.
    """

    __slots__ = ("sets", "ids", "_matching", "_sizes")

    def __init__(self) -> None:
        self.sets: list[frozenset[str]] = []
        self.ids: dict[frozenset[str], int] = {}
        self._matching = np.zeros((0, 0), dtype=bool)
        self._sizes = np.zeros(0, np.int64)

    def id(self, labels: frozenset[str]) -> int:
        """The number of ``labels`` (given on first sight)."""
        found = self.ids.get(labels)
        if found is None:
            found = self.ids[labels] = len(self.sets)
            self.sets.append(labels)
        return found

    def arrays(self, spans: Sequence[Span]) -> SpanArrays:
        """Sorted ``spans`` as arrays."""
        n = len(spans)
        return SpanArrays(
            np.fromiter(map(_START, spans), np.int64, n),
            np.fromiter(map(_END, spans), np.int64, n),
            np.fromiter(map(self.id, map(_LABELS, spans)), np.int64, n),
        )

    def matching(self) -> np.ndarray:
        """``matching()[a, b]``: whether sets ``a`` and ``b`` share a label."""
        k = len(self.sets)
        if self._matching.shape[0] != k:
            sets = self.sets
            rows = [[not a.isdisjoint(b) for b in sets] for a in sets]
            self._matching = np.array(rows, dtype=bool).reshape(k, k)
            self._sizes = np.fromiter(map(len, sets), np.int64, k)
        return self._matching

    def sizes(self) -> np.ndarray:
        """How many labels each set has."""
        self.matching()
        return self._sizes


class Judged(NamedTuple):
    """How each span of one side fares against the spans of the other side.

    One entry per span, in the side's order; ``pair_span``/``pair_other``
    are the pairs that share a token, by span then in the other side's
    order.  ``vague`` holds the per-label findings of spans with several
    labels (:func:`_judge_vague`).
    """

    category: np.ndarray
    same: np.ndarray
    """Some span of the other side has its boundaries (unlabelled ``correct``)."""
    overlap_any: np.ndarray
    overlap_match: np.ndarray
    overlap_ok: np.ndarray
    """The overlap measure's verdict, labelled: a matching pair past the threshold."""
    overlap_any_ok: np.ndarray
    covered: np.ndarray
    """Share of the span covered by the matching spans of the other side."""
    covered_any: np.ndarray
    same_kind: np.ndarray
    """The label set of a span of the same boundaries (a matching one first; -1: none)."""
    pair_span: np.ndarray
    pair_other: np.ndarray
    vague: VagueFindings


class VagueFindings(NamedTuple):
    """Per-label findings of the spans with several labels: one entry per (span, label),
    by span, a span's labels sorted."""

    span: np.ndarray
    label: list[str]
    exact: np.ndarray
    overlap: np.ndarray
    covered: np.ndarray


def judge(
    spans: SpanArrays, others: SpanArrays, sets: LabelSets, threshold: float, gold_side: bool
) -> Judged:
    """Judge every span of one side against the sorted spans of the other side.

    The rules of the module docstring, for all spans at once: the pairs that
    share a token are listed, then each span's findings are reduced from
    its pairs.  ``gold_side`` says whose length the overlap measure's
    threshold takes (see :func:`check_min_overlap`).  Coverage counts the
    union of the covering spans, so nested spans are not counted twice.
    """
    n = len(spans.start)
    x_start, x_end, x_kind = spans
    o_start, o_end, o_kind = others
    if len(o_start) and n:
        reach = int((o_end - o_start).max())
        lo = np.searchsorted(o_start, x_start - reach + 1)
        counts = np.searchsorted(o_start, x_end) - lo
    else:
        lo = counts = np.zeros(n, np.int64)
    pair_span = np.repeat(np.arange(n), counts)
    pair_other = np.arange(len(pair_span)) + np.repeat(lo - (np.cumsum(counts) - counts), counts)
    touching = o_end[pair_other] > x_start[pair_span]
    pair_span, pair_other = pair_span[touching], pair_other[touching]
    p_start, p_end, p_kind = o_start[pair_other], o_end[pair_other], o_kind[pair_other]
    s_start, s_end = x_start[pair_span], x_end[pair_span]
    same = (p_start == s_start) & (p_end == s_end)
    match = sets.matching()[x_kind[pair_span], p_kind]
    a = np.maximum(p_start, s_start)
    b = np.minimum(p_end, s_end)
    if threshold:
        gold_length = (s_end - s_start) if gold_side else (p_end - p_start)
        passes = (b - a) >= threshold * gold_length
    else:
        passes = np.ones(len(pair_span), bool)

    def some(mask: np.ndarray | None) -> np.ndarray:
        return _has_pair(pair_span, mask, n)

    same_any, same_match = some(same), some(same & match)
    overlap_any, overlap_match = some(None), some(match)
    category = np.select(
        [same_match, same_any, overlap_match, overlap_any],
        [CORRECT, LABEL_ERROR, BOUNDARY_ERROR, LABEL_BOUNDARY_ERROR],
        UNMATCHED,
    )
    same_kind = np.full(n, -1, np.int64)
    for chosen in (same, same & match):  # a matching one overrides the first one
        first_span, first_pair = np.unique(pair_span[chosen], return_index=True)
        same_kind[first_span] = p_kind[chosen][first_pair]
    length = x_end - x_start
    vague = _judge_vague(spans, sets, pair_span, p_kind, same, passes, a, b)
    return Judged(
        category,
        same_any,
        overlap_any,
        overlap_match,
        some(match & passes),
        some(passes),
        _union(pair_span, a, b, match, n) / length,
        _union(pair_span, a, b, None, n) / length,
        same_kind,
        pair_span,
        pair_other,
        vague,
    )


def _has_pair(pair_span: np.ndarray, mask: np.ndarray | None, n: int) -> np.ndarray:
    """Whether each of ``n`` spans has a pair (of those ``mask`` keeps; None: any)."""
    chosen = pair_span if mask is None else pair_span[mask]
    return np.bincount(chosen, minlength=n) > 0


def distinct(numbers: np.ndarray) -> list[int]:
    """The distinct small non-negative integers of ``numbers``, sorted.

    (``np.unique`` would load ``numpy.ma`` on its first call, in every worker.)
    """
    return np.flatnonzero(np.bincount(numbers)).tolist() if len(numbers) else []


def _union(
    pair_span: np.ndarray, a: np.ndarray, b: np.ndarray, kept: np.ndarray | None, n: int
) -> np.ndarray:
    """Per span, the tokens ``[a, b)`` of its pairs (those ``kept``) cover, each once.

    A span's pairs come in order of start, so each adds what lies past the
    furthest end of the pairs before it: a running maximum within each span.
    """
    if kept is not None:
        pair_span, a, b = pair_span[kept], a[kept], b[kept]
    if not len(pair_span):
        return np.zeros(n, np.int64)
    offset = pair_span * (int(b.max()) + 1)
    reached = np.maximum.accumulate(b + offset) - offset
    before = np.full(len(b), -1, np.int64)
    inside = pair_span[1:] == pair_span[:-1]
    before[1:][inside] = reached[:-1][inside]
    gained = np.maximum(b - np.maximum(a, before), 0)
    return np.bincount(pair_span, weights=gained, minlength=n).astype(np.int64)


def _judge_vague(
    spans: SpanArrays,
    sets: LabelSets,
    pair_span: np.ndarray,
    p_kind: np.ndarray,
    same: np.ndarray,
    passes: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
) -> VagueFindings:
    """Per label of a span with several labels: only spans holding that label match
    (for a one-label span these are its labelled findings)."""
    vague = np.flatnonzero(sets.sizes()[spans.kind] > 1)
    if not len(vague):
        return _NO_VAGUE
    n = len(spans.start)
    length = spans.end - spans.start
    kinds = distinct(spans.kind[vague])
    found = []
    for label in sorted({label for k in kinds for label in sets.sets[k]}):
        holding = np.fromiter((label in s for s in sets.sets), bool, len(sets.sets))
        carrying = vague[holding[spans.kind[vague]]]
        matching = holding[p_kind]
        exact = _has_pair(pair_span, same & matching, n)
        overlap = _has_pair(pair_span, matching & passes, n)
        covered = _union(pair_span, a, b, matching, n) / length
        found.append((carrying, label, exact[carrying], overlap[carrying], covered[carrying]))
    span = np.concatenate([f[0] for f in found])
    order = np.argsort(span, kind="stable")  # labels were taken sorted
    names = [f[1] for f in found for _ in range(len(f[0]))]
    return VagueFindings(
        span[order],
        [names[i] for i in order.tolist()],
        np.concatenate([f[2] for f in found])[order],
        np.concatenate([f[3] for f in found])[order],
        np.concatenate([f[4] for f in found])[order],
    )


_NO_VAGUE = VagueFindings(
    np.zeros(0, np.int64), [], np.zeros(0, bool), np.zeros(0, bool), np.zeros(0)
)


class Contributions(NamedTuple):
    """What a judged side adds to a tally, as running totals over its spans.

    ``counts[i]`` is what spans ``:i`` add to each counted slot (the
    columns of ``_COLUMNS``, then 4 per label of ``labels``: spans, exact,
    overlap, coverages); ``coverages`` holds each float slot's values in
    span order (the labelled and unlabelled views', then each label's),
    and the slot's count column says how many of them spans ``:i`` gave.
    Any run of spans ``lo:hi`` is thus added with one subtraction, and its
    coverages one by one in span order, so the float sums are the same
    however the spans are cut.
    """

    counts: np.ndarray
    labels: list[str]
    coverages: list[list[float]]


# Counted columns of a side: the labelled categories (0-4), overlap (5), coverages
# given (6); the unlabelled correct (7), boundary error (8), unmatched (9),
# overlap (10), coverages given (11).
_COLUMNS = 12
_L_COLUMNS = 4


def contributions(judged: Judged, spans: SpanArrays, sets: LabelSets) -> Contributions:
    """The running totals of a judged side (see :class:`Contributions`)."""
    n = len(judged.category)
    category = judged.category
    same, overlap_any, overlap_match = judged.same, judged.overlap_any, judged.overlap_match
    single = sets.sizes()[spans.kind] == 1 if n else np.zeros(0, bool)
    vague = judged.vague
    single_labels = sorted({next(iter(sets.sets[k])) for k in distinct(spans.kind[single])})
    labels = sorted(set(single_labels).union(vague.label))
    column = {label: i for i, label in enumerate(labels)}
    width = _COLUMNS + _L_COLUMNS * len(labels)
    table = np.zeros((n + 1, width), np.int64)
    rows = table[1:]
    rows[np.arange(n), category] = 1
    rows[:, 5] = judged.overlap_ok
    rows[:, 6] = overlap_match
    rows[:, 7] = same
    rows[:, 8] = overlap_any & ~same
    rows[:, 9] = ~overlap_any
    rows[:, 10] = judged.overlap_any_ok
    rows[:, 11] = overlap_any
    per_label = np.zeros((n, max(len(labels), 1)))
    given = np.zeros((n, max(len(labels), 1)), bool)
    if labels:
        kind_column = np.array(
            [column.get(next(iter(labels)), 0) if len(labels) == 1 else 0 for labels in sets.sets],
            dtype=np.int64,
        )
        where = np.flatnonzero(single)
        at = _COLUMNS + _L_COLUMNS * kind_column[spans.kind[where]]
        rows[where, at] = 1
        rows[where, at + 1] = category[where] == CORRECT
        rows[where, at + 2] = judged.overlap_ok[where]
        rows[where, at + 3] = overlap_match[where]
        given[where, kind_column[spans.kind[where]]] = overlap_match[where]
        per_label[where, kind_column[spans.kind[where]]] = judged.covered[where]
        if len(vague.span):
            v_column = np.fromiter(map(column.__getitem__, vague.label), np.int64, len(vague.label))
            at = _COLUMNS + _L_COLUMNS * v_column
            rows[vague.span, at] = 1
            rows[vague.span, at + 1] = vague.exact
            rows[vague.span, at + 2] = vague.overlap
            rows[vague.span, at + 3] = 1
            given[vague.span, v_column] = True
            per_label[vague.span, v_column] = vague.covered
    np.cumsum(table, axis=0, out=table)
    coverages = [
        judged.covered[overlap_match].tolist(),
        judged.covered_any[overlap_any].tolist(),
        *(per_label[:, j][given[:, j]].tolist() for j in range(len(labels))),
    ]
    return Contributions(table, labels, coverages)


class Piece(NamedTuple):
    """A judged side cut into segments: segment ``i``'s spans are ``bounds[i]:bounds[i + 1]``
    of ``found``; ``side`` is the tally's side (0 system, ``GOLD_SIDE`` gold)."""

    found: Contributions
    side: int
    bounds: np.ndarray


class UnitSlots(NamedTuple):
    """What several units hold, slot by slot of a :class:`SpanTally`, one row per unit.

    ``counts`` has a tally's ``labelled`` then ``unlabelled`` slots (the
    coverage slots left 0); ``coverage`` the four coverage sums (labelled
    system, gold, unlabelled system, gold), one number per unit; ``labels``
    each label's ``per_label`` slots (coverage slots 0) and its two
    coverage sums.
    """

    counts: np.ndarray
    coverage: list[list[float]]
    labels: dict[str, tuple[np.ndarray, list[float], list[float]]]


_COVERAGE_SLOTS = (COVERAGE, _VIEW_WIDTH + COVERAGE)
_COUNT_SLOTS = [
    view * 2 * _VIEW_WIDTH + i
    for view in range(2)
    for i in range(2 * _VIEW_WIDTH)
    if i % _VIEW_WIDTH != COVERAGE
]
# Where a side's contribution columns go among a view's slots (beside the spans).
_LABELLED_FROM = [(CATEGORY + c, c) for c in range(5)] + [(OVERLAP, 5)]
_UNLABELLED_FROM = [
    (CATEGORY + CORRECT, 7),
    (CATEGORY + BOUNDARY_ERROR, 8),
    (CATEGORY + UNMATCHED, 9),
    (OVERLAP, 10),
]
_FROM = [
    (np.array([slot for slot, _ in pairs]), np.array([column for _, column in pairs]))
    for pairs in (_LABELLED_FROM, _UNLABELLED_FROM)
]
"""Both as index arrays, by view: a side's columns added to a view's slots at once (each
view's slots are distinct, as ``+=`` at an index array adds once to a slot named twice)."""
_LABEL_SLOTS = np.array([L_SPANS, L_EXACT, L_OVERLAP])
"""A label's counted slots (its coverage is summed apart)."""


def unit_slots(pieces: Sequence[Piece], cuts: np.ndarray, start: SpanTally | None) -> UnitSlots:
    """The slots of the units made of segments ``cuts[u]:cuts[u + 1]`` of ``pieces``.

    The first unit starts from what ``start`` holds (a unit begun before);
    each coverage sum adds its values one by one in span order, so a sum is
    the same however its spans were cut into calls.
    """
    units = len(cuts) - 1
    counts = np.zeros((units, 4 * _VIEW_WIDTH), np.int64)
    coverage: list[list[float]] = [[0.0] * units for _ in range(4)]
    labels: dict[str, tuple[np.ndarray, list[float], list[float]]] = {}
    if start is not None:
        held = start.labelled + start.unlabelled
        counts[0, _COUNT_SLOTS] = [held[i] for i in _COUNT_SLOTS]
        for k, (view, slot) in enumerate((v, c) for v in (0, 1) for c in _COVERAGE_SLOTS):
            coverage[k][0] = (start.labelled, start.unlabelled)[view][slot]
        for label, row in start.per_label.items():
            label_counts = np.zeros((units, 2 * _LABEL_WIDTH), np.int64)
            label_counts[0] = [
                0 if i % _LABEL_WIDTH == L_COVERAGE else v for i, v in enumerate(row)
            ]
            system, gold_sums = [0.0] * units, [0.0] * units
            system[0], gold_sums[0] = row[L_COVERAGE], row[_LABEL_WIDTH + L_COVERAGE]
            labels[label] = (label_counts, system, gold_sums)
    for found, side, bounds in pieces:
        at = bounds[cuts]
        lo, hi = at[:-1], at[1:]
        table = found.counts
        d = table[hi] - table[lo]
        spans = d[:, :5].sum(axis=1)
        gold = 0 if side == 0 else 1
        for view, (slots, columns) in enumerate(_FROM):
            base = view * 2 * _VIEW_WIDTH + side
            counts[:, base + SPANS] += spans
            counts[:, base + slots] += d[:, columns]
        for k, column in ((0, 6), (1, 11)):
            _running_sums(
                coverage[2 * k + gold], found.coverages[k], table[lo, column], table[hi, column]
            )
        offset = 0 if side == 0 else _LABEL_WIDTH
        for j, label in enumerate(found.labels):
            at_label = _COLUMNS + _L_COLUMNS * j
            if label not in labels:
                labels[label] = (
                    np.zeros((units, 2 * _LABEL_WIDTH), np.int64),
                    [0.0] * units,
                    [0.0] * units,
                )
            label_counts, system_sums, gold_sums = labels[label]
            label_counts[:, offset + _LABEL_SLOTS] += d[:, at_label + _LABEL_SLOTS]
            _running_sums(
                gold_sums if gold else system_sums,
                found.coverages[2 + j],
                table[lo, at_label + 3],
                table[hi, at_label + 3],
            )
    return UnitSlots(counts, coverage, labels)


def _running_sums(sums: list[float], values: list[float], lo: np.ndarray, hi: np.ndarray) -> None:
    """Add ``values[lo[u]:hi[u]]`` to ``sums[u]`` one by one, for every unit ``u``."""
    sums[:] = [
        reduce(add, values[a:b], total) if b > a else total
        for total, a, b in zip(sums, lo.tolist(), hi.tolist(), strict=True)
    ]


def store(tally: SpanTally, slots: UnitSlots) -> None:
    """Make ``tally`` hold the one unit of ``slots`` (counts as ``int``)."""
    counts = slots.counts[0].tolist()
    for view, row in enumerate((tally.labelled, tally.unlabelled)):
        row[:] = counts[view * 2 * _VIEW_WIDTH : (view + 1) * 2 * _VIEW_WIDTH]
        for k, slot in enumerate(_COVERAGE_SLOTS):
            row[slot] = slots.coverage[2 * view + k][0]
    for label, (label_counts, system, gold) in slots.labels.items():
        if label not in tally.per_label and not label_counts[0].any():
            continue  # a label of the pieces with no span in this unit
        row = label_counts[0].tolist()
        row[L_COVERAGE], row[_LABEL_WIDTH + L_COVERAGE] = system[0], gold[0]
        tally.per_label[label] = row


# --------------------------------------------------------------------------
# Counts as flat mappings (the JSON's ``documents`` and the bootstrap's rows)

VIEWS = ("labelled", "unlabelled")
MATCH_ROWS = ("exact", "overlap", "intersection")
SEMEVAL_ROWS = ("strict", "exact", "partial", "type")
PRF_KEYS = ("precision", "recall", "f1")
PER_LABEL = "per_label"
_MATCH_FIELDS = tuple(f.name for f in fields(MatchCounts))
_CATEGORY_FIELDS = tuple(f.name for f in fields(CategoryCounts))


def span_counts_as_mapping(counts: SpanCounts) -> dict[str, float]:
    """``counts`` flattened (``labelled.exact_system`` …), zero counts left out."""
    flat: dict[str, float] = {}
    for view in VIEWS:
        view_counts: ViewCounts = getattr(counts, view)
        for name in _MATCH_FIELDS:
            flat[f"{view}.{name}"] = getattr(view_counts.match, name)
        for name in _CATEGORY_FIELDS:
            flat[f"{view}.{name}"] = getattr(view_counts.categories, name)
    for label, match in counts.per_label:
        for name in _MATCH_FIELDS:
            flat[f"{PER_LABEL}.{label}.{name}"] = getattr(match, name)
    return {key: value for key, value in flat.items() if value}


@dataclass(frozen=True, slots=True)
class Repairs:
    """Invalid tag boundaries found (and repaired) per column, under a CoNLL scheme."""

    gold: int = 0
    system: int = 0


@dataclass(frozen=True, slots=True)
class SpanInput:
    """What one input of the span measures is and holds: its name, format and tagging
    scheme (None but for CoNLL), its documents and tokens, and its counts."""

    path: str
    format: str
    scheme: str | None
    documents: int
    tokens: int
    counts: SpanCounts


@dataclass(frozen=True, slots=True)
class CountedSpans(SpanInput):
    """What a span-counting stage returns about one input: the measures' sufficient statistics.

    ``units`` are the bootstrap units' counts (at most 2,000 units of
    consecutive documents, see :mod:`harem_pipeline.stages.span_units`),
    flattened like :func:`span_counts_as_mapping`, in file order, named by
    their first document: a CoNLL unit by the line of its first token, a
    JSON-lines unit by its first id, a HAREM one by its DOCID; None when
    not kept.
    """

    repairs: Repairs = Repairs()
    units: UnitCounts | None = None
    sentences: int | None = None
    """A CoNLL file's sentences (``documents`` is then its ``-DOCSTART-`` documents, 0
    without any); None for other formats, whose ``documents`` are their own."""
    equal_tags: int = 0
    """Tokens whose two tags agree (token accuracy's numerator): the tag strings of a
    CoNLL file, the span tags of :func:`equal_token_tags` elsewhere."""
    errors: Any = None
    """The error listing and confusion (an ``ErrorSpill``), None when not collected."""


# --------------------------------------------------------------------------
# Restricting the labels, and tokens' tags of span formats


class LabelFilter:
    """``--labels A,B`` / ``--ignore C``: the labels a report scores.

    A span keeps the labels of its set that are in ``labels`` (all when
    None) and not in ``ignore``; a span left with none is dropped, on both
    sides alike, so totals, per-label tables and error listings all leave
    it out (as a category veil does for HAREM).  Each label set is filtered
    once and shared, like the readers' own label sets.
    """

    __slots__ = ("labels", "ignore", "_cache")

    def __init__(self, labels: Collection[str] | None = None, ignore: Collection[str] = ()) -> None:
        self.labels = None if labels is None else frozenset(labels)
        self.ignore = frozenset(ignore)
        self._cache: dict[frozenset[str], frozenset[str] | None] = {}

    def __call__(self, spans: Sequence[Span]) -> tuple[Span, ...]:
        """The spans kept, with their kept labels."""
        cache = self._cache
        kept = []
        for start, end, labels in spans:
            if labels not in cache:
                cache[labels] = self._shown(labels)
            shown = cache[labels]
            if shown is not None:
                kept.append((start, end, shown))
        return tuple(kept)

    def shown(self, labels: frozenset[str]) -> frozenset[str] | None:
        """The labels of ``labels`` kept (None: the span is dropped)."""
        cache = self._cache
        if labels not in cache:
            cache[labels] = self._shown(labels)
        return cache[labels]

    def _shown(self, labels: frozenset[str]) -> frozenset[str] | None:
        shown = labels if self.labels is None else labels & self.labels
        shown = shown - self.ignore
        if not shown:
            return None
        return labels if shown == labels else shown

    def signature(self) -> dict[str, str | None]:
        """The signature fields that say what was restricted (None: nothing)."""
        return {
            "labels": None if self.labels is None else ",".join(sorted(self.labels)),
            "ignore": ",".join(sorted(self.ignore)) or None,
        }


def equal_token_tags(gold: Sequence[Span], system: Sequence[Span], tokens: int) -> int:
    """Tokens whose tags agree, for formats that carry spans rather than tags.

    A token's tag is the set of ``(label set, begins here)`` of the spans
    covering it (the empty set outside every span): IOB2's tag for flat
    spans, and still defined for nested ones.
    """
    if gold == system:
        return tokens
    differing = _token_tags(gold, tokens) ^ _token_tags(system, tokens)
    return tokens - len({t for t, _ in differing})


def _token_tags(spans: Sequence[Span], tokens: int) -> set[tuple[int, frozenset]]:
    """``(token, tag)`` of every token inside a span (a token outside all has no entry)."""
    tags: dict[int, set] = {}
    for start, end, labels in spans:
        for t in range(start, min(end, tokens)):
            tags.setdefault(t, set()).add((labels, t == start))
    return {(t, frozenset(tag)) for t, tag in tags.items()}
