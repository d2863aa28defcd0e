"""Character-offset JSON of documents and their entities: the models' HAREM files.

Two layouts, both read into ``CharDocument`` records:

* ``harem-json`` -- the layout the BERT-era Portuguese NER work trains and
  tests on (``data/model-formats/``): one JSON list of documents::

      [{"doc_id": "HAREM-361-02413", "doc_text": "...",
        "entities": [{"entity_id": "23", "text": "Fernando Ferreira", "label": "PESSOA",
                      "start_offset": 1, "end_offset": 18}, ...]}, ...]

* ``jsonl`` -- one document per line, in the spaCy/Prodigy shape::

      {"id": "HAREM-361-02413", "text": "...",
       "spans": [{"start": 1, "end": 18, "label": "PESSOA"}]}

  (``doc_id``/``doc_text``/``entities`` and ``start_offset``/``end_offset``
  are accepted as well).

Offsets are characters of the document's text, ``end`` exclusive, as in
:mod:`harem_pipeline.model`.  The text may be left out (then the offsets are
into the collection's own text); an entity's ``text``, when given, must be
the characters at its offsets.  Entities are returned sorted by position and
must not overlap.  A ``harem-json`` list is read one document at a time (the
decoder never holds more than the document being read and a 1 MiB chunk),
a JSON-lines file one line at a time.  Every problem is one ``InputError``
naming the file, the line where the document starts and its DOCID.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

from harem_pipeline.errors import InputError
from harem_pipeline.text.textio import loads_json, too_deep

_CHUNK_CHARS = 1 << 20
_DECODER = json.JSONDecoder()
_BLANK = " \t\r\n"


@dataclass(frozen=True, slots=True)
class CharEntity:
    """One predicted entity: characters ``start:end`` of its document and its label."""

    start: int
    end: int
    label: str
    text: str | None = None


@dataclass(frozen=True, slots=True)
class CharDocument:
    """One document of a character-offset file; ``text`` None: the collection's text."""

    docid: str
    text: str | None
    entities: tuple[CharEntity, ...]
    line: int = 0


# ---------------------------------------------------------------------------
# Reading


def parse_harem_json(
    source: TextIO | Iterable[str], path: str | None = None
) -> Iterator[CharDocument]:
    """The documents of a ``harem-json`` list, one at a time."""
    reader = _ListReader(source, path)
    for obj, line in reader.objects():
        yield document_from_object(obj, path, line, _HAREM_JSON_KEYS)


def parse_span_jsonl(lines: Iterable[str], path: str | None = None) -> Iterator[CharDocument]:
    """The documents of a JSON-lines file of ``{"id", "text", "spans"}`` objects."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = loads_json(line, path, lineno)
        except json.JSONDecodeError as exc:
            raise InputError(
                path, "a JSON object", f"invalid JSON ({exc.msg}, column {exc.colno})", line=lineno
            ) from None
        yield document_from_object(obj, path, lineno, _JSONL_KEYS)


# (docid keys, text keys, entity list keys) in order of preference.
_HAREM_JSON_KEYS = (("doc_id", "id"), ("doc_text", "text"), ("entities", "spans"))
_JSONL_KEYS = (("id", "doc_id"), ("text", "doc_text"), ("spans", "entities"))


def _first_key(obj: dict, keys: tuple[str, ...]) -> tuple[str, object]:
    for key in keys:
        if key in obj:
            return key, obj[key]
    return keys[0], None


def document_from_object(
    obj: object, path: str | None, line: int, keys: tuple[tuple[str, ...], ...] = _HAREM_JSON_KEYS
) -> CharDocument:
    """Check one decoded document object and turn it into a ``CharDocument``."""
    if not isinstance(obj, dict):
        raise InputError(path, "a JSON object per document", type(obj).__name__, line=line)
    id_key, docid = _first_key(obj, keys[0])
    if isinstance(docid, int) and not isinstance(docid, bool):
        docid = str(docid)
    if not isinstance(docid, str) or not docid.strip():
        raise InputError(path, f'a "{id_key}" string naming the document', repr(docid), line=line)
    docid = docid.strip()
    text_key, text = _first_key(obj, keys[1])
    if text is not None and not isinstance(text, str):
        raise InputError(
            path, f'a "{text_key}" string', type(text).__name__, line=line, docid=docid
        )
    list_key, raw = _first_key(obj, keys[2])
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise InputError(
            path, f'an "{list_key}" list of entities', type(raw).__name__, line=line, docid=docid
        )
    entities = sorted(
        (_entity(item, text, path, line, docid) for item in raw), key=lambda e: (e.start, e.end)
    )
    for before, after in zip(entities, entities[1:], strict=False):
        if after.start < before.end:
            raise InputError(
                path,
                "entities that do not overlap",
                f"{_describe(before)} and {_describe(after)}",
                line=line,
                docid=docid,
            )
    return CharDocument(docid, text, tuple(entities), line)


def _describe(entity: CharEntity) -> str:
    shown = f" {entity.text!r}" if entity.text is not None else ""
    return f"{entity.label}{shown} at {entity.start}..{entity.end}"


def _offset(item: dict, names: tuple[str, str]) -> int | None:
    """The value of the first of ``names`` in ``item``; None unless an integer (not a bool)."""
    value = next((item[name] for name in names if name in item), None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _entity(item: object, text: str | None, path: str | None, line: int, docid: str) -> CharEntity:
    if not isinstance(item, dict):
        raise InputError(path, "an entity object", json.dumps(item), line=line, docid=docid)
    start = _offset(item, ("start_offset", "start"))
    end = _offset(item, ("end_offset", "end"))
    label = item.get("label")
    shown = json.dumps(item, ensure_ascii=False)
    if start is None or end is None:
        raise InputError(path, "integer start and end offsets", shown, line=line, docid=docid)
    if not isinstance(label, str) or not label.strip():
        raise InputError(path, "a non-empty label", shown, line=line, docid=docid)
    if not 0 <= start < end:
        raise InputError(
            path,
            "offsets with 0 <= start < end",
            f"{start}..{end} in {shown}",
            line=line,
            docid=docid,
        )
    if text is not None and end > len(text):
        raise InputError(
            path,
            f"an end offset within the document's {len(text)} characters",
            f"{start}..{end} in {shown}",
            line=line,
            docid=docid,
        )
    written = item.get("text")
    if written is not None and not isinstance(written, str):
        raise InputError(path, "an entity text string", shown, line=line, docid=docid)
    if written is not None and text is not None and text[start:end] != written:
        raise InputError(
            path,
            f"the entity text {written!r} at {start}..{end}",
            repr(text[start:end]),
            line=line,
            docid=docid,
        )
    return CharEntity(start, end, label.strip(), written)


class _ListReader:
    """Decodes the objects of a top-level JSON list one at a time from a text stream."""

    def __init__(self, source: TextIO | Iterable[str], path: str | None) -> None:
        read = getattr(source, "read", None)
        if read is not None:
            self.chunks: Iterator[str] = iter(lambda: read(_CHUNK_CHARS), "")
        else:
            self.chunks = iter(source)
        self.path = path
        self.buffer = ""
        self.pos = 0
        self.line = 1  # file line of buffer[0]
        self.eof = False

    def _more(self) -> bool:
        if self.eof:
            return False
        chunk = next(self.chunks, None)
        if chunk is None:
            self.eof = True
            return False
        if self.pos > _CHUNK_CHARS:
            self.line += self.buffer.count("\n", 0, self.pos)
            self.buffer = self.buffer[self.pos :]
            self.pos = 0
        self.buffer += chunk
        return True

    def _line_at(self, pos: int) -> int:
        return self.line + self.buffer.count("\n", 0, pos)

    def _next_char(self) -> str:
        """The next non-blank character (not consumed); '' at the end of the file."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in _BLANK:
                self.pos += 1
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self._more():
                return ""

    def _error(self, expected: str, found: str) -> InputError:
        return InputError(self.path, expected, found, line=self._line_at(self.pos))

    def _found(self) -> str:
        char = self._next_char()
        return repr(self.buffer[self.pos : self.pos + 30]) if char else "the end of the file"

    def objects(self) -> Iterator[tuple[object, int]]:
        """(decoded object, line of its start) for each element of the list."""
        if self._next_char() != "[":
            raise self._error("a JSON list of documents ('[')", self._found())
        self.pos += 1
        if self._next_char() == "]":
            self.pos += 1
            self._finish()
            return
        while True:
            line = self._line_at(self.pos)
            yield self._decode(), line
            char = self._next_char()
            if char == ",":
                self.pos += 1
                continue
            if char == "]":
                self.pos += 1
                self._finish()
                return
            raise self._error("',' or ']' after a document", self._found())

    def _decode(self) -> object:
        if not self._next_char():
            raise self._error("a document", "the end of the file")
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                if self._more():
                    continue
                raise InputError(
                    self.path, "valid JSON", f"{exc.msg}", line=self._line_at(exc.pos)
                ) from None
            except RecursionError:
                raise too_deep(self.path, self._line_at(self.pos)) from None
            if end == len(self.buffer) and not self.eof and self._more():
                continue  # a number may go on in the next chunk
            self.pos = end
            return obj

    def _finish(self) -> None:
        if self._next_char():
            raise self._error("nothing after the list of documents", self._found())


# ---------------------------------------------------------------------------
# Writing


def document_object(doc: CharDocument, keys: str = "harem-json") -> dict:
    """The JSON object of one document in the ``harem-json`` or ``jsonl`` layout."""
    if keys == "jsonl":
        return {
            "id": doc.docid,
            "text": doc.text,
            "spans": [{"start": e.start, "end": e.end, "label": e.label} for e in doc.entities],
        }
    return {
        "doc_id": doc.docid,
        "doc_text": doc.text,
        "entities": [
            {
                "entity_id": str(number),
                "text": e.text,
                "label": e.label,
                "start_offset": e.start,
                "end_offset": e.end,
            }
            for number, e in enumerate(doc.entities)
        ],
    }


def format_harem_json(documents: Iterable[CharDocument]) -> Iterator[str]:
    """A ``harem-json`` list, one document per line, as pieces of text to write in turn."""
    yield "["
    for index, doc in enumerate(documents):
        yield ("\n" if index == 0 else ",\n") + json.dumps(document_object(doc), ensure_ascii=False)
    yield "\n]\n"


def format_span_jsonl(documents: Iterable[CharDocument]) -> Iterator[str]:
    """JSON lines in the spaCy/Prodigy shape, one document per line."""
    for doc in documents:
        yield json.dumps(document_object(doc, "jsonl"), ensure_ascii=False) + "\n"
