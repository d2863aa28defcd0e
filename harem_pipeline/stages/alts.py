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

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_SPURIOUS,
    MARKER_FIRST_HAREM,
    NULL_LIST,
    SPURIOUS_TAG,
    AltClose,
    AltOpen,
    Evaluation,
    Line,
    Record,
    Tag,
    raw_tag,
    reprint_system,
    reprint_tag,
)
from harem_pipeline.formats.semantic import (
    AltsRecord,
    PlainRecord,
    PlainRun,
    first_harem_markers,
    format_alt_weight,
    format_alts_record,
    lines_holding,
    next_alt_state,
    not_a_record_in_alt,
    read_plain_record,
    read_run,
)
from harem_pipeline.stages.emir import (
    attribute_tuple_set,
    is_plain_spurious,
    is_spurious_tag,
    java_line_end,
    plain_attribute,
    read_header,
)
from harem_pipeline.stages.veus import add_attribute_tuple, is_name_categorised

_SPURIOUS_EVALUATION = Evaluation(EVAL_SPURIOUS, None, None, EVAL_SPURIOUS)


@dataclass(slots=True)
class _Alignment:
    """A record of an alternative as the Java holds it (its gold entity may grow by merging).

    ``record`` is the rebuilt record, or the plain record as read, then
    ``read`` is its gold entity as read (still ``gold`` when nothing was merged).
    """

    gold: Tag
    record: Record | PlainRecord
    read: Tag | None = None


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


def _plain_weighted(alignment: _Alignment, record: PlainRecord, weight: float) -> Line | str:
    """:func:`_weighted` of a plain record: its line as read, suffix replaced by the weight,
    unless a merge changed its gold entity (then the record is rebuilt)."""
    if alignment.gold is alignment.read:
        return f"{record.head}:[{', '.join(record.items)}]{format_alt_weight(weight)}\n"
    read = record.parse(None)
    assert isinstance(read, Record)
    return _weighted(
        Record(alignment.gold, read.system, read.evaluation, MARKER_FIRST_HAREM), weight
    )


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

    def add_plain(self, record: PlainRecord, path: str | None) -> None:
        """:meth:`add` of a plain record, kept as read (the Java's rebuild is the identity)."""
        if not is_plain_spurious(record.gold):
            gold = raw_tag(record.gold)
            self._add_correct(_Alignment(gold, record, gold))
            return
        if record.listed == NULL_LIST:
            raise InputError(
                path, "a system entity on a spurious record", "[null]", line=record.line or None
            )
        self._add_spurious(tuple(raw_tag(entity) for entity in record.entities() or ()))

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

    def lines(self, as_text: bool = False) -> Iterator[Line | str]:
        """The block as the Java writes it; ``as_text``: its ``<ALT>`` lines as written."""
        kept = [alternative for alternative in self.alternatives if alternative]
        weight = 1.0 / len(kept) if kept else 1.0
        yield "<ALT>\n" if as_text else AltOpen(None)
        for number, alternative in enumerate(kept, start=1):
            yield f"<ALT{number}>\n" if as_text else AltOpen(number)
            for alignment in alternative:
                record = alignment.record
                if type(record) is PlainRecord:
                    yield _plain_weighted(alignment, record, weight)
                    continue
                if alignment.gold is not record.gold:
                    record = Record(alignment.gold, record.system, record.evaluation, record.marker)
                yield _weighted(record, weight)
            yield f"</ALT{number}>\n" if as_text else AltClose(number)
        for entity in self.spurious:
            yield Record(
                spurious_gold(entity), (entity,), (_SPURIOUS_EVALUATION,), MARKER_FIRST_HAREM
            )
        yield "</ALT>\n" if as_text else AltClose(None)


def organise_alts(
    lines: Iterable[Line | PlainRecord | PlainRun], path: str | None = None
) -> Iterator[Line | str]:
    """The ``.alts`` lines of a Véus file's lines (header first, required).

    A :class:`~harem_pipeline.formats.semantic.PlainRecord` outside the ALT
    blocks gives its line as written text (line end included), the text the
    general path writes; inside a block it is kept as read unless a merge
    changes it.  A :class:`~harem_pipeline.formats.semantic.PlainRun` is
    copied whole up to its next ``<ALT>`` line, and read a line at a time
    from there to the end of the block.
    """
    stream = iter(lines)
    header = read_header(stream, path)  # type: ignore[arg-type]
    yield java_line_end(header)
    organiser = _Organiser(path)
    for item in stream:
        if type(item) is PlainRun:
            yield from read_run(item, organiser)  # type: ignore[arg-type]
        else:
            yield from organiser.line(item)  # type: ignore[arg-type]


class _Organiser:
    """The Java's states (0 outside blocks, 1 after ``<ALT>``, 2 in an alternative, 3 after
    ``</ALTn>``), the block being read and the IDs of the entities left spurious in blocks."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.state = 0
        self.block = _Block()
        self.left_ids: set[str] = set()

    def line(self, item: Line | PlainRecord) -> Iterator[Line | str]:
        """The output of one line."""
        state, path = self.state, self.path
        if type(item) is PlainRecord:
            if state == 0:
                if not is_plain_spurious(item.gold) or not _plain_left_in_alt(item, self.left_ids):
                    yield item.head + ":" + item.tail + "\n"
                return
            if state == 2:
                self.block.add_plain(item, path)
                return
            item = item.parse(path)
        kind = type(item)
        if kind is AltOpen or kind is AltClose:
            output = self.alt(kind is AltOpen, item.n)  # type: ignore[union-attr]
            if output is not None:
                yield from output
                return
        if state == 2:
            if not isinstance(item, Record):
                raise not_a_record_in_alt(item, path)
            self.block.add(item, path)
        elif not isinstance(item, Record):
            yield java_line_end(item)
        elif not is_spurious_tag(item.gold) or not _left_in_alt(item, self.left_ids):
            yield java_line_end(item)

    def alt(
        self, opening: bool, n: int | None, as_text: bool = False
    ) -> Iterable[Line | str] | None:
        """The state change of an ``<ALT>`` line (``<ALTn>``, ``</ALTn>``, ``</ALT>``);
        its output, or None when the Java reads it as a line outside the states it expects."""
        state = next_alt_state(self.state, opening, n)
        if state is None:
            return None
        self.state = state
        if state == 1:
            self.block = _Block()
        elif state == 2:
            self.block.current = []
        elif state == 3:
            self.block.close_alternative()
        else:
            spurious = self.block.spurious
            self.left_ids.update(e.attr("ID") for e in spurious if e.attr("ID") is not None)  # type: ignore[misc]
            return self.block.lines(as_text)
        return ()

    def copy(self, text: str) -> Iterator[str]:
        """Lines of a run outside ALT blocks, as :func:`_copy_run` gives them."""
        return _copy_run(text, self.left_ids)

    def run_alt(self, opening: bool, n: int | None) -> Iterable[Line | str] | None:
        """:meth:`alt` of an ``<ALT>`` line of a run: a block's lines as text."""
        return self.alt(opening, n, as_text=True)


def _left_in_alt(record: Record, left_ids: set[str]) -> bool:
    if not record.system:
        return False
    first = record.system[0].attr("ID")
    return first is not None and first in left_ids


def _plain_left_in_alt(record: PlainRecord, left_ids: set[str]) -> bool:
    """:func:`_left_in_alt` of a plain record."""
    if not left_ids or record.listed == NULL_LIST:
        return False
    first = plain_attribute(record.entities()[0], "ID")  # type: ignore[index]
    return first is not None and first in left_ids


def _copy_run(text: str, left_ids: set[str]) -> Iterator[str]:
    """Lines of a run as written (marker ``:``), without the spurious records of an entity
    left in a block."""
    text = first_harem_markers(text)
    if not left_ids:
        yield text
        return
    start = 0
    for line in lines_holding(text, "ESPURIO"):
        end = text.index("\n", line)
        record = read_plain_record(text[line:end])  # None for a DOC line
        if (
            record is not None
            and is_plain_spurious(record.gold)
            and _plain_left_in_alt(record, left_ids)
        ):
            yield text[start:line]
            start = end + 1
    yield text[start:]
