"""CoNLL predictions files (``harem import``): tokens and the predicted tag, by document.

A token line has at least two columns (the token first, the prediction
last); ``-DOCSTART- DOCID`` and ``# doc_id = DOCID`` start a document
(``-DOCSTART- -X- ...`` an unnamed one); other ``# key = value`` lines are
comments.  Blank lines and document lines end a sentence.

Two readers give the same tokens, tags and lines:

* :func:`parse_conll_predictions` yields sentences and document starts,
  cutting each sentence's lines one by one;
* :func:`read_conll_documents`, the one ``harem import`` uses, yields each
  document's tokens and tags at once (:class:`ConllColumns`).  A document
  whose lines all have the same number of columns (the usual file: every
  token line written by one program) is cut by one ``str.split`` of its
  whole text, line ends marked so the cut can be checked exactly; only the
  token column and the last one are kept, and the file line of a token is
  worked out only when an error or a warning names it.  Any other document
  (comments, lines of different widths, a bad line) is read by the sentence
  reader, so errors are the same.  A file whose first line (after blank
  lines and comments) is not a document line is read by the sentence reader
  throughout: its sentences are streamed, not gathered in one document.

Memory holds a 1 MiB chunk of text and one document.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from itertools import accumulate, chain
from operator import itemgetter
from typing import NamedTuple, TextIO

from harem_pipeline.errors import InputError


class ConllSentence(NamedTuple):
    """One sentence of a predictions file: its tokens, their tags, its first line."""

    tokens: list[str]
    tags: list[str]
    line: int


class ConllDocument(NamedTuple):
    """The start of a document in a CoNLL file: its DOCID (None: unnamed) and line."""

    docid: str | None
    line: int


_SEPARATOR = re.compile(r"\n(?:[ \t\r\f\v]*\n)+")
_COMMENT = re.compile(r"#\s*([\w.-]+)\s*=\s*(.*?)\s*$")
_SPECIAL = re.compile(r"^[ \t]*(?:-DOCSTART-|#)", re.MULTILINE)
# Lines the sentence reader may take for document lines or comments: a
# document holding one is not cut at once (over-matching only costs time).
_MAYBE_SPECIAL = re.compile(r"^[^\S\n]*(?:-DOCSTART-|#)", re.MULTILINE)
_DOCUMENT_LINE = re.compile(r"^[ \t]*(?:-DOCSTART-|#)[^\n]*", re.MULTILINE)
_DOCSTART = "-DOCSTART-"
_UNNAMED = frozenset({"-X-", "O"})
_CHUNK_CHARS = 1 << 20
_TOKEN = itemgetter(0)
_TAG = itemgetter(-1)
# Marks of the fast cut; a document holding either character is read line by line.
_LINE_END = "\x01"
_GAP = "\x02"


# ---------------------------------------------------------------------------
# Document lines


_TOKEN_LINE = ConllDocument("", -1)  # a line that is neither a document line nor a comment


def _document_line(fields: list[str], lineno: int) -> ConllDocument | None:
    """The document a line starts, None for a comment, ``_TOKEN_LINE`` for a token."""
    if fields[0] == _DOCSTART:
        name = fields[1] if len(fields) > 1 and fields[1] not in _UNNAMED else None
        return ConllDocument(name, lineno)
    match = _COMMENT.match(" ".join(fields))
    if match is None:
        return _TOKEN_LINE
    if match.group(1) in ("doc_id", "docid", "newdoc_id"):
        return ConllDocument(match.group(2) or None, lineno)
    return None


def _candidate_lines(text: str, start: int, stop: int) -> Iterator[tuple[int, int]]:
    """``(begin, end)`` of each line of ``text[start:stop]`` that may be a document line.

    Those are the lines whose first column starts with ``-DOCSTART-`` or
    ``#``; ``start`` is a line start, ``end`` the line's ``\\n`` (or
    ``stop``).  Without a ``#`` the lines are found by ``str.find`` of
    ``-DOCSTART-``, which is several times faster than the expression.
    """
    if text.find("#", start, stop) >= 0:
        for match in _DOCUMENT_LINE.finditer(text, start, stop):
            yield match.start(), match.end()
        return
    pos = text.find(_DOCSTART, start, stop)
    while pos >= 0:
        begin = text.rfind("\n", start, pos) + 1 or start
        end = text.find("\n", pos, stop)
        end = stop if end < 0 else end
        if not text[begin:pos].strip(" \t"):
            yield begin, end
        pos = text.find(_DOCSTART, end, stop)


def _text_chunks(source: TextIO | Iterable[str]) -> Iterator[str]:
    read = getattr(source, "read", None)
    return iter(lambda: read(_CHUNK_CHARS), "") if read is not None else iter(source)


def conll_docids(source: TextIO | Iterable[str]) -> dict[str, int] | None:
    """DOCID → line of every document a CoNLL file names; None when it names none.

    Only the document lines are looked at (see ``_candidate_lines``).
    """
    named: dict[str, int] = {}
    pending, line = "", 1
    for chunk in _text_chunks(source):
        text = pending + chunk
        cut = text.rfind("\n") + 1
        pos = 0
        for begin, end in _candidate_lines(text, 0, cut):
            line += text.count("\n", pos, begin)
            pos = begin
            document = _document_line(text[begin:end].split(), line)
            if document is None or document is _TOKEN_LINE:
                continue
            if document.docid is None:
                return None
            named.setdefault(document.docid, line)
        line += text.count("\n", pos, cut)
        pending = text[cut:]
    if pending.lstrip().startswith(("-DOCSTART-", "#")):
        document = _document_line(pending.split(), line)
        if document is not None and document is not _TOKEN_LINE:
            if document.docid is None:
                return None
            named.setdefault(document.docid, line)
    return named or None


# ---------------------------------------------------------------------------
# Sentence by sentence


def parse_conll_predictions(
    source: TextIO | Iterable[str], path: str | None = None
) -> Iterator[ConllSentence | ConllDocument]:
    """Sentences and document starts of a CoNLL file, lazily, in file order."""
    pending = ""
    line = 1
    for chunk in _text_chunks(source):
        text = pending + chunk
        pos = 0
        for match in _SEPARATOR.finditer(text):
            yield from _conll_block(text[pos : match.start()], line, path)
            line += text.count("\n", pos, match.end())
            pos = match.end()
        pending = text[pos:]
    if pending:
        yield from _conll_block(pending, line, path)


def _conll_blocks(
    text: str, line: int, path: str | None
) -> Iterator[ConllSentence | ConllDocument]:
    """``parse_conll_predictions`` of a text held whole, its first line ``line``."""
    pos = 0
    for match in _SEPARATOR.finditer(text):
        yield from _conll_block(text[pos : match.start()], line, path)
        line += text.count("\n", pos, match.end())
        pos = match.end()
    yield from _conll_block(text[pos:], line, path)


def _conll_block(
    block: str, line: int, path: str | None
) -> Iterator[ConllSentence | ConllDocument]:
    """The sentences and document lines of a block with no blank line inside.

    Columns are cut with C-level ``map``; only lines whose first column is
    ``-DOCSTART-`` or starts with ``#`` are looked at one by one.
    """
    stripped = block.lstrip()
    line += block.count("\n", 0, len(block) - len(stripped))
    if not stripped:
        return
    rows = list(map(str.split, stripped.rstrip().split("\n")))
    tokens = list(map(_TOKEN, rows))
    marks: list[tuple[int, ConllDocument | None]] = []
    if _DOCSTART in stripped or "#" in stripped:
        marks = [
            (i, d)
            for i in _special_rows(stripped)
            if (d := _document_line(rows[i], line + i)) is not _TOKEN_LINE
        ]
    begin = 0
    for end, document in (*marks, (len(rows), None)):
        if end > begin:
            yield _sentence(rows, tokens, begin, end, line, path)
        if document is not None:
            yield document
        begin = end + 1


def _special_rows(block: str) -> list[int]:
    """Indexes of the lines of ``block`` whose first column may be a document line or comment."""
    rows, pos, index = [], 0, 0
    for match in _SPECIAL.finditer(block):
        index += block.count("\n", pos, match.start())
        pos = match.start()
        rows.append(index)
    return rows


def _sentence(
    rows: list[list[str]], tokens: list[str], begin: int, end: int, line: int, path: str | None
) -> ConllSentence:
    part = rows[begin:end]
    if min(map(len, part)) < 2:
        bad = next(i for i, fields in enumerate(part) if len(fields) < 2)
        raise InputError(
            path,
            "a token and its predicted tag (at least 2 columns)",
            f"1 column: {part[bad][0]}",
            line=line + begin + bad,
        )
    return ConllSentence(tokens[begin:end], list(map(_TAG, part)), line + begin)


# ---------------------------------------------------------------------------
# Document by document


class TokenLines:
    """The file line of each token of a document's ``ConllColumns``.

    Built from the document's sentences; on the fast path only their text is
    kept, and the sentences are read again the first time a line is asked
    for (an error or a warning), which a clean import never does.
    """

    __slots__ = ("_firsts", "_lines", "_body")

    def __init__(
        self, sentences: list[ConllSentence] | None = None, body: tuple | None = None
    ) -> None:
        self._body = body  # (text, first line, path) of sentences not yet cut
        self._firsts: list[int] = []
        self._lines: list[int] = []
        if sentences is not None:
            self._index(sentences)

    def _index(self, sentences: list[ConllSentence]) -> None:
        lengths = [len(s.tokens) + 1 for s in sentences]
        self._firsts = list(accumulate(lengths, initial=0))[:-1]
        self._lines = [s.line for s in sentences]

    def __call__(self, k: int) -> int:
        """The line of token ``k`` (counting the empty token after each sentence)."""
        if self._body is not None:
            text, line, path = self._body
            self._body = None
            self._index([s for s in _conll_blocks(text, line, path) if type(s) is ConllSentence])
        i = bisect.bisect_right(self._firsts, k) - 1
        return self._lines[i] + k - self._firsts[i]


class ConllColumns(NamedTuple):
    """One document's tokens and tags, its sentences joined.

    An empty token tagged ``O`` follows each sentence: it ends a chunk as a
    sentence end does and adds no character, so the document is matched and
    decoded at once.  ``line_of`` maps a token index to its file line.
    """

    tokens: list[str]
    tags: list[str]
    line_of: TokenLines

    @classmethod
    def of_sentences(cls, sentences: Iterable[ConllSentence]) -> ConllColumns:
        """The columns of sentences read one by one."""
        sentences = list(sentences)
        tokens: list[str] = []
        tags: list[str] = []
        for sentence in sentences:
            tokens += sentence.tokens
            tags += sentence.tags
            tokens.append("")
            tags.append("O")
        return cls(tokens, tags, TokenLines(sentences))


def _fast_columns(body: str, line: int, path: str | None) -> ConllColumns | None:
    """A document's columns by one cut of its whole text, or None when it needs the slow one.

    Each sentence end becomes a line of ``_GAP`` columns ending in ``O`` (the
    empty token after a sentence), every line end is marked by a
    ``_LINE_END`` column, and the text is split once.  When every mark falls
    where lines of the first line's width put it, every line has that width
    and the token and tag columns are plain slices of the split.  Sentences
    apart by one empty line (the usual file) are cut by ``str.replace``;
    other blank lines by the separator expression.
    """
    text = body.strip()
    if not text:
        return ConllColumns([], [], TokenLines([]))
    if _LINE_END in text or _GAP in text:
        return None
    if ("#" in text or _DOCSTART in text) and _MAYBE_SPECIAL.search(text) is not None:
        return None
    width = len(text.partition("\n")[0].split())
    if width < 2:
        return None
    gap = "\n" + f"{_GAP} " * (width - 1) + "O\n"
    step = width + 1
    for lines in _gapped(text, gap):
        rows = lines.count("\n")
        fields = lines.replace("\n", f" {_LINE_END} ").split()
        if len(fields) == rows * step and fields[width::step].count(_LINE_END) == rows:
            break
    else:
        return None
    tokens = fields[0::step]
    _blank_gaps(tokens)
    return ConllColumns(tokens, fields[width - 1 :: step], TokenLines(body=(body, line, path)))


def _blank_gaps(tokens: list[str]) -> None:
    """Make the token of each sentence-end line empty (found by ``list.index``: a
    sentence has several tokens, so the search runs in C between two of them)."""
    find = tokens.index
    index = -1
    try:
        while True:
            index = find(_GAP, index + 1)
            tokens[index] = ""
    except ValueError:
        return


def _gapped(text: str, gap: str) -> Iterator[str]:
    """``text`` with ``gap`` after each sentence: sentences apart by one empty line
    (cut by ``str.replace``), else by any blank lines (the separator expression)."""
    yield text.replace("\n\n", gap) + gap
    yield _SEPARATOR.sub(gap, text) + gap


def _columns(body: str, line: int, path: str | None) -> Iterator[ConllColumns | ConllDocument]:
    """The columns of one document's text (``line``: its first line).

    The slow path gives what the sentence reader gives: a line it takes for
    a document line (one the fast scan does not, such as one indented by a
    form feed) starts a document there too.
    """
    fast = _fast_columns(body, line, path)
    if fast is not None:
        yield fast
        return
    sentences: list[ConllSentence] = []
    for item in _conll_blocks(body, line, path):
        if isinstance(item, ConllSentence):
            sentences.append(item)
            continue
        yield ConllColumns.of_sentences(sentences)
        yield item
        sentences = []
    yield ConllColumns.of_sentences(sentences)


def read_conll_documents(
    source: TextIO | Iterable[str], path: str | None = None
) -> Iterator[ConllSentence | ConllDocument | ConllColumns]:
    """Document starts, each followed by its ``ConllColumns``, lazily, in file order.

    A file that does not begin with a document line (blank lines and
    comments aside) is read sentence by sentence (``parse_conll_predictions``).
    Held in memory: the current document's text and the chunk being read.
    """
    chunks = _text_chunks(source)
    first = "".join(_head(chunks))
    if not _starts_with_document(first):
        yield from parse_conll_predictions(chain([first], chunks), path)
        return
    text, scanned = first, 0
    body, body_line = -1, 1  # where the current document's lines start (-1: none yet)
    mark, mark_line = 0, 1  # an offset of ``text`` and its line
    for chunk in chain(chunks, [None]):
        if chunk is not None:
            text += chunk
            stop = text.rfind("\n") + 1
        else:
            stop = len(text)
        for begin, end in _candidate_lines(text, scanned, stop):
            mark_line += text.count("\n", mark, begin)
            mark = begin
            document = _document_line(text[begin:end].split(), mark_line)
            if document is None or document is _TOKEN_LINE:
                continue
            if body >= 0:
                yield from _columns(text[body:begin], body_line, path)
            yield document
            body, body_line = end + 1, mark_line + 1
            mark, mark_line = body, body_line
        scanned = stop
        if body > 0 and chunk is not None:
            text, scanned, mark, body = text[body:], scanned - body, mark - body, 0
    if body >= 0:
        yield from _columns(text[body:], body_line, path)


def _head(chunks: Iterator[str]) -> Iterator[str]:
    """The first chunks of a file, up to one that ends a non-blank, non-comment line."""
    for chunk in chunks:
        yield chunk
        if "\n" in chunk:
            return


def _starts_with_document(text: str) -> bool:
    """Whether the first line that is neither blank nor a comment is a document line."""
    for raw in text.split("\n")[:-1]:
        fields = raw.split()
        if not fields:
            continue
        if _SPECIAL.match(raw) is None:
            return False
        document = _document_line(fields, 0)
        if document is not None:
            return document is not _TOKEN_LINE
    return False
