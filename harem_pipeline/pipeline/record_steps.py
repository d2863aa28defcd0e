"""The identification record steps (AvalIDa, Véus, AltinaID): read, transform, write.

Each streams its input a chunk of lines at a time through the stage's one
body and writes the output atomically in the input's encoding (see
:mod:`harem_pipeline.pipeline.steps`, which re-exports them).  A module of its
own so that these commands import only their own stage.
"""

from __future__ import annotations

import os
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import MARKER_FIRST_HAREM, iter_lines, write_lines
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.pipeline.naming import check_records_evaluated, check_stage_input
from harem_pipeline.text.textio import derived_path

# ---------------------------------------------------------------------------
# altida


def altida_output(path: str | os.PathLike[str]) -> Path:
    """``IN.altida`` (``.gz`` dropped first)."""
    return derived_path(path, ".altida")


def run_altida(path: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Path:
    """Select the alternatives of the evaluated file ``path`` into ``output``
    (default ``IN.altida``), in the input's encoding, atomically."""

    from harem_pipeline.stages.altida import select_alternatives

    target = Path(output) if output is not None else altida_output(path)
    check_stage_input("altida", path)
    check_records_evaluated("altida", path)
    encoding, lines = iter_lines(path)
    write_lines(target, select_alternatives(lines, str(path)), encoding, MARKER_FIRST_HAREM)
    return target


# ---------------------------------------------------------------------------
# avalida


def avalida_output(path: str | os.PathLike[str]) -> Path:
    """``IN.avalida`` (a ``.gz`` input ``x.alinhado.gz`` gives ``x.alinhado.avalida``)."""
    return derived_path(path, ".avalida")


def run_avalida(path: str | os.PathLike[str], output: str | os.PathLike[str] | None = None) -> Path:
    """Evaluate the ``.alinhado`` file ``path`` into ``output`` (default ``IN.avalida``).

    Streams the file and writes atomically in the input's encoding, so a
    bad line leaves no partial output behind.
    """

    from harem_pipeline.stages.avalida import evaluate_lines

    target = Path(output) if output is not None else avalida_output(path)
    check_stage_input("avalida", path)
    encoding, lines = iter_lines(path)
    write_lines(target, evaluate_lines(lines, str(path)), encoding)
    return target


# ---------------------------------------------------------------------------
# veus


def veus_output(
    path: str | os.PathLike[str],
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
    path: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    style: str,
    veil: str | None = None,
    system_veil: str | None = None,
    variant: str | None = None,
    genre: str | None = None,
    selective: bool = False,
    grid_path: str | os.PathLike[str] | None = None,
    meta_path: str | os.PathLike[str] | None = None,
) -> Path:
    """Write one Véus subset of the ``.avalida`` file ``path``; return where.

    ``selective`` evaluates with the system's declared veil (it needs
    ``system_veil``; an explicit ``veil`` is then refused).  Streams the
    input and writes atomically in its encoding.
    """
    from harem_pipeline.formats.harem_xml import read_meta
    from harem_pipeline.stages.veus import apply_veus, check_style, document_infos

    check_style(style)
    grid = read_grid(grid_path)
    declared = parse_veil(system_veil, grid, "--system-veil") if system_veil else None
    if selective:
        if declared is None:
            raise InputError(None, "--system-veil for the selective scenario", "none")
        if veil is not None:
            raise InputError(None, "either --veil or --selective", "both")
        evaluation = declared
    else:
        evaluation = parse_veil(veil, grid, "--veil")
    meta = document_infos(read_meta(meta_path)) if meta_path else None
    target = Path(output) if output is not None else veus_output(path, variant, genre, selective)
    encoding, lines = iter_lines(path)
    subset = apply_veus(lines, style, evaluation, declared, variant, genre, meta, str(path))
    write_lines(target, subset, encoding)
    return target
