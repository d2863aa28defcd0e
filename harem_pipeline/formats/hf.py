"""The Hugging Face token-classification layout, one document per JSON line.

::

    {"id": "HAREM-811-00058", "tokens": ["W", ".", "JAMES", ...],
     "ner_tags": ["B-PESSOA", "I-PESSOA", "I-PESSOA", ...]}

as the ``harem`` dataset on the Hub and ``datasets``' ``to_json`` write it:
``tokens`` and ``ner_tags`` of the same length, the tags as label names in a
CoNLL tagging scheme (IOB2 by default).  Integer tags (a ``ClassLabel``'s
ids) are read when the row carries their names as ``"tag_names"`` (a list,
index → name); without names they are an error.  Blank lines are skipped;
a file is read one line at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from harem_pipeline.errors import InputError


class HfRow(NamedTuple):
    """One document: its id, tokens, tag names and file line."""

    id: str
    tokens: list[str]
    tags: list[str]
    line: int


def parse_hf(lines: Iterable[str], path: str | None = None) -> Iterator[HfRow]:
    """Read the rows lazily; bad input raises ``InputError`` naming the line and id."""
    for lineno, line in enumerate(lines, 1):
        if line.strip():
            yield parse_row(line, path, lineno)


def parse_row(line: str, path: str | None, lineno: int) -> HfRow:
    """One JSON line as a row."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(path, "a JSON object", f"invalid JSON ({exc.msg})", line=lineno) from None
    if not isinstance(obj, dict):
        raise InputError(path, "a JSON object", type(obj).__name__, line=lineno)
    if "id" not in obj:
        raise InputError(path, 'an "id" (the DOCID)', "none", line=lineno)
    docid = str(obj["id"])
    tokens, tags = obj.get("tokens"), obj.get("ner_tags")
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise InputError(path, 'a "tokens" list of strings', repr(tokens)[:40], line=lineno)
    if not isinstance(tags, list) or len(tags) != len(tokens):
        found = repr(tags)[:40] if not isinstance(tags, list) else f"{len(tags)} tags"
        raise InputError(
            path, f'a "ner_tags" list of {len(tokens)} tags', found, line=lineno, docid=docid
        )
    return HfRow(docid, tokens, _tag_names(tags, obj.get("tag_names"), path, lineno, docid), lineno)


def _tag_names(
    tags: list[object], names: object, path: str | None, lineno: int, docid: str
) -> list[str]:
    """The tags as names: strings as they are, integers through ``names``."""
    strings = [t for t in tags if isinstance(t, str)]
    if len(strings) == len(tags):
        return strings
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError(
            path,
            'tag names, or integer tags with their names in "tag_names"',
            "integer tags without names",
            line=lineno,
            docid=docid,
        )
    out = []
    for tag in tags:
        if not isinstance(tag, int) or isinstance(tag, bool) or not 0 <= tag < len(names):
            raise InputError(
                path,
                f"a tag id between 0 and {len(names) - 1}",
                repr(tag),
                line=lineno,
                docid=docid,
            )
        out.append(names[tag])
    return out


def format_hf_row(docid: str, tokens: list[str], tags: list[str]) -> str:
    """One row as a JSON line (UTF-8 characters kept)."""
    return json.dumps({"id": docid, "tokens": tokens, "ner_tags": tags}, ensure_ascii=False) + "\n"
