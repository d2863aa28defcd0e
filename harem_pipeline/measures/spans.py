"""Span measures from counts: exact, overlap, intersection, SemEval-2013, per label.

:func:`span_figures` is the only place the formulas are written; a
report's measures are that function on its one count row
(:func:`compute_measures`), its intervals the same function on every
resample (:func:`mapping_intervals`).  A ratio with a zero denominator is
undefined (``None``), never 0 or 1; F is 0 when P and R are both 0.
The counts are :mod:`harem_pipeline.stages.spans`'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from harem_pipeline.measures.bootstrap import Columns, interval_table, matrix_interval_table
from harem_pipeline.measures.core import Columns as CountColumns
from harem_pipeline.measures.core import RowColumns, harmonic, ratio, scalar
from harem_pipeline.measures.resampling import BOOTSTRAP, Resampling
from harem_pipeline.stages.span_units import UnitCounts
from harem_pipeline.stages.spans import (
    _CATEGORY_FIELDS,
    MATCH_ROWS,
    PER_LABEL,
    PRF_KEYS,
    SEMEVAL_ROWS,
    VIEWS,
    CategoryCounts,
    CountedSpans,
    Repairs,
    SpanCounts,
    SpanInput,
    span_counts_as_mapping,
)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and their harmonic mean; ``None`` where undefined."""

    precision: float | None
    recall: float | None
    f1: float | None


@dataclass(frozen=True, slots=True)
class LabelMeasures:
    """Exact, overlap and intersection P/R/F of one label (or one view)."""

    exact: PRF
    overlap: PRF
    intersection: PRF


@dataclass(frozen=True, slots=True)
class SemEvalMeasures:
    """SemEval-2013 task 9.1 measures from the error categories."""

    strict: PRF
    exact: PRF
    partial: PRF
    type: PRF


@dataclass(frozen=True, slots=True)
class ViewMeasures:
    """All measures of one view, with the category counts they come from."""

    exact: PRF
    overlap: PRF
    intersection: PRF
    semeval: SemEvalMeasures
    categories: CategoryCounts


@dataclass(frozen=True, slots=True)
class SpanMeasures:
    """Labelled and unlabelled measures overall, labelled ones per label, and their
    macro averages (the mean over labels of each per-label P, R and F)."""

    labelled: ViewMeasures
    unlabelled: ViewMeasures
    per_label: tuple[tuple[str, LabelMeasures], ...]
    macro: LabelMeasures | None = None


def _labels(keys: Sequence[str]) -> list[str]:
    """The labels of ``per_label.<label>.<count>`` keys (a label may contain dots)."""
    prefix = PER_LABEL + "."
    return sorted({k[len(prefix) :].rpartition(".")[0] for k in keys if k.startswith(prefix)})


def _prf(
    out: dict[str, Any],
    path: str,
    sys_hits: ArrayLike,
    system: ArrayLike,
    gold_hits: ArrayLike,
    gold: ArrayLike,
) -> None:
    precision = ratio(sys_hits, system)
    recall = ratio(gold_hits, gold)
    out[f"{path}.precision"] = precision
    out[f"{path}.recall"] = recall
    out[f"{path}.f1"] = harmonic(precision, recall, 0.0)


def span_figures(columns: CountColumns) -> dict[str, np.ndarray]:
    """Every P/R/F of the span report from count columns (NaN where undefined).

    Keys follow the JSON report's nesting: ``labelled.exact.precision``,
    ``unlabelled.semeval.partial.f1``, ``per_label.NP.overlap.recall``.
    SemEval-2013: strict counts ``correct``; exact ``correct`` and
    ``label_error``; partial adds half of ``boundary_error`` and
    ``label_boundary_error`` to exact; type counts ``correct`` and
    ``boundary_error``.  Precision over system spans, recall over gold spans.
    """
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
    labels = _labels(list(columns))
    for label in labels:

        def m(name: str, label: str = label) -> np.ndarray:
            return columns[f"{PER_LABEL}.{label}.{name}"]

        for row in MATCH_ROWS:
            path = f"{PER_LABEL}.{label}.{row}"
            _prf(out, path, m(f"{row}_system"), m("system"), m(f"{row}_gold"), m("gold"))
    for row in MATCH_ROWS:
        for key in PRF_KEYS:
            values = [out[f"{PER_LABEL}.{label}.{row}.{key}"] for label in labels]
            out[f"{MACRO}.{row}.{key}"] = _defined_mean(values, columns)
    return out


MACRO = "macro"
"""Key of the macro averages: per measure, the mean of the per-label P, R and F."""


def _defined_mean(values: Sequence[np.ndarray], columns: CountColumns) -> np.ndarray:
    """Row by row, the mean of the values that are defined; NaN where none is.

    A label whose P (say) is undefined -- it has no system spans -- is left
    out of the macro P rather than counted as 0 or 1.
    """
    if not values:
        return np.full(np.shape(columns["labelled.gold"]), np.nan)
    stacked = np.stack([np.asarray(v, dtype=float) for v in values])
    defined = ~np.isnan(stacked)
    count = defined.sum(axis=0)
    total = np.where(defined, stacked, 0.0).sum(axis=0)
    return ratio(total, count)


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
    documents: Sequence[SpanCounts], resampling: Resampling = BOOTSTRAP
) -> dict[str, Any] | None:
    """The 95 % interval of every P/R/F triple from a document bootstrap of ``documents``.

    Shaped like the measures JSON: ``{"labelled": {"exact": {"precision":
    [lo, hi], "recall": …, "f1": …}, …, "semeval": {"strict": …}},
    "unlabelled": …, "per_label": {label: {"exact": …}}}``; an interval is
    None where the measure is undefined in every resample.  None as a whole
    without resamples (no bootstrap).
    """
    mappings = [span_counts_as_mapping(doc) for doc in documents]
    return mapping_intervals(mappings, resampling)


def mapping_intervals(
    documents: Sequence[Mapping[str, float]], resampling: Resampling = BOOTSTRAP
) -> dict[str, Any] | None:
    """:func:`span_intervals` of documents already flattened (``span_counts_as_mapping``)."""
    table = interval_table(documents, span_figures, resampling)
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


def _prf_at(figures: Mapping[str, np.ndarray], path: str) -> PRF:
    return PRF(*(scalar(figures[f"{path}.{key}"]) for key in PRF_KEYS))


def compute_measures(counts: SpanCounts) -> SpanMeasures:
    """All span measures from counts alone: :func:`span_figures` on one count row."""
    figures = span_figures(RowColumns(span_counts_as_mapping(counts)))

    def view(name: str, categories: CategoryCounts) -> ViewMeasures:
        rows = {row: _prf_at(figures, f"{name}.{row}") for row in MATCH_ROWS}
        semeval = SemEvalMeasures(
            *(_prf_at(figures, f"{name}.semeval.{row}") for row in SEMEVAL_ROWS)
        )
        return ViewMeasures(**rows, semeval=semeval, categories=categories)

    per_label = tuple(
        (
            label,
            LabelMeasures(*(_prf_at(figures, f"{PER_LABEL}.{label}.{row}") for row in MATCH_ROWS)),
        )
        for label, _ in counts.per_label
    )
    macro = LabelMeasures(*(_prf_at(figures, f"{MACRO}.{row}") for row in MATCH_ROWS))
    return SpanMeasures(
        view("labelled", counts.labelled.categories),
        view("unlabelled", counts.unlabelled.categories),
        per_label,
        macro,
    )


@dataclass(frozen=True, slots=True)
class UnitFigures:
    """Every measure of each bootstrap unit on its own (the JSON's ``per_document``).

    ``values[u]`` holds unit ``u``'s figures in ``span_figures``' key order
    (NaN: undefined); ``plan`` says where each P/R/F triple goes:
    ``(path, row, first column, label or None)``.  A unit's object
    (:meth:`unit`) nests the triples like the report's measures, undefined
    as None, leaving out the labels with no span in that unit.
    """

    names: tuple[str, ...]
    values: list[list[float]]
    plan: tuple[tuple[tuple[str, ...], str, int, str | None], ...]
    present: dict[str, list[bool]]
    """Whether each unit has a span of a label, on either side."""

    @classmethod
    def none(cls) -> UnitFigures:
        """No units (a report that kept none)."""
        return cls((), [], (), {})

    def __len__(self) -> int:
        return len(self.names)

    def items(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(unit name, its object)`` in unit order."""
        for u, name in enumerate(self.names):
            yield name, self.unit(u, [None if v != v else v for v in self.values[u]])

    def unit(self, u: int, values: Sequence[Any]) -> dict[str, Any]:
        """Unit ``u``'s object with ``values`` in its figures' places (one rule of its shape,
        whatever the values: the JSON text is written from it too)."""
        out: dict[str, Any] = {}
        present = self.present
        for path, row, i, label in self.plan:
            if label is not None and not present[label][u]:
                continue
            node = out
            for part in path:
                node = node.setdefault(part, {})
            node[row] = {"precision": values[i], "recall": values[i + 1], "f1": values[i + 2]}
        return out


def unit_measures(units: Sequence[str], names: list[str], matrix: np.ndarray) -> UnitFigures:
    """The :class:`UnitFigures` of bootstrap units named ``units``: one :func:`span_figures`
    call over a column per count (one value per unit), the counts as
    :func:`~harem_pipeline.measures.bootstrap.count_matrix` makes them (``names``,
    ``matrix``).
    """
    if not units:
        return UnitFigures.none()
    figures = span_figures(Columns(names, matrix))
    keys = list(figures)
    table = np.stack([np.asarray(figures[k], dtype=float) for k in keys], axis=1)
    index = {name: i for i, name in enumerate(names)}
    plan = []  # (parent path, row name, first column, label or None), one per P/R/F triple
    for i in range(0, len(keys), 3):
        parent, _, row = keys[i].rpartition(".")[0].rpartition(".")
        label = None
        if parent.startswith(PER_LABEL + "."):
            label = parent[len(PER_LABEL) + 1 :]
            path: tuple[str, ...] = (PER_LABEL, label)
        else:
            path = tuple(parent.split("."))
        plan.append((path, row, i, label))
    present = {
        label: _spans_column(matrix, index, label)
        for label in {label for *_, label in plan if label is not None}
    }
    return UnitFigures(tuple(units), table.tolist(), tuple(plan), present)


def _spans_column(matrix: np.ndarray, index: Mapping[str, int], label: str) -> list[bool]:
    """Whether each unit has a span of ``label`` on either side."""
    total = np.zeros(matrix.shape[0])
    for side in ("gold", "system"):
        column = index.get(f"{PER_LABEL}.{label}.{side}")
        if column is not None:
            total = total + matrix[:, column]
    return (total > 0).tolist()


def no_intervals() -> dict | None:
    """The intervals of a report without a bootstrap."""
    return None


@dataclass(frozen=True, slots=True)
class MeasuresReport(SpanInput):
    """Everything a span-measures report shows about one input: counts, measures, signature."""

    measures: SpanMeasures
    repairs: Repairs
    signature: str
    document_counts: UnitCounts = field(default_factory=UnitCounts.none)
    """Each bootstrap unit's counts, ``CountedSpans.units`` (none when not kept)."""
    interval_table: Callable[[], dict | None] = no_intervals
    """What gives the 95 % bootstrap intervals (see :attr:`intervals`): the bootstrap
    may still be running in another process while the rest is written."""
    sentences: int | None = None
    """A CoNLL file's sentences (``CountedSpans.sentences``); None for other formats."""
    token_accuracy: float | None = None
    """Tokens whose two tags agree, over all tokens (``CountedSpans.equal_tags``)."""
    errors: Any = None
    """The error listing and confusion (``CountedSpans.errors``), None when not collected."""
    per_document: UnitFigures = field(default_factory=UnitFigures.none)
    """Every measure of each bootstrap unit (:func:`unit_measures`), empty when not kept."""

    @property
    def intervals(self) -> dict | None:
        """95 % bootstrap intervals (:func:`mapping_intervals`); None when not computed.
        Waits for the bootstrap when it runs apart."""
        return self.interval_table()


Apart = Callable[[Callable[[], T]], Callable[[], T]]
"""How a costly job runs: ``apart(job)`` starts it and returns what waits for its value."""


def at_once(job: Callable[[], T]) -> Callable[[], T]:
    """Run ``job`` now; its value is then at hand."""
    value = job()
    return lambda: value


def span_report(
    counted: CountedSpans,
    signature: str,
    resampling: Resampling = BOOTSTRAP,
    apart: Apart = at_once,
) -> MeasuresReport:
    """The measures of counted spans, with intervals from their units (none without units).

    The bootstrap runs by ``apart`` (at once, or in another process while
    the report is written: its value is asked for last).
    """
    table = no_intervals
    per_document = UnitFigures.none()
    if counted.units is not None:
        names, matrix = counted.units.matrix()
        if resampling.resamples > 0:
            table = apart(partial(_unit_intervals, names, matrix, resampling))
        per_document = unit_measures(counted.units.names, names, matrix)
    accuracy = scalar(ratio(counted.equal_tags, counted.tokens))
    return MeasuresReport(
        counted.path,
        counted.format,
        counted.scheme,
        counted.documents,
        counted.tokens,
        counted.counts,
        compute_measures(counted.counts),
        counted.repairs,
        signature,
        counted.units or UnitCounts.none(),
        table,
        counted.sentences,
        accuracy,
        counted.errors,
        per_document,
    )


def _unit_intervals(names: list[str], matrix: np.ndarray, resampling: Resampling) -> dict[str, Any]:
    """The intervals of units made a matrix (:func:`count_matrix`), nested as the report's."""
    return _nest(matrix_interval_table(names, matrix, span_figures, resampling))
