"""Ida2Mor: the counts of the morphological classification.

The rules are docs/spec/vizir-altinamor-ida2mor.md §5.

Counts first: :func:`count_morphology` reads a stream of ``.altmor`` lines
once and keeps only sufficient statistics, per field and per document, so
a document bootstrap or a campaign summary can re-add them without reading
a file again.  The measures are :mod:`harem_pipeline.measures.morphology`'s,
the report :mod:`harem_pipeline.reports.ida2mor`'s.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    AltClose,
    AltOpen,
    Blank,
    DocEnd,
    DocStart,
    DocumentLine,
    Header,
    Line,
    Record,
    parse_line,
)
from harem_pipeline.formats.vizir import (
    SINGLE_RECORD_START,
    MorphScore,
    Outcome,
    RawLine,
    cached_morph_score,
    record_morph_score,
    single_item,
    split_canonical_record,
    tag_head,
)
from harem_pipeline.stages.tally import (
    Counts,
    DocumentCounts,
    DocumentTally,
    Tally,
    from_row,
    row_names,
)
from harem_pipeline.stages.vizir import (
    Alignment,
    alignment_from_scored_record,
    cached_first_atom,
    counts_for_system,
    evaluated_raw_index,
)

FIELD_KEYS = ("genero", "numero", "combinada")
"""The three fields, as the reports and the JSON name them."""


@dataclass(frozen=True, slots=True)
class FieldCounts(Counts):
    """Sufficient statistics of one field: outcome counts and the two totals."""

    correct: int = 0
    partially_correct: int = 0
    incorrect: int = 0
    missing: int = 0
    spurious: int = 0
    over_specified: int = 0
    partially_over_specified: int = 0
    total_cd: int = 0
    total_system: int = 0

    def count(self, outcome: Outcome) -> int:
        """How many records got ``outcome`` in this field."""
        return getattr(self, OUTCOME_FIELDS[outcome])

    @property
    def score(self) -> float:
        """Σ score: 1 per Correcto, 1/2 per Parcialmente Correcto (exact in binary)."""
        return self.correct + self.partially_correct / 2

    @property
    def records(self) -> int:
        """Scored records (each has exactly one outcome per field)."""
        return sum(self.count(o) for o in Outcome)


OUTCOME_FIELDS = {
    Outcome.CORRECTO: "correct",
    Outcome.PARCIALMENTE_CORRECTO: "partially_correct",
    Outcome.INCORRECTO: "incorrect",
    Outcome.EM_FALTA: "missing",
    Outcome.ESPURIO: "spurious",
    Outcome.SOBRE_ESPECIFICADO: "over_specified",
    Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO: "partially_over_specified",
}
"""The ``FieldCounts`` field of each outcome."""


@dataclass(frozen=True, slots=True)
class MorphologyTotals(Counts):
    """The three fields' counts of a set of records."""

    genero: FieldCounts = FieldCounts()
    numero: FieldCounts = FieldCounts()
    combinada: FieldCounts = FieldCounts()

    def field(self, key: str) -> FieldCounts:
        """Counts of ``genero``, ``numero`` or ``combinada``."""
        return getattr(self, key)


@dataclass(frozen=True, slots=True)
class MorphologyCounts(Tally[MorphologyTotals]):
    """A file's counts: ``total`` and each document block's (``docid`` empty before any)."""

    def field(self, key: str) -> FieldCounts:
        return self.total.field(key)

    @classmethod
    def from_documents(cls, documents: Iterable[DocumentCounts]) -> MorphologyCounts:
        """Re-add document counts (e.g. a bootstrap sample of documents)."""
        docs = tuple(documents)
        return cls(sum((doc.counts for doc in docs), MorphologyTotals()), docs)


_FIELD_WIDTH = len(row_names(FieldCounts))
_OUTCOME_COLUMN = {o: row_names(FieldCounts).index(name) for o, name in OUTCOME_FIELDS.items()}
_TOTAL_CD = row_names(FieldCounts).index("total_cd")
_TOTAL_SYSTEM = row_names(FieldCounts).index("total_system")


def record_row(alignment: Alignment, score: MorphScore) -> list[int]:
    """One scored record's contribution, as a ``MorphologyTotals`` row.

    The totals are docs/spec/vizir-altinamor-ida2mor.md §5's.

    *Total na CD* takes every record whose gold side is not spurious;
    *Total classificadas pelo sistema* takes the record when its evaluated
    system entity carries MORF (``counts_for_system``).
    """
    return outcome_row(score, not alignment.spurious, counts_for_system(alignment))


def outcome_row(score: MorphScore, in_cd: bool, in_system: bool) -> list[int]:
    """The row of a record with verdict ``score`` counted (or not) in the two totals."""
    row = [0] * (3 * _FIELD_WIDTH)
    outcomes = (score.gender, score.number, score.combined)
    for base, outcome in zip(range(0, 3 * _FIELD_WIDTH, _FIELD_WIDTH), outcomes, strict=True):
        row[base + _OUTCOME_COLUMN[outcome]] = 1
        row[base + _TOTAL_CD] = int(in_cd)
        row[base + _TOTAL_SYSTEM] = int(in_system)
    return row


def count_record(alignment: Alignment, score: MorphScore) -> MorphologyTotals:
    """One scored record's contribution as counts."""
    return from_row(MorphologyTotals, record_row(alignment, score))


_ACCEPTED = (Header, Blank, DocEnd)


def count_morphology(lines: Iterable[Line], path: str | None = None) -> MorphologyCounts:
    """Count the scored records of an ``.altmor`` stream, in one pass.

    ALT blocks must already be resolved (AltinaMor): counting every
    alternative would count the same entities twice, so an ``<ALT>`` line
    is an input error here.
    """
    tally = DocumentTally(MorphologyTotals)
    for item in lines:
        if isinstance(item, Record):
            if not tally.open:
                tally.start("")
            score = record_morph_score(item, path)
            tally.add(record_row(alignment_from_scored_record(item, path), score))
        else:
            docid = _document_boundary(item, path)
            if docid is not None:
                tally.start(docid)
    frozen = tally.freeze()
    return MorphologyCounts(frozen.total, frozen.documents)


def _document_boundary(item: Line, path: str | None) -> str | None:
    """The DOCID a non-record line starts (None: none); a line not allowed is an error."""
    if isinstance(item, (DocStart, DocumentLine)):
        return item.docid
    if isinstance(item, (AltOpen, AltClose)):
        raise InputError(
            path,
            "an .altmor file (ALT blocks resolved by AltinaMor)",
            "an <ALT> line",
            line=item.line or None,
        )
    if not isinstance(item, _ACCEPTED):
        raise InputError(path, "a .vizir record line", type(item).__name__, line=item.line or None)
    return None


# ---------------------------------------------------------------------------
# The fast path: ``.altmor`` lines as text
#
# ``join_stretches`` of the ``count_raw_stretch`` of a file's lines (read
# whole, or a block at a time) gives the counts ``count_morphology`` gives: a
# record as Vizir writes it is reduced to a key (its verdict text and its two
# totals) counted per document, and a document's row is made once from its
# keys when it closes; any other line goes through ``parse_line`` and the
# general rules.


def raw_record_key(text: str) -> tuple[str, bool, bool] | None:
    """``(verdict text, in Total na CD, in Total classificadas)`` of a canonical record.

    None when the record is not canonical or anything about it would be an
    error (then the general path reads it).
    """
    parts = split_canonical_record(text)
    if parts is None:
        return None
    gold, gold_text, system, items = parts
    if cached_morph_score(items) is None:
        return None
    spurious = gold.spurious
    if not spurious and gold.morph_error:
        return None
    if not system:
        return items, not spurious, False
    for head, _ in system:
        if head.morph_error:
            return None
    if spurious:
        return items, False, system[0][0].morph is not None
    index = evaluated_raw_index(gold_text, system)
    return items, True, index is not None and system[index][0].morph is not None


def single_record_key(
    gold_head: str, system_head: str | None, items: str, evaluated: bool
) -> tuple[str, bool, bool] | None:
    """:func:`raw_record_key` of a ``[null]`` or one-entity record (``evaluated``: it is)."""
    if cached_morph_score(items) is None:
        return None
    gold = tag_head(gold_head)
    if not gold.spurious and gold.morph_error:
        return None
    if system_head is None:
        return items, not gold.spurious, False
    system = tag_head(system_head)
    if system.morph_error:
        return None
    if gold.spurious:
        return items, False, system.morph is not None
    return items, True, evaluated and system.morph is not None


class _KeyCells:
    """A small number per distinct record key, and where each key's row holds a 1 (else 0).

    Keys are few (verdicts × the two totals), so a document counts its records
    as key numbers and makes its row once, when it closes.
    """

    __slots__ = ("numbers", "cells")

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, bool, bool], int] = {}
        self.cells: list[tuple[int, ...]] = []

    def number(self, key: tuple[str, bool, bool] | None) -> int | None:
        """The number of ``key`` (None stays None: the general path reads that record)."""
        if key is None:
            return None
        number = self.numbers.get(key)
        if number is None:
            score = cached_morph_score(key[0])
            assert score is not None
            row = outcome_row(score, key[1], key[2])
            assert set(row) <= {0, 1}
            number = self.numbers[key] = len(self.cells)
            self.cells.append(tuple(i for i, v in enumerate(row) if v))
        return number

    def row(self, numbers: list[int], rows: list[list[int]]) -> list[int]:
        """A document's count row from its records' key numbers and its general-path rows."""
        total = [0] * (3 * _FIELD_WIDTH)
        cells = self.cells
        for number, n in Counter(numbers).items():
            for i in cells[number]:
                total[i] += n
        for row in rows:
            for i, value in enumerate(row):
                total[i] += value
        return total


@dataclass(frozen=True, slots=True)
class StretchCounts:
    """What consecutive lines of an ``.altmor`` file count, for :func:`join_stretches`.

    ``lead``: the count row of the records before the stretch's first
    document line (None: none), which belong to the document open where the
    stretch starts; ``documents``: the DOCID and count row of each document
    its document lines start, the last one possibly continued by the next
    stretch.  Plain rows, so that a stretch counted in a worker process
    travels back cheaply.
    """

    lead: list[int] | None
    documents: list[tuple[str, list[int]]]


def join_stretches(stretches: Iterable[StretchCounts]) -> MorphologyCounts:
    """The file's counts from its stretches in order (a lead with no document open: DOCID "")."""
    documents: list[tuple[str, list[int]]] = []
    for stretch in stretches:
        if stretch.lead is not None:
            if documents:
                docid, row = documents[-1]
                documents[-1] = docid, list(map(operator.add, row, stretch.lead))
            else:
                documents.append(("", stretch.lead))
        documents.extend(stretch.documents)
    total = [0] * (3 * _FIELD_WIDTH)
    for _, row in documents:
        for i, value in enumerate(row):
            total[i] += value
    counts = tuple(DocumentCounts(docid, totals_from_row(row)) for docid, row in documents)
    return MorphologyCounts(totals_from_row(total), counts)


_KEYS = _KeyCells()
"""Record keys numbered once per process, so every stretch of a file shares them."""
_SINGLES: dict[tuple[str, str | None, str, bool], int | None | object] = {}
"""``_single_key_number`` of the cut of a one-entity line, per process (bounded)."""


def count_raw_stretch(lines: Iterable[RawLine], path: str) -> StretchCounts:
    """The :class:`StretchCounts` of raw ``.altmor`` lines: the whole file, or a block of it."""
    keys = _KEYS
    documents: list[tuple[str, list[int]]] = []
    lead: list[int] | None = None
    docid: str | None = None  # None: no document line yet in this stretch
    numbers: list[int] = []
    rows: list[list[int]] = []
    singles = _SINGLES
    single_match = SINGLE_RECORD_START.match
    for number, text, eol in lines:
        if not text:  # a blank line
            continue
        if text[:1] == "<":
            single = single_match(text)
            if single is not None:
                gold_head, gold_text, system_head, system_text = single.group(1, 3, 4, 6)
                if system_head is None:
                    evaluated = False
                else:
                    atom = cached_first_atom(gold_text)
                    evaluated = atom is not None and (
                        gold_text == system_text or cached_first_atom(system_text) == atom
                    )
                found = (gold_head, system_head, text[single.end() :], evaluated)
                key = singles.get(found, _UNSEEN)
                if key is _UNSEEN:
                    if len(singles) >= 1 << 14:
                        singles.clear()
                    key = singles[found] = _single_key_number(keys, *found)
                if key is _NOT_SINGLE:
                    key = keys.number(raw_record_key(text))
            else:
                key = keys.number(raw_record_key(text))
            if key is not None:
                numbers.append(key)  # type: ignore[arg-type]
                continue
        item = parse_line(text, path, number, eol)
        if isinstance(item, Record):
            score = record_morph_score(item, path)
            rows.append(record_row(alignment_from_scored_record(item, path), score))
        else:
            started = _document_boundary(item, path)
            if started is not None:
                if docid is not None:
                    documents.append((docid, keys.row(numbers, rows)))
                elif numbers or rows:
                    lead = keys.row(numbers, rows)
                docid, numbers, rows = started, [], []
    if docid is not None:
        documents.append((docid, keys.row(numbers, rows)))
    elif numbers or rows:
        lead = keys.row(numbers, rows)
    return StretchCounts(lead, documents)


_UNSEEN = object()
"""Not in a cache (None is a cached value)."""
_NOT_SINGLE = object()
"""A line ``SINGLE_RECORD`` does not match after all: :func:`raw_record_key` reads it."""


def _single_key_number(
    keys: _KeyCells, gold_head: str, system_head: str | None, rest: str, evaluated: bool
) -> int | None | object:
    """The key number of a line ``SINGLE_RECORD_START`` matched (``rest``: what follows)."""
    item = single_item(rest)
    if item is None:
        return _NOT_SINGLE
    return keys.number(single_record_key(gold_head, system_head, item, evaluated))


def totals_from_row(row: Sequence[int]) -> MorphologyTotals:
    """``from_row(MorphologyTotals, row)`` without the generic walk over the dataclass fields."""
    width = _FIELD_WIDTH
    return MorphologyTotals(
        FieldCounts(*row[:width]),
        FieldCounts(*row[width : 2 * width]),
        FieldCounts(*row[2 * width :]),
    )


_FIELD_ROW = operator.attrgetter(*row_names(FieldCounts))


def totals_row(totals: MorphologyTotals) -> tuple[int, ...]:
    """``totals.row()`` without the generic walk over the dataclass fields."""
    return _FIELD_ROW(totals.genero) + _FIELD_ROW(totals.numero) + _FIELD_ROW(totals.combinada)


def morphology_document_rows(
    documents: Iterable[DocumentCounts[MorphologyTotals]],
) -> dict[str, dict[str, float]]:
    """``tally.document_rows`` of morphology counts: blocks of a DOCID added, zeros left out."""
    merged: dict[str, tuple[int, ...]] = {}
    for docid, counts in documents:
        row = totals_row(counts)
        earlier = merged.get(docid)
        merged[docid] = row if earlier is None else tuple(map(operator.add, earlier, row))
    names = row_names(MorphologyTotals)
    return {
        docid: {name: value for name, value in zip(names, row, strict=True) if value}
        for docid, row in merged.items()
    }
