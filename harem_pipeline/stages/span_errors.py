"""Error listings and the confusion of the span measures, kept off the heap.

Every span that is not ``correct`` on the labelled view is one error entry
(see :class:`~harem_pipeline.stages.spans.Listing`)::

    {"kind": "boundary_error", "side": "system", "label": "PER",
     "start": 3, "end": 5, "text": "Vila Real", "document": ..., "sentence": ...,
     "other": [[3, 4, "PER"]]}

``start``/``end`` are token positions (``end`` exclusive) in the sentence
(CoNLL), the document (JSON lines) or the CD document's running text
(HAREM); ``other`` lists the spans of the other side that share a token
with it.  For each kind and side the number of entries is the labelled
category count of the report.

A file of any size has any number of errors, so they are not kept in
memory: each is encoded as one JSON object text and appended, by the
process that found it (a worker judging a chunk, or the reader), to that
process's file in a temporary folder; the spill keeps where each piece
is and reads them back in order when the report is written
(:meth:`ErrorSpill.lines`).  Memory holds one chunk's or document's errors.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from json.encoder import encode_basestring
from typing import Any, BinaryIO, NamedTuple

from harem_pipeline.formats.jsonl import format_label
from harem_pipeline.stages.spans import (
    BOUNDARY_KEY,
    KINDS_BY_SIDE,
    MISSING_KEY,
    SIDES,
    SPURIOUS_KEY,
    ConfusionKey,
    ErrorBatch,
    Listing,
    error_order,
)

ERROR_FIELDS = ("kind", "side", "label", "start", "end", "text", "document", "sentence", "other")
"""The keys of an error entry, in the order of the JSON objects and of the TSV columns."""

_string = encode_basestring
"""A string as JSON text (``json.dumps(x, ensure_ascii=False)`` for a ``str``, in C)."""
_LABELS: dict[frozenset[str], str] = {}


def _label(labels: frozenset[str]) -> str:
    """A label set as JSON text, ``"A|B"`` (made once per set)."""
    text = _LABELS.get(labels)
    if text is None:
        text = _LABELS[labels] = _string(format_label(labels))
    return text


def _value(value: Any) -> str:
    """A document or sentence name as JSON text (a line number, an id, or null)."""
    if value is None:
        return "null"
    return _string(value) if isinstance(value, str) else str(int(value))


_EXTRA_KEYS = (MISSING_KEY, SPURIOUS_KEY, BOUNDARY_KEY)


def _remove_folder(folder: str, owner: int) -> None:
    """Remove a spill folder, in the process that made it only (not in forked ones)."""
    if os.getpid() != owner:
        return
    own = _OWN_FILES.pop((folder, owner), None)
    if own is not None:
        own[0].close()
    shutil.rmtree(folder, ignore_errors=True)


class SpillPiece(NamedTuple):
    """Error entries written to a spill file: where, and how many."""

    file: str
    start: int
    size: int
    """In bytes (UTF-8)."""
    entries: int


_OWN_FILES: dict[tuple[str, int], tuple[BinaryIO, str]] = {}
"""The spill file this process writes in each spill folder."""


def spill_entries(folder: str, entries: str, count: int) -> SpillPiece | None:
    """Append ``count`` encoded entries (:func:`format_errors`) to this process's file
    in ``folder``: a worker judging chunks writes its errors itself, in parallel,
    and hands back only where they are.  None when there are none."""
    if not count:
        return None
    key = (folder, os.getpid())
    own = _OWN_FILES.get(key)
    if own is None:
        descriptor, name = tempfile.mkstemp(suffix=".jsonl", dir=folder)
        own = _OWN_FILES[key] = (os.fdopen(descriptor, "wb"), name)
    handle, name = own
    data = entries.encode("utf-8")
    start = handle.tell()
    handle.write(data)
    handle.flush()  # read by the parent, maybe while this process still runs
    return SpillPiece(name, start, len(data), count)


class ErrorSpill:
    """The errors of a report, spilled to files of a temporary folder as they are found.

    Each process that finds errors appends them to a file of its own
    (:func:`spill_entries`); the spill keeps the pieces in the order they
    were found.  The reader calls :meth:`flush` after each document with
    where the document is and how to show a token range; the tally's
    :class:`Listing` (``listing``) supplies the errors and the confusion.
    """

    __slots__ = ("listing", "folder", "pieces", "_count", "_remove", "__weakref__")

    def __init__(self) -> None:
        self.listing = Listing()
        self.folder = tempfile.mkdtemp(prefix="harem-errors-")
        self.pieces: list[SpillPiece] = []
        self._count = 0
        self._remove = weakref.finalize(self, _remove_folder, self.folder, os.getpid())

    def __len__(self) -> int:
        return self._count

    def flush(self, document: Any, sentence: Any, text: Callable[[int, int], str]) -> None:
        """Write the pending errors of the document just added."""
        entries, count = format_errors(
            self.listing.pending, lambda _: (document, sentence), lambda _, a, b: text(a, b)
        )
        self.listing.pending.clear()
        self.write(entries, count)

    def write(self, entries: str, count: int) -> None:
        """Append ``count`` entries already encoded (:func:`format_errors`)."""
        self.add(spill_entries(self.folder, entries, count))

    def add(self, piece: SpillPiece | None) -> None:
        """Take the next entries, written by :func:`spill_entries` (None: none)."""
        if piece is not None:
            self.pieces.append(piece)
            self._count += piece.entries

    def lines(self) -> Iterator[str]:
        """The encoded entries in the order they were found (one JSON object text each)."""
        files: dict[str, BinaryIO] = {}
        try:
            for piece in self.pieces:
                handle = files.get(piece.file)
                if handle is None:
                    handle = files[piece.file] = open(piece.file, "rb")  # noqa: SIM115
                handle.seek(piece.start)
                yield from handle.read(piece.size).decode("utf-8").split("\n")[:-1]
        finally:
            for handle in files.values():
                handle.close()

    def records(self) -> Iterator[dict[str, Any]]:
        """The entries as dicts."""
        for line in self.lines():
            yield json.loads(line)

    def close(self) -> None:
        """Remove the spill's files."""
        self._remove()

    def confusion(self) -> dict[str, dict[str, int]]:
        """``{gold key: {system key: n}}`` (see :class:`Listing`), keys as labels are written."""
        return confusion_table(self.listing.confusion)


def format_errors(
    batches: Sequence[ErrorBatch],
    place: Callable[[int], tuple[Any, Any]],
    text: Callable[[int, int, int], str],
) -> tuple[str, int]:
    """The entries of ``batches``, one JSON object text a line, and their number.

    Entries come in :func:`~harem_pipeline.stages.spans.error_order`; ``place(segment)``
    gives a segment's document and sentence, ``text(segment, start, end)``
    the words an entry quotes.  What an entry shares with others (its kind
    and label, the spans it touches, its segment's place) is written once.
    """
    if not any(batch.start for batch in batches):
        return "", 0
    heads: list[str] = []  # each entry's text up to its label
    others: list[str] = []  # the spans of the other side the entries touch, on across batches
    first: list[int] = []
    last: list[int] = []
    for batch in batches:
        names = [_label(labels) for labels in batch.sets]
        kinds = _HEADS[batch.gold]
        heads += [kinds[c] + names[k] for c, k in zip(batch.category, batch.kind, strict=True)]
        offset = len(others)
        first += [offset + b for b in batch.bounds[:-1]]
        last += [offset + b for b in batch.bounds[1:]]
        quoted = batch.others
        others += [
            f"[{s}, {e}, {names[k]}]"
            for s, e, k in zip(
                quoted.start.tolist(), quoted.end.tolist(), quoted.kind.tolist(), strict=True
            )
        ]
    order = error_order(batches).tolist()
    segments = [s for batch in batches for s in batch.segment]
    starts = [s for batch in batches for s in batch.start]
    ends = [e for batch in batches for e in batch.end]
    places: dict[int, str] = {}
    lines = []
    for i in order:
        segment, start, end = segments[i], starts[i], ends[i]
        where = places.get(segment)
        if where is None:
            document, sentence = place(segment)
            where = places[segment] = (
                f', "document": {_value(document)}, "sentence": {_value(sentence)}, "other": ['
            )
        words = _string(text(segment, start, end))
        touched = ", ".join(others[first[i] : last[i]])
        lines.append(
            f'{heads[i]}, "start": {start}, "end": {end}, "text": {words}{where}{touched}]}}\n'
        )
    return "".join(lines), len(lines)


_HEADS = tuple(
    tuple(f'{{"kind": "{kind}", "side": "{side}", "label": ' for kind in kinds)
    for side, kinds in zip(SIDES, KINDS_BY_SIDE, strict=True)
)
"""The start of an entry, by side (system, gold) and category."""


def confusion_table(
    cells: Counter[tuple[ConfusionKey, ConfusionKey]],
) -> dict[str, dict[str, int]]:
    """Confusion cells as nested dicts: label rows sorted, then ``(spurious)`` and ``(boundary)``.

    Labels are written as in the files (``A|B`` for a vague set); each row
    lists its label columns sorted, then ``(missing)`` and ``(boundary)``.
    """
    table: dict[str, dict[str, int]] = {}
    for (gold, system), n in cells.items():
        row = table.setdefault(_key(gold), {})
        column = _key(system)
        row[column] = row.get(column, 0) + n
    return {
        row: dict(sorted(table[row].items(), key=_key_order))
        for row in sorted(table, key=_key_order)
    }


def _key(key: ConfusionKey) -> str:
    return key if isinstance(key, str) else format_label(key)


def _key_order(item: str | tuple[str, Any]) -> tuple[int, str]:
    key = item if isinstance(item, str) else item[0]
    return (1 + _EXTRA_KEYS.index(key), "") if key in _EXTRA_KEYS else (0, key)
