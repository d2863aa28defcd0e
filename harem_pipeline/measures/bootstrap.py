"""Document-level bootstrap: confidence intervals and paired significance.

Counts first: every report keeps its sufficient statistics per document, so
resampling documents only re-adds counts, never re-reads text (sacrebleu's
split of statistics and score).  A resample draws as many documents as
there are, with replacement, from ``numpy.random.default_rng(seed)``: the
same seed gives the same intervals everywhere.

* ``interval_table`` — percentile 95 % interval of each measure.
* ``paired_table`` — for "is B really better than A?": over the documents
  both were scored on, the share of resamples in which B's measure is not
  better than A's (one-sided p-value, Koehn 2004).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harem_pipeline.measures.core import FigureFunction, scalar
from harem_pipeline.measures.resampling import BOOTSTRAP, Resampling
from harem_pipeline.measures.resampling import MAX_RESAMPLES as MAX_RESAMPLES  # its bound too

Counts = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class PairedResult:
    """Difference B − A of one measure, with its one-sided bootstrap p-value."""

    key: str
    a: float | None
    b: float | None
    difference: float | None
    p_value: float | None


# ---------------------------------------------------------------------------
# Array form, for the reports: every resample at once with numpy.
#
# A report's documents become one matrix (documents × counts); drawing
# documents with replacement is a matrix of draw counts (resamples ×
# documents), so every resample's totals are one matrix product and every
# measure is computed once over a column per count.  This is what keeps
# 1,000 resamples over a collection cheap enough for every report of a
# campaign.

ArrayMeasure = FigureFunction
"""Counts as columns (key → one value per resample) → measure → values, NaN if undefined."""

_BLOCK_CELLS = 1 << 21
"""Draw counts held in memory at once (resamples × documents), to bound memory."""


class Columns(dict):
    """Totals as columns by count name; an absent count is a column of zeros."""

    def __init__(self, names: Sequence[str], totals: np.ndarray) -> None:
        super().__init__(zip(names, totals.T, strict=True))
        self.rows = totals.shape[0]

    def __missing__(self, key: str) -> np.ndarray:
        return np.zeros(self.rows)


def count_matrix(documents: Sequence[Counts]) -> tuple[list[str], np.ndarray]:
    """The names (union of the documents' keys, sorted) and the documents × counts matrix."""
    names = sorted({key for doc in documents for key in doc})
    index = {name: i for i, name in enumerate(names)}
    rows = []
    for doc in documents:
        row = [0.0] * len(names)
        for key, value in doc.items():
            row[index[key]] = value
        rows.append(row)
    return names, np.array(rows, dtype=float).reshape(len(documents), len(names))


def resampled_totals(matrices: Sequence[np.ndarray], resampling: Resampling) -> list[np.ndarray]:
    """Each matrix's totals (resamples × counts) over the same documents drawn with replacement.

    All matrices must have the same documents in the same rows: the paired
    bootstrap draws one sample of documents and sums both systems over it.
    """
    n = matrices[0].shape[0]
    resamples, seed = resampling
    rng = np.random.default_rng(seed)
    out = [np.empty((resamples, m.shape[1])) for m in matrices]
    block = max(1, _BLOCK_CELLS // max(n, 1))
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        picks = rng.integers(0, n, size=(size, n))
        offsets = (np.arange(size) * n)[:, None]
        draws = np.bincount((picks + offsets).ravel(), minlength=size * n).reshape(size, n)
        weights = draws.astype(float)
        for target, matrix in zip(out, matrices, strict=True):
            target[start : start + size] = weighted_sum(weights, matrix)
    return out


def weighted_sum(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``weights @ matrix`` (draw counts × documents' counts), the same bits on every machine.

    BLAS orders its sums by its thread count and processor, so a product of
    fractional counts (Emir's scores) can differ in its last bits from one
    machine to the next, and with them an interval.  Whole numbers are
    summed exactly in any order (below 2**53), so the columns of whole-number
    counts keep the fast product; the other columns are summed document by
    document, in their row order, which every IEEE machine rounds alike
    (each column on its own: the split changes no bit of either part).
    """
    whole = np.all(matrix == np.trunc(matrix), axis=0)
    if whole.all():
        return weights @ matrix
    total = np.empty((weights.shape[0], matrix.shape[1]))
    total[:, whole] = weights @ matrix[:, whole]
    fractional = matrix[:, ~whole]
    summed = np.zeros((weights.shape[0], fractional.shape[1]))
    for row in range(fractional.shape[0]):
        summed += weights[:, row, None] * fractional[row]
    total[:, ~whole] = summed
    return total


def percentile_interval(values: np.ndarray) -> list[float] | None:
    """The 95 % percentile interval of the defined values (linear rule), None if none is."""
    defined = np.sort(values[~np.isnan(values)]).tolist()
    if not defined:
        return None
    return [linear_percentile(defined, 2.5), linear_percentile(defined, 97.5)]


def linear_percentile(ordered: Sequence[float], percent: float) -> float:
    """``numpy.percentile`` of sorted values, linear rule, the same operations in the same order.

    Written out because ``numpy.percentile`` loads ``numpy.ma`` (10 ms, for a
    mask check these plain arrays never need) in every process that reports
    an interval.  The index is ``(n − 1)·q``; between two neighbours ``a`` and
    ``b`` numpy interpolates from the nearer one (``a + (b − a)·g`` below
    one half, ``b − (b − a)·(1 − g)`` from it), which rounds differently.
    """
    last = len(ordered) - 1
    virtual = last * (percent / 100)
    if virtual >= last:
        return float(ordered[last])
    previous = math.floor(virtual)
    gamma = virtual - previous
    low, high = ordered[previous], ordered[previous + 1]
    step = high - low
    return float(high - step * (1 - gamma) if gamma >= 0.5 else low + step * gamma)


def interval_table(
    documents: Sequence[Counts],
    measure: ArrayMeasure,
    resampling: Resampling = BOOTSTRAP,
) -> dict[str, list[float] | None] | None:
    """Every measure's 95 % interval from a document bootstrap; None without resamples.

    A measure undefined in every resample (or with no documents) is None.
    """
    if resampling.resamples <= 0:
        return None
    return matrix_interval_table(*count_matrix(documents), measure, resampling)


def matrix_interval_table(
    names: Sequence[str],
    matrix: np.ndarray,
    measure: ArrayMeasure,
    resampling: Resampling = BOOTSTRAP,
) -> dict[str, list[float] | None]:
    """:func:`interval_table` of documents already made a matrix (:func:`count_matrix`),
    for a report that reads the same matrix for something else too."""
    if not matrix.shape[0]:
        values = measure(Columns(names, np.zeros((1, len(names)))))
        return dict.fromkeys(values)
    (totals,) = resampled_totals([matrix], resampling)
    values = measure(Columns(names, totals))
    return {key: percentile_interval(np.asarray(column, float)) for key, column in values.items()}


def paired_table(
    a: Mapping[str, Counts],
    b: Mapping[str, Counts],
    measure: ArrayMeasure,
    resampling: Resampling = BOOTSTRAP,
    lower_is_better: Collection[str] = (),
) -> tuple[list[PairedResult], int]:
    """B − A and its paired bootstrap p-value, for every measure ``measure`` returns.

    A and B are measured over the documents both have; the p-value is the
    share of resamples, among those where both are defined, in which B is
    not better than A: not above it, or for the keys in ``lower_is_better``
    (error rates) not below it.  None with no such resample (none drawn).
    """
    shared = sorted(set(a) & set(b))
    names, matrix = count_matrix([a[d] for d in shared] + [b[d] for d in shared])
    n = len(shared)
    rows_a, rows_b = matrix[:n], matrix[n:]
    full_a = measure(Columns(names, rows_a.sum(axis=0, keepdims=True)))
    full_b = measure(Columns(names, rows_b.sum(axis=0, keepdims=True)))
    if n and resampling.resamples > 0:
        totals_a, totals_b = resampled_totals([rows_a, rows_b], resampling)
        sampled_a = measure(Columns(names, totals_a))
        sampled_b = measure(Columns(names, totals_b))
    else:
        sampled_a = sampled_b = {}
    results = []
    for key in full_a:
        va, vb = scalar(full_a[key]), scalar(full_b[key])
        difference = None if va is None or vb is None else vb - va
        p_value = None
        if key in sampled_a:
            col_a = np.asarray(sampled_a[key], float)
            col_b = np.asarray(sampled_b[key], float)
            defined = ~(np.isnan(col_a) | np.isnan(col_b))
            if defined.any():
                va_s, vb_s = col_a[defined], col_b[defined]
                worse = vb_s >= va_s if key in lower_is_better else vb_s <= va_s
                p_value = float(np.count_nonzero(worse) / defined.sum())
        results.append(PairedResult(key, va, vb, difference, p_value))
    return results, n
