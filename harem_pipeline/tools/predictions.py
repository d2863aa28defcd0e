"""Model predictions in, a HAREM system run out (``harem import``).

A model's output -- character offsets (``harem-json``, ``jsonl``) or one
token per line with its tag (``conll``) -- becomes a run in the golden
collection's own format, carrying the collection's exact document text with
the predicted entities tagged, so every stage scores it as a participant's
run.

Where predictions land on the collection's text:

* **Character offsets** are laid over the collection's text through its
  *non-blank* characters: two texts that differ only in white space map
  exactly.  When the non-blank characters differ too (a dropped character,
  ``&amp;amp;`` written ``&amp;``), they are aligned in linear time: equal
  runs are taken whole (compared slice by slice), and at a difference the
  alignment resynchronises on the nearest place where 8 characters agree
  again, at most 64 characters away on either side, else on a 16-character
  anchor searched 4,096 characters ahead.  An entity keeps the characters
  that align: it starts at its first aligned character and ends after its
  last, so leading or trailing blanks are trimmed.  An entity none of whose
  characters align is on text the collection does not have: it is dropped
  with a warning that names it.  A document without a text takes its
  offsets straight into the collection's text.
* **CoNLL tokens** are matched in order against the document's text,
  skipping white space (a token may stand for a character reference:
  ``&`` for ``&amp;``).  The first token that cannot be matched is an
  ``InputError`` naming the file, line, token, DOCID and what the text has
  there.  A document's tokens and tags are read at once
  (:mod:`harem_pipeline.formats.conll_predictions`) and its tags decoded
  at once, its sentences kept apart, by the decoder of ``harem measures``
  (:class:`harem_pipeline.formats.conll.TagDecoder`), so IOB1, IOB2,
  IOE, IOBES and BILOU all read the same way; ``scheme`` only counts the
  sequences that break it.  Documents are named by ``-DOCSTART- DOCID`` or
  ``# doc_id = DOCID`` lines; unnamed ``-DOCSTART-`` lines, or no document
  lines at all, take the collection's documents in order (without any, a
  sentence moves to the next document once the current one has no text
  left).
* **Boundaries** never cut a character reference (``&amp;``): a boundary
  inside one moves out to include it.  A span that crosses a paragraph
  (``<P>``) boundary, or overlaps the entity before it once placed, cannot
  be written in the format: it is dropped with a warning.

Labels: ``CAT``, ``CAT:TIPO`` (``CAT-TIPO``, ``CAT_TIPO``, ``CAT:TIPO:SUBTIPO``),
split only when the prefix is a category of the Second HAREM grid
(``harem.conf``) or of the First HAREM; ``A|B`` is a vague category.  A
label is written as ``CATEG``/``TIPO``/``SUBTIPO`` (First HAREM: the element
name and ``TIPO``).

The run: the collection's documents in its order, each with the
collection's text and paragraphs and the predicted entities (IDs
``<DOCID>-<n>``); a collection document absent from the predictions is
written with no entities.  No ALT, OMITIDO or MORF.  A DOCID the collection
does not have, or given twice, is an ``InputError``.

Two ways in, one logic: :func:`build_run` takes a ``Collection`` and returns
one (then ``format_collection`` writes it); :func:`run_import` streams the
collection and the predictions a document at a time and writes the same
bytes (a test checks they are equal), so memory does not grow with the
number of documents when the predictions follow the collection's order
(out of order, the predictions read ahead are kept until their document
comes).
"""

from __future__ import annotations

import bisect
import contextlib
import html
import io
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import accumulate
from operator import add
from pathlib import Path
from typing import NamedTuple, TextIO

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES, TagDecoder
from harem_pipeline.formats.conll_predictions import (
    ConllColumns,
    ConllDocument,
    ConllSentence,
    conll_docids,
    read_conll_documents,
)
from harem_pipeline.formats.harem_json import CharDocument, parse_harem_json, parse_span_jsonl
from harem_pipeline.formats.harem_xml import format_collection, parse_collection
from harem_pipeline.formats.hf import parse_hf
from harem_pipeline.formats.spacy_docbin import read_docbin
from harem_pipeline.formats.veils import read_grid
from harem_pipeline.model import FIRST_HAREM, SECOND_HAREM, Collection, Document, Entity, Span
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import detect_file_encoding, open_binary
from harem_pipeline.tools.simulate import FIRST_HAREM_GRID

FORMATS = ("harem-json", "conll", "jsonl", "hf", "spacy")
DEFAULT_SCHEME = "lenient"

_BLANK = re.compile(r"\s")
# Blank characters made spaces before a text is cut at its blanks (others are rare).
_USUAL_BLANKS = ("\n", "\t", "\r", "\xa0", "\x0b", "\x0c")
_REFERENCE = re.compile(r"&#?\w+;")
_VALUE = re.compile(r"[^\s<>\"'&|]+")
_ANCHOR = 8
_RESYNC = 64
_FAR_ANCHOR = 16
_FAR_WINDOW = 4096
_WARNINGS_SHOWN = 20


# ---------------------------------------------------------------------------
# Labels


class Label(NamedTuple):
    """The semantic part of a predicted entity, as HAREM attributes."""

    categories: tuple[str, ...]
    types: tuple[str, ...] = ()
    subtypes: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def known_categories() -> frozenset[str]:
    """Categories a label prefix may name: the ``harem.conf`` grid's and the First HAREM's."""
    return frozenset(read_grid().categories) | frozenset(FIRST_HAREM_GRID)


@lru_cache(maxsize=4096)
def parse_label(label: str) -> Label:
    """``CAT``, ``CAT:TIPO`` (``-``, ``_``), ``CAT:TIPO:SUB``, ``A|B`` → a ``Label``.

    A prefix is split off only when it is a known category, so an unknown
    ``B-PER`` stays the category ``B-PER``.  Raises ``ValueError`` on a value
    that cannot be an attribute (blank, quotes, ``<``, ``>``, ``&``).
    """
    parsed = [_parse_part(part) for part in label.strip().split("|")]
    categories = tuple(p[0] for p in parsed)
    types = tuple(p[1] for p in parsed) if all(p[1] for p in parsed) else ()
    subtypes = tuple(p[2] for p in parsed) if types and all(p[2] for p in parsed) else ()
    for value in (*categories, *types, *subtypes):
        if not _VALUE.fullmatch(value):
            raise ValueError(f"label {label!r}: {value!r} cannot be a HAREM attribute value")
    return Label(categories, types, subtypes)


def _parse_part(part: str) -> tuple[str, str, str]:
    known = known_categories()
    cuts = sorted((part.find(sep), sep) for sep in (":", "-", "_") if part.find(sep) > 0)
    for index, sep in cuts:
        if part[:index] in known:
            rest = part[index + 1 :]
            if sep != "_" and sep in rest:
                kind, _, sub = rest.partition(sep)
                return part[:index], kind, sub
            return part[:index], rest, ""
    return part, "", ""


def format_label(entity_label: Label) -> str:
    """A label back as text, ``CAT`` or ``CAT:TIPO`` (the form ``parse_label`` reads)."""
    cats, types, subs = entity_label
    parts = []
    for index, cat in enumerate(cats):
        piece = cat
        if types:
            piece += ":" + types[index]
            if subs:
                piece += ":" + subs[index]
        parts.append(piece)
    return "|".join(parts)


# ---------------------------------------------------------------------------
# Non-blank characters of a text, and aligning two of them


class TextMap:
    """The non-blank characters of a text (``dense``) and where each stands in it.

    The text is cut at every blank character (``str.isspace``) into *parts*,
    each a run of non-blank characters, empty between two blanks in a row:
    part ``k`` starts at text offset ``dense offset + k`` (one blank before
    each part but the first), so one list of the parts' dense offsets maps
    both ways.  The usual blanks are made spaces by ``str.replace`` and the
    text cut by ``str.split(" ")``; a text with another blank character
    (checked: one is left among the non-blank characters) is cut by an
    expression.
    """

    __slots__ = ("text", "dense", "_starts", "_text_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        parts = _blank_parts(text)
        self.dense = "".join(parts)
        if self.dense and self.dense.split() != [self.dense]:  # a blank left: cut them all
            parts = _BLANK.split(text)
            self.dense = "".join(parts)
        # Where each part starts among the non-blank characters, and the total last.
        self._starts = list(accumulate(map(len, parts), initial=0))
        self._text_starts: list[int] | None = None  # each part's text offset, when asked

    def to_text(self, q: int) -> int:
        """The text offset of non-blank character ``q`` (``0 <= q < len(dense)``)."""
        return q + bisect.bisect_right(self._starts, q) - 1

    def to_dense(self, offset: int) -> int:
        """How many non-blank characters come before text offset ``offset``."""
        starts = self._starts
        if self._text_starts is None:
            self._text_starts = list(map(add, starts, range(len(starts) - 1)))
        k = bisect.bisect_right(self._text_starts, offset) - 1
        if k < 0:
            return 0
        return starts[k] + min(offset - starts[k] - k, starts[k + 1] - starts[k])

    def text_span(self, first: int, last: int) -> tuple[int, int]:
        """Text offsets of non-blank characters ``first`` to ``last`` (both included)."""
        return self.to_text(first), self.to_text(last) + 1

    def chunk_spans(self, starts: list[int], chunks: list[Span]) -> list[tuple[int, int]]:
        """``text_span`` of each chunk ``(lo, hi, _)`` of pieces whose non-blank offsets
        are ``starts`` (piece ``k`` from ``starts[k]`` to ``starts[k + 1]``)."""
        parts, find = self._starts, bisect.bisect_right
        return [
            (first + find(parts, first) - 1, last + find(parts, last))
            for first, last in [(starts[lo], starts[hi] - 1) for lo, hi, _ in chunks]
        ]


def _blank_parts(text: str) -> list[str]:
    """``text`` cut at each space, after its usual other blanks are made spaces."""
    for blank in _USUAL_BLANKS:
        if blank in text:
            text = text.replace(blank, " ")
    return text.split(" ")


def _common_run(a: str, i: int, b: str, j: int) -> int:
    """Length of the longest common prefix of ``a[i:]`` and ``b[j:]`` (slice compares)."""
    limit = min(len(a) - i, len(b) - j)
    n, step = 0, 64
    while n < limit:
        size = min(step, limit - n)
        if a[i + n : i + n + size] == b[j + n : j + n + size]:
            n += size
            step *= 2
        elif size == 1:
            break
        else:
            step = max(1, size // 2)
    return n


def _resync(a: str, i: int, b: str, j: int) -> tuple[int, int] | None:
    """The nearest ``(i', j')`` past a difference where the two texts agree again.

    Agreement is 8 characters (fewer near the end of a text: 4, then 2).
    """
    remaining = min(len(a) - i, len(b) - j)
    for anchor in sorted(
        {min(_ANCHOR, remaining), min(4, remaining), min(2, remaining)} - {0}, reverse=True
    ):
        for distance in range(1, _RESYNC + 1):
            for skip in range(distance + 1):
                x, y = i + skip, j + distance - skip
                piece = a[x : x + anchor]
                if len(piece) == anchor and piece == b[y : y + anchor]:
                    return x, y
        if anchor == _ANCHOR:
            for x in range(i, min(len(a), i + _FAR_WINDOW), _FAR_ANCHOR):
                piece = a[x : x + _FAR_ANCHOR]
                if len(piece) < _FAR_ANCHOR:
                    break
                y = b.find(piece, j, j + _FAR_WINDOW + len(piece))
                if y >= 0:
                    return x, y
    return None


@dataclass(frozen=True, slots=True)
class CharAlignment:
    """Matched runs ``(i, j, n)``: ``a[i:i+n] == b[j:j+n]``, in increasing order."""

    blocks: tuple[tuple[int, int, int], ...]

    def first_at_or_after(self, q: int, limit: int) -> int | None:
        """The ``b`` position of the first aligned ``a`` position in ``[q, limit)``."""
        k = max(0, bisect.bisect_right(self.blocks, (q, float("inf"), 0)) - 1)
        for i, j, n in self.blocks[k:]:
            if i >= limit:
                return None
            if q < i + n:
                return j + max(0, q - i)
        return None

    def last_before(self, q: int, floor: int) -> int | None:
        """The ``b`` position of the last aligned ``a`` position in ``[floor, q)``."""
        k = bisect.bisect_right(self.blocks, (q - 1, float("inf"), 0)) - 1
        while k >= 0:
            i, j, n = self.blocks[k]
            if i + n <= floor:
                return None
            last = min(q - 1, i + n - 1)
            if last >= max(i, floor):
                return j + last - i
            k -= 1
        return None


def align_dense(a: str, b: str) -> CharAlignment:
    """Align two strings of non-blank characters in linear time (see the module notes)."""
    if a == b:
        return CharAlignment(((0, 0, len(a)),) if a else ())
    blocks: list[tuple[int, int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        n = _common_run(a, i, b, j)
        if n:
            blocks.append((i, j, n))
            i, j = i + n, j + n
            continue
        found = _resync(a, i, b, j)
        if found is None:
            break
        i, j = found
    return CharAlignment(tuple(blocks))


def snap_to_references(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen ``start:end`` so neither end falls inside a ``&...;`` reference."""
    if "&" not in text[max(0, start - 10) : end + 10]:
        return start, end
    for m in _REFERENCE.finditer(text, max(0, start - 10), start + 10):
        if m.start() < start < m.end():
            start = m.start()
    for m in _REFERENCE.finditer(text, max(0, end - 10), end + 10):
        if m.start() < end < m.end():
            end = m.end()
    return start, end


# ---------------------------------------------------------------------------
# One document's placed entities


class Placed(NamedTuple):
    """A predicted entity on the collection's text: ``start:end`` and its label."""

    start: int
    end: int
    label: Label


@dataclass(slots=True)
class ImportSummary:
    """What an import did: counts, and a warning per entity dropped."""

    documents: int = 0
    predicted: int = 0
    absent: int = 0
    entities: int = 0
    dropped: Counter = field(default_factory=Counter)
    repairs: int = 0
    foreign_labels: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    absent_as: str = "without entities"
    """How absent documents were written (``--only-predicted``: empty, not scored)."""
    label_map: dict[str, str] = field(default_factory=dict)
    """A model's labels renamed before they are read (``--label-map``: ``PER`` → ``PESSOA``)."""

    def drop(self, reason: str, message: str) -> None:
        self.dropped[reason] += 1
        self.warnings.append(message)

    def format(self, shown: int = _WARNINGS_SHOWN) -> str:
        """The summary printed on stderr: warnings (the first ``shown``), then the counts."""
        lines = [f"warning: {w}" for w in self.warnings[:shown]]
        if len(self.warnings) > shown:
            lines.append(f"warning: ... and {len(self.warnings) - shown} more")
        dropped = sum(self.dropped.values())
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(self.dropped.items()))
        lines.append(
            f"{self.documents} documents ({self.predicted} predicted, {self.absent} absent from "
            f"the predictions, written {self.absent_as}); {self.entities} entities imported, "
            f"{dropped} dropped" + (f" ({why})" if why else "")
        )
        if self.repairs:
            lines.append(
                f"{self.repairs} tag sequences broke the tagging scheme (read as conlleval)"
            )
        if self.foreign_labels:
            names = ", ".join(f"{k} ({n})" for k, n in self.foreign_labels.most_common(10))
            lines.append(f"categories outside the HAREM grids: {names}")
        return "\n".join(lines) + "\n"


def _boundaries(doc: Document) -> list[int]:
    return sorted({x for region in doc.paragraphs for x in region})


def _label(raw: str, summary: ImportSummary, path: str | None, line: int, docid: str) -> Label:
    try:
        label = parse_label(summary.label_map.get(raw, raw))
    except ValueError as exc:
        raise _bad_label(exc, path, line, docid) from None
    _count_foreign(label, summary)
    return label


def _bad_label(exc: ValueError, path: str | None, line: int, docid: str) -> InputError:
    return InputError(path, "a label usable as a HAREM category", str(exc), line=line, docid=docid)


def _count_foreign(label: Label, summary: ImportSummary) -> None:
    for cat in _foreign_categories(label):
        summary.foreign_labels[cat] += 1


@lru_cache(maxsize=4096)
def _foreign_categories(label: Label) -> tuple[str, ...]:
    """The label's categories outside the HAREM grids (found once per label)."""
    known = known_categories()
    return tuple(cat for cat in label.categories if cat not in known)


# Why a placed entity cannot be written: the reason counted, and the warning's words.
_CROSSING = ("crossing a paragraph", "crosses a paragraph boundary")
_OVERLAPPING = (
    "overlapping once placed",
    "overlaps the entity before it once placed on the collection's text",
)


def _keep(
    text: str,
    placed: list[Placed],
    start: int,
    end: int,
    label: Label,
    boundaries: Sequence[int],
    refs: bool = True,
) -> tuple[str, str] | None:
    """Append the entity ``start:end`` to ``placed`` unless it cannot be written.

    Returns why not (``_CROSSING``, ``_OVERLAPPING``), None when kept: the
    caller names the entity in the warning only then.  ``refs``: whether the
    text may hold a character reference (False: none to snap to).
    """
    if refs:
        start, end = snap_to_references(text, start, end)
    if boundaries:
        k = bisect.bisect_right(boundaries, start)
        if k < len(boundaries) and boundaries[k] < end:
            return _CROSSING
    if placed and start < placed[-1].end:
        return _OVERLAPPING
    placed.append(Placed(start, end, label))
    return None


def _drop(summary: ImportSummary, why: tuple[str, str], docid: str, shown: str) -> None:
    reason, words = why
    summary.drop(reason, f"{docid}: {shown} {words}")


def _decoded_view(text: str, source: TextMap) -> tuple[TextMap, list[int]] | None:
    """When the predictions' text is the collection's with its character references read
    (the published HAREM JSON files; white space may differ): that text's map, and for
    each of its offsets the collection's.  None otherwise."""
    if "&" not in text:
        return None
    plain, where = decode_references(text)
    plain_map = TextMap(plain)
    if plain_map.dense != source.dense:
        return None
    inverse = [0] * (len(plain) + 1)
    for raw, offset in enumerate(where):
        inverse[offset] = raw  # the last: after a whole reference, not inside it
    return plain_map, inverse


def place_char_document(
    doc: Document, pred: CharDocument, summary: ImportSummary, path: str | None = None
) -> list[Placed]:
    """The entities of a character-offset document placed on the collection document."""
    target = TextMap(doc.text)
    if pred.text is None or pred.text == doc.text:
        source, alignment = target, None
    else:
        source = TextMap(pred.text)
        alignment = (
            None if source.dense == target.dense else align_dense(source.dense, target.dense)
        )
    decoded = None if alignment is None else _decoded_view(doc.text, source)
    if decoded is not None:
        alignment = None  # the text with its references read: mapped exactly
    text = doc.text if pred.text is None else pred.text
    boundaries = _boundaries(doc)
    placed: list[Placed] = []
    for entity in pred.entities:
        if pred.text is None and entity.end > len(doc.text):
            raise InputError(
                path,
                f"an end offset within the collection document's {len(doc.text)} characters",
                f"{entity.start}..{entity.end}",
                line=pred.line,
                docid=pred.docid,
            )
        label = _label(entity.label, summary, path, pred.line, pred.docid)
        shown = (
            f"{entity.label} {text[entity.start : entity.end]!r} at {entity.start}..{entity.end}"
        )
        first, stop = source.to_dense(entity.start), source.to_dense(entity.end)
        if stop <= first:
            summary.drop("blank", f"{pred.docid}: {shown} holds no visible character")
            continue
        if decoded is not None:
            plain, inverse = decoded
            raw_start = inverse[plain.to_text(first)]
            raw_end = inverse[plain.to_text(stop - 1) + 1]
            first, last = target.to_dense(raw_start), target.to_dense(raw_end) - 1
        elif alignment is not None:
            mapped_first = alignment.first_at_or_after(first, stop)
            mapped_last = alignment.last_before(stop, first)
            if mapped_first is None or mapped_last is None or mapped_last < mapped_first:
                summary.drop(
                    "not in the collection's text",
                    f"{pred.docid}: {shown} is on text the collection does not have",
                )
                continue
            first, last = mapped_first, mapped_last
        else:
            last = stop - 1
        start, end = target.text_span(first, last)
        why = _keep(doc.text, placed, start, end, label, boundaries)
        if why is not None:
            _drop(summary, why, doc.docid, shown)
    return placed


# ---------------------------------------------------------------------------
# CoNLL: tokens and tags


def decode_references(text: str) -> tuple[str, list[int]]:
    """``text`` with its character references read once (``&amp;`` → ``&``, ``&amp;amp;``
    → ``&amp;``: what an XML parser gives, and the published HAREM JSON files hold),
    and where each offset of ``text`` (``len(text) + 1`` of them) lands in it.

    An offset inside a reference lands after its character.
    """
    pieces: list[str] = []
    where: list[int] = []
    pos = size = 0
    for match in _REFERENCE.finditer(text):
        plain = text[pos : match.start()]
        where.extend(range(size, size + len(plain)))
        size += len(plain)
        character = html.unescape(match.group())
        where.append(size)
        where.extend([size + len(character)] * (len(match.group()) - 1))
        pieces += [plain, character]
        size += len(character)
        pos = match.end()
    rest = text[pos:]
    where.extend(range(size, size + len(rest) + 1))
    return "".join(pieces) + rest, where


def _cuts_reference(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` ends inside a character reference (``Net&`` of
    ``Net&amp;Tek``): then a token ``&`` stands for the whole reference."""
    amp = text.rfind("&", start, end)
    if amp < 0:
        return False
    ref = _REFERENCE.match(text, amp)
    return ref is not None and ref.end() > end


def _match_token(text: str, pos: int, token: str) -> tuple[int, int] | None:
    """Where ``token`` stands at ``pos`` (blanks skipped), reading references as characters.

    Either the token is the text's characters as written, or a reference of
    the text (``&amp;``) stands in the token for its character (``&``), or
    the other way round.
    """
    size = len(text)
    while pos < size and text[pos].isspace():
        pos += 1
    if text.startswith(token, pos) and not _cuts_reference(text, pos, pos + len(token)):
        return pos, pos + len(token)
    start, i = pos, 0
    while i < len(token):
        ref = _REFERENCE.match(text, pos)
        if ref is not None and html.unescape(ref.group()) == token[i]:
            pos, i = ref.end(), i + 1
            continue
        if pos < size and text[pos] == token[i]:
            pos, i = pos + 1, i + 1
            continue
        own = _REFERENCE.match(token, i)
        if own is not None and pos < size and html.unescape(own.group()) == text[pos]:
            pos, i = pos + 1, own.end()
            continue
        return None
    return start, pos


class _Cursor:
    """Where the next token of a CoNLL document is looked for in a collection document."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.map = TextMap(doc.text)
        self.q = 0  # non-blank characters consumed

    @property
    def exhausted(self) -> bool:
        return self.q >= len(self.map.dense)

    def token_spans(
        self, tokens: list[str], line_of: Callable[[int], int], path: str | None
    ) -> Callable[[list[Span]], list[tuple[int, int]]]:
        """Match the tokens; return ``chunks → text spans``, a chunk ``(lo, hi, _)``
        covering tokens ``lo..hi-1``.

        When the tokens are the next non-blank characters of the text (the
        usual file), a token's place is its offset among them and a chunk's
        ends are mapped to text offsets alone; else each token is matched on
        the text in turn (references read as characters).
        """
        joined = "".join(tokens)
        dense_map = self.map
        if dense_map.dense.startswith(joined, self.q):
            starts = list(accumulate(map(len, tokens), initial=self.q))
            self.q = starts[-1]
            return lambda chunks: dense_map.chunk_spans(starts, chunks)
        text = self.doc.text
        pos = dense_map.to_text(self.q) if not self.exhausted else len(text)
        spans: list[tuple[int, int]] = []
        for index, token in enumerate(tokens):
            where = _match_token(text, pos, token)
            if where is None:
                raise InputError(
                    path,
                    f"the token {token!r} next in the text of the document",
                    f"the text has {_there(text, pos)}",
                    line=line_of(index),
                    docid=self.doc.docid,
                )
            spans.append(where)
            pos = where[1]
        self.q = dense_map.to_dense(pos)
        return lambda chunks: [(spans[lo][0], spans[hi - 1][1]) for lo, hi, _ in chunks]


def _there(text: str, pos: int) -> str:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return repr(text[pos : pos + 30]) if pos < len(text) else "no more text"


class _ConllPlacer:
    """Places the sentences of one CoNLL document on one collection document."""

    def __init__(self, doc: Document, scheme: str, summary: ImportSummary, path: str | None):
        self.cursor = _Cursor(doc)
        self.doc = doc
        self.scheme = scheme
        self.summary = summary
        self.path = path
        self.placed: list[Placed] = []
        self.boundaries = _boundaries(doc)

    def add(self, sentence: ConllSentence) -> None:
        """Place one sentence."""
        self._add(sentence.tokens, sentence.tags, lambda k: sentence.line + k)

    def add_sentences(self, sentences: Sequence[ConllSentence]) -> None:
        """Place a document's sentences at once (see ``add_columns``)."""
        self.add_columns(ConllColumns.of_sentences(sentences))

    def add_columns(self, columns: ConllColumns) -> None:
        """Place a document's tokens at once: its sentences joined with an empty token
        tagged ``O`` after each (which ends a chunk as a sentence end does), decoded once."""
        if columns.tokens:
            self._add(columns.tokens, columns.tags, columns.line_of)

    def _add(self, tokens: list[str], tags: list[str], line_of: Callable[[int], int]) -> None:
        locate = self.cursor.token_spans(tokens, line_of, self.path)
        try:
            chunks, repairs = _tag_decoder(self.scheme, self.path)(tags, line=0)
        except InputError as exc:
            line = None if exc.line is None else line_of(exc.line)
            raise InputError(exc.path, exc.expected, exc.found, line=line) from None
        self.summary.repairs += repairs
        if not chunks:
            return
        doc, summary, placed, boundaries = self.doc, self.summary, self.placed, self.boundaries
        text = doc.text
        refs = "&" in text
        foreign_labels = summary.foreign_labels
        for (lo, _hi, labels), (start, end) in zip(chunks, locate(chunks), strict=True):
            (raw,) = labels
            try:
                label, foreign = _parsed_label(summary.label_map.get(raw, raw))
            except ValueError as exc:
                raise _bad_label(exc, self.path, line_of(lo), doc.docid) from None
            for category in foreign:
                foreign_labels[category] += 1
            why = _keep(text, placed, start, end, label, boundaries, refs)
            if why is not None:
                shown = f"{raw} {text[start:end]!r} (line {line_of(lo)})"
                _drop(summary, why, doc.docid, shown)


@lru_cache(maxsize=8)
def _tag_decoder(scheme: str, path: str | None) -> TagDecoder:
    """One decoder per file and scheme, so a file's tags are parsed once, not per document."""
    return TagDecoder(scheme, path)


@lru_cache(maxsize=4096)
def _parsed_label(raw: str) -> tuple[Label, tuple[str, ...]]:
    """``parse_label`` of a tag's type and its foreign categories, once per type."""
    label = parse_label(raw)
    return label, _foreign_categories(label)


# ---------------------------------------------------------------------------
# Predictions: one record per document, whatever the format


class Prediction(NamedTuple):
    """One predicted document: its DOCID (None: the next one in order), line, and content.

    ``flow`` marks a sentence of a CoNLL file with no document lines: such
    sentences fill the collection's documents in turn.
    """

    docid: str | None
    line: int
    content: CharDocument | list[ConllSentence] | ConllColumns
    flow: bool = False


def read_predictions(
    fmt: str, source: TextIO | Iterable[str], path: str | None = None
) -> Iterator[Prediction]:
    """The documents of a predictions file in ``fmt``, in file order."""
    if fmt == "harem-json":
        for doc in parse_harem_json(source, path):
            yield Prediction(doc.docid, doc.line, doc)
    elif fmt == "jsonl":
        for doc in parse_span_jsonl(source, path):
            yield Prediction(doc.docid, doc.line, doc)
    elif fmt == "conll":
        yield from _conll_predictions(read_conll_documents(source, path), path)
    elif fmt == "hf":  # a row is a named document of one sentence
        for row in parse_hf(source, path):
            yield Prediction(row.id, row.line, [ConllSentence(row.tokens, row.tags, row.line)])
    elif fmt == "spacy":  # binary: read from the path, not the text source
        for item in read_docbin(path or ""):
            if isinstance(item, tuple):
                yield Prediction(None, item[1].line, item[1])
            else:
                yield Prediction(item.docid, item.line, item)
    else:
        raise InputError(path, f"a predictions format among {', '.join(FORMATS)}", fmt)


def _conll_predictions(
    items: Iterable[ConllSentence | ConllDocument | ConllColumns], path: str | None
) -> Iterator[Prediction]:
    current: Prediction | None = None
    named: bool | None = None
    for item in items:
        if isinstance(item, ConllDocument):
            if named is not None and named != (item.docid is not None):
                raise InputError(
                    path,
                    "every document named by its DOCID, or none",
                    item.docid or "an unnamed -DOCSTART-",
                    line=item.line,
                )
            named = item.docid is not None
            if current is not None:
                yield current
            current = Prediction(item.docid, item.line, [])
        elif current is None:
            if named is not None:
                raise InputError(
                    path, "a document line before the tokens", item.tokens[0], line=item.line
                )
            yield Prediction(None, item.line, [item], flow=True)
        elif isinstance(item, ConllColumns):
            current = current._replace(content=item)
        else:
            current.content.append(item)  # type: ignore[union-attr]
    if current is not None:
        yield current


# ---------------------------------------------------------------------------
# The merge of the collection's documents with the predictions


class ImportedDocument(NamedTuple):
    """A collection document and the predicted entities placed on it."""

    document: Document
    entities: list[Placed]


def _emptied(doc: Document) -> Document:
    """``doc`` with no text and no markup: a document the run does not submit."""
    return replace(
        doc,
        text="",
        entities=(),
        alt_blocks=(),
        paragraphs=(),
        omitted=(),
        omitted_entities=(),
        omitted_outer=(),
    )


def import_documents(
    cd_documents: Iterable[Document],
    predictions: Iterable[Prediction],
    summary: ImportSummary,
    scheme: str = DEFAULT_SCHEME,
    path: str | None = None,
    named: dict[str, int] | None = None,
    only_predicted: bool = False,
) -> Iterator[ImportedDocument]:
    """Each collection document, in order, with its predicted entities placed.

    A document the predictions do not name is written without entities, or
    with ``only_predicted`` without text either: the aligner then leaves it
    out (its rule for an empty run document), so only the predicted
    documents are scored.

    ``named`` maps every DOCID of the predictions to its line (from a first
    pass, :func:`predicted_docids`); it tells a document absent from the
    predictions from one still to come, so predictions in the collection's
    order are read in step and never held.  None: the predictions name no
    documents and follow the collection's order.
    """
    if scheme not in SCHEMES:
        raise InputError(path, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    if named is None:
        yield from _in_order(cd_documents, iter(predictions), summary, scheme, path)
        return
    stream = iter(predictions)
    waiting: dict[str, Prediction] = {}
    done: set[str] = set()
    for doc in cd_documents:
        summary.documents += 1
        found = waiting.pop(doc.docid, None)
        if found is None and doc.docid in named:
            for pred in stream:
                if pred.docid in waiting or pred.docid in done:
                    raise InputError(
                        path,
                        "each DOCID once",
                        f"{pred.docid} again",
                        line=pred.line,
                        docid=pred.docid,
                    )
                if pred.docid == doc.docid:
                    found = pred
                    break
                waiting[pred.docid] = pred  # type: ignore[index]
        done.add(doc.docid)
        if found is None:
            summary.absent += 1
            yield ImportedDocument(_emptied(doc) if only_predicted else doc, [])
            continue
        summary.predicted += 1
        yield ImportedDocument(doc, _place(doc, found, summary, scheme, path))
    for pred in (*waiting.values(), *stream):
        docid = pred.docid or ""
        expected = "a DOCID given once" if docid in done else "a DOCID of the collection"
        raise InputError(path, expected, docid, line=pred.line, docid=docid)


def _place(
    doc: Document, pred: Prediction, summary: ImportSummary, scheme: str, path: str | None
) -> list[Placed]:
    if isinstance(pred.content, CharDocument):
        placed = place_char_document(doc, pred.content, summary, path)
    else:
        placer = _ConllPlacer(doc, scheme, summary, path)
        if isinstance(pred.content, ConllColumns):
            placer.add_columns(pred.content)
        else:
            placer.add_sentences(pred.content)
        placed = placer.placed
    summary.entities += len(placed)
    return placed


def _in_order(
    cd_documents: Iterable[Document],
    stream: Iterator[Prediction],
    summary: ImportSummary,
    scheme: str,
    path: str | None,
) -> Iterator[ImportedDocument]:
    """Unnamed predictions: each ``-DOCSTART-`` the next document, or sentences flowing on."""
    pending = next(stream, None)
    for doc in cd_documents:
        summary.documents += 1
        if pending is None:
            summary.absent += 1
            yield ImportedDocument(doc, [])
            continue
        summary.predicted += 1
        if not pending.flow:
            placed = _place(doc, pending, summary, scheme, path)
            pending = next(stream, None)
            yield ImportedDocument(doc, placed)
            continue
        placer = _ConllPlacer(doc, scheme, summary, path)
        while pending is not None and pending.flow and not placer.cursor.exhausted:
            placer.add(pending.content[0])  # type: ignore[index]
            pending = next(stream, None)
        summary.entities += len(placer.placed)
        yield ImportedDocument(doc, placer.placed)
    if pending is not None:
        raise InputError(
            path,
            "no more predicted documents than the collection has",
            f"predictions left after its last document: {_first_token(pending)}",
            line=pending.line,
        )


def _first_token(pred: Prediction) -> str:
    if isinstance(pred.content, ConllColumns) and pred.content.tokens:
        return repr(pred.content.tokens[0])
    if isinstance(pred.content, list) and pred.content:
        return repr(pred.content[0].tokens[0])
    return "a document"


def predicted_docids(
    fmt: str, source: TextIO | Iterable[str], path: str | None = None
) -> dict[str, int] | None:
    """DOCID → line of every document a predictions file names; None when it names none.

    A CoNLL file is only scanned for its document lines
    (:func:`harem_pipeline.formats.conll_predictions.conll_docids`); the
    other formats are read through.
    """
    named: dict[str, int] = {}
    if fmt == "conll":
        return conll_docids(source)
    for pred in read_predictions(fmt, source, path):
        if pred.docid is None:  # a DocBin without DOCIDs: taken in order
            return None
        named.setdefault(pred.docid, pred.line)
    return named


# ---------------------------------------------------------------------------
# The collection, one document at a time

# Elements the run needs from the collection (document structure, paragraphs,
# ALT blocks whose first alternative is the running text); every other tag
# (entities, OMITIDO) adds no character to the running text and is skipped
# before parsing, when it holds no line end (so line numbers stay right).
_CHUNK_CHARS = 1 << 20
_STRUCTURE = frozenset({"DOC", "DOCID", "GENERO", "ORIGEM", "TEXTO", "ALT", "P"})
_SKIPPABLE = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<ALT\s*>.*?</ALT\s*>"
    r"|<(/?)([^\s<>/=\"'!?]+)(?:[^<>\"'\n]|\"[^\"<\n]*\"|'[^'<\n]*')*>",
    re.DOTALL,
)
_ALT_WHOLE = re.compile(r"<ALT\s*>.*?</ALT\s*>", re.DOTALL)  # as _SKIPPABLE has them
_DOC_END = re.compile(r"</DOC\s*>")
_DOC_START = re.compile(r"<DOC[\s>]")
_START_TAG = re.compile(r"<([A-Za-z_][\w.-]*)(?:\s[^<>]*)?>")


# The attribute part has one parse (its branches start with different
# characters), so possessive loops match what plain ones would, in runs.
_ENTITY_TAG = re.compile(
    r"</?(?!(?:DOC|DOCID|GENERO|ORIGEM|TEXTO|ALT|P)[\s/>])[^\s<>/=\"'!?]+"
    r"(?:[^<>\"'\n]++|\"[^\"<\n]*+\"|'[^'<\n]*+')*+>"
)


def _skip_entity_tags(chunk: str) -> str:
    """``chunk`` without its entity tags, ALT blocks kept whole (``_SKIPPABLE``).

    Without comments or processing instructions, the text between ALT
    blocks is skipped by ``_ENTITY_TAG`` (no tag holds a ``<``, so none
    reaches into a block): the same text, without a call per tag.
    """
    if "<!--" not in chunk and "<?" not in chunk:
        if "<ALT" not in chunk:
            return _ENTITY_TAG.sub("", chunk)
        pieces, pos = [], 0
        for block in _ALT_WHOLE.finditer(chunk):
            pieces += [_ENTITY_TAG.sub("", chunk[pos : block.start()]), block.group()]
            pos = block.end()
        pieces.append(_ENTITY_TAG.sub("", chunk[pos:]))
        return "".join(pieces)

    def keep(match: re.Match[str]) -> str:
        name = match.group(2)
        return match.group(0) if name is None or name in _STRUCTURE else ""

    return _SKIPPABLE.sub(keep, chunk)


def _parse_chunk(
    chunk: str, path: str, encoding: str, first_line: int, head: int = 0, closing: str = ""
) -> Collection:
    """Parse a piece of the collection file (its first ``head`` characters kept as they are)."""
    text = chunk[:head] + _skip_entity_tags(chunk[head:]) + closing
    return _parse_skipped(text, path, encoding, first_line)


def _parse_skipped(text: str, path: str, encoding: str, first_line: int) -> Collection:
    """Parse a piece of the collection file (starting on ``first_line``) whose entity
    tags are already skipped; every line it names is the file's."""
    return parse_collection(text, path, encoding, first_line=first_line)


def open_collection_text(path: str | os.PathLike[str]) -> TextIO:
    """A collection file as a text stream in its encoding, line ends kept (``.gz`` allowed)."""
    encoding = detect_file_encoding(path)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline="")


def iter_collection_documents(
    path: str | os.PathLike[str],
) -> tuple[Collection, Iterator[Document]]:
    """The collection's description (no documents) and its documents, read one at a time.

    The documents carry the running text and paragraphs of the collection
    (so ``text`` equals ``read_collection``'s), which is all a run takes
    from it; their plain and omitted entities are not read, nor the ALT
    blocks that are only text and entities (taken as their first
    alternative's text), which is what makes this fast.  Memory holds a
    1 MiB chunk of the file and one document.
    """
    name = str(path)
    handle = open_collection_text(path)
    encoding = handle.encoding
    try:
        buffer = ""
        while not _DOC_END.search(buffer):
            chunk = handle.read(_CHUNK_CHARS)
            if not chunk:
                break
            buffer += chunk
        end = _DOC_END.search(buffer)
        if end is None:
            handle.close()
            collection = parse_collection(buffer, name, encoding)  # raises on a bad file
            return replace(collection, documents=()), iter(collection.documents)
        start = _DOC_START.search(buffer)
        head = buffer[: start.start()] if start else ""
        roots = [m.group(1) for m in _START_TAG.finditer(head)]
        closing = f"</{roots[-1]}>" if roots else ""
        first = _parse_chunk(buffer[: end.end()], name, encoding, 1, len(head), closing)
    except BaseException:
        handle.close()
        raise
    info = replace(first, documents=(), version=None, path=name)
    rest = buffer[end.end() :]
    line = 1 + buffer.count("\n", 0, end.end())
    documents = _documents(handle, first.documents, rest, line, name, encoding, info.format)
    return info, documents


def _documents(
    handle: TextIO,
    first: tuple[Document, ...],
    buffer: str,
    line: int,
    path: str,
    encoding: str,
    fmt: str,
) -> Iterator[Document]:
    with handle:
        yield from first
        pos = 0
        while True:
            end = _DOC_END.search(buffer, pos)
            if end is None:
                chunk = handle.read(_CHUNK_CHARS)
                if not chunk:
                    return
                buffer = buffer[pos:] + chunk
                pos = 0
                continue
            piece = buffer[pos : end.end()]
            yield from _chunk_documents(piece, path, encoding, line, fmt)
            line += piece.count("\n")
            pos = end.end()


# A document whose content, entity tags skipped, is plain text: read at once.
_PLAIN_SECOND = re.compile(
    r"(\s*)<DOC\s+DOCID\s*=\s*(?:\"([^\"<]*)\"|'([^'<]*)')\s*>([^<]*)</DOC\s*>"
)
_PLAIN_FIRST = re.compile(
    r"(\s*)<DOC>\s*<DOCID>([^<]*)</DOCID>\s*(?:<GENERO>([^<]*)</GENERO>\s*)?"
    r"(?:<ORIGEM>([^<]*)</ORIGEM>\s*)?<TEXTO>([^<]*)</TEXTO>\s*</DOC\s*>"
)


def _chunk_documents(
    piece: str, path: str, encoding: str, line: int, fmt: str = ""
) -> Iterator[Document]:
    """The document of one ``...</DOC>`` piece of the collection file (``fmt``: the
    collection's format, which tells which ALT blocks ``_first_alternatives`` may read)."""
    skipped = _skip_entity_tags(piece)
    flat = _first_alternatives(skipped, fmt) if "<ALT" in skipped else skipped
    document = None if flat is None else _plain_document(flat, line)
    if document is not None:
        yield document
        return
    yield from _parse_skipped(skipped, path, encoding, line).documents


def _plain_document(skipped: str, line: int) -> Document | None:
    """The document of a piece whose content, entity tags skipped, is plain text; else None."""
    plain = _PLAIN_SECOND.fullmatch(skipped)
    if plain is not None and (plain.group(2) or plain.group(3)):
        docid = plain.group(2) if plain.group(2) is not None else plain.group(3)
        at = line + plain.group(1).count("\n")
        return Document(docid=docid, text=plain.group(4), line=at)
    plain = _PLAIN_FIRST.fullmatch(skipped)
    if plain is not None and plain.group(2).strip():
        genre, variant = plain.group(3), plain.group(4)
        return Document(
            docid=plain.group(2).strip(),
            text=plain.group(5),
            variant=variant.strip() if variant is not None else None,
            genre=genre.strip() if genre is not None else None,
            line=line + plain.group(1).count("\n"),
        )
    return None


# An ALT block the collection reader reads without a doubt: text and entities
# (no MORF, no "|" in their text, tags as the reader's own expression has
# them) -- its first alternative is its text up to the first "|".  Entities
# are EM in a Second HAREM file, any other name in a First HAREM one.
_ATTRIBUTES = r"""(?:\s+[^\s=<>"']+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*\s*"""
_ALT_ENTITY_PATTERNS = {
    SECOND_HAREM: rf"<EM{_ATTRIBUTES}>(?P<text>[^<]*+)</EM\s*>",
    FIRST_HAREM: rf"<(?P<name>(?!(?:ALT|OMITIDO|P)[\s>])[^\s<>/=\"']+){_ATTRIBUTES}>"
    r"(?P<text>[^<]*+)</(?P=name)\s*>",
}
_ALT_ENTITY = {fmt: re.compile(entity) for fmt, entity in _ALT_ENTITY_PATTERNS.items()}
_SIMPLE_ALT = {
    fmt: re.compile(rf"<ALT\s*>((?:[^<]++|{entity})*+)</ALT\s*>")
    for fmt, entity in _ALT_ENTITY_PATTERNS.items()
}


def _first_alternatives(skipped: str, fmt: str) -> str | None:
    """A piece whose entity tags are skipped, each simple ALT block (``_SIMPLE_ALT``)
    of its document's content written as its first alternative's text.

    None when there is no such reading (an unknown format, a document
    without ``<DOC``...``</DOC`` or ``<TEXTO>``...``</TEXTO>``).  A block
    that is not simple is left as it is, and so is any other markup: the
    piece is plain text only when every tag left was such a block.
    """
    block = _SIMPLE_ALT.get(fmt)
    if fmt == FIRST_HAREM:
        start = skipped.find("<TEXTO>")
        end = skipped.find("</TEXTO>", start)
    else:
        start, end = skipped.find("<DOC"), skipped.rfind("</DOC")
    if block is None or start < 0 or end < 0:
        return None
    entity = _ALT_ENTITY[fmt]

    def first(match: re.Match[str]) -> str:
        content = match.group(1)
        if "MORF" in content:
            return match.group(0)
        texts = [found.group("text") for found in entity.finditer(content)]
        if any("|" in text for text in texts):
            return match.group(0)
        alternatives = entity.sub(r"\g<text>", content).split("|")
        return alternatives[0] if len(alternatives) > 1 else match.group(0)

    return skipped[:start] + block.sub(first, skipped[start:end]) + skipped[end:]


# ---------------------------------------------------------------------------
# Writing the run


def run_entity(doc: Document, number: int, placed: Placed, fmt: str) -> Entity:
    """The model entity of a placed prediction (IDs ``<DOCID>-<n>``; none in First HAREM)."""
    label = placed.label
    return Entity(
        id=None if fmt == FIRST_HAREM else f"{doc.docid}-{number}",
        categories=label.categories,
        types=label.types,
        subtypes=label.subtypes,
        morf=None,
        text=doc.text[placed.start : placed.end],
        start=placed.start,
        end=placed.end,
    )


def run_document(imported: ImportedDocument, fmt: str) -> Document:
    """The run's document: the collection's text and paragraphs, the predicted entities."""
    doc = imported.document
    entities = tuple(run_entity(doc, n, p, fmt) for n, p in enumerate(imported.entities, 1))
    return Document(
        docid=doc.docid,
        text=doc.text,
        entities=entities,
        variant=doc.variant,
        genre=doc.genre,
        paragraphs=doc.paragraphs,
    )


def run_collection(info: Collection, documents: Iterable[Document]) -> Collection:
    """The run as a collection in the golden collection's format (no version: a run has none)."""
    return replace(info, documents=tuple(documents), version=None)


def _quote(value: str) -> str:
    return f"'{value}'" if '"' in value else f'"{value}"'


@lru_cache(maxsize=4096)
def _label_tags(label: Label, fmt: str) -> tuple[str, str]:
    """The start tag of a label but its ID (``<EM`` … ``>`` left to the caller) and the end tag.

    A run has few distinct labels and many entities: each label is written once.
    """
    cats, types, subs = label
    pairs = [("TIPO", "|".join(types)), ("SUBTIPO", "|".join(subs))]
    if fmt == FIRST_HAREM:
        name = "|".join(cats)
    else:
        name = "EM"
        pairs = [("CATEG", "|".join(cats)), *pairs]
    rendered = "".join(f" {key}={_quote(value)}" for key, value in pairs if value)
    if fmt == FIRST_HAREM:
        return f"<{name}{rendered}>", f"</{name}>"
    return f"{rendered}>", f"</{name}>"


def _entity_tags(doc: Document, placed: list[Placed], fmt: str) -> list[tuple[str, str]]:
    """The start and end tags of each placed entity of a document (IDs ``<DOCID>-<n>``)."""
    tags = [_label_tags(label, fmt) for _start, _end, label in placed]
    if fmt == FIRST_HAREM:
        return tags
    quote = _quote(doc.docid)[0]  # an ID is quoted as its DOCID is
    head = f"<EM ID={quote}{doc.docid}-"
    return [(f"{head}{n}{quote}{rest}", closing) for n, (rest, closing) in enumerate(tags, 1)]


def render_content(imported: ImportedDocument, fmt: str) -> str:
    """A run document's content, exactly as ``format_collection`` writes ``run_document``."""
    doc, placed = imported
    text = doc.text
    tags = _entity_tags(doc, placed, fmt)
    out: list[str] = []
    if not doc.paragraphs:
        pos = 0
        for (start, end, _label), (opening, closing) in zip(placed, tags, strict=True):
            out += [text[pos:start], opening, text[start:end], closing]
            pos = end
        out.append(text[pos:])
        return "".join(out)
    containers = sorted(doc.paragraphs, key=lambda c: (c[0], -c[1]))
    starts = {e.start: (e, tag) for e, tag in zip(placed, tags, strict=True)}
    offsets = sorted({0, len(text)} | {x for c in containers for x in c} | set(starts))
    stack: list[int] = []
    pos = 0
    for offset in offsets:
        if offset < pos:
            continue
        out.append(text[pos:offset])
        pos = offset
        while stack and stack[-1] == offset:
            stack.pop()
            out.append("</P>")
        here = [c for c in containers if c[0] == offset]
        out += ["<P></P>" for s, e in here if s == e]
        for s, e in here:
            if s < e:
                out.append("<P>")
                stack.append(e)
        if offset in starts:
            entity, (opening, closing) = starts[offset]
            out += [opening, text[entity.start : entity.end], closing]
            pos = entity.end
    return "".join(out)


def render_document(imported: ImportedDocument, fmt: str, newline: str) -> str:
    """One document of the run in the collection's format (see ``render_content``)."""
    doc = imported.document
    content = render_content(imported, fmt)
    if fmt != FIRST_HAREM:
        return f"<DOC DOCID={_quote(doc.docid)}>{content}</DOC>{newline}"
    lines = ["<DOC>", f"<DOCID>{doc.docid}</DOCID>"]
    if doc.genre is not None:
        lines.append(f"<GENERO>{doc.genre}</GENERO>")
    if doc.variant is not None:
        lines.append(f"<ORIGEM>{doc.variant}</ORIGEM>")
    lines += [f"<TEXTO>{content}</TEXTO>", "</DOC>"]
    return newline.join(lines) + newline


def run_frame(info: Collection) -> tuple[str, str]:
    """What comes before the first document of a run and after the last one."""
    empty = format_collection(run_collection(info, ()))
    if not empty:
        return "", ""
    closing = f"</{info.root}>{info.newline}"
    return empty[: len(empty) - len(closing)], closing


# ---------------------------------------------------------------------------
# The two ways in


def build_run(
    cd: Collection,
    predictions: Iterable[Prediction],
    scheme: str = DEFAULT_SCHEME,
    path: str | None = None,
    named: dict[str, int] | None = None,
) -> tuple[Collection, ImportSummary]:
    """The run of ``predictions`` over the collection ``cd``, and what the import did.

    ``named``: see :func:`import_documents`; when the predictions are a list
    in memory it is computed from them.
    """
    if named is None and not isinstance(predictions, Iterator):
        predictions = list(predictions)
        names = {p.docid: p.line for p in predictions if p.docid is not None}
        named = names or None
    summary = ImportSummary()
    imported = import_documents(cd.documents, predictions, summary, scheme, path, named)
    documents = [run_document(item, cd.format) for item in imported]
    return run_collection(cd, documents), summary


def open_predictions(path: str | os.PathLike[str], encoding: str | None = None) -> TextIO:
    """A predictions file as text (UTF-8 unless it does not decode; ``.gz`` allowed).

    ``encoding``: the file's, when already known (the check reads the whole file).
    """
    encoding = encoding or detect_file_encoding(path)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline=None)


def predictions_source(
    path: str | os.PathLike[str], fmt: str, encoding: str | None
) -> contextlib.AbstractContextManager[TextIO]:
    """The text of a predictions file; a DocBin, binary, is read by its path instead."""
    if fmt == "spacy":
        return contextlib.nullcontext(io.StringIO())
    return open_predictions(path, encoding)


def default_output(pred: str | os.PathLike[str], collection_format: str) -> Path:
    """Beside ``PRED``: its name up to the first dot, plus ``.run.xml`` or ``.run.txt``."""
    suffix = ".run.txt" if collection_format == FIRST_HAREM else ".run.xml"
    return Path(pred).with_name(Path(pred).name.split(".")[0] + suffix)


_MAPPING = re.compile(r"^\s*([^=\s]+)\s*=\s*([^=\s]+)\s*$")


def parse_label_map(value: str) -> dict[str, str]:
    """``--label-map``: a file of ``A=B`` lines (blank and ``#`` lines skipped) or a JSON
    object ``{"A": "B"}``, or inline ``A=B,C=D``.  A model's label ``A`` is read as ``B``
    (a whole label: ``PER``, or the type of a CoNLL tag ``B-PER``)."""
    path = Path(value)
    if path.is_file():
        text = path.read_text(encoding=detect_file_encoding(path))
        if text.lstrip().startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(
                    value, "a JSON object of labels", f"invalid JSON ({exc.msg})"
                ) from None
            if not isinstance(data, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and k and v for k, v in data.items()
            ):
                raise InputError(value, 'a JSON object {"LABEL": "CATEGORY", ...}', "another value")
            return dict(data)
        entries = [
            (n, line)
            for n, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        source: str | None = value
    else:
        entries = [(None, part) for part in value.split(",")]
        source = None
    mapping: dict[str, str] = {}
    for n, entry in entries:
        match = _MAPPING.match(entry)
        if match is None:
            raise InputError(source, "a mapping LABEL=CATEGORY", repr(entry.strip()), line=n)
        mapping[match.group(1)] = match.group(2)
    return mapping


def run_import(
    pred: str | os.PathLike[str],
    fmt: str,
    cd: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    scheme: str = DEFAULT_SCHEME,
    label_map: dict[str, str] | None = None,
    only_predicted: bool = False,
) -> tuple[Path, ImportSummary]:
    """``harem import``: write the run of ``pred`` (in ``fmt``) over the collection ``cd``.

    Streams both files (see the module notes) and writes the run atomically
    in the collection's format and encoding; returns its path and the
    summary.  Default output: beside ``pred``, ``<name>.run.xml`` or
    ``<name>.run.txt`` (First HAREM).  A bad input raises ``InputError`` and
    leaves no output behind.  ``label_map`` renames the model's labels first
    (:func:`parse_label_map`); with ``only_predicted`` the documents the predictions
    do not name are written empty, so the chain scores only the predicted ones.
    """
    name = str(pred)
    if fmt not in FORMATS:
        raise InputError(name, f"a predictions format among {', '.join(FORMATS)}", fmt)
    if scheme not in SCHEMES:
        raise InputError(name, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    encoding = None if fmt == "spacy" else detect_file_encoding(pred)
    with predictions_source(pred, fmt, encoding) as handle:
        named = predicted_docids(fmt, handle, name)
    info, cd_documents = iter_collection_documents(cd)
    if output is None:
        output = default_output(pred, info.format)
    head, tail = run_frame(info)
    summary = ImportSummary(label_map=dict(label_map or {}))
    if only_predicted:
        summary.absent_as = "empty, so not scored"
    with (
        predictions_source(pred, fmt, encoding) as handle,
        atomic_write(output, "w", encoding=info.encoding) as out,
    ):
        predictions = read_predictions(fmt, handle, name)
        out.write(head)
        if only_predicted and named is None:
            raise InputError(name, "documents named by their DOCIDs (--only-predicted)", "none")
        items = import_documents(
            cd_documents, predictions, summary, scheme, name, named, only_predicted
        )
        for item in items:
            out.write(render_document(item, info.format, info.newline))
        if not summary.predicted:  # a run of the collection's text alone scores nothing
            raise InputError(name, "at least one predicted document", "none")
        out.write(tail)
    return Path(output), summary
