"""A record file's stage on every core: blocks of whole lines, one at a time per worker.

Vizir, AltinaMor and Ida2Mor read a file line by line and hold little
between lines (Vizir nothing, AltinaMor one ALT block, Ida2Mor the open
document), so a large file can be cut into blocks of whole lines (about
:data:`~harem_pipeline.formats.alinhado.CHUNK_BYTES` each), every block
read by the same stage function in a worker process, and the results
taken in the file's order (:func:`~harem_pipeline.pipeline.parallel.ordered_map`).

Two rules keep the outcome the one-stream run's:

* with one worker (or where workers cannot be forked, or for a file of one
  block) the stage function reads the whole file as one stream, exactly as
  before;
* :func:`run_with_fallback`: an input error met by a run on workers is not
  trusted (a block boundary could have cut an ALT block in a way no valid
  file is cut); the file is read again as one stream, whose outcome, error
  or output, is the one returned.  A valid file is read once.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats import alinhado
from harem_pipeline.formats.alinhado import RawBlock, block_lines
from harem_pipeline.formats.vizir import RawLine, open_raw_blocks, open_raw_lines
from harem_pipeline.pipeline.parallel import ordered_map, uses_workers

R = TypeVar("R")
T = TypeVar("T")

StageOnLines = Callable[[str, Iterable[RawLine]], Iterable[R]]
"""A stage's function from the file's encoding and raw lines to its results (a
module-level function or a ``functools.partial`` of one, so that it reaches a worker
process).  Text it writes is best given back encoded: bytes cross processes at the
cost of a copy, a ``str`` is encoded and decoded again."""


def map_line_blocks(
    path: str | os.PathLike[str],
    stage: StageOnLines[R],
    workers: int | None = None,
    regroup: Callable[[Iterator[RawBlock]], Iterator[RawBlock]] | None = None,
) -> tuple[str, Iterator[R]]:
    """The file's encoding and ``stage``'s results over its lines, block after block.

    ``regroup`` (if given) moves the block boundaries, for a stage that may
    not be cut anywhere.  With one worker ``stage`` reads the whole file.
    """
    blocks = None
    if uses_workers(workers):
        encoding, blocks = open_raw_blocks(path)
    if blocks is None:
        encoding, lines = open_raw_lines(path)
        return encoding, iter(stage(encoding, lines))
    head, blocks = _head_blocks(blocks)
    if head is not None:  # a small file: read whole, no workers to start
        lines = block_lines(head, str(path), encoding) if head[1] else iter(())
        return encoding, iter(stage(encoding, lines))
    if regroup is not None:
        blocks = regroup(blocks)
    read = functools.partial(_block_results, stage, str(path), encoding)
    return encoding, itertools.chain.from_iterable(ordered_map(read, blocks, workers))


def _head_blocks(blocks: Iterator[RawBlock]) -> tuple[RawBlock | None, Iterator[RawBlock]]:
    """The whole file as one block when it holds no more than ``CHUNK_BYTES`` (else None),
    and the blocks, those read to find out put back in front."""
    taken: list[RawBlock] = []
    size = 0
    for block in blocks:
        taken.append(block)
        size += len(block[1])
        if size > alinhado.CHUNK_BYTES:
            return None, itertools.chain(taken, blocks)
    return (1, b"".join(data for _, data in taken)), iter(())


def _block_results(stage: StageOnLines[R], path: str, encoding: str, block: RawBlock) -> list[R]:
    return list(stage(encoding, block_lines(block, path, encoding)))


def run_with_fallback(run: Callable[[int | None], T], workers: int | None = None) -> T:
    """``run(workers)``; after an input error on workers, ``run(1)``'s outcome instead."""
    try:
        return run(workers)
    except InputError:
        if not uses_workers(workers):
            raise
    return run(1)
