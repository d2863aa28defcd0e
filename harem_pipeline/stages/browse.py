"""Which document entity each record of a run's alignment is: what ``harem browse`` shows.

Records carry no offsets, so a record's tag is matched to a document entity
by its element name, attributes and text; entities so alike in one
document (``<LOCAL>Lisboa</LOCAL>`` twice) are told apart by the token view
(``stages.align_tokens``), whose numbered text differs for each occurrence
and grows along the text: the k-th such entity is the variant with the k-th
smallest numbers.  An entity's outcome is the AvalIDa verdict of its
records (the best of its pairs: ``Correcto`` before the partial ones, which
come before ``Em_Falta`` / ``Espurio``), its CSC the best Emir CSC of its
pairs.  An entity no record names is ``omitido`` inside ``OMITIDO`` and
``sem_registo`` elsewhere (a run's entity aligned only to omitted ones; an
ALT alternative other than the first is not drawn, its records are listed).

A real run's text often differs from the collection's by a few characters;
``moved_offsets`` / ``moved`` place the system's entities in the
collection's text by the words and signs the two texts share.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from harem_pipeline.formats.alinhado import (
    EVAL_CORRECT,
    EVAL_MISSING,
    EVAL_PARTIAL_DEFECT,
    EVAL_PARTIAL_EXCESS,
    EVAL_SPURIOUS,
    Record,
    Tag,
    format_line,
)
from harem_pipeline.formats.semantic import parse_emir_record
from harem_pipeline.model import Document, Entity
from harem_pipeline.stages.align.items import normalize_text
from harem_pipeline.text.java import java_trim

SHARED = "shared"
"""The run's text is the collection's: both sides are marked in it."""
MOVED = "moved"
"""The run's text differs: its entities were moved into the collection's (``moved_offsets``)."""
APART = "apart"
"""The texts share too little: each side is marked in its own text."""
GOLD = "gold"
SYSTEM = "system"
NO_RECORD = "sem_registo"
OMITTED = "omitido"
PARTIAL_EXCESS = EVAL_PARTIAL_EXCESS
PARTIAL_DEFECT = EVAL_PARTIAL_DEFECT
OUTCOMES = (EVAL_CORRECT, PARTIAL_EXCESS, PARTIAL_DEFECT, EVAL_MISSING, EVAL_SPURIOUS, NO_RECORD)
"""Every ``data-outcome`` value (``omitido`` for entities inside ``OMITIDO``), best first."""
ERRORS = (PARTIAL_EXCESS, PARTIAL_DEFECT, EVAL_MISSING, EVAL_SPURIOUS)
_RANK = {kind: rank for rank, kind in enumerate(OUTCOMES)}
_RANK[PARTIAL_DEFECT] = _RANK[PARTIAL_EXCESS]  # the two partial verdicts are as good
_NUMBERED = re.compile(r"<(\d+)>([^<]*)</\1>")


@dataclass(frozen=True, slots=True)
class RecordView:
    """One record of a document as the page lists it."""

    avalida: str  # the .avalida line
    tokens: str  # the token view's line
    emir: tuple[str, ...]  # the .emir lines of its pairs (none without an .emir)


@dataclass(slots=True)
class Mark:
    """One entity of one side, placed in its text."""

    side: str
    start: int
    end: int
    tag: str
    categories: tuple[str, ...]
    types: tuple[str, ...]
    outcome: str = NO_RECORD
    records: list[int] = field(default_factory=list)
    csc: float | None = None
    numbered: str = ""  # the token view's text of the entity ('' without a record)


@dataclass(frozen=True, slots=True)
class BrowseDocument:
    """What one page shows: the text(s), the marks of both sides and the records."""

    docid: str
    gold_text: str
    system_text: str
    xml: bool
    marks: tuple[Mark, ...]
    records: tuple[RecordView, ...]
    placement: str = "shared"  # SHARED, MOVED (system marks moved into the CD text) or APART

    def counts(self) -> dict[str, int]:
        """Entities by side and outcome: ``{"gold": n, "system": n, outcome: n, ...}``."""
        found = {GOLD: 0, SYSTEM: 0, **{kind: 0 for kind in (*OUTCOMES, OMITTED)}}
        for mark in self.marks:
            found[mark.side] += 1
            found[mark.outcome] += 1
        return found

    def error_categories(self) -> tuple[str, ...]:
        """The categories of the entities whose outcome is an error, sorted."""
        return tuple(sorted({c for m in self.marks if m.outcome in ERRORS for c in m.categories}))


# ---------------------------------------------------------------------------
# Linking records to entities


def expand_references(text: str, xml: bool = True) -> str:
    """Running text as records hold it: LF line ends, XML references expanded (``&amp;`` → ``&``).

    (The aligner's own rule, ``stages.align``, so a document entity's text and
    its record's compare equal.)
    """
    return normalize_text(text, xml)


def unnumbered(text: str) -> str:
    """A token view text without its numbers (``<1>Vila</1> Real`` → ``Vila Real``)."""
    return _NUMBERED.sub(lambda m: m.group(2), text)


def numbered_tokens(text: str) -> list[tuple[str, str]]:
    """``(number, token)`` of each numbered token of a token view text, in order."""
    return [(m.group(1), m.group(2)) for m in _NUMBERED.finditer(text)]


def numbers_of(text: str) -> tuple[int, ...]:
    """The occurrence numbers of a token view text, in order."""
    return tuple(int(m.group(1)) for m in _NUMBERED.finditer(text))


_Key = tuple[str, tuple[tuple[str, str], ...], str]
_Held = tuple[int, str, float | None]
"""A numbered tag's place in a record: the record's index, its verdict, its pair's CSC."""


def _tag_key(tag: Tag) -> _Key:
    return tag.name, tag.attributes, java_trim(unnumbered(tag.text)).replace("\n", " ")


def _entity_key(entity: Entity, xml: bool) -> _Key:
    text = expand_references(entity.text, xml)
    return entity.tag, entity.attributes, java_trim(text).replace("\n", " ")


def _best(outcomes: Iterable[str]) -> str:
    return min(outcomes, key=_RANK.__getitem__, default=NO_RECORD)


_Drawn = tuple[Entity, int, int]
"""An entity and where it is drawn in the running text."""


def _drawn_entities(doc: Document) -> tuple[list[_Drawn], list[_Drawn]]:
    """The entities drawn in the running text, in text order, and the omitted ones.

    Those of an ALT block's other alternatives are drawn too, moved by the
    words their alternative's text shares with the first one's (``moved_span``;
    the usual ``<ALT><EM>A B</EM> | <EM>A</EM> <EM>B</EM></ALT>`` differs by
    blanks only); an entity met in two alternatives at one place is drawn once.
    """
    drawn = [(e, e.start, e.end) for e in doc.entities]
    for block in doc.alt_blocks:
        first = block.alternative_texts[0]
        drawn.extend((e, e.start, e.end) for e in block.alternatives[0])
        for entities, text in zip(block.alternatives[1:], block.alternative_texts[1:], strict=True):
            shared = moved_offsets(text, first) if text != first else None
            if text != first and shared is None:
                continue
            for e in entities:
                start, end = e.start, e.end
                if shared is not None:
                    start, end = moved_span(start - block.start, end - block.start, shared)
                    start, end = start + block.start, end + block.start
                drawn.append((e, start, end))
    unique = {(e.tag, e.attributes, start, end): (e, start, end) for e, start, end in drawn}
    ordered = sorted(unique.values(), key=lambda item: (item[1], -item[2]))
    omitted = sorted(((e, e.start, e.end) for e in doc.omitted_entities), key=lambda i: i[1:])
    return ordered, omitted


def link_document(
    cd_doc: Document,
    run_doc: Document,
    xml: bool,
    evaluated: Sequence[Record],
    numbered: Sequence[Record],
    emir: Sequence[Record] = (),
) -> BrowseDocument:
    """One page's content: the entities of both documents linked to their records.

    ``evaluated`` are the document's ``.avalida`` records, ``numbered`` the
    token view's records of the same document (the same records in the same
    order; the caller checks), ``emir`` its ``.emir`` records (any subset,
    in order).
    """
    csc = _EmirPairs(emir)
    records: list[RecordView] = []
    gold_variants: dict[_Key, dict[str, list[_Held]]] = {}
    system_variants: dict[_Key, dict[str, list[_Held]]] = {}
    for index, (record, tokens) in enumerate(zip(evaluated, numbered, strict=True)):
        kinds = [item.kind for item in record.evaluation or ()]
        emir_lines: dict[str, None] = {}
        scores: list[float] = []
        for position, tag in enumerate(record.system or (None,)):
            found = csc.pop_pair(record.gold, tag)
            if found is not None:
                scores.append(found[0])
                emir_lines[found[1]] = None
            if tag is not None:
                kind = kinds[position] if position < len(kinds) else NO_RECORD
                numbered_tag = cast(tuple[Tag, ...], tokens.system)[position]
                system_variants.setdefault(_tag_key(numbered_tag), {}).setdefault(
                    numbered_tag.text, []
                ).append((index, kind, found[0] if found is not None else None))
        if not record.is_spurious:
            outcome = EVAL_MISSING if record.system is None else _best(kinds)
            best = max(scores) if scores else None
            gold_variants.setdefault(_tag_key(tokens.gold), {}).setdefault(
                tokens.gold.text, []
            ).append((index, outcome, best))
        records.append(RecordView(format_line(record), format_line(tokens), tuple(emir_lines)))
    marks: list[Mark] = []
    for side, doc, variants in ((GOLD, cd_doc, gold_variants), (SYSTEM, run_doc, system_variants)):
        drawn, omitted = _drawn_entities(doc)
        marks.extend(_place(side, drawn, variants, xml))
        for entity, start, end in omitted:
            mark = _mark(side, entity, start, end)
            mark.outcome = OMITTED
            marks.append(mark)
    shared = cd_doc.text == run_doc.text
    shifts = None if shared else moved_offsets(run_doc.text, cd_doc.text)
    placement = SHARED if shared else APART if shifts is None else MOVED
    if shifts is not None:
        marks = [moved(mark, shifts) if mark.side == SYSTEM else mark for mark in marks]
    for mark in marks:  # no record, inside OMITIDO: left out of the evaluation
        if mark.outcome == NO_RECORD and (mark.side == GOLD or placement != APART):
            if any(s < mark.end and mark.start < e for s, e in cd_doc.omitted):
                mark.outcome = OMITTED
    marks.sort(key=lambda m: (m.start, -m.end, m.side))
    return BrowseDocument(
        cd_doc.docid, cd_doc.text, run_doc.text, xml, tuple(marks), tuple(records), placement
    )


def _mark(side: str, entity: Entity, start: int, end: int) -> Mark:
    return Mark(side, start, end, entity.tag, entity.categories, entity.types)


def _place(
    side: str,
    entities: Sequence[_Drawn],
    variants: dict[_Key, dict[str, list[_Held]]],
    xml: bool,
) -> list[Mark]:
    """Marks for ``entities``: the k-th entity of a key takes the k-th numbered variant."""
    seen: dict[_Key, int] = {}
    marks = []
    ordered_of = {
        key: sorted(found.items(), key=lambda item: numbers_of(item[0]))
        for key, found in variants.items()
    }
    for entity, start, end in entities:
        key = _entity_key(entity, xml)
        k = seen.get(key, 0)
        seen[key] = k + 1
        mark = _mark(side, entity, start, end)
        ordered = ordered_of.get(key, ())
        if k < len(ordered):
            text, holding = ordered[k]
            mark.numbered = text
            mark.records = sorted({index for index, _, _ in holding})
            mark.outcome = _best(kind for _, kind, _ in holding)
            scores = [score for _, _, score in holding if score is not None]
            mark.csc = max(scores) if scores else None
        marks.append(mark)
    return marks


class _EmirPairs:
    """The ``.emir`` CSC of each (gold text, system text) pair, taken in file order."""

    def __init__(self, records: Sequence[Record]) -> None:
        self._pairs: dict[tuple[str, str | None], list[tuple[float, str]]] = {}
        for line_record in records:
            line = format_line(line_record)
            record = parse_emir_record(line_record)
            for tag, score in zip(record.entities, record.scores, strict=True):
                key = (_pair_text(record.gold), None if tag is None else _pair_text(tag))
                self._pairs.setdefault(key, []).append((score.csc, line))

    def pop_pair(self, gold: Tag, system: Tag | None) -> tuple[float, str] | None:
        key = (_pair_text(gold), None if system is None else _pair_text(system))
        found = self._pairs.get(key)
        return found.pop(0) if found else None


def _pair_text(tag: Tag) -> str:
    prefix = "ESPURIO:" if tag.is_spurious else ""
    return prefix + java_trim(tag.text)


_WORD_RUN = re.compile(r"\w+|[^\w\s]")


def moved_offsets(source: str, target: str) -> list[tuple[int, int, int]] | None:
    """Where the words (and signs) of ``source`` are in ``target``.

    ``(source start, target start, length)`` of each word the two texts
    share (``difflib`` over their words), in order.

    None when they share fewer than half of ``source``'s words: then the texts
    are shown apart.  A real run's text often differs from the collection's
    by a few characters (sentences split, words rewritten), and showing the
    system's entities in the collection's text needs its offsets moved.
    """
    words = [(m.start(), m.group()) for m in _WORD_RUN.finditer(source)]
    other = [(m.start(), m.group()) for m in _WORD_RUN.finditer(target)]
    matcher = difflib.SequenceMatcher(
        None, [w for _, w in words], [w for _, w in other], autojunk=False
    )
    shared = [
        (words[i + k][0], other[j + k][0], len(words[i + k][1]))
        for i, j, size in matcher.get_matching_blocks()
        for k in range(size)
    ]
    if 2 * len(shared) < len(words):
        return None
    return shared


def moved_span(start: int, end: int, shared: list[tuple[int, int, int]]) -> tuple[int, int]:
    """``start..end`` moved into the target text (see ``moved_offsets``).

    A start inside a shared word keeps its place in it; one outside moves to
    the next shared word, an end to the end of the last shared word before it.
    """
    starts = [source for source, _, _ in shared]
    at = bisect.bisect_right(starts, start) - 1
    if at >= 0 and start < shared[at][0] + shared[at][2]:
        new_start = shared[at][1] + start - shared[at][0]
    else:
        new_start = shared[at + 1][1] if at + 1 < len(shared) else shared[-1][1] + shared[-1][2]
    at = bisect.bisect_left(starts, end) - 1
    if at >= 0:
        source, target, size = shared[at]
        new_end = target + min(end - source, size)
    else:
        new_end = new_start
    return new_start, max(new_start, new_end)


def moved(mark: Mark, shared: list[tuple[int, int, int]]) -> Mark:
    """``mark`` with its offsets moved into the target text (``moved_span``)."""
    start, end = moved_span(mark.start, mark.end, shared)
    return dataclasses.replace(mark, start=start, end=end)
