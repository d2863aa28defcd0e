"""The ALT organiser: ``.veu`` → ``.veu.alts``, every ALT record with its weight ``^1/n``.

The 2010 Java ``AltAlignmentOrganizer``, line by line:

* outside ``<ALT>`` blocks lines are copied, except a spurious record whose
  first system entity has the ID of a system entity already listed as
  spurious inside an earlier ALT block (anywhere in the file: the Java never
  forgets them);
* inside a block, each alternative ``<ALTn>`` keeps its non-spurious
  records.  An alternative with the same gold segmentation (the list of
  gold texts) as an earlier one is merged into it: each gold entity gains
  the (category, type, subtype) tuples of its counterpart it lacks, so the
  two become one vague entity.  Empty alternatives are dropped and the
  remaining ``n`` renumbered ``<ALT1>…<ALTn>``, each record ending in ``^w``,
  ``w = 1/n`` (as Java prints it);
* the spurious records inside the alternatives give the block's spurious
  system entities: an entity is kept unless its text is the gold text of
  an earlier alternative or of an earlier record of its own alternative,
  and a later gold entity with the same text takes it back out.  They are
  written after the last ``</ALTn>`` as ``<EM CATEG="ESPURIO">text</EM> --->
  [entity]:[Espurio]`` with weight 1 (no suffix).

The states are the Java's: ``<ALT>`` (state 1), ``<ALTn>`` (2), ``</ALTn>`` (3),
``</ALT>`` back to 0; only ``<ALT1>``…``<ALT9>`` are alternatives for it, and a
line it does not expect in states 1 and 3 is treated as outside any block.
Records the Java rebuilds (those inside blocks) are written as it writes
them back (:func:`~harem_pipeline.formats.alinhado.reprint_tag`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_SPURIOUS,
    MARKER_FIRST_HAREM,
    SPURIOUS_TAG,
    AltClose,
    AltOpen,
    Evaluation,
    Line,
    Record,
    Tag,
    parse_line,
    reprint_system,
    reprint_tag,
)
from harem_pipeline.formats.semantic import (
    AltBlockReader,
    AltsRecord,
    AltState,
    SemanticRecord,
    ended_outside_alt,
    format_alts_record,
    not_a_record_in_alt,
)
from harem_pipeline.stages.emir import (
    attribute_tuple_set,
    headed,
    is_spurious_key,
    is_spurious_tag,
    java_line_end,
)
from harem_pipeline.stages.veus import add_attribute_tuple, is_name_categorised

_SPURIOUS_EVALUATION = Evaluation(EVAL_SPURIOUS, None, None, EVAL_SPURIOUS)


@dataclass(slots=True)
class _Alignment:
    """A record of an alternative as the Java holds it (its gold entity may grow by merging)."""

    gold: Tag
    record: Record


def merge_alternative(existing: list[_Alignment], other: list[_Alignment]) -> None:
    """Give each gold entity of ``existing`` the tuples of its counterpart in ``other``."""
    for mine, theirs in zip(existing, other, strict=False):
        for item in attribute_tuple_set(theirs.gold):
            if item not in attribute_tuple_set(mine.gold):
                mine.gold = add_attribute_tuple(mine.gold, item, name_holds_categories=True)


def spurious_gold(entity: Tag) -> Tag:
    """The gold side the Java gives a spurious entity: its text, ``CATEG="ESPURIO"`` only."""
    if is_name_categorised(entity):
        return Tag(SPURIOUS_TAG, (), entity.text)
    return Tag(entity.name, (("CATEG", SPURIOUS_TAG),), entity.text)


def _weighted(record: Record, weight: float) -> Record:
    return format_alts_record(AltsRecord(record, weight))


class _Block:
    """The state of one ``<ALT>`` block being read."""

    def __init__(self) -> None:
        self.alternatives: list[list[_Alignment]] = []
        self.by_segmentation: dict[tuple[str, ...], list[_Alignment]] = {}
        self.spurious: list[Tag] = []
        self.current: list[_Alignment] = []

    def close_alternative(self) -> None:
        segmentation = tuple(alignment.gold.text for alignment in self.current)
        existing = self.by_segmentation.get(segmentation)
        if existing is None:
            self.alternatives.append(self.current)
            self.by_segmentation[segmentation] = self.current
        else:
            merge_alternative(existing, self.current)

    def add(self, record: Record, path: str | None) -> None:
        gold = reprint_tag(record.gold)
        system = reprint_system(record.system)
        rebuilt = Record(gold, system, record.evaluation, MARKER_FIRST_HAREM, "", "\n", record.line)
        if not is_spurious_tag(gold):
            self._add_correct(_Alignment(gold, rebuilt))
            return
        if system is None:
            raise InputError(
                path, "a system entity on a spurious record", "[null]", line=record.line or None
            )
        self._add_spurious(system)

    def _add_correct(self, alignment: _Alignment) -> None:
        self.current.append(alignment)
        text = alignment.gold.text
        for index, entity in enumerate(self.spurious):
            if entity.text == text:
                del self.spurious[index]
                break

    def _add_spurious(self, system: tuple[Tag, ...]) -> None:
        earlier = {a.gold.text for alternative in self.alternatives for a in alternative}
        own = {a.gold.text for a in self.current}
        for entity in system:
            # the Java's entities are equal when they print the same (HaremEntity.equals)
            if (
                entity not in self.spurious
                and entity.text not in earlier
                and entity.text not in own
            ):
                self.spurious.append(entity)

    def lines(self) -> Iterator[Line]:
        """The block as the Java writes it."""
        kept = [alternative for alternative in self.alternatives if alternative]
        weight = 1.0 / len(kept) if kept else 1.0
        yield AltOpen(None)
        for number, alternative in enumerate(kept, start=1):
            yield AltOpen(number)
            for alignment in alternative:
                record = alignment.record
                if alignment.gold is not record.gold:
                    record = Record(alignment.gold, record.system, record.evaluation, record.marker)
                yield _weighted(record, weight)
            yield AltClose(number)
        for entity in self.spurious:
            yield Record(
                spurious_gold(entity), (entity,), (_SPURIOUS_EVALUATION,), MARKER_FIRST_HAREM
            )
        yield AltClose(None)


class LeftInAlt(NamedTuple):
    """The IDs of the system entities an ALT block left spurious, from here on."""

    ids: frozenset[str]


class UnlessLeft(NamedTuple):
    """A spurious record outside the ALT blocks (its line as written, line end included),
    dropped when an earlier block left the ID of its first system entity spurious."""

    text: str


def first_system_id(text: str) -> str | None:
    """The ID of the first system entity of a record's line (None: no entity, no ID);
    read only when some block has left an entity, which few files' blocks do."""
    record = parse_line(text)
    system = record.system if isinstance(record, Record) else None
    return system[0].attr("ID") if system else None


T = TypeVar("T")


def drop_left_in_alt(items: Iterable[T | LeftInAlt | UnlessLeft]) -> Iterator[T | str]:
    """The lines of :func:`organised_lines` (or of its blocks, in the file's order) with
    the records left in an earlier block dropped: the Java never forgets those IDs."""
    left: set[str] = set()
    for item in items:
        if isinstance(item, UnlessLeft):
            if not left or first_system_id(item.text) not in left:
                yield item.text
        elif isinstance(item, LeftInAlt):
            left.update(item.ids)
        else:
            yield item


def organise_alts(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.alts`` lines of a Véus file's lines (header first, required): a record
    outside the ALT blocks written back as read, the records inside a block read whole
    and rebuilt as the Java rebuilds them."""
    return headed(lines, path, lambda stream: settle_alts(organised_lines(stream, path), path))


def organised_lines(
    lines: Iterable[Line | SemanticRecord], path: str | None = None
) -> Iterator[Line | str | LeftInAlt | UnlessLeft | AltState]:
    """The ``.alts`` lines of a Véus file's lines after its header (or of a block of
    them cut outside ALT blocks), a record that an earlier block may have left marked so,
    and the state the lines end in (:func:`settle_alts` settles both)."""
    return _Organiser(path).read(lines)


def settle_alts(
    pieces: Iterable[T | LeftInAlt | UnlessLeft | AltState], path: str | None
) -> Iterator[T | str]:
    """:func:`organised_lines`' pieces (of the whole file, or of its blocks in order) as
    written: :func:`~harem_pipeline.formats.semantic.ended_outside_alt`, then
    :func:`drop_left_in_alt`."""
    kept: Iterator[T | LeftInAlt | UnlessLeft] = ended_outside_alt(pieces, path)
    return drop_left_in_alt(kept)


class _Organiser(AltBlockReader[Line | str | LeftInAlt | UnlessLeft]):
    """The Java's states (0 outside blocks, 1 after ``<ALT>``, 2 in an alternative, 3 after
    ``</ALTn>``) and the block being read."""

    def __init__(self, path: str | None) -> None:
        super().__init__(path)
        self.block = _Block()

    def other(self, item: Line | SemanticRecord) -> Iterable[Line | str | UnlessLeft]:
        """A record of an alternative is kept for the block; any other line is copied, a
        spurious record outside blocks unless an earlier block left it."""
        if self.state == 2:
            if not isinstance(item, SemanticRecord):
                raise not_a_record_in_alt(item, self.path)
            self.block.add(item.record(self.path, parse_line), self.path)
            return ()
        if not isinstance(item, SemanticRecord):
            return (java_line_end(item),)
        text = item.unchanged() + "\n"
        return (UnlessLeft(text),) if is_spurious_key(item.key.gold) else (text,)

    def entered(self, state: int) -> Iterable[Line | str | LeftInAlt]:
        """A new block, a new alternative, an alternative closed, or the block written."""
        if state == 1:
            self.block = _Block()
        elif state == 2:
            self.block.current = []
        elif state == 3:
            self.block.close_alternative()
        else:
            left = frozenset(i for e in self.block.spurious if (i := e.attr("ID")) is not None)
            marks = (LeftInAlt(left),) if left else ()  # a mark splits a worker's output
            return itertools.chain(marks, self.block.lines())
        return ()
