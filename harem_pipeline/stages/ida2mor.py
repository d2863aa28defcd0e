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
from collections.abc import Iterable
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
    SINGLE_RECORD,
    SPECIAL_LINES,
    MorphScore,
    Outcome,
    RawLine,
    cached_morph_score,
    record_morph_score,
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
# ``count_raw_morphology`` gives the counts ``count_morphology`` gives: a
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
    gold, gold_text, system, rest = parts
    if rest[:2] != ":[" or rest[-1:] != "]":
        return None
    items = rest[2:-1]
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


_KEY_ROWS: dict[tuple[str, bool, bool], list[tuple[int, int]]] = {}
"""The non-zero cells of each key's row (keys are few: verdicts × two totals)."""


class _RawTally:
    """Per-document key counts and general-path rows, closed into ``DocumentCounts``."""

    __slots__ = ("docid", "keys", "rows", "documents")

    def __init__(self) -> None:
        self.docid: str | None = None
        self.keys: dict[tuple[str, bool, bool], int] = {}
        self.rows: list[list[int]] = []
        self.documents: list[DocumentCounts[MorphologyTotals]] = []

    def start(self, docid: str) -> None:
        self.close()
        self.docid = docid

    def close(self) -> None:
        if self.docid is None:
            return
        total = [0] * (3 * _FIELD_WIDTH)
        for key, n in self.keys.items():
            row = _KEY_ROWS.get(key)
            if row is None:
                score = cached_morph_score(key[0])
                assert score is not None
                row = _KEY_ROWS[key] = [
                    (i, v) for i, v in enumerate(outcome_row(score, *key[1:])) if v
                ]
            for i, value in row:
                total[i] += value * n
        for row in self.rows:
            for i, value in enumerate(row):
                total[i] += value
        self.documents.append(DocumentCounts(self.docid, from_row(MorphologyTotals, total)))
        self.docid = None
        self.keys = {}
        self.rows = []


def count_raw_morphology(lines: Iterable[RawLine], path: str) -> MorphologyCounts:
    """:func:`count_morphology` of raw ``.altmor`` lines (see ``open_raw_lines``)."""
    tally = _RawTally()
    singles: dict[tuple[str, str | None, str, bool], tuple[str, bool, bool] | None] = {}
    single_match = SINGLE_RECORD.match
    for number, text, eol in lines:
        if not text:  # a blank line
            continue
        if text[:1] == "<":
            single = single_match(text)
            if single is not None and not text.startswith(SPECIAL_LINES):
                gold_head, gold_text, system_head, system_text, items = single.group(1, 3, 4, 6, 7)
                if system_head is None:
                    evaluated = False
                else:
                    atom = cached_first_atom(gold_text)
                    evaluated = atom is not None and (
                        gold_text == system_text or cached_first_atom(system_text) == atom
                    )
                found = (gold_head, system_head, items, evaluated)
                if found in singles:
                    key = singles[found]
                else:
                    if len(singles) >= 1 << 14:
                        singles.clear()
                    key = singles[found] = single_record_key(*found)
            else:
                key = raw_record_key(text)
            if key is not None:
                if tally.docid is None:
                    tally.start("")
                keys = tally.keys
                keys[key] = keys.get(key, 0) + 1
                continue
        item = parse_line(text, path, number, eol)
        if isinstance(item, Record):
            if tally.docid is None:
                tally.start("")
            score = record_morph_score(item, path)
            tally.rows.append(record_row(alignment_from_scored_record(item, path), score))
        else:
            docid = _document_boundary(item, path)
            if docid is not None:
                tally.start(docid)
    tally.close()
    documents = tuple(tally.documents)
    total = [0] * (3 * _FIELD_WIDTH)
    for document in documents:
        for i, value in enumerate(totals_row(document.counts)):
            total[i] += value
    return MorphologyCounts(from_row(MorphologyTotals, total), documents)


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
