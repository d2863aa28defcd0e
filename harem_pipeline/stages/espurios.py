"""The spurious list: ``.alts`` → ``.alts.espurios``, the system entities left spurious.

The 2010 Java ``SpuriousAlignmentsCollector``: the Véus header, then for
every document a blank line and its ``DOC`` line, and one line ``[entity]``
(the system list of the record, as the Java writes it back) per record
whose gold side is spurious.  Other lines are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from harem_pipeline.formats.alinhado import (
    NULL_LIST,
    Blank,
    DocStart,
    DocumentLine,
    Line,
    Record,
    SpuriousListLine,
)
from harem_pipeline.formats.semantic import PlainRecord, reprint_system
from harem_pipeline.stages.emir import (
    is_plain_spurious,
    is_spurious_tag,
    java_line_end,
    read_header,
)


def collect_spurious(
    lines: Iterable[Line | PlainRecord], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.espurios`` lines of an ``.alts`` file's lines.

    A spurious :class:`~harem_pipeline.formats.semantic.PlainRecord` gives its
    system list as written (``[]`` for ``[null]``), the text the general path writes.
    """
    stream = iter(lines)
    yield java_line_end(read_header(stream, path))  # type: ignore[arg-type]
    for item in stream:
        if type(item) is PlainRecord:
            if is_plain_spurious(item.gold):
                yield ("[]" if item.listed == NULL_LIST else item.listed) + "\n"
        elif isinstance(item, (DocStart, DocumentLine)):
            yield Blank()
            yield java_line_end(item)
        elif isinstance(item, Record) and is_spurious_tag(item.gold):
            yield SpuriousListLine(reprint_system(item.system) or ())
