"""Ida as a file-to-file step: an Emir file (``.emir``, ``.altrel``, a TEMPO ``.tempo``)
counted, measured and written as the classification report and its JSON twin
(both or neither), with the document bootstrap's intervals.  The semantic
chain's record steps are :mod:`harem_pipeline.pipeline.semantic`'s.
"""

from __future__ import annotations

from harem_pipeline.errors import InputError
from harem_pipeline.measures.semantic import semantic_intervals
from harem_pipeline.model import Scenario
from harem_pipeline.pipeline.ida_counts import read_tally
from harem_pipeline.pipeline.naming import (
    ReportOutputs,
    java_report_encoding,
    stage_output,
    write_twins,
)
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.reports.ida import format_ida_text, ida_json
from harem_pipeline.stages.ida import SemanticTally
from harem_pipeline.stages.tally import document_rows
from harem_pipeline.text import PathLike


def run_ida(
    path: PathLike,
    params: ReportParams,
    signature: str,
    output: PathLike | None = None,
    grid_path: PathLike | None = None,
    first_harem: bool | None = None,
    workers: int | None = None,
) -> ReportOutputs[SemanticTally]:
    """Count the Emir file ``path``; write the ``.ida`` text (``output``, default ``IN.ida``,
    in the input's encoding, ISO-8859-1 for a plain ASCII input as the Java) and
    ``output.json`` (UTF-8), both atomically.

    ``params`` gives the scenario and ALT choice the JSON names and the
    document bootstrap of its intervals (``bootstrap`` resamples, ``seed``); a large
    file is counted a block at a time on ``workers`` processes
    (:func:`~harem_pipeline.pipeline.ida_counts.read_tally`).
    """
    named_scenario(params)  # before the file is read
    counted = read_tally(path, grid_path, first_harem, workers)
    return write_ida(path, counted, params, signature, output)


def write_ida(
    path: PathLike,
    counted: tuple[str, SemanticTally],
    params: ReportParams,
    signature: str,
    output: PathLike | None = None,
) -> ReportOutputs[SemanticTally]:
    """Measure the Emir file ``path``'s counts (``counted``: its encoding and
    :func:`~harem_pipeline.pipeline.ida_counts.read_tally`'s tally) and write them as
    :func:`run_ida` does."""
    scenario = named_scenario(params)
    target = stage_output("ida", path, output)
    encoding, tally = counted
    documents = document_rows(tally.documents)
    ci95 = semantic_intervals(documents, params.resampling)
    text = format_ida_text(tally, signature)
    twin = ida_json(tally, signature, scenario, params.alt, ci95, documents)
    json_path = write_twins(target, text, java_report_encoding(path, encoding), twin)
    return ReportOutputs(target, json_path, tally)


def named_scenario(params: ReportParams) -> Scenario:
    """The scenario the report names: Ida's JSON must say which one its figures are."""
    if params.scenario is None:
        raise InputError("--scenario", "absolute or relative", "none")
    return params.scenario
