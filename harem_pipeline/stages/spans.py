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

from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from operator import itemgetter, le, sub
from typing import TYPE_CHECKING, Any, NamedTuple

from harem_pipeline.model import Span

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

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
    on real data most spans are right, and this keeps them off the slow path.
    """

    __slots__ = (
        "labelled",
        "unlabelled",
        "per_label",
        "identical",
        "identical_labels",
        "min_overlap",
        "listing",
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

    def add_document(self, gold: Sequence[Span], system: Sequence[Span]) -> None:
        """Add one document's spans (any order; spans may overlap or repeat)."""
        if gold == system:
            _tally_identical(self, gold)
            return
        gold = sorted(gold)
        system = sorted(system)
        if _is_flat(gold) and _is_flat(system):
            # Without overlaps inside a side, a span found on both sides touches
            # nothing else: score those pairs in bulk, the rest one by one.
            common = set(gold).intersection(system)
            if common:
                _tally_identical(self, common)
                gold = [g for g in gold if g not in common]
                system = [s for s in system if s not in common]
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
        _tally_side(self, system, gold, 0)
        _tally_side(self, gold, system, _VIEW_WIDTH)

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


class SpanError(NamedTuple):
    """One error of a listing: ``kind`` a name of ``KIND_NAMES``, ``side`` ``"gold"`` or
    ``"system"``, and the spans of the other side sharing a token with ``span`` (sorted)."""

    kind: str
    side: str
    span: Span
    others: list[Span]


class Listing:
    """What the slow path of a tally found about individual spans: errors and confusion.

    ``pending`` holds the errors (:class:`SpanError`) of the documents added
    since it was last emptied.  The reader empties it after each document,
    adding where the document is.

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
        self.pending: list[SpanError] = []
        self.confusion: Counter[tuple[ConfusionKey, ConfusionKey]] = Counter()

    def absorb(self, tally: SpanTally) -> None:
        """Add the tally's identical spans to the diagonal (call before clearing it)."""
        for labels, k in tally.identical_labels.items():
            self.confusion[labels, labels] += k

    def take(self) -> list[SpanError]:
        """The pending errors by start, gold before system at one start.

        ``pending`` is emptied in place (a reader may hold it to test it cheaply).
        """
        pending = self.pending
        found = sorted(pending, key=_error_order) if len(pending) > 1 else list(pending)
        pending.clear()
        return found


def _error_order(error: SpanError) -> tuple[int, bool, int, list[str]]:
    start, end, labels = error.span
    return start, error.side != "gold", end, sorted(labels)


def count_documents(documents: Iterable[tuple[Sequence[Span], Sequence[Span]]]) -> SpanCounts:
    """The summed counts of ``(gold, system)`` pairs, streamed one document at a time."""
    tally = SpanTally()
    for gold, system in documents:
        tally.add_document(gold, system)
    return tally.counts()


def _label_tally(tally: SpanTally, label: str) -> TallyRow:
    row = tally.per_label.get(label)
    if row is None:
        row = tally.per_label[label] = [0] * (2 * _LABEL_WIDTH)
    return row


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


def _tally_side(tally: SpanTally, spans: Sequence[Span], others: Sequence[Span], side: int) -> None:
    """Score each span of one side against the sorted spans of the other side.

    ``side`` is 0 for system spans (precision) and ``_VIEW_WIDTH`` for gold
    spans (recall); the per-label offset follows from it.  With a minimum
    overlap, a pair counts for the overlap measure only when it covers that
    share of the gold span (see :func:`check_min_overlap`).
    """
    lab = tally.labelled
    unl = tally.unlabelled
    threshold = tally.min_overlap
    listing = tally.listing
    gold_side = side != 0
    label_side = 0 if side == 0 else _LABEL_WIDTH
    starts = list(map(_START, others))
    max_length = max(map(sub, map(_END, others), starts), default=0)
    for span in spans:
        start, end, labels = span
        length = end - start
        lo = bisect_left(starts, start - max_length + 1)
        hi = bisect_left(starts, end, lo)
        same = same_match = overlap_match = overlap_any = False
        same_labels = None
        covered = covered_until = 0
        covered_any = covered_any_until = 0
        for i in range(lo, hi):
            o_start, o_end, o_labels = others[i]
            if o_end <= start:
                continue
            overlap_any = True
            match = o_labels is labels or not labels.isdisjoint(o_labels)
            if o_start == start and o_end == end:
                same = True
                if match and not same_match:
                    same_match = True
                    same_labels = o_labels
                elif same_labels is None:
                    same_labels = o_labels
            a = o_start if o_start > start else start
            b = o_end if o_end < end else end
            if covered_any_until > a:
                a_any = covered_any_until
            else:
                a_any = a
            if b > a_any:
                covered_any += b - a_any
                covered_any_until = b
            if match:
                overlap_match = True
                if covered_until > a:
                    a = covered_until
                if b > a:
                    covered += b - a
                    covered_until = b
        if threshold:
            overlap_ok, overlap_any_ok = _thresholded(span, others, lo, hi, threshold, gold_side)
        else:
            overlap_ok, overlap_any_ok = overlap_match, overlap_any
        if same_match:
            category = CORRECT
        elif same:
            category = LABEL_ERROR
        elif overlap_match:
            category = BOUNDARY_ERROR
        elif overlap_any:
            category = LABEL_BOUNDARY_ERROR
        else:
            category = UNMATCHED
        lab[side + SPANS] += 1
        lab[side + CATEGORY + category] += 1
        unl[side + SPANS] += 1
        if overlap_ok:
            lab[side + OVERLAP] += 1
        if overlap_match:
            lab[side + COVERAGE] += covered / length
        if same:
            unl[side + CATEGORY + CORRECT] += 1
        elif overlap_any:
            unl[side + CATEGORY + BOUNDARY_ERROR] += 1
        else:
            unl[side + CATEGORY + UNMATCHED] += 1
        if overlap_any_ok:
            unl[side + OVERLAP] += 1
        if overlap_any:
            unl[side + COVERAGE] += covered_any / length
        if listing is not None:
            _list_span(listing, span, category, same_labels, others, lo, hi, gold_side)
        if len(labels) == 1:
            row = _label_tally(tally, next(iter(labels)))
            row[label_side + L_SPANS] += 1
            if category == CORRECT:
                row[label_side + L_EXACT] += 1
            if overlap_ok:
                row[label_side + L_OVERLAP] += 1
            if overlap_match:
                row[label_side + L_COVERAGE] += covered / length
        else:
            for label in sorted(labels):  # labels get their rows in a fixed order
                _tally_label(
                    _label_tally(tally, label),
                    label_side,
                    span,
                    label,
                    others,
                    lo,
                    hi,
                    threshold,
                    gold_side,
                )


def _thresholded(
    span: Span, others: Sequence[Span], lo: int, hi: int, threshold: float, gold_side: bool
) -> tuple[bool, bool]:
    """Whether some pair of ``span`` reaches the minimum overlap: same label, any label."""
    start, end, labels = span
    ok = ok_any = False
    for i in range(lo, hi):
        o_start, o_end, o_labels = others[i]
        if o_end <= start:
            continue
        shared = min(o_end, end) - max(o_start, start)
        gold_length = (end - start) if gold_side else (o_end - o_start)
        if shared >= threshold * gold_length:
            ok_any = True
            if not labels.isdisjoint(o_labels):
                ok = True
                break
    return ok, ok_any


_SIDES = ("system", "gold")
_KINDS_BY_SIDE = (
    ("correct", "label_error", "boundary_error", "label_boundary_error", "spurious"),
    ("correct", "label_error", "boundary_error", "label_boundary_error", "missing"),
)


def _list_span(
    listing: Listing,
    span: Span,
    category: int,
    same_labels: frozenset[str] | None,
    others: Sequence[Span],
    lo: int,
    hi: int,
    gold_side: bool,
) -> None:
    """Record one span of the slow path: its error (if any) and its confusion cell."""
    labels = span[2]
    key: ConfusionKey
    if gold_side:
        if category <= LABEL_ERROR:
            assert same_labels is not None  # a span of the same boundaries was found
            key = same_labels
        else:
            key = MISSING_KEY if category == UNMATCHED else BOUNDARY_KEY
        listing.confusion[labels, key] += 1
    elif category > LABEL_ERROR:
        key = SPURIOUS_KEY if category == UNMATCHED else BOUNDARY_KEY
        listing.confusion[key, labels] += 1
    if category == CORRECT:
        return
    start = span[0]
    touching = [o for o in others[lo:hi] if o[1] > start]
    listing.pending.append(
        SpanError(_KINDS_BY_SIDE[gold_side][category], _SIDES[gold_side], span, touching)
    )


def _tally_label(
    row: TallyRow,
    offset: int,
    span: Span,
    label: str,
    others: Sequence[Span],
    lo: int,
    hi: int,
    threshold: float = 0.0,
    gold_side: bool = False,
) -> None:
    """Per-label counts of a vague span: only other spans carrying ``label`` match."""
    start, end, _labels = span
    exact = overlap = overlap_ok = False
    covered = covered_until = 0
    for i in range(lo, hi):
        o_start, o_end, o_labels = others[i]
        if o_end <= start or label not in o_labels:
            continue
        overlap = True
        exact = exact or (o_start == start and o_end == end)
        gold_length = (end - start) if gold_side else (o_end - o_start)
        if min(o_end, end) - max(o_start, start) >= threshold * gold_length:
            overlap_ok = True
        a = max(o_start, start, covered_until)
        b = min(o_end, end)
        if b > a:
            covered += b - a
            covered_until = b
    row[offset + L_SPANS] += 1
    row[offset + L_EXACT] += exact
    row[offset + L_OVERLAP] += overlap and overlap_ok
    row[offset + L_COVERAGE] += covered / (end - start)


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


def tally_mapping(tally: SpanTally) -> dict[str, float]:
    """``span_counts_as_mapping(tally.counts())`` without building the dataclasses.

    Per-document counts are taken for every sentence of a CoNLL file, so this
    reads the tally's flat lists directly (the layout ``SpanTally.counts``
    documents; a test checks both agree).
    """
    n = tally.identical
    flat: dict[str, float] = {}
    for view in VIEWS:
        t = getattr(tally, view)
        s_correct, g_correct = t[3] + n, t[11] + n
        values = (
            t[0] + n, t[8] + n, s_correct, g_correct, t[1] + n, t[9] + n,
            float(t[2] + n), float(t[10] + n),
            s_correct, t[4], t[5], t[6], t[7], g_correct, t[12], t[13], t[14], t[15],
        )  # fmt: skip
        for key, value in zip(_VIEW_KEYS[view], values, strict=True):
            if value:
                flat[key] = value
    rows = {label: list(row) for label, row in tally.per_label.items()}
    for label, k in identical_per_label(tally).items():
        row = rows.setdefault(label, [0] * 8)
        for i in range(8):
            row[i] += k
    for label, t in sorted(rows.items()):
        label_values = (t[0], t[4], t[1], t[5], t[2], t[6], float(t[3]), float(t[7]))
        keys = _LABEL_KEYS.get(label)
        if keys is None:
            keys = _LABEL_KEYS[label] = tuple(f"{PER_LABEL}.{label}.{f}" for f in _MATCH_FIELDS)
        for key, value in zip(keys, label_values, strict=True):
            if value:
                flat[key] = value
    return flat


# Keys made once, so that the counts of thousands of documents share them.
_VIEW_KEYS = {
    view: tuple(f"{view}.{f}" for f in _MATCH_FIELDS + _CATEGORY_FIELDS) for view in VIEWS
}
_LABEL_KEYS: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True)
class Repairs:
    """Invalid tag boundaries found (and repaired) per column, under a CoNLL scheme."""

    gold: int = 0
    system: int = 0


@dataclass(frozen=True, slots=True)
class CountedSpans:
    """What a span-counting stage returns about one input: the measures' sufficient statistics.

    ``units`` are the bootstrap units' counts (at most 2,000 units of
    consecutive documents, see :mod:`harem_pipeline.stages.span_units`),
    flattened like :func:`span_counts_as_mapping`, in file order, named by
    their first document: a CoNLL unit by the line of its first token, a
    JSON-lines unit by its first id, a HAREM one by its DOCID; None when
    not kept.
    """

    path: str
    format: str
    scheme: str | None
    documents: int
    tokens: int
    counts: SpanCounts
    repairs: Repairs = Repairs()
    units: tuple[tuple[str, dict[str, float]], ...] | None = None
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
