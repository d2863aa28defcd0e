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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import add
from typing import Any, NamedTuple

import numpy as np

from harem_pipeline.stages.spans import (
    _CATEGORY_FIELDS,
    _MATCH_FIELDS,
    PER_LABEL,
    VIEWS,
    CategoryCounts,
    Listing,
    MatchCounts,
    Span,
    SpanCounts,
    SpanTally,
    ViewCounts,
    identical_per_label,
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

    def tally_row(self, tally: SpanTally) -> list[float]:
        """The counts of ``tally`` as a row (the layout ``SpanTally.counts`` documents)."""
        n = tally.identical
        a, b = tally.labelled, tally.unlabelled
        row: list[float] = [
            a[0] + n, a[8] + n, a[3] + n, a[11] + n, a[1] + n, a[9] + n, a[2] + n, a[10] + n,
            a[3] + n, a[4], a[5], a[6], a[7], a[11] + n, a[12], a[13], a[14], a[15],
            b[0] + n, b[8] + n, b[3] + n, b[11] + n, b[1] + n, b[9] + n, b[2] + n, b[10] + n,
            b[3] + n, b[4], b[5], b[6], b[7], b[11] + n, b[12], b[13], b[14], b[15],
        ]  # fmt: skip
        if not tally.per_label and not tally.identical_labels:
            return row
        identical = identical_per_label(tally)
        labels = self.labels
        for label in (*tally.per_label, *identical):
            if label not in labels:
                self.column(label)
        row.extend([0] * (len(self.keys) - len(row)))
        for label, t in tally.per_label.items():
            base = labels[label]
            row[base : base + _LABEL_COLUMNS] = (t[0], t[4], t[1], t[5], t[2], t[6], t[3], t[7])
        for label, k in identical.items():
            base = labels[label]
            row[base : base + _LABEL_COLUMNS] = [v + k for v in row[base : base + _LABEL_COLUMNS]]
        return row

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

    def row_mapping(self, row: Sequence[float]) -> dict[str, float]:
        """A row as ``span_counts_as_mapping`` flattens counts: zeros left out, labels sorted.

        Integer counts come back as ``int`` (rows may be kept as doubles).
        """
        flat: dict[str, float] = {}
        keys, floats = self.keys, self.floats
        width = len(row)
        columns = list(range(min(width, _FIXED_COLUMNS)))
        for label in sorted(self.labels):
            base = self.labels[label]
            if base < width:
                columns.extend(range(base, base + _LABEL_COLUMNS))
        for i in columns:
            value = row[i]
            if value:
                flat[keys[i]] = value if floats[i] else int(value)
        return flat

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


def add_rows(a: Sequence[float], b: Sequence[float]) -> list[float]:
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
        self._rows: list[Sequence[float]] = []  # the last units pushed, not yet in ``matrix``

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

    def push(self, unit_id: Any, row: Sequence[float], sources: int | None = None) -> None:
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

    def total(self) -> list[float]:
        """Column sums over every unit (and a unit being filled)."""
        self._write()
        total = self.matrix[: len(self.ids)].sum(axis=0).tolist()
        return total if self._pending is None else add_rows(total, self._pending.row)


class SpanUnits:
    """Span counts streamed into bounded bootstrap units, and the file's totals.

    Call ``add_document`` (or ``tally.add_document``: the tally is reused) for
    each document of a source unit, then ``end_source(id)``; each source
    unit's documents go into one running ``SpanTally`` until its unit is
    complete, then become one row.  The
    totals are the column sums of the unit rows (so the same with and
    without bootstrap).  Memory: O(``limit``) rows, whatever the input.
    """

    __slots__ = ("layout", "units", "tally", "kept", "before_close", "_open", "_open_id")

    def __init__(
        self, limit: int = UNIT_LIMIT, min_overlap: float = 0.0, listing: Listing | None = None
    ) -> None:
        self.layout = CountLayout()
        self.units = BoundedUnits(limit)
        self.tally = SpanTally(min_overlap, listing)
        self.kept: list[Unit] = []
        """The final units, once ``finish`` has run."""
        self.before_close: Callable[[], None] | None = None
        """Called before a unit's tally is taken: a reader that holds counts back (spans
        found on both sides, counted in bulk) adds them to ``tally`` then."""
        self._open = 0  # source units in the unit being filled
        self._open_id: Any = None

    def add_document(self, gold: Sequence[Span], system: Sequence[Span]) -> None:
        """Score one document into the current source unit."""
        self.tally.add_document(gold, system)

    def end_source(self, source_id: Any) -> None:
        """The current source unit, named ``source_id``, is complete."""
        if not self._open:
            self._open_id = source_id
        self._open += 1
        if self._open == self.units.size:
            self._close()

    def _close(self) -> None:
        if self.before_close is not None:
            self.before_close()
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
        """The totals; the final units are then in ``kept``.  Documents added after
        the last ``end_source`` count in the totals only."""
        if self._open:
            self._close()
        if self.before_close is not None:
            self.before_close()
        total = add_rows(self.units.total(), self.layout.tally_row(self.tally))
        clear_tally(self.tally)
        self.kept = self.units.finish()
        return self.layout.row_counts(total)

    def mappings(self) -> list[tuple[Any, dict[str, float]]]:
        """``(id, flat counts)`` of each final unit, for the JSON and the bootstrap."""
        return [(unit.id, self.layout.row_mapping(unit.row)) for unit in self.kept]


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
) -> list[tuple[str, dict[str, float]]]:
    """Already-counted documents (a HAREM collection's) grouped into bounded units.

    The same grouping as :class:`SpanUnits`; with at most ``limit`` documents
    each unit is one document, named by its id, with its flat counts.
    """
    layout = CountLayout()
    units = BoundedUnits(limit)
    for docid, counts in documents:
        units.add(docid, layout.counts_row(counts))
    return [(unit.id, layout.row_mapping(unit.row)) for unit in units.finish()]
