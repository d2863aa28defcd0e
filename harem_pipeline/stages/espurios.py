"""The spurious list: ``.alts`` → ``.alts.espurios``, the system entities left spurious.

The 2010 Java ``SpuriousAlignmentsCollector``: the Véus header, then for
every document a blank line and its ``DOC`` line, and one line ``[entity]``
(the system list of the record, as the Java writes it back) per record
whose gold side is spurious.  Other lines are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from harem_pipeline.formats.alinhado import DOCUMENT_STARTS, NULL_LIST, Blank, Line
from harem_pipeline.formats.semantic import SemanticRecord
from harem_pipeline.stages.emir import headed, is_spurious_key, java_line_end


def collect_spurious(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.espurios`` lines of an ``.alts`` file's lines: a spurious record gives its
    system list as the Java writes it back (``[]`` for ``[null]``)."""
    return headed(lines, path, lambda stream: spurious_lists(stream, path))


def spurious_lists(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.espurios`` lines of an ``.alts`` file's lines after the header (or of a
    block of them)."""
    for item in lines:
        if type(item) is SemanticRecord:
            if is_spurious_key(item.key.gold):
                listed = item.listed()
                yield ("[]" if listed == NULL_LIST else listed) + "\n"
        elif isinstance(item, DOCUMENT_STARTS):
            yield Blank()
            yield java_line_end(item)
