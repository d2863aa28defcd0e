"""CoNLL-style tagged files: one token per line, gold and system tags last.

Layout (the one ``conlleval`` reads): every non-blank line is a token whose
LAST TWO whitespace-separated columns are the gold tag and the system tag;
a blank line or a ``-DOCSTART-`` line ends a sentence, and a ``-DOCSTART-``
line also starts a document (each sentence carries the line of the
``-DOCSTART-`` before it, the bootstrap's unit when a file has several).  A
file is read one sentence at a time and nothing but the current sentence is
ever held in memory.

Tags are ``O`` or ``P-TYPE`` with the prefix ``P`` one of ``B I E S`` (IOB1,
IOB2, IOE1, IOE2, IOBES) or ``L U`` (BILOU's names for ``E S``); the type is
everything after the first ``-``.  A prefix alone (``B``, ``I``, ``E``,
``S``, ``L``, ``U``: *typeless* tags, as chunkers without types write them)
is a tag of the one type ``_`` (seqeval's name for it), in every scheme.  Any
other prefix is an input error.

Decoding -- the same for every scheme -- is ``conlleval``'s reading, in the
IOBES-aware form that ``seqeval`` uses by default:

* a chunk ends before a token when the previous tag is ``E``/``S``, or the
  previous tag is ``B``/``I`` and this one is ``B``/``S``/``O``, or the type
  changes; the end of the sentence ends any open chunk;
* a chunk starts at a ``B``/``S`` tag, at an ``I``/``E`` tag that follows
  ``O``/``E``/``S``, or at any non-``O`` tag whose type differs from the
  previous tag's.

The scheme only decides which sequences are *invalid*.  An invalid sequence
is never dropped: it is read the conlleval way above (the repair) and counted
per column, one repair per offending tag boundary (between two tags, or at the
end of the sentence).  What each scheme calls invalid:

* ``iob1``: a prefix other than ``B I O``; ``B-X`` not right after ``B-X``/``I-X``.
* ``iob2``: a prefix other than ``B I O``; ``I-X`` not right after ``B-X``/``I-X``.
* ``io``: a prefix other than ``I O``.  A run of ``I-X`` tokens is one span
  (the reading above), so two adjacent spans of one type cannot be told apart.
* ``ioe1``: a prefix other than ``I E O``; ``E-X`` not right before ``I-X``/``E-X``.
* ``ioe2``: a prefix other than ``I E O``; ``I-X`` not right before ``I-X``/``E-X``.
* ``iobes`` (``bilou``): a prefix other than ``B I E S O`` (``B I L U O``);
  ``B-X``/``I-X`` not right before ``I-X``/``E-X``; ``I-X``/``E-X`` not right
  after ``B-X``/``I-X``.
* ``lenient`` (the default): nothing; every ``B I E S L U O`` sequence is read
  as conlleval reads it and no repair is counted.

The one known difference from the Perl ``conlleval`` (which predates IOBES):
there, ``E-X`` followed by ``B-X`` continues the chunk; here, as in seqeval,
``E`` always closes it.  On IOB1/IOB2 files the two agree exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress, count, islice
from operator import eq, itemgetter
from typing import NamedTuple, TextIO

from harem_pipeline.errors import InputError
from harem_pipeline.model import Span

SCHEMES = ("lenient", "io", "iob1", "iob2", "ioe1", "ioe2", "iobes", "bilou")
TYPELESS = "_"
"""The type of a tag without one (``B``, ``I``, …)."""
DOCSTART = "-DOCSTART-"

# The prefixes each scheme allows, after mapping BILOU's L/U to E/S.
_ALLOWED = {
    "lenient": "BIESO",
    "io": "IO",
    "iob1": "BIO",
    "iob2": "BIO",
    "ioe1": "IEO",
    "ioe2": "IEO",
    "iobes": "BIESO",
    "bilou": "BIESO",
}
_RAW_PREFIXES = {"bilou": "BILUO", "iobes": "BIESO", "io": "IO"}
_NORMALISE = {"B": "B", "I": "I", "E": "E", "S": "S", "L": "E", "U": "S"}
_NOT_O = "O".__ne__
_FIRST = itemgetter(0)
_GOLD = itemgetter(-2)
_SYSTEM = itemgetter(-1)
# One or more blank (whitespace-only) lines: the sentence separator.
_SEPARATOR = re.compile(r"\n(?:[ \t\r\f\v]*\n)+")
_CHUNK_CHARS = 1 << 20
_CHUNK_LINES = 8192
_TAG_EXPECTED = "a tag O, or B/I/E/S/L/U alone or followed by - and a type"


@dataclass(frozen=True, slots=True)
class ConllSentence:
    """One sentence: its spans in both columns and the repairs made reading them.

    ``line`` is the file line of the sentence's first token; ``document`` the
    line of the last ``-DOCSTART-`` before it (0: none).  ``equal_tags``
    counts the tokens whose two tags are the same string (conlleval's
    ``accuracy``); ``rows`` are the split lines of the sentence's tokens,
    kept (not copied) so that an error listing can show their words.
    """

    line: int
    tokens: int
    gold: tuple[Span, ...]
    system: tuple[Span, ...]
    gold_repairs: int = 0
    system_repairs: int = 0
    document: int = 0
    equal_tags: int = 0
    rows: Sequence[Sequence[str]] = ()

    def words(self, start: int, end: int) -> str:
        """The first column of tokens ``start:end``, joined by spaces."""
        return " ".join(map(_FIRST, self.rows[start:end]))


class TagInfo(NamedTuple):
    """What a tag says: its prefix normalised to B/I/E/S/O, its type and label set
    (None and empty for ``O``), and whether the scheme allows it."""

    prefix: str
    kind: str | None
    labels: frozenset[str]
    allowed: bool


_OUTSIDE = TagInfo("O", None, frozenset(), True)


class _TagTable:
    """Parsed tags, cached per distinct tag string (a file has few of them), and the
    line of the last ``-DOCSTART-`` read (the reader's only other state)."""

    __slots__ = ("path", "scheme", "cache", "labels", "document")

    def __init__(self, path: str | None, scheme: str) -> None:
        if scheme not in _ALLOWED:
            raise InputError(path, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
        self.path = path
        self.scheme = scheme
        self.cache: dict[str, TagInfo] = {}
        self.labels: dict[str, frozenset[str]] = {}
        self.document = 0

    def parse(self, tag: str, line: int) -> TagInfo:
        """What ``tag`` says (an ``InputError`` for a tag the scheme cannot read)."""
        if tag == "O":
            info = _OUTSIDE
        else:
            raw, dash, kind = tag.partition("-")
            if not dash:
                kind = TYPELESS
            prefix = _NORMALISE.get(raw) if kind else None
            if prefix is None:
                raise InputError(self.path, _TAG_EXPECTED, tag, line=line)
            labels = self.labels.setdefault(kind, frozenset((kind,)))
            allowed = prefix in _ALLOWED[self.scheme] and raw in _RAW_PREFIXES.get(
                self.scheme, "BIESLUO"
            )
            info = TagInfo(prefix, kind, labels, allowed)
        self.cache[tag] = info
        return info


def decode_tags(
    tags: Sequence[str], scheme: str = "lenient", *, path: str | None = None, line: int = 1
) -> tuple[list[Span], int]:
    """The spans of one sentence's tags and the number of repairs made.

    ``line`` is the file line of the first tag, for error messages.
    """
    return _decode(tags, _TagTable(path, scheme), line)


class TagDecoder:
    """``decode_tags`` for the many sentences of one file: tags parsed once, kept between calls."""

    __slots__ = ("_table",)

    def __init__(self, scheme: str = "lenient", path: str | None = None) -> None:
        self._table = _TagTable(path, scheme)

    def __call__(self, tags: Sequence[str], line: int = 1) -> tuple[list[Span], int]:
        """The spans of one sentence's tags and the number of repairs made."""
        return _decode(tags, self._table, line)


def _decode(tags: Sequence[str], table: _TagTable, line: int) -> tuple[list[Span], int]:
    """Spans and repairs of one column.

    Only the non-``O`` tags are visited (found by C-level iteration): a gap
    between two of them means ``O`` tags in between, which close any open
    chunk.  The rules are those of the module docstring.
    """
    cache = table.cache
    scheme = table.scheme
    strict = scheme != "lenient"
    spans: list[Span] = []
    append = spans.append
    prev_i = -2
    prev_prefix = "O"
    prev_kind: str | None = None
    prev_labels: frozenset[str] = frozenset()
    begin = 0
    repairs = 0
    for i in compress(count(), map(_NOT_O, tags)):
        tag = tags[i]
        info = cache.get(tag) or table.parse(tag, line + i)
        prefix, kind, labels, allowed = info
        if i != prev_i + 1:
            if prev_prefix != "O":
                append((begin, prev_i + 1, prev_labels))
                if strict and _invalid(scheme, prev_prefix, prev_kind, "O", None, True):
                    repairs += 1
            if strict and _invalid(scheme, "O", None, prefix, kind, allowed):
                repairs += 1
            begin = i
        else:
            if strict and _invalid(scheme, prev_prefix, prev_kind, prefix, kind, allowed):
                repairs += 1
            if prefix in "BS" or prev_prefix in "ES" or kind != prev_kind:
                append((begin, i, prev_labels))
                begin = i
        prev_i, prev_prefix, prev_kind, prev_labels = i, prefix, kind, labels
    if prev_prefix != "O":
        append((begin, prev_i + 1, prev_labels))
        if strict and _invalid(scheme, prev_prefix, prev_kind, "O", None, True):
            repairs += 1
    return spans, repairs


def _invalid(
    scheme: str, prev: str, prev_kind: str | None, prefix: str, kind: str | None, allowed: bool
) -> bool:
    """Whether the boundary ``prev -> prefix`` breaks ``scheme`` (see the module docstring)."""
    if not allowed:
        return True
    if scheme == "io":
        return False
    continues = prev != "O" and kind == prev_kind
    if scheme == "iob1":
        return prefix == "B" and not continues
    if scheme == "iob2":
        return prefix == "I" and not continues
    if scheme == "ioe1":
        return prev == "E" and not (continues and prefix in "IE")
    if scheme == "ioe2":
        return prev == "I" and not (continues and prefix in "IE")
    # iobes / bilou
    inside = prev in "BI"
    if inside and not (continues and prefix in "IE"):
        return True
    return prefix in "IE" and not (inside and continues)


def parse_conll(
    lines: Iterable[str] | TextIO, path: str | None = None, scheme: str = "lenient"
) -> Iterator[ConllSentence]:
    """Read sentences lazily; bad lines raise ``InputError``.

    ``lines`` is a text stream or an iterable of lines that keep their line
    ends (as iterating a file gives them).  Text is taken in bounded chunks
    (1 MiB, or 8,192 lines) and cut at blank lines, so memory holds one chunk
    and one sentence whatever the file's size.
    """
    table = _TagTable(path, scheme)
    pending = ""
    line = 1  # file line where ``pending`` starts
    for chunk in _text_chunks(lines):
        text = pending + chunk
        pos = 0
        for match in _SEPARATOR.finditer(text):
            yield from _read_block(text[pos : match.start()], line, table)
            line += text.count("\n", pos, match.end())
            pos = match.end()
        pending = text[pos:]
    if pending:
        yield from _read_block(pending, line, table)


def _text_chunks(source: Iterable[str] | TextIO) -> Iterator[str]:
    read = getattr(source, "read", None)
    if read is not None:
        while chunk := read(_CHUNK_CHARS):
            yield chunk
        return
    lines = iter(source)
    while chunk := "".join(islice(lines, _CHUNK_LINES)):
        yield chunk


def _read_block(block: str, line: int, table: _TagTable) -> Iterator[ConllSentence]:
    """The sentences of a block of text that has no blank line inside.

    Fast path (every line has at least 3 columns, no ``-DOCSTART-``): the
    columns are cut with C-level ``map``; otherwise line by line.
    """
    if not block or block.isspace():
        return
    rows = list(map(str.split, block.split("\n")))
    if DOCSTART not in block and min(map(len, rows)) >= 3:
        gold = list(map(_GOLD, rows))
        system = list(map(_SYSTEM, rows))
        yield _sentence(gold, system, table, line, rows)
        return
    kept: list[list[str]] = []
    gold, system = [], []
    first = line
    for lineno, fields in enumerate(rows, line):
        if not fields or fields[0] == DOCSTART:
            if gold:
                yield _sentence(gold, system, table, first, kept)
                gold, system, kept = [], [], []
            if fields:
                table.document = lineno
            continue
        if len(fields) < 3:
            raise InputError(
                table.path,
                "at least 3 columns (token ... gold-tag system-tag)",
                f"{len(fields)} column(s): {' '.join(fields)}",
                line=lineno,
            )
        if not gold:
            first = lineno
        gold.append(fields[-2])
        system.append(fields[-1])
        kept.append(fields)
    if gold:
        yield _sentence(gold, system, table, first, kept)


def _sentence(
    gold: list[str], system: list[str], table: _TagTable, first: int, rows: list[list[str]]
) -> ConllSentence:
    gold_spans, gold_repairs = _decode(gold, table, first)
    n = len(gold)
    if system == gold:  # common case: decode once, and the tally's fast path sees equal tuples
        spans = tuple(gold_spans)
        return ConllSentence(
            first, n, spans, spans, gold_repairs, gold_repairs, table.document, n, rows
        )
    system_spans, system_repairs = _decode(system, table, first)
    return ConllSentence(
        first,
        n,
        tuple(gold_spans),
        tuple(system_spans),
        gold_repairs,
        system_repairs,
        table.document,
        sum(map(eq, gold, system)),
        rows,
    )


def encode_spans(spans: Sequence[Span], length: int, scheme: str = "iob2") -> list[str]:
    """The tags of ``length`` tokens carrying non-overlapping single-label ``spans``.

    The inverse of ``decode_tags`` for a valid sequence of ``scheme``
    (``lenient`` writes IOB2).
    """
    tags = ["O"] * length
    previous: tuple[int, str] | None = None  # (end, type) of the span before
    ordered = sorted(spans)
    for index, (start, end, labels) in enumerate(ordered):
        (kind,) = labels
        adjacent_before = previous is not None and previous == (start, kind)
        following = ordered[index + 1] if index + 1 < len(ordered) else None
        adjacent_after = following is not None and following[0] == end and following[2] == labels
        for position in range(start, end):
            tags[position] = "I-" + kind
        if scheme in ("iob2", "lenient") or (scheme == "iob1" and adjacent_before):
            tags[start] = "B-" + kind
        elif scheme == "ioe2" or (scheme == "ioe1" and adjacent_after):
            tags[end - 1] = "E-" + kind
        elif scheme in ("iobes", "bilou"):
            single, last = ("S", "E") if scheme == "iobes" else ("U", "L")
            if end - start == 1:
                tags[start] = f"{single}-{kind}"
            else:
                tags[start] = "B-" + kind
                tags[end - 1] = f"{last}-{kind}"
        previous = (end, kind)
    return tags


def format_conll(
    sentences: Iterable[ConllSentence],
    scheme: str = "iob2",
    tokens: Iterable[Sequence[str]] | None = None,
) -> str:
    """Write sentences as ``token gold system`` lines, a blank line after each.

    Tokens default to ``_`` (the measures never read them).
    """
    out: list[str] = []
    token_lists = iter(tokens) if tokens is not None else None
    for sentence in sentences:
        words = next(token_lists) if token_lists is not None else ["_"] * sentence.tokens
        gold = encode_spans(sentence.gold, sentence.tokens, scheme)
        system = encode_spans(sentence.system, sentence.tokens, scheme)
        out.extend(f"{w} {g} {s}\n" for w, g, s in zip(words, gold, system, strict=True))
        out.append("\n")
    return "".join(out)
