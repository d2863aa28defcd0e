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
    reprint_system,
)
from harem_pipeline.formats.semantic import (
    PlainRecord,
    PlainRun,
    lines_holding,
    read_plain_record,
)
from harem_pipeline.stages.emir import (
    is_plain_spurious,
    is_spurious_tag,
    java_line_end,
    read_header,
)


def collect_spurious(
    lines: Iterable[Line | PlainRecord | PlainRun], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.espurios`` lines of an ``.alts`` file's lines.

    A spurious :class:`~harem_pipeline.formats.semantic.PlainRecord` gives its
    system list as written (``[]`` for ``[null]``), the text the general path
    writes; a :class:`~harem_pipeline.formats.semantic.PlainRun` the same for
    each of its lines.
    """
    stream = iter(lines)
    yield java_line_end(read_header(stream, path))  # type: ignore[arg-type]
    for item in stream:
        kind = type(item)
        if kind is PlainRun:
            yield from _run_spurious(item)  # type: ignore[arg-type]
        elif kind is PlainRecord:
            yield from _plain_spurious(item)  # type: ignore[arg-type]
        elif isinstance(item, (DocStart, DocumentLine)):
            yield Blank()
            yield java_line_end(item)
        elif isinstance(item, Record) and is_spurious_tag(item.gold):
            yield SpuriousListLine(reprint_system(item.system) or ())


def _plain_spurious(record: PlainRecord) -> Iterator[str]:
    if is_plain_spurious(record.gold):
        yield ("[]" if record.listed == NULL_LIST else record.listed) + "\n"


def _run_spurious(run: PlainRun) -> Iterator[str]:
    """The output of a run's lines: only its ``DOC`` lines and spurious records give any."""
    text = run.text
    starts = set(lines_holding(text, "ESPURIO"))
    starts.update(_doc_lines(text))
    for start in sorted(starts):
        body = text[start : text.index("\n", start)]
        if body.startswith("DOC "):
            yield "\n" + body + "\n"
        else:
            record = read_plain_record(body)
            assert record is not None  # every other line of a run holding it is a record
            yield from _plain_spurious(record)


def _doc_lines(text: str) -> Iterator[int]:
    """Where the ``DOC`` lines of a run start."""
    if text.startswith("DOC "):
        yield 0
    pos = text.find("\nDOC ")
    while pos >= 0:
        yield pos + 1
        pos = text.find("\nDOC ", pos + 1)
