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

import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline.errors import HaremError
from harem_pipeline.formats.alinhado import (
    Header,
    iter_lines,
    write_to,
)
from harem_pipeline.pipeline.align_steps import (  # noqa: F401 (the aligner's step, re-exported)
    align_output,
    check_collections_share_documents,
    check_shared_documents,
    run_align,
)
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
from harem_pipeline.stages.altmor import choose_raw_lines
from harem_pipeline.stages.vizir import (
    DERIVED_EXTENSIONS,
    Scenario,
    VizirTally,
    header_scenario,
    scenario_header,
    score_raw_lines,
)
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import derived_path

if TYPE_CHECKING:
    from harem_pipeline.stages.vizir import Scenario

# Each step imports its stage when it runs, so that one command (``harem emir``)
# loads only its own stage, not the aligner's or Vizir's modules.

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
