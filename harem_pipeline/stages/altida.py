"""AltinaID: keep, for every ``<ALT>`` block, the alternative that suits the system best.

The golden collection may offer alternative segmentations of a passage
(``<ALT>`` with ``<ALT1>…</ALT1>``, ``<ALT2>…``).  AvalIDa evaluates the
system against all of them; AltinaID keeps one per block, chosen as the
2010 Java ``IdentificationAltAlignmentSelector`` ranks them
(``IdentificationEvaluatedALTAlignment.compareTo``):

* over the alternative's records, with ``C`` Correcto items, ``Σw`` the
  partial weights, ``Y`` the identified system entities (every evaluation
  item but ``Em_Falta``) and ``G`` the records whose gold side is not
  spurious: ``P = (1 + C + Σw)/(1 + Y)``, ``R = (1 + C + Σw)/(1 + G)``,
  ``F = 2PR/(P + R)`` (add-one smoothing, so an empty alternative is
  comparable); the highest F wins;
* ties: the lowest ``(Em_Falta + Espurio + Σ(1−w))/(1 + items)``
  (every evaluation item counts in ``items``); then more records; then the
  later alternative (the Java sorts stably and takes the last).

``Y`` counts evaluation items, not distinct system entities: the Java's
duplicate finder never matches (see :mod:`harem_pipeline.stages.ida2id`),
so we count as it does.

Output: the input with each block replaced by the lines of its chosen
alternative, preceded by the comment line ``# ALT escolhida: k de n``
(as AltinaMor writes it).  Lines between ``</ALTn>`` and the next
``<ALTn+1>`` or ``</ALT>`` belong to no alternative and are dropped, as the
Java drops them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from harem_pipeline.formats.alinhado import (
    EVAL_CORRECT,
    EVAL_MISSING,
    EVAL_SPURIOUS,
    PARTIAL_KINDS,
    AltBlockLines,
    Evaluation,
    Line,
    Record,
    alt_choice_header,
    evaluation_of,
    group_alt_blocks,
)


@dataclass(frozen=True, slots=True)
class AlternativeScore:
    """The smoothed sums one alternative is ranked by, accumulated in file order.

    ``credit`` starts at 1 and ``error`` at 0, ``identified``, ``gold`` and
    ``items`` count without the smoothing one (added in the properties).
    """

    credit: float
    identified: int
    gold: int
    error: float
    items: int
    records: int

    @property
    def precision(self) -> float:
        """``(1 + C + Σw)/(1 + Y)``."""
        return self.credit / (1 + self.identified)

    @property
    def recall(self) -> float:
        """``(1 + C + Σw)/(1 + G)``."""
        return self.credit / (1 + self.gold)

    @property
    def f_measure(self) -> float:
        """Harmonic mean of the smoothed P and R (both positive, so always defined)."""
        precision, recall = self.precision, self.recall
        return (2 * precision * recall) / (precision + recall)

    @property
    def combined_error(self) -> float:
        """``(Em_Falta + Espurio + Σ(1−w))/(1 + items)``."""
        return self.error / (1 + self.items)

    def rank_key(self) -> tuple[float, float, int]:
        """Larger is better: F, then lower error, then more records."""
        return (self.f_measure, -self.combined_error, self.records)


def score_alternative(records: Iterable[Record], path: str | None = None) -> AlternativeScore:
    """Sum one alternative's evaluated records into its :class:`AlternativeScore`."""
    return score_evaluations(_evaluated(records, path))


def _evaluated(
    records: Iterable[Record], path: str | None
) -> Iterator[tuple[bool, tuple[Evaluation, ...]]]:
    """``(gold side spurious, evaluation items)`` of each record; one without them is an error."""
    for record in records:
        evaluation = evaluation_of(record, path, "an evaluated record (run harem avalida first)")
        yield record.is_spurious, evaluation


def score_evaluations(
    records: Iterable[tuple[bool, Sequence[Evaluation]]],
) -> AlternativeScore:
    """The :class:`AlternativeScore` of records given as ``(gold side spurious, items)``.

    The one place the sums are made, in file order (the floating-point sums,
    and the ties they decide, are the Java's only in that order).
    """
    credit, error = 1.0, 0.0
    identified = gold = items = count = 0
    for spurious, evaluation in records:
        count += 1
        if not spurious:
            gold += 1
        for item in evaluation:
            items += 1
            if item.kind in (EVAL_MISSING, EVAL_SPURIOUS):
                error += 1
            elif item.kind in PARTIAL_KINDS:
                error += item.complement or 0.0
            if item.kind == EVAL_MISSING:
                continue
            identified += 1
            if item.kind == EVAL_CORRECT:
                credit += 1
            elif item.kind in PARTIAL_KINDS:
                credit += item.weight or 0.0
    return AlternativeScore(credit, identified, gold, error, items, count)


def choose_alternative(scores: Sequence[AlternativeScore]) -> int:
    """Index of the best alternative; on a full tie the later one."""
    best = 0
    for index, score in enumerate(scores):
        if score.rank_key() >= scores[best].rank_key():
            best = index
    return best


def select_alternatives(lines: Iterable[Line], path: str | None = None) -> Iterator[Line]:
    """The lines with every ``<ALT>`` block replaced by its chosen alternative, lazily."""
    for item in group_alt_blocks(lines, path):
        if not isinstance(item, AltBlockLines):
            yield item
        elif item.alternatives:
            scores = [
                score_alternative((x for x in lines if isinstance(x, Record)), path)
                for lines in item.alternatives
            ]
            best = choose_alternative(scores)
            yield alt_choice_header(best + 1, len(scores))
            yield from item.alternatives[best]
