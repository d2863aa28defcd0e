"""The report steps: read an evaluated file, count it, measure it, render, write.

One shell for every report family: the stage counts
(:mod:`harem_pipeline.stages`), the family's one formula measures
(:mod:`harem_pipeline.measures`), the report renders
(:mod:`harem_pipeline.reports`), and only here are files written — the
text report in its input's encoding, then its JSON twin, each atomically.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.formats.vizir import RawLine
from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.measures.morphology import morphology_intervals
from harem_pipeline.pipeline.blocks import map_line_blocks, run_with_fallback
from harem_pipeline.pipeline.naming import (
    check_stage_input,
    ida2mor_output,
)
from harem_pipeline.pipeline.reporting_ida2id import Ida2idOutputs as Ida2idOutputs
from harem_pipeline.pipeline.reporting_ida2id import run_ida2id as run_ida2id
from harem_pipeline.pipeline.reporting_ida2id import write_twins
from harem_pipeline.pipeline.semantic import (  # noqa: F401 (Ida's step, re-exported)
    JAVA_ENCODING,
    IdaOutputs,
    run_ida,
)
from harem_pipeline.reports.ida2mor import format_ida2mor_json, format_ida2mor_text
from harem_pipeline.stages.ida2mor import (
    MorphologyCounts,
    StretchCounts,
    count_stretch,
    join_stretches,
    morphology_document_rows,
)
from harem_pipeline.stages.vizir import Scenario

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class Ida2MorOutputs:
    """Where the two reports went, and the counts they were made from."""

    text: Path
    json: Path
    counts: MorphologyCounts


def run_ida2mor(
    path: PathLike,
    scenario: Scenario,
    signature: str,
    output: PathLike | None = None,
    run: str | None = None,
    subset: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    veil: str | None = None,
    workers: int | None = None,
) -> Ida2MorOutputs:
    """Count an ``.altmor`` file in one streaming pass and write ``OUT`` and ``OUT.json``.

    The text report is written in the input's encoding (like every HAREM
    report), the JSON in UTF-8 with the intervals of a ``resamples``-draw
    document bootstrap (0: ``ci95`` null).  A large file is counted a block
    at a time on ``workers`` processes (default: every core).
    """
    target = Path(output) if output is not None else ida2mor_output(path)
    check_stage_input("ida2mor", path)
    encoding, counts = run_with_fallback(functools.partial(count_altmor_file, path), workers)
    text = format_ida2mor_text(counts, scenario, signature, run, subset, veil)
    rows = morphology_document_rows(counts.documents)
    intervals = morphology_intervals(rows, resamples, seed)
    json_text = format_ida2mor_json(
        counts, scenario, signature, run, subset, intervals, veil, document_rows=rows
    )
    json_path = write_twins(target, text, encoding, json_text)
    return Ida2MorOutputs(target, json_path, counts)


def count_altmor_file(path: PathLike, workers: int | None = None) -> tuple[str, MorphologyCounts]:
    """The encoding and the counts of an ``.altmor`` file, a block at a time on ``workers``."""
    stage = functools.partial(_stretches, str(path))
    encoding, stretches = map_line_blocks(path, stage, workers)
    return encoding, join_stretches(stretches)


def _stretches(path: str, encoding: str, lines: Iterable[RawLine]) -> list[StretchCounts]:
    return [count_stretch(lines, path)]
