"""Writing the run: the collection's documents with the predicted entities tagged."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from harem_pipeline.formats.harem_xml import format_collection
from harem_pipeline.model import FIRST_HAREM, Collection, Document, Entity
from harem_pipeline.tools.predictions.labels import Label
from harem_pipeline.tools.predictions.merge import ImportedDocument
from harem_pipeline.tools.predictions.placing import Placed


def run_entity(doc: Document, number: int, placed: Placed, fmt: str) -> Entity:
    """The model entity of a placed prediction (IDs ``<DOCID>-<n>``; none in First HAREM)."""
    label = placed.label
    return Entity(
        id=None if fmt == FIRST_HAREM else f"{doc.docid}-{number}",
        categories=label.categories,
        types=label.types,
        subtypes=label.subtypes,
        morf=None,
        text=doc.text[placed.start : placed.end],
        start=placed.start,
        end=placed.end,
    )


def run_document(imported: ImportedDocument, fmt: str) -> Document:
    """The run's document: the collection's text and paragraphs, the predicted entities."""
    doc = imported.document
    entities = tuple(run_entity(doc, n, p, fmt) for n, p in enumerate(imported.entities, 1))
    return Document(
        docid=doc.docid,
        text=doc.text,
        entities=entities,
        variant=doc.variant,
        genre=doc.genre,
        paragraphs=doc.paragraphs,
    )


def run_collection(info: Collection, documents: Iterable[Document]) -> Collection:
    """The run as a collection in the golden collection's format (no version: a run has none)."""
    return replace(info, documents=tuple(documents), version=None)


def _quote(value: str) -> str:
    return f"'{value}'" if '"' in value else f'"{value}"'


@lru_cache(maxsize=4096)
def _label_tags(label: Label, fmt: str) -> tuple[str, str]:
    """The start tag of a label but its ID (``<EM`` … ``>`` left to the caller) and the end tag.

    A run has few distinct labels and many entities: each label is written once.
    """
    cats, types, subs = label
    pairs = [("TIPO", "|".join(types)), ("SUBTIPO", "|".join(subs))]
    if fmt == FIRST_HAREM:
        name = "|".join(cats)
    else:
        name = "EM"
        pairs = [("CATEG", "|".join(cats)), *pairs]
    rendered = "".join(f" {key}={_quote(value)}" for key, value in pairs if value)
    if fmt == FIRST_HAREM:
        return f"<{name}{rendered}>", f"</{name}>"
    return f"{rendered}>", f"</{name}>"


def _entity_tags(doc: Document, placed: list[Placed], fmt: str) -> list[tuple[str, str]]:
    """The start and end tags of each placed entity of a document (IDs ``<DOCID>-<n>``)."""
    tags = [_label_tags(label, fmt) for _start, _end, label in placed]
    if fmt == FIRST_HAREM:
        return tags
    quote = _quote(doc.docid)[0]  # an ID is quoted as its DOCID is
    head = f"<EM ID={quote}{doc.docid}-"
    return [(f"{head}{n}{quote}{rest}", closing) for n, (rest, closing) in enumerate(tags, 1)]


def render_content(imported: ImportedDocument, fmt: str) -> str:
    """A run document's content, exactly as ``format_collection`` writes ``run_document``."""
    doc, placed = imported
    text = doc.text
    tags = _entity_tags(doc, placed, fmt)
    out: list[str] = []
    if not doc.paragraphs:
        pos = 0
        for (start, end, _label), (opening, closing) in zip(placed, tags, strict=True):
            out += [text[pos:start], opening, text[start:end], closing]
            pos = end
        out.append(text[pos:])
        return "".join(out)
    containers = sorted(doc.paragraphs, key=lambda c: (c[0], -c[1]))
    starts = {e.start: (e, tag) for e, tag in zip(placed, tags, strict=True)}
    offsets = sorted({0, len(text)} | {x for c in containers for x in c} | set(starts))
    stack: list[int] = []
    pos = 0
    for offset in offsets:
        if offset < pos:
            continue
        out.append(text[pos:offset])
        pos = offset
        while stack and stack[-1] == offset:
            stack.pop()
            out.append("</P>")
        here = [c for c in containers if c[0] == offset]
        out += ["<P></P>" for s, e in here if s == e]
        for s, e in here:
            if s < e:
                out.append("<P>")
                stack.append(e)
        if offset in starts:
            entity, (opening, closing) = starts[offset]
            out += [opening, text[entity.start : entity.end], closing]
            pos = entity.end
    return "".join(out)


def render_document(imported: ImportedDocument, fmt: str, newline: str) -> str:
    """One document of the run in the collection's format (see ``render_content``)."""
    doc = imported.document
    content = render_content(imported, fmt)
    if fmt != FIRST_HAREM:
        return f"<DOC DOCID={_quote(doc.docid)}>{content}</DOC>{newline}"
    lines = ["<DOC>", f"<DOCID>{doc.docid}</DOCID>"]
    if doc.genre is not None:
        lines.append(f"<GENERO>{doc.genre}</GENERO>")
    if doc.variant is not None:
        lines.append(f"<ORIGEM>{doc.variant}</ORIGEM>")
    lines += [f"<TEXTO>{content}</TEXTO>", "</DOC>"]
    return newline.join(lines) + newline


def run_frame(info: Collection) -> tuple[str, str]:
    """What comes before the first document of a run and after the last one."""
    empty = format_collection(run_collection(info, ()))
    if not empty:
        return "", ""
    closing = f"</{info.root}>{info.newline}"
    return empty[: len(empty) - len(closing)], closing
