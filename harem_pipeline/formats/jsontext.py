"""Report JSON as text: indented, with the per-document counts one document a line.

``documents`` (a report's per-document counts, what ``harem compare``
resamples) holds one small object per document; indenting each count on its
own line would make it most of the file.  Everything else is indented as
``json.dumps(indent=2)`` writes it, except that a pair of numbers (a
``ci95`` interval ``[low, high]``) stays on one line; floats keep every digit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

DOCUMENTS_KEY = "documents"
_NUMBER = r"-?\d[\d.eE+-]*"
_PAIR = re.compile(rf"\[\s+({_NUMBER}),\s+({_NUMBER})\s+\]")
_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps(x, ensure_ascii=False)`` is ``_ENCODER.encode(x)``: made once, not per document."""


def format_report_json(obj: Mapping[str, Any]) -> str:
    """``obj`` as indented JSON text with ``documents`` (if any) last, one document a line."""
    documents = obj.get(DOCUMENTS_KEY)
    rest = {key: value for key, value in obj.items() if key != DOCUMENTS_KEY}
    # newlines inside strings are escaped, so the pattern only meets real arrays
    head = _PAIR.sub(r"[\1, \2]", json.dumps(rest, ensure_ascii=False, indent=2))
    if DOCUMENTS_KEY not in obj:
        return head + "\n"
    if documents:
        encode = _ENCODER.encode
        rows = ",\n".join(
            f"    {encode(docid)}: {encode(counts)}" for docid, counts in documents.items()
        )
        body = "{\n" + rows + "\n  }"
    else:
        body = json.dumps(documents)
    if not rest:
        return "{\n  " + json.dumps(DOCUMENTS_KEY) + ": " + body + "\n}\n"
    return head[:-2] + ",\n  " + json.dumps(DOCUMENTS_KEY) + ": " + body + "\n}\n"
