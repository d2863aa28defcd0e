"""Reading and writing HAREM collections and runs (First and Second HAREM formats).

* First HAREM (2005): ``<DOC><DOCID>..</DOCID><GENERO>..</GENERO><ORIGEM>..</ORIGEM>
  <TEXTO>..</TEXTO></DOC>`` with no root element, CRLF line ends, entities
  named by their category (``<LOCAL TIPO="..." MORF="F,S">``, vague
  ``<A|B TIPO="t1|t2">``).
* Second HAREM (2008): ``<colHAREM><DOC DOCID=".."><P>..</P></DOC></colHAREM>``
  with ``<EM ID CATEG TIPO SUBTIPO ...>`` entities (a run may use another root,
  e.g. ``<COL>``, and no ``<P>``).

Both share ``<ALT>seg1|seg2</ALT>`` and ``<OMITIDO>..</OMITIDO>``.

Why a tag scanner and not an XML parser: the First HAREM file is not
well-formed XML (no root element, ``&`` unescaped in text), the Second HAREM
files declare DTDs we must never fetch, and the offsets every later stage
uses must point into the characters as written.  So tags are found with a
regular expression over ``<...>``, character data is kept verbatim (``&amp;``
stays ``&amp;``: nothing is expanded) and the DOCTYPE, processing
instructions and comments are skipped.  Every problem becomes one
``InputError`` naming the file, line and DOCID.
"""

from __future__ import annotations

import codecs
import operator
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_meta import MetaData, read_meta
from harem_pipeline.model import (
    EM_TAG,
    FIRST_HAREM,
    SECOND_HAREM,
    AltBlock,
    Collection,
    CollectionFormat,
    Document,
    Entity,
    Morf,
    entity_of_fields,
    read_entity_fields,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.memo import KeyedTable
from harem_pipeline.text.textio import decode, detect_file_encoding, open_binary, read_bytes

# An element of text alone that may be an entity (no structure element's
# name), ``<NAME attributes>text</NAME>``, is the most common thing in a
# collection; a run of them with the text between (``_Run``) is read as one
# match, and its elements, when a document's content wants them, by one
# ``findall`` (``_RUN_ITEM``).  Their tags are those the other alternatives
# would give one by one, so the run is the tokens it stands for.
_ELEMENT_NAME = (
    r"<(?!(?:DOC|DOCID|GENERO|ORIGEM|TEXTO|ALT|OMITIDO|P)[\s/>])(?P<name>[^\s<>/=\"'!?]++)"
)
# The attributes as ``_TAG`` reads them (the loops possessive: each branch starts apart).
_ELEMENT_ATTRIBUTES = r"(?:\s++[^\s=<>]++\s*+=\s*+(?:\"[^\"<]*+\"|'[^'<]*+'))*+"
_RUN = rf"(?:{_ELEMENT_NAME}{_ELEMENT_ATTRIBUTES}\s*+>[^<]*+</(?P=name)>[^<]*+)++"
# An element of the run (start tag, name, attributes, text) and the text after it.
_RUN_ITEM = re.compile(
    rf"({_ELEMENT_NAME}({_ELEMENT_ATTRIBUTES})\s*+>)([^<]*+)</(?P=name)>([^<]*+)"
)
_RUN_TAG = re.compile(r"<(?:[^<>\"']++|\"[^\"<]*+\"|'[^'<]*+')*+>")
_NOT_EM = re.compile(r"<(?!/?EM[\s>])")

# Markup the scanner skips or reads: comments, the DOCTYPE (with an internal
# subset whose declarations contain their own ``<...>``), processing
# instructions, then ordinary tags, whose quoted attribute values may hold a
# ``>`` (never a ``<``).  A ``>`` in character data is plain text: the First
# HAREM file has ``<OMITIDO>></OMITIDO>``.  A ``<`` that opens no tag is an error.
_MARKUP = re.compile(
    rf"({_RUN})|<!--.*?-->|<!DOCTYPE(?:[^\[>]|\[.*?\])*>|<\?.*?\?>"
    r"|<(?:[^<>\"']|\"[^\"<]*\"|'[^'<]*')*>|<",
    re.DOTALL,
)
_TAG = re.compile(r"<(/?)([^\s<>/=\"']+)((?:\s+[^\s=<>]+\s*=\s*(?:\"[^\"<]*\"|'[^'<]*'))*)\s*(/?)>")
_ATTRIBUTE = re.compile(r"([^\s=<>]+)\s*=\s*(\"[^\"]*\"|'[^']*')")

# First HAREM document header elements: their text becomes document metadata.
_FIRST_HEADER = ("DOCID", "GENERO", "ORIGEM")
_STRUCTURE = frozenset({"ALT", "OMITIDO", "P"})

# Tags without attributes recur (``<P>``, ``</EM>``, ``</DOC>``): read once each.
_PLAIN_TAG = re.compile(r"<(/?)([^\s<>/=\"']+)\s*(/?)>")
_CHUNK = 1 << 20
_EXCERPT = 40


# Tokens are plain slot classes, not frozen ones: one is built per tag and
# per text run, and a frozen dataclass costs about twice as much to build.
@dataclass(slots=True)
class _Tag:
    """One scanned tag: what the reader needs to place it."""

    name: str
    closing: bool
    empty: bool
    attributes: tuple[tuple[str, str], ...]
    line: int
    raw: str


@dataclass(slots=True)
class _Text:
    """Character data between tags, with its offset in the file and line."""

    text: str
    offset: int
    line: int


@dataclass(slots=True)
class _Run(_Text):
    """Elements of text alone and the text between and after them (``_RUN``), met in a
    document's content (``_Source.content``): never anywhere else."""


class _Source:
    """The file being read, scanned chunk by chunk into text and tags.

    Only a window of the text is held: what follows the last tag yielded,
    up to the end of the chunks read so far.  A tag's outcome is decided by
    the text up to the next ``<`` (attribute values hold no ``<``), so the
    window is scanned up to its last ``<``; a comment, DOCTYPE or processing
    instruction must also end inside it, else more text is read first.  So
    the tokens are those a scan of the whole text gives, and memory does
    not grow with the file.
    """

    def __init__(
        self, path: str, chunks: Iterator[str], read_size: int = _CHUNK, first_line: int = 1
    ) -> None:
        self.path = path
        self._read_size = read_size
        self._chunks = chunks
        self._window = ""
        self._base = 0  # file offset of the window's first character
        self._eof = False
        self._line = first_line  # line of the window's first character
        self.crlf = 0
        self.lf = 0
        self.blank = True  # only blanks and no markup so far
        self._last = ""
        self._plain: dict[str, _Tag] = {}
        # Set while a document's content is read: a run of elements of text alone is
        # then one token (``_Run``); elsewhere its tags and texts, each an error there.
        self.content = False
        self.entities = True  # False: no ``Entity`` is built, nor its attributes read
        # True: the text is a piece of the file (``cut_collection``), so a comment, DOCTYPE
        # or processing instruction it leaves unfinished may end past it: an error here.
        self.piece = False

    def _read(self, at_least: int = 0) -> bool:
        """Append the next chunks (at least ``at_least`` characters); False at the end."""
        parts: list[str] = []
        size = 0
        while not self._eof and (not parts or size < at_least):
            chunk = next(self._chunks, None)
            if chunk is None:
                self._eof = True
                break
            if not chunk:
                continue
            self.crlf += chunk.count("\r\n") + (self._last == "\r" and chunk[0] == "\n")
            self.lf += chunk.count("\n")
            self._last = chunk[-1]
            parts.append(chunk)
            size += len(chunk)
        if parts:
            self._window += "".join(parts)
        return bool(parts)

    def line_at_end(self) -> int:
        return self._line + self._window.count("\n")

    def excerpt(self, offset: int) -> str:
        """``_EXCERPT`` characters of the file from ``offset`` (inside the window)."""
        local = offset - self._base
        while len(self._window) < local + _EXCERPT and self._read():
            pass
        return self._window[local : local + _EXCERPT]

    def error(self, expected: str, found: str, line: int, docid: str | None = None) -> InputError:
        return InputError(self.path, expected, found, line=line, docid=docid)

    def tokens(self) -> Iterator[_Text | _Tag]:
        """Yield character data (``_Text``) and tags (``_Tag``) in file order."""
        pos = 0
        line = self._line
        while True:
            window = self._window
            final = self._eof
            limit = len(window) if final else window.rfind("<")
            for match in _MARKUP.finditer(window, pos):
                begin = match.start()
                # A run (``_RUN``) holds a "<" past its start, so it starts before the
                # window's last one; where the window cuts it, what follows is read as
                # more tokens, which reads the same.
                element = match.lastindex
                if not element:
                    raw = match.group(0)
                    if not final and (begin >= limit or (raw[1:2] in "!?" and not _complete(raw))):
                        break  # decided only by text not read yet
                    if self.piece and raw[1:2] in "!?" and not _complete(raw):
                        raise self.error("markup ending in this piece of the file", raw, line)
                if begin > pos:
                    text = window[pos:begin]
                    if self.blank and text.strip():
                        self.blank = False
                    yield _Text(text, self._base + pos, line)
                    line += window.count("\n", pos, begin)
                pos = match.end()
                self.blank = False
                if element:
                    run = _Run(match.group(1), self._base + begin, line)
                    if self.content:
                        yield run
                    else:
                        yield from self.run_tokens(run)
                    line += window.count("\n", begin, pos)
                    continue
                if raw[1:2] in "!?" and raw.startswith(("<!--", "<!DOCTYPE", "<?")):
                    line += raw.count("\n")
                    continue
                if raw == "<":
                    raise self.error("a tag after '<'", self.excerpt(self._base + begin), line)
                plain = self._plain.get(raw)
                if plain is not None:
                    yield _Tag(plain.name, plain.closing, plain.empty, (), line, raw)
                else:
                    yield self._tag(raw, line)
                if "\n" in raw:
                    line += raw.count("\n")
            else:
                if final:
                    break
            self._base += pos
            self._window = window[pos:]
            self._line = line
            pos = 0
            self._read(max(self._read_size, len(self._window)))
        if pos < len(window):
            text = window[pos:]
            if self.blank and text.strip():
                self.blank = False
            yield _Text(text, self._base + pos, line)

    def run_tokens(self, run: _Run) -> Iterator[_Text | _Tag]:
        """The tags and texts a run stands for, in order, each with its offset and line."""
        text = run.text
        line = run.line
        pos = 0
        for match in _RUN_TAG.finditer(text):
            begin = match.start()
            if begin > pos:
                yield _Text(text[pos:begin], run.offset + pos, line)
                line += text.count("\n", pos, begin)
            raw = match.group(0)
            yield self._tag(raw, line)
            line += raw.count("\n")
            pos = match.end()
        if pos < len(text):
            yield _Text(text[pos:], run.offset + pos, line)

    def _tag(self, raw: str, line: int) -> _Tag:
        plain = self._plain.get(raw)
        if plain is not None:
            return _Tag(plain.name, plain.closing, plain.empty, (), line, raw)
        tag = _read_tag(raw, line, self)
        if not tag.attributes and len(self._plain) < 256:
            self._plain[raw] = tag
        return tag


_AFTER_TAG = re.compile(r">([^<]*)")


def _run_text(run: str) -> str:
    """A run's text, its tags left out.

    When there are as many ``>`` as ``<``, each tag holds one ``>`` (its
    end) and no text holds any: the text is what follows each ``>``, found
    without reading a tag (twice as fast).
    """
    if run.count(">") != run.count("<"):
        return _RUN_TAG.sub("", run)
    return "".join(_AFTER_TAG.findall(run))


def _complete(raw: str) -> bool:
    """True when a ``<!...>``/``<?...>`` match is the whole construct, not a fallback."""
    if raw.startswith("<!--"):
        return len(raw) >= 7 and raw.endswith("-->")
    if raw.startswith("<?"):
        return len(raw) >= 4 and raw.endswith("?>")
    return raw.endswith(">")


_DOUBLE_QUOTED = re.compile(r"([^\s=<>]+)\s*=\s*\"([^\"]*)\"")


def _read_attributes(written: str) -> tuple[tuple[str, str], ...]:
    """The (name, value) pairs of a tag's attributes as written (values unquoted)."""
    if "'" not in written:
        return tuple(_DOUBLE_QUOTED.findall(written))
    return tuple((name, quoted[1:-1]) for name, quoted in _ATTRIBUTE.findall(written))


def _read_tag(raw: str, line: int, source: _Source) -> _Tag:
    if "\x00" in raw:  # no XML allows it; in an attribute it became part of the category
        raise source.error("a tag without NUL characters", raw, line)
    plain = _PLAIN_TAG.fullmatch(raw)
    if plain is not None:
        closing = plain.group(1) == "/"
        empty = plain.group(3) == "/"
        if closing and empty:
            raise source.error("a plain closing tag", raw, line)
        return _Tag(plain.group(2), closing, empty, (), line, raw)
    tag = _TAG.fullmatch(raw)
    if tag is None:
        raise source.error("a well-formed tag", raw, line)
    attributes = _read_attributes(tag.group(3))
    closing = tag.group(1) == "/"
    empty = tag.group(4) == "/"
    if closing and (attributes or empty):
        raise source.error("a plain closing tag", raw, line)
    return _Tag(tag.group(2), closing, empty, attributes, line, raw)


# ---------------------------------------------------------------------------
# Document content


@dataclass(slots=True)
class _Frame:
    """An element open while reading a document's content."""

    tag: _Tag
    start: int
    kind: str  # "P", "OMITIDO", "ALT", "ENTITY"
    texts: list[list[str]] = field(default_factory=list)
    entities: list[list[Entity]] = field(default_factory=list)
    alt_lengths: list[int] = field(default_factory=list)
    inner_paragraph_end: int = -1  # an OMITIDO's child P starting where it starts


EntityReading = tuple[str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...], Morf | None]
"""What ``read_entity_fields`` reads of a tag: (id, categories, types, subtypes, morf)."""


def _unlocated_fields(key: tuple[str, tuple[tuple[str, str], ...]]) -> EntityReading:
    return read_entity_fields(*key)


# ``read_entity_fields`` of a tag whose first attribute is its ID, by the tag's name and
# its other attributes: nearly every such reading recurs (the categories, types and
# MORF of a collection are few), so each is read once.  A reading that fails is not
# kept: it is read again where it was met, for the error's place.
_READINGS: KeyedTable[tuple[str, tuple[tuple[str, str], ...]], EntityReading]
_READINGS = KeyedTable(_unlocated_fields, 4096)


def _entity_fields(
    name: str, values: tuple[tuple[str, str], ...], path: str, line: int, docid: str | None
) -> EntityReading:
    """``read_entity_fields(name, values, path, line, docid)``, its recurring part read once."""
    if not values or values[0][0] != "ID":
        return read_entity_fields(name, values, path, line, docid)
    try:
        found = _READINGS[name, values[1:]]
    except InputError:
        read_entity_fields(name, values[1:], path, line, docid)  # the error, in its place
        raise
    if found[0] is None:  # the ID is the first attribute's (a later ID would be read instead)
        return (values[0][1], *found[1:])
    return found


def _written_reading(key: tuple[str, str]) -> tuple[tuple[tuple[str, str], ...], EntityReading]:
    name, written = key
    rest = _read_attributes(written) if written else ()
    return rest, read_entity_fields(name, rest)


# An entity tag's attributes as written, its first the ID (quoted plainly): the rest,
# as written, recurs (the categories, types and MORF of a collection are few).
_LEADING_ID = re.compile(r"\s+ID=\"([^\"']*)\"")
_WRITTEN_READINGS = KeyedTable(_written_reading, 4096)


def _written_entity(
    name: str, written: str, path: str, line: int, docid: str | None
) -> tuple[tuple[tuple[str, str], ...], EntityReading]:
    """``(_read_attributes(written), _entity_fields(name, that, ...))`` for an entity tag
    of a run, its attributes after a leading ID read once for every tag that writes them
    alike (``_read_attributes`` of the whole is the ID's pair and those of the rest)."""
    lead = _LEADING_ID.match(written)
    if lead is None:
        values = _read_attributes(written) if written else ()
        return values, _entity_fields(name, values, path, line, docid)
    after_id = written[lead.end() :]
    try:
        found = _WRITTEN_READINGS[name, after_id]
    except InputError:
        rest = _read_attributes(after_id) if after_id else ()
        read_entity_fields(name, rest, path, line, docid)  # the error, in its place
        raise
    rest, fields = found
    identifier = lead.group(1)
    if fields[0] is None:  # the ID is the first attribute's (a later ID would be read instead)
        fields = (identifier, *fields[1:])
    return (("ID", identifier), *rest), fields


@dataclass(slots=True)
class _Builder:
    """Accumulates one document's running text and annotation."""

    source: _Source
    docid: str | None
    entity_is: str  # "EM" for Second HAREM, "*" for First HAREM (any other name)
    parts: list[str] = field(default_factory=list)
    size: int = 0
    stack: list[_Frame] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    omitted_entities: list[Entity] = field(default_factory=list)
    alt_blocks: list[AltBlock] = field(default_factory=list)
    omitted: list[tuple[int, int]] = field(default_factory=list)
    paragraphs: list[tuple[int, int]] = field(default_factory=list)
    omitted_outer: list[tuple[int, int]] = field(default_factory=list)
    alt: _Frame | None = None  # the open ALT block (the first, were they nested)
    omitted_depth: int = 0

    def _alt(self) -> _Frame | None:
        return self.alt

    def _position(self) -> int:
        """Offset of the next character in the running text (inside ALT: of that alternative)."""
        alt = self._alt()
        if alt is None:
            return self.size
        return alt.start + alt.alt_lengths[-1]

    def add_text(self, text: str) -> None:
        stack = self.stack
        inside_entity = bool(stack) and stack[-1].kind == "ENTITY"
        if inside_entity:
            stack[-1].texts[0].append(text)
        alt = self.alt
        if alt is None:
            self.parts.append(text)
            self.size += len(text)
            return
        pieces = [text] if inside_entity else text.split("|")
        for index, piece in enumerate(pieces):
            if index:
                alt.texts.append([])
                alt.entities.append([])
                alt.alt_lengths.append(0)
            alt.texts[-1].append(piece)
            alt.alt_lengths[-1] += len(piece)

    def take(self, token: _Text | _Tag, end: str) -> _Tag | None:
        """Read one token of the document's text; the closing ``end`` tag outside every
        element ends that text, and is handed back for the caller to finish it."""
        if isinstance(token, _Run):
            self.run(token)
        elif isinstance(token, _Text):
            self.add_text(token.text)
        elif token.name == end and token.closing and not self.stack:
            return token
        elif token.closing:
            self.close(token)
        else:
            self.open(token)
        return None

    def run(self, run: _Run) -> None:
        """A run of elements of text alone (``_Run``): outside entities, each an entity of
        this format, they are read at once (in an ALT, ``_alt_run``); else token by token."""
        stack = self.stack
        text = run.text
        if (
            (stack and stack[-1].kind == "ENTITY")
            or (self.entity_is == EM_TAG and _NOT_EM.search(text))
            or "\x00" in text
        ):
            for token in self.source.run_tokens(run):
                if isinstance(token, _Text):
                    self.add_text(token.text)
                elif token.closing:
                    self.close(token)
                else:
                    self.open(token)
            return
        if self.alt is not None:
            self._alt_run(run, self.alt)
            return
        parts = self.parts
        if not self.source.entities:
            plain = _run_text(text)
            parts.append(plain)
            self.size += len(plain)
            return
        found = self.omitted_entities if self.omitted_depth else self.entities
        source = self.source
        path, docid = source.path, self.docid
        line = run.line
        size = self.size
        for opening, name, attributes, inner, after in _RUN_ITEM.findall(text):
            # the tag's shape checked by the match, its attributes read as ``_read_tag`` reads them
            values, fields = _written_entity(name, attributes, path, line, docid)
            end = size + len(inner)
            found.append(entity_of_fields((*fields, inner, size, end, values, name, line)))
            parts += (inner, after)
            size = end + len(after)
            if "\n" in opening or "\n" in inner or "\n" in after:
                line += opening.count("\n") + inner.count("\n") + after.count("\n")
        self.size = size

    def _alt_run(self, run: _Run, alt: _Frame) -> None:
        """``run`` inside the ALT block ``alt``, as its tokens read: each entity in the
        alternative being read, the text after it split at ``|`` (``add_text``)."""
        source = self.source
        path, docid = source.path, self.docid
        line = run.line
        for opening, name, attributes, inner, after in _RUN_ITEM.findall(run.text):
            start = alt.start + alt.alt_lengths[-1]
            if source.entities:
                values, fields = _written_entity(name, attributes, path, line, docid)
                end = start + len(inner)
                entity = entity_of_fields((*fields, inner, start, end, values, name, line))
                alt.entities[-1].append(entity)
            alt.texts[-1].append(inner)
            alt.alt_lengths[-1] += len(inner)
            if after:
                self.add_text(after)
            if "\n" in opening or "\n" in inner or "\n" in after:
                line += opening.count("\n") + inner.count("\n") + after.count("\n")

    def _kind(self, name: str) -> str:
        if name in _STRUCTURE:
            return name
        if self.entity_is == "*" or name == EM_TAG:
            return "ENTITY"
        return ""

    def open(self, tag: _Tag) -> None:
        kind = self._kind(tag.name)
        if not kind:
            raise self._error("EM, ALT, OMITIDO or P", tag.raw, tag.line)
        if self.stack and self.stack[-1].kind == "ENTITY":
            inner = self.stack[-1].tag.raw
            raise self._error(f"text only inside entity {inner}", tag.raw, tag.line)
        alt = self._alt()
        if alt is not None and kind != "ENTITY":
            raise self._error("only entities inside ALT", tag.raw, tag.line)
        frame = _Frame(tag, self._position(), kind)
        if kind == "ALT":
            frame.texts, frame.entities, frame.alt_lengths = [[]], [[]], [0]
        elif kind == "ENTITY":
            frame.texts = [[]]
        self.stack.append(frame)
        if kind == "ALT" and self.alt is None:
            self.alt = frame
        elif kind == "OMITIDO":
            self.omitted_depth += 1
        if tag.empty:
            self.close(tag)

    def close(self, tag: _Tag) -> None:
        if not self.stack:
            raise self._error("an open element to close", tag.raw, tag.line)
        frame = self.stack[-1]
        if frame.tag.name != tag.name:
            expected = f"</{frame.tag.name}> (opened line {frame.tag.line})"
            raise self._error(expected, tag.raw, tag.line)
        self.stack.pop()
        if frame is self.alt:
            self.alt = None
        elif frame.kind == "OMITIDO":
            self.omitted_depth -= 1
        end = self._position()
        if frame.kind == "ENTITY":
            self._close_entity(frame, end)
        elif frame.kind == "ALT":
            self._close_alt(frame)
        elif frame.kind == "OMITIDO":
            self.omitted.append((frame.start, end))
            if frame.inner_paragraph_end == end:
                self.omitted_outer.append((frame.start, end))
        else:
            self.paragraphs.append((frame.start, end))
            parent = self.stack[-1] if self.stack else None
            if parent is not None and parent.kind == "OMITIDO" and parent.start == frame.start:
                parent.inner_paragraph_end = end

    def _close_entity(self, frame: _Frame, end: int) -> None:
        if not self.source.entities:
            return
        tag = frame.tag
        line = tag.line
        fields = _entity_fields(tag.name, tag.attributes, self.source.path, line, self.docid)
        text = "".join(frame.texts[0])
        entity = entity_of_fields((*fields, text, frame.start, end, tag.attributes, tag.name, line))
        alt = self._alt()
        if alt is not None:
            alt.entities[-1].append(entity)
        elif self.omitted_depth:
            self.omitted_entities.append(entity)
        else:
            self.entities.append(entity)

    def _close_alt(self, frame: _Frame) -> None:
        if len(frame.texts) < 2:
            raise self._error("'|' between ALT alternatives", "an ALT without '|'", frame.tag.line)
        texts = tuple("".join(parts) for parts in frame.texts)
        block = AltBlock(
            frame.start,
            frame.start + len(texts[0]),
            tuple(tuple(entities) for entities in frame.entities),
            texts,
            frame.tag.line,
        )
        self.alt_blocks.append(block)
        self.parts.append(texts[0])
        self.size += len(texts[0])

    def finish(self, line: int, found: str) -> None:
        """Check that nothing is left open where the document ends (at ``line``)."""
        if self.stack:
            frame = self.stack[-1]
            opened = frame.tag.line
            raise self._error(f"</{frame.tag.name}> for the tag opened line {opened}", found, line)

    def text(self) -> str:
        return "".join(self.parts)

    def _error(self, expected: str, found: str, line: int) -> InputError:
        return self.source.error(expected, found, line, self.docid)


# ---------------------------------------------------------------------------
# Collections


def read_collection(path: PathLike, meta_path: PathLike | None = None) -> Collection:
    """Read a HAREM collection or run (either format, ``.gz`` allowed).

    ``meta_path`` names a ``colSegundoHAREM-meta.xml`` giving each Second
    HAREM document its variant and genre.
    """
    decoded = decode(read_bytes(path), str(path))
    meta = read_meta(meta_path) if meta_path is not None else None
    return parse_collection(decoded.text, str(path), decoded.encoding, meta)


def parse_collection(
    text: str, path: str, encoding: str, meta: MetaData | None = None
) -> Collection:
    """Parse a collection's decoded text; the format is detected from its markup."""
    stream = _open_stream(iter((text,)), path, encoding, meta)
    documents = tuple(stream.documents)
    return Collection(
        path,
        stream.format,
        encoding,
        documents,
        stream.newline(),
        stream.root or "colHAREM",
        stream.version,
    )


@dataclass(slots=True)
class CollectionStream:
    """A collection read one document at a time (see ``open_collection``).

    ``format``, ``root`` and ``version`` are known from the first tag;
    ``documents`` yields each document as soon as its ``</DOC>`` is read and
    raises ``InputError`` where the file goes wrong, so a consumer may have
    handled earlier documents before an error surfaces.
    """

    path: str
    format: CollectionFormat
    encoding: str
    root: str | None
    version: str | None
    documents: Iterator[Document]
    source: _Source

    def newline(self) -> str:
        """The line end most lines use (known once ``documents`` is exhausted)."""
        return "\r\n" if self.source.crlf * 2 > self.source.lf else "\n"


def open_collection(
    path: PathLike,
    meta_path: PathLike | None = None,
    entities: bool = True,
) -> CollectionStream:
    """Open a HAREM collection or run for reading document by document.

    The same documents, in the same order, as ``read_collection``, with the
    text decoded chunk by chunk, so memory holds one document at a time.
    With ``entities`` False the documents hold their text, paragraphs and
    regions but no entity (nor any in their ALT blocks): the markup is read
    and checked the same, but no ``Entity`` is built nor its attributes
    read, for a reader that needs only the text (``harem import``).
    """
    name = str(path)
    encoding = detect_file_encoding(path)
    meta = read_meta(meta_path) if meta_path is not None else None
    return _open_stream(_decoded_chunks(path, encoding), name, encoding, meta, entities=entities)


# ---------------------------------------------------------------------------
# Documents as written, read where they are used


@dataclass(frozen=True, slots=True)
class DocumentSlice:
    """One document of a file as written, not read yet: ``read_document`` reads it.

    ``data`` runs from the document's ``<DOC`` to the next one's (what is
    between them included; the last ends where the root element's end tag
    starts, or at the end of the file).  ``docid`` is the DOCID as the
    reader reads it, ``line`` the file line of the ``<DOC``; the rest is
    what reading it needs of the file, so it can be read in any process.
    """

    docid: str
    data: bytes
    line: int
    path: str
    encoding: str
    format: CollectionFormat
    meta: tuple[str | None, str | None] | None = None


@dataclass(frozen=True, slots=True)
class CutCollection:
    """A collection cut into documents as written (see ``cut_collection``)."""

    path: str
    format: CollectionFormat
    encoding: str
    documents: Iterator[DocumentSlice]


class NotCut(InputError):
    """A file ``cut_collection`` does not cut: ``open_collection`` reads it, naming any fault."""

    def __init__(self, path: str, found: str) -> None:
        super().__init__(path, "documents as cut_collection cuts them", found)


# Where a document starts, in a file's bytes; a start tag cut_collection takes whole.
_DOC_START = re.compile(rb"<DOC[\s>/]")
_SECOND_DOC_TAG = re.compile(rb'<DOC DOCID="([^"<]*)">')
_FIRST_DOC_HEAD = re.compile(rb"<DOC>\s*<DOCID>([^<]*)</DOCID>")
_CUT_ENCODINGS = frozenset({"iso8859-1", "latin-1", "utf-8", "utf-8-sig", "ascii", "cp1252"})


def cut_collection(path: PathLike, meta_path: PathLike | None = None) -> CutCollection:
    """A collection's documents as written, found without reading them, one at a time.

    Only where each ``<DOC`` starts is looked for (in the bytes), with the
    DOCID of its start tag; each document is read by ``read_document``, the
    reader ``open_collection`` runs, on that document's text alone; what is
    around the documents (declaration, DOCTYPE, root element, comments) is
    read by the same reader here.  So a valid file gives the documents
    ``open_collection`` gives.  A file cut wrongly, or any fault, raises an
    ``InputError`` here or where a document is read: the file is then to be
    read by ``open_collection``, which names the fault (a ``NotCut`` when
    this cut alone is refused).
    """
    name = str(path)
    encoding = detect_file_encoding(path)
    meta = read_meta(meta_path) if meta_path is not None else None
    if encoding not in _CUT_ENCODINGS:
        raise NotCut(name, f"encoding {encoding}")
    chunks = _byte_chunks(path, _CHUNK)
    window = b""
    start = None
    for chunk in chunks:
        window += chunk
        start = _DOC_START.search(window)
        if start is not None:
            break
    if start is None:
        raise NotCut(name, "no <DOC")
    prologue = window[: start.start()].decode(encoding)
    root = _frame_root(prologue, name)
    first = root is None and start.group(0) == b"<DOC>"
    fmt: CollectionFormat = FIRST_HAREM if first else SECOND_HAREM
    line = 1 + prologue.count("\n")
    documents = _cut_documents(
        window[start.start() :], chunks, line, root, prologue, name, encoding, fmt, meta
    )
    return CutCollection(name, fmt, encoding, documents)


def _byte_chunks(path: PathLike, size: int = _CHUNK) -> Iterator[bytes]:
    with open_binary(path) as handle:
        try:
            while data := handle.read(size):
                yield data
        except (OSError, EOFError) as exc:
            raise InputError(str(path), "a readable file", f"{type(exc).__name__}: {exc}") from None


def _cut_documents(
    window: bytes,
    chunks: Iterator[bytes],
    line: int,
    root: str | None,
    prologue: str,
    path: str,
    encoding: str,
    fmt: CollectionFormat,
    meta: MetaData | None,
) -> Iterator[DocumentSlice]:
    """The documents of ``window`` (starting at a ``<DOC``) and the chunks after it.

    (The window is cut only when a chunk is added: cutting it after every
    document would copy the rest of the chunk once a document.)
    """
    seen: set[str] = set()
    docid_tag = _FIRST_DOC_HEAD if fmt == FIRST_HAREM else _SECOND_DOC_TAG
    begin = 0  # where the next document starts in the window
    more = True
    while True:
        after = _DOC_START.search(window, begin + 1)
        while after is None and more:
            chunk = next(chunks, None)
            if chunk is None:
                more = False
                break
            searched = len(window) - begin
            window = window[begin:] + chunk
            begin = 0
            after = _DOC_START.search(window, max(1, searched - 4))
        end = len(window) if after is None else after.start()
        data = window[begin:end]
        epilogue = b""
        if after is None and root is not None:  # the last document: the root's end follows it
            closing = data.find(b"</" + root.encode(encoding), data.rfind(b"</DOC"))
            if closing < 0:
                raise NotCut(path, f"no </{root}> after the last document")
            data, epilogue = data[:closing], data[closing:]
        tag = docid_tag.match(data)
        if tag is None:
            raise NotCut(path, f"a document start {data[:40]!r}")
        docid = tag.group(1).decode(encoding)
        if fmt == FIRST_HAREM:
            docid = docid.strip()
        if docid in seen:
            raise NotCut(path, f"DOCID {docid} again")
        seen.add(docid)
        found = None if meta is None or fmt == FIRST_HAREM else meta.get(docid)
        yield DocumentSlice(docid, data, line, path, encoding, fmt, found)
        if after is None:
            break
        line += data.count(b"\n")
        begin = end
    if root is not None:
        _read_frame(prologue, epilogue.decode(encoding), path)


def _frame_root(prologue: str, path: str) -> str | None:
    """The name of the root element opened before the first ``<DOC`` (None: no root)."""
    source = _Source(path, iter((prologue,)))
    source.piece = True
    for token in source.tokens():
        if isinstance(token, _Tag):
            if token.closing or token.name == "DOC":
                raise NotCut(path, token.raw)
            return token.name
        _require_blank(token, source, "before the first <DOC>")
    return None


def _read_frame(prologue: str, epilogue: str, path: str) -> None:
    """Read what is around the documents, as ``open_collection`` reads it."""
    source = _Source(path, iter((prologue, epilogue)))
    source.piece = True
    tokens = source.tokens()
    root = _first_tag(tokens, source)
    for _ in _read_second_harem(None, tokens, source, None, root=root):
        raise NotCut(path, "a document in the frame")


def read_document(piece: DocumentSlice) -> Document:
    """The ``Document`` ``open_collection`` reads for ``piece`` (see ``cut_collection``)."""
    try:
        text = piece.data.decode(piece.encoding)
    except UnicodeDecodeError:
        raise NotCut(piece.path, f"text in {piece.encoding}") from None
    meta = None if piece.meta is None else {piece.docid: piece.meta}
    stream = _open_stream(
        iter((text,)), piece.path, piece.encoding, meta, first_line=piece.line, piece=True
    )
    documents = list(stream.documents)
    if stream.format != piece.format or [d.docid for d in documents] != [piece.docid]:
        raise NotCut(piece.path, f"document {piece.docid} read otherwise")
    return documents[0]


def _decoded_chunks(path: PathLike, encoding: str, size: int = _CHUNK) -> Iterator[str]:
    """The file's text in chunks; an undecodable byte is reported as ``decode`` does."""
    decoder = codecs.getincrementaldecoder(encoding)()
    with open_binary(path) as handle:
        try:
            while True:
                data = handle.read(size)
                if not data:
                    break
                yield decoder.decode(data)
            yield decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            decode(read_bytes(path), str(path))  # raises the whole-file message
            raise
        except (OSError, EOFError) as exc:
            raise InputError(str(path), "a readable file", f"{type(exc).__name__}: {exc}") from None


def _open_stream(
    chunks: Iterator[str],
    path: str,
    encoding: str,
    meta: MetaData | None,
    read_size: int = _CHUNK,
    first_line: int = 1,
    entities: bool = True,
    piece: bool = False,
) -> CollectionStream:
    source = _Source(path, chunks, read_size, first_line)
    source.entities = entities
    source.piece = piece
    tokens = source.tokens()
    first = _first_tag(tokens, source)
    if first.name == "DOC" and not first.attributes:
        documents = _read_first_harem(first, tokens, source)
        return CollectionStream(path, FIRST_HAREM, encoding, None, None, documents, source)
    if first.name == "DOC":
        documents = _read_second_harem(first, tokens, source, meta, root=None)
        return CollectionStream(path, SECOND_HAREM, encoding, None, None, documents, source)
    version = dict(first.attributes).get("versao")
    documents = _read_second_harem(None, tokens, source, meta, root=first)
    return CollectionStream(path, SECOND_HAREM, encoding, first.name, version, documents, source)


def _first_tag(tokens: Iterator[_Text | _Tag], source: _Source) -> _Tag:
    for token in tokens:
        if isinstance(token, _Tag):
            if token.closing:
                raise source.error("a <DOC> or root element", token.raw, token.line)
            return token
        _require_blank(token, source, "before the first <DOC>")
    if source.blank:
        raise InputError(source.path, "a HAREM collection", "an empty file")
    raise InputError(source.path, "a <DOC> or root element", "no tags at all")


def _require_blank(token: _Text, source: _Source, where: str, docid: str | None = None) -> None:
    """Character data outside the documents' text must be blank."""
    if token.text.strip():
        skipped = len(token.text) - len(token.text.lstrip())
        line = token.line + token.text.count("\n", 0, skipped)
        found = source.excerpt(token.offset + skipped)
        raise source.error(f"only tags {where}", found, line, docid)


def _read_first_harem(
    first: _Tag, tokens: Iterator[_Text | _Tag], source: _Source
) -> Iterator[Document]:
    seen: set[str] = set()
    doc_tag: _Tag | None = first
    while doc_tag is not None:
        document = _read_first_document(doc_tag, tokens, source)
        if document.docid in seen:
            raise source.error(
                "a DOCID used once", f"{document.docid} again", doc_tag.line, document.docid
            )
        seen.add(document.docid)
        yield document
        doc_tag = None
        for token in tokens:
            if isinstance(token, _Text):
                _require_blank(token, source, "between documents")
                continue
            if token.name != "DOC" or token.closing:
                raise source.error("<DOC>", token.raw, token.line)
            doc_tag = token
            break


def _read_first_document(
    doc_tag: _Tag, tokens: Iterator[_Text | _Tag], source: _Source
) -> Document:
    header: dict[str, str] = {}
    builder: _Builder | None = None
    text_done = False
    current: _Tag | None = None  # an open header element
    value: list[str] = []
    docid = None
    for token in tokens:
        if builder is not None:
            end = builder.take(token, "TEXTO")
            if end is not None:
                builder.finish(end.line, end.raw)
                text_done = True
                text_builder, builder = builder, None
                source.content = False
            continue
        if isinstance(token, _Text):
            if current is not None:
                value.append(token.text)
            else:
                _require_blank(token, source, "in a <DOC> outside <TEXTO>", docid)
            continue
        if current is not None:
            if not (token.closing and token.name == current.name):
                raise source.error(f"</{current.name}>", token.raw, token.line, docid)
            header[current.name] = "".join(value).strip()
            if current.name == "DOCID":
                docid = header["DOCID"]
            current, value = None, []
        elif token.closing and token.name == "DOC":
            break
        elif token.name in _FIRST_HEADER and not token.closing:
            current = token
        elif token.name == "TEXTO" and not token.closing and not text_done:
            builder = _Builder(source, docid, "*")
            source.content = True
        else:
            raise source.error("DOCID, GENERO, ORIGEM or TEXTO", token.raw, token.line, docid)
    else:
        raise source.error("</DOC>", "end of file", source.line_at_end(), docid)
    if "DOCID" not in header or not header["DOCID"]:
        raise source.error("a <DOCID>", "a document without one", doc_tag.line)
    if not text_done:
        raise source.error("a <TEXTO>", "a document without one", doc_tag.line, docid)
    return _document(
        text_builder,
        header["DOCID"],
        header.get("ORIGEM"),
        header.get("GENERO"),
        doc_tag.line,
    )


def _document(
    builder: _Builder, docid: str, variant: str | None, genre: str | None, line: int
) -> Document:
    return Document(
        docid=docid,
        text=builder.text(),
        entities=tuple(builder.entities),
        alt_blocks=tuple(builder.alt_blocks),
        omitted=tuple(sorted(builder.omitted)),
        omitted_entities=tuple(builder.omitted_entities),
        variant=variant,
        genre=genre,
        paragraphs=tuple(sorted(builder.paragraphs)),
        line=line,
        omitted_outer=tuple(sorted(builder.omitted_outer)),
    )


def _read_second_harem(
    first_doc: _Tag | None,
    tokens: Iterator[_Text | _Tag],
    source: _Source,
    meta: MetaData | None,
    root: _Tag | None,
) -> Iterator[Document]:
    builder: _Builder | None = None
    doc_tag: _Tag | None = None
    seen: set[str] = set()
    root_closed = False

    def start(tag: _Tag) -> _Builder:
        docid = dict(tag.attributes).get("DOCID")
        if not docid:
            raise source.error('<DOC DOCID="...">', tag.raw, tag.line)
        if docid in seen:
            raise source.error("a DOCID used once", f"{docid} again", tag.line, docid)
        seen.add(docid)
        source.content = True
        return _Builder(source, docid, EM_TAG)

    if first_doc is not None:
        doc_tag, builder = first_doc, start(first_doc)
    for token in tokens:
        if builder is not None:
            if builder.take(token, "DOC") is not None:
                source.content = False
                variant, genre = (meta or {}).get(builder.docid or "", (None, None))
                yield _document(
                    builder,
                    builder.docid or "",
                    variant,
                    genre,
                    doc_tag.line if doc_tag else 1,
                )
                builder = None
            continue
        if isinstance(token, _Text):
            _require_blank(token, source, "between documents")
        elif root_closed:
            raise source.error("nothing after the root element", token.raw, token.line)
        elif token.name == "DOC" and not token.closing:
            doc_tag, builder = token, start(token)
        elif root is not None and token.closing and token.name == root.name:
            root_closed = True
        else:
            raise source.error("<DOC DOCID=...>", token.raw, token.line)
    if builder is not None:
        builder.finish(source.line_at_end(), "end of file")
        raise source.error("</DOC>", "end of file", source.line_at_end(), builder.docid)
    if root is not None and not root_closed:
        raise source.error(f"</{root.name}>", "end of file", source.line_at_end())


# ---------------------------------------------------------------------------
# Writing


_DECLARED = {
    "iso8859-1": "ISO-8859-1",
    "latin-1": "ISO-8859-1",
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8",
}


def format_collection(collection: Collection) -> str:
    """The collection in its own format; ``parse_collection`` of it gives it back.

    Only provenance (line numbers) and markup outside the documents (DOCTYPE,
    comments, blank lines) may differ from the file the collection came from.
    A Second HAREM document's variant and genre are not written: that format
    keeps them in the separate metadata file.  An entity is written in the
    collection's format whatever its ``tag``: an ``EM`` in a First HAREM
    collection becomes ``<CATEG ...>`` (losing its ID), a First HAREM tag in a
    Second HAREM collection becomes ``<EM CATEG="..." ...>``.  Character data is
    written verbatim (it was never unescaped); raises ``ValueError`` when the
    annotation cannot be written (overlapping entities, crossing regions).
    """
    head, tail = format_frame(collection)
    fmt, nl = collection.format, collection.newline
    return "".join([head, *(format_document(doc, fmt, nl) for doc in collection.documents), tail])


def format_frame(collection: Collection) -> tuple[str, str]:
    """What ``format_collection`` writes before the first document and after the last.

    So a collection can be written a document at a time (``format_document``
    between the two) with the bytes ``format_collection`` gives; its own
    documents are not read.  A First HAREM collection has no frame.
    """
    if collection.format == FIRST_HAREM:
        return "", ""
    nl = collection.newline
    declared = _DECLARED.get(collection.encoding, collection.encoding.upper())
    head = f'<?xml version="1.0" encoding="{declared}"?>{nl}<{collection.root}'
    if collection.version is not None:
        head += f" versao={_quote(collection.version)}"
    return f"{head}>{nl}", f"</{collection.root}>{nl}"


def format_document(doc: Document, fmt: CollectionFormat, newline: str) -> str:
    """One document as ``format_collection`` writes it in format ``fmt``, its line end included."""
    if fmt == FIRST_HAREM:
        return _format_first_document(doc, newline)
    return f"<DOC DOCID={_quote(doc.docid)}>{_format_content(doc, SECOND_HAREM)}</DOC>{newline}"


def _format_first_document(doc: Document, nl: str) -> str:
    lines = ["<DOC>", f"<DOCID>{doc.docid}</DOCID>"]
    if doc.genre is not None:
        lines.append(f"<GENERO>{doc.genre}</GENERO>")
    if doc.variant is not None:
        lines.append(f"<ORIGEM>{doc.variant}</ORIGEM>")
    body = f"<TEXTO>{_format_content(doc, FIRST_HAREM)}</TEXTO>"
    return nl.join([*lines, body, "</DOC>"]) + nl


def _quote(value: str) -> str:
    return f"'{value}'" if '"' in value else f'"{value}"'


def _open_tag(entity: Entity, fmt: str) -> tuple[str, str]:
    """(opening tag, closing tag) for an entity in format ``fmt``."""
    attributes = entity.attributes
    name = entity.tag
    if fmt == FIRST_HAREM and name == EM_TAG:
        name = "|".join(entity.categories) or "VARIADO"
        attributes = tuple((k, v) for k, v in attributes if k not in ("ID", "CATEG"))
    elif fmt == SECOND_HAREM and name != EM_TAG:
        attributes = (("CATEG", name), *attributes)
        name = EM_TAG
    rendered = "".join([f" {key}={_quote(value)}" for key, value in attributes])
    return f"<{name}{rendered}>", f"</{name}>"


# Containers with identical spans nest paragraph outside omitted region.
_RANK = {"P": 0, "OMITIDO": 1}
_SPAN = operator.itemgetter(0, 1)  # a leaf's (start, end)


@dataclass(slots=True)
class _Writer:
    """Renders one document's content: text with its tags put back at their offsets.

    Offsets alone fix every tag's place except for empty elements sharing an
    offset; the order used at one offset is: close containers ending there
    (innermost first), empty containers, empty entities and ALT blocks, open
    containers starting there (outermost first), then the element starting
    there.  An empty entity found in ``omitted_entities`` is always written
    inside an ``OMITIDO``, a plain one never, so reading the output gives the
    same model.
    """

    doc: Document
    fmt: str
    out: list[str] = field(default_factory=list)
    stack: list[tuple[int, int, str]] = field(default_factory=list)
    open_ends: dict[int, int] = field(default_factory=dict)  # the ends of ``stack``, counted

    def render(self) -> str:
        doc = self.doc
        text = doc.text
        containers = [(s, e, "P") for s, e in doc.paragraphs]
        containers += [(s, e, "OMITIDO") for s, e in doc.omitted]
        outer = set(doc.omitted_outer)
        containers.sort(
            key=lambda c: (c[0], -c[1], -1 if c[2] == "OMITIDO" and c[:2] in outer else _RANK[c[2]])
        )
        leaves: list[tuple[int, int, Entity | AltBlock]] = [
            (e.start, e.end, e) for e in doc.entities
        ]
        if doc.omitted_entities or doc.alt_blocks:
            leaves += [(e.start, e.end, e) for e in doc.omitted_entities]
            leaves += [(b.start, b.end, b) for b in doc.alt_blocks]
        leaves.sort(key=_SPAN)
        omitted_ids = {id(e) for e in doc.omitted_entities}
        # Where something is written: a leaf's end is not, as its text runs up to it (and
        # it is never the first offset found inside an earlier leaf: its start comes first).
        offsets = {0, len(text), *[f[0] for f in leaves]}
        if containers:
            offsets.update([x for c in containers for x in c[:2]])
        # What starts at each offset, in the sorted orders above: one pass over each list,
        # not one per offset, so a document is written in time linear in its annotation.
        containers_at = _starting_at(containers)
        empty_at = _starting_at([f for f in leaves if f[0] == f[1]])
        starting_at = _starting_at([f for f in leaves if f[0] < f[1]])
        out = self.out
        stack = self.stack
        open_ends = self.open_ends
        pos = 0
        for offset in sorted(offsets):
            if offset < pos:
                raise ValueError(f"overlapping annotation at offset {offset} in {doc.docid}")
            out.append(text[pos:offset])
            pos = offset
            here = containers_at.get(offset)
            empty = empty_at.get(offset)
            if here is not None or empty is not None or offset in open_ends:
                self.place_at(offset, here or [], [f[2] for f in empty or ()], omitted_ids)
            starting = starting_at.get(offset)
            if starting is None:
                continue
            if len(starting) > 1:
                raise ValueError(f"overlapping annotation at offset {offset} in {doc.docid}")
            leaf = starting[0][2]
            out += self.render_leaf(leaf)
            pos = leaf.end
        if stack:
            raise ValueError(f"annotation beyond the text of {doc.docid}")
        return "".join(out)

    def place_at(
        self,
        offset: int,
        here: list[tuple[int, int, str]],
        empty_leaves: list[Entity | AltBlock],
        omitted_ids: set[int],
    ) -> None:
        """What is written at ``offset`` before the leaf starting there: the containers
        closing, the empty ones, the empty leaves and the containers opening."""
        hidden = [x for x in empty_leaves if id(x) in omitted_ids]
        plain = [x for x in empty_leaves if id(x) not in omitted_ids]
        hidden = self.close_at(
            offset, hidden, any(c[1] == offset and c[2] == "OMITIDO" for c in here)
        )
        for start, end, kind in here:
            if start == end:
                self.out.append(f"<{kind}>")
                if kind == "OMITIDO":
                    self.out += [h for x in hidden for h in self.render_leaf(x)]
                    hidden = []
                self.out.append(f"</{kind}>")
        for leaf in plain:
            self.out += self.render_leaf(leaf)
        for start, end, kind in here:
            if start < end:
                self.out.append(f"<{kind}>")
                self.stack.append((start, end, kind))
                self.open_ends[end] = self.open_ends.get(end, 0) + 1
        if hidden:
            if not any(kind == "OMITIDO" for _, _, kind in self.stack):
                raise ValueError(f"omitted entity outside OMITIDO in {self.doc.docid}")
            self.out += [h for x in hidden for h in self.render_leaf(x)]

    def close_at(self, offset: int, hidden: list[Entity | AltBlock], empty_omitido: bool) -> list:
        """Close the containers ending at ``offset``; return the omitted leaves still to place."""
        while self.stack and self.stack[-1][1] == offset:
            _, _, kind = self.stack.pop()
            self.open_ends[offset] -= 1
            if not self.open_ends[offset]:
                del self.open_ends[offset]
            if kind == "OMITIDO" and hidden and not empty_omitido:
                self.out += [h for x in hidden for h in self.render_leaf(x)]
                hidden = []
            self.out.append(f"</{kind}>")
        if offset in self.open_ends:
            raise ValueError(f"crossing regions at offset {offset} in {self.doc.docid}")
        return hidden

    def render_leaf(self, leaf: Entity | AltBlock) -> list[str]:
        if isinstance(leaf, AltBlock):
            return [_format_alt(leaf, self.fmt)]
        opening, closing = _open_tag(leaf, self.fmt)
        return [opening, leaf.text, closing]


def _starting_at(spans: Sequence[tuple[int, int, object]]) -> dict[int, list[tuple]]:
    """``(start, end, thing)`` spans grouped by their start, each group in their order."""
    groups: dict[int, list[tuple]] = {}
    for span in spans:
        group = groups.get(span[0])
        if group is None:
            groups[span[0]] = [span]
        else:
            group.append(span)
    return groups


def _format_content(doc: Document, fmt: str) -> str:
    return _Writer(doc, fmt).render()


def _format_alt(block: AltBlock, fmt: str) -> str:
    segments = []
    for entities, alt_text in zip(block.alternatives, block.alternative_texts, strict=True):
        pieces, pos = [], 0
        for entity in sorted(entities, key=lambda e: (e.start, e.end)):
            local = entity.start - block.start
            opening, closing = _open_tag(entity, fmt)
            pieces += [alt_text[pos:local], opening, entity.text, closing]
            pos = local + len(entity.text)
        pieces.append(alt_text[pos:])
        segments.append("".join(pieces))
    return "<ALT>" + "|".join(segments) + "</ALT>"
