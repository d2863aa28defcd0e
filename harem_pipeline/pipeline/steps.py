"""The record stages as file-to-file steps: read, transform, write atomically.

Each stage module of :mod:`harem_pipeline.stages` transforms records and
never opens a file for writing; these functions are the shell around them
(the same for the command line and the Luigi tasks): stream the input
through its format, hand the records to the stage, write the output in the
input's encoding under a temporary name and rename it into place, so a bad
line leaves no partial output behind.  Default output names are the
original tools' (``RUN.alinhado``, ``IN.avalida``, ``IN.total``,
``IN.altida``, ``FILE.vizir``, ``FILE.altmor``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline.errors import HaremError, InputError
from harem_pipeline.formats.alinhado import (
    Header,
    format_lines,
    iter_lines,
    write_to,
)
from harem_pipeline.formats.harem_xml import (
    CollectionStream,
    NotPlainCollection,
    PlainCollectionStream,
    RawDocument,
    open_collection,
    open_plain_collection,
    read_collection,
    read_meta,
)
from harem_pipeline.model import Collection, Document
from harem_pipeline.pipeline.record_steps import (  # the identification steps, re-exported
    altida_output as altida_output,
)
from harem_pipeline.pipeline.record_steps import avalida_output as avalida_output
from harem_pipeline.pipeline.record_steps import run_altida as run_altida
from harem_pipeline.pipeline.record_steps import run_avalida as run_avalida
from harem_pipeline.pipeline.record_steps import run_veus as run_veus
from harem_pipeline.pipeline.record_steps import veus_output as veus_output
from harem_pipeline.pipeline.semantic import (  # noqa: F401 (the semantic steps, re-exported)
    alts_output,
    altsem_output,
    emir_output,
    espurios_output,
    run_alts,
    run_altsem,
    run_emir,
    run_espurios,
)
from harem_pipeline.stages.align import (
    MISSING_DOCUMENT,
    AlignmentWritten,
    DocumentPair,
    DuplicateTrimmedDocid,
    align_collections,
    document_pairs,
    header_lines,
    pair_text,
)
from harem_pipeline.stages.altmor import choose_raw_lines
from harem_pipeline.stages.vizir import (
    DERIVED_EXTENSIONS,
    Scenario,
    VizirTally,
    header_scenario,
    scenario_header,
    score_raw_lines,
)
from harem_pipeline.text.atomic import atomic_write, write_bytes_atomic
from harem_pipeline.text.java import java_trim
from harem_pipeline.text.textio import derived_path

if TYPE_CHECKING:
    from harem_pipeline.stages.align import AlignmentWritten
    from harem_pipeline.stages.vizir import Scenario

# Each step imports its stage when it runs, so that one command (``harem emir``)
# loads only its own stage, not the aligner's or Vizir's modules.

# ---------------------------------------------------------------------------
# align


def align_output(run_path: str | os.PathLike[str]) -> Path:
    """``RUN.alinhado`` (a ``.gz`` run ``x.xml.gz`` gives ``x.xml.alinhado``)."""
    return derived_path(run_path, ".alinhado")


def run_align(
    cd_path: str | os.PathLike[str],
    run_path: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    meta_path: str | os.PathLike[str] | None = None,
    workers: int | None = None,
) -> tuple[Path, AlignmentWritten]:
    """Align the run with the CD, write ``output`` atomically; return it and the warnings.

    Both files are read one document at a time and each document pair is
    written as soon as it is aligned (:func:`~harem_pipeline.stages.align.document_pairs`),
    so memory does not grow with the collection.  The output is in the CD's
    encoding; a character it cannot hold becomes ``?``, as the Java's writer
    did.  The warnings are returned, not printed.  A CD with two DOCIDs
    equal once trimmed, the second met after the first was paired, is read
    whole instead: the original pairs the run's document with the later one.

    Plain Second HAREM files (``open_plain_collection``) are only cut into
    documents here; each pair is parsed where it is aligned, in the worker
    processes.  A file that proves not plain, or any error, starts the
    general way over (reading in this process), so outputs and error
    messages are the general way's.
    """
    target = Path(output) if output is not None else align_output(run_path)
    try:
        try:
            if meta_path is not None:
                read_meta(meta_path)  # its errors, as the general reader gives them
            plain = open_plain_collection(cd_path), open_plain_collection(run_path)
            return target, _write_alignment(*plain, target, workers)
        except (NotPlainCollection, InputError):  # the general reader names the file's fault
            cd, run = open_collection(cd_path, meta_path), open_collection(run_path)
            if cd.format != run.format:
                raise InputError(
                    run.path, f"a run in the {cd.format} format of the CD", run.format
                ) from None
            return target, _write_alignment(cd, run, target, workers)
    except DuplicateTrimmedDocid:
        whole_cd, whole_run = read_collection(cd_path, meta_path), read_collection(run_path)
        check_collections_share_documents(whole_cd, whole_run)
        result = align_collections(whole_cd, whole_run)
        data = format_lines(result.lines).encode(whole_cd.encoding, errors="replace")
        write_bytes_atomic(target, data)
        return target, AlignmentWritten(result.warnings)


def _write_alignment(
    cd: CollectionStream | PlainCollectionStream,
    run: CollectionStream | PlainCollectionStream,
    target: Path,
    workers: int | None,
) -> AlignmentWritten:
    """Align two streams of documents into ``target``, pair after pair, on ``workers`` processes."""
    from harem_pipeline.pipeline.parallel import ordered_map

    warnings: list[str] = []
    run_docids: list[str] = []
    counted = dataclasses.replace(run, documents=_noting_docids(run.documents, run_docids))
    encode = functools.partial(_encoded_pair, encoding=cd.encoding)
    with atomic_write(target, "wb", encoding=None, newline=None) as handle:
        handle.write(_encoded(header_lines(cd, run), cd.encoding))
        for data in ordered_map(encode, document_pairs(cd, counted, warnings), workers):
            handle.write(data)
        missing = sum(1 for w in warnings if w.startswith(MISSING_DOCUMENT))
        check_shared_documents(cd.path, run.path, run_docids, len(run_docids) - missing)
    return AlignmentWritten(tuple(warnings))


def _encoded(lines: list, encoding: str) -> bytes:
    """Lines as the ``.alinhado`` holds them: a character the encoding lacks becomes ``?``."""
    return format_lines(lines).encode(encoding, errors="replace")


def _encoded_pair(pair: DocumentPair, encoding: str) -> bytes:
    """One document pair aligned and encoded (what a worker process returns)."""
    return pair_text(pair).encode(encoding, errors="replace")


def _noting_docids(
    documents: Iterator[Document] | Iterator[RawDocument], docids: list[str]
) -> Iterator[Document | RawDocument]:
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


# ---------------------------------------------------------------------------
# altmor


def altmor_output(path: str | os.PathLike[str]) -> Path:
    """``FILE.vizir`` → ``FILE.altmor`` (any other name gets ``.altmor`` appended)."""
    return derived_path(path, ".altmor", replaces=".vizir")


def run_altmor(path: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Path:
    """Resolve the ALT blocks of a ``.vizir`` file into ``output``, in the input's encoding."""

    from harem_pipeline.formats.vizir import open_raw_lines

    target = Path(output) if output is not None else altmor_output(path)
    encoding, lines = open_raw_lines(path)
    with atomic_write(target, "w", encoding=encoding, newline="") as handle:
        for batch in choose_raw_lines(lines, str(path)):
            handle.write("".join(batch))
    return target


# ---------------------------------------------------------------------------
# vizir


@dataclass(frozen=True, slots=True)
class VizirResult:
    """The outcome of scoring one file: where the output went (``None``: not written)."""

    input: Path
    output: Path | None
    records: int
    scored: int

    @property
    def written(self) -> bool:
        return self.output is not None


class _NothingClassified(Exception):
    """Raised inside the atomic writer to abandon the output (no-output rule)."""


def vizir_output(path: str | os.PathLike[str]) -> Path:
    """``FILE.vizir``; a gzipped input ``FILE.gz`` gives ``FILE.vizir``."""
    return derived_path(path, ".vizir")


def run_vizir(
    path: str | os.PathLike[str],
    scenario: Scenario,
    output: str | os.PathLike[str] | None = None,
) -> VizirResult:
    """Score one Véus result file into ``output`` (default ``FILE.vizir``), streaming.

    The output is written in the input's encoding, atomically.  When no
    system entity of the file carries MORF, nothing is written and the
    result's ``output`` is ``None`` (the original Vizir's rule); an output
    left there by an earlier run is removed, so it cannot pass as this one's.
    """

    from harem_pipeline.formats.vizir import open_raw_lines

    target = Path(output) if output is not None else vizir_output(path)
    encoding, lines = open_raw_lines(path)
    tally = VizirTally()
    try:
        with atomic_write(target, "w", encoding=encoding, newline="") as handle:
            batches = score_raw_lines(lines, scenario, str(path), tally)
            first = next(batches, None)
            # The scenario travels in the file (AltinaMor keeps the line, Ida2Mor
            # reads it), with the line end of the lines after it.
            write_to(handle, [scenario_header(scenario, "\n" if first is None else first[1])])
            for batch in itertools.chain([first] if first else [], batches):
                handle.write("".join(batch))
            if not tally.system_morph_seen:
                raise _NothingClassified
    except _NothingClassified:
        target.unlink(missing_ok=True)
        return VizirResult(Path(path), None, tally.records, tally.scored)
    return VizirResult(Path(path), target, tally.records, tally.scored)


def read_scenario(path: str | os.PathLike[str]) -> Scenario | None:
    """The scenario a ``.vizir`` or ``.altmor`` file records in its header lines, if any.

    Only the ``#`` lines at the top are read (files of earlier versions have none).
    """
    _, lines = iter_lines(path)
    for line in lines:
        if not isinstance(line, Header):
            return None
        scenario = header_scenario(line)
        if scenario is not None:
            return scenario
    return None


def is_vizir_input(path: Path) -> bool:
    """Whether a folder run takes ``path``: a visible file with no derived extension."""

    if not path.is_file() or path.name.startswith("."):
        return False
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    extension = name.rsplit(".", 1)[1].lower() if "." in name else ""
    return extension not in DERIVED_EXTENSIONS


@dataclass(frozen=True, slots=True)
class FolderFailure:
    """A file of a folder run that could not be scored, with the one-line reason."""

    input: Path
    error: HaremError


def run_vizir_folder(
    folder: str | os.PathLike[str], scenario: Scenario
) -> tuple[list[VizirResult], list[FolderFailure]]:
    """Score every Véus result of ``folder`` (the original ``ACMorf.pl DIR``), in name order.

    A bad file does not stop the others: it is returned as a failure and
    leaves no output.
    """
    results: list[VizirResult] = []
    failures: list[FolderFailure] = []
    for path in sorted(Path(folder).iterdir()):
        if not is_vizir_input(path):
            continue
        try:
            results.append(run_vizir(path, scenario))
        except HaremError as error:
            failures.append(FolderFailure(path, error))
    return results, failures
