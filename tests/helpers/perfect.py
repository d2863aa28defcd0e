"""A simulated perfect run (the collection's own annotation) taken through the first stages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harem_pipeline.model import Collection
from harem_pipeline.pipeline.align import run_align
from harem_pipeline.pipeline.identification import run_avalida, run_veus
from harem_pipeline.pipeline.params import SubsetParams
from harem_pipeline.tools.simulate import render_run


@dataclass(frozen=True)
class PerfectChain:
    """The files of a perfect run through AlinhEM, AvalIDa and Véus (total, style harem)."""

    run: Path
    alinhado: Path
    avalida: Path
    total: Path
    warnings: tuple[str, ...]  # AlinhEM's


def perfect_chain(cd: Collection, cd_path: Path, folder: Path) -> PerfectChain:
    """Write ``perfect.txt`` (seed 1) and its AlinhEM, AvalIDa and Véus outputs in ``folder``."""
    run = folder / "perfect.txt"
    run.write_bytes(render_run(cd, "perfect", 1, cd_path.name).encode(cd.encoding))
    aligned, result = run_align(cd_path, run, folder / "perfect.alinhado")
    evaluated = run_avalida(aligned, folder / "perfect.alinhado.avalida")
    total = run_veus(evaluated, SubsetParams(), folder / "perfect.alinhado.avalida.total")
    return PerfectChain(run, aligned, evaluated, total, tuple(result.warnings))
