"""Emir: the combined semantic classification (CSC) of every aligned pair.

Reads an ``.alts`` file (the ALT organiser's output) and writes ``.emir``:
each record's evaluation part becomes one :class:`SemanticScore` per
aligned system entity.  The scoring is the 2010 Java
``SemanticAlignmentEvaluator`` + ``AttributesEvaluation``, reproduced
operation for operation so that every printed digit agrees:

* the evaluation veil is the file's first line (the Véus header); Ncat,
  Ntype(cat) and Nsub(cat, type) are counted in it (0 counts as 1);
* the gold and system entities become sets of (category, type, subtype)
  tuples restricted to the veil; categories are matched first, then types
  among the tuples left, then subtypes (``AttributesEvaluation.evaluate``);
* ``CSC = id + Σ_cat α(1 − 1/Ncat) + Σ_type β(1 − 1/Ntype) + Σ_sub γ(1 − 1/Nsub)``
  summed in the iteration order of the Java ``HashSet`` the tuples live in
  (:class:`JavaHashSet` reproduces it: floating-point sums depend on it);
  0 when the gold side is spurious or the system side is ``[null]``;
* ``MaxCSC_CD`` / ``MaxCSC_S``: the CSC of the gold / system entity against itself.

Java quirks kept (each shows in the reference outputs):

* **penalties are never subtracted.**  ``AttributesEvaluation`` keeps the
  penalties switch in a static field that its constructor never sets, so
  the Java computes ``Σ spurious`` and drops it, with ``-penalizacoes sim``
  as with ``nao`` (exemplo0, ``cd6``: type CLASSE spurious, CSC(1.9) =
  1 + 0.9).  ``penalties=True`` here is the formula of the documentation
  (subtract them); the default, False, is what the Java prints.
* a spurious level is recorded only when it shares the upper levels with
  every one recorded before (``AttributeEvaluation.addSpurious``), so at most
  one spurious category is listed; missing likewise.
* types are matched on the type name only, subtypes on the subtype name only,
  among the tuples left by the level above.

First HAREM entities (``<LOCAL TIPO="…">``) carry their category as the
element name; they are read so here (the Java reads only ``CATEG``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_CORRECT,
    IDENTIFICATION_KINDS,
    PARTIAL_KINDS,
    SPURIOUS_TAG,
    DocumentLine,
    Header,
    Line,
    Record,
    Tag,
    parse_evaluation,
    parse_line,
)
from harem_pipeline.formats.semantic import (
    ClassicKey,
    LevelResult,
    RecordKey,
    SemanticRecord,
    SemanticScore,
    as_semantic,
    at_line,
    classic_key,
    parse_alt_weight,
    scored_tail,
)
from harem_pipeline.formats.veils import GRID_2005_PATH, format_veil, parse_veil, read_grid
from harem_pipeline.model import EVERYTHING, Grid
from harem_pipeline.stages.veus import is_name_categorised
from harem_pipeline.text import PathLike
from harem_pipeline.text.java import java_split_bar, java_string_hash
from harem_pipeline.text.memo import keyed_cache

DEFAULT_WEIGHTS = (1.0, 1.0, 0.5, 0.25)
"""``id;α;β;γ``: identification, category, type, subtype weights (Java defaults)."""

AttributeTuple = tuple[str | None, str | None, str | None]


# ---------------------------------------------------------------------------
# Java HashSet iteration order


@keyed_cache()
def tuple_hash(item: AttributeTuple) -> int:
    """``AttributeTuple.hashCode``: 31-based over category, subtype, type (that order)."""
    result = 1
    for part in (item[0], item[2], item[1]):
        result = (31 * result + java_string_hash(part)) & 0xFFFFFFFF
    return result


def _bucket(h: int, capacity: int) -> int:
    return (h ^ (h >> 16)) & (capacity - 1)


class JavaHashSet:
    """A set iterated in the order of a Java 8 ``HashSet`` of :data:`AttributeTuple`.

    Buckets ``(h ^ h>>>16) & (capacity-1)``, insertion order inside a
    bucket; the table starts at 16 and doubles past 3/4 load, never
    shrinking (removals keep the capacity).  Small and mutable on purpose:
    it mirrors the Java algorithm step by step and never leaves this module's
    functions.
    """

    __slots__ = ("_items", "_next", "_capacity", "_order")

    def __init__(self, items: Iterable[AttributeTuple] = ()) -> None:
        self._items: dict[AttributeTuple, int] = {}
        self._next = 0
        self._capacity = 16
        self._order: list[AttributeTuple] | None = None
        for item in items:
            self.add(item)

    def add(self, item: AttributeTuple) -> None:
        if item in self._items:
            return
        self._items[item] = self._next
        self._next += 1
        self._order = None
        if len(self._items) > self._capacity * 3 // 4:
            self._capacity *= 2

    def remove(self, item: AttributeTuple) -> None:
        if self._items.pop(item, None) is not None:
            self._order = None

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[AttributeTuple]:
        order = self._order
        if order is None:
            items, capacity = self._items, self._capacity
            if len(items) <= 1:
                order = list(items)
            else:
                order = sorted(items, key=lambda t: (_bucket(tuple_hash(t), capacity), items[t]))
            self._order = order
        return iter(order)


# ---------------------------------------------------------------------------
# Entities: classic attribute lists as the Java reads them


@keyed_cache()
def _split_key(key: ClassicKey) -> tuple[list[str], list[str], list[str]]:
    return java_split_bar(key[0]), java_split_bar(key[1]), java_split_bar(key[2])


def classic_lists(tag: Tag) -> tuple[list[str], list[str], list[str]]:
    """The CATEG, TIPO and SUBTIPO lists (vague values split on ``|``); do not mutate them."""
    return _split_key(classic_key(tag))


def key_lists(key: ClassicKey) -> tuple[list[str], list[str], list[str]]:
    """:func:`classic_lists` of an entity's classic values; do not mutate them."""
    return _split_key(key)


def key_categories(key: ClassicKey) -> list[str]:
    """Distinct non-empty categories of an entity's classic values, in order (none for a
    spurious gold side)."""
    return [c for c in dict.fromkeys(_split_key(key)[0]) if c and c != SPURIOUS_TAG]


def is_spurious_tag(tag: Tag) -> bool:
    """``NamedEntity.isSpurious``: ESPURIO among the categories."""
    return is_spurious_key(classic_key(tag))


def is_spurious_key(key: ClassicKey) -> bool:
    """:func:`is_spurious_tag` of an entity's classic values."""
    return SPURIOUS_TAG in _split_key(key)[0]


def attribute_tuple_set(tag: Tag) -> JavaHashSet:
    """``NamedEntity.getAttributeTupleSet``: the i-th category with the i-th type and subtype."""
    cats, types, subs = classic_lists(tag)
    result = JavaHashSet()
    for i, cat in enumerate(cats):
        typ = types[i] if i < len(types) else None
        sub = subs[i] if i < len(subs) else None
        result.add((cat or None, typ or None, sub or None))
    return result


# ---------------------------------------------------------------------------
# The evaluation veil


@dataclass(frozen=True, slots=True, eq=False)
class Filter:
    """The evaluation veil as Emir counts in it: category → type → number of subtypes."""

    tree: dict[str | None, dict[str | None, frozenset[str]]]
    """Looked up with an entity's values, which may be missing (None: no such node)."""
    text: str

    @property
    def category_count(self) -> int:
        return len(self.tree)

    def type_count(self, cat: str | None) -> int:
        return len(self.tree.get(cat, ()))

    def subtype_count(self, cat: str | None, typ: str | None) -> int:
        return len(self.tree.get(cat, {}).get(typ, ()))

    def valid_tuples(self, key: ClassicKey) -> JavaHashSet:
        """``EntitiesAttributesTree.getValidTuples`` of an entity's classic values:
        values outside the veil become None."""
        cats, types, subs = _split_key(key)
        result = JavaHashSet()
        tree = self.tree
        for i, cat in enumerate(cats):
            node = tree.get(cat)
            if node is None:
                continue
            kept_type = kept_sub = None
            typ = types[i] if i < len(types) else None
            subs_of = node.get(typ) if typ is not None else None
            if subs_of is not None:
                kept_type = typ
                sub = subs[i] if i < len(subs) else None
                if sub is not None and sub in subs_of:
                    kept_sub = sub
            result.add((cat, kept_type, kept_sub))
        return result


def filter_from_header(
    header: str, grid: Grid, path: str | None = None, line: int | None = 1
) -> Filter:
    """The veil of a Véus header line (``#…``, the text after ``#``), checked against ``grid``.

    ``*`` is the whole grid.  A category, type or subtype the grid does not
    know is an input error naming the file and line (the Java would count it
    silently).
    """
    try:
        veil = parse_veil(header, grid, path)
    except InputError as exc:
        raise InputError(
            path, f"a Véus veil of the grid ({exc.expected})", exc.found, line=line
        ) from None
    tree: dict[str | None, dict[str | None, frozenset[str]]] = {
        cat: {typ: frozenset(subs) for typ, subs in types} for cat, types in veil.tree
    }
    return Filter(tree, header)


# ---------------------------------------------------------------------------
# One pair


@dataclass(frozen=True, slots=True)
class Weights:
    """The CSC weights ``id;α;β;γ`` and whether penalties are subtracted (see module doc)."""

    identification: float = DEFAULT_WEIGHTS[0]
    alpha: float = DEFAULT_WEIGHTS[1]
    beta: float = DEFAULT_WEIGHTS[2]
    gamma: float = DEFAULT_WEIGHTS[3]
    penalties: bool = False

    def text(self) -> str:
        """``id;α;β;γ`` as given on the command line."""
        return ";".join(repr(x) for x in (self.identification, self.alpha, self.beta, self.gamma))


def parse_weights(text: str | None, penalties: bool = False, source: str = "--weights") -> Weights:
    """``"id;α;β;γ"`` (four numbers) → :class:`Weights`; None gives the defaults."""
    if text is None:
        return Weights(penalties=penalties)
    parts = text.split(";")
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        numbers = []
    if len(numbers) != 4 or any(x != x or x in (float("inf"), float("-inf")) for x in numbers):
        raise InputError(source, "four numbers id;α;β;γ such as 1;1;0.5;0.25", repr(text))
    identification, alpha, beta, gamma = numbers
    return Weights(identification, alpha, beta, gamma, penalties=penalties)


class _Level:
    """``AttributeEvaluation``: correct, spurious and missing tuples of one level."""

    __slots__ = ("depth", "correct", "spurious", "missing")

    def __init__(self, depth: int) -> None:
        self.depth = depth  # 1 category, 2 type, 3 subtype
        self.correct = JavaHashSet()
        self.spurious = JavaHashSet()
        self.missing = JavaHashSet()

    def same_upper(self, a: AttributeTuple, b: AttributeTuple) -> bool:
        return a[: self.depth] == b[: self.depth]

    def add_correct(self, item: AttributeTuple) -> None:
        if any(self.same_upper(item, other) for other in self.correct):
            return
        self.correct.add(item)

    def add_spurious(self, item: AttributeTuple) -> None:
        if any(not self.same_upper(item, other) for other in self.spurious):
            return
        self.spurious.add(item)

    def add_missing(self, item: AttributeTuple) -> None:
        if any(not self.same_upper(item, other) for other in self.missing):
            return
        self.missing.add(item)

    def values(self, items: JavaHashSet) -> tuple[str, ...]:
        index = self.depth - 1
        return tuple(
            "null" if v is None else v for v in dict.fromkeys(item[index] for item in items)
        )

    def result(self) -> LevelResult:
        return LevelResult(
            self.values(self.correct), self.values(self.spurious), self.values(self.missing)
        )


def _differing(items: JavaHashSet, correct: JavaHashSet, index: int) -> JavaHashSet:
    """``getTuplesWithDifferentAttribute``: a new set of the tuples whose value is not correct."""
    known = {item[index] for item in correct}
    return JavaHashSet(
        item for item in items if item[index] is not None and item[index] not in known
    )


def _match_levels(gold: JavaHashSet, system: JavaHashSet) -> tuple[_Level, _Level, _Level]:
    levels = (_Level(1), _Level(2), _Level(3))
    for index, level in enumerate(levels):
        for part in system:
            value = part[index]
            for golden in gold:
                if golden[index] is not None and golden[index] == value:
                    level.add_correct(part)
                    break
        spurious = _differing(system, level.correct, index)
        missing = _differing(gold, level.correct, index)
        for item in spurious:
            level.add_spurious(item)
            system.remove(item)
        for item in missing:
            if index > 0 or item[0] != SPURIOUS_TAG:
                level.add_missing(item)
            gold.remove(item)
    return levels


def _csc(levels: Sequence[_Level], filt: Filter, weights: Weights) -> float:
    """``getCombinedSemanticClassification`` in the Java's order of operations."""
    total = weights.identification
    penalty = 0.0
    cats = filt.category_count or 1.0
    categories, types, subtypes = levels
    for _ in categories.correct:
        total += (1 - (1 / cats)) * weights.alpha
    for _ in categories.spurious:
        penalty += (1 / cats) * weights.alpha
    for item in types.correct:
        n = filt.type_count(item[0]) or 1.0
        total += (1 - (1 / n)) * weights.beta
    for item in types.spurious:
        n = filt.type_count(item[0]) or 1.0
        penalty += (1 / n) * weights.beta
    for item in subtypes.correct:
        n = filt.subtype_count(item[0], item[1]) or 1.0
        total += (1 - (1 / n)) * weights.gamma
    for item in subtypes.spurious:
        n = filt.subtype_count(item[0], item[1]) or 1.0
        penalty += (1 / n) * weights.gamma
    return total - penalty if weights.penalties else total


_EMPTY_LEVELS = LevelResult()
Levels = tuple[LevelResult, LevelResult, LevelResult]
"""An item's category, type and subtype results."""


@keyed_cache()
def _pair_evaluation(
    gold: ClassicKey, system: ClassicKey, filt: Filter, weights: Weights
) -> tuple[Levels, float]:
    levels = _match_levels(filt.valid_tuples(gold), filt.valid_tuples(system))
    category, typ, subtype = levels
    return (category.result(), typ.result(), subtype.result()), _csc(levels, filt, weights)


_NO_LEVELS = (_EMPTY_LEVELS, _EMPTY_LEVELS, _EMPTY_LEVELS)


def _max_csc_of(key: ClassicKey, filt: Filter, weights: Weights) -> float:
    """``getMaximumCSC``: the entity's classic values scored against themselves (0 if
    spurious)."""
    if SPURIOUS_TAG in _split_key(key)[0]:
        return 0.0
    return _pair_evaluation(key, key, filt, weights)[1]


@keyed_cache()
def _pair_scores(
    gold: ClassicKey, system: ClassicKey | None, filt: Filter, weights: Weights
) -> tuple[Levels, float, float, float]:
    """Levels, CSC, MaxCSC_CD and MaxCSC_S of a pair of classic values (``system`` None: [null])."""
    if system is None or SPURIOUS_TAG in _split_key(gold)[0]:
        results, csc = _NO_LEVELS, 0.0
    else:
        results, csc = _pair_evaluation(gold, system, filt, weights)
    max_system = 0.0 if system is None else _max_csc_of(system, filt, weights)
    return results, csc, _max_csc_of(gold, filt, weights), max_system


def score_pair(
    gold: Tag,
    system: Tag | None,
    identification_weight: float,
    alt_weight: float,
    filt: Filter,
    weights: Weights,
) -> SemanticScore:
    """The Emir item of one aligned pair (``system`` None for ``[null]``)."""
    key = None if system is None else classic_key(system)
    return score_keys(classic_key(gold), key, identification_weight, alt_weight, filt, weights)


def score_keys(
    gold: ClassicKey,
    system: ClassicKey | None,
    identification_weight: float,
    alt_weight: float,
    filt: Filter,
    weights: Weights,
) -> SemanticScore:
    """:func:`score_pair` of the two entities' classic values."""
    results, csc, max_gold, max_system = _pair_scores(gold, system, filt, weights)
    return SemanticScore(
        *results,
        max_csc_gold=max_gold,
        max_csc_system=max_system,
        csc=csc,
        weight=identification_weight,
        alt_weight=None if alt_weight == 1 else alt_weight,
    )


def identification_weight(kind: str, weight: float | None) -> float:
    """``Peso``: 1 for Correcto, w for a partial match, 0 otherwise."""
    if kind == EVAL_CORRECT:
        return 1.0
    if kind in PARTIAL_KINDS and weight is not None:
        return weight
    return 0.0


# ---------------------------------------------------------------------------
# A whole file


@dataclass(frozen=True, slots=True)
class EmirParams:
    """Emir's options: weights (and penalties), the relative scenario, the grid."""

    weights: Weights = Weights()
    relative: bool = False
    grid_path: str | None = None


def is_first_harem_line(item: Line | SemanticRecord, path: str | None = None) -> bool:
    """A First HAREM document line, or a record whose entities carry the category as the name."""
    if isinstance(item, DocumentLine):
        return True
    if type(item) is SemanticRecord:
        item = item.record(path, parse_line)
    return isinstance(item, Record) and is_name_categorised(item.gold)


def choose_grid(first_harem: bool, grid_path: PathLike | None) -> Grid:
    """``grid_path`` when given, else the 2005 grid for First HAREM input, else ``harem.conf``."""
    if grid_path is not None:
        return read_grid(grid_path)
    return read_grid(GRID_2005_PATH if first_harem else None)


def header_filter(
    header: Header,
    first_harem: bool,
    grid_path: PathLike | None,
    path: str | None,
) -> Filter:
    """The filter of a Véus header; a First HAREM file whose header is the whole 2008 grid
    (Véus run with its default grid) is read with the whole 2005 grid instead."""
    grid = choose_grid(first_harem, grid_path)
    text = header.text
    if first_harem and grid_path is None and text.strip() != EVERYTHING:
        default = read_grid(None)
        if text == format_veil(parse_veil(None, default)):
            text = EVERYTHING
    return filter_from_header(text, grid, path, header.line or 1)


def peek_format(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> tuple[bool, Iterator[Line | SemanticRecord]]:
    """Whether the file is First HAREM (from its first record or document line), and its
    lines, each record as a :class:`~harem_pipeline.formats.semantic.SemanticRecord`."""
    buffered: list[Line | SemanticRecord] = []
    iterator = map(as_semantic, lines)
    first_harem = False
    for item in iterator:
        buffered.append(item)
        if isinstance(item, (Record, DocumentLine, SemanticRecord)):
            first_harem = is_first_harem_line(item, path)
            break

    def chained() -> Iterator[Line | SemanticRecord]:
        yield from buffered
        yield from iterator

    return first_harem, chained()


def read_header(lines: Iterator[Line | SemanticRecord], path: str | None) -> Header:
    """The first line, which must be the Véus header ``#veil``."""
    first = next(lines, None)
    if not isinstance(first, Header):
        found = "an empty file" if first is None else type(first).__name__
        raise InputError(path, "the Véus header line #<veil> first (a Véus output)", found, line=1)
    return first


def opening_header(
    lines: Iterator[Line | SemanticRecord], path: str | None
) -> tuple[Header | None, Iterator[Line | SemanticRecord]]:
    """The file's header (:func:`read_header`: required) when ``lines`` start the file, else
    None (a later block of it), and the lines after it."""
    first = next(lines, None)
    if first is None or first.line == 1:
        return read_header(iter(() if first is None else (first,)), path), lines
    return None, itertools.chain((first,), lines)


def headed(
    lines: Iterable[Line | SemanticRecord],
    path: str | None,
    body: Callable[[Iterator[Line | SemanticRecord]], Iterable[Line | str]],
) -> Iterator[Line | str]:
    """A whole file's lines through a stage's ``body``, after its header line (required),
    written as the Java writes it (the library form of a semantic stage; its file step
    runs ``body`` a block at a time)."""
    stream = iter(lines)
    yield java_line_end(read_header(stream, path))
    yield from body(stream)


def evaluate_lines(
    lines: Iterable[Line | SemanticRecord],
    params: EmirParams = EmirParams(),
    path: str | None = None,
) -> Iterator[Line | str]:
    """The ``.emir`` lines of ``.alts`` lines: header and structure copied, each record
    its head as the chain writes it back and the evaluation part of its key
    (:func:`emir_tail`)."""
    stream = iter(lines)
    filt, stream = emir_filter(stream, params, path)
    yield java_line_end(read_header(stream, path))
    yield from scored_lines(stream, path, filt, params)


def emir_filter(
    lines: Iterator[Line | SemanticRecord], params: EmirParams, path: str | None = None
) -> tuple[Filter, Iterator[Line | SemanticRecord]]:
    """The filter of a file's header line (required) and format (from its first record or
    document line), and its lines, every one still to read."""
    first_harem, stream = peek_format(lines, path)
    header = read_header(stream, path)
    filt = header_filter(header, first_harem, params.grid_path, path)
    return filt, itertools.chain((header,), stream)


def scored_lines(
    lines: Iterable[Line | SemanticRecord],
    path: str | None,
    filt: Filter,
    params: EmirParams,
) -> Iterator[Line | str]:
    """The ``.emir`` lines of ``.alts`` lines after the header (or of a block of them):
    structure copied, each record its head as the chain writes it back and the
    evaluation part of its key (:func:`emir_tail`)."""
    for item in lines:
        if not isinstance(item, SemanticRecord):
            yield java_line_end(item)
            continue
        try:
            tail = emir_tail(item.key, filt, params, path)
        except InputError as error:
            raise at_line(error, item.line) from None
        if tail is not None:
            yield item.head() + tail


@keyed_cache()
def emir_tail(key: RecordKey, filt: Filter, params: EmirParams, path: str | None) -> str | None:
    """What Emir writes for an ``.alts`` record of this key from its evaluation marker to
    its line end; None when the relative scenario drops the record.  Checks in the order
    the Java meets them: the evaluation part, the ALT weight, the items, their count."""
    if key.items is None:
        raise InputError(
            path,
            "an evaluated record GOLD ---> [SYS, ...]:[EVAL, ...] (Véus output)",
            "a record without evaluation",
        )
    written = parse_alt_weight(key.suffix, path)
    alt_weight = 1.0 if written is None else written  # AltsRecord.weight
    items = [parse_evaluation(text) for text in key.items]
    for item in items:
        if item.kind not in IDENTIFICATION_KINDS:
            raise InputError(
                path,
                "identification evaluations (Correcto, Parcialmente_Correcto_por_…, Em_Falta, "
                "Espurio) as Véus or AvalIDa write them",
                item.text,
            )
    if params.relative and (key.systems is None or is_spurious_key(key.gold)):
        return None
    if len(items) != len(key.picks):
        raise InputError(
            path, f"{len(key.picks)} evaluation item(s), one per aligned entity", f"{len(items)}"
        )
    scores = (
        score_keys(
            key.gold,
            entity,
            identification_weight(items[pick].kind, items[pick].weight),
            alt_weight,
            filt,
            params.weights,
        )
        for entity, pick in zip(key.systems or (None,), key.picks, strict=True)
    )
    return scored_tail(scores)


def java_line_end(item: Line) -> Line:
    """``item`` with the Java's ``\\n`` line end (the Java programs print with ``println``)."""
    if item.eol == "\n":
        return item
    if isinstance(item, Record):
        return item.rewritten(item.marker, "\n")
    values = {name: getattr(item, name) for name in item.__slots__}
    values["eol"] = "\n"
    return type(item)(**values)
