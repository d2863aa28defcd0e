"""An Emir file's counts for Ida (``.emir``, ``.altrel``, a TEMPO ``.tempo``), read a
block at a time.

Apart from :mod:`harem_pipeline.pipeline.ida`, which measures and writes them,
so a command can start reading a file in a process of its own before the
measures (numpy) are loaded (``harem ida``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from harem_pipeline.formats.alinhado import Line, LineParser, RawLine, peek_numbered_lines
from harem_pipeline.formats.semantic import semantic_lines
from harem_pipeline.pipeline.blocks import map_line_blocks, run_with_fallback
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
from harem_pipeline.text import PathLike


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
