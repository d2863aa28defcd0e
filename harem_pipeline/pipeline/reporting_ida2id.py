"""The Ida2ID report step: count an evaluated file, measure it, write the report and its JSON.

A module of its own (re-exported by :mod:`harem_pipeline.pipeline.reporting`)
so that ``harem ida2id`` imports only the identification family; numpy, for
the document bootstrap, is imported only when resamples are asked for.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.measures.identification import (
    IdentificationMeasures,
    identification_intervals,
    measures_from_counts,
)
from harem_pipeline.measures.spans import MeasuresReport
from harem_pipeline.pipeline.naming import check_stage_input, ida2id_output, json_twin
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.reports.ida2id import format_ida2id_json, format_ida2id_text
from harem_pipeline.stages.ida2id import IdentificationTally, read_tally
from harem_pipeline.stages.tally import document_rows
from harem_pipeline.text.atomic import write_text_atomic, written_in_place

PathLike = str | os.PathLike[str]


def write_twins(target: Path, text: str, encoding: str, json_text: str) -> Path:
    """Write a text report and its JSON twin, both or neither; return the twin's path.

    Both are rendered before this is called, so a failure while computing
    (the bootstrap out of memory, a bad document) leaves no file at all; a
    failure writing the twin takes the text report back, unless that went to
    a pipe or a device, which cannot be taken back.
    """
    json_path = json_twin(target)
    write_text_atomic(target, text, encoding=encoding)
    try:
        write_text_atomic(json_path, json_text)
    except BaseException:
        if not written_in_place(target):
            target.unlink(missing_ok=True)
        raise
    return json_path


@dataclass(frozen=True, slots=True)
class Ida2idOutputs:
    """What :func:`run_ida2id` wrote and computed."""

    text_path: Path
    json_path: Path
    tally: IdentificationTally
    measures: IdentificationMeasures


def run_ida2id(
    path: PathLike,
    params: ReportParams,
    signature: str,
    output: PathLike | None = None,
    spans: MeasuresReport | None = None,
) -> Ida2idOutputs:
    """Count ``path`` and write the text report (``output``, default ``IN.ida2id``) and
    ``output.json``; ``spans``, the span measures of the same documents, join both
    (see :mod:`harem_pipeline.reports.ida2id`).

    The JSON carries the 95 % intervals of a ``params.bootstrap``-draw document
    bootstrap (0: ``ci95`` null) and the per-document counts; the report names
    the evaluation veil of ``params`` (none when its evaluation is not known).
    """
    veil = params.evaluation.evaluation_veil() if params.evaluation else None
    target = Path(output) if output is not None else ida2id_output(path)
    check_stage_input("ida2id", path)
    encoding, tally = read_tally(path)
    measures = measures_from_counts(tally.total)
    text = format_ida2id_text(tally.total, measures, signature, spans, veil)
    documents = document_rows(tally.documents)
    ci95 = identification_intervals(documents, params.bootstrap, params.seed)
    json_text = format_ida2id_json(tally.total, measures, signature, ci95, documents, spans, veil)
    json_path = write_twins(target, text, encoding, json_text)
    return Ida2idOutputs(target, json_path, tally, measures)
