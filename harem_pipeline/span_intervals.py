"""Span counts as flat mappings, and the document-bootstrap intervals of every P/R/F triple.

A report keeps each document's ``SpanCounts`` as a flat mapping (what its
JSON's ``documents`` object holds and what :mod:`harem_pipeline.bootstrap`
resamples).  Keys are ``<view>.<count>`` for the two views and
``per_label.<label>.<count>`` per label, with the field names of
``MatchCounts`` and ``CategoryCounts``; zero counts are left out.

The measures are recomputed over all resamples at once from those columns,
with the formulas of :mod:`harem_pipeline.spans` (a test checks them against
``compute_measures``).  Measure keys follow the JSON report's nesting:
``labelled.exact.precision``, ``unlabelled.semeval.partial.f1``,
``per_label.NP.overlap.recall``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from harem_pipeline.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    harmonic_array,
    interval_table,
    ratio_array,
)
from harem_pipeline.spans import CategoryCounts, MatchCounts, SpanCounts, SpanTally, ViewCounts

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


def add_mappings(a: Mapping[str, float], b: Mapping[str, float]) -> dict[str, float]:
    """The counts of both (a document id seen twice adds up)."""
    total = dict(a)
    for key, value in b.items():
        total[key] = total.get(key, 0) + value
    return total


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
