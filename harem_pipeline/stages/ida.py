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

First HAREM views (our addition, Santos et al. 2006, §2.3), over the pairs
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
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from harem_pipeline.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, interval_table
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    DocEnd,
    DocStart,
    DocumentLine,
    Line,
    Record,
    Tag,
)
from harem_pipeline.formats.semantic import EmirRecord, iter_semantic_lines, parse_emir_record
from harem_pipeline.measures.semantic import INTERVAL_KEYS, interval_figures
from harem_pipeline.stages.altsem import scores_by_entity
from harem_pipeline.stages.emir import (
    Filter,
    classic_lists,
    header_filter,
    is_spurious_tag,
    peek_format,
    read_header,
    tag_categories,
)
from harem_pipeline.textio import derived_path, read_bytes

NO_DOCUMENT = ""
"""DOCID under which records outside any ``DOC``/``EOD`` pair are counted."""

JAVA_ENCODING = "iso-8859-1"
"""The encoding of the Java's reports, used when the input is plain ASCII."""

SCENARIO_ABSOLUTE = "absolute"
SCENARIO_RELATIVE = "relative"
ALT_STRICT = "strict"
ALT_RELAXED = "relaxed"


@dataclass(frozen=True, slots=True)
class SemanticCounts:
    """The sufficient statistics of one Ida report (or one document, or one category)."""

    total_cd: float = 0.0
    identified: float = 0.0
    spurious: float = 0.0
    missing: float = 0.0
    max_cd: float = 0.0
    max_system: float = 0.0
    system_csc: float = 0.0


@dataclass(frozen=True, slots=True)
class CategoryCounts:
    """The counts of one category, with the gold side's recall numerators."""

    total_cd: float = 0.0
    identified: float = 0.0
    spurious: float = 0.0
    missing: float = 0.0
    max_cd: float = 0.0
    max_system: float = 0.0
    system_csc: float = 0.0
    credit_cd: float = 0.0
    csc_cd: float = 0.0


@dataclass(frozen=True, slots=True)
class FirstHaremCounts:
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
    documents: tuple[tuple[str, SemanticCounts], ...]
    categories: tuple[tuple[str, CategoryCounts], ...]
    first_harem: FirstHaremCounts | None = None
    is_first_harem: bool = field(default=False)


class _Sums:
    """Mutable running sums over the fields of a counts class."""

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.values = dict.fromkeys((f.name for f in fields(kind)), 0.0)

    def add(self, key: str, value: float) -> None:
        self.values[key] += value

    def freeze(self) -> Any:
        return self.kind(**self.values)


def _add_record(targets: tuple[_Sums, ...], record: EmirRecord, scores: list) -> None:
    """Add one record to each of ``targets`` (whole file, document), as the Java sums."""
    spurious = is_spurious_tag(record.gold)
    for sums in targets:
        values = sums.values
        alt = 1.0
        for entity, score in zip(record.entities, scores, strict=True):
            alt = score.palt
            if entity is None:
                values["missing"] += alt
                continue
            values["identified"] += alt
            if spurious:
                values["spurious"] += 1.0
            values["system_csc"] += score.csc * score.weight * alt
            values["max_system"] += score.max_csc_system * alt
        if not spurious:
            values["total_cd"] += alt
            values["max_cd"] += scores[-1].max_csc_gold * alt


def _add_categories(sums: dict[str, _Sums], record: EmirRecord, scores: list) -> None:
    def of(cat: str) -> _Sums:
        if cat not in sums:
            sums[cat] = _Sums(CategoryCounts)
        return sums[cat]

    spurious = is_spurious_tag(record.gold)
    gold_cats = [] if spurious else tag_categories(record.gold)
    alt = 1.0
    for entity, score in zip(record.entities, scores, strict=True):
        alt = score.palt
        if entity is None:
            for cat in gold_cats:
                of(cat).add("missing", alt)
            continue
        credit = score.csc * score.weight * alt
        for cat in tag_categories(entity):
            target = of(cat)
            target.add("identified", alt)
            if spurious:
                target.add("spurious", 1.0)
            target.add("system_csc", credit)
            target.add("max_system", score.max_csc_system * alt)
        for cat in gold_cats:
            of(cat).add("credit_cd", alt)
            of(cat).add("csc_cd", credit)
    for cat in gold_cats:
        of(cat).add("total_cd", alt)
        of(cat).add("max_cd", scores[-1].max_csc_gold * alt)


def _pairs(tag: Tag) -> list[tuple[str, str | None]]:
    cats, types, _ = classic_lists(tag)
    return [(cat, (types[i] or None) if i < len(types) else None) for i, cat in enumerate(cats)]


def combined_2005(gold: Tag, system: Tag, filt: Filter) -> float:
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


def combined_2005_max(tag: Tag, filt: Filter) -> float:
    """The best 2005 score an entity can get: ``max 2 − 1/n`` over its categories."""
    return max((2 - 1 / (filt.type_count(cat) or 1) for cat, _ in _pairs(tag)), default=0.0)


def _add_first_harem(sums: _Sums, record: EmirRecord, scores: list, filt: Filter) -> None:
    spurious = is_spurious_tag(record.gold)
    gold_pairs = set(_pairs(record.gold))
    gold_cats = {cat for cat, _ in gold_pairs}
    alt = 1.0
    for entity, score in zip(record.entities, scores, strict=True):
        alt = score.palt
        if entity is None:
            continue
        sums.add("identified", alt)
        sums.add("combined_max_system", combined_2005_max(entity, filt) * alt)
        if spurious:
            continue
        system_pairs = _pairs(entity)
        if any(cat in gold_cats for cat, _ in system_pairs):
            sums.add("category_right", alt)
        if any(pair in gold_pairs for pair in system_pairs):
            sums.add("flat_right", alt)
        sums.add("combined_score", combined_2005(record.gold, entity, filt) * alt)
    if not spurious:
        sums.add("total_cd", alt)
        sums.add("combined_max_cd", combined_2005_max(record.gold, filt) * alt)


def tally_semantic(
    lines: Iterable[Line],
    path: str | None = None,
    grid_path: str | os.PathLike[str] | None = None,
    first_harem: bool | None = None,
) -> SemanticTally:
    """Count a whole Emir file in one pass.

    ``first_harem`` None detects the First HAREM format (see
    :func:`harem_pipeline.stages.emir.peek_format`); the 2005 views are
    counted for First HAREM files only, unless ``first_harem`` says otherwise.
    """
    detected, stream = peek_format(lines)
    header = read_header(stream, path)
    views = detected if first_harem is None else first_harem
    filt = header_filter(header, detected, grid_path, path)
    total = _Sums(SemanticCounts)
    categories: dict[str, _Sums] = {}
    first = _Sums(FirstHaremCounts)
    documents: list[tuple[str, SemanticCounts]] = []
    docid: str | None = None
    current = _Sums(SemanticCounts)
    records = 0

    def close() -> None:
        nonlocal docid, current
        if docid is not None:
            documents.append((docid, current.freeze()))
        docid, current = None, _Sums(SemanticCounts)

    for item in stream:
        if isinstance(item, DocumentLine) and docid is not None and records == 0:
            docid = item.docid
        elif isinstance(item, (DocStart, DocumentLine)):
            close()
            docid, records = item.docid, 0
        elif isinstance(item, DocEnd):
            close()
        elif isinstance(item, Record):
            record = parse_emir_record(item, path)
            if docid is None:
                docid, records = NO_DOCUMENT, 0
            records += 1
            scores = scores_by_entity(record)
            _add_record((total, current), record, scores)
            _add_categories(categories, record, scores)
            if views:
                _add_first_harem(first, record, scores, filt)
    close()
    return SemanticTally(
        header.text,
        total.freeze(),
        tuple(documents),
        tuple((cat, categories[cat].freeze()) for cat in sorted(categories)),
        first.freeze() if views else None,
        detected,
    )


def read_tally(
    path: str | os.PathLike[str],
    grid_path: str | os.PathLike[str] | None = None,
    first_harem: bool | None = None,
) -> tuple[str, SemanticTally]:
    """Stream an Emir file and count it; its encoding with the tally."""
    encoding, lines = iter_semantic_lines(path)
    return encoding, tally_semantic(lines, str(path), grid_path, first_harem)


def counts_mapping(counts: Any) -> dict[str, float]:
    """Counts as a plain mapping (field → value), the currency of the measures and bootstrap."""
    return asdict(counts)


def document_mappings(tally: SemanticTally) -> dict[str, dict[str, float]]:
    """Each document's counts by DOCID (blocks of one DOCID added), zeros left out."""
    merged: dict[str, dict[str, float]] = {}
    for docid, counts in tally.documents:
        target = merged.setdefault(docid, {})
        for key, value in counts_mapping(counts).items():
            if value:
                target[key] = target.get(key, 0.0) + value
    return merged


def semantic_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, list[float] | None] | None:
    """95 % document-bootstrap intervals of both blocks' P, R and F (None for 0 resamples)."""
    table = interval_table(list(documents.values()), interval_figures, resamples, seed)
    return None if table is None else {key: table[key] for key in INTERVAL_KEYS}


def scenario_from_name(path: str | os.PathLike[str]) -> tuple[str, str]:
    """``(scenario, alt)`` from a file name: ``emir_relativo`` is relative, ``altrel`` relaxed."""
    name = Path(path).name
    scenario = SCENARIO_RELATIVE if "emir_relativo" in name else SCENARIO_ABSOLUTE
    alt = ALT_RELAXED if ".altrel" in name else ALT_STRICT
    return scenario, alt


def default_output(path: str | os.PathLike[str]) -> Path:
    """``IN.ida`` (``.gz`` dropped first)."""
    return derived_path(path, ".ida")


@dataclass(frozen=True, slots=True)
class IdaOutputs:
    """What :func:`run_ida` wrote and counted."""

    text_path: Path
    json_path: Path
    tally: SemanticTally


def run_ida(
    path: str | os.PathLike[str],
    signature: str,
    output: str | os.PathLike[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    scenario: str | None = None,
    alt: str | None = None,
    grid_path: str | os.PathLike[str] | None = None,
    first_harem: bool | None = None,
) -> IdaOutputs:
    """Count the Emir file ``path``; write the ``.ida`` text (``output``, default ``IN.ida``,
    in the input's encoding, ISO-8859-1 for a plain ASCII input as the Java) and
    ``output.json`` (UTF-8), both atomically.

    ``scenario`` / ``alt`` default to what the file name says
    (:func:`scenario_from_name`); ``signature`` is rendered, never computed, here.
    """
    from harem_pipeline.atomic import write_text_atomic
    from harem_pipeline.reports.ida import format_ida_json, format_ida_text

    named_scenario, named_alt = scenario_from_name(path)
    scenario = scenario or named_scenario
    alt = alt or named_alt
    for value, allowed in (
        (scenario, (SCENARIO_ABSOLUTE, SCENARIO_RELATIVE)),
        (alt, (ALT_STRICT, ALT_RELAXED)),
    ):
        if value not in allowed:
            raise InputError("--scenario/--alt", " or ".join(allowed), value)
    target = Path(output) if output is not None else default_output(path)
    encoding, tally = read_tally(path, grid_path, first_harem)
    if encoding == "utf-8" and read_bytes(path).isascii():
        encoding = JAVA_ENCODING  # nothing says UTF-8: the labels as the Java writes them
    documents = document_mappings(tally)
    ci95 = semantic_intervals(documents, resamples, seed)
    text = format_ida_text(tally, signature)
    json_text = format_ida_json(tally, signature, scenario, alt, ci95, documents)
    json_path = target.with_name(target.name + ".json")
    write_text_atomic(target, text, encoding=encoding)
    write_text_atomic(json_path, json_text)
    return IdaOutputs(target, json_path, tally)
