"""The document data model shared by every stage: collections, documents, entities.

A HAREM file (golden collection or system run) is read into a ``Collection`` of
``Document`` objects.  Each document keeps its *running text*: the character
data of the document with every tag removed, exactly as written (line ends,
indentation and XML entity references such as ``&amp;`` are kept verbatim;
nothing is expanded, so offsets always point into the characters of the file).

``line`` fields are provenance (the file line where a record starts): they
never take part in equality, so a collection written back and read again
equals the original.

Span convention (the only one in the project): ``start`` and ``end`` are
Python string indices into ``Document.text``, ``end`` exclusive, so
``document.text[entity.start:entity.end] == entity.text``.  The span
measures use the same convention over token positions: a :data:`Span` is
``(start, end, labels)``, ``end`` exclusive, ``labels`` a non-empty
``frozenset`` (a vague HAREM entity ``A|B`` carries several).

Three markup devices shape the running text:

* ``<ALT>seg1|seg2</ALT>`` offers alternative annotations.  The running text
  holds the FIRST alternative's text.  Entities of alternative ``k`` carry
  offsets as if alternative ``k`` replaced the block in the running text, so
  ``block.alternative_texts[k][e.start - block.start:e.end - block.start] == e.text``
  (for ``k == 0`` that is simply ``Document.text``).
* ``<OMITIDO>...</OMITIDO>`` marks text left out of evaluation.  Its content
  stays in the running text; the region is listed in ``Document.omitted`` and
  the entity tags found directly inside it (not inside an ``ALT``) are kept
  apart in ``Document.omitted_entities``, so they are counted but never scored.
* ``<P>...</P>`` (Second HAREM format) only delimits paragraphs; the regions
  are kept in ``Document.paragraphs`` so a collection can be written back.

The category grid of ``harem.conf`` (:class:`Grid`) and a veil, the part of
it an evaluation keeps (:class:`Veil`), are domain objects too; their text
forms are read and written by :mod:`harem_pipeline.formats.veils`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Final, Literal

from harem_pipeline.errors import InputError

GENDERS = frozenset({"M", "F", "?"})
NUMBERS = frozenset({"S", "P", "?"})

FIRST_HAREM: Final = "first-harem"
SECOND_HAREM: Final = "second-harem"
CollectionFormat = Literal["first-harem", "second-harem"]
FORMATS = (FIRST_HAREM, SECOND_HAREM)

Span = tuple[int, int, frozenset[str]]
"""A labelled span over token positions of one document, ``end`` exclusive."""


def make_span(start: int, end: int, label: str | Iterable[str]) -> Span:
    """Build a span; a ``str`` label may be vague, ``"A|B"`` meaning {A, B}."""
    labels = frozenset(label.split("|")) if isinstance(label, str) else frozenset(label)
    return (start, end, labels)


# The element name every Second HAREM entity uses; a First HAREM entity's
# element name is its (possibly vague) category instead.
EM_TAG = "EM"


@dataclass(frozen=True, slots=True)
class Morf:
    """Gender and number of an entity (First HAREM ``MORF="G,N"``)."""

    gender: str
    number: str

    def __post_init__(self) -> None:
        if self.gender not in GENDERS or self.number not in NUMBERS:
            raise ValueError(f"invalid MORF {self.gender},{self.number}")

    @classmethod
    def parse(
        cls,
        text: str,
        path: str | None = None,
        line: int | None = None,
        docid: str | None = None,
    ) -> Morf:
        """Read ``"G,N"``; anything else is the user's bad input."""
        parts = text.split(",")
        if len(parts) == 2:
            gender, number = (part.strip() for part in parts)
            if gender in GENDERS and number in NUMBERS:
                return cls(gender, number)
        raise InputError(
            path,
            'MORF="G,N" with G in M,F,? and N in S,P,?',
            f'MORF="{text}"',
            line=line,
            docid=docid,
        )

    def __str__(self) -> str:
        return f"{self.gender},{self.number}"


def split_vague(value: str | None) -> tuple[str, ...]:
    """``"A|B"`` → ``("A", "B")``; a missing or empty value → ``()``."""
    if not value:
        return ()
    return tuple(value.split("|"))


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity tag (``<EM ...>`` or First HAREM ``<CATEG ...>``) and its text.

    ``attributes`` is every attribute as written, in order, so the tag can be
    rendered again as the original did; ``categories``, ``types``,
    ``subtypes``, ``morf`` and ``id`` are the readings of those attributes (and,
    in the First HAREM format, of the element name), checked for agreement.
    An entity built in code may leave ``tag`` and ``attributes`` empty: they
    are then filled in the Second HAREM way (``EM`` with ID, CATEG, TIPO,
    SUBTIPO, MORF).
    """

    id: str | None
    categories: tuple[str, ...]
    types: tuple[str, ...]
    subtypes: tuple[str, ...]
    morf: Morf | None
    text: str
    start: int
    end: int
    attributes: tuple[tuple[str, str], ...] = ()
    tag: str = ""
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"entity span {self.start}..{self.end} is not ordered")
        if self.end - self.start != len(self.text):
            raise ValueError(
                f"entity span {self.start}..{self.end} does not fit its text {self.text!r}"
            )
        if not self.tag:
            object.__setattr__(self, "tag", EM_TAG)
            if not self.attributes:
                object.__setattr__(self, "attributes", self._default_attributes())
        expected = read_entity_fields(self.tag, self.attributes)
        found = (self.id, self.categories, self.types, self.subtypes, self.morf)
        if expected != found:
            raise ValueError(
                f"entity fields {found} disagree with its tag {self.tag} {self.attributes}"
            )

    def _default_attributes(self) -> tuple[tuple[str, str], ...]:
        pairs = [
            ("ID", self.id),
            ("CATEG", "|".join(self.categories)),
            ("TIPO", "|".join(self.types)),
            ("SUBTIPO", "|".join(self.subtypes)),
            ("MORF", str(self.morf) if self.morf else ""),
        ]
        return tuple((name, value) for name, value in pairs if value)

    def attribute(self, name: str) -> str | None:
        """The value of attribute ``name`` as written, or None."""
        for key, value in self.attributes:
            if key == name:
                return value
        return None

    def __reduce__(self) -> tuple[object, tuple[tuple]]:
        """Pickled as its fields, rebuilt by ``entity_of_fields`` (its checks held when it
        was built): the aligner sends every entity of a document pair to a worker process,
        and the dataclass's own state, one Python step a field, cost twice as much."""
        return entity_of_fields, (_entity_fields(self),)


def read_entity_fields(
    tag: str,
    attributes: tuple[tuple[str, str], ...],
    path: str | None = None,
    line: int | None = None,
    docid: str | None = None,
) -> tuple[str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...], Morf | None]:
    """(id, categories, types, subtypes, morf) that a tag and its attributes state.

    One function for the reader and for ``Entity`` validation, so the two can
    never read an attribute differently.
    """
    values = dict(attributes)
    categ = values.get("CATEG") if tag == EM_TAG else tag
    morf_text = values.get("MORF")
    morf = None if morf_text is None else Morf.parse(morf_text, path, line, docid)
    return (
        values.get("ID"),
        split_vague(categ),
        split_vague(values.get("TIPO")),
        split_vague(values.get("SUBTIPO")),
        morf,
    )


_entity_fields = operator.attrgetter(*(f.name for f in fields(Entity)))
# Each field's slot setter, in field order: it stores past the frozen ``__setattr__``.
_ENTITY_SETTERS = tuple(getattr(Entity, f.name).__set__ for f in fields(Entity))


def entity_of_fields(values: tuple) -> Entity:
    """An ``Entity`` from fields that agree by construction, without ``Entity``'s checks.

    ``values`` are ``Entity``'s fields in order.  The reader's are
    ``read_entity_fields`` of the very tag and attributes stored, the tag
    is never empty, and the span is the text's (an entity holds no tag, so
    its end is its start plus its text's length); an import's are its
    label's, joined into the attributes; a pickled entity's are its own.
    The checks would only repeat that: ``Entity`` would read the attributes
    a second time, a tenth of the reading and most of an import's writing.
    ``tests/test_harem_xml.py`` checks the reader's agree.
    """
    entity = object.__new__(Entity)
    for store, value in zip(_ENTITY_SETTERS, values):  # noqa: B905 (as many values as fields)
        store(entity, value)
    return entity


@dataclass(frozen=True, slots=True)
class AltBlock:
    """An ``<ALT>`` block: the alternatives a golden collection accepts.

    ``start``/``end`` delimit the first alternative's text in the running text.
    """

    start: int
    end: int
    alternatives: tuple[tuple[Entity, ...], ...]
    alternative_texts: tuple[str, ...]
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.start <= self.end:
            raise ValueError(f"ALT span {self.start}..{self.end} is not ordered")
        if len(self.alternatives) != len(self.alternative_texts):
            raise ValueError("an ALT block needs one text per alternative")
        if len(self.alternatives) < 2:
            raise ValueError("an ALT block needs at least two alternatives")
        if len(self.alternative_texts[0]) != self.end - self.start:
            raise ValueError("an ALT block's span must hold its first alternative's text")
        for entities, text in zip(self.alternatives, self.alternative_texts, strict=True):
            for entity in entities:
                local = entity.start - self.start
                if local < 0 or text[local : local + len(entity.text)] != entity.text:
                    raise ValueError(f"ALT entity {entity.text!r} is not at its offsets")


@dataclass(frozen=True, slots=True)
class Document:
    """One ``<DOC>``: its running text and the annotation over it.

    ``omitted_outer`` lists the ``OMITIDO`` regions written around a ``<P>``
    of the very same span (``<OMITIDO><P>..</P></OMITIDO>``); an ``OMITIDO``
    and a ``P`` of equal span otherwise nest as ``<P><OMITIDO>..</OMITIDO></P>``.
    """

    docid: str
    text: str
    entities: tuple[Entity, ...] = ()
    alt_blocks: tuple[AltBlock, ...] = ()
    omitted: tuple[tuple[int, int], ...] = ()
    omitted_entities: tuple[Entity, ...] = ()
    variant: str | None = None
    genre: str | None = None
    paragraphs: tuple[tuple[int, int], ...] = ()
    line: int = field(default=0, compare=False)
    omitted_outer: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        size = len(self.text)
        for entity in (*self.entities, *self.omitted_entities):
            if entity.end > size or self.text[entity.start : entity.end] != entity.text:
                raise ValueError(f"entity {entity.text!r} is not at its offsets in {self.docid}")
        for block in self.alt_blocks:
            if self.text[block.start : block.end] != block.alternative_texts[0]:
                raise ValueError(f"ALT block at {block.start} does not match {self.docid}")
        for start, end in (*self.omitted, *self.paragraphs):
            if not 0 <= start <= end <= size:
                raise ValueError(f"region {start}..{end} outside document {self.docid}")

    @property
    def all_entities(self) -> tuple[Entity, ...]:
        """Every entity tag of the document: plain, every ALT alternative, omitted."""
        in_alts = tuple(e for block in self.alt_blocks for alt in block.alternatives for e in alt)
        return self.entities + in_alts + self.omitted_entities

    def is_omitted(self, start: int, end: int) -> bool:
        """True when ``start..end`` lies inside an ``OMITIDO`` region."""
        return any(s <= start and end <= e for s, e in self.omitted)


@dataclass(frozen=True, slots=True)
class Collection:
    """A whole HAREM file: golden collection or system run.

    ``newline`` is the file's line end (``"\\r\\n"`` for the First HAREM file) and
    ``root``/``version`` the Second HAREM root element and its ``versao``, kept
    so a collection is written back the way it was read.
    """

    path: str
    format: CollectionFormat
    encoding: str
    documents: tuple[Document, ...]
    newline: str = "\n"
    root: str = "colHAREM"
    version: str | None = None
    docids: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown collection format {self.format!r}")
        if self.newline not in ("\n", "\r\n"):
            raise ValueError(f"unknown line end {self.newline!r}")
        object.__setattr__(self, "docids", tuple(d.docid for d in self.documents))

    def document(self, docid: str) -> Document | None:
        """The document with this DOCID, or None."""
        for doc in self.documents:
            if doc.docid == docid:
                return doc
        return None


# ---------------------------------------------------------------------------
# The category grid and veils

EVERYTHING = "*"
"""The veil (and the grid level) meaning "all of the grid's"."""
OTHER = "OUTRO"
"""The type every category, and the subtype every type, is given."""

# A tree: categories (sorted) -> types (sorted) -> subtypes (insertion order).
TypeNode = tuple[str, tuple[str, ...]]
CategoryNode = tuple[str, tuple[TypeNode, ...]]
Tree = tuple[CategoryNode, ...]


@dataclass(frozen=True, slots=True)
class Grid:
    """The category grid of ``harem.conf`` (already filled with ``OUTRO``)."""

    tree: Tree
    path: str | None = None

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(cat for cat, _ in self.tree)

    def types(self, cat: str) -> tuple[str, ...]:
        return tuple(typ for typ, _ in _types_of(self.tree, cat))

    def subtypes(self, cat: str, typ: str) -> tuple[str, ...]:
        return _subtypes_of(self.tree, cat, typ)


@dataclass(frozen=True, slots=True)
class Veil:
    """A parsed veil: the kept part of the grid.

    ``everything`` is true only for the veil ``*`` (or no veil at all): the
    original tools then pass every record through untouched, even entities
    whose categories are outside the grid.
    """

    tree: Tree
    everything: bool = False

    def contains_category(self, cat: str | None) -> bool:
        return any(c == cat for c, _ in self.tree)

    def types(self, cat: str) -> tuple[str, ...]:
        return tuple(typ for typ, _ in _types_of(self.tree, cat))

    def has_types(self, cat: str) -> bool:
        return bool(_types_of(self.tree, cat))

    def contains_type(self, cat: str, typ: str | None) -> bool:
        return any(t == typ for t, _ in _types_of(self.tree, cat))

    def has_subtypes(self, cat: str, typ: str) -> bool:
        return bool(_subtypes_of(self.tree, cat, typ))

    def contains_subtype(self, cat: str, typ: str, sub: str | None) -> bool:
        return sub in _subtypes_of(self.tree, cat, typ)

    def intersects(self, other: Veil) -> bool:
        """Whether the two veils share a category and, if this one names types, a type.

        This is the test the original tools apply between the evaluation veil
        and the system's declared veil (it looks no deeper than types).
        """
        for cat, types in self.tree:
            if not other.contains_category(cat):
                continue
            if not types or set(self.types(cat)) & set(other.types(cat)):
                return True
        return False


def _types_of(tree: Tree, cat: str) -> tuple[TypeNode, ...]:
    for c, types in tree:
        if c == cat:
            return types
    return ()


def _subtypes_of(tree: Tree, cat: str, typ: str) -> tuple[str, ...]:
    for t, subs in _types_of(tree, cat):
        if t == typ:
            return subs
    return ()


# ---------------------------------------------------------------------------
# The two axes of a report: scenario and ALT choice


class Scenario(Enum):
    """Which records count: the absolute scenario scores missing and spurious ones too.

    Vizir's and Emir's scenario alike; read once at the edge (a command's
    option, a Luigi parameter, a file's header) and carried as this type.
    """

    ABSOLUTE = "absolute"
    RELATIVE = "relative"

    @property
    def short(self) -> str:
        """``abs`` / ``rel``: the original option names, used in signatures and file names."""
        return "abs" if self is Scenario.ABSOLUTE else "rel"

    @classmethod
    def parse(cls, text: str) -> Scenario:
        """Accept ``absolute``/``abs``/``-abs`` and ``relative``/``rel``/``-rel``."""
        word = text.strip().lstrip("-").lower()
        for scenario in cls:
            if word in (scenario.value, scenario.short):
                return scenario
        raise ValueError(f"unknown scenario {text!r}: use absolute (-abs) or relative (-rel)")


class Alt(Enum):
    """How a report's ALT blocks were resolved.

    ``BEST``: the alternative AltinaID/AltinaMor choose (identification and
    morphology); ``STRICT``/``RELAXED``: Emir's file as it is, or the best
    alternative of every block kept by ALTina (the semantic reports).
    """

    BEST = "best"
    STRICT = "strict"
    RELAXED = "relaxed"
