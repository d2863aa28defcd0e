"""Character alignment: a text's non-blank characters (``TextMap``), aligning two of them in
linear time (``align_dense``), boundaries kept off character references.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass
from itertools import accumulate
from operator import add

from harem_pipeline.model import Span

_BLANK = re.compile(r"\s")
# Blank characters made spaces before a text is cut at its blanks (others are rare).
_USUAL_BLANKS = ("\n", "\t", "\r", "\xa0", "\x0b", "\x0c")
REFERENCE = re.compile(r"&#?\w+;")

_ANCHOR = 8
_RESYNC = 64
_FAR_ANCHOR = 16
_FAR_WINDOW = 4096


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
    for m in REFERENCE.finditer(text, max(0, start - 10), start + 10):
        if m.start() < start < m.end():
            start = m.start()
    for m in REFERENCE.finditer(text, max(0, end - 10), end + 10):
        if m.start() < end < m.end():
            end = m.end()
    return start, end


def decode_references(text: str) -> tuple[str, list[int]]:
    """``text`` with its character references read once (``&amp;`` → ``&``, ``&amp;amp;``
    → ``&amp;``: what an XML parser gives, and the published HAREM JSON files hold),
    and where each offset of ``text`` (``len(text) + 1`` of them) lands in it.

    An offset inside a reference lands after its character.
    """
    pieces: list[str] = []
    where: list[int] = []
    pos = size = 0
    for match in REFERENCE.finditer(text):
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
