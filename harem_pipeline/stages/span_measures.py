"""Span counts of a CoNLL or JSON-lines file, streamed one document at a time.

The file is read lazily through its format module and each document's spans
go straight into the running counts of its bootstrap unit
(:class:`~harem_pipeline.stages.span_units.SpanUnits`); memory holds one
document plus at most 2,000 units' count rows, whatever the file's size.
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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import NamedTuple, TextIO

import numpy as np

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES, ConllBlock, parse_conll_blocks
from harem_pipeline.formats.jsonl import parse_jsonl
from harem_pipeline.model import Span
from harem_pipeline.stages.span_errors import ErrorSpill
from harem_pipeline.stages.span_units import UNIT_LIMIT, SpanUnits
from harem_pipeline.stages.spans import (
    CountedSpans,
    LabelFilter,
    Repairs,
    SpanCounts,
    SpanTally,
    equal_token_tags,
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


def count_file(
    path: PathLike,
    fmt: str,
    scheme: str = "lenient",
    documents: bool = True,
    unit_limit: int = UNIT_LIMIT,
    *,
    min_overlap: float = 0.0,
    labels: LabelFilter | None = None,
    errors: bool = False,
) -> CountedSpans:
    """The span counts of a ``conll`` or ``tokens-jsonl`` file (``.gz`` allowed; the
    old name ``jsonl`` is read too).

    ``scheme`` is the CoNLL tagging scheme (see ``formats.conll``); JSON
    lines carry spans, so it is ignored there.  With ``documents`` the
    counts of the bootstrap units are kept (at most ``unit_limit``, see
    :mod:`harem_pipeline.stages.span_units`).  ``min_overlap`` is the
    overlap measure's threshold (:func:`~harem_pipeline.stages.spans.check_min_overlap`),
    ``labels`` restricts the labels scored, and ``errors`` collects the
    error listing and the confusion (an
    :class:`~harem_pipeline.stages.span_errors.ErrorSpill`, on disk).
    Either way the file is streamed and memory does not grow with it.
    """
    name = str(path)
    fmt = format_name(fmt)
    if fmt not in FORMATS:
        raise InputError(name, f"a format among {', '.join(FORMATS)}", fmt)
    if fmt == "conll" and scheme not in SCHEMES:
        raise InputError(name, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    spill = ErrorSpill() if errors else None
    units = SpanUnits(unit_limit, min_overlap, None if spill is None else spill.listing)
    sentences = None
    try:
        with open_text(path) as lines:
            if fmt == "conll":
                counts, repairs, sentences, tokens, number, equal = measure_conll(
                    lines, name, scheme, units, labels, spill
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
    if documents:
        named = units.mappings()
        kept = tuple(
            zip(unit_names([unit_id for unit_id, _ in named]), (m for _, m in named), strict=True)
        )
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
    """
    if units is None:
        units = SpanUnits()
    tally = units.tally  # the same tally all along (cleared per unit)
    end_source = units.end_source
    pending = [] if spill is None else spill.listing.pending  # filled by ``tally``
    gold_repairs = system_repairs = sentences = tokens = equal = 0
    documents = 0
    previous = marked = None
    by_document = False
    first_document = current = source_line = None
    for block in parse_conll_blocks(lines, path, scheme):
        shown: list[frozenset[str] | None] = list(block.labels)
        if labels is not None:
            shown = list(map(labels.shown, block.labels))
        gold, system, held = _split_block(block, shown, tally)
        units.before_close = held.release
        line_numbers = block.lines.tolist()
        block_documents = block.documents.tolist()
        apart = (gold.apart | system.apart).tolist()
        for i, document in enumerate(block_documents):
            held.position = i
            if by_document:
                if document != current:
                    end_source(source_line)
                    current, source_line = document, line_numbers[i]
            elif first_document is None:
                first_document, source_line = document, line_numbers[i]
            elif document != first_document:
                units.collapse()  # the sentences so far are the first document
                by_document = True
                current, source_line = document, line_numbers[i]
            if apart[i]:
                tally.add_apart(gold.spans(i), system.spans(i))
                if pending and spill is not None:
                    spill.flush(document or None, line_numbers[i], partial(block.words, i))
            held.position = i + 1
            if not by_document:
                end_source(line_numbers[i])
        held.release()
        units.before_close = None
        gold_repairs += int(block.gold.repairs.sum())
        system_repairs += int(block.system.repairs.sum())
        sentences += len(line_numbers)
        tokens += int(block.tokens.sum())
        equal += int(block.equal_tags.sum())
        for document in block_documents:
            if document != previous:
                documents += 1
                previous = document
        marked = marked or any(block_documents)
    if by_document:
        end_source(source_line)
    counts = units.finish()
    repairs = Repairs(gold_repairs, system_repairs)
    return counts, repairs, sentences, tokens, documents if marked else 0, equal


class _Side(NamedTuple):
    """One column's spans of a block that the other column lacks, by sentence."""

    apart: np.ndarray
    """Whether each sentence has such a span."""
    tuples: list[Span]
    bounds: list[int]
    """Sentence ``i``'s spans are ``tuples[bounds[i]:bounds[i + 1]]``."""

    def spans(self, sentence: int) -> list[Span]:
        return self.tuples[self.bounds[sentence] : self.bounds[sentence + 1]]


class _Held:
    """The spans a block's two columns share, counted per sentence and type, held back
    until the tally needs them: ``release`` adds those of the sentences before
    ``position`` not yet added (:attr:`SpanUnits.before_close`)."""

    __slots__ = ("tally", "labels", "totals", "position", "_added")

    def __init__(self, tally: SpanTally, labels: list[frozenset[str]], totals: list[list[int]]):
        self.tally = tally
        self.labels = labels
        self.totals = totals
        """Per type, running totals: ``totals[k][i]`` spans before sentence ``i``."""
        self.position = 0
        self._added = 0

    def release(self) -> None:
        a, b = self._added, self.position
        if b <= a:
            return
        for labels, running in zip(self.labels, self.totals, strict=True):
            number = running[b] - running[a]
            if number:
                self.tally.add_identical(labels, number)
        self._added = b


def _split_block(
    block: ConllBlock, shown: list[frozenset[str] | None], tally: SpanTally
) -> tuple[_Side, _Side, _Held]:
    """Spans of a block's columns: those on both sides (same sentence, boundaries and
    type; correct on every measure, only counted) and the rest, per sentence.

    ``shown`` is each type's labels as scored (None: left out on both sides);
    the shared spans are held for ``tally``.
    Decoded spans never overlap, so a span on both sides touches nothing else
    (:meth:`SpanTally.add_apart`).
    """
    kept = np.array([labels is not None for labels in shown], dtype=bool)
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
    present = np.unique(common_kinds).tolist()
    totals = []
    for kind in present:
        per_sentence = np.bincount(common_sentences[common_kinds == kind], minlength=n)
        totals.append(np.concatenate(([0], np.cumsum(per_sentence))).tolist())
    held = _Held(tally, [scored[k] for k in present], totals)
    sides = []
    for sentence, column, keep, common in (
        (g_sentence, g_column, g_keep, g_common),
        (s_sentence, s_column, s_keep, s_common),
    ):
        rest = keep[~common]
        rest_sentence = sentence[~common]
        apart = np.zeros(n, dtype=bool)
        apart[rest_sentence] = True
        tuples = list(
            zip(
                column.start[rest].tolist(),
                column.end[rest].tolist(),
                map(scored.__getitem__, column.kind[rest].tolist()),
                strict=True,
            )
        )
        bounds = np.searchsorted(rest_sentence, np.arange(n + 1)).tolist()
        sides.append(_Side(apart, tuples, bounds))
    return sides[0], sides[1], held


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
    for document in parse_jsonl(lines, path):
        gold, system = document.gold, document.system
        size = len(document.tokens)
        equal += equal_token_tags(gold, system, size)
        if labels is not None:
            gold, system = labels(gold), labels(system)
        units.add_document(gold, system)
        if spill is not None:
            spill.flush(document.id, document.line, partial(_joined, document.tokens))
        units.end_source((document.id, document.line))
        documents += 1
        tokens += size
    counts = units.finish()
    return counts, Repairs(), documents, tokens, equal


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
