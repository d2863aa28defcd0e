"""ALTina (relaxed ALT): ``.emir`` → ``.emir.altrel``, the best alternative of every ALT block.

The 2010 Java ``SemanticAltAlignmentSelector`` (``AltAlignmentSelector`` +
``SemanticEvaluatedALTAlignment.compareTo``).  Per alternative, over its
records and their Emir items:

* ``P = (1 + ΣCSC·Peso) / (1 + ΣMaxCSC_S)``, ``R = (1 + ΣCSC·Peso) / (1 + ΣMaxCSC_CD)``,
  ``F = 2PR/(R + P)``; highest F wins, ties go to the higher ``ΣCSC·Peso``,
  then to more records, then to the later alternative (the Java sorts
  stably and takes the last);
* the kept alternative's ``PALT(w)`` becomes ``PALT(n·w)`` (``n``
  alternatives), written ``PALT(1.0))``: the Java keeps the old closing
  parenthesis;
* the spurious records after the last ``</ALTn>`` are dropped; lines outside
  blocks are copied.

Quirk kept: the Java recomputes the maxima with
``AttributesEvaluation.getMaximumCSC``, whose weights are static fields that
no evaluation has set in this program, so every maximum is 0 and both sums
stay 1: alternatives are in fact ranked by ``1 + ΣCSC·Peso``.  We rank as the
Java does (the reference ``.altrel`` files need it).

The states are those of :mod:`harem_pipeline.stages.alts`: outside the
states the Java expects a line is copied (an ALT block without
alternatives, as the organiser writes when every alternative was empty, is
copied whole, and so is everything up to the next ``<ALTn>``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_SEMANTIC,
    Line,
    Record,
    format_line,
    parse_evaluation,
)
from harem_pipeline.formats.semantic import (
    AltBlockReader,
    AltState,
    RecordKey,
    SemanticRecord,
    SemanticScore,
    at_line,
    emir_scores,
    ended_outside_alt,
    not_a_record_in_alt,
    scored_tail,
)
from harem_pipeline.stages.emir import headed, java_line_end
from harem_pipeline.text.memo import keyed_cache


class KeptRecord(NamedTuple):
    """A record of an alternative as ALTina needs it: its head as written back
    (``GOLD ---> [SYS, …]``), its Emir items read (:func:`emir_scores`, one reading per
    key) and, per aligned entity, which item is its score (``RecordKey.picks``)."""

    head: str
    scores: tuple[SemanticScore, ...]
    picks: tuple[int, ...]


def kept_record(item: SemanticRecord, path: str | None) -> KeptRecord:
    """The record ``item`` of an alternative: a canonical line's head is its text up to its
    marker; a line the full grammar read is written from its entities."""
    try:
        scores = emir_scores(item.key, path)
    except InputError as error:
        raise at_line(error, item.line) from None
    if item.parsed is None:
        head = item.text[: item.head_end]
    else:
        head = format_line(Record(item.parsed.gold, item.parsed.system))
    return KeptRecord(head, scores, item.key.picks)


def scores_by_entity(record: KeptRecord) -> list[SemanticScore]:
    """``getScore`` per entity: the score of the first entity that prints the same."""
    return [record.scores[pick] for pick in record.picks]


@dataclass(frozen=True, slots=True)
class AlternativeRank:
    """What one alternative is ranked by (larger is better, in this order)."""

    f_measure: float
    csc_sum: float
    records: int

    def key(self) -> tuple[float, float, int]:
        return (self.f_measure, self.csc_sum, self.records)


def rank_scores(records: Sequence[Sequence[SemanticScore]]) -> AlternativeRank:
    """``compareTo``'s figures of an alternative, from each record's scores by entity
    (:func:`scores_by_entity`), with the Java's maxima (0, see the module doc).

    The Java adds each record's maxima to both sums, 0 every time, so both
    stay 1 and the precision and recall are the same figure.
    """
    max_gold = system_total = max_system = 1.0
    csc_sum = 0.0
    for scores in records:
        for score in scores:
            system_total += score.csc * score.weight
    for scores in records:
        for score in scores:
            csc_sum += score.csc * score.weight
    precision = system_total / max_system
    recall = system_total / max_gold
    return AlternativeRank((2 * precision * recall) / (recall + precision), csc_sum, len(records))


def choose_alternative(ranks: Sequence[AlternativeRank]) -> int:
    """Index of the best alternative; among equals the last (stable sort, take the last)."""
    best = 0
    for index, rank in enumerate(ranks):
        if rank.key() >= ranks[best].key():
            best = index
    return best


def reset_alt_weight(score: SemanticScore, alternatives: int) -> SemanticScore:
    """``resetAltWeight``: ``PALT(w)`` → ``PALT(n·w))``; no PALT, no change."""
    if score.alt_weight is None:
        return score
    return SemanticScore(
        score.category,
        score.type,
        score.subtype,
        score.max_csc_gold,
        score.max_csc_system,
        score.csc,
        score.weight,
        alternatives * score.alt_weight,
        True,
    )


def _chosen_lines(alternatives: list[list[KeptRecord]]) -> Iterator[Line | str]:
    best = choose_alternative(
        [rank_scores([scores_by_entity(record) for record in records]) for records in alternatives]
    )
    n = len(alternatives)
    for record in alternatives[best]:
        yield record.head + scored_tail(_reset(score, n) for score in record.scores)


@keyed_cache()
def _reset(score: SemanticScore, alternatives: int) -> SemanticScore:
    """:func:`reset_alt_weight`, remembered: the same few items recur in every block."""
    return reset_alt_weight(score, alternatives)


def select_alternatives(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.altrel`` lines of ``.emir`` lines (header first, required): a record outside
    the ALT blocks written back as read, the records inside a block read whole."""
    return headed(lines, path, lambda stream: ended_outside_alt(selected_lines(stream, path), path))


def selected_lines(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> Iterator[Line | str | AltState]:
    """The ``.altrel`` lines of ``.emir`` lines after the header (or of a block of them
    cut outside ALT blocks), and the state they end in
    (:func:`~harem_pipeline.formats.semantic.ended_outside_alt` settles it)."""
    return _Selector(path).read(lines)


class _Selector(AltBlockReader[Line | str]):
    """The states of :mod:`~harem_pipeline.stages.alts` and the alternatives of the block read."""

    def __init__(self, path: str | None) -> None:
        super().__init__(path)
        self.alternatives: list[list[KeptRecord]] = []
        self.current: list[KeptRecord] = []

    def other(self, item: Line | SemanticRecord) -> Iterable[Line | str]:
        """A record of an alternative is kept, the block's spurious records dropped; a line
        outside blocks is copied (a record once checked to be Emir output)."""
        path = self.path
        state = self.state
        if state == 2:
            if not isinstance(item, SemanticRecord):
                raise not_a_record_in_alt(item, path, "an Emir record")
            self.current.append(kept_record(item, path))
        elif state == 3:
            pass  # the block's spurious records: dropped
        elif isinstance(item, SemanticRecord):
            try:
                _check_emir(item.key, path)
            except InputError as error:
                raise at_line(error, item.line) from None
            return (item.unchanged() + "\n",)
        else:
            return (java_line_end(item),)
        return ()

    def entered(self, state: int) -> Iterable[Line | str]:
        """A new block, a new alternative, an alternative closed, or the chosen one written."""
        if state == 1:
            self.alternatives = []
        elif state == 2:
            self.current = []
        elif state == 3:
            self.alternatives.append(self.current)
        else:
            return _chosen_lines(self.alternatives)
        return ()


@keyed_cache()
def _check_emir(key: RecordKey, path: str | None) -> None:
    """Refuse a record that is not Emir output (copied records need no numbers read)."""
    if key.items is None or any(parse_evaluation(item).kind != EVAL_SEMANTIC for item in key.items):
        emir_scores(key, path)  # raises the error
