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

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_SEMANTIC,
    MARKER_FIRST_HAREM,
    AltClose,
    AltOpen,
    Line,
    Record,
)
from harem_pipeline.formats.semantic import (
    EmirRecord,
    PlainRecord,
    SemanticScore,
    format_emir_record,
    parse_emir_record,
    parse_semantic_line,
)
from harem_pipeline.stages.alts import is_alternative_close, is_alternative_open
from harem_pipeline.stages.emir import is_spurious_tag, java_line_end, read_header


def scores_by_entity(record: EmirRecord) -> list[SemanticScore]:
    """``getScore`` per entity: the score of the first entity that prints the same."""
    entities = record.entities
    return [record.scores[entities.index(entity)] for entity in entities]


@dataclass(frozen=True, slots=True)
class AlternativeRank:
    """What one alternative is ranked by (larger is better, in this order)."""

    f_measure: float
    csc_sum: float
    records: int

    def key(self) -> tuple[float, float, int]:
        return (self.f_measure, self.csc_sum, self.records)


def rank_alternative(records: Sequence[EmirRecord]) -> AlternativeRank:
    """``compareTo``'s figures, with the Java's maxima (0, see the module doc)."""
    max_gold = system_total = max_system = 1.0
    csc_sum = 0.0
    for record in records:
        if not is_spurious_tag(record.gold):
            max_gold += 0.0
        for entity, score in zip(record.entities, scores_by_entity(record), strict=True):
            system_total += score.csc * score.weight
            if entity is not None:
                max_system += 0.0
    for record in records:
        for score in scores_by_entity(record):
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


def _chosen_lines(alternatives: list[list[EmirRecord]]) -> Iterator[Line]:
    best = choose_alternative([rank_alternative(records) for records in alternatives])
    n = len(alternatives)
    for record in alternatives[best]:
        scores = tuple(reset_alt_weight(score, n) for score in record.scores)
        yield format_emir_record(
            EmirRecord(record.gold, record.system, scores, MARKER_FIRST_HAREM, "\n", record.line)
        )


def select_alternatives(
    lines: Iterable[Line | PlainRecord], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.altrel`` lines of ``.emir`` lines (header first, required).

    A :class:`~harem_pipeline.formats.semantic.PlainRecord` outside the ALT
    blocks (an Emir record, its items cut as the general reader cuts them)
    gives its line as written text (line end included), the text the
    general path writes; inside a block it is read whole.
    """
    stream = iter(lines)
    yield java_line_end(read_header(stream, path))  # type: ignore[arg-type]
    state = 0
    alternatives: list[list[EmirRecord]] = []
    current: list[EmirRecord] = []
    for item in stream:
        if type(item) is PlainRecord:
            if state == 0:
                yield item.head + ":" + item.tail + "\n"
                continue
            item = item.parse(path, parse_semantic_line)
        if state == 0 and isinstance(item, AltOpen) and item.n is None:
            alternatives, state = [], 1
        elif state in (1, 3) and is_alternative_open(item):
            current, state = [], 2
        elif state == 2 and is_alternative_close(item):
            alternatives.append(current)
            state = 3
        elif state == 3 and isinstance(item, AltClose) and item.n is None:
            yield from _chosen_lines(alternatives)
            state = 0
        elif state == 2:
            if not isinstance(item, Record):
                raise InputError(
                    path,
                    "an Emir record or </ALTn> inside an alternative",
                    type(item).__name__,
                    line=getattr(item, "line", 0) or None,
                )
            current.append(parse_emir_record(item, path))
        elif state == 3:
            continue  # the block's spurious records: dropped
        else:
            if isinstance(item, Record):
                _check_emir(item, path)
            yield java_line_end(item)


def _check_emir(record: Record, path: str | None) -> None:
    """Refuse a record that is not Emir output (copied records need no numbers read)."""
    if record.evaluation is None or any(item.kind != EVAL_SEMANTIC for item in record.evaluation):
        parse_emir_record(record, path)  # raises the error naming the line
