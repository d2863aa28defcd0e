"""Ida2Mor as a file-to-file step: an ``.altmor`` file counted (a block at a time on
every core), measured and written as the morphology report and its JSON twin
(both or neither), with the document bootstrap's intervals.  The morphology
chain's record steps are :mod:`harem_pipeline.pipeline.morphology`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import RawLine
from harem_pipeline.measures.morphology import morphology_intervals
from harem_pipeline.pipeline.blocks import map_line_blocks, run_with_fallback
from harem_pipeline.pipeline.naming import (
    ReportOutputs,
    check_stage_input,
    stage_output,
    write_twins,
)
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.reports.ida2mor import format_ida2mor_text, ida2mor_json_object
from harem_pipeline.stages.ida2mor import (
    MorphologyCounts,
    StretchCounts,
    count_stretch,
    join_stretches,
    morphology_document_rows,
)
from harem_pipeline.text import PathLike


def run_ida2mor(
    path: PathLike,
    params: ReportParams,
    signature: str,
    output: PathLike | None = None,
    run: str | None = None,
    workers: int | None = None,
) -> ReportOutputs[MorphologyCounts]:
    """Count an ``.altmor`` file in one streaming pass and write ``OUT`` and ``OUT.json``.

    ``params`` gives the scenario, the subset and its evaluation veil the
    report names, and the document bootstrap of the JSON's intervals
    (``bootstrap`` resamples, 0: ``ci95`` null; ``seed``).  The text report
    is written in the input's encoding (like every HAREM report), the JSON
    in UTF-8.  A large file is counted a block at a time on ``workers``
    processes (default: every core).
    """
    scenario, subset = params.scenario, params.subset
    if scenario is None:
        raise InputError(str(path), "a scenario (a '# Cenário:' line, or -abs/-rel)", "none")
    veil = params.evaluation.evaluation_veil() if params.evaluation else None
    target = stage_output("ida2mor", path, output)
    check_stage_input("ida2mor", path)
    encoding, counts = run_with_fallback(functools.partial(count_altmor_file, path), workers)
    text = format_ida2mor_text(counts, scenario, signature, run, subset, veil)
    rows = morphology_document_rows(counts.documents)
    intervals = morphology_intervals(rows, params.resampling)
    twin = ida2mor_json_object(
        counts, scenario, signature, run, subset, intervals, veil, document_rows=rows
    )
    json_path = write_twins(target, text, encoding, twin)
    return ReportOutputs(target, json_path, counts)


def count_altmor_file(path: PathLike, workers: int | None = None) -> tuple[str, MorphologyCounts]:
    """The encoding and the counts of an ``.altmor`` file, a block at a time on ``workers``."""
    stage = functools.partial(_stretches, str(path))
    encoding, stretches = map_line_blocks(path, stage, workers)
    return encoding, join_stretches(stretches)


def _stretches(path: str, encoding: str, lines: Iterable[RawLine]) -> list[StretchCounts]:
    return [count_stretch(lines, path)]
