"""The identification chain as file-to-file steps: AvalIDa, Véus, AltinaID and Ida2ID.

Each record step streams its input a chunk of lines at a time through the
stage's one body and writes the output atomically in the input's encoding;
Ida2ID counts an evaluated file, measures it and writes the report and its
JSON twin (numpy, for the document bootstrap, is imported only when
resamples are asked for).  AvalIDa's and Véus's outputs feed the other chains
too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline.formats.alinhado import MARKER_FIRST_HAREM, formatted_batches, parse_numbered
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.formats.vizir import RawLine
from harem_pipeline.pipeline.blocks import (
    cut_before_documents,
    cut_outside_alt,
    map_line_blocks,
    record_texts,
    run_with_fallback,
    write_line_blocks,
)
from harem_pipeline.pipeline.naming import (
    ReportOutputs,
    check_records_evaluated,
    check_stage_input,
    ida2id_output,
    write_twins,
)
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import derived_path

if TYPE_CHECKING:  # Ida2ID's measures and reports load numpy: imported where it runs
    from harem_pipeline.measures.spans import MeasuresReport
    from harem_pipeline.stages.ida2id import IdentificationTally
    from harem_pipeline.stages.veus import DocumentInfo, VeusSubset


# ---------------------------------------------------------------------------
# altida


def altida_output(path: PathLike) -> Path:
    """``IN.altida`` (``.gz`` dropped first)."""
    return derived_path(path, ".altida")


def run_altida(
    path: PathLike,
    output: PathLike | None = None,
    workers: int | None = None,
) -> Path:
    """Select the alternatives of the evaluated file ``path`` into ``output``
    (default ``IN.altida``), in the input's encoding, atomically.

    A large file is read a block at a time on ``workers`` processes (default:
    every core), blocks cut outside ALT blocks.
    """
    from harem_pipeline.stages.altida import select_alternatives

    target = Path(output) if output is not None else altida_output(path)
    check_stage_input("altida", path)
    check_records_evaluated("altida", path)
    stage = functools.partial(record_texts, select_alternatives, MARKER_FIRST_HAREM, str(path))
    write = functools.partial(write_line_blocks, Path(path), target, stage, cut_outside_alt)
    return run_with_fallback(write, workers)


# ---------------------------------------------------------------------------
# avalida


def avalida_output(path: PathLike) -> Path:
    """``IN.avalida`` (a ``.gz`` input ``x.alinhado.gz`` gives ``x.alinhado.avalida``)."""
    return derived_path(path, ".avalida")


def run_avalida(
    path: PathLike,
    output: PathLike | None = None,
    workers: int | None = None,
) -> Path:
    """Evaluate the ``.alinhado`` file ``path`` into ``output`` (default ``IN.avalida``).

    Streams the file and writes atomically in the input's encoding, so a
    bad line leaves no partial output behind; a large file is read a block
    at a time on ``workers`` processes (default: every core).
    """

    from harem_pipeline.stages.avalida import evaluate_lines

    target = Path(output) if output is not None else avalida_output(path)
    check_stage_input("avalida", path)
    stage = functools.partial(record_texts, evaluate_lines, None, str(path))
    write = functools.partial(write_line_blocks, Path(path), target, stage, None)
    return run_with_fallback(write, workers)


# ---------------------------------------------------------------------------
# veus


def veus_output(
    path: PathLike,
    variant: str | None = None,
    genre: str | None = None,
    selective: bool = False,
) -> Path:
    """``IN.total``, ``IN.pt.jornalistico``… beside the input (``.gz`` dropped)."""
    from harem_pipeline.stages.veus import subset_file_name

    source = Path(path)
    base = source.name.removesuffix(".gz")
    return source.with_name(subset_file_name(base, variant, genre, selective))


def run_veus(
    path: PathLike,
    params: SubsetParams,
    output: PathLike | None = None,
    grid_path: PathLike | None = None,
    meta_path: PathLike | None = None,
    workers: int | None = None,
) -> Path:
    """Write the Véus subset ``params`` of the ``.avalida`` file ``path``; return where.

    Its categories are scored with :meth:`SubsetParams.evaluation_veil`.
    Streams the input and writes atomically in its encoding; a large file
    is read a block at a time on ``workers`` processes (default: every
    core), each block starting at a document.
    """
    from harem_pipeline.formats.harem_xml import read_meta
    from harem_pipeline.stages.veus import VeusSubset, check_style, document_infos

    style, variant, genre, selective = params.style, params.variant, params.genre, params.selective
    check_style(style)
    grid = read_grid(grid_path)
    system_veil = params.system_veil
    declared = parse_veil(system_veil, grid, "--system-veil") if system_veil else None
    option = "--system-veil" if selective else "--veil"
    evaluation = parse_veil(params.evaluation_veil(), grid, option)
    meta = document_infos(read_meta(meta_path)) if meta_path else None
    target = Path(output) if output is not None else veus_output(path, variant, genre, selective)
    subset = functools.partial(
        VeusSubset, style, evaluation, declared, variant, genre, meta, str(path)
    )
    write = functools.partial(_write_veus, Path(path), target, subset)
    return run_with_fallback(write, workers)


VeusPart = tuple[bytes, int, tuple["DocumentInfo", ...]]
"""A block's subset text (encoded), and the documents it kept and saw (for ``finish``)."""


def _write_veus(
    path: Path, target: Path, subset: Callable[[], VeusSubset], workers: int | None
) -> Path:
    """The subset's veil line, each block's subset, then the whole file's check."""
    stage = functools.partial(_veus_parts, subset, str(path))
    encoding, parts = map_line_blocks(path, stage, workers, cut_before_documents)
    whole = subset()
    with atomic_write(target, "wb", encoding=None) as handle:
        handle.write("".join(formatted_batches([whole.header()])).encode(encoding))
        for text, kept, seen in parts:
            handle.write(text)
            whole.kept += kept
            whole.seen.extend(seen)
        whole.finish()
    return target


def _veus_parts(
    subset: Callable[[], VeusSubset], path: str, encoding: str, lines: Iterable[RawLine]
) -> Iterator[VeusPart]:
    part = subset()
    for text in formatted_batches(part.lines(parse_numbered(lines, path))):
        yield text.encode(encoding), 0, ()
    yield b"", part.kept, tuple(part.seen)


# ---------------------------------------------------------------------------
# ida2id


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
    from harem_pipeline.measures.identification import (
        identification_intervals,
        measures_from_counts,
    )
    from harem_pipeline.reports.ida2id import format_ida2id_text, ida2id_json_object
    from harem_pipeline.stages.ida2id import read_tally
    from harem_pipeline.stages.tally import document_rows

    veil = params.evaluation.evaluation_veil() if params.evaluation else None
    target = Path(output) if output is not None else ida2id_output(path)
    check_stage_input("ida2id", path)
    encoding, tally = read_tally(path)
    measures = measures_from_counts(tally.total)
    text = format_ida2id_text(tally.total, measures, signature, spans, veil)
    documents = document_rows(tally.documents)
    ci95 = identification_intervals(documents, params.resampling)
    twin = ida2id_json_object(tally.total, measures, signature, ci95, documents, spans, veil)
    json_path = write_twins(target, text, encoding, twin)
    return ReportOutputs(target, json_path, tally)
