"""The arithmetic every measure family shares, for one count row and for arrays alike.

Each family has ONE function from count columns to figures (as sacrebleu
reuses one score function for every resample).  Its columns are numpy
arrays: one value each for a report's own figures (:func:`figures_of_row`),
one value per resample for the bootstrap.  Only IEEE double operations are
used, in the order the original programs used them, so a one-value column
gives the same bits as the scalar arithmetic the reports always printed.

Undefined (a zero denominator) is NaN in the arrays and ``None`` in a
report's figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import ArrayLike

Columns = Mapping[str, np.ndarray]
"""Count name → one value per row (a report: one row; a bootstrap: one per resample)."""

FigureFunction = Callable[[Columns], Mapping[str, np.ndarray]]
"""A family's formula: count columns → figure columns, NaN where undefined."""


def ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray:
    """``numerator / denominator`` per row, NaN (undefined) where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    result = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    defined = denominator != 0
    np.divide(numerator, denominator, out=result, where=defined)
    return result


def ieee_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Division as Java's ``double`` arithmetic: ``x/0`` is ±Infinity, ``0/0`` NaN.

    The ``.ida`` reports print what the Java printed for an empty block
    (``NaN``, ``Infinity``), so the semantic family divides this way.
    """
    with np.errstate(all="ignore"):
        return np.true_divide(np.asarray(numerator, float), np.asarray(denominator, float))


def harmonic(precision: np.ndarray, recall: np.ndarray, zero: float) -> np.ndarray:
    """F = 2PR/(P+R) per row: NaN where P or R is; ``zero`` where P + R = 0.

    ``zero`` is 0.0 for the span and morphology measures (the limit), NaN for
    the identification and classification measures (the Java prints NaN).
    """
    precision = np.asarray(precision, dtype=float)
    recall = np.asarray(recall, dtype=float)
    total = precision + recall
    result = np.full(total.shape, np.nan)
    positive = total > 0
    np.divide(2 * precision * recall, total, out=result, where=positive)
    result[total == 0] = zero
    return result


class RowColumns(dict):
    """Counts as one-value columns; a count that is absent is a column of zeros."""

    def __init__(self, counts: Mapping[str, float]) -> None:
        super().__init__((key, np.array([value], dtype=float)) for key, value in counts.items())

    def __missing__(self, key: str) -> np.ndarray:
        return np.zeros(1)


def scalar(column: np.ndarray) -> float | None:
    """The value of a one-value figure column; ``None`` when undefined (NaN)."""
    value = float(np.asarray(column, dtype=float).reshape(-1)[0])
    return None if math.isnan(value) else value


def figures_of_row(figures: FigureFunction, counts: Mapping[str, float]) -> dict[str, float | None]:
    """A family's figures for one count row: the report's own numbers."""
    return {key: scalar(column) for key, column in figures(RowColumns(counts)).items()}
