"""The aligner as a file-to-file step: read both collections, align, write atomically.

``run_align`` streams the CD and the run a document at a time and writes
each document pair's block as soon as it is aligned, on every core.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import format_lines
from harem_pipeline.formats.harem_xml import (
    CollectionStream,
    CutCollection,
    DocumentSlice,
    cut_collection,
    open_collection,
    read_collection,
)
from harem_pipeline.model import Collection, Document
from harem_pipeline.pipeline.blocks import run_with_fallback
from harem_pipeline.pipeline.naming import stage_output
from harem_pipeline.pipeline.parallel import ordered_map, uses_workers
from harem_pipeline.stages.align import (
    IGNORED_DOCUMENT,
    MISSING_DOCUMENT,
    AlignmentWritten,
    DocumentPair,
    DuplicateTrimmedDocid,
    align_collections,
    document_pairs,
    header_lines,
    pair_text,
    read_pair,
)
from harem_pipeline.stages.align_tokens import pair_token_text
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write, write_bytes_atomic
from harem_pipeline.text.java import java_trim

# ---------------------------------------------------------------------------
# align


def run_align(
    cd_path: PathLike,
    run_path: PathLike,
    output: PathLike | None = None,
    meta_path: PathLike | None = None,
    workers: int | None = None,
    show_tokens: bool = False,
) -> tuple[Path, AlignmentWritten]:
    """Align the run with the CD, write ``output`` atomically; return it and the warnings.

    Both files are read one document at a time and each document pair is
    written as soon as it is aligned (:func:`~harem_pipeline.stages.align.document_pairs`),
    so memory does not grow with the collection.  The output is in the CD's
    encoding; a character it cannot hold becomes ``?``, as the Java's writer
    did.  The warnings are returned, not printed.  A CD with two DOCIDs
    equal once trimmed, the second met after the first was paired, is read
    whole instead: the original pairs the run's document with the later one.

    ``show_tokens`` writes the token view (``stages.align_tokens``, the
    official ``-etiquetas sim``): the same records with every entity's
    markable tokens numbered.

    On worker processes the files are only cut into documents here
    (``cut_collection``); each document is read where it is aligned, by the
    collection reader.  An input error met that way is not trusted (the cut
    could be wrong where the file is): both files are then read as one
    stream in this process (``open_collection``), whose outcome is the one
    returned, as for a record stage's blocks (``run_with_fallback``).
    """
    target = stage_output("align", run_path, output)
    align = functools.partial(_align_files, cd_path, run_path, meta_path, target, show_tokens)
    try:
        return target, run_with_fallback(align, workers)
    except DuplicateTrimmedDocid as duplicate:
        if show_tokens:
            raise InputError(
                str(cd_path),
                "DOCIDs that differ once trimmed (needed for --show-tokens)",
                f"two DOCIDs {str(duplicate)!r}",
            ) from None
        whole_cd, whole_run = read_collection(cd_path, meta_path), read_collection(run_path)
        check_collections_share_documents(whole_cd, whole_run)
        result = align_collections(whole_cd, whole_run)
        data = format_lines(result.lines).encode(whole_cd.encoding, errors="replace")
        write_bytes_atomic(target, data)
        return target, AlignmentWritten(result.warnings)


def _align_files(
    cd_path: PathLike,
    run_path: PathLike,
    meta_path: PathLike | None,
    target: Path,
    show_tokens: bool,
    workers: int | None,
) -> AlignmentWritten:
    """Align the files into ``target``: cut into documents read on ``workers`` processes,
    or, with one worker, read as one stream here."""
    cd: CollectionStream | CutCollection
    run: CollectionStream | CutCollection
    if uses_workers(workers):
        cd, run = cut_collection(cd_path, meta_path), cut_collection(run_path)
    else:
        cd, run = open_collection(cd_path, meta_path), open_collection(run_path)
    if cd.format != run.format:
        raise InputError(run.path, f"a run in the {cd.format} format of the CD", run.format)
    return _write_alignment(cd, run, target, workers, show_tokens)


def _write_alignment(
    cd: CollectionStream | CutCollection,
    run: CollectionStream | CutCollection,
    target: Path,
    workers: int | None,
    show_tokens: bool = False,
) -> AlignmentWritten:
    """Align two streams of documents into ``target``, pair after pair, on ``workers`` processes.

    Each pair goes with the number of warnings before it, so that a run's document
    found empty where it is read (``read_pair``) is warned of in its place.
    """
    warnings: list[str] = []
    ignored: list[tuple[int, str]] = []
    run_docids: list[str] = []
    counted = _NotedRun(run.path, run.format, _noting_docids(run.documents, run_docids))
    encode = functools.partial(_encoded_pairs, encoding=cd.encoding, show_tokens=show_tokens)
    placed = ((len(warnings), pair) for pair in document_pairs(cd, counted, warnings))
    pairs = _batched(placed, _PAIRS_FIRST_TASK, _PAIRS_PER_TASK)
    with atomic_write(target, "wb", encoding=None, newline=None) as handle:
        handle.write(_encoded(header_lines(cd, run), cd.encoding))
        for data, empty in ordered_map(encode, pairs, workers):
            handle.write(data)
            ignored += empty
        missing = sum(1 for w in warnings if w.startswith(MISSING_DOCUMENT))
        check_shared_documents(cd.path, run.path, run_docids, len(run_docids) - missing)
    if ignored:  # each before the warning that followed its pair
        order = [(at, 1, w) for at, w in enumerate(warnings)] + [(at, 0, w) for at, w in ignored]
        warnings = [w for _, _, w in sorted(order, key=lambda x: x[:2])]
    return AlignmentWritten(tuple(warnings))


def _encoded(lines: list, encoding: str) -> bytes:
    """Lines as the ``.alinhado`` holds them: a character the encoding lacks becomes ``?``."""
    return format_lines(lines).encode(encoding, errors="replace")


# Document pairs sent to a worker process at a time: each task costs the
# parent a few hundred microseconds (pickling, a pipe write to wake the pool),
# about as much as aligning a small pair.  The first tasks are small, so a
# small collection still spreads over every worker; they double up to the
# largest, which a large collection mostly goes in.  With three tasks a
# worker in flight, a few hundred pairs at most are held at once: memory
# stays flat.
_PAIRS_FIRST_TASK = 12
_PAIRS_PER_TASK = 48


def _encoded_pairs(
    pairs: list[tuple[int, DocumentPair]], encoding: str, show_tokens: bool
) -> tuple[bytes, list[tuple[int, str]]]:
    """Document pairs read, aligned and encoded, one after the other, and the warnings for
    run documents found empty, each with its place (what a worker process returns).

    ``show_tokens``: in the token view (``stages.align_tokens``).
    """
    text_of = pair_token_text if show_tokens else pair_text
    texts: list[str] = []
    ignored: list[tuple[int, str]] = []
    for at, pair in pairs:
        read = read_pair(pair)
        if read is not None:
            texts.append(text_of(read))
        elif pair.run_doc is not None:  # read_pair leaves out only an empty run document
            ignored.append((at, IGNORED_DOCUMENT + pair.run_doc.docid))
    return "".join(texts).encode(encoding, errors="replace"), ignored


P = TypeVar("P")


def _batched(pairs: Iterator[P], size: int, largest: int | None = None) -> Iterator[list[P]]:
    """``pairs`` in lists of ``size``, each list twice the last up to ``largest`` (default:
    ``size``); an error reading one comes after the pairs read before it.

    (As ``ordered_map`` holds a reading error until every earlier item is
    done, the plain loop's order of errors is kept.)
    """
    largest = size if largest is None else largest
    batch: list[P] = []
    try:
        for pair in pairs:
            batch.append(pair)
            if len(batch) == size:
                yield batch
                batch = []
                size = min(2 * size, largest)
    except Exception:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


@dataclasses.dataclass(frozen=True, slots=True)
class _NotedRun:
    """A run whose documents note their DOCIDs as they are read (a ``DocumentSource``)."""

    path: str
    format: str
    documents: Iterator[Document | DocumentSlice]


def _noting_docids(
    documents: Iterator[Document | DocumentSlice], docids: list[str]
) -> Iterator[Document | DocumentSlice]:
    for document in documents:
        docids.append(document.docid)
        yield document


def check_collections_share_documents(cd: Collection, run: Collection) -> None:
    """:func:`check_shared_documents` for two collections already read."""
    known = {java_trim(docid) for docid in cd.docids}
    shared = sum(1 for docid in run.docids if java_trim(docid) in known)
    check_shared_documents(cd.path, run.path, list(run.docids), shared)


def check_shared_documents(cd_path: str, run_path: str, run_docids: list[str], shared: int) -> None:
    """``InputError`` when the run shares no DOCID with the collection.

    A run that shares no document with the collection would be scored as
    all missing, which says nothing about the system: that is almost always
    the wrong file.  DOCIDs compare as the aligner pairs them (blanks at
    either end ignored).  Raised inside the atomic write, so no output is
    left behind.  A partial overlap is the aligner's warnings' business.
    """
    if shared:
        return
    first = f" (first: {run_docids[0]})" if run_docids else ""
    raise InputError(
        run_path,
        f"a run sharing at least one DOCID with the collection {os.path.basename(cd_path)}",
        f"none of its {len(run_docids)} documents{first}",
    )
