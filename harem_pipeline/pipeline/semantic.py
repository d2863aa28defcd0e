"""The semantic classification chain as file-to-file steps: alts, espurios, emir, altsem.

The same shell as the other chains' (stream the input, hand its lines to
the stage, write the output in the input's encoding atomically), and Emir's
and Ida's parameters for a campaign.  Ida, which counts an Emir file, is
:func:`harem_pipeline.pipeline.ida.run_ida`.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline.formats.alinhado import MARKER_FIRST_HAREM, Line, format_line
from harem_pipeline.formats.semantic import iter_records, parse_semantic_line
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline.naming import check_records_evaluated, stage_output
from harem_pipeline.pipeline.params import ReportParams, scored_documents, subset_params
from harem_pipeline.stages.alts import organise_alts
from harem_pipeline.stages.altsem import select_alternatives
from harem_pipeline.stages.emir import DEFAULT_WEIGHTS, EmirParams, evaluate_lines, parse_weights
from harem_pipeline.stages.espurios import collect_spurious
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write

if TYPE_CHECKING:
    from harem_pipeline.pipeline.config import Campaign

_BATCH = 4096
"""Lines joined into one write (a stage gives a record as the text of its one line)."""


def write_stage_lines(
    target: PathLike, lines: Iterable[Line | str], encoding: str, marker: str | None = None
) -> None:
    """Write a stage's output atomically in ``encoding``: a line object as
    :func:`~harem_pipeline.formats.alinhado.write_lines` writes it, a text as it is
    (a record's line, its line end included), a few thousand lines a write."""
    with atomic_write(target, "w", encoding=encoding, newline="") as handle:
        items = iter(lines)
        while batch := [
            item if isinstance(item, str) else format_line(item, marker) + item.eol
            for item in islice(items, _BATCH)
        ]:
            handle.write("".join(batch))


# ---------------------------------------------------------------------------
# alts


def run_alts(path: PathLike, output: PathLike | None = None) -> Path:
    """Organise the ALT blocks of the Véus file ``path`` into ``output`` (default
    ``IN.alts``), in the input's encoding, atomically."""
    target = stage_output("alts", path, output)
    check_records_evaluated("alts", path)
    encoding, lines = iter_records(path)
    write_stage_lines(target, organise_alts(lines, str(path)), encoding, MARKER_FIRST_HAREM)
    return target


# ---------------------------------------------------------------------------
# espurios


def run_espurios(path: PathLike, output: PathLike | None = None) -> Path:
    """List the spurious entities of the ``.alts`` file ``path`` into ``output``
    (default ``IN.espurios``), in the input's encoding, atomically."""
    target = stage_output("espurios", path, output)
    encoding, lines = iter_records(path)
    write_stage_lines(target, collect_spurious(lines, str(path)), encoding)
    return target


# ---------------------------------------------------------------------------
# emir


def run_emir(
    path: PathLike, params: EmirParams | None = None, output: PathLike | None = None
) -> Path:
    """Score the ``.alts`` file ``path`` into ``output`` (default ``IN.emir`` or
    ``IN.emir_relativo``), in the input's encoding, atomically."""
    params = params or EmirParams()
    target = stage_output("emir_relativo" if params.relative else "emir", path, output)
    encoding, lines = iter_records(path)
    write_stage_lines(
        target, evaluate_lines(lines, params, str(path)), encoding, MARKER_FIRST_HAREM
    )
    return target


# ---------------------------------------------------------------------------
# altsem


def run_altsem(path: PathLike, output: PathLike | None = None) -> Path:
    """Keep the best alternative of every ALT block of the ``.emir`` file ``path`` in
    ``output`` (default ``IN.altrel``), in the input's encoding, atomically."""
    target = stage_output("altsem", path, output)
    encoding, lines = iter_records(path, parse_semantic_line)
    write_stage_lines(target, select_alternatives(lines, str(path)), encoding, MARKER_FIRST_HAREM)
    return target


# ---------------------------------------------------------------------------
# A campaign's Emir and Ida parameters


def default_weights_text() -> str:
    """Emir's official weights as a signature prints them: ``1;1;0.5;0.25``."""
    return ";".join(format(weight, "g") for weight in DEFAULT_WEIGHTS)


def emir_params(campaign: Campaign, scenario: Scenario) -> EmirParams:
    """Emir's options for the campaign (weights, penalties, grid) in one scenario."""
    weights = parse_weights(campaign.weights, campaign.penalties, "weights")
    grid = None if campaign.grid is None else str(campaign.grid)
    return EmirParams(weights, scenario is Scenario.RELATIVE, grid)


def semantic_report_params(
    campaign: Campaign,
    run: str,
    subset: str,
    scenario: Scenario,
    alt: Alt,
    veil: str | None = None,
) -> ReportParams:
    """The parameters of one Ida report: Emir's ``scenario``, ``alt`` strict/relaxed
    (``veil``: a named veil of ``veils:``, evaluated in ``campaign.veil_style``)."""
    style = campaign.veil_style if veil else campaign.style
    return ReportParams(
        subset=subset,
        scenario=scenario,
        evaluation=subset_params(campaign, run, subset, style, veil),
        alt=alt,
        weights=campaign.weights or default_weights_text(),
        penalties=campaign.penalties,
        grid=None if campaign.grid is None else campaign.grid.name,
        bootstrap=campaign.bootstrap,
        documents=scored_documents(campaign, run),
    )
