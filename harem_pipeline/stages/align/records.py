"""AlinhEM's records: numbered CD and run entities paired through their shared tokens,
and the ``.alinhado`` lines of one document pair.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from harem_pipeline.formats.alinhado import (
    SPURIOUS_TAG,
    AltClose,
    AltOpen,
    Line,
    ManualCheck,
    Record,
    Tag,
    format_line,
    format_record_parts,
    format_tag,
)
from harem_pipeline.model import EM_TAG, Document
from harem_pipeline.stages.align.items import document_items
from harem_pipeline.stages.align.numbering import (
    Aligned,
    NumberedAlt,
    NumberedEntity,
    collect_markable,
    new_numbered_entity,
    number_entities,
    tag_string,
)
from harem_pipeline.text.java import java_hash_order, java_trim

FAULTY_TOKENS = "Os \u00e1tomos seguintes n\u00c3o foram correctamente identificados: "
CHECK_ALIGNMENT = "Verifique o seguinte alinhamento: "

_SPURIOUS_KEY = "ESPURIO"
_SPURIOUS_SHOWN = f' CATEG="{SPURIOUS_TAG}"'


@dataclass(slots=True)
class _Entry:
    """One printed alignment: its key (entity, or spurious slot number) and aligned items."""

    key: Aligned | int
    values: dict[str, NumberedEntity | None] = field(default_factory=dict)


def _spurious_tag(text: str, xml: bool) -> Tag:
    if xml:
        return Tag(EM_TAG, (("CATEG", SPURIOUS_TAG),), text)
    return Tag(SPURIOUS_TAG, (), text)


def _run_index(run_entities: Sequence[Aligned]) -> dict[tuple[str, int], list[NumberedEntity]]:
    """Run entities by numbered token; entities without one get their own ``ESPURIO`` slot."""
    index: dict[tuple[str, int], list[NumberedEntity]] = {}
    empty = 0
    for item in run_entities:
        for named in item.entities if isinstance(item, NumberedAlt) else (item,):
            if named.marks:
                for mark in named.marks:
                    index.setdefault(mark[1:], []).append(named)  # mark.numbered
                continue
            empty += 1
            wrapped = f"<{empty}>{named.marked}</{empty}>"
            alone = new_numbered_entity(
                named.tag, named.attributes, named.text, wrapped, (), named.omitted
            )
            index.setdefault((_SPURIOUS_KEY, empty), []).append(alone)
    return index


def _shares_token(left: NumberedEntity | NumberedAlt, right: NumberedEntity) -> bool:
    numbered = {mark[1:] for mark in left.marks}  # mark.numbered, built in C
    return any(mark[1:] in numbered for mark in right.marks)


# A record before it is written: its gold side (a numbered CD entity, or a
# spurious tag) and the system entities aligned to it (None: ``[null]``).
RecordItem = tuple[NumberedEntity | Tag, list[NumberedEntity] | None]


def _system(values: Iterable[NumberedEntity | None]) -> list[NumberedEntity] | None:
    named = [value for value in values if value is not None]
    return named or None


def _comparable(
    entity: NumberedEntity, values: Sequence[NumberedEntity | None]
) -> list[NumberedEntity] | None:
    return _system(v for v in values if v is not None and _shares_token(entity, v))


def _alt_lines(
    group: NumberedAlt, values: list[NumberedEntity | None], xml: bool, marked: bool = False
) -> Iterator[RecordItem | Line]:
    yield AltOpen(None)
    missing = None in values
    for number, alternative in enumerate(group.alternatives, start=1):
        yield AltOpen(number)
        named = [item for item in alternative if isinstance(item, NumberedEntity)]
        for entity in named:
            system = _system(values) if missing else _comparable(entity, values)
            yield entity, system
        if not named and not missing:
            for value in values:
                if value is not None:
                    text = java_trim(value.marked if marked else value.text)
                    gold = _spurious_tag(text.replace("\n", " "), xml)
                    yield gold, [value]  # the original: _comparable(value, values)
        yield AltClose(number)
    yield AltClose(None)


def as_line(item: RecordItem | Line) -> Line:
    """A record as a ``Record`` line (other lines as they are)."""
    if not isinstance(item, tuple):
        return item
    gold, system = item
    tag = gold.gold_tag() if isinstance(gold, NumberedEntity) else gold
    return Record(tag, None if system is None else tuple(value.gold_tag() for value in system))


def as_text(item: RecordItem | Line) -> str:
    """``format_line(as_line(item))``, written without building the line."""
    if not isinstance(item, tuple):
        return format_line(item)
    gold, system = item
    written = gold.written() if isinstance(gold, NumberedEntity) else format_tag(gold)
    listed = None if system is None else [value.written() for value in system]
    return format_record_parts(written, listed)


@dataclass(frozen=True, slots=True)
class _DocumentAlignment:
    """The alignment of one document pair, before printing."""

    entries: tuple[_Entry, ...]
    by_ident: dict[str, _Entry]
    spurious_texts: tuple[str, ...]
    faults: tuple[tuple[Aligned, tuple[str, ...]], ...]


def _align_numbered(
    cd_entities: Sequence[Aligned],
    run_entities: Sequence[Aligned],
    potential_faults: Sequence[str],
) -> _DocumentAlignment:
    """Pair numbered CD and run entities through their shared numbered tokens."""
    index = _run_index(run_entities)
    entries: dict[str, _Entry] = {}
    aligned: set[str] = set()
    faults: dict[str, tuple[Aligned, dict[str, None]]] = {}
    cd_idents: set[str] = set()
    for entity in cd_entities:
        ident = entity.ident
        cd_idents.add(ident)
        entry = entries.get(ident)
        if entry is None:
            entry = entries[ident] = _Entry(entity)
        found = False
        values = entry.values
        for mark in entity.marks:
            for run_entity in index.get(mark[1:], ()):  # mark.numbered
                values.setdefault(run_entity.ident, run_entity)
                aligned.add(run_entity.ident)
                found = True
        if found:
            continue
        entry.values.setdefault("", None)
        written = {mark[0] for mark in entity.marks}  # as written
        for key in potential_faults:
            if key in written:
                faults.setdefault(entity.ident, (entity, {}))[1][key] = None
    spurious_texts: list[str] = []
    for bucket in index.values():
        slot = -1
        for run_entity in bucket:
            if run_entity.ident in cd_idents or run_entity.ident in aligned:
                continue
            if slot < 0:
                slot = len(spurious_texts)
                spurious_texts.append("")
            # The original reuses one spurious key per token and renames it.
            spurious_texts[slot] = java_trim(run_entity.marked)
            ident = _spurious_ident(spurious_texts[slot])
            entry = entries.setdefault(ident, _Entry(slot))
            entry.values.setdefault(run_entity.ident, run_entity)
            aligned.add(run_entity.ident)
    return _DocumentAlignment(
        tuple(entries.values()),
        entries,
        tuple(spurious_texts),
        tuple((entity, tuple(keys)) for entity, keys in faults.values()),
    )


def _spurious_ident(marked: str) -> str:
    return tag_string(EM_TAG, _SPURIOUS_SHOWN, marked)


def _record_items(
    alignment: _DocumentAlignment, xml: bool, marked: bool = False
) -> Iterator[RecordItem | Line]:
    """The document's records in order (ALT blocks with their ALT lines).

    ``marked`` keeps the numbered text of spurious records (``<1>Ele</1>``,
    the official ``-etiquetas sim``; see ``stages/align_tokens.py``).
    """
    texts = alignment.spurious_texts
    for entry in alignment.entries:
        key = entry.key
        if isinstance(key, int):
            values = list(alignment.by_ident[_spurious_ident(texts[key])].values.values())
            omitted = False
        else:
            values = list(entry.values.values())
            omitted = key.omitted
        values = [value for value in values if value is None or not value.omitted]
        if omitted or not values:
            continue
        if isinstance(key, NumberedAlt):
            yield from _alt_lines(key, values, xml, marked)
        elif isinstance(key, NumberedEntity):
            yield key, _system(values)
        else:
            text = texts[key] if marked else _strip_marks(texts[key])
            yield _spurious_tag(text.replace("\n", " "), xml), _system(values)


_MARK_RE = re.compile(r"<(\d+)>([^<]*)</\d+>")


def _strip_marks(marked: str) -> str:
    return java_trim(_MARK_RE.sub(lambda m: m.group(2), marked))


def _manual_check(
    faults: Sequence[tuple[Aligned, tuple[str, ...]]],
    numbered: Callable[[Aligned], str] | None = None,
) -> ManualCheck:
    body = " "
    for entity, keys in faults:
        shown = (
            numbered(entity)
            if numbered is not None
            else entity.plain_string()
            if isinstance(entity, NumberedAlt)
            else format_tag(entity.gold_tag())
        )
        body += f"{FAULTY_TOKENS}[{', '.join(keys)}]. {CHECK_ALIGNMENT}{shown} ---> null "
    return ManualCheck(body)


def align_documents(
    cd_doc: Document,
    run_doc: Document,
    xml: bool,
    cd_path: str = "",
    run_path: str = "",
    check_counts: bool = True,
) -> list[Line]:
    """The ``.alinhado`` lines of one document pair (without the document line).

    ``check_counts`` False skips the comparison of occurrence counts (used
    for a CD document the run lacks, aligned against its own bare text).
    """
    return list(map(as_line, body_items(cd_doc, run_doc, xml, cd_path, run_path, check_counts)))


def body_items(
    cd_doc: Document,
    run_doc: Document,
    xml: bool,
    cd_path: str,
    run_path: str,
    check_counts: bool,
    numbered: Callable[[Aligned], str] | None = None,
) -> list[RecordItem | Line]:
    """``align_documents``'s lines, its records not yet written (``as_line``, ``as_text``).

    ``numbered`` (the token view, ``stages/align_tokens.py``) writes the
    entities of the manual-check line; spurious records then keep their
    numbered text.
    """
    cd_nodes = document_items(cd_doc, cd_path, xml)
    run_nodes = document_items(run_doc, run_path, xml)
    keys: dict[str, None] = {}
    collect_markable(cd_nodes, keys)
    cd_entities, cd_counts = number_entities(cd_nodes, keys, xml)
    run_entities, run_counts = number_entities(run_nodes, keys, xml)
    potential: list[str] = []
    if check_counts:
        # The keys counted differently, in the hash order of the table of all keys
        # (a stable sort by bucket: a subset keeps its order in the whole).
        differing = [key for key in keys if cd_counts[key] != run_counts[key]]
        if differing:
            potential = java_hash_order(differing, size=len(keys))
    alignment = _align_numbered(cd_entities, run_entities, potential)
    lines: list[RecordItem | Line] = []
    if alignment.faults:
        lines.append(_manual_check(alignment.faults, numbered))
    lines.extend(_record_items(alignment, xml, numbered is not None))
    return lines
