"""One shape for every family's counts, one per-document tally, one merge.

Counts are frozen dataclasses of named numbers (:class:`Counts`); a field
may itself be counts (the morphology's three fields), so every count type
flattens to one row of numbers in field order, named ``field`` or
``field.subfield``.  That row is what a document bootstrap resamples and
what a report's JSON keeps per document.

Field names are English in the code, whatever the family; the reports map
them to the Portuguese labels and JSON keys of the HAREM reports.

:class:`DocumentTally` accumulates one count type over a file, record by
record, as plain lists of numbers: the hot path builds no object per
record, and sums are taken in file order (so floating-point totals are the
same bits as the original programs' running sums).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Generic, NamedTuple, TypeVar

from harem_pipeline.formats.alinhado import DocEnd, DocStart, DocumentLine, Line, Record
from harem_pipeline.text.memo import keyed_cache

C = TypeVar("C", bound="Counts")


@dataclass(frozen=True, slots=True)
class Counts:
    """Base of every count type: ``a + b`` adds field by field."""

    def __add__(self: C, other: C) -> C:
        if type(other) is not type(self):
            return NotImplemented
        return type(self)(
            *(getattr(self, name) + getattr(other, name) for name in field_names(type(self)))
        )

    def row(self) -> tuple[float, ...]:
        """Every number, flattened in field order (see :func:`row_names`)."""
        out: list[float] = []
        for name in field_names(type(self)):
            value = getattr(self, name)
            out.extend(value.row() if isinstance(value, Counts) else (value,))
        return tuple(out)

    def as_mapping(self, nonzero: bool = False) -> dict[str, float]:
        """``{row name: value}``; with ``nonzero`` the zero counts are left out."""
        pairs = zip(row_names(type(self)), self.row(), strict=True)
        return {key: value for key, value in pairs if value or not nonzero}


@keyed_cache()
def field_names(kind: type[Counts]) -> tuple[str, ...]:
    """The fields of a count type, in order."""
    return tuple(f.name for f in fields(kind))


@keyed_cache()
def _nested(kind: type[Counts]) -> tuple[type[Counts] | None, ...]:
    """Per field, the count type of a nested field (None for a number)."""
    defaults = kind()
    return tuple(
        type(value) if isinstance(value, Counts) else None
        for value in (getattr(defaults, name) for name in field_names(kind))
    )


@keyed_cache()
def row_names(kind: type[Counts]) -> tuple[str, ...]:
    """The names of a count type's row: ``field``, or ``field.sub`` for nested counts."""
    names: list[str] = []
    for name, nested in zip(field_names(kind), _nested(kind), strict=True):
        if nested is None:
            names.append(name)
        else:
            names.extend(f"{name}.{sub}" for sub in row_names(nested))
    return tuple(names)


def from_row(kind: type[C], values: Sequence[float]) -> C:
    """The counts whose :meth:`Counts.row` is ``values``."""
    args: list[object] = []
    at = 0
    for nested in _nested(kind):
        if nested is None:
            args.append(values[at])
            at += 1
        else:
            width = len(row_names(nested))
            args.append(from_row(nested, values[at : at + width]))
            at += width
    return kind(*args)


class DocumentCounts(NamedTuple, Generic[C]):
    """The counts of one document block (``docid`` empty for records before any document)."""

    docid: str
    counts: C


@dataclass(frozen=True, slots=True)
class Tally(Generic[C]):
    """A file's counts: the total and each document block's, in file order.

    A DOCID may occur in several blocks; :func:`merge_documents` adds them up.
    """

    total: C
    documents: tuple[DocumentCounts[C], ...]


@keyed_cache()
def nonzero(row: tuple[float, ...]) -> tuple[tuple[int, float], ...]:
    """The ``(index, value)`` of a row's non-zero numbers: the few a record adds, worked
    out once per row (most records add one of a handful of rows)."""
    return tuple([(i, value) for i, value in enumerate(row) if value])


class DocumentTally(Generic[C]):
    """Running sums of one count type for the whole file and the current document."""

    __slots__ = ("kind", "total", "current", "docid", "blocks")

    def __init__(self, kind: type[C]) -> None:
        self.kind = kind
        self.total = list(kind().row())
        self.current: list[float] | None = None
        self.docid: str | None = None
        self.blocks: list[DocumentCounts[C]] = []

    def start(self, docid: str) -> list[float]:
        """Close the current document (if any) and start counting ``docid``; its sums."""
        self.close()
        self.docid = docid
        current = self.current = list(self.kind().row())
        return current

    def close(self) -> None:
        """Close the current document block (nothing when none is open)."""
        if self.current is not None and self.docid is not None:
            self.blocks.append(DocumentCounts(self.docid, from_row(self.kind, self.current)))
        self.current = None
        self.docid = None

    @property
    def open(self) -> bool:
        return self.current is not None

    def add(self, row: Sequence[float]) -> None:
        """Add one record's contribution (a row in :func:`row_names` order)."""
        self.add_numbers(nonzero(tuple(row)))

    def add_numbers(self, numbers: Iterable[tuple[int, float]]) -> None:
        """Add ``(index, value)`` numbers (:func:`nonzero` of rows), one after the other."""
        total, current = self.total, self.current
        if current is None:
            for i, value in numbers:
                total[i] += value
        else:
            for i, value in numbers:
                total[i] += value
                current[i] += value

    def freeze(self) -> Tally[C]:
        self.close()
        return Tally(from_row(self.kind, self.total), tuple(self.blocks))


DOCUMENT_LINES = (DocStart, DocumentLine, DocEnd)
"""The lines :meth:`DocumentBoundaries.boundary` reads (any other leaves it as it was)."""

NO_DOCUMENT = ""
"""DOCID under which records found outside any ``DOC``/``EOD`` pair are counted."""


class DocumentBoundaries:
    """Which document the records being read belong to, telling ``tally`` as they come.

    ``DOC`` … ``EOD`` (or a First HAREM document line) starts a document; a
    First HAREM document line right after its ``DOC`` only renames it; records
    outside any document count under :data:`NO_DOCUMENT`.
    """

    __slots__ = ("tally", "records")

    def __init__(self, tally: DocumentTally) -> None:
        self.tally = tally
        self.records = 0

    def boundary(self, item: Line) -> None:
        """Note a line that is not a record (only document lines change anything)."""
        tally = self.tally
        if isinstance(item, DocumentLine) and tally.open and self.records == 0:
            tally.docid = item.docid
        elif isinstance(item, (DocStart, DocumentLine)):
            tally.start(item.docid)
            self.records = 0
        elif isinstance(item, DocEnd):
            tally.close()

    def record(self, count: int = 1) -> list[float]:
        """Note a record, or ``count`` records in a row (counted in the open document, or in
        :data:`NO_DOCUMENT`); the running sums of that document."""
        current = self.tally.current
        if current is None:
            current = self.tally.start(NO_DOCUMENT)
            self.records = 0
        self.records += count
        return current


def document_records(lines: Iterable[Line], tally: DocumentTally) -> Iterator[Record]:
    """The records of an evaluated file, each with ``tally`` counting its document.

    See :class:`DocumentBoundaries`; lines other than records and document
    lines pass.
    """
    boundaries = DocumentBoundaries(tally)
    for item in lines:
        if isinstance(item, Record):
            boundaries.record()
            yield item
        else:
            boundaries.boundary(item)


def merge_documents(documents: Iterable[tuple[str, C]]) -> dict[str, C]:
    """Blocks of one DOCID added up, documents in order of first appearance."""
    merged: dict[str, C] = {}
    for docid, counts in documents:
        earlier = merged.get(docid)
        merged[docid] = counts if earlier is None else earlier + counts
    return merged


def document_rows(documents: Iterable[tuple[str, C]]) -> dict[str, dict[str, float]]:
    """Each document's counts (blocks merged) as ``{row name: value}``, zeros left out.

    What a report's JSON keeps under ``documents`` and what the document
    bootstrap resamples.
    """
    return {docid: c.as_mapping(nonzero=True) for docid, c in merge_documents(documents).items()}
