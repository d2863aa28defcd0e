"""Ida2Mor: the counts of the morphological classification.

The rules are docs/spec/vizir-altinamor-ida2mor.md §5.

Counts first: :func:`count_morphology` reads a stream of ``.altmor`` lines
once and keeps only sufficient statistics, per field and per document, so
a document bootstrap or a campaign summary can re-add them without reading
a file again.  The measures are :mod:`harem_pipeline.measures.morphology`'s,
the report :mod:`harem_pipeline.reports.ida2mor`'s.
"""

from __future__ import annotations

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
)
from harem_pipeline.formats.vizir import MorphScore, Outcome, record_morph_score
from harem_pipeline.stages.tally import Counts, DocumentCounts, DocumentTally, Tally, row_names
from harem_pipeline.stages.vizir import Alignment, alignment_from_scored_record, counts_for_system

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
    in_cd = int(not alignment.spurious)
    in_system = int(counts_for_system(alignment))
    row = [0] * (3 * _FIELD_WIDTH)
    outcomes = (score.gender, score.number, score.combined)
    for base, outcome in zip(range(0, 3 * _FIELD_WIDTH, _FIELD_WIDTH), outcomes, strict=True):
        row[base + _OUTCOME_COLUMN[outcome]] = 1
        row[base + _TOTAL_CD] = in_cd
        row[base + _TOTAL_SYSTEM] = in_system
    return row


def count_record(alignment: Alignment, score: MorphScore) -> MorphologyTotals:
    """One scored record's contribution as counts."""
    tally = DocumentTally(MorphologyTotals)
    tally.add(record_row(alignment, score))
    return tally.freeze().total


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
        elif isinstance(item, (DocStart, DocumentLine)):
            tally.start(item.docid)
        elif isinstance(item, (AltOpen, AltClose)):
            raise InputError(
                path,
                "an .altmor file (ALT blocks resolved by AltinaMor)",
                "an <ALT> line",
                line=item.line or None,
            )
        elif not isinstance(item, _ACCEPTED):
            raise InputError(
                path, "a .vizir record line", type(item).__name__, line=item.line or None
            )
    frozen = tally.freeze()
    return MorphologyCounts(frozen.total, frozen.documents)
