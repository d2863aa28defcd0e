"""Span counts as flat mappings, bootstrap units, and the intervals of every P/R/F triple.

A report keeps its per-unit ``SpanCounts`` as flat mappings (what its JSON's
``documents`` object holds and what :mod:`harem_pipeline.measures.bootstrap`
resamples).  Keys are ``<view>.<count>`` for the two views and
``per_label.<label>.<count>`` per label, with the field names of
``MatchCounts`` and ``CategoryCounts``; zero counts are left out.

Bootstrap units are bounded (:class:`BoundedUnits`, :class:`SpanUnits`): a
file of any size keeps at most ``UNIT_LIMIT`` (2,000) units.  The source
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

The measures are recomputed over all resamples at once from those columns,
with the formulas of :mod:`harem_pipeline.spans` (a test checks them against
``compute_measures``).  Measure keys follow the JSON report's nesting:
``labelled.exact.precision``, ``unlabelled.semeval.partial.f1``,
``per_label.NP.overlap.recall``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import add
from typing import Any

import numpy as np

from harem_pipeline.measures.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    harmonic_array,
    interval_table,
    ratio_array,
)
from harem_pipeline.spans import (
    CategoryCounts,
    MatchCounts,
    Span,
    SpanCounts,
    SpanTally,
    ViewCounts,
)

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
    for labels, k in tally.identical_labels.items():
        for label in labels:
            row = rows.setdefault(label, [0] * 8)
            for i in range(8):
                row[i] += k
    for label, t in sorted(rows.items()):
        values = (t[0], t[4], t[1], t[5], t[2], t[6], float(t[3]), float(t[7]))
        keys = _LABEL_KEYS.get(label)
        if keys is None:
            keys = _LABEL_KEYS[label] = tuple(f"{PER_LABEL}.{label}.{f}" for f in _MATCH_FIELDS)
        for key, value in zip(keys, values, strict=True):
            if value:
                flat[key] = value
    return flat


# Keys made once, so that the counts of thousands of documents share them.
_VIEW_KEYS = {
    view: tuple(f"{view}.{f}" for f in _MATCH_FIELDS + _CATEGORY_FIELDS) for view in VIEWS
}
_LABEL_KEYS: dict[str, tuple[str, ...]] = {}


def _labels(keys: Sequence[str]) -> list[str]:
    """The labels of ``per_label.<label>.<count>`` keys (a label may contain dots)."""
    prefix = PER_LABEL + "."
    return sorted({k[len(prefix) :].rpartition(".")[0] for k in keys if k.startswith(prefix)})


def _prf(out: dict[str, Any], path: str, sys_hits, system, gold_hits, gold) -> None:
    precision = ratio_array(sys_hits, system)
    recall = ratio_array(gold_hits, gold)
    out[f"{path}.precision"] = precision
    out[f"{path}.recall"] = recall
    out[f"{path}.f1"] = harmonic_array(precision, recall, 0.0)


def span_measure_arrays(columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every P/R/F of the span report from count columns (NaN where undefined)."""
    out: dict[str, np.ndarray] = {}
    for view in VIEWS:

        def c(name: str, view: str = view) -> np.ndarray:
            return columns[f"{view}.{name}"]

        for row in MATCH_ROWS:
            _prf(out, f"{view}.{row}", c(f"{row}_system"), c("system"), c(f"{row}_gold"), c("gold"))
        system = sum(c(name) for name in _CATEGORY_FIELDS[:5])
        gold = sum(c(name) for name in _CATEGORY_FIELDS[5:])
        s_bounds = c("system_correct") + c("system_label_error")
        g_bounds = c("gold_correct") + c("gold_label_error")
        s_half = 0.5 * (c("system_boundary_error") + c("system_label_boundary_error"))
        g_half = 0.5 * (c("gold_boundary_error") + c("gold_label_boundary_error"))
        semeval = f"{view}.semeval"
        _prf(out, f"{semeval}.strict", c("system_correct"), system, c("gold_correct"), gold)
        _prf(out, f"{semeval}.exact", s_bounds, system, g_bounds, gold)
        _prf(out, f"{semeval}.partial", s_bounds + s_half, system, g_bounds + g_half, gold)
        s_type = c("system_correct") + c("system_boundary_error")
        g_type = c("gold_correct") + c("gold_boundary_error")
        _prf(out, f"{semeval}.type", s_type, system, g_type, gold)
    for label in _labels(list(columns)):

        def m(name: str, label: str = label) -> np.ndarray:
            return columns[f"{PER_LABEL}.{label}.{name}"]

        for row in MATCH_ROWS:
            path = f"{PER_LABEL}.{label}.{row}"
            _prf(out, path, m(f"{row}_system"), m("system"), m(f"{row}_gold"), m("gold"))
    return out


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """``labelled.exact.precision`` → ``{"labelled": {"exact": {"precision": …}}}``.

    Per-label keys keep the label whole (it may contain dots).
    """
    tree: dict[str, Any] = {}
    for key, value in flat.items():
        if key.startswith(PER_LABEL + "."):
            rest, _, measure = key[len(PER_LABEL) + 1 :].rpartition(".")
            label, _, row = rest.rpartition(".")
            path = [PER_LABEL, label, row, measure]
        else:
            path = key.split(".")
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return tree


def span_intervals(
    documents: Sequence[SpanCounts],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any] | None:
    """The 95 % interval of every P/R/F triple from a document bootstrap of ``documents``.

    Shaped like the measures JSON: ``{"labelled": {"exact": {"precision":
    [lo, hi], "recall": …, "f1": …}, …, "semeval": {"strict": …}},
    "unlabelled": …, "per_label": {label: {"exact": …}}}``; an interval is
    None where the measure is undefined in every resample.  None as a whole
    when ``resamples`` is 0 (no bootstrap).
    """
    mappings = [span_counts_as_mapping(doc) for doc in documents]
    return mapping_intervals(mappings, resamples, seed)


def mapping_intervals(
    documents: Sequence[Mapping[str, float]],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any] | None:
    """:func:`span_intervals` of documents already flattened (``span_counts_as_mapping``)."""
    table = interval_table(documents, span_measure_arrays, resamples, seed)
    return None if table is None else _nest(table)


def triple_interval(intervals: Mapping[str, Any] | None, *path: str) -> dict | None:
    """The ``{"precision", "recall", "f1"}`` intervals at ``path`` of a
    :func:`span_intervals` tree (None when there is no bootstrap)."""
    if intervals is None:
        return None
    node: Any = intervals
    for part in path:
        node = node.get(part) if isinstance(node, Mapping) else None
    node = node or {}
    return {key: node.get(key) for key in PRF_KEYS}


# ---------------------------------------------------------------------------
# Bootstrap units: bounded, streamed (see the module docstring).

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
        column = self.column
        for label in tally.per_label:
            column(label)
        for labels in tally.identical_labels:
            for label in labels:
                column(label)
        row: list[float] = [0] * len(self.keys)
        n = tally.identical
        for base, t in ((0, tally.labelled), (_VIEW_COLUMNS, tally.unlabelled)):
            s_correct, g_correct = t[3] + n, t[11] + n
            row[base : base + _VIEW_COLUMNS] = (
                t[0] + n, t[8] + n, s_correct, g_correct, t[1] + n, t[9] + n, t[2] + n, t[10] + n,
                s_correct, t[4], t[5], t[6], t[7], g_correct, t[12], t[13], t[14], t[15],
            )  # fmt: skip
        labels = self.labels
        for label, t in tally.per_label.items():
            base = labels[label]
            row[base : base + _LABEL_COLUMNS] = (t[0], t[4], t[1], t[5], t[2], t[6], t[3], t[7])
        for label_set, k in tally.identical_labels.items():
            for label in label_set:
                base = labels[label]
                for i in range(base, base + _LABEL_COLUMNS):
                    row[i] += k
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
            return MatchCounts(*map(int, v[:6]), float(v[6]), float(v[7]))

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
    Memory: a ``2 * limit`` × columns matrix of doubles (exact for counts).
    """

    __slots__ = ("limit", "size", "ids", "sources", "matrix", "_pending")

    def __init__(self, limit: int = UNIT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.size = 1
        self.ids: list[Any] = []
        self.sources: list[int] = []
        self.matrix = np.zeros((2 * limit, 0))  # widened as rows get longer
        self._pending: tuple[Any, int, list[float]] | None = None  # being filled by ``add``

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
            self._pending = (unit_id, sources, total)

    def push(self, unit_id: Any, row: Sequence[float], sources: int | None = None) -> None:
        """Append the next unit (``sources`` defaults to ``size``)."""
        n = len(self.ids)
        if len(row) > self.matrix.shape[1]:
            wider = np.zeros((self.matrix.shape[0], len(row)))
            wider[:, : self.matrix.shape[1]] = self.matrix
            self.matrix = wider
        self.matrix[n, : len(row)] = row
        self.ids.append(unit_id)
        self.sources.append(self.size if sources is None else sources)
        if n + 1 >= 2 * self.limit:
            self._halve()

    def _halve(self) -> None:
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
        if len(self.ids) > self.limit:
            self._halve()
        rows = self.matrix[: len(self.ids)].tolist()
        return [Unit(*unit) for unit in zip(self.ids, self.sources, map(tuple, rows), strict=True)]

    def total(self) -> list[float]:
        """Column sums over every unit (and a unit being filled)."""
        total = self.matrix[: len(self.ids)].sum(axis=0).tolist()
        return total if self._pending is None else add_rows(total, self._pending[2])


class SpanUnits:
    """Span counts streamed into bounded bootstrap units, and the file's totals.

    Call ``add_document`` (or ``tally.add_document``: the tally is reused) for
    each document of a source unit, then ``end_source(id)``; each source
    unit's documents go into one running ``SpanTally`` until its unit is
    complete, then become one row.  The
    totals are the column sums of the unit rows (so the same with and
    without bootstrap).  Memory: O(``limit``) rows, whatever the input.
    """

    __slots__ = ("layout", "units", "tally", "kept", "_open", "_open_id")

    def __init__(self, limit: int = UNIT_LIMIT) -> None:
        self.layout = CountLayout()
        self.units = BoundedUnits(limit)
        self.tally = SpanTally()
        self.kept: list[Unit] = []
        """The final units, once ``finish`` has run."""
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
        total = add_rows(self.units.total(), self.layout.tally_row(self.tally))
        clear_tally(self.tally)
        self.kept = self.units.finish()
        return self.layout.row_counts(total)

    def mappings(self) -> list[tuple[Any, dict[str, float]]]:
        """``(id, flat counts)`` of each final unit, for the JSON and the bootstrap."""
        return [(unit.id, self.layout.row_mapping(unit.row)) for unit in self.kept]


def clear_tally(tally: SpanTally) -> None:
    """Reset ``tally`` to zero in place (cheaper than a new one per unit)."""
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
