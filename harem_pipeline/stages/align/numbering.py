"""AlinhEM's numbering: every occurrence of a markable token numbered in a document's items.

The CD's markable tokens are the upper-cased non-stopword tokens of its
entities (``collect_markable``); each document is numbered for them
(``number_entities``, with ``text.tokens``), giving its entities with their
numbered tokens (``NumberedEntity``, ``NumberedAlt``) and the final counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress

from harem_pipeline.formats.alinhado import Tag, format_attributes, format_tag, format_tag_parts
from harem_pipeline.stages.align.items import (
    ALT_SEPARATOR,
    AltEntity,
    AltNode,
    ElementNode,
    FlatEntity,
    Item,
    Node,
    TextNode,
    build_alternatives,
    entity_attributes,
)
from harem_pipeline.text.java import JAVA_BLANKS, java_trim
from harem_pipeline.text.tokens import (
    GAP,
    Mark,
    count_tokens,
    markable_tokens,
    new_counters,
    number_by_search,
    number_in_sequence,
    upper_words_by_gap,
)


@dataclass(slots=True)
class NumberedEntity:
    """One entity tag after numbering: what alignment compares and prints."""

    tag: str
    attributes: tuple[tuple[str, str], ...]
    text: str
    marked: str
    marks: tuple[Mark, ...]
    omitted: bool
    shown: str  # the attributes as written (``format_attributes``)
    ident: str  # the tag with its numbered text (``tag_string``): the original's identity
    in_alt: bool = False  # numbered inside an ALT block (the original trims its numbered text)

    def gold_tag(self) -> Tag:
        return Tag(self.tag, self.attributes, self.gold_text())

    def gold_text(self) -> str:
        """The text of ``gold_tag``."""
        return java_trim(self.text).replace("\n", " ")

    def written(self) -> str:
        """``format_tag(self.gold_tag())``, without the tag."""
        return format_tag_parts(self.tag, self.shown, self.gold_text())


def new_numbered_entity(
    tag: str,
    attributes: tuple[tuple[str, str], ...],
    text: str,
    marked: str,
    marks: tuple[Mark, ...],
    omitted: bool,
    in_alt: bool = False,
) -> NumberedEntity:
    shown = format_attributes(attributes)
    ident = tag_string(tag, shown, marked)
    return NumberedEntity(tag, attributes, text, marked, marks, omitted, shown, ident, in_alt)


@dataclass(slots=True)
class NumberedAlt:
    """A numbered ALT block: its alternatives (text pieces and ``NumberedEntity``)."""

    alternatives: tuple[tuple[str | NumberedEntity, ...], ...]
    entities: tuple[NumberedEntity, ...]
    omitted: bool
    ident: str = field(init=False)
    marks: tuple[Mark, ...] = field(init=False)

    def __post_init__(self) -> None:
        ident = (
            "<ALT>"
            + ALT_SEPARATOR.join(
                "".join(item if isinstance(item, str) else item.ident for item in alternative)
                for alternative in self.alternatives
            )
            + "</ALT>"
        )
        seen: dict[tuple[str, int], Mark] = {}
        for alternative in self.alternatives:
            for item in alternative:
                if isinstance(item, NumberedEntity):
                    for mark in item.marks:
                        seen.setdefault(mark[1:], mark)  # mark.numbered
        object.__setattr__(self, "ident", ident)
        object.__setattr__(self, "marks", tuple(seen.values()))

    def plain_string(self) -> str:
        """The block as the original prints it in a ``VERIFICACAO_MANUAL`` line."""
        return (
            "<ALT>"
            + ALT_SEPARATOR.join(
                "".join(
                    item if isinstance(item, str) else format_tag(item.gold_tag())
                    for item in alternative
                )
                for alternative in self.alternatives
            )
            + "</ALT>"
        )


Aligned = NumberedEntity | NumberedAlt


def tag_string(tag: str, shown: str, text: str) -> str:
    """An entity's identity: its tag, attributes as written (``shown``) and numbered text."""
    return format_tag_parts(tag, shown, text.replace("\n", " "))


def _direct_text(children: Sequence[Node]) -> str:
    return "".join(child.text for child in children if isinstance(child, TextNode))


def _has_entity(content: Iterable[object]) -> bool:
    return any(isinstance(item, AltEntity) for item in content)


def collect_markable(items: Sequence[Item], keys: dict[str, None]) -> None:
    """The CD's markable keys, in the order the original first meets them.

    They are the markable tokens of the texts ``_markable_texts`` gives,
    read in one pass over those texts joined by line ends (no token spans
    one).
    """
    texts: list[str] = []
    _markable_texts(items, texts)
    keys.update(dict.fromkeys(markable_tokens("\n".join(texts))))


def _markable_texts(items: Sequence[Item], texts: list[str]) -> None:
    """The texts whose tokens are markable: each entity's and OMITIDO's own, in document order."""
    for item in items:
        if type(item) is FlatEntity:
            texts.append(item.text)
        elif isinstance(item, AltNode):
            if _has_entity(item.content):
                texts.extend(entity.text for entity in item.content if type(entity) is AltEntity)
        elif isinstance(item, ElementNode):
            if item.kind != "P":
                texts.append(_direct_text(item.children))
            _markable_texts(item.children, texts)


def _number_alt(node: AltNode, counters: dict[str, int], xml: bool) -> NumberedAlt | None:
    """Number an ALT block; every alternative starts from the same counts.

    The counts after the block are the last alternative's.  Each alternative
    is numbered in ``counters`` itself and the keys it advanced are then set
    back (every count advanced is a numbered token, so the marks say which
    and from what): copying the counters for each alternative cost the
    document's whole vocabulary once an alternative.
    """
    original = build_alternatives(node.content)
    numbered: list[list[str | NumberedEntity]] = []
    start: dict[str, int] = {}  # the block's counts of the keys its alternatives advanced
    last = len(original) - 1
    for index, alternative in enumerate(original):
        items: list[str | NumberedEntity] = []
        for item in alternative:
            if isinstance(item, str):
                marked, marks = number_in_sequence(item, counters)
                items.extend(_alt_text_items(marked))
            elif isinstance(item, AltEntity):
                marked, marks = number_in_sequence(item.text, counters)
                tag, attributes = entity_attributes(item.entity, node.omitted, xml)
                items.append(
                    new_numbered_entity(
                        tag, attributes, item.text, marked, marks, node.omitted, in_alt=True
                    )
                )
            else:
                continue
            for _, key, count in marks:
                start.setdefault(key, count - 1)
        numbered.append(items)
        if index < last:
            counters.update(start)
    content: list[str | NumberedEntity] = []
    for items in numbered:
        if content:
            content.append(ALT_SEPARATOR)
        content.extend(items)
    entities = tuple(item for item in content if isinstance(item, NumberedEntity))
    if not entities:
        return None
    alternatives = tuple(
        tuple(item for item in alt if isinstance(item, (str, NumberedEntity)))
        for alt in build_alternatives(content)
    )
    return NumberedAlt(alternatives, entities, node.omitted)


# What of an ALT's text is read once numbered: its tokens trimmed one by one
# (``build_alternatives``), so its characters up to U+0020, each a token of its
# own, are read as nothing.
_JAVA_BLANK_TOKENS = str.maketrans("", "", JAVA_BLANKS)
_ALT_BAR = re.compile(r"(\|)")


def _alt_text_items(marked: str) -> list[str]:
    """A numbered ALT text as items of its alternatives: what its tokens, one item each, read as.

    Only the items' concatenation between the ``|`` is ever read (the
    block's identity and printed form), and a token trimmed is a blank
    token gone; so the text without its blanks, cut at each ``|`` (kept as
    an item), reads as its tokens do.
    """
    if not marked:  # no token: no item (an alternative may stay empty)
        return []
    return _ALT_BAR.split(marked.translate(_JAVA_BLANK_TOKENS))


def _count_unread(unread: list[str], counters: dict[str, int]) -> None:
    """Count the running text read since the last numbering (its tokens only advance counts).

    One count over the pieces joined by a line end gives the counts of the
    pieces one by one (no word token spans it) at a fraction of the cost:
    counts are only read when a text is numbered.
    """
    if unread:
        count_tokens(unread[0] if len(unread) == 1 else "\n".join(unread), counters)
        unread.clear()


def _number_nodes(
    nodes: Sequence[Node],
    counters: dict[str, int],
    out: list[Aligned | None],
    xml: bool,
    unread: list[str],
    numbered: bool = False,
) -> list[tuple[str, tuple[Mark, ...]]]:
    """Number ``nodes`` in document order, appending their entities to ``out``.

    Returns the numbered direct text nodes, for the enclosing entity or
    ``OMITIDO`` (``numbered``); elsewhere their tokens are only counted,
    once the next text is numbered (``unread``).
    """
    direct: list[tuple[str, tuple[Mark, ...]]] = []
    for node in nodes:
        if isinstance(node, TextNode):
            if numbered:
                _count_unread(unread, counters)
                direct.append(number_by_search(node.text, counters))
            else:
                unread.append(node.text)
        elif isinstance(node, AltNode):
            _count_unread(unread, counters)
            group = _number_alt(node, counters, xml)
            if group is not None:
                out.append(group)
        elif node.kind == "P":
            _number_nodes(node.children, counters, out, xml, unread)
        else:
            tag, attributes = entity_attributes(node.entity, node.omitted, xml)
            children = node.children
            if len(children) == 1 and isinstance(children[0], TextNode):  # text alone: at once
                _count_unread(unread, counters)
                text = children[0].text
                marked, marks = number_by_search(text, counters)
                out.append(new_numbered_entity(tag, attributes, text, marked, marks, node.omitted))
                continue
            slot = len(out)
            out.append(None)
            texts = _number_nodes(children, counters, out, xml, unread, True)
            out[slot] = new_numbered_entity(
                tag,
                attributes,
                _direct_text(children),
                "".join(text for text, _ in texts),
                tuple(mark for _, marks in texts for mark in marks),
                node.omitted,
            )
    return direct


def number_entities(
    items: Sequence[Item], keys: Iterable[str], xml: bool
) -> tuple[list[Aligned], dict[str, int]]:
    """Number a document (its tree's nodes, or its items) for the markable ``keys``.

    Returns its entities and the final counts.  The running text outside
    every element is counted in one pass (``_number_in_bulk``) when it
    allows; else text by text.
    """
    counters = new_counters(keys)
    out: list[Aligned | None] = []
    unread: list[str] = []
    if not _number_in_bulk(items, counters, out, xml, unread):
        for item in items:
            if isinstance(item, str):
                unread.append(item)
            else:
                _number_item(item, counters, out, xml, unread)
        _count_unread(unread, counters)
    return [entity for entity in out if entity is not None], counters


def _number_item(
    item: FlatEntity | Node,
    counters: dict[str, int],
    out: list[Aligned | None],
    xml: bool,
    unread: list[str],
) -> None:
    """Number one item that is not running text, after the running text before it."""
    if isinstance(item, FlatEntity):
        if unread:
            _count_unread(unread, counters)
        tag, attributes, shown, text = item
        marked, marks = number_by_search(text, counters)
        ident = tag_string(tag, shown, marked)
        out.append(NumberedEntity(tag, attributes, text, marked, marks, False, shown, ident))
    else:
        _number_nodes((item,), counters, out, xml, unread)


def _number_in_bulk(
    items: Sequence[Item],
    counters: dict[str, int],
    out: list[Aligned | None],
    xml: bool,
    unread: list[str],
) -> bool:
    """Number the items with the running text's tokens found in one pass; False if it cannot.

    The running text before each other item (its pieces joined by line
    ends, as ``_count_unread`` counts them) and after the last are joined by
    ``GAP``; only its markable tokens and the gaps are then visited, each gap
    numbering the next item.  Declined (nothing numbered) when the text
    holds a character ``upper_words_by_gap`` does not read, or a ``GAP``.
    """
    gaps: list[str] = []
    others: list[FlatEntity | Node] = []
    running: list[str] = []
    for item in items:
        if isinstance(item, str):
            running.append(item)
        else:
            gaps.append("\n".join(running))
            running.clear()
            others.append(item)
    gaps.append("\n".join(running))
    text = GAP.join(gaps)
    tokens = upper_words_by_gap(text)
    if tokens is None or text.count(GAP) != len(others):
        return False
    wanted = set(counters)
    wanted.add(GAP)
    pending = iter(others)
    for token in compress(tokens, map(wanted.__contains__, tokens)):
        if token == GAP:
            _number_item(next(pending), counters, out, xml, unread)
            if unread:  # running text inside an element's subtree
                _count_unread(unread, counters)
        else:
            counters[token] += 1
    return True
