"""AlinhEM: align a system run with the golden collection (CD) → ``.alinhado`` records.

Behaviour is that of the official aligner of LÂMPADA 2.0, whose output we
reproduce line for line (see ``tests/test_align.py``):

* documents are paired by DOCID (leading/trailing blanks ignored); a run
  document absent from the CD is skipped with the warning
  ``NÃo consegui encontrar o documento na CD: <id>`` (the original's
  spelling, kept so warnings compare equal), an empty run document with
  ``Estou a ignorar o documento na submissÃo: <id>``;
* inside a document, the upper-cased non-stopword tokens of every CD entity
  are *markable*; every occurrence of a markable token is numbered in the
  running text of both files (``harem_pipeline.text.tokens``); a CD entity and a
  run entity align when they contain the same numbered token;
* CD entities appear in document order, each ``---> [run entities]`` or
  ``---> [null]``; an ``<ALT>`` block of the CD is printed alternative by
  alternative (``<ALT>``, ``<ALTn>``…); run entities aligned to nothing
  follow as spurious records ``<EM CATEG="ESPURIO">text</EM> ---> [...]``;
* text inside ``<OMITIDO>`` is numbered like any text, but neither its
  entities nor records aligned only to them are written;
* an ``<OMITIDO>`` is itself an entity of the CD (the original renames the
  element ``EM`` and marks it ``OMITIDO="1"``, NamedEntityTagParser), whose
  text is its own character data; an entity is omitted when it or an
  ancestor is an ``OMITIDO``.  So in ``<OMITIDO><P>text</P></OMITIDO>`` the
  text belongs to the ``P``: its tokens are markable only through the
  omitted entities inside, and a run entity there that meets none of them
  is written as spurious; in ``<P><OMITIDO>text</OMITIDO></P>`` the text is
  the omitted entity's, and run entities in it are not written.  Which of
  the two a file says is ``Document.omitted_outer``;
* when a markable token occurs a different number of times in the two texts
  (the texts differ), a CD entity left unaligned that contains that token
  in upper case is reported in a ``<VERIFICACAO_MANUAL>`` line after the
  document line; alignment of the rest goes on.

The original's quirks are reproduced because the reference outputs depend
on them: numbering outside ``ALT`` wraps the first case-sensitive match of
the token after the previous one (``tokens.number_by_search``); inside
``ALT`` each alternative is numbered from the same counts and the counts
after the block are those of the last alternative; the text of an
``<OMITIDO>`` region is its own character data with the nested entities'
text left out; the order of the tokens in a ``VERIFICACAO_MANUAL`` line is
the iteration order of the original's hash table (Java 8 ``HashMap``),
emulated by ``java_hash_order``.

Deliberate differences from the original, with reasons:

* The two ``#`` header lines carry the files' base names, not the paths as
  typed, so outputs do not depend on the working directory (the reference
  comparison drops these lines anyway).
* A CD document absent from the run: the original only lists its DOCID on
  stderr (``A submissÃo nÃo continha documentos da CD:`` then one DOCID a
  line; we print the same warning) and writes nothing, so its entities
  silently vanish from the evaluation.  We also write its block, after the
  run's documents and in CD order, with every entity ``---> [null]``: the
  specification counts them as missing.
* When two CD entities are identical (same attributes and same numbered
  text, which needs a text without markable tokens) the original merges
  their records and may print ``null`` inside a list of run entities; the
  record format has no such item, so that ``null`` is dropped.
* An attribute value holding a line end written as ``&#10;`` is printed
  with a space there (the original prints the line end and breaks the
  record in two lines).
* The original re-reads numbered texts with a small parser, which goes
  wrong when an entity's own text contains ``<digits>...</digits>``; we
  keep the numbered tokens as data and never re-parse.
* In an alternative of a CD ``ALT`` block with no entity, each run entity
  aligned to the block is a spurious record; the original lists on it every
  run entity that shares a token with it, we list the spurious entity
  alone.  The two differ only when run entities overlap, which a run does
  only when it holds ``ALT`` blocks itself (a collection scored against
  itself: the aligner takes every alternative's entities as the run's, as
  the official worked example ``exemplo0`` shows).  On such a record the
  original's AvalIDa writes one ``Espurio`` for several entities, and its
  Véus and Ida2ID then stop with an exception (``NoSuchElementException``
  in ``IdentificationEvaluatedAlignmentProcessor``): a spurious record is
  one spurious entity, and written so every stage reads it.
* First HAREM (2005) collections were aligned by a lost Perl program: for
  them a document starts with the line ``DOCID ORIGEM GENERO``
  (``HAREM-251-04443 PT Web``) and has no ``EOD``, entities keep their
  First HAREM tags (``<LOCAL TIPO=".." MORF="F,S">``) and spurious ones
  are ``<ESPURIO>text</ESPURIO>``, as in the Vizir documentation.
"""

from __future__ import annotations

import functools
import os
import pickle
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import IO, NamedTuple, Protocol, cast

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    SPURIOUS_TAG,
    AltClose,
    AltOpen,
    Blank,
    DocEnd,
    DocStart,
    DocumentLine,
    Header,
    Line,
    ManualCheck,
    Record,
    Tag,
    format_attributes,
    format_line,
    format_lines,
    format_record_parts,
    format_tag,
    format_tag_parts,
)
from harem_pipeline.formats.harem_xml import RawDocument, parse_raw_document
from harem_pipeline.model import EM_TAG, FIRST_HAREM, AltBlock, Collection, Document, Entity
from harem_pipeline.text.java import JAVA_BLANKS, java_hash_order, java_trim
from harem_pipeline.text.progress import progress
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

# Messages of the original, byte for byte (its "nÃo" is a typo of "não").
MISSING_DOCUMENT = "N\u00c3o consegui encontrar o documento na CD: "
IGNORED_DOCUMENT = "Estou a ignorar o documento na submiss\u00c3o: "
RUN_MISSING_DOCUMENTS = "A submiss\u00c3o n\u00c3o continha documentos da CD: "
FAULTY_TOKENS = "Os \u00e1tomos seguintes n\u00c3o foram correctamente identificados: "
CHECK_ALIGNMENT = "Verifique o seguinte alinhamento: "

OMITTED_ATTRIBUTE = ("OMITIDO", "1")
ALT_SEPARATOR = "|"
_SPURIOUS_KEY = "ESPURIO"
_SPURIOUS_SHOWN = f' CATEG="{SPURIOUS_TAG}"'


@dataclass(frozen=True, slots=True)
class AlignmentResult:
    """What AlinhEM produces: the ``.alinhado`` lines and the warnings of the run.

    ``warnings`` are the lines the original prints on stderr, in order.
    """

    lines: tuple[Line, ...]
    warnings: tuple[str, ...]


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
class _TextNode:
    text: str


@dataclass(slots=True)
class _EntityTag:
    """What numbering needs of an entity's tag: its name and attributes as written."""

    tag: str
    attributes: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class _AltEntity:
    """An entity tag inside an ALT block, before numbering."""

    entity: _EntityTag
    text: str


@dataclass(slots=True)
class _AltNode:
    """An ``<ALT>`` block: its content as the original sees it (text runs and entities)."""

    content: tuple[str | _AltEntity, ...]
    omitted: bool


@dataclass(slots=True)
class _ElementNode:
    """``EM`` (an entity), ``OMITIDO`` (entity is None) or ``P`` (kind ``P``)."""

    kind: str
    entity: _EntityTag | None
    omitted: bool
    children: tuple[_TextNode | _AltNode | _ElementNode, ...]


_Node = _TextNode | _AltNode | _ElementNode
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


def _alt_content(block: AltBlock, xml: bool) -> tuple[str | _AltEntity, ...]:
    """The block's content in file order: text runs (with the ``|``) and entity tags."""
    content: list[str | _AltEntity] = []
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
            tagged = _EntityTag(entity.tag, entity.attributes)
            content.append(_AltEntity(tagged, normalize_text(entity.text, xml)))
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
) -> tuple[_Node, ...]:
    nodes: list[_Node] = []
    cursor = start
    for region, children in forest:
        if region.start > cursor:
            nodes.append(_TextNode(normalize_text(doc.text[cursor : region.start], xml)))
        cursor = max(cursor, region.end)
        if isinstance(region.payload, AltBlock):
            nodes.append(_AltNode(_alt_content(region.payload, xml), omitted))
            continue
        inside = omitted or region.kind == "OMITIDO"
        payload = region.payload
        entity = (
            _EntityTag(payload.tag, payload.attributes) if isinstance(payload, Entity) else None
        )
        kids = _build_nodes(doc, children, region.start, region.end, inside, xml)
        nodes.append(_ElementNode(region.kind, entity, inside, kids))
    if end > cursor:
        nodes.append(_TextNode(normalize_text(doc.text[cursor:end], xml)))
    return tuple(nodes)


def _build_document_tree(doc: Document, path: str, xml: bool) -> tuple[_Node, ...]:
    """The document's content as the original's XML tree: text nodes and elements."""
    return _build_nodes(doc, _nest_regions(doc, path), 0, len(doc.text), False, xml)


# The plain shape of a Second HAREM document (``_plain_tree``): tags exactly
# as these write them (no character reference in a value), no MORF or OMITIDO
# attribute.
_PLAIN_PIECES = re.compile(r"(<[^<>]*>)")
# An entity tag in the plain shape (one tag, whole), and a search for a tag
# ``<EM …>`` past it in a whole document (a tag runs to its first ``>``, as
# that shape does): one search a document, not a match a tag.  The tests hold
# the two together.
_PLAIN_ATTRIBUTES = r'(?: [^\s=<>"\'/]+="[^"<>\t\n\r]*")'  # one attribute, as written
_PLAIN_ENTITY = re.compile(rf"<EM({_PLAIN_ATTRIBUTES}*)>")
_NOT_PLAIN_ENTITY = re.compile(rf"<EM(?= )(?!{_PLAIN_ATTRIBUTES}+>)")
# What ``_plain_items`` reads a document's content with, one match a tag: the
# text before it, then an entity of text alone whose tag is in the plain
# shape (its attributes as written, its text), or any other tag, or a ``<``
# that starts no tag, or the end (all groups after the text empty).
_PLAIN_ITEM = re.compile(rf"([^<]*)(?:<EM({_PLAIN_ATTRIBUTES}+)>([^<]*)</EM>|(<[^<>]*>)|(<)|\Z)")
_PLAIN_ATTRIBUTE = re.compile(r' ([^=]+)="([^"]*)"')


class _NotPlain(Exception):
    """A document past the plain shape: its tree is built the general way."""


def _plain_text(text: str) -> str:
    """A text between two tags, as ``normalize_text`` gives it (line ends already are)."""
    if "<" in text:
        raise _NotPlain
    return normalize_text(text, True)


def _plain_entity(tag: str) -> _EntityTag:
    """An entity tag of a plain document (``_plain_pieces`` has checked them all)."""
    return _EntityTag(EM_TAG, tuple(_PLAIN_ATTRIBUTE.findall(tag[3:-1])))


def _plain_alt(pieces: list[str], index: int, omitted: bool) -> tuple[_AltNode, int, int]:
    """The ALT block whose content starts at ``pieces[index]``.

    Returns its node, the index after its end tag and the length of its
    first alternative's text (what it adds to the running text).
    """
    content: list[str | _AltEntity] = []
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
            return _AltNode(tuple(content), omitted), index + 2, first
        entity = _plain_entity(tag)
        text = pieces[index + 2]
        if not text or pieces[index + 3] != "</EM>":
            raise _NotPlain
        if not split:
            first += len(text)
        content.append(_AltEntity(entity, _plain_text(text)))
        index += 4


def _plain_tree(raw: RawDocument) -> tuple[_Node, ...] | None:
    """``_build_document_tree`` of a plain document, read from its text as written; else None.

    Plain: no character reference in a tag (texts are normalised piece by
    piece, as the general way does), tags written ``<P>``,
    ``<OMITIDO>``, ``<ALT>``, ``<EM A="v" ...>`` and their end tags, a P or
    OMITIDO holding no P, an OMITIDO no OMITIDO, an entity only text, an
    ALT only text and entities with a ``|``, and no element empty.  There
    the tree the regions give is the file's own nesting, so it is read in
    one pass over the tags; anything else (errors included)
    goes the general way.
    """
    pieces = _plain_pieces(raw)
    if pieces is None:
        return None
    try:
        return _plain_nodes(pieces)
    except (_NotPlain, IndexError):
        return None


def _plain_content(raw: RawDocument) -> str | None:
    """The document's content with its line ends normalised, or None when an attribute
    (MORF, OMITIDO) puts it past the plain shape."""
    content = raw.content
    if "MORF=" in content or "OMITIDO=" in content:
        return None
    return normalize_text(content, False) if "\r" in content else content


def _plain_pieces(raw: RawDocument) -> list[str] | None:
    """The document's content cut at its tags (text, tag, …, text, ``</DOC>``); None past plain."""
    content = _plain_content(raw)
    if content is None or _NOT_PLAIN_ENTITY.search(content):
        return None
    pieces = _PLAIN_PIECES.split(content)
    pieces.append("</DOC>")  # a sentinel: the end of the content
    return pieces


def _plain_nodes(pieces: list[str]) -> tuple[_Node, ...]:
    """The nodes of ``pieces`` (text, tag, …, ``</DOC>``); ``_NotPlain`` past the plain shape."""
    top: list[_Node] = []
    nodes = top
    # The open P and OMITIDO (a P, an OMITIDO or an OMITIDO in a P): kind,
    # the enclosing nodes and where the element starts in the running text.
    open_elements: list[tuple[str, list[_Node], int]] = []
    omitted = False
    position = 0  # length of the running text so far
    index = 0
    while True:
        text = pieces[index]
        if text:
            nodes.append(_TextNode(_plain_text(text)))
            position += len(text)
        tag = pieces[index + 1]
        index += 2
        if tag.startswith("<EM "):
            entity = _plain_entity(tag)
            text = pieces[index]
            if not text or pieces[index + 1] != "</EM>":
                raise _NotPlain
            nodes.append(_ElementNode(EM_TAG, entity, omitted, (_TextNode(_plain_text(text)),)))
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
            element = _ElementNode(kind, None, omitted, tuple(nodes))
            omitted = False  # what is still open is a P at most
            nodes = outer
            nodes.append(element)
        else:
            raise _NotPlain


# A plain document as a flat list of items (``_plain_items``): what numbering
# needs of it without a node per text run and per entity.  Running text
# outside every element is a ``str``; an entity of text alone outside every
# OMITIDO is a ``_FlatEntity``; an ALT block is its ``_AltNode`` and an OMITIDO
# its ``_ElementNode`` subtree.  P elements vanish: nothing in them is read
# differently for being in one.
class _FlatEntity(NamedTuple):
    """An entity of text alone: its attributes as numbering prints them, its text.

    ``shown`` is the attributes as ``_tag_string`` writes them (`` A="v" B="w"``);
    ``attributes`` None when they are read from ``shown`` only if asked for
    (``_Named.attribute_pairs``): the records are written from ``shown``.
    """

    attributes: tuple[tuple[str, str], ...] | None
    shown: str
    text: str


_Item = str | _FlatEntity | _Node
_new_flat_entity = functools.partial(tuple.__new__, _FlatEntity)  # built in C


def _plain_items(raw: RawDocument) -> list[_Item] | None:
    """The items of a plain document (``_plain_tree``'s shape), or None past it.

    The same documents as ``_plain_tree`` are taken, and numbering the items
    gives what numbering its tree gives.  The content is read one tag a
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


def _flat_entity(shown: str, text: str) -> _FlatEntity:
    """The entity ``<EM A="v" ...>text</EM>`` of a plain document, outside every OMITIDO,
    from its attributes as written (`` A="v" ...``)."""
    if "&" in shown:  # a value with a reference: as numbering normalises it
        attributes = tuple(_PLAIN_ATTRIBUTE.findall(shown))
        _, attributes = _entity_attributes(_EntityTag(EM_TAG, attributes), False, True)
        return _new_flat_entity((attributes, format_attributes(attributes), text))
    return _new_flat_entity((None, shown, text))


def _pieces_until(found: list[_ItemMatch], index: int, close: str) -> tuple[list[str], int]:
    """``_plain_pieces``'s pieces from ``found[index]`` to the first tag ``close``, and the
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


def _plain_flat(found: list[_ItemMatch]) -> list[_Item]:
    """The items of ``_PLAIN_ITEM``'s matches over a content; ``_NotPlain`` past the plain shape.

    (``_plain_text`` is written out in the loop: it runs once a text.)
    """
    items: list[_Item] = []
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
            (node,) = _plain_nodes(["", tag, *pieces, "", "</DOC>"])
            append(node)
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


# ---------------------------------------------------------------------------
# Numbered entities


@dataclass(slots=True)
class _Named:
    """One entity tag after numbering: what alignment compares and prints."""

    tag: str
    attributes: tuple[tuple[str, str], ...] | None  # None: read from ``shown`` when asked
    text: str
    marked: str
    marks: tuple[Mark, ...]
    omitted: bool
    shown: str  # the attributes as written (``format_attributes``)
    ident: str  # the tag with its numbered text (``_tag_string``): the original's identity
    in_alt: bool = False  # numbered inside an ALT block (the original trims its numbered text)

    def attribute_pairs(self) -> tuple[tuple[str, str], ...]:
        """The attributes, read from ``shown`` on first use for a plain entity (``_FlatEntity``)."""
        if self.attributes is None:
            self.attributes = tuple(_PLAIN_ATTRIBUTE.findall(self.shown))
        return self.attributes

    def gold_tag(self) -> Tag:
        return Tag(self.tag, self.attribute_pairs(), self.gold_text())

    def gold_text(self) -> str:
        """The text of ``gold_tag``."""
        return java_trim(self.text).replace("\n", " ")

    def written(self) -> str:
        """``format_tag(self.gold_tag())``, without the tag."""
        return format_tag_parts(self.tag, self.shown, self.gold_text())


def _named(
    tag: str,
    attributes: tuple[tuple[str, str], ...],
    text: str,
    marked: str,
    marks: tuple[Mark, ...],
    omitted: bool,
    in_alt: bool = False,
) -> _Named:
    shown = format_attributes(attributes)
    ident = _tag_string(tag, shown, marked)
    return _Named(tag, attributes, text, marked, marks, omitted, shown, ident, in_alt)


@dataclass(slots=True)
class _AltGroup:
    """A numbered ALT block: its alternatives (text pieces and ``_Named``)."""

    alternatives: tuple[tuple[str | _Named, ...], ...]
    entities: tuple[_Named, ...]
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
                if isinstance(item, _Named):
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


_Aligned = _Named | _AltGroup


def _tag_string(tag: str, shown: str, text: str) -> str:
    """An entity's identity: its tag, attributes as written (``shown``) and numbered text."""
    return format_tag_parts(tag, shown, text.replace("\n", " "))


def _entity_attributes(
    entity: _EntityTag | None, omitted: bool, xml: bool
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


def _direct_text(children: Sequence[_Node]) -> str:
    return "".join(child.text for child in children if isinstance(child, _TextNode))


def _has_entity(content: Iterable[object]) -> bool:
    return any(isinstance(item, _AltEntity) for item in content)


def _collect_markable(items: Sequence[_Item], keys: dict[str, None]) -> None:
    """The CD's markable keys, in the order the original first meets them.

    They are the markable tokens of the texts ``_markable_texts`` gives,
    read in one pass over those texts joined by line ends (no token spans
    one).
    """
    texts: list[str] = []
    _markable_texts(items, texts)
    keys.update(dict.fromkeys(markable_tokens("\n".join(texts))))


def _markable_texts(items: Sequence[_Item], texts: list[str]) -> None:
    """The texts whose tokens are markable: each entity's and OMITIDO's own, in document order."""
    for item in items:
        if type(item) is _FlatEntity:
            texts.append(item.text)
        elif isinstance(item, _AltNode):
            if _has_entity(item.content):
                texts.extend(entity.text for entity in item.content if type(entity) is _AltEntity)
        elif isinstance(item, _ElementNode):
            if item.kind != "P":
                texts.append(_direct_text(item.children))
            _markable_texts(item.children, texts)


def _number_alt(node: _AltNode, counters: dict[str, int], xml: bool) -> _AltGroup | None:
    """Number an ALT block; every alternative starts from the same counts.

    The counts after the block are the last alternative's.  Each alternative
    is numbered in ``counters`` itself and the keys it advanced are then set
    back (every count advanced is a numbered token, so the marks say which
    and from what): copying the counters for each alternative cost the
    document's whole vocabulary once an alternative.
    """
    original = build_alternatives(node.content)
    numbered: list[list[str | _Named]] = []
    start: dict[str, int] = {}  # the block's counts of the keys its alternatives advanced
    last = len(original) - 1
    for index, alternative in enumerate(original):
        items: list[str | _Named] = []
        for item in alternative:
            if isinstance(item, str):
                marked, marks = number_in_sequence(item, counters)
                items.extend(_alt_text_items(marked))
            elif isinstance(item, _AltEntity):
                marked, marks = number_in_sequence(item.text, counters)
                tag, attributes = _entity_attributes(item.entity, node.omitted, xml)
                items.append(
                    _named(tag, attributes, item.text, marked, marks, node.omitted, in_alt=True)
                )
            else:
                continue
            for _, key, count in marks:
                start.setdefault(key, count - 1)
        numbered.append(items)
        if index < last:
            counters.update(start)
    content: list[str | _Named] = []
    for items in numbered:
        if content:
            content.append(ALT_SEPARATOR)
        content.extend(items)
    entities = tuple(item for item in content if isinstance(item, _Named))
    if not entities:
        return None
    alternatives = tuple(
        tuple(item for item in alt if isinstance(item, (str, _Named)))
        for alt in build_alternatives(content)
    )
    return _AltGroup(alternatives, entities, node.omitted)


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
    nodes: Sequence[_Node],
    counters: dict[str, int],
    out: list[_Aligned | None],
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
        if isinstance(node, _TextNode):
            if numbered:
                _count_unread(unread, counters)
                direct.append(number_by_search(node.text, counters))
            else:
                unread.append(node.text)
        elif isinstance(node, _AltNode):
            _count_unread(unread, counters)
            group = _number_alt(node, counters, xml)
            if group is not None:
                out.append(group)
        elif node.kind == "P":
            _number_nodes(node.children, counters, out, xml, unread)
        else:
            tag, attributes = _entity_attributes(node.entity, node.omitted, xml)
            children = node.children
            if len(children) == 1 and isinstance(children[0], _TextNode):  # text alone: at once
                _count_unread(unread, counters)
                text = children[0].text
                marked, marks = number_by_search(text, counters)
                out.append(_named(tag, attributes, text, marked, marks, node.omitted))
                continue
            slot = len(out)
            out.append(None)
            texts = _number_nodes(children, counters, out, xml, unread, True)
            out[slot] = _named(
                tag,
                attributes,
                _direct_text(children),
                "".join(text for text, _ in texts),
                tuple(mark for _, marks in texts for mark in marks),
                node.omitted,
            )
    return direct


def _number_entities(
    items: Sequence[_Item], keys: Iterable[str], xml: bool
) -> tuple[list[_Aligned], dict[str, int]]:
    """Number a document (its tree's nodes, or its items) for the markable ``keys``.

    Returns its entities and the final counts.  The running text outside
    every element is counted in one pass (``_number_in_bulk``) when it
    allows; else text by text.
    """
    counters = new_counters(keys)
    out: list[_Aligned | None] = []
    unread: list[str] = []
    if not _number_in_bulk(items, counters, out, xml, unread):
        for item in items:
            if type(item) is str:
                unread.append(item)
            else:
                _number_item(item, counters, out, xml, unread)  # type: ignore[arg-type]
        _count_unread(unread, counters)
    return [entity for entity in out if entity is not None], counters


def _number_item(
    item: _FlatEntity | _Node,
    counters: dict[str, int],
    out: list[_Aligned | None],
    xml: bool,
    unread: list[str],
) -> None:
    """Number one item that is not running text, after the running text before it."""
    if type(item) is _FlatEntity:
        if unread:
            _count_unread(unread, counters)
        attributes, shown, text = item
        marked, marks = number_by_search(text, counters)
        ident = _tag_string(EM_TAG, shown, marked)
        out.append(_Named(EM_TAG, attributes, text, marked, marks, False, shown, ident))
    else:
        _number_nodes((item,), counters, out, xml, unread)  # type: ignore[arg-type]


def _number_in_bulk(
    items: Sequence[_Item],
    counters: dict[str, int],
    out: list[_Aligned | None],
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
    others: list[_FlatEntity | _Node] = []
    running: list[str] = []
    for item in items:
        if type(item) is str:
            running.append(item)  # type: ignore[arg-type]
        else:
            gaps.append("\n".join(running))
            running.clear()
            others.append(item)  # type: ignore[arg-type]
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


# ---------------------------------------------------------------------------
# Aligning one document


@dataclass(slots=True)
class _Entry:
    """One printed alignment: its key (entity, or spurious slot number) and aligned items."""

    key: _Aligned | int
    values: dict[str, _Named | None] = field(default_factory=dict)


def _spurious_tag(text: str, xml: bool) -> Tag:
    if xml:
        return Tag(EM_TAG, (("CATEG", SPURIOUS_TAG),), text)
    return Tag(SPURIOUS_TAG, (), text)


def _run_index(run_entities: Sequence[_Aligned]) -> dict[tuple[str, int], list[_Named]]:
    """Run entities by numbered token; entities without one get their own ``ESPURIO`` slot."""
    index: dict[tuple[str, int], list[_Named]] = {}
    empty = 0
    for item in run_entities:
        for named in item.entities if isinstance(item, _AltGroup) else (item,):
            if named.marks:
                for mark in named.marks:
                    index.setdefault(mark[1:], []).append(named)  # mark.numbered
                continue
            empty += 1
            wrapped = f"<{empty}>{named.marked}</{empty}>"
            alone = _named(
                named.tag, named.attribute_pairs(), named.text, wrapped, (), named.omitted
            )
            index.setdefault((_SPURIOUS_KEY, empty), []).append(alone)
    return index


def _shares_token(left: _Named | _AltGroup, right: _Named) -> bool:
    numbered = {mark[1:] for mark in left.marks}  # mark.numbered, built in C
    return any(mark[1:] in numbered for mark in right.marks)


# A record before it is written: its gold side (a numbered CD entity, or a
# spurious tag) and the system entities aligned to it (None: ``[null]``).
_RecordItem = tuple[_Named | Tag, list[_Named] | None]


def _system(values: Iterable[_Named | None]) -> list[_Named] | None:
    named = [value for value in values if value is not None]
    return named or None


def _comparable(entity: _Named, values: Sequence[_Named | None]) -> list[_Named] | None:
    return _system(v for v in values if v is not None and _shares_token(entity, v))


def _alt_lines(
    group: _AltGroup, values: list[_Named | None], xml: bool, marked: bool = False
) -> Iterator[_RecordItem | Line]:
    yield AltOpen(None)
    missing = None in values
    for number, alternative in enumerate(group.alternatives, start=1):
        yield AltOpen(number)
        named = [item for item in alternative if isinstance(item, _Named)]
        for entity in named:
            system = _system(values) if missing else _comparable(entity, values)
            yield entity, system
        if not named and not missing:
            for value in values:
                if value is not None:
                    text = java_trim(value.marked if marked else value.text)
                    gold = _spurious_tag(text.replace("\n", " "), xml)
                    yield gold, [value]  # the original: _comparable(value, values)
        yield AltClose(number)
    yield AltClose(None)


def _as_line(item: _RecordItem | Line) -> Line:
    """A record as a ``Record`` line (other lines as they are)."""
    if not isinstance(item, tuple):
        return item
    gold, system = item
    tag = gold.gold_tag() if isinstance(gold, _Named) else gold
    return Record(tag, None if system is None else tuple(value.gold_tag() for value in system))


def _as_text(item: _RecordItem | Line) -> str:
    """``format_line(_as_line(item))``, written without building the line."""
    if not isinstance(item, tuple):
        return format_line(item)
    gold, system = item
    written = gold.written() if isinstance(gold, _Named) else format_tag(gold)
    listed = None if system is None else [value.written() for value in system]
    return format_record_parts(written, listed)


@dataclass(frozen=True, slots=True)
class _DocumentAlignment:
    """The alignment of one document pair, before printing."""

    entries: tuple[_Entry, ...]
    by_ident: dict[str, _Entry]
    spurious_texts: tuple[str, ...]
    faults: tuple[tuple[_Aligned, tuple[str, ...]], ...]


def _align_numbered(
    cd_entities: Sequence[_Aligned],
    run_entities: Sequence[_Aligned],
    potential_faults: Sequence[str],
) -> _DocumentAlignment:
    """Pair numbered CD and run entities through their shared numbered tokens."""
    index = _run_index(run_entities)
    entries: dict[str, _Entry] = {}
    aligned: set[str] = set()
    faults: dict[str, tuple[_Aligned, dict[str, None]]] = {}
    cd_idents: set[str] = set()
    for entity in cd_entities:
        ident = entity.ident
        cd_idents.add(ident)
        entry = entries.get(ident)
        if entry is None:
            entry = entries[ident] = _Entry(entity)
        found = False
        values = entry.values
        for mark in entity.marks:
            for run_entity in index.get(mark[1:], ()):  # mark.numbered
                values.setdefault(run_entity.ident, run_entity)
                aligned.add(run_entity.ident)
                found = True
        if found:
            continue
        entry.values.setdefault("", None)
        written = {mark[0] for mark in entity.marks}  # as written
        for key in potential_faults:
            if key in written:
                faults.setdefault(entity.ident, (entity, {}))[1][key] = None
    spurious_texts: list[str] = []
    for bucket in index.values():
        slot = -1
        for run_entity in bucket:
            if run_entity.ident in cd_idents or run_entity.ident in aligned:
                continue
            if slot < 0:
                slot = len(spurious_texts)
                spurious_texts.append("")
            # The original reuses one spurious key per token and renames it.
            spurious_texts[slot] = java_trim(run_entity.marked)
            ident = _spurious_ident(spurious_texts[slot])
            entry = entries.setdefault(ident, _Entry(slot))
            entry.values.setdefault(run_entity.ident, run_entity)
            aligned.add(run_entity.ident)
    return _DocumentAlignment(
        tuple(entries.values()),
        entries,
        tuple(spurious_texts),
        tuple((entity, tuple(keys)) for entity, keys in faults.values()),
    )


def _spurious_ident(marked: str) -> str:
    return _tag_string(EM_TAG, _SPURIOUS_SHOWN, marked)


def _record_items(
    alignment: _DocumentAlignment, xml: bool, marked: bool = False
) -> Iterator[_RecordItem | Line]:
    """The document's records in order (ALT blocks with their ALT lines).

    ``marked`` keeps the numbered text of spurious records (``<1>Ele</1>``,
    the official ``-etiquetas sim``; see ``stages/align_tokens.py``).
    """
    texts = alignment.spurious_texts
    for entry in alignment.entries:
        key = entry.key
        if isinstance(key, int):
            values = list(alignment.by_ident[_spurious_ident(texts[key])].values.values())
            omitted = False
        else:
            values = list(entry.values.values())
            omitted = key.omitted
        values = [value for value in values if value is None or not value.omitted]
        if omitted or not values:
            continue
        if isinstance(key, _AltGroup):
            yield from _alt_lines(key, values, xml, marked)
        elif isinstance(key, _Named):
            yield key, _system(values)
        else:
            text = texts[key] if marked else _strip_marks(texts[key])
            yield _spurious_tag(text.replace("\n", " "), xml), _system(values)


_MARK_RE = re.compile(r"<(\d+)>([^<]*)</\d+>")


def _strip_marks(marked: str) -> str:
    return java_trim(_MARK_RE.sub(lambda m: m.group(2), marked))


def _manual_check(
    faults: Sequence[tuple[_Aligned, tuple[str, ...]]],
    numbered: Callable[[_Aligned], str] | None = None,
) -> ManualCheck:
    body = " "
    for entity, keys in faults:
        shown = (
            numbered(entity)
            if numbered is not None
            else entity.plain_string()
            if isinstance(entity, _AltGroup)
            else format_tag(entity.gold_tag())
        )
        body += f"{FAULTY_TOKENS}[{', '.join(keys)}]. {CHECK_ALIGNMENT}{shown} ---> null "
    return ManualCheck(body)


def align_documents(
    cd_doc: Document | RawDocument,
    run_doc: Document | RawDocument,
    xml: bool,
    cd_path: str = "",
    run_path: str = "",
    check_counts: bool = True,
) -> list[Line]:
    """The ``.alinhado`` lines of one document pair (without the document line).

    ``check_counts`` False skips the comparison of occurrence counts (used
    for a CD document the run lacks, aligned against its own bare text).
    """
    return list(map(_as_line, _body_items(cd_doc, run_doc, xml, cd_path, run_path, check_counts)))


def _body_items(
    cd_doc: Document | RawDocument,
    run_doc: Document | RawDocument,
    xml: bool,
    cd_path: str,
    run_path: str,
    check_counts: bool,
    numbered: Callable[[_Aligned], str] | None = None,
) -> list[_RecordItem | Line]:
    """``align_documents``'s lines, its records not yet written (``_as_line``, ``_as_text``).

    ``numbered`` (the token view, ``stages/align_tokens.py``) writes the
    entities of the manual-check line; spurious records then keep their
    numbered text.
    """
    cd_nodes = _document_items(cd_doc, cd_path, xml)
    run_nodes = _document_items(run_doc, run_path, xml)
    keys: dict[str, None] = {}
    _collect_markable(cd_nodes, keys)
    cd_entities, cd_counts = _number_entities(cd_nodes, keys, xml)
    run_entities, run_counts = _number_entities(run_nodes, keys, xml)
    potential: list[str] = []
    if check_counts:
        # The keys counted differently, in the hash order of the table of all keys
        # (a stable sort by bucket: a subset keeps its order in the whole).
        differing = [key for key in keys if cd_counts[key] != run_counts[key]]
        if differing:
            potential = java_hash_order(differing, size=len(keys))
    alignment = _align_numbered(cd_entities, run_entities, potential)
    lines: list[_RecordItem | Line] = []
    if alignment.faults:
        lines.append(_manual_check(alignment.faults, numbered))
    lines.extend(_record_items(alignment, xml, numbered is not None))
    return lines


# ---------------------------------------------------------------------------
# Collections


def _is_empty(doc: Document | RawDocument) -> bool:
    if isinstance(doc, RawDocument):  # no tag inside, and blank text
        return "<" not in doc.content and not java_trim(doc.content)
    return not java_trim(doc.text) and not (
        doc.entities or doc.alt_blocks or doc.paragraphs or doc.omitted or doc.omitted_entities
    )


def _document_block(
    cd_doc: Document | RawDocument, run_doc: Document | RawDocument, xml: bool, body: list[Line]
) -> list[Line]:
    if xml:
        return [DocStart(run_doc.docid), *body, DocEnd(), Blank(), Blank()]
    assert isinstance(cd_doc, Document) and isinstance(run_doc, Document)  # as written: XML only
    variant = cd_doc.variant or run_doc.variant or "?"
    genre = cd_doc.genre or run_doc.genre or "?"
    return [DocumentLine(cd_doc.docid, variant, genre), *body, Blank(), Blank()]


def _bare(doc: Document) -> Document:
    """The CD document's text with no annotation: what a run that lacks it is taken to say."""
    return Document(
        docid=doc.docid,
        text=doc.text,
        paragraphs=doc.paragraphs,
        variant=doc.variant,
        genre=doc.genre,
    )


def align_collections(cd: Collection, run: Collection) -> AlignmentResult:
    """Align every document of ``run`` with the CD document of the same DOCID."""
    if cd.format != run.format:
        raise InputError(run.path, f"a run in the {cd.format} format of the CD", run.format)
    xml = cd.format != FIRST_HAREM
    lines: list[Line] = [
        Header(" " + os.path.basename(run.path)),
        Header(" " + os.path.basename(cd.path)),
    ]
    warnings: list[str] = []
    remaining: dict[str, Document] = {}
    for doc in cd.documents:
        remaining[java_trim(doc.docid)] = doc
    table_size = len(remaining)
    for run_doc in progress(run.documents, os.path.basename(run.path), "doc"):
        cd_doc = remaining.pop(java_trim(run_doc.docid), None)
        if cd_doc is None:
            warnings.append(MISSING_DOCUMENT + run_doc.docid)
            continue
        if _is_empty(run_doc):
            warnings.append(IGNORED_DOCUMENT + run_doc.docid)
            continue
        body = align_documents(cd_doc, run_doc, xml, cd.path, run.path)
        lines.extend(_document_block(cd_doc, run_doc, xml, body))
    if remaining:
        warnings.append(RUN_MISSING_DOCUMENTS)
        warnings.extend(java_hash_order(list(remaining), size=table_size))
        for cd_doc in remaining.values():
            body = align_documents(cd_doc, _bare(cd_doc), xml, cd.path, run.path, False)
            lines.extend(_document_block(cd_doc, cd_doc, xml, body))
    return AlignmentResult(tuple(lines), tuple(warnings))


def output_encoding(cd: Collection) -> str:
    """The encoding the ``.alinhado`` is written in: the CD's (ISO-8859-1 for HAREM files)."""
    return cd.encoding


@dataclass(frozen=True, slots=True)
class AlignmentWritten:
    """What aligning two files gives besides the ``.alinhado``: the warnings, in order."""

    warnings: tuple[str, ...]


class DuplicateTrimmedDocid(Exception):
    """A CD DOCID equal, once trimmed, to one already paired: handled by reading whole files."""


# Characters of CD text held in memory while the run is behind the CD.
_PENDING_BUDGET = 1 << 22


class _Pending:
    """CD documents read ahead of the run, by trimmed DOCID, in CD order.

    The first ``budget`` characters of text stay in memory; past that the
    documents are pickled to a temporary file, so runs whose order differs
    from the CD's (or that lack many CD documents) keep memory flat.
    """

    def __init__(self, budget: int = 1 << 22) -> None:
        self._items: dict[str, Document | RawDocument | tuple[int, int]] = {}
        self._budget = budget
        self._held = 0
        self._spill: IO[bytes] | None = None

    def __contains__(self, key: str) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[str]:
        return list(self._items)

    def put(self, key: str, doc: Document | RawDocument) -> None:
        """Store ``doc``; a key already present keeps its place (as a dict does)."""
        old = self._items.get(key)
        if old is not None and not isinstance(old, tuple):
            self._held -= len(old.text)
        if self._held + len(doc.text) <= self._budget:
            self._items[key] = doc
            self._held += len(doc.text)
            return
        if self._spill is None:
            self._spill = tempfile.TemporaryFile()
        data = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
        self._spill.seek(0, os.SEEK_END)
        self._items[key] = (self._spill.tell(), len(data))
        self._spill.write(data)

    def pop(self, key: str) -> Document | RawDocument | None:
        item = self._items.pop(key, None)
        if item is None or not isinstance(item, tuple):
            if item is not None:
                self._held -= len(item.text)
            return item
        spill = cast(IO[bytes], self._spill)
        spill.seek(item[0])
        return pickle.loads(spill.read(item[1]))

    def drain(self) -> Iterator[Document | RawDocument]:
        """Every document left, in CD order, removing each."""
        for key in list(self._items):
            doc = self.pop(key)
            if doc is not None:
                yield doc

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()


class _CdReader:
    """The CD's documents on demand, by trimmed DOCID, reading the file only as far as needed."""

    def __init__(self, documents: Iterator[Document | RawDocument]) -> None:
        self._documents = documents
        self.pending = _Pending(_PENDING_BUDGET)
        self.seen: set[str] = set()

    def _keep(self, doc: Document | RawDocument) -> str:
        key = java_trim(doc.docid)
        if key in self.seen and key not in self.pending:
            raise DuplicateTrimmedDocid(key)
        self.seen.add(key)
        return key

    def take(self, key: str) -> Document | RawDocument | None:
        """The CD document for ``key``, or None when the CD has none (left)."""
        if key in self.pending:
            return self.pending.pop(key)
        if key in self.seen:
            return None
        for doc in self._documents:
            found = self._keep(doc)
            if found == key:
                return doc
            self.pending.put(found, doc)
        return None

    def finish(self) -> None:
        """Read the rest of the CD into ``pending``."""
        for doc in self._documents:
            self.pending.put(self._keep(doc), doc)


@dataclass(frozen=True, slots=True)
class DocumentPair:
    """One document pair to align: the CD's document, the run's, and how.

    ``run_doc`` None stands for a CD document the run lacks, aligned against
    its own bare text without comparing counts.  Documents may still be as
    written (``RawDocument``): they are parsed by ``pair_lines``.  A pair is
    all ``pair_lines`` needs, so pairs can be aligned in any process, in any
    order.
    """

    cd_doc: Document | RawDocument
    run_doc: Document | RawDocument | None
    xml: bool
    cd_path: str
    run_path: str


def _document_items(doc: Document | RawDocument, path: str, xml: bool) -> Sequence[_Item]:
    """What numbering reads of a document: its items when it is a plain one as written,
    else its tree's nodes."""
    if isinstance(doc, RawDocument):
        items = _plain_items(doc)
        if items is not None:
            return items
        doc = parse_raw_document(doc, path)
    return _build_document_tree(doc, path, xml)


def pair_lines(pair: DocumentPair) -> list[Line]:
    """The ``.alinhado`` block of one document pair (document line, records, blank lines)."""
    cd_doc, run_doc, check_counts = pair_documents(pair)
    body = _body_items(cd_doc, run_doc, pair.xml, pair.cd_path, pair.run_path, check_counts)
    return _document_block(cd_doc, run_doc, pair.xml, list(map(_as_line, body)))


def pair_text(pair: DocumentPair) -> str:
    """``format_lines(pair_lines(pair))``, its records written without building their lines."""
    cd_doc, run_doc, check_counts = pair_documents(pair)
    body = _body_items(cd_doc, run_doc, pair.xml, pair.cd_path, pair.run_path, check_counts)
    first, *rest = _document_block(cd_doc, run_doc, pair.xml, [])
    records = "".join([_as_text(item) + "\n" for item in body])  # every line ends in LF
    return format_lines([first]) + records + format_lines(rest)


def pair_documents(
    pair: DocumentPair,
) -> tuple[Document | RawDocument, Document | RawDocument, bool]:
    """The pair's two documents, and whether their counts are compared (a run document)."""
    if pair.run_doc is not None:
        return pair.cd_doc, pair.run_doc, True
    cd_doc = pair.cd_doc
    if isinstance(cd_doc, RawDocument):
        cd_doc = parse_raw_document(cd_doc, pair.cd_path)
    return cd_doc, _bare(cd_doc), False


class DocumentSource(Protocol):
    """A collection read one document at a time (parsed, or as written)."""

    path: str
    format: str
    documents: Iterator[Document] | Iterator[RawDocument]


def header_lines(cd: DocumentSource, run: DocumentSource) -> list[Line]:
    """The two ``#`` lines that open an ``.alinhado``: the run's and the CD's base names."""
    return [Header(" " + os.path.basename(run.path)), Header(" " + os.path.basename(cd.path))]


def _check_unaligned(doc: Document | RawDocument, path: str) -> None:
    """Parse a document left out of the alignment, for the errors the general reader finds in it.

    (The general reader reads every document of both files; a document as
    written is otherwise only parsed where it is aligned.)
    """
    if isinstance(doc, RawDocument):
        parse_raw_document(doc, path)


def document_pairs(
    cd: DocumentSource, run: DocumentSource, warnings: list[str]
) -> Iterator[DocumentPair]:
    """The document pairs of ``align_collections``, in its order, read one at a time.

    Warnings are appended to ``warnings`` as the documents are read.
    """
    xml = cd.format != FIRST_HAREM
    reader = _CdReader(cd.documents)
    try:
        for run_doc in progress(run.documents, os.path.basename(run.path), "doc"):
            cd_doc = reader.take(java_trim(run_doc.docid))
            if cd_doc is None:
                _check_unaligned(run_doc, run.path)
                warnings.append(MISSING_DOCUMENT + run_doc.docid)
                continue
            if _is_empty(run_doc):
                _check_unaligned(cd_doc, cd.path)
                warnings.append(IGNORED_DOCUMENT + run_doc.docid)
                continue
            yield DocumentPair(cd_doc, run_doc, xml, cd.path, run.path)
        reader.finish()
        remaining = reader.pending
        if len(remaining):
            warnings.append(RUN_MISSING_DOCUMENTS)
            warnings.extend(java_hash_order(remaining.keys(), size=len(reader.seen)))
            for cd_doc in remaining.drain():
                yield DocumentPair(cd_doc, None, xml, cd.path, run.path)
    finally:
        reader.pending.close()


def stream_blocks(
    cd: DocumentSource, run: DocumentSource, warnings: list[str]
) -> Iterator[list[Line]]:
    """``align_collections`` one document pair at a time (the same lines and warnings)."""
    yield header_lines(cd, run)
    for pair in document_pairs(cd, run, warnings):
        yield pair_lines(pair)
