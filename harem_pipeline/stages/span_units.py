"""Bootstrap units of the span measures: bounded, streamed.

A report keeps its per-unit ``SpanCounts`` as flat mappings (see
:func:`harem_pipeline.stages.spans.span_counts_as_mapping`), and a file of
any size keeps at most ``UNIT_LIMIT`` (2,000) units.  The source
units (a CoNLL file's ``-DOCSTART-`` documents or sentences, a JSON-lines
file's documents, a HAREM collection's documents) are grouped into runs of
``s`` consecutive source units, ``s`` the smallest power of two with
``ceil(N / s) <= UNIT_LIMIT`` for ``N`` source units; the last run may be
shorter.  So the resampling is a block bootstrap over consecutive documents
once a file has more than 2,000 of them, and the grouping depends only on
``N``: two systems scored on the same gold file get the same units, which
``harem compare`` pairs by name.  A unit is named by its first source unit.

The grouping is built while streaming, in O(``UNIT_LIMIT``) memory: each
unit's counts are one fixed-order row of numbers (:class:`CountLayout`: the
36 columns of the two views, then 8 per label in order of first
appearance); whenever the number of units reaches twice the limit, adjacent
pairs are added up (unit 2i with 2i+1) and each new unit takes twice as
many source units from then on; at the end, a last such halving brings the
number down to the limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import add
from typing import Any, NamedTuple, overload

import numpy as np

from harem_pipeline.stages.spans import (
    _CATEGORY_FIELDS,
    _MATCH_FIELDS,
    PER_LABEL,
    VIEWS,
    CategoryCounts,
    Listing,
    MatchCounts,
    Piece,
    SpanCounts,
    SpanTally,
    UnitSlots,
    ViewCounts,
    identical_per_label,
    store,
    unit_slots,
)

UNIT_LIMIT = 2000
"""The most bootstrap units a report keeps, whatever the size of its input."""

_VIEW_COLUMNS = len(_MATCH_FIELDS) + len(_CATEGORY_FIELDS)
_LABEL_COLUMNS = len(_MATCH_FIELDS)
_FIXED_COLUMNS = len(VIEWS) * _VIEW_COLUMNS
_FLOAT_FIELDS = frozenset(("intersection_system", "intersection_gold"))


class CountLayout:
    """The fixed column order of count rows: both views, then 8 columns per label.

    Labels get their columns in order of first appearance, so a row made
    early is a prefix of the layout (missing columns are zeros).  Rows are
    plain sequences of numbers: no per-document dict is ever built.
    """

    __slots__ = ("labels", "keys", "floats")

    def __init__(self) -> None:
        self.labels: dict[str, int] = {}
        self.keys: list[str] = [
            f"{view}.{name}" for view in VIEWS for name in _MATCH_FIELDS + _CATEGORY_FIELDS
        ]
        self.floats: list[bool] = [key.rpartition(".")[2] in _FLOAT_FIELDS for key in self.keys]

    @property
    def width(self) -> int:
        return len(self.keys)

    def column(self, label: str) -> int:
        """The first of ``label``'s 8 columns (added at the end on first sight)."""
        base = self.labels.get(label)
        if base is None:
            base = self.labels[label] = len(self.keys)
            self.keys.extend(f"{PER_LABEL}.{label}.{name}" for name in _MATCH_FIELDS)
            self.floats.extend(name in _FLOAT_FIELDS for name in _MATCH_FIELDS)
        return base

    def rows(
        self, slots: UnitSlots, identical: np.ndarray, identical_labels: dict[str, np.ndarray]
    ) -> list[np.ndarray]:
        """The rows of the units of ``slots``, with ``identical[u]`` spans found on both
        sides in unit ``u`` (``identical_labels[label][u]`` of them carrying ``label``).

        A span found on both sides is correct on every measure and fully
        covered: it adds one to each side's spans, exact, overlap, correct
        and coverage; each float column receives it in one addition, after
        the unit's own coverages.
        """
        units = len(identical)
        for label in (*slots.labels, *identical_labels):
            self.column(label)
        row = np.zeros((units, len(self.keys)))
        n = identical
        for view in range(len(VIEWS)):
            t = slots.counts[:, view * 16 : (view + 1) * 16]
            system_coverage = np.array(slots.coverage[2 * view], dtype=np.float64)
            gold_coverage = np.array(slots.coverage[2 * view + 1], dtype=np.float64)
            base = view * _VIEW_COLUMNS
            row[:, base : base + _VIEW_COLUMNS] = np.column_stack(
                (
                    t[:, 0] + n, t[:, 8] + n, t[:, 3] + n, t[:, 11] + n, t[:, 1] + n,
                    t[:, 9] + n, system_coverage + n, gold_coverage + n, t[:, 3] + n,
                    t[:, 4], t[:, 5], t[:, 6], t[:, 7], t[:, 11] + n,
                    t[:, 12], t[:, 13], t[:, 14], t[:, 15],
                )
            )  # fmt: skip
        for label, (t, system, gold) in slots.labels.items():
            base = self.labels[label]
            row[:, base : base + _LABEL_COLUMNS] = np.column_stack(
                (
                    t[:, 0], t[:, 4], t[:, 1], t[:, 5], t[:, 2], t[:, 6],
                    np.array(system, dtype=np.float64), np.array(gold, dtype=np.float64),
                )
            )  # fmt: skip
        for label, k in identical_labels.items():
            base = self.labels[label]
            row[:, base : base + _LABEL_COLUMNS] += k[:, None]
        return list(row)

    def tally_row(self, tally: SpanTally) -> np.ndarray:
        """The counts of ``tally`` as a row (the layout ``SpanTally.counts`` documents)."""
        slots = unit_slots([], np.zeros(2, np.int64), tally)
        identical = {label: np.array([k]) for label, k in identical_per_label(tally).items()}
        return self.rows(slots, np.array([tally.identical]), identical)[0]

    def counts_row(self, counts: SpanCounts) -> list[float]:
        """``counts`` as a row."""
        row: list[float] = [0] * _FIXED_COLUMNS
        for v, view in enumerate(VIEWS):
            view_counts: ViewCounts = getattr(counts, view)
            values = [getattr(view_counts.match, name) for name in _MATCH_FIELDS]
            values += [getattr(view_counts.categories, name) for name in _CATEGORY_FIELDS]
            row[v * _VIEW_COLUMNS : (v + 1) * _VIEW_COLUMNS] = values
        for label, match in counts.per_label:
            base = self.column(label)
            row.extend([0] * (len(self.keys) - len(row)))
            row[base : base + _LABEL_COLUMNS] = [getattr(match, f) for f in _MATCH_FIELDS]
        return row

    def mapping_columns(self, width: int) -> list[int]:
        """The columns of a row of ``width`` in its mapping's key order: both views',
        then each label's, labels sorted."""
        columns = list(range(min(width, _FIXED_COLUMNS)))
        for label in sorted(self.labels):
            base = self.labels[label]
            if base < width:
                columns.extend(range(base, base + _LABEL_COLUMNS))
        return columns

    def row_items(self, row: Row) -> list[tuple[int, float]]:
        """A row's counts as ``span_counts_as_mapping`` flattens them, as ``(column, value)``
        in key order: zeros left out, labels sorted, whole counts as ``int`` (rows may be
        kept as doubles)."""
        floats = self.floats
        return [
            (i, value if floats[i] else int(value))
            for i in self.mapping_columns(len(row))
            if (value := row[i])
        ]

    def row_mapping(self, row: Row) -> dict[str, float]:
        """A row as ``span_counts_as_mapping`` flattens counts (:meth:`row_items`)."""
        keys = self.keys
        return {keys[i]: value for i, value in self.row_items(row)}

    def row_counts(self, row: Sequence[float]) -> SpanCounts:
        """A row frozen into ``SpanCounts`` (every label of the layout is listed)."""
        padded = list(row) + [0] * (len(self.keys) - len(row))

        def match(base: int) -> MatchCounts:
            v = padded[base : base + len(_MATCH_FIELDS)]
            return MatchCounts(*map(int, v[:6]), *map(float, v[6:8]))

        views = []
        for v in range(len(VIEWS)):
            base = v * _VIEW_COLUMNS
            categories = padded[base + len(_MATCH_FIELDS) : base + _VIEW_COLUMNS]
            views.append(ViewCounts(match(base), CategoryCounts(*map(int, categories))))
        per_label = tuple((label, match(base)) for label, base in sorted(self.labels.items()))
        return SpanCounts(views[0], views[1], per_label)


Row = Sequence[float] | np.ndarray
"""A unit's counts in layout order: a list, or a row of a matrix of them."""


def add_rows(a: Row, b: Row) -> list[float]:
    """Column sums of two rows as Python numbers (integers stay exact), the shorter padded."""
    if len(a) < len(b):
        a, b = b, a
    return [*map(add, a, b), *a[len(b) :]]


@dataclass(frozen=True, slots=True)
class Unit:
    """One bootstrap unit: ``sources`` consecutive source units, named by the first."""

    id: Any
    sources: int
    row: tuple[float, ...]


class _Filling(NamedTuple):
    """The unit ``add`` is filling: its first source unit, how many so far, their summed row."""

    id: Any
    sources: int
    row: list[float]


def unit_size(sources: int, limit: int = UNIT_LIMIT) -> int:
    """Source units per bootstrap unit: the smallest power of two ``s`` with
    ``ceil(sources / s) <= limit`` (what :class:`BoundedUnits` ends with)."""
    size = 1
    while -(-sources // size) > limit:
        size *= 2
    return size


class BoundedUnits:
    """Rows of consecutive source units, grouped so that at most ``limit`` remain.

    ``push`` appends a unit of ``size`` source units (only the last one may
    have fewer); when ``2 * limit`` units are held, adjacent pairs are added
    up (one vectorised sum over the rows matrix) and ``size`` doubles.
    ``finish`` halves once more if needed, so the final units are those of
    :func:`unit_size`: unit ``i`` holds source units ``i*s`` to ``(i+1)*s - 1``.
    Memory: a ``2 * limit`` × columns matrix of doubles (exact for counts);
    pushed rows wait in a list and enter it together (one conversion, not
    one per unit) before the matrix is read.
    """

    __slots__ = ("limit", "size", "ids", "sources", "matrix", "_pending", "_rows")

    def __init__(self, limit: int = UNIT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.size = 1
        self.ids: list[Any] = []
        self.sources: list[int] = []
        self.matrix = np.zeros((2 * limit, 0))  # widened as rows get longer
        self._pending: _Filling | None = None
        self._rows: list[Row] = []  # the last units pushed, not yet in ``matrix``

    def add(self, source_id: Any, row: Sequence[float]) -> None:
        """Add one source unit's row (for counts that come one source unit at a time)."""
        if self._pending is None:
            unit_id, sources, total = source_id, 1, list(row)
        else:
            unit_id, sources, total = self._pending
            sources, total = sources + 1, add_rows(total, row)
        if sources == self.size:
            self._pending = None
            self.push(unit_id, total, sources)
        else:
            self._pending = _Filling(unit_id, sources, total)

    def push(self, unit_id: Any, row: Row, sources: int | None = None) -> None:
        """Append the next unit (``sources`` defaults to ``size``)."""
        self._rows.append(row)
        self.ids.append(unit_id)
        self.sources.append(self.size if sources is None else sources)
        if len(self.ids) >= 2 * self.limit:
            self._halve()

    def _write(self) -> None:
        """Put the waiting rows into ``matrix`` (widened if a row is longer)."""
        rows = self._rows
        if not rows:
            return
        width = max(map(len, rows))
        if width > self.matrix.shape[1]:
            wider = np.zeros((self.matrix.shape[0], width))
            wider[:, : self.matrix.shape[1]] = self.matrix
            self.matrix = wider
        padded = [row if len(row) == width else [*row, *[0] * (width - len(row))] for row in rows]
        start = len(self.ids) - len(rows)
        self.matrix[start : len(self.ids), :width] = padded
        self.matrix[start : len(self.ids), width:] = 0
        rows.clear()

    def _halve(self) -> None:
        self._write()
        n = len(self.ids)
        pairs = n // 2
        m = self.matrix
        merged = m[0 : 2 * pairs : 2] + m[1 : 2 * pairs : 2]
        last = m[n - 1].copy() if n % 2 else None
        m[:n] = 0
        m[:pairs] = merged
        if last is not None:
            m[pairs] = last
        sources = self.sources
        self.sources = [a + b for a, b in zip(sources[::2], sources[1::2], strict=False)]
        if n % 2:
            self.sources.append(sources[-1])
        self.ids = self.ids[::2]
        self.size *= 2

    def _flush(self) -> None:
        if self._pending is not None:
            unit_id, sources, row = self._pending
            self._pending = None
            self.push(unit_id, row, sources)

    def collapse(self) -> None:
        """Everything so far becomes one unit of one source unit (size back to 1)."""
        self._flush()
        self._write()
        n = len(self.ids)
        if not n:
            return
        total = self.matrix[:n].sum(axis=0)
        self.matrix[:n] = 0
        self.matrix[0] = total
        self.ids, self.sources, self.size = self.ids[:1], [1], 1

    def finish(self) -> list[Unit]:
        """The final units (at most ``limit``)."""
        self._flush()
        self._write()
        if len(self.ids) > self.limit:
            self._halve()
        rows = self.matrix[: len(self.ids)].tolist()
        return [Unit(*unit) for unit in zip(self.ids, self.sources, map(tuple, rows), strict=True)]

    def rows(self) -> np.ndarray:
        """The units' rows as one matrix (after :meth:`finish`, the final units')."""
        self._write()
        return self.matrix[: len(self.ids)].copy()

    def total(self) -> list[float]:
        """Column sums over every unit (and a unit being filled)."""
        self._write()
        total = self.matrix[: len(self.ids)].sum(axis=0).tolist()
        return total if self._pending is None else add_rows(total, self._pending.row)


class UnitBlock(NamedTuple):
    """A block of segments (sentences, documents) counted, ready to be cut into units.

    ``pieces`` are its judged sides; ``shared`` the spans both sides share,
    per label set: ``(labels, running)`` with ``running[i]`` such spans
    before segment ``i``.
    """

    pieces: Sequence[Piece]
    shared: Sequence[tuple[frozenset[str], Sequence[int]]]


_NOTHING = UnitBlock((), ())


class SpanUnits:
    """Span counts streamed into bounded bootstrap units, and the file's totals.

    A reader hands over its counts a block at a time (:meth:`add_block`),
    saying where each source unit ends; the units complete in a block are
    made in one go, and a unit still open at the block's end is held in
    ``tally`` until a later block completes it.  The totals are the column
    sums of the unit rows (so the same with and without bootstrap).
    Memory: O(``limit``) rows, whatever the input.
    """

    __slots__ = ("layout", "units", "tally", "kept", "_open", "_open_id")

    def __init__(
        self, limit: int = UNIT_LIMIT, min_overlap: float = 0.0, listing: Listing | None = None
    ) -> None:
        self.layout = CountLayout()
        self.units = BoundedUnits(limit)
        self.tally = SpanTally(min_overlap, listing)
        """The unit being filled, as far as the blocks so far go."""
        self.kept: list[Unit] = []
        """The final units, once ``finish`` has run."""
        self._open = 0  # source units in the unit being filled
        self._open_id: Any = None

    def add_block(
        self, block: UnitBlock, start: int, stop: int, sources: Sequence[tuple[int, Any]]
    ) -> None:
        """Count segments ``start:stop`` of ``block``, in which the source units
        ``(end, id)`` of ``sources`` end (a source's last segment is ``end - 1``).

        Segments after the last source's end belong to a source that ends later.
        """
        units = self.units
        size, held = units.size, len(units.ids)
        cuts, names, numbers = [start], [], []
        for end, source_id in sources:
            if not self._open:
                self._open_id = source_id
            self._open += 1
            if self._open == size:  # as ``BoundedUnits.push`` will find it
                cuts.append(end)
                names.append(self._open_id)
                numbers.append(self._open)
                self._open = 0
                held += 1
                if held >= 2 * units.limit:
                    held -= held // 2
                    size *= 2
        if len(cuts) > 1:
            at = np.array(cuts, dtype=np.int64)
            rows = self._rows(unit_slots(block.pieces, at, self.tally), block, at)
            clear_tally(self.tally)
            listing = self.tally.listing
            for labels, running in block.shared:
                number = running[cuts[-1]] - running[start]
                if number and listing is not None:
                    listing.add_shared(labels, number)
            for row, unit_id, number in zip(rows, names, numbers, strict=True):
                units.push(unit_id, row, number)
        rest = np.array([cuts[-1], stop], dtype=np.int64)
        store(self.tally, unit_slots(block.pieces, rest, self.tally))
        for labels, running in block.shared:
            number = running[stop] - running[cuts[-1]]
            if number:
                self.tally.add_identical(labels, number)

    def _rows(self, slots: UnitSlots, block: UnitBlock, cuts: np.ndarray) -> list[np.ndarray]:
        """The rows of the units ``cuts[u]:cuts[u + 1]``; the first also has the spans
        found on both sides that ``tally`` holds."""
        per_set: dict[frozenset[str], np.ndarray] = {}
        for labels, running in block.shared:
            counts = np.diff(np.asarray(running, dtype=np.int64)[cuts])
            per_set[labels] = per_set[labels] + counts if labels in per_set else counts
        for labels, k in self.tally.identical_labels.items():
            counts = (
                per_set[labels].copy() if labels in per_set else np.zeros(len(cuts) - 1, np.int64)
            )
            counts[0] += k
            per_set[labels] = counts
        identical = np.zeros(len(cuts) - 1, np.int64)
        per_label: dict[str, np.ndarray] = {}
        for labels, counts in per_set.items():
            identical += counts
            for label in labels:
                per_label[label] = per_label[label] + counts if label in per_label else counts
        return self.layout.rows(slots, identical, per_label)

    def end_source(self, source_id: Any) -> None:
        """The current source unit, named ``source_id``, ends here (after the last block)."""
        self.add_block(_NOTHING, 0, 0, [(0, source_id)])

    def _close(self) -> None:
        self.units.push(self._open_id, self.layout.tally_row(self.tally), self._open)
        clear_tally(self.tally)
        self._open = 0

    def collapse(self) -> None:
        """Every source unit so far becomes one (a CoNLL file's first ``-DOCSTART-``
        document, found to be one when the second begins)."""
        if self._open:
            self._close()
        self.units.collapse()

    def finish(self) -> SpanCounts:
        """The totals; the final units are then in ``kept``.  Segments after the last
        source's end count in the totals only."""
        if self._open:
            self._close()
        total = add_rows(self.units.total(), self.layout.tally_row(self.tally))
        clear_tally(self.tally)
        self.kept = self.units.finish()
        return self.layout.row_counts(total)

    def counts(self, names: Sequence[str]) -> UnitCounts:
        """The final units' counts, named ``names`` (one per unit)."""
        return UnitCounts(names, self.layout, self.units.rows())


class UnitCounts(Sequence[tuple[str, dict[str, float]]]):
    """The bootstrap units' counts: read as ``(name, flat counts)`` pairs (what
    :func:`~harem_pipeline.stages.spans.span_counts_as_mapping` gives, made as they are
    read: the JSON's ``documents``), or as one matrix (the bootstrap's)."""

    __slots__ = ("names", "layout", "rows")

    def __init__(self, names: Sequence[str], layout: CountLayout, rows: np.ndarray) -> None:
        self.names = list(names)
        self.layout = layout
        self.rows = rows
        """One row per unit, in the layout's column order (the last columns may be missing)."""

    @classmethod
    def none(cls) -> UnitCounts:
        """No units (a report that kept none)."""
        return cls((), CountLayout(), np.zeros((0, 0)))

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> tuple[str, dict[str, float]]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, dict[str, float]]]: ...
    def __getitem__(
        self, index: int | slice
    ) -> tuple[str, dict[str, float]] | list[tuple[str, dict[str, float]]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.names[index], self.layout.row_mapping(self.rows[index].tolist())

    def matrix(self) -> tuple[list[str], np.ndarray]:
        """What :func:`~harem_pipeline.measures.bootstrap.count_matrix` makes of the pairs
        (the counts some unit has, by name; a row per unit), from the rows at once."""
        if not self.names:
            return [], np.zeros((0, 0))
        keys = self.layout.keys
        rows = np.zeros((len(self.names), len(keys)))
        rows[:, : self.rows.shape[1]] = self.rows
        had = sorted((keys[c], c) for c in np.flatnonzero(rows.any(axis=0)).tolist())
        return [name for name, _ in had], rows[:, [c for _, c in had]]


def clear_tally(tally: SpanTally) -> None:
    """Reset ``tally`` to zero in place (cheaper than a new one per unit).

    Its identical spans go to its listing's confusion first."""
    if tally.listing is not None:
        tally.listing.absorb(tally)
    tally.labelled[:] = _ZEROS
    tally.unlabelled[:] = _ZEROS
    tally.per_label.clear()
    tally.identical = 0
    tally.identical_labels.clear()


_ZEROS = (0,) * len(SpanTally().labelled)


def document_units(
    documents: Iterable[tuple[str, SpanCounts]], limit: int = UNIT_LIMIT
) -> UnitCounts:
    """Already-counted documents (a HAREM collection's) grouped into bounded units.

    The same grouping as :class:`SpanUnits`; with at most ``limit`` documents
    each unit is one document, named by its id, with its flat counts.
    """
    layout = CountLayout()
    units = BoundedUnits(limit)
    for docid, counts in documents:
        units.add(docid, layout.counts_row(counts))
    final = units.finish()
    return UnitCounts([unit.id for unit in final], layout, units.rows())
