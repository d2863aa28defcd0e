"""Span measures of a CoNLL or JSON-lines file, streamed one document at a time.

The file is read lazily through its format module and each document's spans
go straight into a ``SpanTally``; memory holds one document plus the counts,
whatever the file's size.  The result carries the counts (for a bootstrap or
a later merge), the measures computed from them, the repairs the CoNLL
reader made, and the signature that pins the numbers to the input.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TextIO

from harem_pipeline.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES, parse_conll
from harem_pipeline.formats.jsonl import parse_jsonl
from harem_pipeline.signature import Signature, short_digest
from harem_pipeline.span_intervals import add_mappings, mapping_intervals, tally_mapping
from harem_pipeline.spans import SpanCounts, SpanMeasures, SpanTally, compute_measures
from harem_pipeline.textio import detect_encoding

FORMATS = ("conll", "jsonl")
_SNIFF_BYTES = 1 << 16


@dataclass(frozen=True, slots=True)
class Repairs:
    """Invalid tag boundaries found (and repaired) per column, under ``scheme``."""

    gold: int = 0
    system: int = 0


@dataclass(frozen=True, slots=True)
class MeasuresReport:
    """Everything ``harem measures`` reports about one file."""

    path: str
    format: str
    scheme: str | None
    documents: int
    tokens: int
    counts: SpanCounts
    measures: SpanMeasures
    repairs: Repairs
    signature: Signature
    document_counts: tuple[tuple[str, SpanCounts | dict[str, float]], ...] = ()
    """Each document's counts, as ``SpanCounts`` or flattened by ``span_counts_as_mapping``
    (the CoNLL and JSON-lines readers; a CoNLL sentence is named by its first line), in
    file order; empty when not kept."""
    intervals: dict | None = None
    """95 % bootstrap intervals (``span_intervals``); None when not computed."""


def measure_file(
    path: str | os.PathLike[str],
    fmt: str,
    scheme: str = "lenient",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    documents: bool = True,
) -> MeasuresReport:
    """All span measures of a ``conll`` or ``jsonl`` file (``.gz`` allowed).

    ``scheme`` is the CoNLL tagging scheme (see ``formats.conll``); JSON
    lines carry spans, so it is ignored there.  With ``documents`` the
    per-document counts are kept (memory grows with the number of documents)
    for a document bootstrap of ``resamples`` draws (0: no intervals);
    without, the file is streamed in the memory of one document.
    """
    name = str(path)
    if fmt not in FORMATS:
        raise InputError(name, f"a format among {', '.join(FORMATS)}", fmt)
    if fmt == "conll" and scheme not in SCHEMES:
        raise InputError(name, f"a tagging scheme among {', '.join(SCHEMES)}", scheme)
    per_document: dict[str, dict[str, float]] | None = {} if documents else None
    with open_text(path) as lines:
        if fmt == "conll":
            counts, repairs, number, tokens = measure_conll(lines, name, scheme, per_document)
        else:
            counts, repairs, number, tokens = measure_jsonl(lines, name, per_document)
    used_scheme = scheme if fmt == "conll" else None
    signature = Signature.build(
        measures="spans", file=short_digest(path), format=fmt, scheme=used_scheme
    )
    return MeasuresReport(
        name,
        fmt,
        used_scheme,
        number,
        tokens,
        counts,
        compute_measures(counts),
        repairs,
        signature,
        tuple((per_document or {}).items()),
        mapping_intervals(list(per_document.values()), resamples, seed)
        if per_document is not None
        else None,
    )


def measure_conll(
    lines: Iterable[str],
    path: str | None = None,
    scheme: str = "lenient",
    per_document: dict[str, dict[str, float]] | None = None,
) -> tuple[SpanCounts, Repairs, int, int]:
    """Counts, repairs, sentence and token numbers of CoNLL ``lines``.

    ``per_document``, when given, receives each sentence's counts under its
    first line number (the sentence is CoNLL's document).
    """
    tally = SpanTally()
    add = tally.add_document
    gold_repairs = system_repairs = documents = tokens = 0
    for sentence in parse_conll(lines, path, scheme):
        add(sentence.gold, sentence.system)
        if per_document is not None:
            _keep(per_document, str(sentence.line), sentence.gold, sentence.system)
        gold_repairs += sentence.gold_repairs
        system_repairs += sentence.system_repairs
        documents += 1
        tokens += sentence.tokens
    return tally.counts(), Repairs(gold_repairs, system_repairs), documents, tokens


def measure_jsonl(
    lines: Iterable[str],
    path: str | None = None,
    per_document: dict[str, dict[str, float]] | None = None,
) -> tuple[SpanCounts, Repairs, int, int]:
    """Counts, (no) repairs, document and token numbers of JSON ``lines``.

    ``per_document``, when given, receives each document's counts by ``id``.
    """
    tally = SpanTally()
    documents = tokens = 0
    for document in parse_jsonl(lines, path):
        tally.add_document(document.gold, document.system)
        if per_document is not None:
            _keep(per_document, document.id, document.gold, document.system)
        documents += 1
        tokens += len(document.tokens)
    return tally.counts(), Repairs(), documents, tokens


def _keep(per_document: dict[str, dict[str, float]], docid: str, gold, system) -> None:
    """Add one document's counts (a repeated id adds to the earlier one).

    The document is scored again on its own: the file's totals keep their
    one running sum, so its figures do not depend on keeping documents.
    """
    tally = SpanTally()
    tally.add_document(gold, system)
    counts = tally_mapping(tally)
    earlier = per_document.get(docid)
    per_document[docid] = counts if earlier is None else add_mappings(earlier, counts)


@contextmanager
def open_text(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """Stream a text file in its detected encoding (``.gz`` allowed).

    The encoding is detected on the first 64 KiB (see ``textio``); a byte that
    does not decode later on is reported with its line.
    """
    p = Path(path)
    try:
        raw: IO[bytes] = (
            gzip.open(p, "rb") if p.suffix == ".gz" else p.open("rb", buffering=_SNIFF_BYTES)
        )
    except FileNotFoundError:
        raise InputError(str(path), "an existing file", "no such file") from None
    except IsADirectoryError:
        raise InputError(str(path), "a file", "a directory") from None
    with raw:
        try:
            head = raw.peek(_SNIFF_BYTES)[:_SNIFF_BYTES]
        except (OSError, EOFError) as exc:
            raise InputError(str(path), "a readable file", str(exc)) from None
        cut = head.rfind(b"\n")
        encoding = detect_encoding(head[: cut + 1] if cut >= 0 else head, str(path))
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
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as handle:
        decoder = codecs.getincrementaldecoder(encoding)()
        for lineno, line in enumerate(handle, 1):
            try:
                decoder.decode(line)
            except UnicodeDecodeError:
                return lineno
    return None
