"""AlinhEM's token view: the ``.alinhado`` with every entity's markable tokens numbered.

The official Aligner's ``-etiquetas sim`` prints each entity as alignment
saw it: every markable token wrapped in its occurrence number in the
document (``<EM ID="x" CATEG="LOCAL"><1>Vila</1> <1>Real</1></EM>``), so a
reader can tell why two entities were aligned (they share a numbered
token) and why a ``VERIFICACAO_MANUAL`` was raised (a token counted a
different number of times in the two texts).  Records, order and warnings
are those of the plain output; only the entities' texts differ.

The numbering is the aligner's own (``stages.align.numbering`` with
``text.tokens``): this module only writes what it numbered.  As in the
original, the numbered text is written as numbered, not trimmed (line ends
read as spaces), and a spurious record's gold side keeps the numbered text
of its system entity.
"""

from __future__ import annotations

from harem_pipeline.formats.alinhado import (
    Line,
    format_line,
    format_lines,
    format_record_parts,
    format_tag,
    format_tag_parts,
)
from harem_pipeline.stages.align import DocumentPair, document_block, pair_documents
from harem_pipeline.stages.align.items import ALT_SEPARATOR
from harem_pipeline.stages.align.numbering import NumberedAlt, NumberedEntity
from harem_pipeline.stages.align.records import RecordItem, body_items
from harem_pipeline.text.java import java_trim


def numbered_tag(entity: NumberedEntity) -> str:
    """An entity as the token view writes it: its tag around its numbered text.

    The original trims the numbered text of an entity inside an ALT block
    (it is set anew once numbered) and keeps the blanks of one outside.
    """
    marked = java_trim(entity.marked) if entity.in_alt else entity.marked
    return format_tag_parts(entity.tag, entity.shown, marked.replace("\n", " "))


def numbered_aligned(item: NumberedEntity | NumberedAlt) -> str:
    """A CD entity or ALT block as the token view's manual-check line writes it."""
    if isinstance(item, NumberedEntity):
        return numbered_tag(item)
    alternatives = (
        "".join(piece if isinstance(piece, str) else numbered_tag(piece) for piece in alternative)
        for alternative in item.alternatives
    )
    return "<ALT>" + ALT_SEPARATOR.join(alternatives) + "</ALT>"


def token_text(item: RecordItem | Line) -> str:
    """One line of the token view, without its line end."""
    if not isinstance(item, tuple):
        return format_line(item)
    gold, system = item
    written = numbered_tag(gold) if isinstance(gold, NumberedEntity) else format_tag(gold)
    listed = None if system is None else [numbered_tag(value) for value in system]
    return format_record_parts(written, listed)


def pair_token_text(pair: DocumentPair) -> str:
    """The token view of one document pair: its document line, records and blank lines."""
    cd_doc, run_doc, check_counts = pair_documents(pair)
    body = body_items(
        cd_doc, run_doc, pair.xml, pair.cd_path, pair.run_path, check_counts, numbered_aligned
    )
    first, *rest = document_block(cd_doc, run_doc, pair.xml, [])
    records = "".join([token_text(item) + "\n" for item in body])
    return format_lines([first]) + records + format_lines(rest)
