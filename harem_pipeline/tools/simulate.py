"""Simulated system runs: a golden collection (CD) degraded by documented error rates.

No First HAREM system run survives publicly, so the default campaign scores
*simulated* runs: the CD's own annotation with errors injected at known rates.
They are not the output of any real system, and every file says so in its
first comment.  Because the rates are known, a simulated run is also a test
of the scorer: a ``perfect`` run must score 1 everywhere, and a weaker profile
must score lower in the fields its errors touch.

Profiles (rates are fractions of the golden entities; ``morf`` is a fraction
of the golden entities that carry MORF; ``type`` is a fraction of the entities
whose category is kept):

=========  ======  ========  ======  ========  =====  ======  ========  ====  ====
profile    missed  spurious  shrunk  extended  split  merged  category  type  morf
=========  ======  ========  ======  ========  =====  ======  ========  ====  ====
perfect    0.00    0.00      0.00    0.00      0.00   0.00    0.00      0.00  0.00
strong     0.05    0.05      0.03    0.03      0.01   0.01    0.05      0.05  0.05
average    0.12    0.12      0.06    0.06      0.02   0.02    0.15      0.10  0.15
weak       0.25    0.25      0.10    0.10      0.04   0.03    0.30      0.20  0.30
=========  ======  ========  ======  ========  =====  ======  ========  ====  ====

What each error does to a golden entity (at most one of the first six):

* **missed** — the entity is left untagged;
* **spurious** — a whole word of plain text (outside every entity, ``ALT``
  block and ``OMITIDO`` region; capitalised words and numbers of two or
  more characters first) is tagged with a random category; the count is
  drawn per golden entity;
* **shrunk** — the first or the last word is left out (entities of two or
  more words);
* **extended** — the neighbouring word before or after is taken in, across a
  short separator without a line end; never into another entity, an ``ALT``
  block, an ``OMITIDO`` region or another paragraph;
* **split** — cut in two at a word boundary, the separator left untagged;
* **merged** — joined with the next golden entity when only a short
  separator (punctuation, or a connector such as ``e``/``de``) lies between;
* **category** — another category of the collection's grid (with one of its
  types), on any surviving entity;
* **type** — same single category, another of its types;
* **morf** — one morphology error, chosen evenly among those the golden value
  allows: wrong gender (M↔F), wrong number (S↔P), ``?`` given for a specific
  value, a specific value given for ``?``, or no MORF at all.

An error drawn for an entity it cannot apply to (a one-word entity cannot
shrink) is carried over to the next entity it can apply to, so the rates hold
over a whole collection, not only over the entities each error fits.

TEMPO attributes (the Second HAREM TEMPO track: ``TEMPO_REF``, ``SENTIDO``,
``VAL_NORM``, ``VAL_DELTA``) are kept on every entity still labelled TEMPO,
and a share of those entities (``TEMPO_ERROR_RATES``: perfect 0, strong
0.10, average 0.25, weak 0.50) gets one value near the gold, chosen evenly
among those it allows: the year of ``VAL_NORM`` shifted by one, another
``SENTIDO``, another ``TEMPO_REF``, ``VAL_DELTA`` dropped
(:func:`tempo_attributes`).  Those draws come from a generator of their own,
so a collection without TEMPO attributes gives the same run as before.

ReRelEM relations (``COREL``/``TIPOREL``/``FACS_ORIGEM``/``FACS_ALVO``) are
kept on every entity the run keeps with its golden ID; a relation whose
golden target the run does not keep (missed, merged away, in another
alternative) is removed.  A share of the others (``RELATION_ERROR_RATES``, as for TEMPO)
is dropped, retyped (another type, one that scores differently) or
retargeted (another entity of the document the run keeps, ``FACS_ALVO`` its
first category), chosen evenly among those that apply
(:func:`relation_attributes`), from a generator of its own.

A run looks like a real system's output: each ``<ALT>`` block is resolved to
one alternative (the first for ``perfect``, otherwise one drawn from the
seed), ``<OMITIDO>`` tags are dropped (their text, and the entities in it,
kept: a system sees only text; the aligner leaves out what aligns only to
omitted entities), and the running text is the CD's, character for
character, so the aligner can pair the tokens.  Entities never overlap or nest.  The same CD,
profile and seed always give the same bytes: every draw comes from one
``random.Random`` seeded with a SHA-256 of the profile name and the seed.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from itertools import accumulate
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.formats.harem_xml import format_collection, read_collection
from harem_pipeline.formats.veils import GRID_2005_PATH, DeclaredGrid, read_declared_grid
from harem_pipeline.model import (
    EM_TAG,
    FIRST_HAREM,
    OTHER,
    AltBlock,
    Collection,
    Document,
    Entity,
    Morf,
)
from harem_pipeline.stages.rerelem.entities import (
    COREL,
    FACS_ALVO,
    FACS_ORIGEM,
    RELATION_ATTRIBUTES,
    TIPOREL,
    java_split_space,
)
from harem_pipeline.stages.rerelem.relations import BASIC_TYPES, normalized_type
from harem_pipeline.text import PathLike
from harem_pipeline.text.textio import read_head


@dataclass(frozen=True, slots=True)
class Profile:
    """The error rates of one simulated system (see the module table)."""

    name: str
    missed: float
    spurious: float
    shrunk: float
    extended: float
    split: float
    merged: float
    category: float
    type: float
    morf: float

    def __post_init__(self) -> None:
        for f in fields(self)[1:]:
            rate = getattr(self, f.name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"profile {self.name}: rate {f.name}={rate} outside [0, 1]")
        if sum(getattr(self, kind) for kind in IDENTIFICATION_ERRORS) > 1.0:
            raise ValueError(f"profile {self.name}: boundary error rates add up to more than 1")

    def rates(self) -> dict[str, float]:
        """The rates by name, in table order."""
        return {f.name: getattr(self, f.name) for f in fields(self)[1:]}


# Mutually exclusive errors on one golden entity's span, in draw order.
IDENTIFICATION_ERRORS = ("missed", "shrunk", "extended", "split", "merged")
RATE_NAMES = (
    "missed",
    "spurious",
    "shrunk",
    "extended",
    "split",
    "merged",
    "category",
    "type",
    "morf",
)

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile("perfect", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        Profile("strong", 0.05, 0.05, 0.03, 0.03, 0.01, 0.01, 0.05, 0.05, 0.05),
        Profile("average", 0.12, 0.12, 0.06, 0.06, 0.02, 0.02, 0.15, 0.10, 0.15),
        Profile("weak", 0.25, 0.25, 0.10, 0.10, 0.04, 0.03, 0.30, 0.20, 0.30),
    )
}

# Categories that take no morphology (a number or a date has no gender).
UNINFLECTED = frozenset({"TEMPO", "VALOR"})
# MORF values of spurious entities, weighted as in the First HAREM CD
# (M,S 1976; F,S 1527; ?,S 428; M,P 109; ?,? 83; F,P 66).
SPURIOUS_MORF = (
    (Morf("M", "S"), 1976),
    (Morf("F", "S"), 1527),
    (Morf("?", "S"), 428),
    (Morf("M", "P"), 109),
    (Morf("?", "?"), 83),
    (Morf("F", "P"), 66),
)

# A word: a maximal run of letters and digits (the atoms of identification).
_WORD = re.compile(r"[^\W_]+")
# Character references stay verbatim in the running text; no tag may cut one.
_REFERENCE = re.compile(r"&#?\w+;")
# What may separate two entities a system merges, or an entity and the word
# an extension takes in: a little punctuation, or one connector word.
_JOINABLE = re.compile(r"[^\w\n\r&<>]{1,3}|\s(?:e|ou|de|da|do|das|dos|em|a|o|y|and|of)\s")


def seed_for(profile: str, seed: int) -> int:
    """The integer seeding the generator: SHA-256 of profile and seed, never ``hash()``."""
    digest = hashlib.sha256(f"harem-simulate\0{profile}\0{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def get_profile(name: str) -> Profile:
    """The named profile; an unknown name is the user's mistake."""
    try:
        return PROFILES[name]
    except KeyError:
        raise InputError(None, f"a profile among {', '.join(PROFILES)}", repr(name)) from None


def format_profile_table() -> str:
    """The profile table as plain text (for ``harem simulate --help``)."""
    header = ("profile", *RATE_NAMES)
    rows = [header] + [
        (p.name, *(f"{rate:.2f}" for rate in p.rates().values())) for p in PROFILES.values()
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


SIMULATED_MARK = "simulated run"
"""What the header of every simulated run says (``is_simulated`` looks for it)."""


def simulation_header(cd_name: str, profile: str, seed: int) -> str:
    """The comment that opens every simulated run: says what it is and how to remake it.

    XML forbids ``--`` inside a comment (a strict parser, the official
    aligner's among them, refuses the file), so the command's options are
    named without their dashes, and a ``--`` in the collection's name is
    written ``- -``.
    """
    name = cd_name
    while "--" in name:
        name = name.replace("--", "- -")
    return (
        f"<!-- {SIMULATED_MARK}, not a real system's output: "
        f"harem simulate with cd {name}, profile {profile}, seed {seed} -->"
    )


def is_simulated(path: PathLike) -> bool:
    """True when the run file says it is a simulated run (``simulation_header``), in its
    first kilobyte (the header opens the file, after an XML declaration at most)."""
    return SIMULATED_MARK.encode("ascii") in read_head(path, 1024)


def render_run(cd: Collection, profile: Profile | str, seed: int, cd_name: str) -> str:
    """The simulated run's text: the header comment, then the run in the CD's format.

    The comment comes first, or right after the XML declaration (which must
    open a Second HAREM file); the collection reader skips comments.
    """
    if isinstance(profile, str):
        profile = get_profile(profile)
    run = simulate_collection(cd, profile, seed)
    body = format_collection(run)
    header = simulation_header(cd_name, profile.name, seed) + cd.newline
    if body.startswith("<?xml"):
        declaration, _, rest = body.partition(cd.newline)
        return declaration + cd.newline + header + rest
    return header + body


# ---------------------------------------------------------------------------
# Words and the room an entity may grow into


def find_words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Whole words of ``text[start:end]`` as absolute spans, none inside a ``&...;`` reference."""
    in_reference = _reference_test(text, start, end)
    return [
        (m.start(), m.end())
        for m in _WORD.finditer(text, start, end)
        if not in_reference(m.start(), m.end()) and _is_word_edge(text, m.start(), m.end())
    ]


def _reference_test(text: str, start: int, end: int) -> Callable[[int, int], bool]:
    """Whether a span overlaps a character reference of ``text`` near ``start..end``."""
    return overlap_test(m.span() for m in _REFERENCE.finditer(text, max(0, start - 10), end + 10))


def overlap_test(spans: Iterable[tuple[int, int]]) -> Callable[[int, int], bool]:
    """Whether ``start..end`` overlaps one of ``spans`` (some ``s < end and start < e``).

    In logarithmic time, not a pass over all the spans for each word (which
    made the spurious entities of a document quadratic in its words): among
    the spans that start before ``end``, the one reaching furthest decides.
    """
    ordered = sorted(spans)
    starts = [s for s, _ in ordered]
    furthest = list(accumulate((e for _, e in ordered), max))

    def overlaps(start: int, end: int) -> bool:
        before = bisect_left(starts, end)
        return before > 0 and furthest[before - 1] > start

    return overlaps


def _is_word_edge(text: str, start: int, end: int) -> bool:
    """True when ``start..end`` is not a piece of a longer word of the text."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())


@dataclass(frozen=True, slots=True)
class Slot:
    """A golden entity of the resolved view and the room its span may grow into.

    ``lo``/``hi`` are the nearest obstacles (another entity, an ``ALT`` block,
    an ``OMITIDO`` region, the paragraph's or ALT block's edge).
    """

    entity: Entity
    lo: int
    hi: int
    container: tuple[int, int]
    in_alt: bool


def resolve_alternative(block: AltBlock, choice: int) -> tuple[Entity, ...]:
    """The entities of alternative ``choice``, placed on the first alternative's text.

    Alternatives may differ in white space only (``novembro/dezembro`` versus
    ``novembro / dezembro``); offsets are mapped through the non-space
    characters.  When even those differ, the first alternative is used, so
    the running text never changes.
    """
    if choice == 0 or block.alternative_texts[choice] == block.alternative_texts[0]:
        return block.alternatives[choice]
    first, chosen = block.alternative_texts[0], block.alternative_texts[choice]
    first_pos = [i for i, ch in enumerate(first) if not ch.isspace()]
    chosen_pos = [i for i, ch in enumerate(chosen) if not ch.isspace()]
    if [first[i] for i in first_pos] != [chosen[i] for i in chosen_pos]:
        return block.alternatives[0]
    index_of = {pos: n for n, pos in enumerate(chosen_pos)}
    placed = []
    for entity in block.alternatives[choice]:
        local = [
            index_of[i]
            for i in range(entity.start - block.start, entity.end - block.start)
            if i in index_of
        ]
        if not local:
            return block.alternatives[0]
        start = block.start + first_pos[local[0]]
        end = block.start + first_pos[local[-1]] + 1
        placed.append(
            replace(
                entity, start=start, end=end, text=first[start - block.start : end - block.start]
            )
        )
    return tuple(placed)


def build_view(doc: Document, choices: Sequence[int]) -> list[Slot]:
    """The golden entities a perfect system would tag, with their room.

    ``choices[i]`` is the alternative taken for ``doc.alt_blocks[i]``.  The
    entities inside ``OMITIDO`` regions are kept: a system sees only the
    text, and the evaluation, not the system, leaves those regions out.  Such
    an entity's room is its ``OMITIDO`` region, so a run entity is either
    wholly inside a region or wholly outside every one.
    """
    chosen: list[tuple[Entity, AltBlock | None]] = [
        (e, None) for e in (*doc.entities, *doc.omitted_entities)
    ]
    for alt, choice in zip(doc.alt_blocks, choices, strict=True):
        chosen += [(e, alt) for e in resolve_alternative(alt, choice)]
    chosen.sort(key=lambda pair: (pair[0].start, pair[0].end))
    obstacles = _Obstacles(
        [(s, e, ("omitted", (s, e))) for s, e in doc.omitted]
        + [(o.start, o.end, ("entity", id(o))) for o, _ in chosen]
        + [(b.start, b.end, ("block", id(b))) for b in doc.alt_blocks]
    )
    slots = []
    for entity, block in chosen:
        region = _omitted_region(doc, entity.start, entity.end)
        if block is not None:
            container = (block.start, block.end)
        elif region is not None:
            container = region
        else:
            container = _paragraph_of(doc, entity.start, entity.end)
        # not obstacles: its own region, itself, its own ALT block
        own = {("omitted", region), ("entity", id(entity)), ("block", id(block))}
        lo = max(container[0], obstacles.last_end_at_most(entity.start, own, container[0]))
        hi = min(container[1], obstacles.first_start_at_least(entity.end, own, container[1]))
        slots.append(Slot(entity, lo, hi, container, block is not None))
    return slots


class _Obstacles:
    """The spans that bound an entity's room (``OMITIDO`` regions, entities, ALT blocks),
    each with a key, sorted by end and by start: the nearest one on each side of an
    entity is found by bisection, not by a pass over all of them for each entity (which
    made a document's view quadratic in its entities)."""

    def __init__(self, spans: list[tuple[int, int, tuple]]) -> None:
        by_end = sorted(range(len(spans)), key=lambda i: spans[i][1])
        by_start = sorted(range(len(spans)), key=lambda i: spans[i][0])
        self.ends = [spans[i][1] for i in by_end]
        self.end_keys = [spans[i][2] for i in by_end]
        self.starts = [spans[i][0] for i in by_start]
        self.start_keys = [spans[i][2] for i in by_start]

    def last_end_at_most(self, limit: int, skipped: set[tuple], default: int) -> int:
        """The greatest end ``<= limit`` of a span whose key is not ``skipped``."""
        i = bisect_right(self.ends, limit)
        while i > 0:
            i -= 1
            if self.end_keys[i] not in skipped:
                return self.ends[i]
        return default

    def first_start_at_least(self, limit: int, skipped: set[tuple], default: int) -> int:
        """The least start ``>= limit`` of a span whose key is not ``skipped``."""
        for i in range(bisect_left(self.starts, limit), len(self.starts)):
            if self.start_keys[i] not in skipped:
                return self.starts[i]
        return default


def _omitted_region(doc: Document, start: int, end: int) -> tuple[int, int] | None:
    for region in doc.omitted:
        if region[0] <= start and end <= region[1]:
            return region
    return None


def _paragraph_of(doc: Document, start: int, end: int) -> tuple[int, int]:
    for p_start, p_end in doc.paragraphs:
        if p_start <= start and end <= p_end:
            return (p_start, p_end)
    return (0, len(doc.text))


# ---------------------------------------------------------------------------
# Span errors, each a pure function of offsets: None when it does not apply


def shrink_span(text: str, start: int, end: int, left: bool) -> tuple[int, int] | None:
    """Leave out the first (``left``) or last word; None for a one-word span."""
    words = _words_inside(text, start, end)
    if len(words) < 2:
        return None
    return (words[1][0], end) if left else (start, words[-2][1])


def split_span(text: str, start: int, end: int, cut: int) -> tuple[tuple[int, int], ...] | None:
    """Cut a span after its word number ``cut`` (modulo the gaps); None for one word."""
    words = _words_inside(text, start, end)
    if len(words) < 2:
        return None
    at = cut % (len(words) - 1)
    return ((start, words[at][1]), (words[at + 1][0], end))


def extend_span(
    text: str, start: int, end: int, lo: int, hi: int, left: bool
) -> tuple[int, int] | None:
    """Take in the neighbouring word on one side, staying within ``lo..hi``; None if none fits."""
    if left:
        if start > 0 and text[start - 1].isalnum() and text[start].isalnum():
            return None
        words = find_words(text, lo, start)
        if not words or not _JOINABLE.fullmatch(text[words[-1][1] : start]):
            return None
        return (words[-1][0], end)
    if end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        return None
    words = find_words(text, end, hi)
    if not words or not _JOINABLE.fullmatch(text[end : words[0][0]]):
        return None
    return (start, words[0][1])


def can_merge(text: str, first: Slot, second: Slot) -> bool:
    """True when a system could plausibly take two neighbouring entities for one."""
    return (
        first.container == second.container
        and first.hi == second.entity.start
        and second.lo == first.entity.end
        and _JOINABLE.fullmatch(text[first.entity.end : second.entity.start]) is not None
    )


def _words_inside(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Words of the span, cut at its edges (an entity may begin inside a word).

    The letters of a character reference (``amp`` of ``&amp;``) are no word:
    a shrink or a split cut after one would put a tag inside the reference
    (``Barnes &amp</EM>;``), which no XML parser reads.
    """
    in_reference = _reference_test(text, start, end)
    return [m.span() for m in _WORD.finditer(text, start, end) if not in_reference(*m.span())]


# ---------------------------------------------------------------------------
# Category, type and morphology errors


@cache
def _declared_for(fmt: str) -> DeclaredGrid:
    """The grid a simulated system of ``fmt`` draws labels from, as ``resources/`` declares
    it: the 2005 grid for the First HAREM, ``harem.conf`` (with its subtypes) for the
    Second; its order is the draws' order, ``OUTRO`` (the category of what fits no
    other) last."""
    declared = read_declared_grid(GRID_2005_PATH if fmt == FIRST_HAREM else None)
    return dict(sorted(declared.items(), key=lambda item: item[0] == OTHER))


@cache
def _grid_for(fmt: str) -> dict[str, tuple[str, ...]]:
    """Each category's types, in the declared order."""
    return {category: tuple(types) for category, types in _declared_for(fmt).items()}


def _subtypes_for(fmt: str, category: str, type_: str) -> tuple[str, ...]:
    """A type's subtypes, in the declared order (none in the 2005 grid)."""
    return _declared_for(fmt).get(category, {}).get(type_, ())


@dataclass(frozen=True, slots=True)
class Label:
    """The semantic part of an entity a simulated system states."""

    categories: tuple[str, ...]
    types: tuple[str, ...]
    subtypes: tuple[str, ...]
    morf: Morf | None


def wrong_category(label: Label, fmt: str, rng: random.Random) -> Label:
    """Another category of the grid, with one of its types (and a subtype where needed)."""
    grid = _grid_for(fmt)
    category = rng.choice([c for c in grid if c not in label.categories])
    types = grid[category]
    type_ = (rng.choice(types),) if types else ()
    subtypes = _subtypes_for(fmt, category, type_[0]) if type_ else ()
    subtype = (rng.choice(subtypes),) if subtypes else ()
    return replace(label, categories=(category,), types=type_, subtypes=subtype)


def wrong_type(label: Label, fmt: str, rng: random.Random) -> Label | None:
    """Same single category, another type; None when there is no other."""
    if len(label.categories) != 1 or len(label.types) != 1:
        return None
    others = [t for t in _grid_for(fmt).get(label.categories[0], ()) if t != label.types[0]]
    if not others:
        return None
    type_ = rng.choice(others)
    subtypes = _subtypes_for(fmt, label.categories[0], type_)
    subtype = (rng.choice(subtypes),) if subtypes else ()
    return replace(label, types=(type_,), subtypes=subtype)


def morf_errors(morf: Morf) -> tuple[str, ...]:
    """The morphology errors a golden MORF allows, in a fixed order."""
    kinds = []
    if morf.gender in "MF":
        kinds.append("gender")
    if morf.number in "SP":
        kinds.append("number")
    if morf.gender in "MF" or morf.number in "SP":
        kinds.append("underspecified")
    if "?" in (morf.gender, morf.number):
        kinds.append("overspecified")
    kinds.append("absent")
    return tuple(kinds)


def wrong_morf(morf: Morf, kind: str, rng: random.Random) -> Morf | None:
    """Apply one morphology error of ``kind`` to a golden MORF (None = no MORF given)."""
    gender, number = morf.gender, morf.number
    if kind == "gender":
        return Morf("F" if gender == "M" else "M", number)
    if kind == "number":
        return Morf(gender, "P" if number == "S" else "S")
    if kind == "underspecified":
        specific = [i for i, v in enumerate((gender, number)) if v != "?"]
        if rng.choice(specific) == 0:
            return Morf("?", number)
        return Morf(gender, "?")
    if kind == "overspecified":
        vague = [i for i, v in enumerate((gender, number)) if v == "?"]
        if rng.choice(vague) == 0:
            return Morf(rng.choice("MF"), number)
        return Morf(gender, rng.choice("SP"))
    return None


# ---------------------------------------------------------------------------
# The simulation


@dataclass(slots=True)
class _State:
    """What carries over from one entity (and document) to the next."""

    rng: random.Random
    profile: Profile
    fmt: str
    with_morf: bool
    debt: dict[str, int] = field(default_factory=dict)
    new_ids: int = 0
    tempo_rng: random.Random | None = None
    relation_rng: random.Random | None = None

    def owe(self, kind: str) -> None:
        self.debt[kind] = self.debt.get(kind, 0) + 1

    def pay(self, kind: str) -> None:
        self.debt[kind] -= 1


def simulate_collection(cd: Collection, profile: Profile | str, seed: int) -> Collection:
    """A simulated system run over ``cd``: same documents and text, degraded tags."""
    if isinstance(profile, str):
        profile = get_profile(profile)
    state = _State(
        rng=random.Random(seed_for(profile.name, seed)),
        profile=profile,
        fmt=cd.format,
        with_morf=any(e.morf is not None for d in cd.documents for e in d.all_entities),
        tempo_rng=random.Random(seed_for(f"{profile.name}:tempo", seed)),
        relation_rng=random.Random(seed_for(f"{profile.name}:rerelem", seed)),
    )
    documents = tuple(_simulate_document(doc, state) for doc in cd.documents)
    # ``version`` names a golden collection's release; a run is not one.
    return replace(
        cd, path=f"<simulated {profile.name} seed {seed}>", documents=documents, version=None
    )


def _choose_alternatives(doc: Document, state: _State) -> list[int]:
    """One alternative per ``ALT`` block: the first for a perfect system, else drawn."""
    perfect = all(rate == 0.0 for rate in state.profile.rates().values())
    return [
        0 if perfect else state.rng.randrange(len(block.alternatives)) for block in doc.alt_blocks
    ]


def _simulate_document(doc: Document, state: _State) -> Document:
    """One document of the run (see the module docstring for what changes)."""
    slots = build_view(doc, _choose_alternatives(doc, state))
    spans: list[tuple[int, int, Entity]] = []
    merged_away = set()
    for index, slot in enumerate(slots):
        if index in merged_away:
            # Its own draw still happens: the error it would have had is owed.
            kind = _draw_identification(state)
            if kind is not None:
                state.owe(kind)
            continue
        floor = spans[-1][1] if spans else 0
        kind, outcome = _identify(doc.text, slots, index, state, floor)
        if kind == "missed":
            continue
        if kind == "merged":
            merged_away.add(index + 1)
        label = _relabel(slot.entity, state)
        for piece, (start, end) in enumerate(outcome):
            # The second piece of a split is a new entity: it gets a new ID.
            fresh = piece > 0
            entity = _make_entity(doc, slot.entity, label, start, end, state, fresh)
            spans.append((start, end, entity))
    spans.sort(key=lambda item: (item[0], item[1]))
    spans += _spurious(doc, slots, spans, state)
    spans.sort(key=lambda item: (item[0], item[1]))
    _check_disjoint(doc, spans)
    return replace(
        doc,
        entities=relation_attributes(doc, [entity for _, _, entity in spans], state),
        alt_blocks=(),
        omitted=(),
        omitted_entities=(),
    )


def _draw_identification(state: _State) -> str | None:
    roll = state.rng.random()
    for kind in IDENTIFICATION_ERRORS:
        rate = getattr(state.profile, kind)
        if roll < rate:
            return kind
        roll -= rate
    return None


def _identify(
    text: str, slots: list[Slot], index: int, state: _State, floor: int
) -> tuple[str | None, list[tuple[int, int]]]:
    """The span error of one golden entity and the spans the system tags for it."""
    drawn = _draw_identification(state)
    side = state.rng.random() < 0.5
    cut = state.rng.randrange(1 << 16)
    candidates = [drawn] if drawn else []
    if drawn is None:
        candidates = [k for k in IDENTIFICATION_ERRORS if state.debt.get(k, 0) > 0]
    for kind in candidates:
        outcome = _apply_identification(text, slots, index, kind, side, cut, floor)
        if outcome is not None:
            if drawn is None:
                state.pay(kind)
            return kind, outcome
        if drawn is not None:
            state.owe(kind)
    entity = slots[index].entity
    return None, [(entity.start, entity.end)]


def _apply_identification(
    text: str, slots: list[Slot], index: int, kind: str, side: bool, cut: int, floor: int
) -> list[tuple[int, int]] | None:
    """The spans for one error kind; ``floor`` is where the previous run entity ends."""
    slot = slots[index]
    start, end = slot.entity.start, slot.entity.end
    if kind == "missed":
        return []
    if kind == "shrunk":
        span = shrink_span(text, start, end, side)
        return None if span is None else [span]
    if kind == "split":
        pieces = split_span(text, start, end, cut)
        return None if pieces is None else list(pieces)
    if kind == "extended":
        if slot.in_alt:
            return None
        lo = max(slot.lo, floor)
        span = extend_span(text, start, end, lo, slot.hi, side)
        span = span or extend_span(text, start, end, lo, slot.hi, not side)
        return None if span is None else [span]
    if kind == "merged":
        if index + 1 >= len(slots) or not can_merge(text, slot, slots[index + 1]):
            return None
        return [(start, slots[index + 1].entity.end)]
    return None


def _relabel(entity: Entity, state: _State) -> Label:
    """The label the system gives a golden entity: category, type and MORF errors."""
    label = Label(entity.categories, entity.types, entity.subtypes, entity.morf)
    rng, profile = state.rng, state.profile
    category_roll, type_roll, morf_roll = rng.random(), rng.random(), rng.random()
    if category_roll < profile.category:
        label = wrong_category(label, state.fmt, rng)
    else:
        wants_type = type_roll < profile.type
        if not wants_type and state.debt.get("type", 0) > 0:
            wrong = wrong_type(label, state.fmt, rng)
            if wrong is not None:
                state.pay("type")
                label = wrong
        elif wants_type:
            wrong = wrong_type(label, state.fmt, rng)
            if wrong is None:
                state.owe("type")
            else:
                label = wrong
    if entity.morf is not None and morf_roll < profile.morf:
        kind = rng.choice(morf_errors(entity.morf))
        label = replace(label, morf=wrong_morf(entity.morf, kind, rng))
    return label


def _make_entity(
    doc: Document,
    gold: Entity | None,
    label: Label,
    start: int,
    end: int,
    state: _State,
    fresh_id: bool = False,
) -> Entity:
    """An entity tag in the collection's format, keeping the golden attribute order.

    A Second HAREM entity keeps its golden ID unless ``fresh_id`` (or there is
    none): then it gets ``<DOCID>-sim<n>``, unique in the run.
    """
    if state.fmt == FIRST_HAREM:
        tag = "|".join(label.categories)
        values = {"TIPO": "|".join(label.types), "MORF": str(label.morf) if label.morf else ""}
        order = [k for k, _ in gold.attributes if k in values] if gold is not None else []
        order += [k for k in values if k not in order]
        attributes = tuple((k, values[k]) for k in order if values[k])
        entity_id = None
    else:
        tag = EM_TAG
        entity_id = gold.id if gold is not None and gold.id and not fresh_id else None
        if entity_id is None:
            state.new_ids += 1
            entity_id = f"{doc.docid}-sim{state.new_ids}"
        values = {
            "ID": entity_id,
            "CATEG": "|".join(label.categories),
            "TIPO": "|".join(label.types),
            "SUBTIPO": "|".join(label.subtypes),
            "MORF": str(label.morf) if label.morf else "",
        }
        attributes = tuple((k, v) for k, v in values.items() if v)
        attributes += tempo_attributes(gold, label, state)
    return Entity(
        id=entity_id,
        categories=label.categories,
        types=label.types,
        subtypes=label.subtypes,
        morf=label.morf,
        text=doc.text[start:end],
        start=start,
        end=end,
        attributes=attributes,
        tag=tag,
    )


def _spurious(
    doc: Document, slots: list[Slot], spans: list[tuple[int, int, Entity]], state: _State
) -> list[tuple[int, int, Entity]]:
    """Spurious entities on whole words of plain text, as many as drawn (or owed)."""
    rng, profile = state.rng, state.profile
    wanted = sum(rng.random() < profile.spurious for _ in slots) + state.debt.get("spurious", 0)
    if wanted == 0:
        return []
    taken = [(s, e) for s, e, _ in spans] + [(s.entity.start, s.entity.end) for s in slots]
    taken += [(e.start, e.end) for e in doc.all_entities]
    taken += [(b.start, b.end) for b in doc.alt_blocks] + list(doc.omitted)
    regions = list(doc.paragraphs) or [(0, len(doc.text))]
    is_taken = overlap_test(taken)
    words = [
        w
        for p_start, p_end in regions
        for w in find_words(doc.text, p_start, p_end)
        if not is_taken(*w)
    ]
    prominent = [
        w
        for w in words
        if w[1] - w[0] > 1 and (doc.text[w[0]].isupper() or doc.text[w[0]].isdigit())
    ]
    prominent_set = set(prominent)
    plain = [w for w in words if w not in prominent_set]
    count = min(wanted, len(words))
    chosen = rng.sample(prominent, min(count, len(prominent)))
    chosen += rng.sample(plain, count - len(chosen))
    state.debt["spurious"] = wanted - count
    grid = _grid_for(state.fmt)
    made = []
    for start, end in sorted(chosen):
        category = rng.choice(sorted(grid))
        types = grid[category]
        type_ = (rng.choice(types),) if types else ()
        subtypes = _subtypes_for(state.fmt, category, type_[0]) if type_ else ()
        morf = None
        if state.with_morf and category not in UNINFLECTED:
            values, weights = zip(*SPURIOUS_MORF, strict=True)
            morf = rng.choices(values, weights)[0]
        label = Label((category,), type_, (rng.choice(subtypes),) if subtypes else (), morf)
        made.append((start, end, _make_entity(doc, None, label, start, end, state)))
    return made


def _check_disjoint(doc: Document, spans: list[tuple[int, int, Entity]]) -> None:
    """Entities of a run never overlap; a violation is a bug here, never the user's."""
    for (_, end, left), (start, _, right) in zip(spans, spans[1:], strict=False):
        if start < end:
            raise RuntimeError(
                f"simulated entities {left.text!r} and {right.text!r} overlap in {doc.docid}"
            )


def simulated_run_bytes(cd_path: PathLike, profile: str, seed: int, gzip_it: bool) -> bytes:
    """The bytes of a simulated run of the collection at ``cd_path``, in its encoding.

    ``gzip_it`` compresses them with no time stamp, so the same command
    always gives the same bytes.
    """
    cd = read_collection(cd_path)
    data = render_run(cd, profile, seed, Path(cd_path).name).encode(cd.encoding)
    return gzip.compress(data, compresslevel=9, mtime=0) if gzip_it else data


# ---------------------------------------------------------------------------
# The TEMPO track's attributes

TEMPO_ATTRIBUTES = ("TEMPO_REF", "SENTIDO", "VAL_NORM", "VAL_DELTA")
TEMPO_ERROR_RATES = {"perfect": 0.0, "strong": 0.10, "average": 0.25, "weak": 0.50}
"""The share of TEMPO entities with attributes that get one wrong value, per profile."""
TEMPO_REFS = ("ABSOLUTO", "TEXTUAL", "ENUNCIACAO")
SENTIDOS = ("ANTERIOR", "POSTERIOR", "SIMULT", "ANTERIOR_OU_SIMULT", "POSTERIOR_OU_SIMULT")
_YEAR = re.compile(r"\A([+-])([0-9]{4})")


def tempo_attributes(
    gold: Entity | None, label: Label, state: _State
) -> tuple[tuple[str, str], ...]:
    """The golden entity's TEMPO attributes as the run gives them (empty values kept:
    ``VAL_DELTA=""`` is a value the track scores): none unless the label is still
    TEMPO; for a share of the entities (:data:`TEMPO_ERROR_RATES`) one of them
    perturbed (:func:`perturb_tempo`)."""
    if gold is None or "TEMPO" not in label.categories or state.tempo_rng is None:
        return ()
    kept = tuple((k, v) for k, v in gold.attributes if k in TEMPO_ATTRIBUTES)
    if not kept:
        return ()
    rng = state.tempo_rng
    if rng.random() >= TEMPO_ERROR_RATES.get(state.profile.name, state.profile.type):
        return kept
    return perturb_tempo(kept, rng)


def perturb_tempo(
    attributes: tuple[tuple[str, str], ...], rng: random.Random
) -> tuple[tuple[str, str], ...]:
    """One value near the gold: a year shifted by one, another SENTIDO or TEMPO_REF, or
    VAL_DELTA dropped, drawn evenly among those ``attributes`` allow (as they are if none)."""
    values = dict(attributes)
    kinds = []
    year = _YEAR.match(values.get("VAL_NORM", ""))
    if year is not None and year.group(2) != "9999":  # not the unknown value
        kinds.append("year")
    if "SENTIDO" in values:
        kinds.append("sentido")
    if "TEMPO_REF" in values:
        kinds.append("ref")
    if "VAL_DELTA" in values:
        kinds.append("delta")
    if not kinds:
        return attributes
    kind = rng.choice(kinds)
    if kind == "delta":
        return tuple((k, v) for k, v in attributes if k != "VAL_DELTA")
    if kind == "year":
        assert year is not None  # "year" is drawn only when VAL_NORM has one
        shifted = int(year.group(2)) + rng.choice((-1, 1))
        values["VAL_NORM"] = f"{year.group(1)}{shifted:04d}" + values["VAL_NORM"][5:]
    else:
        key, choices = ("SENTIDO", SENTIDOS) if kind == "sentido" else ("TEMPO_REF", TEMPO_REFS)
        values[key] = rng.choice([v for v in choices if v != values[key]])
    return tuple((k, values[k]) for k, _ in attributes)


# ---------------------------------------------------------------------------
# The ReRelEM track's relations

RELATION_ERROR_RATES = {"perfect": 0.0, "strong": 0.10, "average": 0.25, "weak": 0.50}
"""The share of kept relations that get one error (dropped, retyped, retargeted)."""
RETYPES = (*BASIC_TYPES, "outrarel")
"""The types a retyped relation may get: each scores as a different class."""


@dataclass(frozen=True, slots=True)
class Relation:
    """One item of an entity's relation lists: target ID, type and the two facets."""

    target: str
    type: str
    source_facet: str
    target_facet: str


def golden_relations(entity: Entity) -> list[Relation]:
    """The entity's relations, one per ``COREL`` item (lists of unequal length are cut to
    the shortest: the ReRelEM chain reports them on the gold, a run need not repeat them)."""
    values = dict(entity.attributes)
    lists = [java_split_space(values.get(name)) for name in RELATION_ATTRIBUTES]
    return [Relation(*items) for items in zip(*lists, strict=False)]


def relation_attributes(doc: Document, entities: list[Entity], state: _State) -> tuple[Entity, ...]:
    """The run's entities with the golden relations of the ones that kept their golden
    ID: a relation to an entity the run lacks removed, a share of the others perturbed
    (:func:`perturb_relation`)."""
    golden = {e.id: e for e in doc.all_entities if e.id and COREL in dict(e.attributes)}
    if not golden or state.relation_rng is None:
        return tuple(entities)
    by_id = {e.id: e for e in entities if e.id}
    # A target no entity of the document has (a slip of the gold) is kept as written.
    lost = {e.id for e in doc.all_entities if e.id} - by_id.keys()
    rate = RELATION_ERROR_RATES.get(state.profile.name, state.profile.type)
    out = []
    for entity in entities:
        gold = golden.get(entity.id) if entity.id else None
        if gold is None:
            out.append(entity)
            continue
        kept = []
        for relation in golden_relations(gold):
            if relation.target in lost:
                continue
            moved: Relation | None = relation
            if state.relation_rng.random() < rate:
                moved = perturb_relation(relation, entity.id, by_id, state.relation_rng)
            if moved is not None:
                kept.append(moved)
        out.append(_with_relations(entity, kept))
    return tuple(out)


def perturb_relation(
    relation: Relation, source: str | None, by_id: dict[str, Entity], rng: random.Random
) -> Relation | None:
    """One error, drawn evenly among those that apply: the relation dropped (None),
    retyped to a type scored as another class, or retargeted to another entity of the
    run's document (``FACS_ALVO`` its first category)."""
    others = [i for i in by_id if i not in (source, relation.target) and by_id[i].categories]
    kinds = ["dropped", "retyped"] + (["retargeted"] if others else [])
    kind = rng.choice(kinds)
    if kind == "dropped":
        return None
    if kind == "retyped":
        scored = normalized_type(relation.type)
        kind_ = rng.choice([t for t in RETYPES if normalized_type(t) != scored])
        return replace(relation, type=kind_)
    target = rng.choice(others)
    return replace(relation, target=target, target_facet=by_id[target].categories[0])


def _with_relations(entity: Entity, relations: list[Relation]) -> Entity:
    """``entity`` with its relation attributes replaced by ``relations`` (none if empty)."""
    attributes = tuple((k, v) for k, v in entity.attributes if k not in RELATION_ATTRIBUTES)
    if relations:
        attributes += (
            (COREL, " ".join(r.target for r in relations)),
            (TIPOREL, " ".join(r.type for r in relations)),
            (FACS_ORIGEM, " ".join(r.source_facet for r in relations)),
            (FACS_ALVO, " ".join(r.target_facet for r in relations)),
        )
    return replace(entity, attributes=attributes)
