"""Record files read a block at a time in tests (``pipeline/blocks.py``)."""

from __future__ import annotations

import contextlib
import functools
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def blockwise(chunk: int, pooled: bool = False, fallback: bool = True) -> Iterator[None]:
    """Files read in blocks of about ``chunk`` bytes, as on workers.

    Unless ``pooled``, the blocks are read in this process, one after another,
    by the function each worker would run (fast enough for property tests);
    without ``fallback``, an error of the run on blocks is not retried as one
    stream (so a valid file must be cut where it may be).
    """
    import harem_pipeline.formats.alinhado as alinhado_format
    import harem_pipeline.pipeline.blocks as blocks
    import harem_pipeline.pipeline.ida2mor as ida2mor_steps
    import harem_pipeline.pipeline.ida_counts as ida_steps
    import harem_pipeline.pipeline.identification as identification
    import harem_pipeline.pipeline.morphology as steps
    import harem_pipeline.pipeline.semantic as semantic

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(alinhado_format, "CHUNK_BYTES", chunk)
        if not pooled:
            patch.setattr(blocks, "uses_workers", lambda workers=None: workers != 1)
            in_turn = lambda func, items, workers=None: map(func, items)  # noqa: E731
            patch.setattr(blocks, "ordered_map", in_turn)
            patch.setattr(blocks, "spread", in_turn)
        if not fallback:
            direct = lambda run, workers=None: run(workers)  # noqa: E731
            patch.setattr(steps, "run_with_fallback", direct)
            patch.setattr(identification, "run_with_fallback", direct)
            patch.setattr(ida2mor_steps, "run_with_fallback", direct)
            patch.setattr(semantic, "run_with_fallback", direct)
            patch.setattr(ida_steps, "run_with_fallback", direct)
            patch.setattr(blocks, "run_with_fallback", direct)
        yield


def spread_sizes(patch: pytest.MonkeyPatch) -> list[int]:
    """How many blocks each small file was spread over (``pipeline.blocks.spread``, still
    run), in the order the files were read."""
    import harem_pipeline.pipeline.blocks as blocks

    sizes: list[int] = []
    real_spread = blocks.spread

    def spread(func: Callable, items: list, workers: int | None = None) -> object:
        sizes.append(len(items))
        return real_spread(func, items, workers)

    patch.setattr(blocks, "spread", spread)
    return sizes


@functools.cache
def campaign_evaluated(kind: str) -> bytes:
    """The ``.avalida`` of a campaign run: ``first`` (document lines) or ``second`` (``DOC``)."""
    from harem_pipeline.pipeline.align import run_align
    from harem_pipeline.pipeline.identification import run_avalida
    from tests.helpers.paths import DATA

    cd, run = {
        "first": ("first-harem/ColeccaoDouradaHAREM.txt", "campaign/sim-weak.txt.gz"),
        "second": (
            "second-harem/SegundoHaremReRelEM_t1.xml.gz",
            "second-harem/ParticipacaoSegundoHaremReRelEM_t1.xml.gz",
        ),
    }[kind]
    with tempfile.TemporaryDirectory() as folder:
        aligned, _ = run_align(DATA / cd, DATA / run, Path(folder) / "r.alinhado")
        return run_avalida(aligned).read_bytes()


def same_in_blocks(
    outcomes: Callable[[Path], object], data: bytes, name: str, chunks: tuple[int, ...]
) -> None:
    """``outcomes`` of a file holding ``data`` are the one-stream run's when the file is
    read in blocks of each of ``chunks`` bytes."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / name
        source.write_bytes(data)
        one_stream = outcomes(source)
        for chunk in chunks:
            with blockwise(chunk):
                assert outcomes(source) == one_stream
