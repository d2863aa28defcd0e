"""The Ida2ID report step: count an evaluated file, measure it, write the report and its JSON.

A module of its own (re-exported by :mod:`harem_pipeline.pipeline.reporting`)
so that ``harem ida2id`` imports only the identification family; numpy, for
the document bootstrap, is imported only when resamples are asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.measures.identification import (
    IdentificationMeasures,
    identification_intervals,
    measures_from_counts,
)
from harem_pipeline.measures.spans import MeasuresReport
from harem_pipeline.pipeline.naming import check_stage_input, ida2id_output, json_twin
from harem_pipeline.reports.ida2id import format_ida2id_json, format_ida2id_text
from harem_pipeline.stages.ida2id import IdentificationTally, read_tally
from harem_pipeline.stages.tally import document_rows
from harem_pipeline.text.atomic import write_text_atomic

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, slots=True)
class Ida2idOutputs:
    """What :func:`run_ida2id` wrote and computed."""

    text_path: Path
    json_path: Path
    tally: IdentificationTally
    measures: IdentificationMeasures


def run_ida2id(
    path: PathLike,
    signature: str,
    output: PathLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    spans: MeasuresReport | None = None,
    veil: str | None = None,
) -> Ida2idOutputs:
    """Count ``path`` and write the text report (``output``, default ``IN.ida2id``) and
    ``output.json``; ``spans``, the span measures of the same documents, join both
    (see :mod:`harem_pipeline.reports.ida2id`).

    The JSON carries the 95 % intervals of a ``resamples``-draw document
    bootstrap (0: ``ci95`` null) and the per-document counts.
    """
    target = Path(output) if output is not None else ida2id_output(path)
    check_stage_input("ida2id", path)
    encoding, tally = read_tally(path)
    measures = measures_from_counts(tally.total)
    text = format_ida2id_text(tally.total, measures, signature, spans, veil)
    write_text_atomic(target, text, encoding=encoding)
    documents = document_rows(tally.documents)
    ci95 = identification_intervals(documents, resamples, seed)
    json_text = format_ida2id_json(tally.total, measures, signature, ci95, documents, spans, veil)
    json_path = json_twin(target)
    write_text_atomic(json_path, json_text)
    return Ida2idOutputs(target, json_path, tally, measures)
