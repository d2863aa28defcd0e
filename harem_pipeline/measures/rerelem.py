"""ReRelEM's figures: precision, recall and F of CORELs, relations and the score.

The summary's formulas (docs/spec/rerelem.md, stage 8), written once:
P = correct / identified, R = correct / golden, F = 2PR / (P + R), in
Java ``double`` arithmetic (``0/0`` is NaN, ``x/0`` ±Infinity), on the
totals :func:`harem_pipeline.stages.rerelem.scoring.summary_counts` sums;
their 95 % intervals the same formulas on every resample of the documents
(:func:`rerelem_intervals`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from harem_pipeline.measures.bootstrap import BOOTSTRAP, interval_table
from harem_pipeline.measures.core import Columns, harmonic, ratio
from harem_pipeline.measures.resampling import Resampling


def java_divide(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` as Java doubles divide: NaN for 0/0, ±Infinity for x/0."""
    if denominator == 0:
        if numerator == 0 or math.isnan(numerator):
            return math.nan
        sign = math.copysign(1.0, numerator) * math.copysign(1.0, denominator)
        return math.inf if sign > 0 else -math.inf
    return numerator / denominator


@dataclass(frozen=True, slots=True)
class Block:
    """One block of the summary: golden, identified, correct, spurious, missing; P, R, F."""

    gold: float
    identified: float
    correct: float
    spurious: int
    missing: int
    precision: float
    recall: float
    f: float


def block(gold: float, identified: float, correct: float, spurious: int, missing: int) -> Block:
    """A block's figures from its counts (``GlobalRelationsEvaluatorM2``)."""
    precision = java_divide(float(correct), float(identified))
    recall = java_divide(float(correct), float(gold))
    f = java_divide(2 * precision * recall, precision + recall)
    return Block(gold, identified, correct, spurious, missing, precision, recall, f)


@dataclass(frozen=True, slots=True)
class RerelemFigures:
    """The three blocks: CORELs, relations (the official figure), the ReRelEM score."""

    corels: Block
    relations: Block
    score: Block


def rerelem_figures(
    corels_gold: int,
    corels_system: int,
    corels_correct: int,
    rels_gold: int,
    rels_system: int,
    rels_correct: int,
    rels_spurious: int,
    rels_missing: int,
    max_gold: float,
    max_system: float,
    score: float,
) -> RerelemFigures:
    """Every figure of a ``.resumo`` from the summed counts."""
    return RerelemFigures(
        block(
            corels_gold,
            corels_system,
            corels_correct,
            corels_system - corels_correct,
            corels_gold - corels_correct,
        ),
        block(rels_gold, rels_system, rels_correct, rels_spurious, rels_missing),
        block(max_gold, max_system, score, 0, 0),
    )


# ---------------------------------------------------------------------------
# Intervals: the same blocks on every resample of the documents


def rerelem_interval_figures(c: Columns) -> dict[str, np.ndarray]:
    """Each block's P, R, F from columns of per-document counts (``.resumo.json``'s
    ``documents``), the summary's formulas: ``relations_f`` is the official figure.

    The score block's per-document terms are the summary's: CD 1.0 per golden
    relation, maximum 1.0 per system relation plus 0.5 per extra COREL, score
    +1.0 per correct relation, +0.5 per correct COREL, −0.2 per spurious one.
    """
    score_max = c["rels_system"] + 0.5 * (c["corels_system"] - c["rels_system"])
    score = c["correct"] + 0.5 * c["corel_correct"] - 0.2 * c["spurious"]
    blocks = {
        "corels": (c["corels_correct"], c["corels_system"], c["corels_gold"]),
        "relations": (c["correct"], c["rels_system"], c["rels_gold"]),
        "score": (score, score_max, c["rels_gold"]),
    }
    out: dict[str, np.ndarray] = {}
    for name, (correct, identified, gold) in blocks.items():
        precision = ratio(correct, identified)
        recall = ratio(correct, gold)
        out[f"{name}_precision"] = precision
        out[f"{name}_recall"] = recall
        out[f"{name}_f"] = harmonic(precision, recall, math.nan)
    return out


def rerelem_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resampling: Resampling = BOOTSTRAP,
) -> dict[str, dict[str, list[float] | None]] | None:
    """``{"relations": {"precision": [lo, hi], "recall": …, "f": …}, "corels": …, "score": …}``
    from a document bootstrap; None without resamples; an interval is None when
    the figure is undefined in every resample (no relation at all)."""
    table = interval_table(list(documents.values()), rerelem_interval_figures, resampling)
    if table is None:
        return None
    return {
        block: {key: table[f"{block}_{key}"] for key in ("precision", "recall", "f")}
        for block in ("corels", "relations", "score")
    }
