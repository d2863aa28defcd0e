"""The spurious list: ``.alts`` → ``.alts.espurios``, the system entities left spurious.

The 2010 Java ``SpuriousAlignmentsCollector``: the Véus header, then for
every document a blank line and its ``DOC`` line, and one line ``[entity]``
(the system list of the record, as the Java writes it back) per record
whose gold side is spurious.  Other lines are left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from harem_pipeline.formats.alinhado import (
    Blank,
    DocStart,
    DocumentLine,
    Line,
    Record,
    SpuriousListLine,
    iter_lines,
    write_lines,
)
from harem_pipeline.formats.semantic import reprint_system
from harem_pipeline.stages.emir import is_spurious_tag, java_line_end, read_header
from harem_pipeline.textio import derived_path

OUTPUT_SUFFIX = ".espurios"


def collect_spurious(lines: Iterable[Line], path: str | None = None) -> Iterator[Line]:
    """The ``.espurios`` lines of an ``.alts`` file's lines."""
    stream = iter(lines)
    yield java_line_end(read_header(stream, path))
    for item in stream:
        if isinstance(item, (DocStart, DocumentLine)):
            yield Blank()
            yield java_line_end(item)
        elif isinstance(item, Record) and is_spurious_tag(item.gold):
            yield SpuriousListLine(reprint_system(item.system) or ())


def default_output(path: str | os.PathLike[str]) -> Path:
    """``IN.espurios`` (``.gz`` dropped first)."""
    return derived_path(path, OUTPUT_SUFFIX)


def run_espurios(
    path: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> Path:
    """List the spurious entities of the ``.alts`` file ``path`` into ``output``
    (default ``IN.espurios``), in the input's encoding, atomically."""
    target = Path(output) if output is not None else default_output(path)
    encoding, lines = iter_lines(path)
    write_lines(target, collect_spurious(lines, str(path)), encoding)
    return target
