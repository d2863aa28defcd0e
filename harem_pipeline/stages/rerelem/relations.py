"""Relations, their types, the transitive rules and the expansion of a graph.

A relation is ``(A, B, type)`` between two graph nodes, each node key
``"ID CATEGORY"`` (docs/spec/rerelem.md, stage 2).  Types come from the
``R:direct;inverse`` lines of ``harem.conf``; a type with no ``;`` has no
inverse.  The expansion is the official ``RelationExpanderM2``'s: an
inverse pass, then up to ten rounds of a transitive pass followed by an
inverse pass (none after the tenth).

The Java pairs every two nodes and every two of their relations (about a
minute on the shipped run).  Only relations that share an endpoint can
give a result, so :func:`transitive_pass` looks up, for each relation, the
node its target is and the relations pointing at the same target, and
visits those candidate pairs in the order the Java loops would reach them
(left node, right node, then each node's relations in their hash order):
the same results, in the same order, in time linear in the candidates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from harem_pipeline.text.java import (
    DEFAULT_CAPACITY,
    JavaHashMap,
    JavaHashSet,
    int32,
    string_hash,
)

IDENT = "ident"
INCLUI = "inclui"
INCLUIDO = "incluido"
OCORRE = "ocorre_em"
SEDE = "sede_de"
OUTRA = "outra"
BASIC_TYPES = (IDENT, INCLUI, INCLUIDO, OCORRE, SEDE)
"""Types scored as themselves; any other type scores as ``outra``."""

MAX_ITERATIONS = 10


class Rel(NamedTuple):
    """A relation ``type(a, b)`` between two node keys (Java ``Relation``)."""

    a: str
    b: str
    type: str


RelKey = tuple[str, str, str]
"""A relation as ``(a, b, type)``: a ``Rel`` or a plain tuple equal to one (hashed the same)."""


def relation_hash(rel: RelKey) -> int:
    """Java ``Relation.hashCode``: ``31³ + 31²·h(A) + 31·h(B) + h(type)`` as an ``int``."""
    a, b, kind = rel  # a plain (a, b, type) tuple hashes the same
    return int32(31 * (31 * (31 + string_hash(a)) + string_hash(b)) + string_hash(kind))


def is_basic(kind: str) -> bool:
    """Whether ``kind`` is one of the five basic types."""
    return kind in BASIC_TYPES


def normalized_type(kind: str) -> str:
    """``kind`` as the evaluator scores it: non-basic types become ``outra``."""
    return kind if kind in BASIC_TYPES else OUTRA


class RelationTypes:
    """The relation types of ``harem.conf``: ``(direct, inverse or None)`` in file order."""

    __slots__ = ("pairs", "_inverse")

    def __init__(self, pairs: tuple[tuple[str, str | None], ...]) -> None:
        self.pairs = pairs
        inverse: dict[str, str | None] = {}
        for direct, other in pairs:  # the first line naming a type wins, as in the Java
            inverse.setdefault(direct, other)
            if other is not None:
                inverse.setdefault(other, direct)
        self._inverse = inverse

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RelationTypes) and self.pairs == other.pairs

    def __hash__(self) -> int:
        return hash(self.pairs)

    def inverse(self, kind: str) -> str | None:
        """The inverse type (Java ``TagBaseReader.getInverse``), None when there is none."""
        return self._inverse.get(kind)

    def known(self, kind: str) -> bool:
        """Whether ``kind`` is named on some ``R:`` line."""
        return kind in self._inverse

    def names(self) -> list[str]:
        """Every type named, direct and inverse, in file order."""
        return list(self._inverse)


def parse_relation_types(lines: Iterable[str]) -> RelationTypes:
    """The ``R:`` lines of a ``harem.conf`` (read until its first empty line, as the Java)."""
    pairs: list[tuple[str, str | None]] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "":
            break
        if not line.startswith("R:"):
            continue
        parts = line[2:].strip().split(";")
        if len(parts) == 2:
            pairs.append((parts[0], parts[1]))
        else:
            pairs.append((parts[0].strip(), None))
    return RelationTypes(tuple(pairs))


# ---------------------------------------------------------------------------
# Graph


class Node:
    """A graph node: its key and its relations in a Java ``HashSet`` (``RelationsList``)."""

    __slots__ = ("key", "relations")

    def __init__(self, key: str) -> None:
        self.key = key
        self.relations: JavaHashSet[Rel] = JavaHashSet(relation_hash)

    def add(self, rel: Rel) -> bool:
        """``RelationsList.addRelation``: only relations from this node, none to itself."""
        if rel.a != self.key or rel.b == self.key:
            return False
        return self.relations.add(rel)

    def __iter__(self) -> Iterator[Rel]:
        return iter(self.relations.keys())

    def __len__(self) -> int:
        return len(self.relations)


def new_graph() -> JavaHashMap[str, Node]:
    """An empty graph: node key → node in a Java ``HashMap``."""
    return JavaHashMap(string_hash)


# -- transitive rules (pt.linguateca.relations.rules) ------------------------


def _rule1(r1: Rel, r2: Rel) -> Rel | None:
    """Rule1: ``ident`` with ``ident`` sharing one argument gives ``ident`` of the other two."""
    if r1.type != IDENT or r2.type != IDENT:
        return None
    if r1.a == r2.a and r1.b != r2.b:
        return Rel(r1.b, r2.b, IDENT)
    if r1.a == r2.b and r1.b != r2.a:
        return Rel(r1.b, r2.a, IDENT)
    if r1.b == r2.a and r1.a != r2.b:
        return Rel(r1.a, r2.b, IDENT)
    if r1.b == r2.b and r1.a != r2.a:
        return Rel(r1.a, r2.a, IDENT)
    return None


def _normalizes(rel: Rel, t1: str, t2: str, types: RelationTypes) -> Rel | None:
    """``TransitiveRule.getNormalizedRelation``: ``rel`` or its inverse when its type fits."""
    if rel.type in (t1, t2) or t2 == OUTRA:
        return rel
    if rel.type == types.inverse(t1) or rel.type == types.inverse(t2):
        inverse = types.inverse(rel.type)
        return Rel(rel.b, rel.a, inverse if inverse is not None else rel.type)
    return None


def _generic_result(n1: Rel, n2: Rel) -> Rel | None:
    """``TransitiveRule.getTransitiveRelation`` on an ordered pair (the original relations)."""
    if n1.a == n2.b and n1.b != n2.a:
        return Rel(n2.a, n1.b, n2.type)
    if n2.a == n1.b and n2.b != n1.a:
        return Rel(n1.a, n2.b, n2.type)
    return None


def _generic(r1: Rel, r2: Rel, t1: str, t2: str, types: RelationTypes) -> Rel | None:
    """A generic rule (t1, t2): both must normalise; the pair is ordered on the original types."""
    if _normalizes(r1, t1, t2, types) is None or _normalizes(r2, t1, t2, types) is None:
        return None
    any_second = t2 == OUTRA
    if r1.type == t1 and (r2.type == t2 or any_second):
        return _generic_result(r1, r2)
    if (r1.type == t2 or any_second) and r2.type == t1:
        return _generic_result(r2, r1)
    return None


def _rule23(r1: Rel, r2: Rel, types: RelationTypes) -> Rel | None:
    """Rule23 (``inclui``, ``inclui``): ordered on the normalised pair, result on the original."""
    n1 = _normalizes(r1, INCLUI, INCLUI, types)
    n2 = _normalizes(r2, INCLUI, INCLUI, types)
    if n1 is None or n2 is None:
        return None
    if n1.b == n2.a and n1.a != n2.b:
        return _generic_result(r1, r2)
    if n1.a == n2.b and n1.b != n2.a:
        return _generic_result(r2, r1)
    return None


def transitive_relation(r1: Rel, r2: Rel, types: RelationTypes) -> Rel | None:
    """The first rule that gives a relation: Rule1, Rule23, Rule89, Rule1011 (Rule45/67 are off)."""
    return (
        _rule1(r1, r2)
        or _rule23(r1, r2, types)
        or _generic(r1, r2, INCLUI, SEDE, types)
        or _generic(r1, r2, IDENT, OUTRA, types)
    )


Pattern = tuple[bool, bool, bool]
"""Which ends of a pair coincide: ``r1.b == r2.a``, ``r2.b == r1.a``, ``r1.b == r2.b``."""
Template = tuple[int, int, str] | None
"""A rule's result as positions among ``(r1.a, r1.b, r2.a, r2.b)`` and its type."""


def _template(kind1: str, kind2: str, pattern: Pattern, types: RelationTypes) -> Template:
    """The rules applied to symbolic ends that coincide as ``pattern`` says.

    The rules only compare ends, so the result of any pair with these types
    and this pattern is the same positions: computing it once per
    (types, pattern) gives the rules' exact answer at a dictionary's cost.
    The two left ends never coincide (they are two different nodes).
    """
    ends = ["P", "X", "Q", "Y"]
    if pattern[0]:
        ends[1] = ends[2]
    if pattern[1]:
        ends[3] = ends[0]
    if pattern[2]:
        ends[3] = ends[1]
    result = transitive_relation(Rel(ends[0], ends[1], kind1), Rel(ends[2], ends[3], kind2), types)
    if result is None:
        return None
    return ends.index(result.a), ends.index(result.b), result.type


_SEED_FIRST: tuple[Pattern, ...] = ((True, False, False), (True, True, False))
"""Patterns of a pair whose left relation points at the right node."""
_SEED_SECOND: tuple[Pattern, ...] = ((False, True, False), (True, True, False))
"""Patterns of a pair whose right relation points at the left node."""


class Expansion:
    """One graph being expanded: what the passes need to go on from where they stopped.

    ``fresh`` holds the relations added since the last transitive pass;
    ``results`` every relation a transitive pass has produced.  A pair of
    relations both older than the last pass gives a result already in
    ``results`` (and so already in the graph), so a pass looks only at the
    pairs with a fresh relation; that finds every new result at its first
    place in the Java's loops.  The order they are added in is the Java
    ``HashSet``'s of all the pass's results: bucket by bucket at the
    capacity its size gives (exactly emulated, from every result's first
    place, while it is small enough for a chain to force a resize).
    """

    SMALL = 48
    """Up to 48 results a 64-bucket table may still grow by a long chain: recompute them all."""

    def __init__(self, graph: JavaHashMap[str, Node], types: RelationTypes) -> None:
        self.graph = graph
        self.types = types
        self.fresh: set[Rel] = {rel for node in graph.values() for rel in node}
        self.incoming: dict[str, list[Rel]] = {}
        self.incoming_idents: dict[str, list[Rel]] = {}
        for rel in self.fresh:
            self._index(rel)
        self._keys: list[str] = []
        self._where: dict[Rel, tuple[int, int]] = {}
        self.results: set[RelKey] = set()
        self.missing: dict[Rel, None] = {}
        self.templates: dict[tuple[str, str, Pattern], Template] = {}
        self.viable: dict[tuple[str, str, tuple[Pattern, ...]], bool] = {}

    def _index(self, rel: Rel) -> None:
        self.incoming.setdefault(rel.b, []).append(rel)
        if rel.type == IDENT:
            self.incoming_idents.setdefault(rel.b, []).append(rel)

    def add(self, node: Node, rel: Rel) -> bool:
        if node.add(rel):
            self.fresh.add(rel)
            self._index(rel)
            return True
        return False

    def inverse_pass(self) -> None:
        """Add ``inv(B, A)`` to node B for every relation with an inverse type, node B existing."""
        types, graph = self.types, self.graph
        for node in graph.values():
            for rel in list(node):
                inverse = types.inverse(rel.type)
                if inverse is None:
                    continue
                other = graph.get(rel.b)
                if other is not None:
                    self.add(other, Rel(rel.b, rel.a, inverse))

    def _first_places(
        self, lists: list[list[Rel]], seeds: Iterable[tuple[int, int]]
    ) -> dict[RelKey, tuple[int, int, int, int]]:
        """Each result of the pairs holding a seed relation, at its first (left, right, i, j)."""
        position = {key: index for index, key in enumerate(self._keys)}
        where = self._where
        pairs: set[tuple[int, int, int, int]] = set()
        kinds: dict[int, dict[str, list[int]]] = {}
        for p, i in seeds:
            rel = lists[p][i]
            q = position.get(rel.b)
            if q is not None:
                by_kind = kinds.get(q)
                if by_kind is None:
                    by_kind = kinds[q] = {}
                    for j, other in enumerate(lists[q]):
                        by_kind.setdefault(other.type, []).append(j)
                for kind, places in by_kind.items():
                    if p < q:
                        if self._viable(rel.type, kind, _SEED_FIRST):
                            pairs.update((p, q, i, j) for j in places)
                    elif self._viable(kind, rel.type, _SEED_SECOND):
                        pairs.update((q, p, j, i) for j in places)
            viable = self.viable
            for other in self.incoming.get(self._keys[p], ()):
                q, j = where[other]
                if p < q:
                    ok = viable.get((rel.type, other.type, _SEED_SECOND))
                    if ok is None:
                        ok = self._viable(rel.type, other.type, _SEED_SECOND)
                    if ok:
                        pairs.add((p, q, i, j))
                else:
                    ok = viable.get((other.type, rel.type, _SEED_FIRST))
                    if ok is None:
                        ok = self._viable(other.type, rel.type, _SEED_FIRST)
                    if ok:
                        pairs.add((q, p, j, i))
            if rel.type == IDENT:
                for other in self.incoming_idents.get(rel.b, ()):
                    q, j = where[other]
                    if q != p:
                        pairs.add((p, q, i, j) if p < q else (q, p, j, i))
        first: dict[RelKey, tuple[int, int, int, int]] = {}
        templates = self.templates
        for place in pairs:
            left, right, i, j = place
            r1 = lists[left][i]
            r2 = lists[right][j]
            key = (r1.type, r2.type, (r1.b == r2.a, r2.b == r1.a, r1.b == r2.b))
            template = templates[key] if key in templates else self._template(key)
            if template is None:
                continue
            ends = (r1.a, r1.b, r2.a, r2.b)
            # a plain tuple: equal to, and hashed as, the Rel it stands for
            result = (ends[template[0]], ends[template[1]], template[2])
            known = first.get(result)
            if known is None or place < known:
                first[result] = place
        return first

    def _template(self, key: tuple[str, str, Pattern]) -> Template:
        templates = self.templates
        if key not in templates:
            templates[key] = _template(key[0], key[1], key[2], self.types)
        return templates[key]

    def _viable(self, kind1: str, kind2: str, patterns: tuple[Pattern, ...]) -> bool:
        """Whether a pair of these types can give a result under one of ``patterns``."""
        key = (kind1, kind2, patterns)
        known = self.viable.get(key)
        if known is None:
            known = self.viable[key] = any(
                self._template((kind1, kind2, pattern)) is not None for pattern in patterns
            )
        return known

    def transitive_pass(self, problems: list[str]) -> bool:
        """One transitive pass; True when a relation was added to the graph."""
        nodes = self.graph.values()
        self._keys = [node.key for node in nodes]
        lists = [list(node) for node in nodes]
        where = {rel: (n, i) for n, rels in enumerate(lists) for i, rel in enumerate(rels)}
        self._where = where
        seeds = [where[rel] for rel in self.fresh if rel in where]
        self.fresh = set()
        places = self._first_places(lists, seeds)
        total = len(self.results) + sum(1 for rel in places if rel not in self.results)
        if total <= self.SMALL:
            places = self._first_places(lists, list(where.values()))
            ordered = JavaHashSet(relation_hash)
            for rel in sorted(places, key=places.__getitem__):
                ordered.add(rel)
            pending = ordered.keys()
        else:
            capacity = DEFAULT_CAPACITY
            while total > capacity * 3 // 4:
                capacity *= 2
            mask = capacity - 1
            new = [rel for rel in places if rel not in self.results]

            def bucket(rel: RelKey) -> tuple[int, tuple[int, int, int, int]]:
                h = relation_hash(rel) & 0xFFFFFFFF
                return ((h ^ (h >> 16)) & mask, places[rel])

            pending = sorted(new, key=bucket)
        self.results.update(places)
        added = False
        for rel in map(Rel._make, pending):
            node = self.graph.get(rel.a)
            if node is None:
                self.missing[rel] = None
                continue
            added = self.add(node, rel) or added
        problems.extend(
            f"COREL com ID inexistente! {rel.a} - Omitido na CD?" for rel in self.missing
        )
        return added


def expand(graph: JavaHashMap[str, Node], types: RelationTypes, problems: list[str]) -> None:
    """Inverse relations and transitive closure (``RelationExpanderM2.expand``)."""
    expansion = Expansion(graph, types)
    expansion.inverse_pass()
    rounds = 0
    while expansion.transitive_pass(problems):
        rounds += 1
        if rounds >= MAX_ITERATIONS:
            break
        expansion.inverse_pass()
