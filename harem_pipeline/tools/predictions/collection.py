"""The collection as an import reads it, one document at a time (its text and paragraphs)."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import TextIO

from harem_pipeline.formats.harem_xml import parse_collection
from harem_pipeline.model import FIRST_HAREM, SECOND_HAREM, Collection, Document
from harem_pipeline.text.textio import detect_file_encoding, open_binary

# Elements the run needs from the collection (document structure, paragraphs,
# ALT blocks whose first alternative is the running text); every other tag
# (entities, OMITIDO) adds no character to the running text and is skipped
# before parsing, when it holds no line end (so line numbers stay right).
_CHUNK_CHARS = 1 << 20
_STRUCTURE = frozenset({"DOC", "DOCID", "GENERO", "ORIGEM", "TEXTO", "ALT", "P"})
_SKIPPABLE = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<ALT\s*>.*?</ALT\s*>"
    r"|<(/?)([^\s<>/=\"'!?]+)(?:[^<>\"'\n]|\"[^\"<\n]*\"|'[^'<\n]*')*>",
    re.DOTALL,
)
_ALT_WHOLE = re.compile(r"<ALT\s*>.*?</ALT\s*>", re.DOTALL)  # as _SKIPPABLE has them
_DOC_END = re.compile(r"</DOC\s*>")
_DOC_START = re.compile(r"<DOC[\s>]")
_START_TAG = re.compile(r"<([A-Za-z_][\w.-]*)(?:\s[^<>]*)?>")


# The attribute part has one parse (its branches start with different
# characters), so possessive loops match what plain ones would, in runs.
_ENTITY_TAG = re.compile(
    r"</?(?!(?:DOC|DOCID|GENERO|ORIGEM|TEXTO|ALT|P)[\s/>])[^\s<>/=\"'!?]+"
    r"(?:[^<>\"'\n]++|\"[^\"<\n]*+\"|'[^'<\n]*+')*+>"
)


def _skip_entity_tags(chunk: str) -> str:
    """``chunk`` without its entity tags, ALT blocks kept whole (``_SKIPPABLE``).

    Without comments or processing instructions, the text between ALT
    blocks is skipped by ``_ENTITY_TAG`` (no tag holds a ``<``, so none
    reaches into a block): the same text, without a call per tag.
    """
    if "<!--" not in chunk and "<?" not in chunk:
        if "<ALT" not in chunk:
            return _ENTITY_TAG.sub("", chunk)
        pieces, pos = [], 0
        for block in _ALT_WHOLE.finditer(chunk):
            pieces += [_ENTITY_TAG.sub("", chunk[pos : block.start()]), block.group()]
            pos = block.end()
        pieces.append(_ENTITY_TAG.sub("", chunk[pos:]))
        return "".join(pieces)

    def keep(match: re.Match[str]) -> str:
        name = match.group(2)
        return match.group(0) if name is None or name in _STRUCTURE else ""

    return _SKIPPABLE.sub(keep, chunk)


def _parse_chunk(
    chunk: str, path: str, encoding: str, first_line: int, head: int = 0, closing: str = ""
) -> Collection:
    """Parse a piece of the collection file (its first ``head`` characters kept as they are)."""
    text = chunk[:head] + _skip_entity_tags(chunk[head:]) + closing
    return _parse_skipped(text, path, encoding, first_line)


def _parse_skipped(text: str, path: str, encoding: str, first_line: int) -> Collection:
    """Parse a piece of the collection file (starting on ``first_line``) whose entity
    tags are already skipped; every line it names is the file's."""
    return parse_collection(text, path, encoding, first_line=first_line)


def open_collection_text(path: str | os.PathLike[str]) -> TextIO:
    """A collection file as a text stream in its encoding, line ends kept (``.gz`` allowed)."""
    encoding = detect_file_encoding(path)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline="")


def iter_collection_documents(
    path: str | os.PathLike[str],
) -> tuple[Collection, Iterator[Document]]:
    """The collection's description (no documents) and its documents, read one at a time.

    The documents carry the running text and paragraphs of the collection
    (so ``text`` equals ``read_collection``'s), which is all a run takes
    from it; their plain and omitted entities are not read, nor the ALT
    blocks that are only text and entities (taken as their first
    alternative's text), which is what makes this fast.  Memory holds a
    1 MiB chunk of the file and one document.
    """
    name = str(path)
    handle = open_collection_text(path)
    encoding = handle.encoding
    try:
        buffer = ""
        while not _DOC_END.search(buffer):
            chunk = handle.read(_CHUNK_CHARS)
            if not chunk:
                break
            buffer += chunk
        end = _DOC_END.search(buffer)
        if end is None:
            handle.close()
            collection = parse_collection(buffer, name, encoding)  # raises on a bad file
            return replace(collection, documents=()), iter(collection.documents)
        start = _DOC_START.search(buffer)
        head = buffer[: start.start()] if start else ""
        roots = [m.group(1) for m in _START_TAG.finditer(head)]
        closing = f"</{roots[-1]}>" if roots else ""
        first = _parse_chunk(buffer[: end.end()], name, encoding, 1, len(head), closing)
    except BaseException:
        handle.close()
        raise
    info = replace(first, documents=(), version=None, path=name)
    rest = buffer[end.end() :]
    line = 1 + buffer.count("\n", 0, end.end())
    documents = _documents(handle, first.documents, rest, line, name, encoding, info.format)
    return info, documents


def _documents(
    handle: TextIO,
    first: tuple[Document, ...],
    buffer: str,
    line: int,
    path: str,
    encoding: str,
    fmt: str,
) -> Iterator[Document]:
    with handle:
        yield from first
        pos = 0
        while True:
            end = _DOC_END.search(buffer, pos)
            if end is None:
                chunk = handle.read(_CHUNK_CHARS)
                if not chunk:
                    return
                buffer = buffer[pos:] + chunk
                pos = 0
                continue
            piece = buffer[pos : end.end()]
            yield from _chunk_documents(piece, path, encoding, line, fmt)
            line += piece.count("\n")
            pos = end.end()


# A document whose content, entity tags skipped, is plain text: read at once.
_PLAIN_SECOND = re.compile(
    r"(\s*)<DOC\s+DOCID\s*=\s*(?:\"([^\"<]*)\"|'([^'<]*)')\s*>([^<]*)</DOC\s*>"
)
_PLAIN_FIRST = re.compile(
    r"(\s*)<DOC>\s*<DOCID>([^<]*)</DOCID>\s*(?:<GENERO>([^<]*)</GENERO>\s*)?"
    r"(?:<ORIGEM>([^<]*)</ORIGEM>\s*)?<TEXTO>([^<]*)</TEXTO>\s*</DOC\s*>"
)


def _chunk_documents(
    piece: str, path: str, encoding: str, line: int, fmt: str = ""
) -> Iterator[Document]:
    """The document of one ``...</DOC>`` piece of the collection file (``fmt``: the
    collection's format, which tells which ALT blocks ``_first_alternatives`` may read)."""
    skipped = _skip_entity_tags(piece)
    flat = _first_alternatives(skipped, fmt) if "<ALT" in skipped else skipped
    document = None if flat is None else _plain_document(flat, line)
    if document is not None:
        yield document
        return
    yield from _parse_skipped(skipped, path, encoding, line).documents


def _plain_document(skipped: str, line: int) -> Document | None:
    """The document of a piece whose content, entity tags skipped, is plain text; else None."""
    plain = _PLAIN_SECOND.fullmatch(skipped)
    if plain is not None and (plain.group(2) or plain.group(3)):
        docid = plain.group(2) if plain.group(2) is not None else plain.group(3)
        at = line + plain.group(1).count("\n")
        return Document(docid=docid, text=plain.group(4), line=at)
    plain = _PLAIN_FIRST.fullmatch(skipped)
    if plain is not None and plain.group(2).strip():
        genre, variant = plain.group(3), plain.group(4)
        return Document(
            docid=plain.group(2).strip(),
            text=plain.group(5),
            variant=variant.strip() if variant is not None else None,
            genre=genre.strip() if genre is not None else None,
            line=line + plain.group(1).count("\n"),
        )
    return None


# An ALT block the collection reader reads without a doubt: text and entities
# (no MORF, no "|" in their text, tags as the reader's own expression has
# them) -- its first alternative is its text up to the first "|".  Entities
# are EM in a Second HAREM file, any other name in a First HAREM one.
_ATTRIBUTES = r"""(?:\s+[^\s=<>"']+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*\s*"""
_ALT_ENTITY_PATTERNS = {
    SECOND_HAREM: rf"<EM{_ATTRIBUTES}>(?P<text>[^<]*+)</EM\s*>",
    FIRST_HAREM: rf"<(?P<name>(?!(?:ALT|OMITIDO|P)[\s>])[^\s<>/=\"']+){_ATTRIBUTES}>"
    r"(?P<text>[^<]*+)</(?P=name)\s*>",
}
_ALT_ENTITY = {fmt: re.compile(entity) for fmt, entity in _ALT_ENTITY_PATTERNS.items()}
_SIMPLE_ALT = {
    fmt: re.compile(rf"<ALT\s*>((?:[^<]++|{entity})*+)</ALT\s*>")
    for fmt, entity in _ALT_ENTITY_PATTERNS.items()
}


def _first_alternatives(skipped: str, fmt: str) -> str | None:
    """A piece whose entity tags are skipped, each simple ALT block (``_SIMPLE_ALT``)
    of its document's content written as its first alternative's text.

    None when there is no such reading (an unknown format, a document
    without ``<DOC``...``</DOC`` or ``<TEXTO>``...``</TEXTO>``).  A block
    that is not simple is left as it is, and so is any other markup: the
    piece is plain text only when every tag left was such a block.
    """
    block = _SIMPLE_ALT.get(fmt)
    if fmt == FIRST_HAREM:
        start = skipped.find("<TEXTO>")
        end = skipped.find("</TEXTO>", start)
    else:
        start, end = skipped.find("<DOC"), skipped.rfind("</DOC")
    if block is None or start < 0 or end < 0:
        return None
    entity = _ALT_ENTITY[fmt]

    def first(match: re.Match[str]) -> str:
        content = match.group(1)
        if "MORF" in content:
            return match.group(0)
        texts = [found.group("text") for found in entity.finditer(content)]
        if any("|" in text for text in texts):
            return match.group(0)
        alternatives = entity.sub(r"\g<text>", content).split("|")
        return alternatives[0] if len(alternatives) > 1 else match.group(0)

    return skipped[:start] + block.sub(first, skipped[start:end]) + skipped[end:]
