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

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from harem_pipeline.formats.alinhado import Line, Record, parse_line
from harem_pipeline.formats.semantic import (
    KEY_GROUPS,
    KEYED_LINE,
    EmirRecord,
    KeyedBlock,
    KeyedRecord,
    PlainRecord,
    SemanticScore,
    iter_keyed_blocks,
    iter_plain_lines,
    keyed_lines,
    parse_emir_record,
    parse_semantic_line,
    parse_semantic_score,
    read_plain_emir_record,
)
from harem_pipeline.formats.tempo import is_tempo_file, parse_tempo_line
from harem_pipeline.stages.altsem import scores_by_entity
from harem_pipeline.stages.emir import (
    ClassicKey,
    Filter,
    classic_key,
    header_filter,
    is_spurious_key,
    key_categories,
    key_lists,
    peek_format,
    plain_classic_key,
    read_header,
)
from harem_pipeline.stages.tally import (
    Counts,
    DocumentBoundaries,
    DocumentCounts,
    DocumentTally,
    row_names,
)


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
    is_first_harem: bool = field(default=False)


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


class _Contributions(NamedTuple):
    """What one record adds: its rows, its per-category and its 2005-view additions."""

    rows: tuple[tuple[float, ...], ...]
    categories: tuple[tuple[str, str, float], ...]
    first_harem: tuple[tuple[str, float], ...]


def contributions(
    gold: ClassicKey,
    entities: Sequence[Entity],
    scores: Sequence[SemanticScore],
    filt: Filter,
    views: bool,
) -> _Contributions:
    """Everything one Emir record adds to the tally, in the order it is added: what its
    entities' classic values and each entity's score (as
    :func:`~harem_pipeline.stages.altsem.scores_by_entity` picks it) give."""
    return _Contributions(
        tuple(record_rows(gold, entities, scores)),
        tuple(category_additions(gold, entities, scores)),
        tuple(first_harem_additions(gold, entities, scores, filt)) if views else (),
    )


def record_contributions(record: EmirRecord, filt: Filter, views: bool) -> _Contributions:
    """:func:`contributions` of an Emir record."""
    entities = tuple(None if tag is None else classic_key(tag) for tag in record.entities)
    return contributions(classic_key(record.gold), entities, scores_by_entity(record), filt, views)


_CONTRIBUTIONS_LIMIT = 100_000
"""Distinct plain records (and items) remembered by :func:`tally_semantic` (memory stays flat)."""


def plain_contributions_key(plain: PlainRecord) -> tuple:
    """What :func:`record_contributions` of a plain Emir record depends on: its entities'
    classic values and its items as written (all of them: each is checked)."""
    system = plain.entities()
    systems = None if system is None else tuple(map(plain_classic_key, system))
    return (plain_classic_key(plain.gold), systems, plain.items)


def plain_record_contributions(
    plain: PlainRecord,
    key: tuple,
    filt: Filter,
    views: bool,
    path: str | None,
    scores: dict[str, SemanticScore],
) -> _Contributions:
    """:func:`record_contributions` of a plain Emir record whose
    :func:`plain_contributions_key` is ``key``, its items read (and checked, in order, as
    :func:`~harem_pipeline.formats.semantic.parse_emir_record` does) through ``scores``."""
    read = []
    for text in plain.items:
        score = scores.get(text)
        if score is None:
            score = parse_semantic_score(text, path, plain.line or None)
            if len(scores) < _CONTRIBUTIONS_LIMIT:
                scores[text] = score
        read.append(score)
    gold, systems, _ = key
    if systems is None:
        return contributions(gold, (None,), read, filt, views)
    system = plain.entities()
    picked = [read[system.index(entity)] for entity in system]  # type: ignore[union-attr]
    return contributions(gold, systems, picked, filt, views)


class _Additions(NamedTuple):
    """:class:`_Contributions` as the running sums take them: ``rows`` as ``(index, value)``
    for the file's and the document's sums (zeros left out, as ``DocumentTally.add``
    does), ``others`` as ``(sums, index, value)`` for the per-category and 2005-view
    sums; each in the order it is added, so every sum takes its values in the same order."""

    rows: tuple[tuple[int, float], ...]
    others: tuple[tuple[list[float], int, float], ...]


class _Sums:
    """The running sums of :func:`tally_semantic`: the file and its documents, each
    category, the 2005 views."""

    __slots__ = ("tally", "categories", "first")

    def __init__(self) -> None:
        self.tally = DocumentTally(SemanticCounts)
        self.categories: dict[str, DocumentTally[CategoryCounts]] = {}
        self.first = DocumentTally(FirstHaremCounts)

    def additions(self, added: _Contributions) -> _Additions:
        """``added`` indexed for :meth:`add` (a category's sums start when first named)."""
        rows = tuple((i, value) for row in added.rows for i, value in enumerate(row) if value)
        category_names, first_names = row_names(CategoryCounts), row_names(FirstHaremCounts)
        others: list[tuple[list[float], int, float]] = []
        for cat, name, value in added.categories:
            if cat not in self.categories:
                self.categories[cat] = DocumentTally(CategoryCounts)
            others.append((self.categories[cat].total, category_names.index(name), value))
        first = self.first.total
        others.extend((first, first_names.index(name), value) for name, value in added.first_harem)
        return _Additions(rows, tuple(others))

    def add(self, added: _Additions) -> None:
        """Add one record's additions (a record has been noted: a document is open)."""
        rows, others = added
        total, current = self.tally.total, self.tally.current
        for i, value in rows:
            total[i] += value
            current[i] += value  # type: ignore[index]
        for sums, i, value in others:
            sums[i] += value


def tally_semantic(
    lines: Iterable[Line | PlainRecord],
    path: str | None = None,
    grid_path: str | os.PathLike[str] | None = None,
    first_harem: bool | None = None,
) -> SemanticTally:
    """Count a whole Emir file in one pass.

    ``first_harem`` None detects the First HAREM format (see
    :func:`harem_pipeline.stages.emir.peek_format`); the 2005 views are
    counted for First HAREM files only, unless ``first_harem`` says otherwise.
    A plain record's additions are worked out once per
    :func:`plain_contributions_key`, a keyed record's
    (:class:`~harem_pipeline.formats.semantic.KeyedRecord`) once per its key,
    read as plain then (at most :data:`_CONTRIBUTIONS_LIMIT` of each kept).
    """
    detected, stream = peek_format(lines)
    header = read_header(stream, path)
    views = detected if first_harem is None else first_harem
    filt = header_filter(header, detected, grid_path, path)
    sums = _Sums()
    boundaries = DocumentBoundaries(sums.tally)
    known: dict[tuple, _Additions] = {}
    keyed: dict[tuple, _Additions] = {}
    scores: dict[str, SemanticScore] = {}

    def additions(item: PlainRecord | Record) -> _Additions:
        if type(item) is not PlainRecord:
            record = parse_emir_record(item, path)  # type: ignore[arg-type]
            return sums.additions(record_contributions(record, filt, views))
        key = plain_contributions_key(item)
        added = known.get(key)
        if added is None:
            found = plain_record_contributions(item, key, filt, views, path, scores)
            added = sums.additions(found)
            if len(known) >= _CONTRIBUTIONS_LIMIT:
                known.clear()
            known[key] = added
        return added

    def count(item: Line | PlainRecord | KeyedRecord) -> None:
        kind = type(item)
        if kind is KeyedRecord:
            boundaries.record()
            added = keyed.get(item.key)  # type: ignore[union-attr]
            if added is None:
                found = item.unkeyed(read_plain_emir_record, parse_semantic_line, path)  # type: ignore[union-attr]
                added = additions(found)  # type: ignore[arg-type]
                if type(found) is PlainRecord:
                    if len(keyed) >= _CONTRIBUTIONS_LIMIT:
                        keyed.clear()
                    keyed[item.key] = added  # type: ignore[union-attr]
        elif kind is PlainRecord or isinstance(item, Record):
            boundaries.record()
            added = additions(item)  # type: ignore[arg-type]
        else:
            boundaries.boundary(item)  # type: ignore[arg-type]
            return
        sums.add(added)

    def count_block(block: KeyedBlock) -> None:
        record, add, known = boundaries.record, sums.add, keyed
        groups, keyed_line = KEY_GROUPS, KEYED_LINE
        for number, match in enumerate(keyed_lines(block.text), block.line):  # a line each
            index = match.lastindex
            if index == keyed_line:
                added = known.get(match.group(*groups))
                if added is not None:
                    record()
                    add(added)
                    continue
            elif index is None:  # a blank, DOC, EOD or <ALT> line: only DOC and EOD count
                if match.string[match.start()] in "DE":
                    boundaries.boundary(parse_line(match.group()[:-1]))  # its number unused
                continue
            count(block.read(match, number))

    for item in stream:
        if type(item) is KeyedBlock:
            count_block(item)  # type: ignore[arg-type]
        else:
            count(item)  # type: ignore[arg-type]
    counted = sums.tally.freeze()
    categories = sums.categories
    return SemanticTally(
        header.text,
        counted.total,
        counted.documents,
        tuple((cat, categories[cat].freeze().total) for cat in sorted(categories)),
        sums.first.freeze().total if views else None,
        detected,
    )


def _no_plain_record(text: str, line: int = 0, eol: str = "\n") -> None:
    """A plain reader that reads no line as plain: every line goes to the line parser."""
    return None


def read_tally(
    path: str | os.PathLike[str],
    grid_path: str | os.PathLike[str] | None = None,
    first_harem: bool | None = None,
) -> tuple[str, SemanticTally]:
    """Stream an Emir file and count it; its encoding with the tally.

    A ``.tempo`` file (the TEMPO track, ``docs/spec/tempo.md``) is read a line at a
    time by :func:`~harem_pipeline.formats.tempo.parse_tempo_line`: its records count as
    the Emir records whose values AvalTEMPO raised.
    """
    if is_tempo_file(path):
        encoding, lines = iter_plain_lines(path, _no_plain_record, parse_tempo_line)
        return encoding, tally_semantic(lines, str(path), grid_path, first_harem)
    encoding, lines = iter_keyed_blocks(path, read_plain_emir_record, parse_semantic_line)
    return encoding, tally_semantic(lines, str(path), grid_path, first_harem)
