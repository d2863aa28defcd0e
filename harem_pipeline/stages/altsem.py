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
    PlainRun,
    SemanticScore,
    first_harem_markers,
    format_emir_record,
    format_semantic_score,
    next_alt_state,
    not_a_record_in_alt,
    parse_emir_record,
    parse_semantic_line,
    parse_semantic_score,
    read_run,
)
from harem_pipeline.stages.emir import java_line_end, read_header


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
    return rank_scores([scores_by_entity(record) for record in records])


def rank_scores(records: Sequence[Sequence[SemanticScore]]) -> AlternativeRank:
    """:func:`rank_alternative` of each record's scores by entity (:func:`scores_by_entity`).

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


_SCORES: dict[str, SemanticScore] = {}
"""Emir items already read (text → score); the same few recur in every block."""
_RESET: dict[tuple[str, int], str] = {}
"""Emir items already written back with ``PALT(n·w))``, by text and ``n``."""
_CACHE_LIMIT = 100_000


def _item_score(text: str, path: str | None, line: int) -> SemanticScore:
    """:func:`parse_semantic_score` of an item (remembered); a bad item raises as there."""
    score = _SCORES.get(text)
    if score is None:
        score = parse_semantic_score(text, path, line or None)
        if len(_SCORES) < _CACHE_LIMIT:
            _SCORES[text] = score
    return score


def _reset_text(text: str, score: SemanticScore, alternatives: int) -> str:
    """The item ``text`` (read as ``score``) as written back with :func:`reset_alt_weight`."""
    key = (text, alternatives)
    reset = _RESET.get(key)
    if reset is None:
        reset = format_semantic_score(reset_alt_weight(score, alternatives))
        if len(_RESET) < _CACHE_LIMIT:
            _RESET[key] = reset
    return reset


@dataclass(frozen=True, slots=True)
class _PlainEmir:
    """A plain Emir record inside an alternative: as read, with its scores by entity."""

    record: PlainRecord
    scores: list[SemanticScore]
    by_entity: list[SemanticScore]


def _read_plain_emir(record: PlainRecord, path: str | None) -> _PlainEmir:
    """What :func:`parse_emir_record` and :func:`scores_by_entity` read from a plain record."""
    scores = [_item_score(item, path, record.line) for item in record.items]
    if len(scores) == 1:
        return _PlainEmir(record, scores, scores)
    entities = record.entities() or (None,)
    if len(set(entities)) == len(entities):
        return _PlainEmir(record, scores, scores)
    return _PlainEmir(record, scores, [scores[entities.index(entity)] for entity in entities])


def _plain_chosen(item: _PlainEmir, alternatives: int) -> str:
    """The line :func:`_chosen_lines` writes for a plain record: its items' PALT reset."""
    record = item.record
    texts = record.items
    items = ", ".join(
        _reset_text(text, score, alternatives)
        for text, score in zip(texts, item.scores, strict=True)
    )
    return f"{record.head}:[{items}]\n"


def _chosen_lines(alternatives: list[list[EmirRecord | _PlainEmir]]) -> Iterator[Line | str]:
    best = choose_alternative(
        [
            rank_scores(
                [
                    record.by_entity if type(record) is _PlainEmir else scores_by_entity(record)  # type: ignore[arg-type]
                    for record in records
                ]
            )
            for records in alternatives
        ]
    )
    n = len(alternatives)
    for record in alternatives[best]:
        if type(record) is _PlainEmir:
            yield _plain_chosen(record, n)  # type: ignore[arg-type]
            continue
        scores = tuple(reset_alt_weight(score, n) for score in record.scores)  # type: ignore[union-attr]
        yield format_emir_record(
            EmirRecord(record.gold, record.system, scores, MARKER_FIRST_HAREM, "\n", record.line)
        )


def select_alternatives(
    lines: Iterable[Line | PlainRecord | PlainRun], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.altrel`` lines of ``.emir`` lines (header first, required).

    A :class:`~harem_pipeline.formats.semantic.PlainRecord` outside the ALT
    blocks (an Emir record, its items cut as the general reader cuts them)
    gives its line as written text (line end included), the text the
    general path writes; inside a block its figures are read from its items
    (remembered).  A :class:`~harem_pipeline.formats.semantic.PlainRun` is
    copied whole up to its next ``<ALT>`` line, and read a line at a time
    from there to the end of the block.
    """
    stream = iter(lines)
    yield java_line_end(read_header(stream, path))  # type: ignore[arg-type]
    selector = _Selector(path)
    for item in stream:
        if type(item) is PlainRun:
            yield from read_run(item, selector, emir=True)  # type: ignore[arg-type]
        else:
            yield from selector.line(item)  # type: ignore[arg-type]


class _Selector:
    """The states of :mod:`~harem_pipeline.stages.alts` and the alternatives of the block read."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.state = 0
        self.alternatives: list[list[EmirRecord | _PlainEmir]] = []
        self.current: list[EmirRecord | _PlainEmir] = []

    def line(self, item: Line | PlainRecord) -> Iterator[Line | str]:
        """The output of one line."""
        state, path = self.state, self.path
        if type(item) is PlainRecord:
            if state == 0:
                yield item.head + ":" + item.tail + "\n"
                return
            if state == 2:
                self.current.append(_read_plain_emir(item, path))
                return
            if state == 3:
                return  # the block's spurious records: dropped
            item = item.parse(path, parse_semantic_line)
        kind = type(item)
        if kind is AltOpen or kind is AltClose:
            output = self.alt(kind is AltOpen, item.n)  # type: ignore[union-attr]
            if output is not None:
                yield from output
                return
        if state == 2:
            if not isinstance(item, Record):
                raise not_a_record_in_alt(item, path, "an Emir record")
            self.current.append(parse_emir_record(item, path))
        elif state == 3:
            return  # the block's spurious records: dropped
        else:
            if isinstance(item, Record):
                _check_emir(item, path)
            yield java_line_end(item)

    def alt(self, opening: bool, n: int | None) -> Iterable[Line | str] | None:
        """The state change of an ``<ALT>`` line and its output; None when the Java
        reads it as a line outside the states it expects."""
        state = next_alt_state(self.state, opening, n)
        if state is None:
            return None
        self.state = state
        if state == 1:
            self.alternatives = []
        elif state == 2:
            self.current = []
        elif state == 3:
            self.alternatives.append(self.current)
        else:
            return _chosen_lines(self.alternatives)
        return ()

    def copy(self, text: str) -> tuple[str]:
        """Lines of a run outside ALT blocks, with the ``:`` marker (as the Java writes)."""
        return (first_harem_markers(text),)

    run_alt = alt


def _check_emir(record: Record, path: str | None) -> None:
    """Refuse a record that is not Emir output (copied records need no numbers read)."""
    if record.evaluation is None or any(item.kind != EVAL_SEMANTIC for item in record.evaluation):
        parse_emir_record(record, path)  # raises the error naming the line
