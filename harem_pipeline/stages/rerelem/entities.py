"""Entities with relations: records as the Java reads and prints them, entities as graph nodes.

A record of a ReRelEM file is a Véus/``.alts`` record (read by
:mod:`harem_pipeline.formats.semantic`); the Java programs parse its
entities into JDOM elements, change their attributes in place (a value
set again keeps its place, a new one goes last) and print each record
back.  :class:`Element` is that mutable entity, :class:`RelRecord` the
record.  :func:`entity_nodes` is ``RelatedEntity``'s constructor: the
entity's graph nodes (docs/spec/rerelem.md, stage 2) and the relations its
``COREL``/``TIPOREL``/``FACS_ORIGEM``/``FACS_ALVO`` give, each end cut
to the veil.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from harem_pipeline.formats.alinhado import (
    MARKER_SECOND_HAREM,
    Evaluation,
    Record,
    Tag,
    format_line,
    reprint_tag,
)
from harem_pipeline.formats.semantic import format_alt_weight
from harem_pipeline.stages.rerelem.relations import Node, Rel
from harem_pipeline.text.java import JavaHashMap, java_split_bar, string_hash

CATEG = "CATEG"
TIPO = "TIPO"
SUBTIPO = "SUBTIPO"
ID = "ID"
COREL = "COREL"
TIPOREL = "TIPOREL"
FACS_ORIGEM = "FACS_ORIGEM"
FACS_ALVO = "FACS_ALVO"
COMENT = "COMENT"
RELATION_ATTRIBUTES = (COREL, TIPOREL, FACS_ORIGEM, FACS_ALVO)
ANY_CATEGORY = "EM"
"""The category of an entity without one; it meets every category."""
SPURIOUS = "ESPURIO"


def java_split_space(value: str | None) -> list[str]:
    """``value.split(" ")`` in Java (trailing empty strings dropped); None → ``[]``."""
    if value is None:
        return []
    if value == "":
        return [""]
    parts = value.split(" ")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def join_vague(values: Iterable[str]) -> str:
    """``NamedEntity.vagueValuesToString``: values joined with ``|``."""
    return "|".join(values)


def unique(values: Iterable[str]) -> list[str]:
    """Values without repeats, first place kept (``LinkedHashSet``)."""
    return list(dict.fromkeys(values))


def intersection(first: list[str], second: list[str]) -> list[str]:
    """``AlignmentSelector.getIntersection``: ``EM`` on one side gives the other side."""
    if ANY_CATEGORY in first:
        return list(second) if second else [ANY_CATEGORY]
    if ANY_CATEGORY in second:
        return list(first) if first else [ANY_CATEGORY]
    return [value for value in first if value in second]


def compatible_categories(first: str, second: str) -> bool:
    """``RelationM2.compatibleCategories``: equal after trim, or a non-empty intersection."""
    if first.strip() == second.strip():
        return True
    return bool(intersection(java_split_bar(first), java_split_bar(second)))


class Element:
    """A mutable entity: element name, attributes in order (JDOM's semantics), text."""

    __slots__ = ("name", "attributes", "text")

    def __init__(self, name: str, attributes: dict[str, str], text: str) -> None:
        self.name = name
        self.attributes = attributes
        self.text = text

    @classmethod
    def of(cls, tag: Tag, system: bool = False) -> Element:
        """The element the Java parses from ``tag`` (see :func:`reprint_tag`)."""
        tag = reprint_tag(tag, system=system)
        return cls(tag.name, dict(tag.attributes), tag.text)

    def tag(self) -> Tag:
        """Back to an immutable tag, for writing."""
        return Tag(self.name, tuple(self.attributes.items()), self.text)

    def get(self, key: str) -> str | None:
        """The attribute's value, None when absent."""
        return self.attributes.get(key)

    def set(self, key: str, value: str) -> None:
        """Set an attribute: in place when present, last otherwise (``Element.setAttribute``)."""
        self.attributes[key] = value

    def remove(self, key: str) -> None:
        """Remove an attribute if present."""
        self.attributes.pop(key, None)

    @property
    def id(self) -> str | None:
        return self.attributes.get(ID)

    @property
    def categories(self) -> list[str]:
        """``getCategories``: CATEG split on ``|`` as Java does; ``[]`` without CATEG."""
        return java_split_bar(self.attributes.get(CATEG))

    @property
    def is_spurious(self) -> bool:
        return SPURIOUS in self.categories

    def list_attribute(self, key: str) -> list[str]:
        """A space-separated relation attribute as a list (Java ``split(" ")``)."""
        return java_split_space(self.attributes.get(key))

    def set_relation_attributes(
        self,
        corels: list[str],
        types: list[str],
        sources: list[str] | None,
        targets: list[str] | None,
    ) -> None:
        """``RelatedEntity.setRelationAttributes``: the four lists set, or all four removed."""
        if corels:
            self.set(COREL, " ".join(corels).strip())
            self.set(TIPOREL, " ".join(types).strip())
            if sources is not None:
                self.set(FACS_ORIGEM, " ".join(sources).strip())
            if targets is not None:
                self.set(FACS_ALVO, " ".join(targets).strip())
        else:
            for key in RELATION_ATTRIBUTES:
                self.remove(key)

    def set_classic(self, cats: list[str], types: list[str], subs: list[str]) -> None:
        """``NamedEntity.setClassicAttributes``: SUBTIPO, TIPO, CATEG set, or removed when empty."""
        for key, values in ((SUBTIPO, subs), (TIPO, types), (CATEG, cats)):
            value = join_vague(values)
            if value:
                self.set(key, value)
            else:
                self.remove(key)

    def remove_category(self, category: str) -> None:
        """``NamedEntity.removeCategory``: drop the first such category and its type and subtype."""
        cats = self.categories
        index = cats.index(category) if category in cats else len(cats)
        types = java_split_bar(self.attributes.get(TIPO))
        subs = java_split_bar(self.attributes.get(SUBTIPO))
        for values in (cats, types, subs):
            if len(values) > index:
                del values[index]
        self.set_classic(cats, types, subs)

    def without_comment(self) -> Element:
        """``removeComments``: a copy without COMENT (a spurious entity is kept as it is)."""
        if self.is_spurious:
            return self
        attributes = dict(self.attributes)
        attributes.pop(COMENT, None)
        return Element(self.name, attributes, self.text)


@dataclass(slots=True)
class RelRecord:
    """A record: golden entity, system entities (None: ``[null]``), evaluation, ALT weight."""

    gold: Element
    system: list[Element] | None
    evaluation: tuple[Evaluation, ...]
    alt_weight: float | None
    line: int = 0

    @classmethod
    def of(cls, record: Record, alt_weight: float | None) -> RelRecord:
        system = None if record.system is None else [Element.of(t, True) for t in record.system]
        evaluation = record.evaluation or ()
        return cls(Element.of(record.gold), system, evaluation, alt_weight, record.line)

    @property
    def first(self) -> Element | None:
        """The first aligned system entity, None for ``[null]``."""
        return None if self.system is None else self.system[0]

    @property
    def is_spurious(self) -> bool:
        return self.gold.is_spurious

    def write(self) -> str:
        """The record as ``IdentificationEvaluatedAlignment.toString`` prints it."""
        system = None if self.system is None else tuple(e.tag() for e in self.system)
        record = Record(
            self.gold.tag(),
            system,
            self.evaluation,
            MARKER_SECOND_HAREM,
            format_alt_weight(self.alt_weight),
        )
        return format_line(record)


# ---------------------------------------------------------------------------
# Entities as graph nodes


class RelationProblem(Exception):
    """An entity whose relation lists the Java would crash on (index past a list's end)."""


def facet_keys(element: Element, participation: bool) -> list[str]:
    """The entity's node keys ``"ID CAT"``: one per golden category, one for a system entity.

    A system entity's key holds its whole de-duplicated CATEG; no CATEG is ``EM``.
    """
    categories = element.categories
    if not categories:
        facets = [ANY_CATEGORY]
    elif participation:
        facets = [join_vague(unique(java_split_bar(element.get(CATEG))))]
    else:
        facets = categories
    return [f"{element.id} {facet}" for facet in facets]


def cut_to_veil(categories: str, keeps: Callable[[str], bool]) -> str:
    """``RelationM2.filter`` of one end: ``EM`` stays; other categories cut to the veil."""
    values = java_split_bar(categories)
    if ANY_CATEGORY in values:
        return ANY_CATEGORY
    return join_vague(unique(value for value in values if keeps(value)))


def entity_nodes(
    element: Element,
    participation: bool,
    keeps: Callable[[str], bool],
    problems: list[str],
) -> JavaHashMap[str, Node]:
    """``new RelatedEntity(entity, participation, veil)``: its facet nodes with its relations.

    Relations whose lists disagree in length are dropped with the Java's
    warning in ``problems``; an item past the end of a shorter FACS list
    (where the Java crashes) raises :class:`RelationProblem`.
    """
    keys = facet_keys(element, participation)
    nodes: JavaHashMap[str, Node] = JavaHashMap(string_hash, len(keys))
    for key in keys:
        nodes.put(key, Node(key))
    corels = element.list_attribute(COREL)
    kinds = element.list_attribute(TIPOREL)
    sources = element.list_attribute(FACS_ORIGEM)
    targets = element.list_attribute(FACS_ALVO)
    ident = element.id
    if len(corels) != len(kinds):
        problems.append(f"COREL com tamanho diferente de TIPOREL! : {ident}")
        return nodes
    if corels and (not sources or not targets):
        problems.append(f"Atributos {FACS_ORIGEM} ou {FACS_ALVO} por preencher : {ident}")
        return nodes
    if sources and targets and len(sources) != len(targets) and len(corels) != len(sources):
        problems.append(f"COREL com tamanho diferente de {FACS_ORIGEM} ou {FACS_ALVO}! {ident}")
        return nodes
    if len(sources) < len(corels) or len(targets) < len(corels):
        raise RelationProblem(
            f"entity {ident}: {len(corels)} CORELs but {len(sources)} {FACS_ORIGEM} "
            f"and {len(targets)} {FACS_ALVO}"
        )
    for corel, kind, source, target in zip(corels, kinds, sources, targets, strict=False):
        source_cut = cut_to_veil(source, keeps)
        target_cut = cut_to_veil(target, keeps)
        if not source_cut or not target_cut:
            continue
        rel = Rel(f"{ident} {source_cut}", f"{corel} {target_cut}", kind)
        node = nodes.get(rel.a)
        if node is None:
            problems.append(f"Problema: {rel.a}: [{', '.join(nodes.keys())}]")
            continue
        node.add(rel)
    return nodes


def write_back_relations(element: Element, nodes: JavaHashMap[str, Node]) -> None:
    """``updateRelationAttributes``: the entity's four lists rewritten from its nodes."""
    corels: list[str] = []
    kinds: list[str] = []
    sources: list[str] = []
    targets: list[str] = []
    for node in nodes.values():
        for rel in node:
            a = rel.a.split(" ")
            b = rel.b.split(" ")
            if len(a) < 2 or len(b) < 2:
                continue
            corels.append(b[0])
            kinds.append(rel.type)
            sources.append(a[1])
            targets.append(b[1])
    element.set_relation_attributes(corels, kinds, sources, targets)
