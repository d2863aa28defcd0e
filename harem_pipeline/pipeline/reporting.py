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

from harem_pipeline.errors import InputError
from harem_pipeline.formats.vizir import open_raw_lines
from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.measures.morphology import morphology_intervals
from harem_pipeline.measures.semantic import semantic_intervals
from harem_pipeline.pipeline.naming import (
    ALT_RELAXED,
    ALT_STRICT,
    SCENARIO_ABSOLUTE,
    SCENARIO_RELATIVE,
    ida2mor_output,
    ida_output,
    json_twin,
    semantic_kind_from_name,
)
from harem_pipeline.pipeline.reporting_ida2id import Ida2idOutputs as Ida2idOutputs
from harem_pipeline.pipeline.reporting_ida2id import run_ida2id as run_ida2id
from harem_pipeline.reports.ida import format_ida_json, format_ida_text
from harem_pipeline.reports.ida2mor import format_ida2mor_json, format_ida2mor_text
from harem_pipeline.stages.ida import SemanticTally
from harem_pipeline.stages.ida import read_tally as read_semantic_tally
from harem_pipeline.stages.ida2mor import (
    MorphologyCounts,
    count_raw_morphology,
    morphology_document_rows,
)
from harem_pipeline.stages.tally import document_rows
from harem_pipeline.stages.vizir import Scenario
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.text.textio import read_bytes

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


@dataclass(frozen=True, slots=True)
class IdaOutputs:
    """What :func:`run_ida` wrote and counted."""

    text_path: Path
    json_path: Path
    tally: SemanticTally


JAVA_ENCODING = "iso-8859-1"


def run_ida(
    path: PathLike,
    signature: str,
    output: PathLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    scenario: str | None = None,
    alt: str | None = None,
    grid_path: PathLike | None = None,
    first_harem: bool | None = None,
) -> IdaOutputs:
    """Count the Emir file ``path``; write the ``.ida`` text (``output``, default ``IN.ida``,
    in the input's encoding, ISO-8859-1 for a plain ASCII input as the Java) and
    ``output.json`` (UTF-8), both atomically.

    ``scenario`` / ``alt`` default to what the file name says
    (:func:`~harem_pipeline.pipeline.naming.semantic_kind_from_name`).
    """
    named_scenario, named_alt = semantic_kind_from_name(path)
    scenario = scenario or named_scenario
    alt = alt or named_alt
    for value, allowed in (
        (scenario, (SCENARIO_ABSOLUTE, SCENARIO_RELATIVE)),
        (alt, (ALT_STRICT, ALT_RELAXED)),
    ):
        if value not in allowed:
            raise InputError("--scenario/--alt", " or ".join(allowed), value)
    target = Path(output) if output is not None else ida_output(path)
    encoding, tally = read_semantic_tally(path, grid_path, first_harem)
    if encoding == "utf-8" and read_bytes(path).isascii():
        encoding = JAVA_ENCODING  # nothing says UTF-8: the labels as the Java writes them
    documents = document_rows(tally.documents)
    ci95 = semantic_intervals(documents, resamples, seed)
    text = format_ida_text(tally, signature)
    write_text_atomic(target, text, encoding=encoding)
    json_text = format_ida_json(tally, signature, scenario, alt, ci95, documents)
    json_path = json_twin(target)
    write_text_atomic(json_path, json_text)
    return IdaOutputs(target, json_path, tally)
