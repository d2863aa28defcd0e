"""Ida2ID as a file-to-file step: an ``.altida`` file counted, measured and written as the
identification report and its JSON twin (both or neither), with the document
bootstrap's intervals and, in a campaign, the span measures of the same
documents.  The identification chain's record steps are
:mod:`harem_pipeline.pipeline.identification`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harem_pipeline.measures.identification import identification_intervals, measures_from_counts
from harem_pipeline.pipeline.naming import (
    ReportOutputs,
    check_stage_input,
    java_report_encoding,
    stage_output,
    write_twins,
)
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.reports.ida2id import format_ida2id_text, ida2id_json_object
from harem_pipeline.stages.ida2id import IdentificationTally, read_tally
from harem_pipeline.stages.tally import document_rows
from harem_pipeline.text import PathLike

if TYPE_CHECKING:  # an annotation: the span measures come made (pipeline.harem_spans)
    from harem_pipeline.measures.spans import MeasuresReport


def run_ida2id(
    path: PathLike,
    params: ReportParams,
    signature: str,
    output: PathLike | None = None,
    spans: MeasuresReport | None = None,
) -> ReportOutputs[IdentificationTally]:
    """Count ``path`` and write the text report (``output``, default ``IN.ida2id``) and
    ``output.json``; ``spans``, the span measures of the same documents, join both
    (see :mod:`harem_pipeline.reports.ida2id`).

    The JSON carries the 95 % intervals of a ``params.bootstrap``-draw document
    bootstrap (0: ``ci95`` null) and the per-document counts; the report names
    the evaluation veil of ``params`` (none when its evaluation is not known).
    The file is read as one stream: its blocks on two cores were slower
    (bench/README.md, "The identification stages in blocks").
    """
    veil = params.evaluation.evaluation_veil() if params.evaluation else None
    target = stage_output("ida2id", path, output)
    check_stage_input("ida2id", path)
    encoding, tally = read_tally(path)
    measures = measures_from_counts(tally.total)
    text = format_ida2id_text(tally.total, measures, signature, spans, veil)
    documents = document_rows(tally.documents)
    ci95 = identification_intervals(documents, params.resampling)
    twin = ida2id_json_object(tally.total, measures, signature, ci95, documents, spans, veil)
    json_path = write_twins(target, text, java_report_encoding(path, encoding), twin)
    return ReportOutputs(target, json_path, tally)
