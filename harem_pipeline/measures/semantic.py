"""The Ida figures from semantic counts: one formula for a report row and for the bootstrap.

:func:`semantic_figures` takes count name → value, a float for one row or a
numpy array of resampled totals, and returns every figure of the Java
``GlobalSemanticEvaluator`` (identification and classification) computed
with the Java's operations in the Java's order, in IEEE doubles: a zero
denominator gives NaN or Infinity exactly as the Java prints them.

Counts (what :mod:`harem_pipeline.stages.ida` produces):

``total_cd``    Σ PALT over non-spurious records (the last entity's PALT)
``identified``  Σ PALT over aligned system entities
``spurious``    number of system entities on spurious records (not weighted)
``missing``     Σ PALT over ``[null]`` records
``max_cd``      Σ MaxCSC_CD·PALT over non-spurious records
``max_system``  Σ MaxCSC_S·PALT over aligned system entities
``system_csc``  Σ CSC·Peso·PALT over aligned system entities

and, for a per-category row, where the system side and the gold side of a
pair may fall under different categories, ``credit_cd`` (Σ PALT of the
entities aligned to the category's gold entities) and ``csc_cd`` (their Σ
CSC·Peso·PALT), the numerators of the recalls.  Without them the totals'
numerators are used, as in the Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from harem_pipeline.measures.bootstrap import BOOTSTRAP, interval_table
from harem_pipeline.measures.core import ieee_divide
from harem_pipeline.measures.resampling import Resampling

COUNT_NAMES = (
    "total_cd",
    "identified",
    "spurious",
    "missing",
    "max_cd",
    "max_system",
    "system_csc",
)

IDENTIFICATION_KEYS = (
    "total_cd",
    "total_sistema",
    "correctas",
    "espurios",
    "em_falta",
    "precisao",
    "abrangencia",
    "medida_f",
    "sobre_geracao",
    "sub_geracao",
)
"""The identification block's figures, in the Java's order."""

CLASSIFICATION_KEYS = (
    "maximo_cd",
    "maximo_sistema",
    "valor_sistema",
    "precisao",
    "abrangencia",
    "medida_f",
)
"""The classification block's figures, in the Java's order."""

CLASSIFICATION_PREFIX = "classificacao_"
"""Prefix of the classification figures in the flat mapping :func:`semantic_figures` returns."""


def _value(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def semantic_figures(counts: Mapping[str, Any]) -> dict[str, Any]:
    """Every Ida figure; keys: :data:`IDENTIFICATION_KEYS`, then the classification
    ones prefixed with :data:`CLASSIFICATION_PREFIX`.

    A value is a numpy float64 scalar for scalar counts, an array for arrays.
    """
    total_cd = _value(counts["total_cd"])
    identified = _value(counts["identified"])
    spurious = _value(counts["spurious"])
    missing = _value(counts["missing"])
    max_cd = _value(counts["max_cd"])
    max_system = _value(counts["max_system"])
    system_csc = _value(counts["system_csc"])
    with np.errstate(all="ignore"):
        correct = identified - spurious
        credit_cd = _value(counts["credit_cd"]) if "credit_cd" in counts else correct
        csc_cd = _value(counts["csc_cd"]) if "csc_cd" in counts else system_csc
        precision = ieee_divide(correct, identified)
        recall = ieee_divide(credit_cd, total_cd)
        f_measure = ieee_divide(2 * precision * recall, precision + recall)
        class_precision = ieee_divide(system_csc, max_system)
        class_recall = ieee_divide(csc_cd, max_cd)
        class_f = ieee_divide(2 * class_precision * class_recall, class_precision + class_recall)
        figures = {
            "total_cd": total_cd,
            "total_sistema": identified,
            "correctas": correct,
            "espurios": spurious,
            "em_falta": missing,
            "precisao": precision,
            "abrangencia": recall,
            "medida_f": f_measure,
            "sobre_geracao": ieee_divide(spurious, identified),
            "sub_geracao": ieee_divide(missing, total_cd),
        }
        classification = {
            "maximo_cd": max_cd,
            "maximo_sistema": max_system,
            "valor_sistema": system_csc,
            "precisao": class_precision,
            "abrangencia": class_recall,
            "medida_f": class_f,
        }
    figures.update({CLASSIFICATION_PREFIX + key: value for key, value in classification.items()})
    return {key: value[()] if value.ndim == 0 else value for key, value in figures.items()}


INTERVAL_KEYS = (
    "precisao",
    "abrangencia",
    "medida_f",
    CLASSIFICATION_PREFIX + "precisao",
    CLASSIFICATION_PREFIX + "abrangencia",
    CLASSIFICATION_PREFIX + "medida_f",
)
"""The figures given a 95 % bootstrap interval."""


def interval_figures(columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The P/R/F of both blocks over resampled count columns (what the bootstrap measures)."""
    figures = semantic_figures(columns)
    return {key: np.asarray(figures[key], dtype=float) for key in INTERVAL_KEYS}


# ---------------------------------------------------------------------------
# First HAREM (2005) views

FIRST_HAREM_COUNT_NAMES = (
    "total_cd",
    "identified",
    "category_right",
    "flat_right",
    "combined_score",
    "combined_max_system",
    "combined_max_cd",
)
FIRST_HAREM_VIEWS = ("categorias", "tipos", "plana", "combinada")


def _prf(numerator: np.ndarray, system: np.ndarray, gold: np.ndarray) -> dict[str, Any]:
    precision = ieee_divide(numerator, system)
    recall = ieee_divide(numerator, gold)
    f_measure = ieee_divide(2 * precision * recall, precision + recall)
    return {"precisao": precision, "abrangencia": recall, "medida_f": f_measure}


def first_harem_figures(counts: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The 2005 views (see :mod:`harem_pipeline.stages.ida`): P, R and F of each.

    ``categorias``: right category over identified / over the CD;
    ``tipos``: right (category, type) among the pairs with the right category
    (P = R = F, an accuracy); ``plana``: right (category, type) over
    identified / over the CD; ``combinada``: the 2005 score (0, 1, 2 − 1/n)
    over its maximum on the system side / on the CD side.
    """
    c = {name: _value(counts[name]) for name in FIRST_HAREM_COUNT_NAMES}
    with np.errstate(all="ignore"):
        views = {
            "categorias": _prf(c["category_right"], c["identified"], c["total_cd"]),
            "tipos": _prf(c["flat_right"], c["category_right"], c["category_right"]),
            "plana": _prf(c["flat_right"], c["identified"], c["total_cd"]),
            "combinada": _prf(c["combined_score"], c["combined_max_system"], c["combined_max_cd"]),
        }
    return {
        view: {key: value[()] if value.ndim == 0 else value for key, value in figures.items()}
        for view, figures in views.items()
    }


def semantic_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resampling: Resampling = BOOTSTRAP,
) -> dict[str, list[float] | None] | None:
    """95 % document-bootstrap intervals of both blocks' P, R and F (None without resamples).

    ``documents`` as :func:`harem_pipeline.stages.tally.document_rows` gives them.
    """
    table = interval_table(list(documents.values()), interval_figures, resampling)
    return None if table is None else {key: table[key] for key in INTERVAL_KEYS}
