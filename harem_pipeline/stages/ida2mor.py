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
from harem_pipeline.formats import vizir as vizir_format
from harem_pipeline.formats.alinhado import (
    ALT_MARKS,
    DOCUMENT_STARTS,
    Blank,
    DocEnd,
    Header,
    Line,
    RawLine,
    Record,
    parse_line,
)
from harem_pipeline.formats.vizir import (
    MorphScore,
    Outcome,
    cut_record,
    located,
    record_text,
)
from harem_pipeline.stages import vizir as vizir_stage
from harem_pipeline.stages.tally import (
    Counts,
    DocumentCounts,
    Tally,
    row_names,
)
from harem_pipeline.stages.vizir import ScoredKey, scored_facts
from harem_pipeline.text.memo import KeyedTable

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
        """Pontuação (:func:`~harem_pipeline.formats.vizir.morph_credit`), exact in binary."""
        return vizir_format.morph_credit(self.correct, self.partially_correct)

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


def outcome_row(score: MorphScore, in_cd: bool, in_system: bool) -> list[int]:
    """The row of a record with verdict ``score`` counted (or not) in the two totals."""
    row = [0] * (3 * _FIELD_WIDTH)
    outcomes = (score.gender, score.number, score.combined)
    for base, outcome in zip(range(0, 3 * _FIELD_WIDTH, _FIELD_WIDTH), outcomes, strict=True):
        row[base + _OUTCOME_COLUMN[outcome]] = 1
        row[base + _TOTAL_CD] = int(in_cd)
        row[base + _TOTAL_SYSTEM] = int(in_system)
    return row


_ACCEPTED = (Header, Blank, DocEnd)


def count_morphology(lines: Iterable[RawLine], path: str = "") -> MorphologyCounts:
    """Count the scored records of ``.altmor`` lines (see ``open_raw_lines``), in one pass."""
    return join_stretches([count_stretch(lines, path)])


def _document_boundary(item: Line, path: str | None) -> str | None:
    """The DOCID a non-record line starts (None: none); a line not allowed is an error."""
    if isinstance(item, DOCUMENT_STARTS):
        return item.docid
    if isinstance(item, ALT_MARKS):
        raise InputError(
            path,
            "an .altmor file (ALT blocks resolved by AltinaMor)",
            "an <ALT> line",
            line=item.line or None,
        )
    if not isinstance(item, _ACCEPTED):
        raise InputError(path, "a .vizir record line", type(item).__name__, line=item.line or None)
    return None


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


def count_stretch(lines: Iterable[RawLine], path: str) -> StretchCounts:
    """The :class:`StretchCounts` of ``.altmor`` lines: the whole file, or a block of it.

    ALT blocks must already be resolved (AltinaMor): counting every
    alternative would count the same entities twice, so an ``<ALT>`` line
    is an input error here.  Each record is counted as the number of its
    cells (where its count row holds a 1; the key is ``scored_key``'s),
    and a document's row is added up from those numbers once.
    """
    documents: list[tuple[str, list[int]]] = []
    lead: list[int] | None = None
    docid: str | None = None  # None: no document line yet in this stretch
    numbers = _KEY_NUMBERS
    counted: list[int] = []  # the key number of each record of the open document
    count = counted.append
    cut, evaluate = cut_record, vizir_stage.evaluated_index  # looked up once a pass
    for number, text, eol in lines:
        if not text:  # a blank line
            continue
        record = cut(text) if text[:1] == "<" else None
        if record is None:
            item = parse_line(text, path, number, eol)
            if not isinstance(item, Record):
                started = _document_boundary(item, path)
                if started is not None:
                    if docid is not None:
                        documents.append((docid, _row(counted)))
                    elif counted:
                        lead = _row(counted)
                    docid, counted = started, []
                    count = counted.append
                continue
            record = record_text(item)
        gold_head, gold_text, heads, texts, items = record
        try:
            count(
                numbers[
                    gold_head, heads, items, None if heads is None else evaluate(gold_text, texts)
                ]
            )
        except InputError as error:
            raise located(error, path, number or None) from None
    if docid is not None:
        documents.append((docid, _row(counted)))
    elif counted:
        lead = _row(counted)
    return StretchCounts(lead, documents)


def _key_cells(key: ScoredKey) -> tuple[int, ...]:
    """Where the count row of a record with this key holds a 1: :func:`outcome_row` of its
    :func:`scored_facts`."""
    return tuple(i for i, v in enumerate(outcome_row(*scored_facts(key))) if v)


def _numbered_cells(cells: tuple[int, ...]) -> int:
    """A small number for ``cells``: its index in :data:`_CELLS`."""
    _CELLS.append(cells)
    return len(_CELLS) - 1


_CELLS: list[tuple[int, ...]] = []
"""The distinct cell sets seen, by number (a few dozen: three outcomes and two totals)."""
_CELL_NUMBERS: KeyedTable[tuple[int, ...], int] = KeyedTable(_numbered_cells, maxsize=1 << 30)
_KEY_NUMBERS: KeyedTable[ScoredKey, int] = KeyedTable(lambda key: _CELL_NUMBERS[_key_cells(key)])
"""The cell number of each key: records are counted as small numbers, one a record, and
a document's row is added up once from their :class:`~collections.Counter`."""


def _row(counted: list[int]) -> list[int]:
    """A document's count row from its records' cell numbers."""
    total = [0] * (3 * _FIELD_WIDTH)
    cells = _CELLS
    for found, n in Counter(counted).items():
        for i in cells[found]:
            total[i] += n
    return total


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
