"""The identification chain as file-to-file steps: AvalIDa, Véus and AltinaID.

Each record step streams its input a chunk of lines at a time through the
stage's one body and writes the output atomically in the input's encoding.
AvalIDa's and Véus's outputs feed the other chains too.  Ida2ID, which counts
an evaluated file, is :func:`harem_pipeline.pipeline.ida2id.run_ida2id`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from harem_pipeline.formats.alinhado import (
    MARKER_FIRST_HAREM,
    RawLine,
    formatted_batches,
    parse_numbered,
)
from harem_pipeline.formats.harem_meta import read_meta
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.pipeline.blocks import (
    cut_before_documents,
    cut_outside_alt,
    map_line_blocks,
    record_texts,
    run_with_fallback,
    write_blocks,
)
from harem_pipeline.pipeline.naming import check_records_evaluated, check_stage_input, stage_output
from harem_pipeline.pipeline.params import SubsetParams
from harem_pipeline.stages.altida import select_alternatives
from harem_pipeline.stages.avalida import evaluate_lines
from harem_pipeline.stages.veus import (
    DocumentInfo,
    VeusSubset,
    check_style,
    document_infos,
    subset_file_name,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write

# ---------------------------------------------------------------------------
# avalida


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
    target = stage_output("avalida", path, output)
    check_stage_input("avalida", path)
    stage = functools.partial(record_texts, evaluate_lines, None, str(path))
    return write_blocks(path, target, stage, None, workers)


# ---------------------------------------------------------------------------
# veus


def veus_output(
    path: PathLike,
    variant: str | None = None,
    genre: str | None = None,
    selective: bool = False,
) -> Path:
    """``IN.total``, ``IN.pt.jornalistico``… beside the input (``.gz`` dropped)."""
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


VeusPart = tuple[bytes, int, tuple[DocumentInfo, ...]]
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
# altida


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
    target = stage_output("altida", path, output)
    check_stage_input("altida", path)
    check_records_evaluated("altida", path)
    stage = functools.partial(record_texts, select_alternatives, MARKER_FIRST_HAREM, str(path))
    return write_blocks(path, target, stage, cut_outside_alt, workers)
