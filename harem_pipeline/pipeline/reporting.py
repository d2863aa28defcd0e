"""The report steps: read an evaluated file, count it, measure it, render, write.

One shell for every report family: the stage counts
(:mod:`harem_pipeline.stages`), the family's one formula measures
(:mod:`harem_pipeline.measures`), the report renders
(:mod:`harem_pipeline.reports`), and only here are files written — the
text report in its input's encoding, then its JSON twin, each atomically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.formats.vizir import open_raw_lines
from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.measures.morphology import morphology_intervals
from harem_pipeline.pipeline.naming import (
    ida2mor_output,
    json_twin,
)
from harem_pipeline.pipeline.reporting_ida2id import Ida2idOutputs as Ida2idOutputs
from harem_pipeline.pipeline.reporting_ida2id import run_ida2id as run_ida2id
from harem_pipeline.pipeline.semantic import (  # noqa: F401 (Ida's step, re-exported)
    JAVA_ENCODING,
    IdaOutputs,
    run_ida,
)
from harem_pipeline.reports.ida2mor import format_ida2mor_json, format_ida2mor_text
from harem_pipeline.stages.ida2mor import (
    MorphologyCounts,
    count_raw_morphology,
    morphology_document_rows,
)
from harem_pipeline.stages.vizir import Scenario
from harem_pipeline.text.atomic import write_text_atomic

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
) -> Ida2MorOutputs:
    """Count an ``.altmor`` file in one streaming pass and write ``OUT`` and ``OUT.json``.

    The text report is written in the input's encoding (like every HAREM
    report), the JSON in UTF-8 with the intervals of a ``resamples``-draw
    document bootstrap (0: ``ci95`` null).
    """
    target = Path(output) if output is not None else ida2mor_output(path)
    encoding, lines = open_raw_lines(path)
    counts = count_raw_morphology(lines, str(path))
    text = format_ida2mor_text(counts, scenario, signature, run, subset, veil)
    write_text_atomic(target, text, encoding)
    rows = morphology_document_rows(counts.documents)
    intervals = morphology_intervals(rows, resamples, seed)
    json_text = format_ida2mor_json(
        counts, scenario, signature, run, subset, intervals, veil, document_rows=rows
    )
    json_path = json_twin(target)
    write_text_atomic(json_path, json_text)
    return Ida2MorOutputs(target, json_path, counts)
