"""Report JSON as text: indented, with the per-document objects one document a line.

``documents`` (a report's per-document counts, what ``harem compare``
resamples) holds one small object per document; indenting each count on its
own line would make it most of the file.  Everything else is indented as
``json.dumps(indent=2)`` writes it, except that a pair of numbers (a
``ci95`` interval ``[low, high]``) stays on one line; floats keep every digit.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import IO, Any

DOCUMENTS_KEY = "documents"
LINE_KEYS = ("per_document", DOCUMENTS_KEY)
"""Objects written one entry a line, last and in this order (when present)."""
_NUMBER = r"-?\d[\d.eE+-]*"
_PAIR = re.compile(rf"\[\s+({_NUMBER}),\s+({_NUMBER})\s+\]")
ENCODER = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps(x, ensure_ascii=False)`` is ``ENCODER.encode(x)``: made once, not per document."""


def format_report_json(obj: Mapping[str, Any]) -> str:
    """``obj`` as indented JSON text with ``documents`` (if any) last, one document a line."""
    out = io.StringIO()
    write_report_json(out, obj)
    return out.getvalue()


def write_report_json(
    handle: IO[str],
    obj: Mapping[str, Any],
    streams: Mapping[str, Iterable[str]] | None = None,
    lines: Mapping[str, Iterable[str]] | None = None,
) -> None:
    """Write ``obj`` as :func:`format_report_json` formats it, piece by piece.

    ``streams`` are arrays too long to hold as objects (an error listing):
    key → the items' JSON texts, written one a line after the other keys
    and before the ``LINE_KEYS`` objects, so the whole text never needs to
    be in memory.  ``lines`` gives ``LINE_KEYS`` objects as their entries'
    texts (``"key": value``), in place of ``obj``'s.
    """
    streams = streams or {}
    lines = lines or {}
    rest = {key: value for key, value in obj.items() if key not in LINE_KEYS}
    # newlines inside strings are escaped, so the pattern only meets real arrays
    head = _PAIR.sub(r"[\1, \2]", json.dumps(rest, ensure_ascii=False, indent=2))
    tails = [key for key in LINE_KEYS if key in obj or key in lines]
    if not streams and not tails:
        handle.write(head + "\n")
        return
    members = 0
    if rest:
        handle.write(head[:-2])
        members = len(rest)
    else:
        handle.write("{")
    for key, items in streams.items():
        handle.write(",\n  " if members else "\n  ")
        handle.write(json.dumps(key) + ": [")
        empty = True
        for batch in _batches(items):
            handle.write(("\n    " if empty else ",\n    ") + ",\n    ".join(batch))
            empty = False
        handle.write("]" if empty else "\n  ]")
        members += 1
    for key in tails:
        handle.write(",\n  " if members else "\n  ")
        entries = lines[key] if key in lines else entry_texts(obj[key].items())
        handle.write(json.dumps(key) + ": " + _lines_object(entries))
        members += 1
    handle.write("\n}\n")


def _batches(items: Iterable[str], size: int = 4096) -> Iterator[list[str]]:
    """``items`` in lists of ``size`` (one write per list, memory for one list)."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def entry_texts(items: Iterable[tuple[str, Any]]) -> Iterator[str]:
    """``(key, value)`` pairs as ``"key": value`` JSON texts (an object's entries)."""
    encode = ENCODER.encode
    for key, value in items:
        yield f"{encode(key)}: {encode(value)}"


def _lines_object(entries: Iterable[str]) -> str:
    """An object written one entry a line (indented as a member of the top object)."""
    rows = ",\n".join(f"    {entry}" for entry in entries)
    return "{\n" + rows + "\n  }" if rows else "{}"
