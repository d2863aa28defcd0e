"""The spurious list: ``.alts`` → ``.alts.espurios``, the system entities left spurious.

The 2010 Java ``SpuriousAlignmentsCollector``: the Véus header, then for
every document a blank line and its ``DOC`` line, and one line ``[entity]``
(the system list of the record, as the Java writes it back) per record
whose gold side is spurious.  Other lines are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from harem_pipeline.formats.alinhado import (
    Blank,
    DocStart,
    DocumentLine,
    Line,
    Record,
    SpuriousListLine,
)
from harem_pipeline.formats.semantic import reprint_system
from harem_pipeline.stages.emir import is_spurious_tag, java_line_end, read_header


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
