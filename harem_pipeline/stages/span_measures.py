"""Span counts of a CoNLL or JSON-lines file, streamed a block at a time.

A CoNLL file is cut into chunks of whole sentences; each chunk is read and
judged on its own (:class:`ChunkJudge`, a pure function that may run in a
worker process), and its counts go, in file order, into the bootstrap
units (:class:`~harem_pipeline.stages.span_units.SpanUnits`).  A JSON-lines
file is judged in batches of documents the same way.  Memory holds a few
chunks plus at most 2,000 units' count rows, whatever the file's size.
Bootstrap units: a CoNLL file's ``-DOCSTART-`` documents when it has two or
more, else its sentences; a JSON-lines file's documents (lines); beyond
2,000 of them, runs of consecutive ones (a block bootstrap, see
:mod:`harem_pipeline.stages.span_units`).  The result carries the counts,
the units' counts and the repairs the CoNLL reader made; the measures are
:mod:`harem_pipeline.measures.spans`'.
"""

from __future__ import annotations

import codecs
import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from typing import Any, NamedTuple, TextIO

import numpy as np

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import (
    SCHEMES,
    ConllBlock,
    ConllChunk,
    TagTable,
    conll_chunks,
    read_chunk,
)
from harem_pipeline.formats.jsonl import JsonlDocument, parse_jsonl
from harem_pipeline.model import Span
from harem_pipeline.stages.span_errors import ErrorSpill, SpillPiece, format_errors, spill_entries
from harem_pipeline.stages.span_units import UNIT_LIMIT, SpanUnits, UnitBlock
from harem_pipeline.stages.spans import (
    GOLD_SIDE,
    ConfusionKey,
    Contributions,
    CountedSpans,
    Judged,
    LabelFilter,
    Listing,
    Piece,
    QuotedSpans,
    Repairs,
    SpanArrays,
    SpanCounts,
    SpanTally,
    contributions,
    distinct,
    equal_token_tags,
    judge,
    list_judged,
    split_shared,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.textio import detect_file_encoding, open_binary

FORMATS = ("conll", "tokens-jsonl")
ALIASES = {"jsonl": "tokens-jsonl"}
"""Old names still read.  ``jsonl`` alone names the character-offset spans of
``harem export``/``harem import``; the token-offset gold/system file measured
here is ``tokens-jsonl``."""


def format_name(fmt: str) -> str:
    """The format ``fmt`` names (an alias resolved)."""
    return ALIASES.get(fmt, fmt)


def alias_warning(fmt: str) -> str | None:
    """The one line a command prints for an old format name (None for a current one)."""
    if fmt not in ALIASES:
        return None
    return (
        f"warning: --format {fmt} is now --format {ALIASES[fmt]} here ('{fmt}' names the "
        "spans of harem export/import); the old name still works"
    )


@dataclass(frozen=True, slots=True)
class CountOptions:
    """How a file's spans are counted: every option of ``harem measures FILE`` that
    changes what is counted or kept.

    ``scheme`` is the CoNLL tagging scheme (see ``formats.conll``; JSON
    lines carry spans, so it is ignored there).  ``min_overlap`` is the
    overlap measure's threshold (:func:`~harem_pipeline.stages.spans.check_min_overlap`),
    ``labels`` restricts the labels scored, ``errors`` collects the error
    listing and the confusion (an
    :class:`~harem_pipeline.stages.span_errors.ErrorSpill`, on disk).  With
    ``documents`` the counts of the bootstrap units are kept (at most
    ``unit_limit``, see :mod:`harem_pipeline.stages.span_units`).
    """

    scheme: str = "lenient"
    min_overlap: float = 0.0
    labels: LabelFilter | None = None
    errors: bool = False
    documents: bool = True
    unit_limit: int = UNIT_LIMIT


COUNT_DEFAULTS = CountOptions()
"""What ``harem measures FILE`` counts when given no option."""


def count_file(
    path: PathLike,
    fmt: str,
    options: CountOptions = COUNT_DEFAULTS,
    map_chunks: ChunkMap = map,
) -> CountedSpans:
    """The span counts of a ``conll`` or ``tokens-jsonl`` file (``.gz`` allowed; the
    old name ``jsonl`` is read too), counted as ``options`` say.

    Either way the file is streamed and memory does not grow with it.
    ``map_chunks`` judges a CoNLL file's chunks (see :func:`measure_conll`).
    """
    scheme, labels = options.scheme, options.labels
    name = str(path)
    fmt = format_name(fmt)
    if fmt not in FORMATS:
        raise InputError(name, f"a format among {', '.join(FORMATS)}", fmt)
    if fmt == "conll" and scheme not in SCHEMES:
        raise InputError(name, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    spill = ErrorSpill() if options.errors else None
    units = SpanUnits(
        options.unit_limit, options.min_overlap, None if spill is None else spill.listing
    )
    sentences = None
    try:
        with open_text(path) as lines:
            if fmt == "conll":
                counts, repairs, sentences, tokens, number, equal = measure_conll(
                    lines, name, scheme, units, labels, spill, map_chunks
                )
            else:
                counts, repairs, number, tokens, equal = measure_jsonl(
                    lines, name, units, labels, spill
                )
    except BaseException:
        if spill is not None:
            spill.close()
        raise
    if not tokens:
        if spill is not None:
            spill.close()
        # Measures of nothing would be a table of undefined ratios: say so instead.
        what = "token lines" if fmt == "conll" else "documents with tokens"
        raise InputError(name, f"at least one token ({fmt}: {what})", "none")
    kept = None
    if options.documents:
        kept = units.counts(unit_names([unit.id for unit in units.kept]))
    used_scheme = scheme if fmt == "conll" else None
    return CountedSpans(
        name,
        fmt,
        used_scheme,
        number,
        tokens,
        counts,
        repairs,
        kept,
        sentences=sentences,
        equal_tags=equal,
        errors=spill,
    )


def measure_conll(
    lines: Iterable[str],
    path: str | None = None,
    scheme: str = "lenient",
    units: SpanUnits | None = None,
    labels: LabelFilter | None = None,
    spill: ErrorSpill | None = None,
    map_chunks: ChunkMap = map,
) -> tuple[SpanCounts, Repairs, int, int, int, int]:
    """Counts, repairs, sentence, token, ``-DOCSTART-`` document numbers and equal tags
    of CoNLL ``lines``.

    The documents are those holding at least one sentence (sentences before
    the first ``-DOCSTART-`` make one more); 0 when the file has no
    ``-DOCSTART-`` line at all.

    ``units``, when given, receives the bootstrap's source units, named by
    the line of their first token: the ``-DOCSTART-`` documents when the
    file has two or more, else the sentences (a single ``-DOCSTART-`` at the
    top, as many files have, does not make one unit of the whole file).
    Reading streams, so this is only known when the second document starts:
    the sentences so far then become its first source unit.  ``units`` is
    finished here: its ``kept`` units are the bootstrap's.  ``labels``
    restricts the spans; ``spill`` (whose listing is the units' tally's)
    receives each sentence's errors, placed by the ``-DOCSTART-`` line
    (None: none) and the sentence's first line.

    The chunks of the text are read and judged by ``map_chunks`` (``map``,
    or an ordered map over worker processes: each chunk is judged on its
    own, see :class:`ChunkJudge`); the units are made here, in order.
    """
    if units is None:
        units = SpanUnits()
    job = ChunkJudge(
        path, scheme, units.tally.min_overlap, labels, None if spill is None else spill.folder
    )
    gold_repairs = system_repairs = sentences = tokens = equal = 0
    documents = 0
    previous = -1  # no document line is negative: the first sentence starts one
    marked = False
    by_document = False
    first_document: int | None = None
    current = 0  # the document of the source being read (by document)
    source_line: Any = None
    for judged in map_chunks(job, conll_chunks(lines)):
        if judged is None:
            continue
        if spill is not None:
            spill.add(judged.errors)
            spill.listing.confusion.update(judged.confusion)
        line_numbers, block_documents = judged.lines, judged.documents
        in_block = np.asarray(block_documents, dtype=np.int64)
        n = len(in_block)
        begin = scan = 0  # the block's first segment not yet handed over; not yet scanned
        ends: list[tuple[int, Any]] = []
        if not by_document:
            if first_document is None:
                first_document, source_line = block_documents[0], line_numbers[0]
            other = np.flatnonzero(in_block != first_document)
            stop = int(other[0]) if len(other) else n
            ends = list(zip(range(1, stop + 1), line_numbers[:stop], strict=True))  # each one
            if stop < n:
                units.add_block(judged.block, 0, stop, ends)
                begin, scan, ends = stop, stop + 1, []
                units.collapse()  # the sentences so far are the first document
                by_document = True
                current, source_line = block_documents[stop], line_numbers[stop]
        if by_document:
            before = np.concatenate((np.array([current], np.int64), in_block[:-1]))
            for i in (np.flatnonzero(in_block[scan:] != before[scan:]) + scan).tolist():
                ends.append((i, source_line))  # a document ends where the next begins
                current, source_line = block_documents[i], line_numbers[i]
        units.add_block(judged.block, begin, n, ends)
        gold_repairs += judged.repairs.gold
        system_repairs += judged.repairs.system
        sentences += len(line_numbers)
        tokens += judged.tokens
        equal += judged.equal_tags
        documents += int(np.count_nonzero(np.diff(in_block, prepend=previous)))
        previous = block_documents[-1]
        marked = marked or bool(in_block.any())
    if by_document:
        units.end_source(source_line)
    counts = units.finish()
    repairs = Repairs(gold_repairs, system_repairs)
    return counts, repairs, sentences, tokens, documents if marked else 0, equal


class JudgedChunk(NamedTuple):
    """What a chunk of a CoNLL file gives the units and the listing (pickles whole)."""

    lines: list[int]
    """Each sentence's first line."""
    documents: list[int]
    """Each sentence's ``-DOCSTART-`` line (0: none)."""
    tokens: int
    equal_tags: int
    repairs: Repairs
    block: UnitBlock
    errors: SpillPiece | None
    """Where the judge wrote the chunk's error entries (``span_errors.spill_entries``)."""
    confusion: Counter[tuple[ConfusionKey, ConfusionKey]]
    """The confusion cells of the spans judged (those found on both sides are the units')."""


ChunkMap = Callable[
    [Callable[[ConllChunk], JudgedChunk | None], Iterable[ConllChunk]], Iterable[JudgedChunk | None]
]
"""How the chunks are judged: ``map`` or an ordered map over worker processes."""


class ChunkJudge:
    """Read and judge one chunk of a CoNLL file: a pure function of the chunk.

    The tag table and the label sets it keeps are caches of this process;
    what it returns names labels, never their numbers here, so chunks can be
    judged in any process and put together in order.
    """

    __slots__ = ("table", "tally", "labels", "spill")

    def __init__(
        self,
        path: str | None,
        scheme: str,
        min_overlap: float,
        labels: LabelFilter | None,
        spill: str | None,
    ) -> None:
        self.table = TagTable(path, scheme)
        self.tally = SpanTally(min_overlap)
        """The judging's label sets and threshold (it counts nothing)."""
        self.labels = labels
        self.spill = spill
        """The folder the error entries are written in (None: not listed)."""

    def __call__(self, chunk: ConllChunk) -> JudgedChunk | None:
        block = read_chunk(chunk, self.table)
        if block is None:
            return None
        shown: list[frozenset[str] | None] = list(block.labels)
        if self.labels is not None:
            shown = list(map(self.labels.shown, block.labels))
        held = _judge_block(block, shown, self.tally)
        lines = block.lines.tolist()
        documents = block.documents.tolist()
        listing = Listing()
        errors = None
        if self.spill is not None:
            errors = spill_entries(self.spill, *_list_block(listing, block, held, documents, lines))
        return JudgedChunk(
            lines,
            documents,
            int(block.tokens.sum()),
            int(block.equal_tags.sum()),
            Repairs(int(block.gold.repairs.sum()), int(block.system.repairs.sum())),
            held.block,
            errors,
            listing.confusion,
        )


class _Apart(NamedTuple):
    """One column's spans of a block that the other column lacks, judged against them."""

    side: int
    """The tally's side: 0 system, else gold."""
    spans: SpanArrays
    """Positions counted from the block's first token, so sentences never touch."""
    sentence: np.ndarray
    judged: Judged
    found: Contributions
    bounds: np.ndarray
    """Segment ``i``'s spans are ``bounds[i]:bounds[i + 1]``."""


class _Counted(NamedTuple):
    """A block counted: its units' share (:class:`UnitBlock`) and its two judged sides
    (system, gold) for the error listing."""

    block: UnitBlock
    apart: tuple[_Apart, _Apart]
    tally: SpanTally


def _judge_block(
    block: ConllBlock, shown: list[frozenset[str] | None], tally: SpanTally
) -> _Counted:
    """A block's spans, counted: those on both sides (same sentence, boundaries and
    type; correct on every measure, only counted) and the rest, judged.

    ``shown`` is each type's labels as scored (None: left out on both sides).
    Decoded spans never overlap, so a span on both sides touches nothing else.
    """
    sets = tally.sets
    kept = np.array([labels is not None for labels in shown], dtype=bool)
    kinds = np.array([-1 if labels is None else sets.id(labels) for labels in shown], np.int64)
    scored = [labels or frozenset() for labels in shown]  # the left out are never read
    n = len(block.lines)
    first = np.array(block.first, dtype=np.int64)
    columns = []
    for column in (block.gold, block.system):
        keep = np.flatnonzero(kept[column.kind]) if len(shown) else np.zeros(0, dtype=np.int64)
        sentence = column.sentence[keep]
        columns.append((sentence, first[sentence] + column.start[keep], column, keep))
    (g_sentence, g_at, g_column, g_keep), (s_sentence, s_at, s_column, s_keep) = columns
    g_common = np.zeros(len(g_at), dtype=bool)
    s_common = np.zeros(len(s_at), dtype=bool)
    if len(g_at) and len(s_at):
        match = np.searchsorted(s_at, g_at).clip(0, len(s_at) - 1)
        g_common = (
            (s_at[match] == g_at)
            & (s_column.end[s_keep][match] == g_column.end[g_keep])
            & (s_column.kind[s_keep][match] == g_column.kind[g_keep])
        )
        s_common[match[g_common]] = True
    common_kinds = g_column.kind[g_keep][g_common]
    common_sentences = g_sentence[g_common]
    present = distinct(common_kinds)
    totals = []
    for kind in present:
        per_sentence = np.bincount(common_sentences[common_kinds == kind], minlength=n)
        totals.append(np.concatenate(([0], np.cumsum(per_sentence))).tolist())
    rest = []
    for sentence, at, column, keep, common in (
        (g_sentence, g_at, g_column, g_keep, g_common),
        (s_sentence, s_at, s_column, s_keep, s_common),
    ):
        left = keep[~common]
        rest.append(
            (
                sentence[~common],
                SpanArrays(at[~common], at[~common] + (column.end - column.start)[left],
                           kinds[column.kind[left]]),
            )
        )  # fmt: skip
    (g_sentence, gold), (s_sentence, system) = rest
    return _held(
        tally, n, [scored[k] for k in present], totals, (gold, g_sentence), (system, s_sentence)
    )


def _held(
    tally: SpanTally,
    n: int,
    labels: list[frozenset[str]],
    totals: list[list[int]],
    gold: tuple[SpanArrays, np.ndarray],
    system: tuple[SpanArrays, np.ndarray],
) -> _Counted:
    """A block of ``n`` segments (sentences, documents) counted: the spans both sides
    share by label set (``totals[k][i]``: those of ``labels[k]`` before segment
    ``i``), and each side's other spans with their segments, judged here.

    Positions run on across the block, so spans of two segments never touch.
    """
    apart = []
    for side, (spans, segment), (others, _) in ((0, system, gold), (GOLD_SIDE, gold, system)):
        judged = judge(spans, others, tally.sets, tally.min_overlap, side != 0)
        bounds = np.searchsorted(segment, np.arange(n + 1))
        found = contributions(judged, spans, tally.sets)
        apart.append(_Apart(side, spans, segment, judged, found, bounds))
    pieces = [Piece(part.found, part.side, part.bounds) for part in apart]
    return _Counted(
        UnitBlock(pieces, list(zip(labels, totals, strict=True))), (apart[0], apart[1]), tally
    )


def _list_block(
    listing: Listing,
    block: ConllBlock,
    held: _Counted,
    documents: list[int],
    lines: list[int],
) -> tuple[str, int]:
    """A CoNLL block's error entries and their number, placed by ``-DOCSTART-`` line
    and sentence line, positions counted in the sentence."""
    first = np.array(block.first, dtype=np.int64)
    quoted = []
    for part in held.apart:
        at = first[part.sentence]
        quoted.append(QuotedSpans(part.spans.start - at, part.spans.end - at, part.spans.kind))

    def place(sentence: int) -> tuple[Any, Any]:
        return documents[sentence] or None, lines[sentence]

    return _list_held(listing, held, (quoted[0], quoted[1]), place, block.words)


def _list_held(
    listing: Listing,
    held: _Counted,
    spans: tuple[QuotedSpans, QuotedSpans],
    place: Callable[[int], tuple[Any, Any]],
    text: Callable[[int, int, int], str],
) -> tuple[str, int]:
    """A block's error entries (its confusion cells go to ``listing``) and their number.

    ``spans`` are the system and gold spans of ``held`` as an error quotes
    them; ``place`` and ``text`` as :func:`format_errors` takes them.
    """
    for part, mine, theirs in (
        (held.apart[0], spans[0], spans[1]),
        (held.apart[1], spans[1], spans[0]),
    ):
        list_judged(
            listing, part.judged, held.tally.sets, mine, theirs, part.sentence, part.side != 0
        )
    entries = format_errors(listing.pending, place, text)
    listing.pending.clear()
    return entries


def measure_jsonl(
    lines: Iterable[str],
    path: str | None = None,
    units: SpanUnits | None = None,
    labels: LabelFilter | None = None,
    spill: ErrorSpill | None = None,
) -> tuple[SpanCounts, Repairs, int, int, int]:
    """Counts, (no) repairs, document, token numbers and equal tags of JSON ``lines``.

    ``units``, when given, receives each document (line) as a source unit,
    named ``(id, line)`` (see :func:`unit_names`); it is finished here.
    ``labels`` and ``spill`` as for :func:`measure_conll`; errors are placed
    by the document's id and line.  Token tags are those of
    :func:`~harem_pipeline.stages.spans.equal_token_tags`, before any label
    restriction.
    """
    if units is None:
        units = SpanUnits()
    documents = tokens = equal = 0
    batch: list[tuple[JsonlDocument, Sequence[Span], Sequence[Span]]] = []
    for document in parse_jsonl(lines, path):
        gold, system = document.gold, document.system
        size = len(document.tokens)
        equal += equal_token_tags(gold, system, size)
        if labels is not None:
            gold, system = labels(gold), labels(system)
        batch.append((document, gold, system))
        if len(batch) == _BATCH:
            _count_batch(batch, units, spill)
            batch.clear()
        documents += 1
        tokens += size
    _count_batch(batch, units, spill)
    counts = units.finish()
    return counts, Repairs(), documents, tokens, equal


_BATCH = 512
"""Documents judged together (their positions run on, so they never touch)."""


def _count_batch(
    batch: list[tuple[JsonlDocument, Sequence[Span], Sequence[Span]]],
    units: SpanUnits,
    spill: ErrorSpill | None,
) -> None:
    """Count a batch of documents, each one source unit named ``(id, line)``."""
    if not batch:
        return
    tally = units.tally
    shared_sets: dict[frozenset[str], list[int]] = {}
    sides: tuple[list[Span], list[Span]] = ([], [])  # system, gold: as the errors quote them
    placed: tuple[list[Span], list[Span]] = ([], [])  # the same, positions run on
    segments: tuple[list[int], list[int]] = ([], [])
    offset = 0
    for i, (document, gold, system) in enumerate(batch):
        shared, gold, system = split_shared(gold, system)
        for labels in map(itemgetter(2), shared):
            shared_sets.setdefault(labels, [0] * len(batch))[i] += 1
        for k, spans in enumerate((system, gold)):
            sides[k].extend(spans)
            placed[k].extend((a + offset, b + offset, labels) for a, b, labels in spans)
            segments[k].extend([i] * len(spans))
        reach = [b for _, b, _ in gold] + [b for _, b, _ in system]
        offset += max(len(document.tokens), *reach) + 1 if reach else len(document.tokens) + 1
    totals = [[0, *accumulate(counts)] for counts in shared_sets.values()]
    held = _held(
        tally,
        len(batch),
        list(shared_sets),
        totals,
        (tally.sets.arrays(placed[1]), np.array(segments[1], np.int64)),
        (tally.sets.arrays(placed[0]), np.array(segments[0], np.int64)),
    )
    if spill is not None:

        def place(i: int) -> tuple[Any, Any]:
            return batch[i][0].id, batch[i][0].line

        def text(i: int, start: int, end: int) -> str:
            return _joined(batch[i][0].tokens, start, end)

        quoted = tuple(
            QuotedSpans(
                np.fromiter(map(itemgetter(0), side), np.int64, len(side)),
                np.fromiter(map(itemgetter(1), side), np.int64, len(side)),
                held.apart[k].spans.kind,
            )
            for k, side in enumerate(sides)
        )
        errors, count = _list_held(spill.listing, held, (quoted[0], quoted[1]), place, text)
        spill.write(errors, count)
    ends = [(i + 1, (document.id, document.line)) for i, (document, _, _) in enumerate(batch)]
    units.add_block(held.block, 0, len(batch), ends)


def _joined(words: Sequence[str], start: int, end: int) -> str:
    """The text of tokens ``start:end``, as an error listing quotes it."""
    return " ".join(words[start:end])


def unit_names(ids: Iterable[object]) -> list[str]:
    """JSON names of the units: a CoNLL unit's first line, a JSON-lines unit's first id.

    JSON-lines ids come as ``(id, line)``; an id that names two units (a
    repeated document id) gets `` (line N)`` so no unit is lost.
    """
    ids = list(ids)
    plain = [i[0] if isinstance(i, tuple) else str(i) for i in ids]
    seen: dict[str, int] = {}
    for name in plain:
        seen[name] = seen.get(name, 0) + 1
    return [
        f"{name} (line {i[1]})" if isinstance(i, tuple) and seen[name] > 1 else name
        for name, i in zip(plain, ids, strict=True)
    ]


@contextmanager
def open_text(path: PathLike) -> Iterator[TextIO]:
    """Stream a text file in its encoding (``.gz`` allowed).

    The encoding follows the rule every reader uses (``textio``): a first
    pass over the bytes decides, in chunks, so memory stays flat; a byte
    that still does not decode is reported with its line.
    """
    encoding = detect_file_encoding(path)
    with open_binary(path) as raw:
        try:
            yield io.TextIOWrapper(raw, encoding=encoding, newline=None)
        except UnicodeDecodeError:
            raise InputError(
                str(path),
                f"text in {encoding}",
                "an undecodable byte",
                line=_bad_line(str(path), encoding),
            ) from None


def _bad_line(path: str, encoding: str) -> int | None:
    """The first line of ``path`` that does not decode (read only on that error)."""
    with open_binary(path) as handle:
        decoder = codecs.getincrementaldecoder(encoding)()
        for lineno, line in enumerate(handle, 1):
            try:
                decoder.decode(line)
            except UnicodeDecodeError:
                return lineno
    return None
