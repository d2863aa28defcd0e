"""A document as AlinhEM's numbering reads it: items (running text, entities, ALT blocks,
OMITIDO subtrees), built from a parsed ``Document``.

The items are the original's XML tree as it walks it: text nodes and
elements, P elements kept only where they matter.  Character data and
attribute values are normalised as an XML parser hands them over.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Tag, format_attributes, format_tag
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
        start, end = region.start, region.end
        while stack:
            closed = stack[-1][0]
            if closed.start <= start and end <= closed.end:
                break
            stack.pop()
            if closed.start < start < closed.end < end:
                raise InputError(
                    path,
                    "entities that neither nest nor overlap",
                    f"{_describe(region)} overlapping {_describe(closed)}",
                    docid=doc.docid,
                )
        if stack and stack[-1][0].kind in ("EM", "ALT") and end > start:
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


# A document as a flat list of items (``document_items``): what numbering
# needs of it without a node per text run and per entity.  Running text
# outside every element is a ``str``; an entity of text alone outside every
# OMITIDO is a ``FlatEntity``; anything else (an ALT block, an OMITIDO, an
# entity holding an empty element) is its tree's node.  P elements outside
# every OMITIDO vanish: nothing in them is read differently for being in one.
class FlatEntity(NamedTuple):
    """An entity of text alone: its tag, its attributes and text as numbering reads them
    (``entity_attributes``, ``normalize_text``) and the attributes as ``tag_string``
    writes them (`` A="v" B="w"``, ``format_attributes``)."""

    tag: str
    attributes: tuple[tuple[str, str], ...]
    shown: str
    text: str


Item = str | FlatEntity | Node
_new_flat_entity = functools.partial(tuple.__new__, FlatEntity)  # built in C


def document_items(doc: Document, path: str, xml: bool) -> list[Item]:
    """What numbering reads of a document: its content as the original's XML tree (text
    nodes and elements, ``_build_nodes`` of ``_nest_regions``) with the P elements outside
    every OMITIDO dissolved into their content and each entity of text alone there a
    ``FlatEntity``; numbering either gives the same entities and counts."""
    items: list[Item] = []
    _flatten(doc, _nest_regions(doc, path), 0, len(doc.text), xml, items)
    return items


def _flatten(
    doc: Document,
    forest: list[tuple[_Region, list]],
    start: int,
    end: int,
    xml: bool,
    items: list[Item],
) -> None:
    """``_build_nodes`` outside every OMITIDO, into ``items`` (see ``document_items``)."""
    text = doc.text
    append = items.append
    cursor = start
    for region, children in forest:
        begin = region.start
        if begin > cursor:
            append(normalize_text(text[cursor:begin], xml))
        cursor = max(cursor, region.end)
        entity = region.payload
        if region.kind == "P":
            _flatten(doc, children, begin, region.end, xml, items)
        elif isinstance(entity, Entity) and not children and region.end > begin:
            tag, attributes = entity.tag, entity.attributes
            shown = format_attributes(attributes)
            if _ATTRIBUTE_SPECIAL.search(shown):  # a value numbering reads otherwise
                tag, attributes = entity_attributes(EntityTag(tag, attributes), False, xml)
                shown = format_attributes(attributes)
            inner = text[begin : region.end]
            if "\r" in inner or "&" in inner:
                inner = normalize_text(inner, xml)
            append(_new_flat_entity((tag, attributes, shown, inner)))
        else:
            items.extend(_build_nodes(doc, [(region, children)], begin, region.end, False, xml))
    if end > cursor:
        append(normalize_text(text[cursor:end], xml))


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
