"""A record file's stage on every core: blocks of whole lines, one at a time per worker.

AvalIDa, Véus, AltinaID, Vizir, AltinaMor, Ida2Mor and the semantic chain's
stages (alts, espurios, Emir, ALTina, Ida) read a file line by line and hold
little between lines (at most one ALT block or the open document), so a
large file can be cut into blocks of whole lines (about
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
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats import alinhado
from harem_pipeline.formats.alinhado import (
    Line,
    RawBlock,
    RawLine,
    block_lines,
    formatted_batches,
    next_alt_state,
    open_raw_blocks,
    open_raw_lines,
    parse_numbered,
)
from harem_pipeline.pipeline.parallel import ordered_map, spread, uses_workers, worker_count
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write

R = TypeVar("R")
T = TypeVar("T")

StageOnLines = Callable[[str, Iterable[RawLine]], Iterable[R]]
"""A stage's function from the file's encoding and raw lines to its results (a
module-level function or a ``functools.partial`` of one, so that it reaches a worker
process).  Text it writes is best given back encoded: bytes cross processes at the
cost of a copy, a ``str`` is encoded and decoded again."""


def map_line_blocks(
    path: PathLike,
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
    read = functools.partial(_block_results, stage, str(path), encoding)
    if head is not None:  # a small file: a block per worker, the first read here
        pieces: Iterator[RawBlock] = iter(even_blocks(head, worker_count(workers)))
        if regroup is not None:
            pieces = regroup(pieces)
        return encoding, itertools.chain.from_iterable(spread(read, list(pieces), workers))
    if regroup is not None:
        blocks = regroup(blocks)
    return encoding, itertools.chain.from_iterable(ordered_map(read, blocks, workers))


def even_blocks(blocks: list[RawBlock], parts: int) -> list[RawBlock]:
    """The same lines in ``parts`` blocks of about the same size (fewer when there are fewer
    lines), each but the last ending with a line's end, numbered from the first block's
    first line; an empty file is one empty block, which the stage still reads (and may
    refuse)."""
    number, data = blocks[0][0] if blocks else 1, b"".join(block for _, block in blocks)
    cuts = [0]
    for part in range(1, parts):
        end = data.find(b"\n", max(cuts[-1], len(data) * part // parts)) + 1
        if not 0 < end < len(data):
            break
        cuts.append(end)
    cuts.append(len(data))
    even = []
    for start, end in itertools.pairwise(cuts):
        even.append((number, data[start:end]))
        number += data.count(b"\n", start, end)
    return even


ALONE_BLOCKS = 4
"""A file of at most this many blocks starts no pool: it is cut into a block per worker,
the first read in this process and each other in a process forked for it
(:func:`~harem_pipeline.pipeline.parallel.spread`); on a file of a few megabytes, starting
a pool costs about what its workers save (bench/README.md, "The semantic stages on
blocks")."""


def _head_blocks(
    blocks: Iterator[RawBlock],
) -> tuple[list[RawBlock] | None, Iterator[RawBlock]]:
    """All the file's blocks when they hold no more than :data:`ALONE_BLOCKS` times
    ``CHUNK_BYTES`` (else None), and the blocks, those read to find out put back in
    front."""
    taken: list[RawBlock] = []
    size = 0
    for block in blocks:
        taken.append(block)
        size += len(block[1])
        if size > ALONE_BLOCKS * alinhado.CHUNK_BYTES:
            return None, itertools.chain(taken, blocks)
    return taken, iter(())


def _block_results(stage: StageOnLines[R], path: str, encoding: str, block: RawBlock) -> list[R]:
    return list(stage(encoding, block_lines(block, path, encoding)))


def run_with_fallback(run: Callable[[int | None], T], workers: int | None = None) -> T:
    """``run(workers)``; after an input error on workers, ``run(1)``'s outcome instead.

    Whether the run is on workers is asked before it starts: an error raised
    while reading a pool's results (not in a worker) meets the pool still open,
    whose threads would make forking look unsafe."""
    pooled = uses_workers(workers)
    try:
        return run(workers)
    except InputError:
        if not pooled:
            raise
    return run(1)


def write_line_blocks(
    path: Path,
    target: Path,
    stage: StageOnLines[bytes],
    regroup: Callable[[Iterator[RawBlock]], Iterator[RawBlock]] | None,
    workers: int | None,
) -> Path:
    """Write ``stage``'s encoded texts over ``path``'s blocks into ``target``, atomically
    (:func:`map_line_blocks`; for :func:`run_with_fallback`, ``workers`` last)."""
    _, texts = map_line_blocks(path, stage, workers, regroup)
    with atomic_write(target, "wb", encoding=None) as handle:
        for text in texts:
            handle.write(text)
    return target


def write_blocks(
    path: PathLike,
    target: Path,
    stage: StageOnLines[bytes],
    regroup: Callable[[Iterator[RawBlock]], Iterator[RawBlock]] | None,
    workers: int | None,
) -> Path:
    """A record stage's file step: ``stage`` over ``path``'s blocks on ``workers``, written
    into ``target`` atomically (:func:`write_line_blocks`), the file read again as one
    stream when an input error is met on workers (:func:`run_with_fallback`)."""
    write = functools.partial(write_line_blocks, Path(path), target, stage, regroup)
    return run_with_fallback(write, workers)


def record_texts(
    transform: Callable[[Iterable[Line], str], Iterable[Line]],
    marker: str | None,
    path: str,
    encoding: str,
    lines: Iterable[RawLine],
) -> Iterator[bytes]:
    """A record stage over parsed lines (``transform(lines, path)``) as encoded texts:
    what ``write_lines`` writes of its output, ``marker`` as there."""
    for text in formatted_batches(transform(parse_numbered(lines, path), path), marker):
        yield text.encode(encoding)


_ALT_LINE = re.compile(rb"<(/?)ALT([0-9]*)>\r?$", re.MULTILINE)
"""The end of a line the readers of ALT blocks may take for an ``<ALT…>`` line
(``parse_line``'s :func:`~harem_pipeline.formats.alinhado.alt_marker`, ASCII digits: a
line read some other way can only make a cut fall inside a block, which the stage then
refuses); :func:`alt_states` keeps the matches that begin a line.  (No ``^``: the
expression then looks for its ``<`` first, some six times faster over a file.)"""


def alt_states(data: bytes, state: int) -> Iterator[tuple[int, int]]:
    """``(offset, state)`` of each ``<ALT…>`` line of ``data`` that moves a reader of ALT
    blocks starting in ``state`` (:func:`~harem_pipeline.formats.alinhado.next_alt_state`,
    the Java's states), with the state it moves to."""
    for line in _ALT_LINE.finditer(data):
        if line.start() and data[line.start() - 1] != 0x0A:  # not at a line's start
            continue
        number = line.group(2)
        moved = next_alt_state(state, not line.group(1), int(number) if number else None)
        if moved is not None:
            state = moved
            yield line.start(), state


def cut_outside_alt(blocks: Iterable[RawBlock]) -> Iterator[RawBlock]:
    """The same lines in blocks that each end where a reader of ALT blocks is outside
    them (state 0, read from the file's start).

    A block that ends inside one gives the lines from where its reader last
    left state 0 on to the next block: an ALT block with no alternative (the
    ALT organiser writes one when every alternative was empty) keeps the Java's
    readers waiting for an ``<ALTn>``, so it closes nothing.  Each byte is
    scanned once.
    """
    pieces: list[bytes] = []
    first_line = 0
    state = 0
    opened: tuple[int, int] | None = None  # (piece, offset) of the line that left state 0
    for first, data in blocks:
        if not pieces:
            first_line = first
        pieces.append(data)
        for offset, moved in alt_states(data, state):
            if state == 0:
                opened = (len(pieces) - 1, offset)
            state = moved
        if state == 0:
            yield first_line, b"".join(pieces)
            pieces, opened = [], None
        elif opened is not None and opened != (0, 0):
            index, offset = opened
            head = b"".join(pieces[:index]) + pieces[index][:offset]
            yield first_line, head
            first_line += head.count(b"\n")
            pieces = [pieces[index][offset:], *pieces[index + 1 :]]
            opened = (0, 0)
    if pieces:
        yield first_line, b"".join(pieces)


_DOCUMENT_START = re.compile(rb"^(?:DOC |[A-Za-z]+-[\w-]+ \S+ \S+\r?$)", re.MULTILINE)
"""A line that opens a document: ``DOC <docid>``, or a First HAREM document line
(``docid variant genre``, :class:`~harem_pipeline.formats.alinhado.DocumentLine`; one
with a non-ASCII id is no cut, which only makes a block longer)."""


def last_document_start(data: bytes) -> int | None:
    """The offset of the last line of ``data`` that opens a document after a record or an
    ``EOD`` line (blank lines between), if any: where a file may be cut.

    A document line that follows a document with no record yet only renames it
    (``stages.tally.DocumentBoundaries``), so a cut there would count one
    document as two; after a record or an ``EOD`` line it always starts one.
    """
    end = len(data)
    while end > 0:  # the lines from the last back: the cut is most often near the end
        start = data.rfind(b"\n", 0, end - 1) + 1
        if _DOCUMENT_START.match(data, start):
            previous = _previous_line(data, start)
            if previous == b"EOD" or (previous[:1] == b"<" and b" ---> " in previous):
                return start
        end = start
    return None


def _previous_line(data: bytes, start: int) -> bytes:
    """The last line of ``data`` before offset ``start`` that is not blank (without its
    end; empty when there is none in ``data``)."""
    end = start
    while end > 0:
        begin = data.rfind(b"\n", 0, end - 1) + 1
        line = data[begin:end].rstrip(b"\r\n")
        if line:
            return line
        end = begin
    return b""


def cut_before_documents(blocks: Iterable[RawBlock]) -> Iterator[RawBlock]:
    """The same lines in blocks that each begin with a line opening a document after a
    record or an ``EOD`` line (all but the first block).

    For a stage whose state is the open document's (Véus): every block
    then starts where a document does (:func:`last_document_start`).  A block
    with no such line goes whole to the next one; each byte is scanned once.
    """
    pieces: list[bytes] = []
    first_line = 0
    for first, data in blocks:
        if not pieces:
            first_line = first
        at = last_document_start(data)
        if at is None:
            pieces.append(data)
            continue
        head = b"".join([*pieces, data[:at]])
        if head:
            yield first_line, head
            first_line += head.count(b"\n")
        pieces = [data[at:]]
    if pieces:
        yield first_line, b"".join(pieces)
