"""The semantic classification chain as file-to-file steps: alts, espurios, emir, altsem.

The same shell as the other chains' record steps (:mod:`harem_pipeline.pipeline.blocks`:
a large file a block of whole lines at a time on every core, one stream for a small
one; the output in the input's encoding, written atomically), with the header written
once and what reaches across blocks settled here in file order; and Emir's and Ida's
parameters for a campaign.  Ida, which counts an Emir file, is
:func:`harem_pipeline.pipeline.ida.run_ida`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline.formats.alinhado import (
    MARKER_FIRST_HAREM,
    WRITE_BATCH,
    Line,
    LineParser,
    RawBlock,
    RawLine,
    format_line,
    parse_line,
    peek_numbered_lines,
)
from harem_pipeline.formats.semantic import (
    SemanticRecord,
    ended_outside_alt,
    parse_semantic_line,
    semantic_lines,
)
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline.blocks import (
    StageOnLines,
    cut_outside_alt,
    map_line_blocks,
    run_with_fallback,
)
from harem_pipeline.pipeline.naming import check_records_evaluated, stage_output
from harem_pipeline.pipeline.params import ReportParams, scored_documents, subset_params
from harem_pipeline.stages.alts import organised_lines, settle_alts
from harem_pipeline.stages.altsem import selected_lines
from harem_pipeline.stages.emir import (
    DEFAULT_WEIGHTS,
    EmirParams,
    emir_filter,
    java_line_end,
    opening_header,
    parse_weights,
    scored_lines,
)
from harem_pipeline.stages.espurios import spurious_lists
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write

if TYPE_CHECKING:
    from harem_pipeline.pipeline.config import Campaign

SemanticBody = Callable[[Iterator[Line | SemanticRecord], str], Iterable[object]]
"""A stage's body: the lines of a file after its header (or of a block of them) to what it
writes of them (a line, a record's text, or a mark its settling step reads)."""


def write_semantic_blocks(
    path: PathLike,
    target: Path,
    body: SemanticBody,
    regroup: Callable[[Iterator[RawBlock]], Iterator[RawBlock]] | None = None,
    workers: int | None = None,
    settle: Callable[[Iterator[object]], Iterator[object]] | None = None,
    parse: LineParser = parse_line,
) -> Path:
    """A semantic stage's file step: the header line (required) as the Java writes it,
    then ``body`` over the other lines, a block at a time on ``workers`` (blocks moved by
    ``regroup``; the file read again as one stream after an input error), the pieces
    in the file's order through ``settle``, written atomically in the input's encoding."""
    stage = functools.partial(_stage_texts, body, parse, str(path))
    write = functools.partial(_write_pieces, Path(path), target, stage, regroup, settle)
    return run_with_fallback(write, workers)


def _write_pieces(
    path: Path,
    target: Path,
    stage: StageOnLines[object],
    regroup: Callable[[Iterator[RawBlock]], Iterator[RawBlock]] | None,
    settle: Callable[[Iterator[object]], Iterator[object]] | None,
    workers: int | None,
) -> Path:
    encoding, pieces = map_line_blocks(path, stage, workers, regroup)
    if settle is not None:
        pieces = settle(pieces)
    with atomic_write(target, "wb", encoding=None) as handle:
        for piece in pieces:  # encoded by a worker, or a record's text settled here
            handle.write(piece.encode(encoding) if isinstance(piece, str) else piece)
    return target


def _stage_texts(
    body: SemanticBody, parse: LineParser, path: str, encoding: str, lines: Iterable[RawLine]
) -> Iterator[object]:
    """``body`` over a block's lines, the file's header line first when the block starts
    the file (and an empty file refused): runs of lines joined and encoded, a few
    thousand a piece; anything else ``body`` gives (a mark for the settling step) a
    piece of its own."""
    header, items = opening_header(semantic_lines(lines, path, parse), path)
    written = body(items, path)
    if header is not None:
        written = itertools.chain((java_line_end(header),), written)
    run: list[str] = []
    for item in written:
        if type(item) is str:
            run.append(item)
        elif isinstance(item, Line):
            run.append(format_line(item, MARKER_FIRST_HAREM) + item.eol)
        else:
            if run:
                yield "".join(run).encode(encoding)
                run = []
            yield item
            continue
        if len(run) >= WRITE_BATCH:
            yield "".join(run).encode(encoding)
            run = []
    if run:
        yield "".join(run).encode(encoding)


# ---------------------------------------------------------------------------
# alts


def run_alts(path: PathLike, output: PathLike | None = None, workers: int | None = None) -> Path:
    """Organise the ALT blocks of the Véus file ``path`` into ``output`` (default
    ``IN.alts``), in the input's encoding, atomically; a large file a block at a time
    on ``workers`` processes (default: every core), cut outside ALT blocks."""
    target = stage_output("alts", path, output)
    check_records_evaluated("alts", path)
    settle = functools.partial(settle_alts, path=str(path))
    return write_semantic_blocks(path, target, organised_lines, cut_outside_alt, workers, settle)


# ---------------------------------------------------------------------------
# espurios


def run_espurios(
    path: PathLike, output: PathLike | None = None, workers: int | None = None
) -> Path:
    """List the spurious entities of the ``.alts`` file ``path`` into ``output``
    (default ``IN.espurios``), in the input's encoding, atomically; a large file a block
    at a time on ``workers`` processes (default: every core)."""
    target = stage_output("espurios", path, output)
    return write_semantic_blocks(path, target, spurious_lists, None, workers)


# ---------------------------------------------------------------------------
# emir


def run_emir(
    path: PathLike,
    params: EmirParams | None = None,
    output: PathLike | None = None,
    workers: int | None = None,
) -> Path:
    """Score the ``.alts`` file ``path`` into ``output`` (default ``IN.emir`` or
    ``IN.emir_relativo``), in the input's encoding, atomically; a large file a block at
    a time on ``workers`` processes (default: every core)."""
    params = params or EmirParams()
    target = stage_output("emir_relativo" if params.relative else "emir", path, output)
    peeked = semantic_lines(peek_numbered_lines(path)[1], str(path))
    filt, _ = emir_filter(peeked, params, str(path))
    body = functools.partial(scored_lines, filt=filt, params=params)
    return write_semantic_blocks(path, target, body, None, workers)


# ---------------------------------------------------------------------------
# altsem


def run_altsem(path: PathLike, output: PathLike | None = None, workers: int | None = None) -> Path:
    """Keep the best alternative of every ALT block of the ``.emir`` file ``path`` in
    ``output`` (default ``IN.altrel``), in the input's encoding, atomically; a large
    file a block at a time on ``workers`` processes (default: every core), cut outside
    ALT blocks."""
    target = stage_output("altsem", path, output)
    settle = functools.partial(ended_outside_alt, path=str(path))
    return write_semantic_blocks(
        path, target, selected_lines, cut_outside_alt, workers, settle, parse_semantic_line
    )


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
