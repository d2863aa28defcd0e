"""ReRelEM's figures: precision, recall and F of CORELs, relations and the score.

The summary's formulas (docs/spec/rerelem.md, stage 8), written once:
P = correct / identified, R = correct / golden, F = 2PR / (P + R), in
Java ``double`` arithmetic (``0/0`` is NaN, ``x/0`` ±Infinity), on the
totals :func:`harem_pipeline.stages.rerelem.scoring.summary_counts` sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


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
