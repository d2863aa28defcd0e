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
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import TextIO

from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES, parse_conll
from harem_pipeline.formats.jsonl import parse_jsonl
from harem_pipeline.stages.span_errors import ErrorSpill
from harem_pipeline.stages.span_units import UNIT_LIMIT, SpanUnits
from harem_pipeline.stages.spans import (
    CountedSpans,
    LabelFilter,
    Repairs,
    SpanCounts,
    equal_token_tags,
)
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
    path: str | os.PathLike[str],
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
    add = units.tally.add_document  # the same tally all along (cleared per unit)
    end_source = units.end_source
    pending = [] if spill is None else spill.listing.pending  # filled by ``add``
    gold_repairs = system_repairs = sentences = tokens = equal = 0
    documents = 0
    previous = marked = None
    by_document = False
    first_document = current = source_line = None
    for sentence in parse_conll(lines, path, scheme):
        if by_document:
            if sentence.document != current:
                end_source(source_line)
                current, source_line = sentence.document, sentence.line
        elif first_document is None:
            first_document, source_line = sentence.document, sentence.line
        elif sentence.document != first_document:
            units.collapse()  # the sentences so far are the first document
            by_document = True
            current, source_line = sentence.document, sentence.line
        if labels is None:
            add(sentence.gold, sentence.system)
        else:
            add(labels(sentence.gold), labels(sentence.system))
        if pending and spill is not None:
            spill.flush(sentence.document or None, sentence.line, sentence.words)
        if not by_document:
            end_source(sentence.line)
        gold_repairs += sentence.gold_repairs
        system_repairs += sentence.system_repairs
        sentences += 1
        tokens += sentence.tokens
        equal += sentence.equal_tags
        if sentence.document != previous:
            documents += 1
            previous = sentence.document
        marked = marked or bool(sentence.document)
    if by_document:
        end_source(source_line)
    counts = units.finish()
    repairs = Repairs(gold_repairs, system_repairs)
    return counts, repairs, sentences, tokens, documents if marked else 0, equal


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
def open_text(path: str | os.PathLike[str]) -> Iterator[TextIO]:
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
