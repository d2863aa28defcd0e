"""Ida: count an ``.emir`` / ``.altrel`` / ``.emir_relativo`` file for the semantic report.

Counts first: :func:`tally_semantic` reduces the file to
:class:`SemanticCounts` (sufficient statistics, see
:mod:`harem_pipeline.measures.semantic`) for the whole file, per document
and per category; the figures come from those counts only.

The whole-file counts follow the 2010 Java ``GlobalSemanticEvaluator``
line by line, accumulated in file order (the sums' last digits depend on
it):

* per aligned system entity, with ``PALT`` its ALT weight (1 when absent):
  ``[null]`` adds PALT to ``missing``; any other adds PALT to
  ``identified``, ``CSC·Peso·PALT`` to ``system_csc``, ``MaxCSC_S·PALT`` to
  ``max_system``, and 1 (unweighted) to ``spurious`` on a spurious record;
* per non-spurious record: PALT to ``total_cd`` and ``MaxCSC_CD·PALT`` to
  ``max_cd``, where PALT and MaxCSC_CD are the **last** entity's (the Java
  keeps the loop's last values);
* an entity that prints like an earlier one of its record takes that one's
  item (``EvaluatedAlignment.getScore`` looks the entity up by equality).

Per category (our addition): a system entity counts under each of its
categories (``identified``, ``spurious``, ``max_system``, ``system_csc``), a
gold entity under each of its own (``total_cd``, ``missing``, ``max_cd``, and
the recall numerators ``credit_cd`` and ``csc_cd`` of the entities aligned to
it); vague entities count fully under each category.

First HAREM views (our addition, Santos et al. 2006, section 2.3), over the pairs
of a non-spurious gold entity and an aligned system entity, weighted by
PALT: ``category_right`` (a system category among the gold ones),
``flat_right`` (a system (category, type) among the gold ones, no type
matching no type), and the 2005 combined score of the best-matching pair
of tuples, 0 for a wrong category, 1 for the right category and a wrong
type, ``2 − 1/n`` for both right (``n``: the category's number of types in
the evaluation veil, at least 1); its maxima are ``max 2 − 1/n`` over the
system entity's tuples (``combined_max_system``) and over the gold entity's
(``combined_max_cd``).
"""

from __future__ import annotations

import functools
import operator
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Line, LineParser
from harem_pipeline.formats.semantic import (
    ClassicKey,
    RecordKey,
    SemanticRecord,
    SemanticScore,
    at_line,
    emir_scores,
    parse_semantic_line,
)
from harem_pipeline.formats.tempo import is_tempo_file, parse_tempo_line
from harem_pipeline.stages.emir import (
    Filter,
    header_filter,
    is_spurious_key,
    key_categories,
    key_lists,
    peek_format,
    read_header,
)
from harem_pipeline.stages.tally import (
    DOCUMENT_LINES,
    Counts,
    DocumentBoundaries,
    DocumentCounts,
    DocumentTally,
    row_names,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.memo import keyed_cache


@dataclass(frozen=True, slots=True)
class SemanticCounts(Counts):
    """The sufficient statistics of one Ida report (or one document, or one category)."""

    total_cd: float = 0.0
    identified: float = 0.0
    spurious: float = 0.0
    missing: float = 0.0
    max_cd: float = 0.0
    max_system: float = 0.0
    system_csc: float = 0.0


@dataclass(frozen=True, slots=True)
class CategoryCounts(SemanticCounts):
    """The counts of one category: :class:`SemanticCounts`, then the gold side's recall
    numerators (the row keeps the parent's fields first)."""

    credit_cd: float = 0.0
    csc_cd: float = 0.0


@dataclass(frozen=True, slots=True)
class FirstHaremCounts(Counts):
    """The counts of the 2005 views (see the module doc)."""

    total_cd: float = 0.0
    identified: float = 0.0
    category_right: float = 0.0
    flat_right: float = 0.0
    combined_score: float = 0.0
    combined_max_system: float = 0.0
    combined_max_cd: float = 0.0


@dataclass(frozen=True, slots=True)
class SemanticTally:
    """A whole file counted: totals, documents (in order), categories (sorted), 2005 views."""

    header: str
    total: SemanticCounts
    documents: tuple[DocumentCounts[SemanticCounts], ...]
    categories: tuple[tuple[str, CategoryCounts], ...]
    first_harem: FirstHaremCounts | None = None


Entity = ClassicKey | None
"""An aligned system entity as the counts see it: its classic values (None: ``[null]``)."""


def record_rows(
    gold: ClassicKey, entities: Sequence[Entity], scores: Sequence[SemanticScore]
) -> Iterator[tuple[float, ...]]:
    """One record's contributions (``SemanticCounts`` rows), one per aligned entity and
    one for the gold side, in the order the Java adds them."""
    spurious = is_spurious_key(gold)
    alt = 1.0
    for entity, score in zip(entities, scores, strict=True):
        alt = score.palt
        if entity is None:
            yield (0.0, 0.0, 0.0, alt, 0.0, 0.0, 0.0)
            continue
        yield (
            0.0,
            alt,
            1.0 if spurious else 0.0,
            0.0,
            0.0,
            score.max_csc_system * alt,
            score.csc * score.weight * alt,
        )
    if not spurious:
        yield (alt, 0.0, 0.0, 0.0, scores[-1].max_csc_gold * alt, 0.0, 0.0)


def category_additions(
    gold: ClassicKey, entities: Sequence[Entity], scores: Sequence[SemanticScore]
) -> Iterator[tuple[str, str, float]]:
    """One record's per-category contributions, ``(category, count, value)``, in the order
    they are added (sums are taken in file order)."""
    spurious = is_spurious_key(gold)
    gold_cats = [] if spurious else key_categories(gold)
    alt = 1.0
    for entity, score in zip(entities, scores, strict=True):
        alt = score.palt
        if entity is None:
            for cat in gold_cats:
                yield cat, "missing", alt
            continue
        credit = score.csc * score.weight * alt
        for cat in key_categories(entity):
            yield cat, "identified", alt
            if spurious:
                yield cat, "spurious", 1.0
            yield cat, "system_csc", credit
            yield cat, "max_system", score.max_csc_system * alt
        for cat in gold_cats:
            yield cat, "credit_cd", alt
            yield cat, "csc_cd", credit
    for cat in gold_cats:
        yield cat, "total_cd", alt
        yield cat, "max_cd", scores[-1].max_csc_gold * alt


def _pairs(key: ClassicKey) -> list[tuple[str, str | None]]:
    cats, types, _ = key_lists(key)
    return [(cat, (types[i] or None) if i < len(types) else None) for i, cat in enumerate(cats)]


def combined_2005(gold: ClassicKey, system: ClassicKey, filt: Filter) -> float:
    """The 2005 combined score of a pair: 0, 1 or ``2 − 1/n`` for the best-matching tuples."""
    best = 0.0
    system_pairs = _pairs(system)
    for cat, typ in _pairs(gold):
        for s_cat, s_typ in system_pairs:
            if s_cat != cat:
                continue
            score = 2 - 1 / (filt.type_count(cat) or 1) if s_typ == typ else 1.0
            best = max(best, score)
    return best


def combined_2005_max(key: ClassicKey, filt: Filter) -> float:
    """The best 2005 score an entity can get: ``max 2 − 1/n`` over its categories."""
    return max((2 - 1 / (filt.type_count(cat) or 1) for cat, _ in _pairs(key)), default=0.0)


def first_harem_additions(
    gold: ClassicKey, entities: Sequence[Entity], scores: Sequence[SemanticScore], filt: Filter
) -> Iterator[tuple[str, float]]:
    """One record's contributions to the 2005 views, ``(count, value)``, in order."""
    spurious = is_spurious_key(gold)
    gold_pairs = set(_pairs(gold))
    gold_cats = {cat for cat, _ in gold_pairs}
    alt = 1.0
    for entity, score in zip(entities, scores, strict=True):
        alt = score.palt
        if entity is None:
            continue
        yield "identified", alt
        yield "combined_max_system", combined_2005_max(entity, filt) * alt
        if spurious:
            continue
        system_pairs = _pairs(entity)
        if any(cat in gold_cats for cat, _ in system_pairs):
            yield "category_right", alt
        if any(pair in gold_pairs for pair in system_pairs):
            yield "flat_right", alt
        yield "combined_score", combined_2005(gold, entity, filt) * alt
    if not spurious:
        yield "total_cd", alt
        yield "combined_max_cd", combined_2005_max(gold, filt) * alt


_CATEGORY_INDEX = {name: i for i, name in enumerate(row_names(CategoryCounts))}
_FIRST_INDEX = {name: i for i, name in enumerate(row_names(FirstHaremCounts))}


class _Contributions(NamedTuple):
    """What one record adds, each value with the index of its field in its row, in the
    order it is added: the file's and its document's sums (zeros left out, as
    ``DocumentTally.add`` skips them), each category's, the 2005 views'."""

    rows: tuple[tuple[int, float], ...]
    categories: tuple[tuple[tuple[str, int], float], ...]
    first_harem: tuple[tuple[int, float], ...]


def contributions(
    gold: ClassicKey,
    entities: Sequence[Entity],
    scores: Sequence[SemanticScore],
    filt: Filter,
    views: bool,
) -> _Contributions:
    """Everything one Emir record adds to the tally, in the order it is added: what its
    entities' classic values and each entity's score (as
    :attr:`~harem_pipeline.formats.semantic.RecordKey.picks` picks it) give."""
    rows = record_rows(gold, entities, scores)
    additions = category_additions(gold, entities, scores)
    first = first_harem_additions(gold, entities, scores, filt) if views else ()
    return _Contributions(
        tuple((i, value) for row in rows for i, value in enumerate(row) if value),
        tuple(((cat, _CATEGORY_INDEX[name]), value) for cat, name, value in additions),
        tuple((_FIRST_INDEX[name], value) for name, value in first),
    )


@keyed_cache()
def key_contributions(
    key: RecordKey, filt: Filter, views: bool, path: str | None
) -> _Contributions:
    """:func:`contributions` of an Emir record of this key, its items read and checked in
    order (:func:`~harem_pipeline.formats.semantic.emir_scores`)."""
    scores = emir_scores(key, path)
    picked = [scores[pick] for pick in key.picks]
    return contributions(key.gold, key.systems or (None,), picked, filt, views)


class TallyContext(NamedTuple):
    """What counting an Emir file's records needs from its start: the header's veil, its
    filter, and whether the 2005 views are counted."""

    header: str
    filt: Filter
    views: bool


def tally_context(
    lines: Iterable[Line | SemanticRecord],
    path: str | None = None,
    grid_path: PathLike | None = None,
    first_harem: bool | None = None,
) -> tuple[TallyContext, Iterator[Line | SemanticRecord]]:
    """The context of an Emir file's lines (header first, required) and its lines after
    the header.

    ``first_harem`` None detects the First HAREM format (see
    :func:`harem_pipeline.stages.emir.peek_format`); the 2005 views are
    counted for First HAREM files only, unless ``first_harem`` says otherwise.
    """
    detected, stream = peek_format(lines, path)
    header = read_header(stream, path)
    views = detected if first_harem is None else first_harem
    filt = header_filter(header, detected, grid_path, path)
    return TallyContext(header.text, filt, views), stream


_ROW_FIELDS = len(row_names(SemanticCounts))
_FIRST_FIELDS = len(_FIRST_INDEX)


class Segment(NamedTuple):
    """Consecutive records of an Emir file, no document line between, as they add to the
    file's and their document's sums: per field of ``SemanticCounts``, the values in the
    order they are added (a sum's last digits depend on it).  Every value is a float:
    an array of doubles holds each exactly, and crosses from a worker as its bytes."""

    records: int
    rows: tuple[array[float], ...]


class Aside(NamedTuple):
    """Records' values for the sums kept for the whole file only, in order: per category
    and field of ``CategoryCounts``, and per field of ``FirstHaremCounts`` (the 2005
    views).  Document lines do not cut them."""

    categories: dict[tuple[str, int], array[float]]
    first_harem: tuple[array[float], ...]


def _columns(count: int) -> tuple[array[float], ...]:
    return tuple(array("d") for _ in range(count))


_PIECE_RECORDS = 1 << 14
"""Records whose values a worker holds at most before handing them on (memory stays flat)."""


def tally_events(
    lines: Iterable[Line | SemanticRecord], context: TallyContext, path: str | None = None
) -> Iterator[Segment | Aside | Line]:
    """The values and document lines of an Emir file's lines after the header (or of a
    block of them), in order: each record's contributions by its key
    (:func:`key_contributions`)."""
    filt, views = context.filt, context.views
    rows, records = _columns(_ROW_FIELDS), 0
    aside = Aside({}, _columns(_FIRST_FIELDS))
    categories, first = aside.categories, aside.first_harem
    for item in lines:
        if type(item) is SemanticRecord:
            try:
                added = key_contributions(item.key, filt, views, path)
            except InputError as error:
                raise at_line(error, item.line) from None
            for i, value in added.rows:
                rows[i].append(value)
            for where, value in added.categories:
                values = categories.get(where)
                if values is None:
                    values = categories[where] = array("d")
                values.append(value)
            for i, value in added.first_harem:
                first[i].append(value)
            records += 1
            if records % _PIECE_RECORDS:
                continue
            yield Segment(records, rows)
            yield aside
            rows, records = _columns(_ROW_FIELDS), 0
            aside = Aside({}, _columns(_FIRST_FIELDS))
            categories, first = aside.categories, aside.first_harem
        elif isinstance(item, DOCUMENT_LINES):
            if records:
                yield Segment(records, rows)
                rows, records = _columns(_ROW_FIELDS), 0
            yield item
    if records:
        yield Segment(records, rows)
    yield aside


def _added(total: list[float], index: int, values: array[float]) -> None:
    """``values`` added to ``total[index]`` one after the other (never ``sum``, which
    may compensate)."""
    total[index] = functools.reduce(operator.add, values, total[index])


def tally_pieces(items: Iterable[Segment | Aside | Line], context: TallyContext) -> SemanticTally:
    """Add up a whole file's values, in its order (sums take their values in file order,
    as the Java's do); document lines open and close documents."""
    tally = DocumentTally(SemanticCounts)
    categories: dict[str, DocumentTally[CategoryCounts]] = {}
    first = DocumentTally(FirstHaremCounts)
    boundaries = DocumentBoundaries(tally)
    for item in items:
        if isinstance(item, Segment):
            current = boundaries.record(item.records)
            for i, values in enumerate(item.rows):
                if values:
                    _added(tally.total, i, values)
                    _added(current, i, values)
        elif isinstance(item, Aside):
            for (cat, i), values in item.categories.items():
                sums = categories.get(cat)
                if sums is None:
                    sums = categories[cat] = DocumentTally(CategoryCounts)
                _added(sums.total, i, values)
            for i, values in enumerate(item.first_harem):
                if values:
                    _added(first.total, i, values)
        else:
            boundaries.boundary(item)
    counted = tally.freeze()
    return SemanticTally(
        context.header,
        counted.total,
        counted.documents,
        tuple((cat, categories[cat].freeze().total) for cat in sorted(categories)),
        first.freeze().total if context.views else None,
    )


def tally_semantic(
    lines: Iterable[Line | SemanticRecord],
    path: str | None = None,
    grid_path: PathLike | None = None,
    first_harem: bool | None = None,
) -> SemanticTally:
    """Count a whole Emir file's lines (header first) in one pass, each record by its key
    (:func:`tally_context`, :func:`tally_events`, :func:`tally_pieces`)."""
    context, stream = tally_context(lines, path, grid_path, first_harem)
    return tally_pieces(tally_events(stream, context, path), context)


def emir_reading(path: PathLike) -> tuple[LineParser, bool]:
    """How Ida reads the lines of ``path``: the ``parse`` and ``canonical`` of
    :func:`~harem_pipeline.formats.semantic.semantic_lines`.

    A ``.tempo`` file (the TEMPO track, ``docs/spec/tempo.md``) is read by
    :func:`~harem_pipeline.formats.tempo.parse_tempo_line`: its records count as
    the Emir records whose values AvalTEMPO raised.
    """
    if is_tempo_file(path):
        return parse_tempo_line, False
    return parse_semantic_line, True
