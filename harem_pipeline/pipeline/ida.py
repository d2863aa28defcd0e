"""Ida as a file-to-file step: an Emir file (``.emir``, ``.altrel``, a TEMPO ``.tempo``)
counted, measured and written as the classification report and its JSON twin
(both or neither), with the document bootstrap's intervals.  The semantic
chain's record steps are :mod:`harem_pipeline.pipeline.semantic`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Line, LineParser, RawLine, peek_numbered_lines
from harem_pipeline.formats.semantic import semantic_lines
from harem_pipeline.measures.semantic import semantic_intervals
from harem_pipeline.pipeline.blocks import map_line_blocks, run_with_fallback
from harem_pipeline.pipeline.naming import (
    ReportOutputs,
    java_report_encoding,
    stage_output,
    write_twins,
)
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.reports.ida import format_ida_text, ida_json
from harem_pipeline.stages.emir import opening_header
from harem_pipeline.stages.ida import (
    Aside,
    Segment,
    SemanticTally,
    TallyContext,
    emir_reading,
    tally_context,
    tally_events,
    tally_pieces,
)
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
    file is counted a block at a time on ``workers`` processes (:func:`read_tally`).
    """
    if params.scenario is None:
        raise InputError("--scenario", "absolute or relative", "none")
    target = stage_output("ida", path, output)
    encoding, tally = read_tally(path, grid_path, first_harem, workers)
    documents = document_rows(tally.documents)
    ci95 = semantic_intervals(documents, params.resampling)
    text = format_ida_text(tally, signature)
    twin = ida_json(tally, signature, params.scenario, params.alt, ci95, documents)
    json_path = write_twins(target, text, java_report_encoding(path, encoding), twin)
    return ReportOutputs(target, json_path, tally)


def read_tally(
    path: PathLike,
    grid_path: PathLike | None = None,
    first_harem: bool | None = None,
    workers: int | None = None,
) -> tuple[str, SemanticTally]:
    """Count the Emir file ``path`` (:func:`~harem_pipeline.stages.ida.tally_semantic`'s
    counts); its encoding with the tally.

    A large file is read a block at a time on ``workers`` processes (default:
    every core), each block's records turned into their contributions there;
    the contributions are added here, in the file's order, so every sum is the
    one-stream sum to the last digit.
    """
    name = str(path)
    parse, canonical = emir_reading(path)
    context, _ = tally_context(
        semantic_lines(peek_numbered_lines(path)[1], name, parse, canonical),
        name,
        grid_path,
        first_harem,
    )
    stage = functools.partial(_tally_block, context, parse, canonical, name)

    def count(workers: int | None) -> tuple[str, SemanticTally]:
        encoding, pieces = map_line_blocks(path, stage, workers)
        return encoding, tally_pieces(pieces, context)

    return run_with_fallback(count, workers)


def _tally_block(
    context: TallyContext,
    parse: LineParser,
    canonical: bool,
    path: str,
    encoding: str,
    lines: Iterable[RawLine],
) -> Iterator[Segment | Aside | Line]:
    _, items = opening_header(semantic_lines(lines, path, parse, canonical), path)
    return tally_events(items, context, path)
