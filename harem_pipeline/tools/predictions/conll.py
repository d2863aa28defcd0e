"""CoNLL predictions: tokens matched in order against a document's text (the cursor), their
tags decoded into placed entities.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import TagDecoder
from harem_pipeline.formats.conll_predictions import ConllColumns, ConllSentence
from harem_pipeline.model import Document, Span
from harem_pipeline.tools.predictions.chars import REFERENCE, TextMap
from harem_pipeline.tools.predictions.labels import Label, parse_label
from harem_pipeline.tools.predictions.placing import (
    ImportSummary,
    Placed,
    bad_label,
    drop_placed,
    foreign_categories,
    keep_placed,
    paragraph_boundaries,
)

DEFAULT_SCHEME = "lenient"


def _cuts_reference(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` ends inside a character reference (``Net&`` of
    ``Net&amp;Tek``): then a token ``&`` stands for the whole reference."""
    amp = text.rfind("&", start, end)
    if amp < 0:
        return False
    ref = REFERENCE.match(text, amp)
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
        ref = REFERENCE.match(text, pos)
        if ref is not None and html.unescape(ref.group()) == token[i]:
            pos, i = ref.end(), i + 1
            continue
        if pos < size and text[pos] == token[i]:
            pos, i = pos + 1, i + 1
            continue
        own = REFERENCE.match(token, i)
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


class ConllPlacer:
    """Places the sentences of one CoNLL document on one collection document."""

    def __init__(self, doc: Document, scheme: str, summary: ImportSummary, path: str | None):
        self.cursor = _Cursor(doc)
        self.doc = doc
        self.scheme = scheme
        self.summary = summary
        self.path = path
        self.placed: list[Placed] = []
        self.boundaries = paragraph_boundaries(doc)

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
                raise bad_label(exc, self.path, line_of(lo), doc.docid) from None
            for category in foreign:
                foreign_labels[category] += 1
            why = keep_placed(text, placed, start, end, label, boundaries, refs)
            if why is not None:
                shown = f"{raw} {text[start:end]!r} (line {line_of(lo)})"
                drop_placed(summary, why, doc.docid, shown)


@lru_cache(maxsize=8)
def _tag_decoder(scheme: str, path: str | None) -> TagDecoder:
    """One decoder per file and scheme, so a file's tags are parsed once, not per document."""
    return TagDecoder(scheme, path)


@lru_cache(maxsize=4096)
def _parsed_label(raw: str) -> tuple[Label, tuple[str, ...]]:
    """``parse_label`` of a tag's type and its foreign categories, once per type."""
    label = parse_label(raw)
    return label, foreign_categories(label)
