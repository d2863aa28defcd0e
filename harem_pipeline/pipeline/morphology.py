"""The morphology chain as file-to-file steps: Vizir and AltinaMor.

Each stage module of :mod:`harem_pipeline.stages` transforms records and
never opens a file for writing; these functions are the shell around them
(the same for the command line and the Luigi tasks): stream the input
through its format, hand the records to the stage, write the output in the
input's encoding under a temporary name and rename it into place, so a bad
line leaves no partial output behind.  A large file is read a block at a
time on every core (:mod:`harem_pipeline.pipeline.blocks`).  Ida2Mor, which
counts an ``.altmor`` file, is :func:`harem_pipeline.pipeline.ida2mor.run_ida2mor`.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from harem_pipeline.errors import HaremError
from harem_pipeline.formats.alinhado import (
    Header,
    RawLine,
    format_line,
    iter_lines,
)
from harem_pipeline.model import Scenario
from harem_pipeline.pipeline.blocks import (
    cut_outside_alt,
    map_line_blocks,
    run_with_fallback,
    write_blocks,
)
from harem_pipeline.pipeline.naming import (
    check_stage_input,
    stage_output,
)
from harem_pipeline.stages.altmor import choose_lines
from harem_pipeline.stages.vizir import (
    DERIVED_EXTENSIONS,
    VizirTally,
    header_scenario,
    scenario_header,
    score_lines,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write, written_in_place

# ---------------------------------------------------------------------------
# altmor


def run_altmor(
    path: PathLike,
    output: PathLike | None = None,
    workers: int | None = None,
) -> Path:
    """Resolve the ALT blocks of a ``.vizir`` file into ``output``, in the input's encoding.

    A large file is read a block at a time on ``workers`` processes (default:
    every core), blocks cut outside ALT blocks (:func:`cut_outside_alt`).
    """
    target = stage_output("altmor", path, output)
    check_stage_input("altmor", path)
    stage = functools.partial(_altmor_texts, str(path))
    return write_blocks(path, target, stage, cut_outside_alt, workers)


def _altmor_texts(path: str, encoding: str, lines: Iterable[RawLine]) -> Iterator[bytes]:
    for batch in choose_lines(lines, path):
        yield "".join(batch).encode(encoding)


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


def run_vizir(
    path: PathLike,
    scenario: Scenario,
    output: PathLike | None = None,
    workers: int | None = None,
) -> VizirResult:
    """Score one Véus result file into ``output`` (default ``FILE.vizir``), streaming.

    The output is written in the input's encoding, atomically.  When no
    system entity of the file carries MORF, nothing is written and the
    result's ``output`` is ``None`` (the original Vizir's rule); an output
    left there by an earlier run is removed, so it cannot pass as this one's.
    A large file is scored a block at a time on ``workers`` processes
    (default: every core; :mod:`harem_pipeline.pipeline.blocks`).
    """
    target = stage_output("vizir", path, output)
    check_stage_input("vizir", path)
    run = functools.partial(_write_vizir, Path(path), scenario, target)
    return run_with_fallback(run, workers)


def _write_vizir(path: Path, scenario: Scenario, target: Path, workers: int | None) -> VizirResult:
    stage = functools.partial(_vizir_parts, scenario, str(path))
    encoding, parts = map_line_blocks(path, stage, workers)
    tally = VizirTally()
    try:
        with atomic_write(target, "wb", encoding=None) as handle:
            header = False
            for text, first_eol, records, scored, morph_seen in parts:
                tally.records += records
                tally.scored += scored
                tally.system_morph_seen |= morph_seen
                if first_eol is not None and not header:
                    # The scenario travels in the file (AltinaMor keeps the line,
                    # Ida2Mor reads it), with the line end of the lines after it.
                    handle.write(_header_bytes(scenario, first_eol, encoding))
                    header = True
                handle.write(text)
            if not header:
                handle.write(_header_bytes(scenario, "\n", encoding))
            if not tally.system_morph_seen:
                raise _NothingClassified
    except _NothingClassified:
        if not written_in_place(target):  # never a pipe, a device or a file named "-"
            target.unlink(missing_ok=True)
        return VizirResult(path, None, tally.records, tally.scored)
    return VizirResult(path, target, tally.records, tally.scored)


def _header_bytes(scenario: Scenario, eol: str, encoding: str) -> bytes:
    header = scenario_header(scenario, eol)
    return (format_line(header) + header.eol).encode(encoding)


VizirPart = tuple[bytes, str | None, int, int, bool]
"""``.vizir`` text (encoded), the line end of its first line (None: no line), and what it counted:
records, records scored, whether a system entity carried MORF."""


def _vizir_parts(
    scenario: Scenario, path: str, encoding: str, lines: Iterable[RawLine]
) -> Iterator[VizirPart]:
    """``score_lines`` as parts, each with the tally of the lines it read."""
    tally = VizirTally()
    records = scored = 0
    for batch in score_lines(lines, scenario, path, tally):
        text = "".join(batch).encode(encoding)
        yield text, batch[1], tally.records - records, tally.scored - scored, False
        records, scored = tally.records, tally.scored
    yield b"", None, tally.records - records, tally.scored - scored, tally.system_morph_seen


def read_scenario(path: PathLike) -> Scenario | None:
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
    folder: PathLike, scenario: Scenario
) -> tuple[list[VizirResult], list[FolderFailure]]:
    """Score every Véus result of ``folder`` (the original ``ACMorf.pl DIR``), in name order,
    all or nothing.

    Every file is scored into a temporary folder inside ``folder`` first;
    only when all succeeded are the outputs renamed into place (and the
    stale output of a file with no MORF removed).  A bad file is returned as
    a failure, the others are still scored (so every bad file is named), and
    then nothing at all is written: a folder is never left half scored, with
    some outputs new and others of an earlier run.
    """
    folder = Path(folder)
    inputs = [path for path in sorted(folder.iterdir()) if is_vizir_input(path)]
    results: list[VizirResult] = []
    failures: list[FolderFailure] = []
    pending = Path(tempfile.mkdtemp(prefix=".vizir-", dir=folder))
    try:
        for path in inputs:
            try:
                results.append(
                    run_vizir(path, scenario, pending / stage_output("vizir", path).name)
                )
            except HaremError as error:
                failures.append(FolderFailure(path, error))
        if failures:
            return [], failures
        placed = []
        for result in results:
            target = stage_output("vizir", result.input)
            if result.output is None:
                target.unlink(missing_ok=True)
                placed.append(result)
            else:
                os.replace(result.output, target)
                placed.append(replace(result, output=target))
        return placed, []
    finally:
        shutil.rmtree(pending, ignore_errors=True)
