"""The semantic classification chain as file-to-file steps: alts, espurios, emir, altsem, ida.

The same shell as the other chains' (stream the input, hand its lines to
the stage, write the output in the input's encoding atomically); Ida counts
an Emir file and writes the report and its JSON twin.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import MARKER_FIRST_HAREM, Line, format_line
from harem_pipeline.formats.semantic import (
    iter_records,
    parse_semantic_line,
)
from harem_pipeline.pipeline.naming import (
    ReportOutputs,
    check_records_evaluated,
    ida_output,
    write_twins,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import derived_path, read_bytes

if TYPE_CHECKING:
    from collections.abc import Iterable

    from harem_pipeline.pipeline.params import ReportParams
    from harem_pipeline.stages.emir import EmirParams
    from harem_pipeline.stages.ida import SemanticTally


# Each step imports its stage (and the reports their measures) when it runs.

_BATCH = 4096
"""Lines joined into one write (a stage gives a record as the text of its one line)."""


def write_stage_lines(
    target: PathLike, lines: Iterable[Line | str], encoding: str, marker: str | None = None
) -> None:
    """Write a stage's output atomically in ``encoding``: a line object as
    :func:`~harem_pipeline.formats.alinhado.write_lines` writes it, a text as it is
    (a record's line, its line end included), a few thousand lines a write."""
    with atomic_write(target, "w", encoding=encoding, newline="") as handle:
        items = iter(lines)
        while batch := [
            item if isinstance(item, str) else format_line(item, marker) + item.eol
            for item in islice(items, _BATCH)
        ]:
            handle.write("".join(batch))


# ---------------------------------------------------------------------------
# alts


def alts_output(path: PathLike) -> Path:
    """``IN.alts`` (``.gz`` dropped first)."""
    return derived_path(path, ".alts")


def run_alts(path: PathLike, output: PathLike | None = None) -> Path:
    """Organise the ALT blocks of the Véus file ``path`` into ``output`` (default
    ``IN.alts``), in the input's encoding, atomically."""
    from harem_pipeline.stages.alts import organise_alts

    target = Path(output) if output is not None else alts_output(path)
    check_records_evaluated("alts", path)
    encoding, lines = iter_records(path)
    write_stage_lines(target, organise_alts(lines, str(path)), encoding, MARKER_FIRST_HAREM)
    return target


# ---------------------------------------------------------------------------
# espurios


def espurios_output(path: PathLike) -> Path:
    """``IN.espurios`` (``.gz`` dropped first)."""
    return derived_path(path, ".espurios")


def run_espurios(path: PathLike, output: PathLike | None = None) -> Path:
    """List the spurious entities of the ``.alts`` file ``path`` into ``output``
    (default ``IN.espurios``), in the input's encoding, atomically."""
    from harem_pipeline.stages.espurios import collect_spurious

    target = Path(output) if output is not None else espurios_output(path)
    encoding, lines = iter_records(path)
    write_stage_lines(target, collect_spurious(lines, str(path)), encoding)
    return target


# ---------------------------------------------------------------------------
# emir


def emir_output(path: PathLike, relative: bool = False) -> Path:
    """``IN.emir`` (``IN.emir_relativo`` in the relative scenario)."""
    return derived_path(path, ".emir_relativo" if relative else ".emir")


def run_emir(
    path: PathLike, params: EmirParams | None = None, output: PathLike | None = None
) -> Path:
    """Score the ``.alts`` file ``path`` into ``output`` (default ``IN.emir`` or
    ``IN.emir_relativo``), in the input's encoding, atomically."""
    from harem_pipeline.stages.emir import EmirParams, evaluate_lines

    params = params or EmirParams()
    target = Path(output) if output is not None else emir_output(path, params.relative)
    encoding, lines = iter_records(path)
    write_stage_lines(
        target, evaluate_lines(lines, params, str(path)), encoding, MARKER_FIRST_HAREM
    )
    return target


# ---------------------------------------------------------------------------
# altsem


def altsem_output(path: PathLike) -> Path:
    """``IN.altrel`` (``.gz`` dropped first)."""
    return derived_path(path, ".altrel")


def run_altsem(path: PathLike, output: PathLike | None = None) -> Path:
    """Keep the best alternative of every ALT block of the ``.emir`` file ``path`` in
    ``output`` (default ``IN.altrel``), in the input's encoding, atomically."""
    from harem_pipeline.stages.altsem import select_alternatives

    target = Path(output) if output is not None else altsem_output(path)
    encoding, lines = iter_records(path, parse_semantic_line)
    write_stage_lines(target, select_alternatives(lines, str(path)), encoding, MARKER_FIRST_HAREM)
    return target


# ---------------------------------------------------------------------------
# ida


JAVA_ENCODING = "iso-8859-1"


def run_ida(
    path: PathLike,
    params: ReportParams,
    signature: str,
    output: PathLike | None = None,
    grid_path: PathLike | None = None,
    first_harem: bool | None = None,
) -> ReportOutputs[SemanticTally]:
    """Count the Emir file ``path``; write the ``.ida`` text (``output``, default ``IN.ida``,
    in the input's encoding, ISO-8859-1 for a plain ASCII input as the Java) and
    ``output.json`` (UTF-8), both atomically.

    ``params`` gives the scenario and ALT choice the JSON names and the
    document bootstrap of its intervals (``bootstrap`` resamples, ``seed``).
    """
    from harem_pipeline.measures.semantic import semantic_intervals
    from harem_pipeline.reports.ida import format_ida_text, ida_json
    from harem_pipeline.stages.ida import read_tally
    from harem_pipeline.stages.tally import document_rows

    if params.scenario is None:
        raise InputError("--scenario", "absolute or relative", "none")
    target = Path(output) if output is not None else ida_output(path)
    encoding, tally = read_tally(path, grid_path, first_harem)
    if encoding == "utf-8" and read_bytes(path).isascii():
        encoding = JAVA_ENCODING  # nothing says UTF-8: the labels as the Java writes them
    documents = document_rows(tally.documents)
    ci95 = semantic_intervals(documents, params.resampling)
    text = format_ida_text(tally, signature)
    twin = ida_json(tally, signature, params.scenario, params.alt, ci95, documents)
    json_path = write_twins(target, text, encoding, twin)
    return ReportOutputs(target, json_path, tally)
