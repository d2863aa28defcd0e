"""The record stages of ReRelEM: expander, selector, ID normaliser, triples.

Each is one official program (docs/spec/rerelem.md, stages 2–5):
``RelationExpanderM2 -exptudo sim``, ``AlignmentSelector``,
``IDNormalizer`` and ``AlignmentsToTriples``.  They read the documents of
an ``.alts``-shaped file (:class:`AltsDocuments`) and give the lines to
write, without line ends; the veil header (the first line, ``#…``) is
copied first and its categories cut the relations' ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import DocEnd, DocStart, Header, Line, Record
from harem_pipeline.formats.semantic import parse_alts_record
from harem_pipeline.formats.veils import parse_veil
from harem_pipeline.model import Grid
from harem_pipeline.stages.rerelem.entities import (
    ANY_CATEGORY,
    COREL,
    FACS_ALVO,
    FACS_ORIGEM,
    ID,
    SPURIOUS,
    TIPOREL,
    Element,
    RelationProblem,
    RelRecord,
    entity_nodes,
    intersection,
    join_vague,
    write_back_relations,
)
from harem_pipeline.stages.rerelem.relations import (
    Node,
    RelationTypes,
    expand,
    new_graph,
    normalized_type,
)
from harem_pipeline.text.java import JavaHashMap, java_split_bar

CD_MARK = "[CD]"
PART_MARK = "[Part]"


@dataclass(slots=True)
class AltsDocument:
    """One ``DOC id`` … ``EOD`` of a record file, its records parsed."""

    docid: str
    records: list[RelRecord]


@dataclass(slots=True)
class AltsDocuments:
    """A record file read for ReRelEM: the veil header and the documents."""

    header: str
    documents: Iterator[AltsDocument]
    keeps: Callable[[str], bool]


def read_documents(lines: Iterable[Line], path: str | None, grid: Grid) -> AltsDocuments:
    """The veil header and the documents of ``lines`` (a parsed ``.alts``/``.expandido``…).

    The first line must be the veil ``#…`` (the Java takes the grid when it is
    absent and drops that line, whatever it held); records must lie between
    ``DOC`` and ``EOD``.  Lines that are not records (ALT marks, OMITIDO,
    VERIFICACAO_MANUAL, comments) are skipped as the Java skips them.
    """
    iterator = iter(lines)
    first = next(iterator, None)
    if not isinstance(first, Header):
        found = "an empty file" if first is None else type(first).__name__
        raise InputError(path, "the veil header #CATEGORIES as the first line", found, line=1)
    veil = parse_veil(first.text, grid, path)
    categories = {cat for cat, _ in veil.tree}
    return AltsDocuments("#" + first.text, _documents(iterator, path), categories.__contains__)


def _documents(lines: Iterator[Line], path: str | None) -> Iterator[AltsDocument]:
    current: AltsDocument | None = None
    for item in lines:
        if isinstance(item, DocStart):
            if current is not None:
                raise InputError(
                    path, "EOD before the next DOC", "DOC " + item.docid, line=item.line
                )
            current = AltsDocument(item.docid, [])
        elif isinstance(item, DocEnd):
            if current is None:
                raise InputError(path, "DOC before EOD", "EOD", line=item.line)
            yield current
            current = None
        elif isinstance(item, Record):
            if current is None:
                raise InputError(path, "a record inside DOC … EOD", "a record", line=item.line)
            alts = parse_alts_record(item, path)
            current.records.append(RelRecord.of(alts.record, alts.alt_weight))
    if current is not None:
        raise InputError(path, "EOD at the end of the last document", "end of file")


def _nodes(
    element: Element,
    participation: bool,
    keeps: Callable[[str], bool],
    problems: list[str],
    path: str | None,
    record: RelRecord,
) -> JavaHashMap[str, Node]:
    try:
        return entity_nodes(element, participation, keeps, problems)
    except RelationProblem as exc:
        raise InputError(
            path, "one FACS_ORIGEM and FACS_ALVO item per COREL", str(exc), line=record.line
        ) from None


def _add_nodes(graph: JavaHashMap[str, Node], nodes: JavaHashMap[str, Node]) -> None:
    for node in nodes.values():
        graph.put(node.key, node)


def _graphs(
    document: AltsDocument,
    keeps: Callable[[str], bool],
    problems: list[str],
    path: str | None,
) -> tuple[
    JavaHashMap[str, Node], JavaHashMap[str, Node], list[tuple[Element, JavaHashMap[str, Node]]]
]:
    """A document's golden and system (``Part``) relation graphs, and each entity's nodes in
    record order: the golden entity of every record not spurious, the first system one."""
    gold_graph = new_graph()
    part_graph = new_graph()
    entities: list[tuple[Element, JavaHashMap[str, Node]]] = []
    for record in document.records:
        if not record.is_spurious:
            nodes = _nodes(record.gold, False, keeps, problems, path, record)
            _add_nodes(gold_graph, nodes)
            entities.append((record.gold, nodes))
        first = record.first
        if first is not None:
            nodes = _nodes(first, True, keeps, problems, path, record)
            _add_nodes(part_graph, nodes)
            entities.append((first, nodes))
    return gold_graph, part_graph, entities


# ---------------------------------------------------------------------------
# Expander


def expand_documents(
    source: AltsDocuments,
    types: RelationTypes,
    problems: list[str],
    expand_system: bool = True,
    path: str | None = None,
) -> Iterator[str]:
    """``RelationExpanderM2``: every entity's relations closed under inverses and the rules."""
    yield source.header
    for document in source.documents:
        for record in document.records:
            record.gold = record.gold.without_comment()
            if record.system is not None:
                record.system = [entity.without_comment() for entity in record.system]
        gold_graph, part_graph, entities = _graphs(document, source.keeps, problems, path)
        expand(gold_graph, types, problems)
        if expand_system:
            expand(part_graph, types, problems)
        for element, nodes in entities:
            write_back_relations(element, nodes)
        yield ""
        yield "DOC " + document.docid
        for record in document.records:
            yield record.write()
        yield "EOD"


# ---------------------------------------------------------------------------
# Selector


def _leave_only(element: Element, categories: list[str]) -> None:
    for category in [c for c in element.categories if c not in categories]:
        element.remove_category(category)


def select_documents(source: AltsDocuments) -> Iterator[str]:
    """``AlignmentSelector``: aligned records whose golden and first system categories meet."""
    yield source.header
    for document in source.documents:
        yield ""
        yield "DOC " + document.docid
        for record in document.records:
            first = record.first
            if record.is_spurious or first is None:
                continue
            gold_categories = record.gold.categories
            system_categories = first.categories
            if gold_categories and system_categories:
                shared = intersection(gold_categories, system_categories)
                if not shared:
                    continue
                _leave_only(record.gold, shared)
                for entity in record.system or ():
                    _leave_only(entity, shared)
            yield record.write()
        yield "EOD"


# ---------------------------------------------------------------------------
# ID normaliser


@dataclass(slots=True)
class SpuriousIds:
    """``IDNormalizer``'s counter of ``ESPURIO-n`` IDs (one for the whole file)."""

    next: int = 1

    def take(self) -> str:
        value = f"{SPURIOUS}-{self.next}"
        self.next += 1
        return value


def _put(
    mapping: dict[str | None, tuple[str | None, str]],
    golden: Element,
    other: Element | None,
    counter: SpuriousIds,
) -> None:
    """``IDNormalizer.putInMap``: ``other``'s ID → (``golden``'s ID, ``other``'s categories)."""
    if other is None:
        return
    categories = other.categories
    cats = join_vague(categories) if categories else ANY_CATEGORY
    ident = counter.take() if golden.is_spurious else golden.id
    mapping[other.id] = (ident, cats)


def normalize_relations(
    element: Element,
    mapping: dict[str | None, tuple[str | None, str]],
    change_corels: bool,
) -> None:
    """``RelatedEntity.normalizeRelationAttributes``: CORELs kept only when mapped, facets cut."""
    corels = element.list_attribute(COREL)
    kinds = element.list_attribute(TIPOREL)
    sources = element.list_attribute(FACS_ORIGEM)
    targets = element.list_attribute(FACS_ALVO)
    categories = element.categories
    own = join_vague(categories)
    removed: set[int] = set()
    for i, corel in enumerate(corels):
        target = mapping.get(corel)
        if corel not in mapping or target is None:
            removed.add(i)
            continue
        if sources and targets:
            if sources[i] != own:
                shared = intersection(java_split_bar(sources[i]), categories)
                if not shared:
                    removed.add(i)
                    continue
                sources[i] = join_vague(shared)
            if targets[i] != target[1].strip():
                shared = intersection(java_split_bar(targets[i]), java_split_bar(target[1]))
                if not shared:
                    removed.add(i)
                    continue
                targets[i] = join_vague(shared)
        if change_corels:
            corels[i] = "null" if target[0] is None else target[0]
    kept = [i for i in range(len(corels)) if i not in removed]
    with_facets = bool(sources) and bool(targets)
    element.set_relation_attributes(
        [corels[i] for i in kept],
        [kinds[i] for i in kept],
        [sources[i] for i in kept] if with_facets else [],
        [targets[i] for i in kept] if with_facets else [],
    )


def normalize_documents(
    source: AltsDocuments, problems: list[str], path: str | None = None
) -> Iterator[str]:
    """``IDNormalizer``: system IDs and CORELs become the golden IDs they align with."""
    yield source.header
    counter = SpuriousIds()
    for document in source.documents:
        part_to_gc: dict[str | None, tuple[str | None, str]] = {}
        gc_to_part: dict[str | None, tuple[str | None, str]] = {}
        for record in document.records:
            first = record.first
            if first is None:
                raise InputError(
                    path,
                    "records aligned to a system entity (the selector's output)",
                    "[null]",
                    line=record.line,
                )
            _put(part_to_gc, record.gold, first, counter)
            _put(gc_to_part, first, record.gold, counter)
        for record in document.records:
            if not record.is_spurious:
                _nodes(record.gold, False, source.keeps, problems, path, record)
                normalize_relations(record.gold, gc_to_part, False)
            first = record.first
            if first is not None:
                _nodes(first, True, source.keeps, problems, path, record)
                mapped = part_to_gc.get(first.id)
                if first.id not in part_to_gc or mapped is None:
                    continue
                first.set(ID, "null" if mapped[0] is None else mapped[0])
                normalize_relations(first, part_to_gc, True)
        yield ""
        yield "DOC " + document.docid
        for record in document.records:
            yield record.write()
        yield "EOD"


# ---------------------------------------------------------------------------
# Triples


def _triples(graph: JavaHashMap[str, Node], normalize_types: bool) -> Iterator[str]:
    for node in graph.values():
        for rel in node:
            kind = normalized_type(rel.type) if normalize_types else rel.type
            yield f"{rel.a} {kind} {rel.b}"


def triples_documents(
    source: AltsDocuments,
    problems: list[str],
    normalize_types: bool = False,
    path: str | None = None,
) -> Iterator[str]:
    """``AlignmentsToTriples``: per document the golden ``[CD]`` and system ``[Part]`` relations."""
    yield source.header
    for document in source.documents:
        gold_graph, part_graph, _ = _graphs(document, source.keeps, problems, path)
        yield ""
        yield "DOC " + document.docid
        yield CD_MARK
        yield from _triples(gold_graph, normalize_types)
        yield PART_MARK
        yield from _triples(part_graph, normalize_types)
        yield "EOD"
