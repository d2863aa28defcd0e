"""JSON lines of documents with gold and system spans.

One JSON object per line::

    {"id": "d1", "tokens": ["Sergei", "Lazarev", ...],
     "gold": [[0, 2, "PER"]], "system": [[0, 1, "PER"]]}

Spans are ``[start, end, label]`` over token positions, ``end`` exclusive,
``0 <= start < end <= len(tokens)``.  A label is a string; a vague one is
written ``"A|B"`` (or as a list ``["A", "B"]``) and matches either label.
``id`` is optional (the line number stands in for it).  Blank lines are
skipped.  Files are read one line at a time, so only one document is ever in
memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.model import Span, make_span
from harem_pipeline.text.textio import loads_json

_SPAN_EXPECTED = "a span [start, end, label] with 0 <= start < end <= {n} and a non-empty label"


@dataclass(frozen=True, slots=True)
class JsonlDocument:
    """One document: its tokens and both sides' spans (sorted)."""

    id: str
    line: int
    tokens: tuple[str, ...]
    gold: tuple[Span, ...]
    system: tuple[Span, ...]


def parse_jsonl(lines: Iterable[str], path: str | None = None) -> Iterator[JsonlDocument]:
    """Read documents lazily from ``lines``; bad input raises ``InputError``."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        yield parse_document(line, path, lineno)


def parse_document(line: str, path: str | None, lineno: int) -> JsonlDocument:
    """One JSON line as a document."""
    try:
        obj = loads_json(line, path, lineno)
    except json.JSONDecodeError as exc:
        raise InputError(path, "a JSON object", f"invalid JSON ({exc.msg})", line=lineno) from None
    if not isinstance(obj, dict):
        raise InputError(path, "a JSON object", type(obj).__name__, line=lineno)
    docid = str(obj.get("id", f"line {lineno}"))
    tokens = obj.get("tokens")
    if not isinstance(tokens, list):
        raise InputError(path, 'a "tokens" list', repr(tokens), line=lineno, docid=docid)
    sides = []
    for side in ("gold", "system"):
        spans = obj.get(side)
        if not isinstance(spans, list):
            raise InputError(
                path, f'a "{side}" list of spans', repr(spans), line=lineno, docid=docid
            )
        parsed = (_parse_span(s, len(tokens), path, lineno, docid) for s in spans)
        sides.append(tuple(sorted(parsed, key=span_key)))
    return JsonlDocument(docid, lineno, tuple(str(t) for t in tokens), sides[0], sides[1])


def _parse_span(raw: object, n: int, path: str | None, lineno: int, docid: str) -> Span:
    if isinstance(raw, list) and len(raw) == 3:
        start, end, label = raw
        if (
            isinstance(start, int)
            and isinstance(end, int)
            and not isinstance(start, bool)
            and not isinstance(end, bool)
            and 0 <= start < end <= n
            and _valid_label(label)
        ):
            return make_span(start, end, label)
    raise InputError(path, _SPAN_EXPECTED.format(n=n), json.dumps(raw), line=lineno, docid=docid)


def _valid_label(label: object) -> bool:
    if isinstance(label, str):
        return bool(label) and all(label.split("|"))
    return (
        isinstance(label, list)
        and bool(label)
        and all(isinstance(x, str) and x and "|" not in x for x in label)
    )


def span_key(span: Span) -> tuple[int, int, list[str]]:
    """A total order on spans (label sets compare by their sorted names)."""
    return span[0], span[1], sorted(span[2])


def format_label(labels: frozenset[str]) -> str:
    """A label set as written in the file: sorted names joined by ``|``."""
    return "|".join(sorted(labels))


def format_jsonl(documents: Iterable[JsonlDocument]) -> str:
    """Write documents, one JSON object per line (``parse_jsonl`` reads them back)."""
    return "".join(
        json.dumps(
            {
                "id": doc.id,
                "tokens": list(doc.tokens),
                "gold": [[s, e, format_label(labels)] for s, e, labels in doc.gold],
                "system": [[s, e, format_label(labels)] for s, e, labels in doc.system],
            },
            ensure_ascii=False,
        )
        + "\n"
        for doc in documents
    )
