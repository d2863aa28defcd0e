"""A document as AlinhEM's numbering reads it: items (running text, entities, ALT blocks,
OMITIDO subtrees), built from a parsed ``Document`` or, for a plain Second HAREM
document, from its text as written.

The items are the original's XML tree as it walks it: text nodes and
elements, P elements kept only where they matter.  Character data and
attribute values are normalised as an XML parser hands them over.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Tag, format_attributes, format_tag
from harem_pipeline.formats.harem_xml import RawDocument, parse_raw_document
from harem_pipeline.model import EM_TAG, AltBlock, Document, Entity
from harem_pipeline.text.java import java_trim

OMITTED_ATTRIBUTE = ("OMITIDO", "1")
ALT_SEPARATOR = "|"

# ---------------------------------------------------------------------------
# Text helpers


_XML_REFERENCE = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
# What an attribute value must hold for its normalisation to change it.
_ATTRIBUTE_SPECIAL = re.compile("[&\t\n\r]")


def _expand_reference(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _NAMED:
        return _NAMED[name]
    try:
        code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        return chr(code)
    except (ValueError, OverflowError):
        return match.group(0)


def normalize_text(raw: str, xml: bool) -> str:
    """Character data as an XML parser hands it over: LF line ends, references expanded."""
    if "\r" not in raw and (not xml or "&" not in raw):
        return raw
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    return _XML_REFERENCE.sub(_expand_reference, text) if xml else text


def _normalize_attribute(raw: str, xml: bool) -> str:
    """An attribute value as an XML parser hands it over (blanks become spaces).

    A line end written as a character reference (``&#10;``) also becomes a
    space, so that a record always stays on one line.
    """
    if not _ATTRIBUTE_SPECIAL.search(raw):
        return raw
    blanks = {9: " ", 10: " ", 13: " "}
    if not xml:
        return raw.translate(blanks)
    text = raw.replace("\r\n", "\n").translate(blanks)
    return _XML_REFERENCE.sub(_expand_reference, text).translate(blanks)


# ---------------------------------------------------------------------------
# A document as a tree of text nodes and elements (what the original walks)


# The tree's nodes, regions and numbered entities are plain slot classes,
# never changed once built (not frozen: frozen dataclasses cost about twice as
# much to build, and one is built per text run and per entity).
@dataclass(slots=True)
class TextNode:
    text: str


@dataclass(slots=True)
class EntityTag:
    """What numbering needs of an entity's tag: its name and attributes as written."""

    tag: str
    attributes: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class AltEntity:
    """An entity tag inside an ALT block, before numbering."""

    entity: EntityTag
    text: str


@dataclass(slots=True)
class AltNode:
    """An ``<ALT>`` block: its content as the original sees it (text runs and entities)."""

    content: tuple[str | AltEntity, ...]
    omitted: bool


@dataclass(slots=True)
class ElementNode:
    """``EM`` (an entity), ``OMITIDO`` (entity is None) or ``P`` (kind ``P``)."""

    kind: str
    entity: EntityTag | None
    omitted: bool
    children: tuple[TextNode | AltNode | ElementNode, ...]


Node = TextNode | AltNode | ElementNode
_RANK = {"P": 0, "OMITIDO": 1, "ALT": 2, "EM": 3}


@dataclass(slots=True)
class _Region:
    kind: str
    start: int
    end: int
    payload: Entity | AltBlock | bool | None  # True: an OMITIDO around a same-span P


def _describe(region: _Region) -> str:
    if isinstance(region.payload, Entity):
        entity = region.payload
        tag = Tag(entity.tag, entity.attributes, entity.text)
        return f"{format_tag(tag)} at {region.start}..{region.end}"
    return f"<{region.kind}> at {region.start}..{region.end}"


def _regions(doc: Document) -> list[_Region]:
    regions = [_Region("P", s, e, None) for s, e in doc.paragraphs]
    outer = set(doc.omitted_outer)
    regions += [_Region("OMITIDO", s, e, (s, e) in outer or None) for s, e in doc.omitted]
    regions += [_Region("ALT", b.start, b.end, b) for b in doc.alt_blocks]
    regions += [_Region("EM", e.start, e.end, e) for e in (*doc.entities, *doc.omitted_entities)]
    # Outer before inner; an empty element before anything else starting there.
    # An OMITIDO written around a P of the same span stays outside it.
    regions.sort(
        key=lambda r: (r.start, r.end > r.start, -r.end, -1 if r.payload is True else _RANK[r.kind])
    )
    return regions


def _nest_regions(doc: Document, path: str) -> list[tuple[_Region, list]]:
    """Regions as a forest ``(region, children)``; entities must neither nest nor overlap."""
    roots: list[tuple[_Region, list]] = []
    stack: list[tuple[_Region, list]] = []
    for region in _regions(doc):
        while stack and not (stack[-1][0].start <= region.start and region.end <= stack[-1][0].end):
            closed = stack.pop()[0]
            if closed.start < region.start < closed.end < region.end:
                raise InputError(
                    path,
                    "entities that neither nest nor overlap",
                    f"{_describe(region)} overlapping {_describe(closed)}",
                    docid=doc.docid,
                )
        if stack and stack[-1][0].kind in ("EM", "ALT") and region.end > region.start:
            raise InputError(
                path,
                "entities that neither nest nor overlap",
                f"{_describe(region)} inside {_describe(stack[-1][0])}",
                docid=doc.docid,
            )
        node: tuple[_Region, list] = (region, [])
        (stack[-1][1] if stack else roots).append(node)
        stack.append(node)
    return roots


def _alt_content(block: AltBlock, xml: bool) -> tuple[str | AltEntity, ...]:
    """The block's content in file order: text runs (with the ``|``) and entity tags."""
    content: list[str | AltEntity] = []
    pending = ""
    for index, (entities, text) in enumerate(
        zip(block.alternatives, block.alternative_texts, strict=True)
    ):
        if index:
            pending += ALT_SEPARATOR
        cursor = 0
        for entity in sorted(entities, key=lambda e: e.start):
            local = entity.start - block.start
            pending += text[cursor:local]
            if pending:
                content.append(normalize_text(pending, xml))
                pending = ""
            tagged = EntityTag(entity.tag, entity.attributes)
            content.append(AltEntity(tagged, normalize_text(entity.text, xml)))
            cursor = local + len(entity.text)
        pending += text[cursor:]
    if pending:
        content.append(normalize_text(pending, xml))
    return tuple(content)


def _build_nodes(
    doc: Document,
    forest: list[tuple[_Region, list]],
    start: int,
    end: int,
    omitted: bool,
    xml: bool,
) -> tuple[Node, ...]:
    nodes: list[Node] = []
    cursor = start
    for region, children in forest:
        if region.start > cursor:
            nodes.append(TextNode(normalize_text(doc.text[cursor : region.start], xml)))
        cursor = max(cursor, region.end)
        if isinstance(region.payload, AltBlock):
            nodes.append(AltNode(_alt_content(region.payload, xml), omitted))
            continue
        inside = omitted or region.kind == "OMITIDO"
        payload = region.payload
        entity = EntityTag(payload.tag, payload.attributes) if isinstance(payload, Entity) else None
        kids = _build_nodes(doc, children, region.start, region.end, inside, xml)
        nodes.append(ElementNode(region.kind, entity, inside, kids))
    if end > cursor:
        nodes.append(TextNode(normalize_text(doc.text[cursor:end], xml)))
    return tuple(nodes)


def _build_document_tree(doc: Document, path: str, xml: bool) -> tuple[Node, ...]:
    """The document's content as the original's XML tree: text nodes and elements."""
    return _build_nodes(doc, _nest_regions(doc, path), 0, len(doc.text), False, xml)


# The plain shape of a Second HAREM document (``_plain_items``): tags exactly
# as these write them, no MORF or OMITIDO attribute.  One attribute as written:
_PLAIN_ATTRIBUTES = r'(?: [^\s=<>"\'/]+="[^"<>\t\n\r]*")'
# What ``_plain_items`` reads a document's content with, one match a tag: the
# text before it, then an entity of text alone whose tag is in the plain
# shape (its attributes as written, its text), or any other tag, or a ``<``
# that starts no tag, or the end (all groups after the text empty).
_PLAIN_ITEM = re.compile(rf"([^<]*)(?:<EM({_PLAIN_ATTRIBUTES}+)>([^<]*)</EM>|(<[^<>]*>)|(<)|\Z)")
PLAIN_ATTRIBUTE = re.compile(r' ([^=]+)="([^"]*)"')


class _NotPlain(Exception):
    """A document past the plain shape: its tree is built the general way."""


def _plain_text(text: str) -> str:
    """A text between two tags, as ``normalize_text`` gives it (line ends already are)."""
    if "<" in text:
        raise _NotPlain
    return normalize_text(text, True)


def _plain_entity(tag: str) -> EntityTag:
    """An entity tag of a plain document (``_PLAIN_ITEM`` has checked its shape)."""
    return EntityTag(EM_TAG, tuple(PLAIN_ATTRIBUTE.findall(tag[3:-1])))


def _plain_alt(pieces: list[str], index: int, omitted: bool) -> tuple[AltNode, int, int]:
    """The ALT block whose content starts at ``pieces[index]``.

    Returns its node, the index after its end tag and the length of its
    first alternative's text (what it adds to the running text).
    """
    content: list[str | AltEntity] = []
    first = 0
    split = False  # a "|" was met: ``first`` is complete
    while True:
        text = pieces[index]
        if text:
            content.append(_plain_text(text))
            if not split:  # the reader splits the text as written (no ``&#124;``)
                bar = text.find(ALT_SEPARATOR)
                split = bar >= 0
                first += bar if split else len(text)
        tag = pieces[index + 1]
        if tag == "</ALT>":
            if not split or not first:
                raise _NotPlain
            return AltNode(tuple(content), omitted), index + 2, first
        entity = _plain_entity(tag)
        text = pieces[index + 2]
        if not text or pieces[index + 3] != "</EM>":
            raise _NotPlain
        if not split:
            first += len(text)
        content.append(AltEntity(entity, _plain_text(text)))
        index += 4


def _plain_content(raw: RawDocument) -> str | None:
    """The document's content with its line ends normalised, or None when an attribute
    (MORF, OMITIDO) puts it past the plain shape."""
    content = raw.content
    if "MORF=" in content or "OMITIDO=" in content:
        return None
    return normalize_text(content, False) if "\r" in content else content


def _plain_nodes(pieces: list[str]) -> tuple[Node, ...]:
    """The nodes of ``pieces`` (text, tag, …, ``</DOC>``); ``_NotPlain`` past the plain shape."""
    top: list[Node] = []
    nodes = top
    # The open P and OMITIDO (a P, an OMITIDO or an OMITIDO in a P): kind,
    # the enclosing nodes and where the element starts in the running text.
    open_elements: list[tuple[str, list[Node], int]] = []
    omitted = False
    position = 0  # length of the running text so far
    index = 0
    while True:
        text = pieces[index]
        if text:
            nodes.append(TextNode(_plain_text(text)))
            position += len(text)
        tag = pieces[index + 1]
        index += 2
        if tag.startswith("<EM "):
            entity = _plain_entity(tag)
            text = pieces[index]
            if not text or pieces[index + 1] != "</EM>":
                raise _NotPlain
            nodes.append(ElementNode(EM_TAG, entity, omitted, (TextNode(_plain_text(text)),)))
            position += len(text)
            index += 2
        elif tag == "<ALT>":
            node, index, length = _plain_alt(pieces, index, omitted)
            nodes.append(node)
            position += length
        elif (tag == "<P>" and not open_elements) or (tag == "<OMITIDO>" and not omitted):
            open_elements.append((tag[1:-1], nodes, position))
            nodes = []
            omitted = omitted or tag == "<OMITIDO>"
        elif tag == "</DOC>" and not open_elements:
            return tuple(top)
        elif open_elements and tag == f"</{open_elements[-1][0]}>":
            kind, outer, start = open_elements.pop()
            if position == start:
                raise _NotPlain
            element = ElementNode(kind, None, omitted, tuple(nodes))
            omitted = False  # what is still open is a P at most
            nodes = outer
            nodes.append(element)
        else:
            raise _NotPlain


# A plain document as a flat list of items (``_plain_items``): what numbering
# needs of it without a node per text run and per entity.  Running text
# outside every element is a ``str``; an entity of text alone outside every
# OMITIDO is a ``FlatEntity``; an ALT block is its ``AltNode`` and an OMITIDO
# its ``ElementNode`` subtree.  P elements vanish: nothing in them is read
# differently for being in one.
class FlatEntity(NamedTuple):
    """An entity of text alone: its attributes as numbering prints them, its text.

    ``shown`` is the attributes as ``tag_string`` writes them (`` A="v" B="w"``);
    ``attributes`` None when they are read from ``shown`` only if asked for
    (``NumberedEntity.attribute_pairs``): the records are written from ``shown``.
    """

    attributes: tuple[tuple[str, str], ...] | None
    shown: str
    text: str


Item = str | FlatEntity | Node
_new_flat_entity = functools.partial(tuple.__new__, FlatEntity)  # built in C


def _plain_items(raw: RawDocument) -> list[Item] | None:
    """The items of a plain document, or None past the plain shape.

    Plain: tags written ``<P>``, ``<OMITIDO>``, ``<ALT>``, ``<EM A="v" ...>``
    and their end tags, a P or OMITIDO holding no P, an OMITIDO no
    OMITIDO, an entity only text, an ALT only text and entities with a
    ``|``, and no element empty; numbering the items gives what numbering
    the general tree (``_build_document_tree``) gives.  The content is read one tag a
    match (``_PLAIN_ITEM``): an entity of text alone, the most common item,
    is one match, its tag checked by the match itself.
    """
    content = _plain_content(raw)
    if content is None:
        return None
    try:
        return _plain_flat(_PLAIN_ITEM.findall(content))
    except (_NotPlain, IndexError, ValueError):
        return None


# A match of ``_PLAIN_ITEM``: text, entity attributes, entity text, other tag, stray ``<``.
_ItemMatch = tuple[str, str, str, str, str]


def _flat_entity(shown: str, text: str) -> FlatEntity:
    """The entity ``<EM A="v" ...>text</EM>`` of a plain document, outside every OMITIDO,
    from its attributes as written (`` A="v" ...``)."""
    if "&" in shown:  # a value with a reference: as numbering normalises it
        attributes = tuple(PLAIN_ATTRIBUTE.findall(shown))
        _, attributes = entity_attributes(EntityTag(EM_TAG, attributes), False, True)
        return _new_flat_entity((attributes, format_attributes(attributes), text))
    return _new_flat_entity((None, shown, text))


def _pieces_until(found: list[_ItemMatch], index: int, close: str) -> tuple[list[str], int]:
    """The pieces (text, tag, …) from ``found[index]`` to the first tag ``close``, and the
    index after it (an ALT or OMITIDO, read by the tree's readers); ``_NotPlain`` past plain."""
    pieces: list[str] = []
    while True:
        text, shown, entity_text, tag, stray = found[index]
        index += 1
        pieces.append(text)
        if shown:
            pieces += (f"<EM{shown}>", entity_text, "</EM>")
        elif tag == close:
            pieces.append(tag)
            return pieces, index
        elif not tag or tag.startswith("<EM "):  # a stray <, the end, an entity tag past plain
            raise _NotPlain
        else:
            pieces.append(tag)


def _plain_flat(found: list[_ItemMatch]) -> list[Item]:
    """The items of ``_PLAIN_ITEM``'s matches over a content; ``_NotPlain`` past the plain shape.

    (``_plain_text`` is written out in the loop: it runs once a text.)
    """
    items: list[Item] = []
    append = items.append
    paragraph = -1  # where the open P's items start, if one is open
    index = 0
    while True:
        text, shown, entity_text, tag, stray = found[index]
        index += 1
        if text:
            append(normalize_text(text, True) if "&" in text else text)
        if shown:
            if not entity_text:
                raise _NotPlain
            if "&" in entity_text:
                entity_text = normalize_text(entity_text, True)
            append(_flat_entity(shown, entity_text))
        elif tag == "<ALT>":
            pieces, index = _pieces_until(found, index, "</ALT>")
            node, _, _ = _plain_alt(pieces, 0, False)
            append(node)
        elif tag == "<OMITIDO>":
            pieces, index = _pieces_until(found, index, "</OMITIDO>")
            (omitted,) = _plain_nodes(["", tag, *pieces, "", "</DOC>"])
            append(omitted)
        elif tag == "<P>" and paragraph < 0:
            paragraph = len(items)
        elif tag == "</P>" and 0 <= paragraph < len(items):
            paragraph = -1
        elif not tag and not stray and paragraph < 0:  # the end
            return items
        else:
            raise _NotPlain


# ---------------------------------------------------------------------------
# The original's ALT reading: alternatives from the block's content


def _split_java(text: str) -> list[str]:
    """``text.split("\\|")`` in Java: trailing empty strings removed."""
    parts = text.split(ALT_SEPARATOR)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def build_alternatives(content: Iterable[object]) -> list[list[object]]:
    """Group an ALT's content into alternatives exactly as the original does.

    Text runs are trimmed and split at ``|``; when one run holds several
    ``|`` the original copies its first piece into each middle alternative
    and drops pieces after a leading ``|`` — kept, since numbering depends
    on the text an alternative holds.
    """
    alternatives: list[list[object]] = []
    current: list[object] = []
    for item in content:
        if not isinstance(item, str):
            current.append(item)
            continue
        text = java_trim(item)
        if ALT_SEPARATOR not in text:
            current.append(text)
            continue
        parts = _split_java(text)
        if text.startswith(ALT_SEPARATOR):
            alternatives.append(current)
            current = []
            if len(parts) > 1:
                current.append(java_trim(parts[1]))
        elif text.endswith(ALT_SEPARATOR):
            current.append(java_trim(parts[0]))
            alternatives.append(current)
            current = []
        else:
            for _ in range(len(parts) - 1):
                current.append(java_trim(parts[0]))
                alternatives.append(current)
                current = []
            current.append(java_trim(parts[-1]))
    alternatives.append(current)
    return alternatives


def entity_attributes(
    entity: EntityTag | None, omitted: bool, xml: bool
) -> tuple[str, tuple[tuple[str, str], ...]]:
    if entity is None:
        return EM_TAG, (OMITTED_ATTRIBUTE,)
    attributes = entity.attributes
    if _ATTRIBUTE_SPECIAL.search("".join(value for _, value in attributes)):
        attributes = tuple((name, _normalize_attribute(value, xml)) for name, value in attributes)
    if not omitted:
        return entity.tag, attributes
    marked = list(attributes)
    names = [name for name, _ in marked]
    if OMITTED_ATTRIBUTE[0] in names:
        marked[names.index(OMITTED_ATTRIBUTE[0])] = OMITTED_ATTRIBUTE
    else:
        marked.append(OMITTED_ATTRIBUTE)
    return entity.tag, tuple(marked)


def document_items(doc: Document | RawDocument, path: str, xml: bool) -> Sequence[Item]:
    """What numbering reads of a document: its items when it is a plain one as written,
    else its tree's nodes."""
    if isinstance(doc, RawDocument):
        items = _plain_items(doc)
        if items is not None:
            return items
        doc = parse_raw_document(doc, path)
    return _build_document_tree(doc, path, xml)
