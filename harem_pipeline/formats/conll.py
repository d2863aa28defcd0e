"""CoNLL-style tagged files: one token per line, gold and system tags last.

Layout (the one ``conlleval`` reads): every non-blank line is a token whose
LAST TWO whitespace-separated columns are the gold tag and the system tag;
a blank line or a ``-DOCSTART-`` line ends a sentence, and a ``-DOCSTART-``
line also starts a document (each sentence carries the line of the
``-DOCSTART-`` before it, the bootstrap's unit when a file has several).  A
file is read in blocks of whole sentences (about 256 KiB of text each), and
each block is cut into columns and decoded with array operations over all
its lines at once: memory holds one block, whatever the file's size.

Tags are ``O`` or ``P-TYPE`` with the prefix ``P`` one of ``B I E S`` (IOB1,
IOB2, IOE1, IOE2, IOBES) or ``L U`` (BILOU's names for ``E S``); the type is
everything after the first ``-``.  A prefix alone (``B``, ``I``, ``E``,
``S``, ``L``, ``U``: *typeless* tags, as chunkers without types write them)
is a tag of the one type ``_`` (seqeval's name for it), in every scheme.  Any
other prefix is an input error.

Decoding -- the same for every scheme -- is ``conlleval``'s reading, in the
IOBES-aware form that ``seqeval`` uses by default (:func:`_decode_column`
writes it as array comparisons, for a block or for one sentence):

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
from itertools import islice
from operator import itemgetter
from typing import NamedTuple, TextIO

import numpy as np
from numpy.lib.stride_tricks import as_strided

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
_FIRST = itemgetter(0)
# One or more blank (whitespace-only) lines: the sentence separator.
_SEPARATOR = re.compile(r"\n(?:[ \t\r\f\v]*\n)+")
_CHUNK_CHARS = 1 << 18
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
_PREFIXES = "OBIES"
"""Prefix codes of the arrays: ``O`` is 0, ``B`` 1, ``I`` 2, ``E`` 3, ``S`` 4."""
_OPENS = np.array([c in "BS" for c in _PREFIXES])
"""Prefixes that start a chunk whatever comes before."""
_CLOSES = np.array([c in "OES" for c in _PREFIXES])
"""Prefixes after which any non-``O`` tag starts a chunk."""
_SPACE = np.array([chr(c).isspace() for c in range(256)])
_SPACE_BYTES = bytes(_SPACE.astype(np.uint8))
"""``_SPACE`` as a ``bytes.translate`` table (one pass in C, no index array)."""
_WIDE_SPACE = np.array([c for c in range(256, 0x3001) if chr(c).isspace()], dtype=np.uint32)
_PACKED = 7
_SCANS = 16
"""New tags a block's lookup finds by one pass each before it sorts the rest."""
"""Tags of at most this many one-byte characters are looked up by a packed integer key."""


def _boundary_table(scheme: str) -> np.ndarray:
    """``table[prev, prefix, same]``: whether the boundary ``prev -> prefix`` breaks
    ``scheme`` (``same``: both tags non-``O`` of one type), from :func:`_invalid`.

    ``lenient`` breaks nothing (no repair is counted).
    """
    table = np.zeros((len(_PREFIXES), len(_PREFIXES), 2), dtype=bool)
    if scheme == "lenient":
        return table
    for p, prev in enumerate(_PREFIXES):
        for c, prefix in enumerate(_PREFIXES):
            for same in (0, 1):
                prev_kind = None if prev == "O" else "x"
                kind = None if prefix == "O" else ("x" if same else "y")
                table[p, c, same] = _invalid(scheme, prev, prev_kind, prefix, kind, True)
    return table


class TagTable:
    """The distinct tags of one file, each parsed once, as arrays indexed by a tag id
    (the reader's only state).

    A tag that cannot be read is kept too (``bad``): the error is raised where
    the file first uses it, in reading order.
    """

    __slots__ = (
        "path", "scheme", "ids", "tags", "kinds", "labels", "prefix", "kind",
        "allowed", "bad", "keys", "key_ids", "_by_key", "invalid",
    )  # fmt: skip

    def __init__(self, path: str | None, scheme: str) -> None:
        if scheme not in _ALLOWED:
            raise InputError(path, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
        self.path = path
        self.scheme = scheme
        self.ids: dict[str, int] = {}
        self.tags: list[str] = []
        self.kinds: dict[str, int] = {}
        self.labels: list[frozenset[str]] = []
        """The label set of each type id."""
        self.prefix = np.zeros(0, dtype=np.int8)
        self.kind = np.zeros(0, dtype=np.int32)
        self.allowed = np.zeros(0, dtype=bool)
        self.bad = np.zeros(0, dtype=bool)
        self.keys = np.zeros(0, dtype=np.uint64)
        self.key_ids = np.zeros(0, dtype=np.int64)
        self._by_key: dict[int, int] = {}
        self.invalid = _boundary_table(scheme)

    def parse(self, tag: str) -> TagInfo | None:
        """What ``tag`` says (None for a tag the scheme cannot read)."""
        if tag == "O":
            return _OUTSIDE
        raw, dash, kind = tag.partition("-")
        if not dash:
            kind = TYPELESS
        prefix = _NORMALISE.get(raw) if kind else None
        if prefix is None:
            return None
        if kind not in self.kinds:
            self.kinds[kind] = len(self.labels)
            self.labels.append(frozenset((kind,)))
        labels = self.labels[self.kinds[kind]]
        allowed = prefix in _ALLOWED[self.scheme] and raw in _RAW_PREFIXES.get(
            self.scheme, "BIESLUO"
        )
        return TagInfo(prefix, kind, labels, allowed)

    def tag_id(self, tag: str) -> int:
        """The id of ``tag`` (given on first sight)."""
        found = self.ids.get(tag)
        if found is not None:
            return found
        info = self.parse(tag)
        found = self.ids[tag] = len(self.tags)
        self.tags.append(tag)
        self.prefix = np.append(self.prefix, _PREFIXES.index(info.prefix) if info else 0)
        self.kind = np.append(self.kind, self.kinds[info.kind] if info and info.kind else -1)
        self.allowed = np.append(self.allowed, info.allowed if info else True)
        self.bad = np.append(self.bad, info is None)
        return found

    def lookup(
        self, text: str, codes: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray:
        """The tag ids of the fields ``text[starts[i]:ends[i]]``.

        Short tags (most) are found by a packed integer key, in bulk; the
        others are cut out of the text one by one.  ``codes`` are the text's
        characters and ``_PACKED`` more.
        """
        lengths = ends - starts
        short = lengths <= _PACKED
        if codes.dtype != np.uint8:  # wider characters: only tags of one-byte ones are packed
            wide = np.concatenate(([0], np.cumsum(codes > 255)))
            short &= wide[ends] == wide[starts]
        ids = np.empty(len(starts), dtype=np.int64)
        packed = np.flatnonzero(short)
        if len(packed):
            keys = _pack(codes, starts[packed], lengths[packed])
            ids[packed] = self._key_lookup(keys, text, starts[packed], ends[packed])
        rest = np.flatnonzero(~short)
        if len(rest):
            tag_id = self.tag_id
            ids[rest] = [
                tag_id(text[s:e])
                for s, e in zip(starts[rest].tolist(), ends[rest].tolist(), strict=True)
            ]
        return ids

    def _key_lookup(
        self, keys: np.ndarray, text: str, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray:
        """Ids of packed keys; a key not seen before is read from its first field."""
        if len(self.keys):
            at = np.searchsorted(self.keys, keys).clip(0, len(self.keys) - 1)
            missing = self.keys[at] != keys
        else:
            at = np.zeros(len(keys), dtype=np.int64)
            missing = np.ones(len(keys), dtype=bool)
        if missing.any():
            unseen = keys[missing]
            where = np.flatnonzero(missing)
            for _ in range(_SCANS):  # a few new tags: one pass each, no sort of the column
                if not len(unseen):
                    break
                i = int(where[0])
                self._by_key[int(unseen[0])] = self.tag_id(text[int(starts[i]) : int(ends[i])])
                other = unseen != unseen[0]
                unseen, where = unseen[other], where[other]
            new, first = np.unique(unseen, return_index=True)  # many: sorted once
            for key, i in zip(new.tolist(), where[first].tolist(), strict=True):
                self._by_key[key] = self.tag_id(text[int(starts[i]) : int(ends[i])])
            order = sorted(self._by_key)
            self.keys = np.array(order, dtype=np.uint64)
            self.key_ids = np.array([self._by_key[k] for k in order], dtype=np.int64)
            at = np.searchsorted(self.keys, keys)
        return self.key_ids[at]


def _pack(codes: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """One integer per short field: its one-byte characters, then its length (the top byte).

    Each field's eight bytes from its start are read as one little-endian
    integer (a strided view of the characters, no copy) and cut to its
    length.  ``codes`` must have ``_PACKED`` characters past the last field
    (the block's line end and padding); only fields of one-byte characters
    are packed, so wider ones may be narrowed.
    """
    narrow = codes if codes.dtype == np.uint8 else codes.astype(np.uint8)
    windows = as_strided(narrow, shape=(len(narrow) - _PACKED, 8), strides=(narrow.strides[0], 1))
    words = windows.view("<u8")[:, 0]
    return (words[starts] & _LOW_BYTES[lengths]) | (lengths.astype(np.uint64) << np.uint64(56))


_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(_PACKED + 1)], dtype=np.uint64)
"""``_LOW_BYTES[n]``: the mask of an integer's ``n`` low bytes."""


def _codes(text: str) -> np.ndarray:
    """The characters of ``text`` as integers, one byte each when they fit."""
    try:
        return np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    except UnicodeEncodeError:
        return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _spaces(codes: np.ndarray) -> np.ndarray:
    """Which characters ``str.split()`` splits at."""
    if codes.dtype == np.uint8:
        return np.frombuffer(codes.tobytes().translate(_SPACE_BYTES), dtype=bool)
    space = _SPACE[np.minimum(codes, 255)] & (codes < 256)
    wide = np.flatnonzero(codes > 255)
    if len(wide):
        space[wide] = np.isin(codes[wide], _WIDE_SPACE)
    return space


class ColumnSpans(NamedTuple):
    """The spans of one tag column of a block, in order, and its repairs per sentence.

    ``sentence`` is the sentence (in the block) of each span; ``start`` and
    ``end`` are token positions in it (``end`` exclusive); ``kind`` indexes
    the block's ``labels``.
    """

    sentence: np.ndarray
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    repairs: np.ndarray


@dataclass(frozen=True, slots=True)
class ConllBlock:
    """The sentences of a run of whole lines of a CoNLL file, as arrays.

    One entry per sentence: ``lines`` (file line of its first token),
    ``first`` (index of its first token among the block's), ``tokens``,
    ``documents`` (line of the last ``-DOCSTART-`` before it, 0: none) and
    ``equal_tags``.  ``labels`` gives the label set of a span's ``kind``.
    The text is kept so that an error listing can quote words.
    """

    text: str
    lines: np.ndarray
    first: list[int]
    tokens: np.ndarray
    documents: np.ndarray
    equal_tags: np.ndarray
    gold: ColumnSpans
    system: ColumnSpans
    labels: Sequence[frozenset[str]]
    word_starts: list[int]
    word_ends: list[int]
    """Where each token's first field starts and ends in ``text``."""
    token_lines: np.ndarray
    """Each token's line in the block (0 the first)."""

    def words(self, sentence: int, start: int, end: int) -> str:
        """The first column of tokens ``start:end`` of ``sentence``, joined by spaces."""
        at = self.first[sentence] + start
        if end - start == 1:  # most spans: one cut, nothing to join
            return self.text[self.word_starts[at] : self.word_ends[at]]
        cuts = map(
            slice, self.word_starts[at : at + end - start], self.word_ends[at : at + end - start]
        )
        return " ".join(map(self.text.__getitem__, cuts))

    def spans(self, column: ColumnSpans) -> list[tuple[Span, ...]]:
        """Each sentence's spans of ``column`` as span tuples."""
        labels = self.labels
        out: list[list[Span]] = [[] for _ in range(len(self.lines))]
        for s, a, b, k in zip(
            column.sentence.tolist(), column.start.tolist(), column.end.tolist(),
            column.kind.tolist(), strict=True,
        ):  # fmt: skip
            out[s].append((a, b, labels[k]))
        return [tuple(spans) for spans in out]

    def sentences(self) -> Iterator[ConllSentence]:
        """The block's sentences one by one."""
        rows = self.text.split("\n")
        gold, system = self.spans(self.gold), self.spans(self.system)
        ends = [*self.first[1:], len(self.token_lines)]
        token_lines = self.token_lines.tolist()
        for i, (line, first, n, document, equal) in enumerate(
            zip(
                self.lines.tolist(), self.first, self.tokens.tolist(),
                self.documents.tolist(), self.equal_tags.tolist(), strict=True,
            )
        ):  # fmt: skip
            kept = [rows[t].split() for t in token_lines[first : ends[i]]]
            yield ConllSentence(
                line,
                n,
                gold[i],
                system[i],
                int(self.gold.repairs[i]),
                int(self.system.repairs[i]),
                document,
                equal,
                kept,
            )


def decode_tags(
    tags: Sequence[str], scheme: str = "lenient", *, path: str | None = None, line: int = 1
) -> tuple[list[Span], int]:
    """The spans of one sentence's tags and the number of repairs made.

    ``line`` is the file line of the first tag, for error messages.
    """
    return _decode_sentence(tags, TagTable(path, scheme), line)


class TagDecoder:
    """``decode_tags`` for the many sentences of one file: tags parsed once, kept between calls."""

    __slots__ = ("_table",)

    def __init__(self, scheme: str = "lenient", path: str | None = None) -> None:
        self._table = TagTable(path, scheme)

    def __call__(self, tags: Sequence[str], line: int = 1) -> tuple[list[Span], int]:
        """The spans of one sentence's tags and the number of repairs made."""
        return _decode_sentence(tags, self._table, line)


def _decode_sentence(tags: Sequence[str], table: TagTable, line: int) -> tuple[list[Span], int]:
    """Spans and repairs of one sentence's column (the block decoder on one sentence)."""
    if not tags:
        return [], 0
    ids = np.array([table.tag_id(tag) for tag in tags], dtype=np.int64)
    bad = np.flatnonzero(table.bad[ids])
    if len(bad):
        i = int(bad[0])
        raise InputError(table.path, _TAG_EXPECTED, tags[i], line=line + i)
    starts = np.zeros(1, dtype=np.int64)
    column = _decode_column(ids, starts, np.zeros(len(ids), dtype=np.int64), table)
    labels = table.labels
    spans = [
        (a, b, labels[k])
        for a, b, k in zip(
            column.start.tolist(), column.end.tolist(), column.kind.tolist(), strict=True
        )
    ]
    return spans, int(column.repairs[0])


def _decode_column(
    ids: np.ndarray, first: np.ndarray, sentence_of: np.ndarray, table: TagTable
) -> ColumnSpans:
    """Spans and repairs of one column of tag ids over whole sentences.

    ``first`` is each sentence's first token, ``sentence_of`` each token's
    sentence.  The rules are those of the module docstring, as array
    comparisons: a chunk starts at a non-``O`` tag that is ``B``/``S``, that
    follows ``O``/``E``/``S`` (or starts the sentence), or whose type differs
    from the previous tag's; it ends before the next start, an ``O`` or the
    end of the sentence.  A repair is an invalid boundary between two tags
    (the sentence's edges as ``O``), :func:`_boundary_table`'s.
    """
    prefix = table.prefix[ids]
    kind = table.kind[ids]
    n = len(ids)
    starts_sentence = np.zeros(n, dtype=bool)
    starts_sentence[first] = True
    ends_sentence = np.empty(n, dtype=bool)
    ends_sentence[:-1] = starts_sentence[1:]
    ends_sentence[-1] = True
    prev_prefix = np.empty_like(prefix)
    prev_prefix[0] = 0
    prev_prefix[1:] = prefix[:-1]
    prev_prefix[starts_sentence] = 0
    prev_kind = np.empty_like(kind)
    prev_kind[0] = -1
    prev_kind[1:] = kind[:-1]
    prev_kind[starts_sentence] = -1
    inside = prefix != 0
    start = inside & (_OPENS[prefix] | _CLOSES[prev_prefix] | (kind != prev_kind))
    closes = np.empty(n, dtype=bool)
    closes[:-1] = start[1:] | ~inside[1:]
    closes[-1] = True
    end = inside & (closes | ends_sentence)
    begins = np.flatnonzero(start)
    sentence = sentence_of[begins]
    offset = first[sentence]
    if table.scheme == "lenient":
        repairs = np.zeros(len(first), dtype=np.int64)
    else:
        same = (kind == prev_kind) & (prev_prefix != 0)
        broken = table.invalid[prev_prefix, prefix, same.astype(np.int8)] | ~table.allowed[ids]
        closing = table.invalid[prefix[ends_sentence], 0, 0]  # the last tag -> the end
        repairs = np.bincount(sentence_of, weights=broken, minlength=len(first))
        repairs += np.bincount(sentence_of[ends_sentence], weights=closing, minlength=len(first))
        repairs = repairs.astype(np.int64)
    return ColumnSpans(
        sentence, begins - offset, np.flatnonzero(end) + 1 - offset, kind[begins], repairs
    )


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

    The sentences of :func:`parse_conll_blocks`, one at a time.
    """
    for block in parse_conll_blocks(lines, path, scheme):
        yield from block.sentences()


def parse_conll_blocks(
    lines: Iterable[str] | TextIO, path: str | None = None, scheme: str = "lenient"
) -> Iterator[ConllBlock]:
    """Read a CoNLL text as blocks of whole sentences; bad lines raise ``InputError``.

    ``lines`` is a text stream or an iterable of lines that keep their line
    ends (as iterating a file gives them).  The text is cut into chunks of
    whole sentences (:func:`conll_chunks`), so memory holds one chunk and
    one sentence whatever the file's size; each is read with array
    operations over its characters and tags (:func:`read_chunk`), never
    line by line.  The first bad line of a block (in reading order) raises
    before any of its sentences is handed out.
    """
    table = TagTable(path, scheme)
    for chunk in conll_chunks(lines):
        block = read_chunk(chunk, table)
        if block is not None:
            yield block


class ConllChunk(NamedTuple):
    """Whole lines of a CoNLL text, ending in a line end and cut at a blank line."""

    text: str
    line: int
    """The file line the text starts on."""
    document: int
    """The line of the last ``-DOCSTART-`` before the text (0: none)."""


def conll_chunks(lines: Iterable[str] | TextIO) -> Iterator[ConllChunk]:
    """A CoNLL text in chunks of whole sentences (256 Ki characters, or 8,192 lines, and
    up to the next blank line), each knowing where it is: blocks read on their own.

    Only the cut and the last ``-DOCSTART-`` line of each chunk are searched
    for here (C string searches); the reading is :func:`read_chunk`'s.
    """
    pending = ""
    line = 1  # file line where ``pending`` starts
    document = 0
    for chunk in _text_chunks(lines):
        text = pending + chunk
        cut = _last_break(text)
        if cut < 0:
            pending = text
            continue
        piece = text[:cut]
        yield ConllChunk(piece, line, document)
        document = _last_document(piece, line) or document
        line += piece.count("\n")
        pending = text[cut:]
    if pending:
        yield ConllChunk(pending if pending.endswith("\n") else pending + "\n", line, document)


def document_starts(text: str) -> list[int]:
    """Where each document line of ``text`` has its ``-DOCSTART-``: a line whose first
    whitespace-separated field is ``-DOCSTART-`` (what ``str.split`` splits at).

    The one rule of what a document line is, for the reader of a chunk
    (:func:`read_chunk`) and for the cutter that hands the next chunk its
    last document (:func:`conll_chunks`).  C string searches: such lines are few.
    """
    found = []
    at = text.find(DOCSTART)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        after = at + len(DOCSTART)
        if (start == at or text[start:at].isspace()) and (
            after == len(text) or text[after].isspace()
        ):
            found.append(at)
        at = text.find(DOCSTART, after)
    return found


def _last_document(text: str, line: int) -> int:
    """The file line of the last document line of ``text`` (0: none), ``line`` its first."""
    starts = document_starts(text)
    return line + text.count("\n", 0, starts[-1]) if starts else 0


def _last_break(text: str) -> int:
    """Where the text after the last blank line it has starts (-1: it has none)."""
    found = text.rfind("\n\n")
    if found >= 0:
        return found + 2
    ends = [match.end() for match in _SEPARATOR.finditer(text)]
    return ends[-1] if ends else -1


def _text_chunks(source: Iterable[str] | TextIO) -> Iterator[str]:
    read = getattr(source, "read", None)
    if read is not None:
        while chunk := read(_CHUNK_CHARS):
            yield chunk
        return
    lines = iter(source)
    while chunk := "".join(islice(lines, _CHUNK_LINES)):
        yield chunk


def read_chunk(chunk: ConllChunk, table: TagTable) -> ConllBlock | None:
    """The sentences of a chunk of whole lines (None when it holds no token).

    Every line is cut into whitespace-separated fields at once: a line with
    no field ends a sentence, a ``-DOCSTART-`` line ends one and starts a
    document, any other is a token whose last two fields are its tags.
    """
    text, line = chunk.text, chunk.line
    padded = _codes(text + "\0" * _PACKED)  # room for ``_pack``'s reads past a field
    codes = padded[: len(text)]
    space = _spaces(codes)
    solid = ~space
    field_starts = np.flatnonzero(solid & np.concatenate(([True], space[:-1])))
    field_ends = np.flatnonzero(solid & np.concatenate((space[1:], [True]))) + 1
    newlines = np.flatnonzero(codes == 10)
    fields_before = np.searchsorted(field_starts, newlines)  # fields of the lines before each end
    counts = np.diff(fields_before, prepend=0)
    first_field = fields_before - counts
    doc_lines = np.searchsorted(newlines, document_starts(text)).tolist()
    is_token = counts > 0
    is_token[doc_lines] = False
    token_lines = np.flatnonzero(is_token)
    previous_document = chunk.document
    if not len(token_lines):
        return None
    opens = is_token.copy()
    opens[1:] &= ~is_token[:-1]
    opening = opens[token_lines]
    first = np.flatnonzero(opening)
    sentence_of = np.cumsum(opening) - 1
    n_fields = counts[token_lines]
    last_field = first_field[token_lines] + n_fields - 1
    head_field = first_field[token_lines]
    gold_field = np.maximum(last_field - 1, head_field)
    gold = table.lookup(text, padded, field_starts[gold_field], field_ends[gold_field])
    system = table.lookup(text, padded, field_starts[last_field], field_ends[last_field])
    _check_block(text, line, table, token_lines, sentence_of, n_fields, gold, system)
    docs = np.array(doc_lines, dtype=np.int64)
    before = np.searchsorted(docs, token_lines[first]) - 1
    documents = (
        np.where(before >= 0, line + docs[before.clip(0)], previous_document)
        if len(docs)
        else np.full(len(first), previous_document)
    )
    return ConllBlock(
        text,
        line + token_lines[first],
        first.tolist(),
        np.diff(np.append(first, len(token_lines))),
        documents,
        np.add.reduceat((gold == system).astype(np.int64), first),
        _decode_column(gold, first, sentence_of, table),
        _decode_column(system, first, sentence_of, table),
        table.labels,
        field_starts[head_field].tolist(),
        field_ends[head_field].tolist(),
        token_lines,
    )


def _check_block(
    text: str,
    line: int,
    table: TagTable,
    token_lines: np.ndarray,
    sentence_of: np.ndarray,
    n_fields: np.ndarray,
    gold: np.ndarray,
    system: np.ndarray,
) -> None:
    """Raise the block's first error as a sentence-by-sentence reader meets it: a line
    of fewer than 3 columns, then a bad gold tag, then a bad system tag."""
    found = []
    for rank, bad in enumerate((n_fields < 3, table.bad[gold], table.bad[system])):
        where = np.flatnonzero(bad)
        if len(where):
            token = int(where[0])
            found.append((int(sentence_of[token]), rank, token))
    if not found:
        return
    _, rank, token = min(found)
    lineno = line + int(token_lines[token])
    if rank == 0:
        fields = text.split("\n")[int(token_lines[token])].split()
        raise InputError(
            table.path,
            "at least 3 columns (token ... gold-tag system-tag)",
            f"{len(fields)} column(s): {' '.join(fields)}",
            line=lineno,
        )
    tag = table.tags[int((gold if rank == 1 else system)[token])]
    raise InputError(table.path, _TAG_EXPECTED, tag, line=lineno)


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
