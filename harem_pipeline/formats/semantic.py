"""The semantic-classification files: ``.alts`` ALT weights and ``.emir`` evaluation parts.

Both are alignment-record files (:mod:`harem_pipeline.formats.alinhado`
reads their lines); this module reads and writes the two things those
records add:

* ``.alts`` (ALT organiser): a record inside an ``<ALT>`` block ends in
  ``^w``, its alternative's weight ``1/n``; no suffix means weight 1.
  :class:`AltsRecord` is the Véus record with that weight.
* ``.emir`` (Emir), ``.emir.altrel`` (ALTina), ``.emir_relativo``: every
  evaluation item is ``{Categoria(…) Tipo(…) Subtipo(…) MaxCSC_CD(x)
  MaxCSC_S(x) CSC(x) Peso(x) [PALT(w)]}``, one per aligned system entity.
  :class:`SemanticScore` is one item, :class:`EmirRecord` a record of them.

Numbers are kept as floats and written with :func:`java_double`, which
prints every number of the Java outputs back digit for digit.  ALTina
writes an unbalanced ``PALT(1.0))`` (its ``resetAltWeight`` keeps the old
closing parenthesis); :attr:`SemanticScore.extra_paren` keeps that so a
``.altrel`` file is written back as read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    ALT_PREFIXES,
    ARROW,
    EVAL_SEMANTIC,
    MARKER_FIRST_HAREM,
    AltClose,
    AltOpen,
    Evaluation,
    Line,
    LineParser,
    NumberedLine,
    Record,
    Tag,
    alt_line,
    evaluation_of,
    evaluation_part,
    format_line,
    format_tag_list,
    iter_lines,
    iter_numbered_lines,
    next_alt_state,
    parse_evaluation,
    parse_line,
    reprint_system,
    reprint_tag,
)
from harem_pipeline.text import PathLike
from harem_pipeline.text.memo import KeyedTable, keyed_cache
from harem_pipeline.text.numbers import java_double as _java_double

java_double = keyed_cache(8192)(_java_double)
"""``Double.toString``, remembered: the same few CSC values recur on most lines."""

ALT_WEIGHT_MARK = "^"

CATEGORY = "Categoria"
TYPE = "Tipo"
SUBTYPE = "Subtipo"


# ---------------------------------------------------------------------------
# .alts


@dataclass(frozen=True, slots=True)
class AltsRecord:
    """A Véus record with its ALT weight; ``alt_weight`` None is no ``^w`` (weight 1)."""

    record: Record
    alt_weight: float | None = None

    @property
    def weight(self) -> float:
        """The ALT weight the Java reads: ``w``, or 1.0 without a suffix."""
        return 1.0 if self.alt_weight is None else self.alt_weight


def parse_alt_weight(suffix: str, path: str | None = None, line: int | None = None) -> float | None:
    """The ``w`` of a record's ``^w`` suffix; None for no suffix; anything else an error."""
    if suffix == "":
        return None
    if suffix.startswith(ALT_WEIGHT_MARK):
        try:
            return float(suffix[1:])
        except ValueError:
            pass
    raise InputError(
        path, "nothing or an ALT weight ^w after the evaluation list", suffix, line=line
    )


def format_alt_weight(weight: float | None) -> str:
    """``^w`` as the ALT organiser writes it; empty for None or 1.0 (the Java omits it)."""
    if weight is None or weight == 1.0:
        return ""
    return ALT_WEIGHT_MARK + java_double(weight)


def parse_alts_record(record: Record, path: str | None = None) -> AltsRecord:
    """Read the ALT weight of a ``.alts`` record (its evaluation part must be present)."""
    evaluation_of(
        record, path, "an evaluated record GOLD ---> [SYS, ...]:[EVAL, ...] (Véus output)"
    )
    weight = parse_alt_weight(record.suffix, path, record.line or None)
    return AltsRecord(_with_suffix(record, ""), weight)


def format_alts_record(item: AltsRecord) -> Record:
    """The record with its ``^w`` suffix, ready for ``format_line``."""
    return _with_suffix(item.record, format_alt_weight(item.alt_weight))


def _with_suffix(record: Record, suffix: str) -> Record:
    if record.suffix == suffix:
        return record
    return Record(
        record.gold,
        record.system,
        record.evaluation,
        record.marker,
        suffix,
        record.eol,
        record.line,
    )


# ---------------------------------------------------------------------------
# .emir


@dataclass(frozen=True, slots=True)
class LevelResult:
    """``Correcto:[A|B] Espurio:[] Em_Falta:[C]`` of one level (category, type or subtype)."""

    correct: tuple[str, ...] = ()
    spurious: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SemanticScore:
    """One Emir evaluation item: the three levels, the CSC figures and the weights.

    ``weight`` is ``Peso`` (identification weight: 1 correct, w partial, 0
    missing or spurious); ``alt_weight`` is ``PALT`` (None when absent, i.e.
    1 outside ALT blocks).
    """

    category: LevelResult
    type: LevelResult
    subtype: LevelResult
    max_csc_gold: float
    max_csc_system: float
    csc: float
    weight: float
    alt_weight: float | None = None
    extra_paren: bool = field(default=False)

    @property
    def palt(self) -> float:
        """The ALT weight, 1.0 when ``PALT`` is absent."""
        return 1.0 if self.alt_weight is None else self.alt_weight


@dataclass(frozen=True, slots=True)
class EmirRecord:
    """An Emir record: gold entity, aligned system entities (None: ``[null]``), one score each."""

    gold: Tag
    system: tuple[Tag, ...] | None
    scores: tuple[SemanticScore, ...]
    marker: str = MARKER_FIRST_HAREM
    eol: str = "\n"
    line: int = field(default=0, compare=False)

    @property
    def entities(self) -> tuple[Tag | None, ...]:
        """The system entities, ``(None,)`` for ``[null]``, aligned with :attr:`scores`."""
        return (None,) if self.system is None else self.system


_NUMBER = r"([^()\s]+)"
_LIST = r"\[([^\]]*)\]"
_LEVEL = rf"Correcto:{_LIST} Espurio:{_LIST} Em_Falta:{_LIST}"
_SCORE_RE = re.compile(
    rf"\{{Categoria\({_LEVEL}\) Tipo\({_LEVEL}\) Subtipo\({_LEVEL}\) "
    rf"MaxCSC_CD\({_NUMBER}\) MaxCSC_S\({_NUMBER}\) CSC\({_NUMBER}\) Peso\({_NUMBER}\)"
    rf"(?: PALT\({_NUMBER}\)(\)?))?\}}\Z"
)
_SCORE_EXPECTED = (
    "an Emir item {Categoria(Correcto:[...] Espurio:[...] Em_Falta:[...]) Tipo(...) "
    "Subtipo(...) MaxCSC_CD(x) MaxCSC_S(x) CSC(x) Peso(x) [PALT(w)]}"
)


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split("|")) if text else ()


def parse_semantic_score(
    text: str, path: str | None = None, line: int | None = None
) -> SemanticScore:
    """Parse one ``{Categoria(…) … Peso(x) [PALT(w)]}`` item."""
    score = _read_semantic_score(text)
    if score is None:
        raise InputError(path, _SCORE_EXPECTED, text, line=line)
    return score


@keyed_cache(4096)
def _read_semantic_score(text: str) -> SemanticScore | None:
    """:func:`parse_semantic_score` by the item's text alone (None: not an item); an Emir
    file repeats a few thousand items, and scores are immutable values."""
    match = _SCORE_RE.match(text)
    if match is None:
        return None
    g = match.groups()
    category, typ, subtype = [
        LevelResult(_names(g[i]), _names(g[i + 1]), _names(g[i + 2])) for i in (0, 3, 6)
    ]
    try:
        max_gold, max_system, csc, weight = [float(x) for x in g[9:13]]
        alt = None if g[13] is None else float(g[13])
    except ValueError:
        return None
    return SemanticScore(
        category, typ, subtype, max_gold, max_system, csc, weight, alt, bool(g[14])
    )


def _format_level(name: str, level: LevelResult) -> str:
    return (
        f"{name}(Correcto:[{'|'.join(level.correct)}] Espurio:[{'|'.join(level.spurious)}] "
        f"Em_Falta:[{'|'.join(level.missing)}])"
    )


def format_semantic_score(score: SemanticScore) -> str:
    """The item text ``{…}`` as Emir (or ALTina, with ``extra_paren``) writes it."""
    text = (
        "{"
        + " ".join(
            (
                _format_level(CATEGORY, score.category),
                _format_level(TYPE, score.type),
                _format_level(SUBTYPE, score.subtype),
            )
        )
        + f" MaxCSC_CD({java_double(score.max_csc_gold)})"
        f" MaxCSC_S({java_double(score.max_csc_system)})"
        f" CSC({java_double(score.csc)}) Peso({java_double(score.weight)})"
    )
    if score.alt_weight is not None:
        text += f" PALT({java_double(score.alt_weight)})" + (")" if score.extra_paren else "")
    return text + "}"


def scored_tail(scores: Iterable[SemanticScore]) -> str:
    """What follows an Emir record's head on its line, its line end included: the ``:``
    marker and the items, as Emir and ALTina write them."""
    return MARKER_FIRST_HAREM + "[" + ", ".join(map(format_semantic_score, scores)) + "]\n"


def parse_emir_record(record: Record, path: str | None = None) -> EmirRecord:
    """Read the Emir items of a record; an item that is not Emir output is an error."""
    number = record.line or None
    if record.evaluation is None or record.suffix:
        found = "a record without evaluation" if record.evaluation is None else record.suffix
        raise InputError(
            path, "an Emir record GOLD ---> [SYS, ...]:[{...}, ...]", found, line=number
        )
    scores = []
    for item in record.evaluation:
        if item.kind != EVAL_SEMANTIC:
            raise InputError(
                path,
                "Emir evaluation items {Categoria(...) ...} (run harem emir first)",
                item.text,
                line=number,
            )
        scores.append(parse_semantic_score(item.text, path, number))
    return EmirRecord(
        record.gold, record.system, tuple(scores), record.marker, record.eol, record.line
    )


def format_emir_record(item: EmirRecord) -> Record:
    """The alignment record of ``item``, ready for ``format_line``."""
    evaluation = tuple(
        Evaluation(EVAL_SEMANTIC, None, None, format_semantic_score(score)) for score in item.scores
    )
    return Record(item.gold, item.system, evaluation, item.marker, "", item.eol, item.line)


# ---------------------------------------------------------------------------
# Reading Emir files fast

_EMIR_MARKERS = ("]::[{", "]:[{")


def parse_semantic_line(
    text: str, path: str | None = None, line: int | None = None, eol: str = "\n"
) -> Line:
    """:func:`~harem_pipeline.formats.alinhado.parse_line` with a fast path for Emir records.

    An Emir evaluation part is long; it is split at its ``}, {`` item
    boundaries (an item holds no braces) instead of character by character.
    """
    for marker in _EMIR_MARKERS:
        cut = text.find(marker)
        if cut > 0 and text.endswith("}]"):
            head = parse_line(text[: cut + 1], path, line, eol)
            if not isinstance(head, Record):
                break
            body = text[cut + len(marker) - 1 : -1]
            items = tuple(
                Evaluation(EVAL_SEMANTIC, None, None, "{" + part + "}")
                for part in body[1:-1].split("}, {")
            )
            record = Record(head.gold, head.system, items, marker[1:-2], "", eol, line or 0)
            wanted = 1 if record.system is None else len(record.system)
            if len(items) != wanted:
                raise InputError(
                    path, f"{wanted} evaluation item(s)", f"{len(items)} item(s)", line=line
                )
            return record
    return parse_line(text, path, line, eol)


def iter_semantic_lines(path: PathLike) -> tuple[str, Iterator[Line]]:
    """Stream an Emir file (``.gz`` allowed): its encoding and its parsed lines."""
    return iter_lines(path, parse_semantic_line)


# ---------------------------------------------------------------------------
# Records of the semantic chain: one type, read once, known by their key
#
# What Emir writes for a record and what Ida adds for it depend only on its
# entities' classic values (CATEG, TIPO, SUBTIPO, or a First HAREM element
# name), which entity each aligned entity takes its item from, the items
# and the suffix: the record's :class:`RecordKey`.  A record line is read
# once into a :class:`SemanticRecord` holding that key: by one expression
# when it has the canonical shape the chain itself writes (then its head is
# written back as read), else by the full grammar (then its head is
# written back as the Java reprints it).  Each stage's answer is one pure
# function of the key, memoised (:func:`~harem_pipeline.text.memo.keyed_cache`).

ClassicKey = tuple[str | None, str | None, str | None]
"""The raw CATEG (or First HAREM element name), TIPO and SUBTIPO values of an entity."""

_ATTRIBUTE_RE = re.compile(r' ([^\s<>"=]+)="([^"]*)"')


def classic_values(element: str, attributes: Iterable[tuple[str, str]]) -> ClassicKey:
    """What the semantic scores of an entity depend on: its three classic values (the
    first of a repeated name counts, as in ``Tag.attr``; a First HAREM element name is
    the category)."""
    categ = tipo = subtipo = None
    for name, value in attributes:
        if name == "CATEG":
            if categ is None:
                categ = value
        elif name == "TIPO":
            if tipo is None:
                tipo = value
        elif name == "SUBTIPO" and subtipo is None:
            subtipo = value
    if categ is None and element != "EM":
        categ = element
    return categ, tipo, subtipo


def classic_key(tag: Tag) -> ClassicKey:
    """:func:`classic_values` of an entity."""
    return classic_values(tag.name, tag.attributes)


@keyed_cache()
def _written_classic(element: str, written: str) -> ClassicKey:
    """:func:`classic_values` of a canonical entity's classic attributes as written."""
    return classic_values(element, _ATTRIBUTE_RE.findall(written))


class RecordKey(NamedTuple):
    """All a semantic stage's answer for a record depends on."""

    gold: ClassicKey
    systems: tuple[ClassicKey, ...] | None
    """The system entities' classic values; None for ``[null]``."""
    picks: tuple[int, ...]
    """Per aligned entity (one for ``[null]``), the first entity of the list that the Java
    reads back the same (``EvaluatedAlignment.getScore`` looks entities up by equality)."""
    items: tuple[str, ...] | None
    """The evaluation items as written; None for a record without evaluation."""
    suffix: str


class SemanticRecord(NamedTuple):
    """A record line read once: its text, its key, and where its head ends when it is
    written back as read (``head_end`` -1: the full grammar's reading, ``parsed``, is
    written back instead)."""

    text: str
    line: int
    eol: str
    head_end: int
    key: RecordKey
    parsed: Record | None

    def head(self) -> str:
        """``GOLD ---> [SYS, …]`` as the chain writes it back (the Java reprints entities)."""
        if self.parsed is None:
            return self.text[: self.head_end]
        record = self.parsed
        return format_line(Record(reprint_tag(record.gold), reprint_system(record.system)))

    def unchanged(self) -> str:
        """The line as read, written with the ``:`` marker (no entity reprinted)."""
        if self.parsed is not None:
            return format_line(self.parsed, MARKER_FIRST_HAREM)
        text, end = self.text, self.head_end
        return text[:end] + text[end + 1 :] if text.startswith("::", end) else text

    def listed(self) -> str:
        """The system list ``[SYS, …]`` (or ``[null]``) as the chain writes it back."""
        if self.parsed is None:  # a canonical gold text holds no ">": the first "> --->" ends it
            return self.text[self.text.index(">" + ARROW) + 1 + len(ARROW) : self.head_end]
        return format_tag_list(reprint_system(self.parsed.system))

    def record(self, path: str | None, parse: LineParser) -> Record:
        """The line read by the full grammar (read now for a canonical line)."""
        if self.parsed is not None:
            return self.parsed
        read = parse(self.text, path, self.line, self.eol)
        assert isinstance(read, Record)  # the canonical shape is a record of the grammar
        return read


_KEYED_VALUE = r'[^"<>\[\]{}\'\n]*+'
"""An attribute value (and, without ``"``, a text) of the canonical shape."""


def _canonical_entity(name: int) -> str:
    """An entity of the canonical shape whose element name is group ``name``: ``ID``,
    ``CATEG``, ``TIPO``, ``SUBTIPO`` first, each at most once and in that order (group
    ``name + 1``, as written), no later attribute named so; values and texts free of
    brackets, braces, quote marks (no ``''`` to reprint) and line ends.  Possessive
    quantifiers: every part ends at a character its class excludes."""
    value = _KEYED_VALUE
    return (
        rf'<([A-Z]++)(?: ID="{value}")?+'
        rf'((?: CATEG="{value}")?+(?: TIPO="{value}")?+(?: SUBTIPO="{value}")?+)'
        rf'(?: (?!CATEG=|TIPO=|SUBTIPO=)[A-Za-z_]++="{value}")*+>'
        rf"[^<>\[\]{{}}\'\n]*+</\{name}>"
    )


_CANONICAL_RE = re.compile(
    "(?!<OMITIDO>|<VERIFICACAO_MANUAL>)"
    + _canonical_entity(1)
    + r" ---> \[(?:null|"
    + _canonical_entity(3)
    + r"((?:, "
    + _canonical_entity(6)
    + r")*+))\](::?)(\[.*)\Z"
)
"""Groups 1-2: the gold's element and classic attributes, 3-4 the first system entity's,
5 the system entities after it (empty: one; None: ``[null]``), 8 the marker, 9 the rest
of the line: the evaluation list and the suffix (read by the full grammar's rule once
per distinct text, :func:`~harem_pipeline.formats.alinhado.evaluation_part`, not
scanned on every line)."""
_MARKER = 8
_MORE = 5

_LISTED_ENTITY = re.compile("(" + _canonical_entity(2) + ")")
"""One entity of a canonical system list: its text, element and classic attributes."""


def _items(part: str, aligned: int | None) -> tuple[tuple[str, ...], str] | None:
    """The items and the suffix of a canonical record's evaluation part for ``aligned``
    system entities; None when the full grammar refuses them (it then reads the line,
    and says why)."""
    try:
        evaluation, end = evaluation_part(part, aligned)
    except InputError:
        return None
    return tuple(item.text for item in evaluation), part[end:]


def _canonical_key(groups: tuple[str | None, ...]) -> RecordKey | None:
    """The key of a canonical record with at most one system entity from the expression's
    groups 1-4 and 9; None when what follows the marker is not its one item."""
    g_element, g_written, s_element, s_written, part = groups
    assert g_element is not None and g_written is not None and part is not None
    if s_element is None or s_written is None:  # the two groups match together
        systems = None
    else:
        systems = (_written_classic(s_element, s_written),)
    split = _items(part, None if systems is None else 1)
    if split is None:
        return None
    return RecordKey(_written_classic(g_element, g_written), systems, (0,), *split)


_CANONICAL_KEYS: KeyedTable[tuple[str | None, ...], RecordKey | None] = KeyedTable(_canonical_key)
""":func:`_canonical_key` of each line's groups seen: one lookup a line, on the tuple the
match gives (a few thousand distinct keys make a file)."""


def _listed_key(match: re.Match[str]) -> RecordKey | None:
    """The key of a canonical record with several system entities, read on its line: each
    entity's classic values, and for each the first entity written the same (a
    canonical entity is written as the Java reprints it); None when the full grammar
    refuses its items."""
    entities = _LISTED_ENTITY.findall(match.string, match.start(3) - 1, match.end(_MORE))
    split = _items(match.group(9), len(entities))
    if split is None:
        return None
    texts = [text for text, _, _ in entities]
    g_element, g_written = match.group(1, 2)
    return RecordKey(
        _written_classic(g_element, g_written),
        tuple(_written_classic(element, written) for _, element, written in entities),
        tuple(map(texts.index, texts)),
        *split,
    )


_new_tuple = tuple.__new__  # a NamedTuple without its keyword-argument constructor


def _canonical_record(text: str, line: int, eol: str) -> SemanticRecord | None:
    match = _CANONICAL_RE.match(text)
    if match is None:
        return None
    if match.group(_MORE):
        key = _listed_key(match)
    else:
        key = _CANONICAL_KEYS[match.group(1, 2, 3, 4, 9)]
    if key is None:
        return None
    return _new_tuple(SemanticRecord, (text, line, eol, match.start(_MARKER), key, None))


def record_key(record: Record) -> RecordKey:
    """The key of a record read by the full grammar."""
    system = reprint_system(record.system)
    entities = (None,) if system is None else system
    evaluation = record.evaluation
    return RecordKey(
        classic_key(record.gold),
        None if record.system is None else tuple(map(classic_key, record.system)),
        tuple(entities.index(entity) for entity in entities),
        None if evaluation is None else tuple(item.text for item in evaluation),
        record.suffix,
    )


def as_semantic(item: Line | SemanticRecord) -> Line | SemanticRecord:
    """A line already read by the full grammar as the chain reads it: a record as a
    :class:`SemanticRecord` (its head written back as the Java reprints it)."""
    if type(item) is Record:
        return SemanticRecord("", item.line, item.eol, -1, record_key(item), item)
    return item


def read_record_line(
    text: str, path: str | None, line: int, eol: str, parse: LineParser = parse_line
) -> Line | SemanticRecord:
    """One line of a semantic-chain file: a record as a :class:`SemanticRecord` (the
    canonical expression first, ``parse`` when it does not match), any other line as
    ``parse`` reads it (a line not starting ``<``, never a record, and an ALT line as
    ``parse_line`` reads them: every ``parse`` of a record file's lines leaves those to
    it)."""
    if text[:1] != "<":
        return parse_line(text, path, line, eol)
    if text.startswith(ALT_PREFIXES):
        alt = alt_line(text, eol, line)
        if alt is not None:
            return alt
    else:
        found = _canonical_record(text, line, eol)
        if found is not None:
            return found
    return as_semantic(parse(text, path, line, eol))


def iter_records(
    path: PathLike, parse: LineParser = parse_line, canonical: bool = True
) -> tuple[str, Iterator[Line | SemanticRecord]]:
    """Stream a semantic-chain file: its encoding and each line read by
    :func:`semantic_lines`."""
    encoding, lines = iter_numbered_lines(path)
    return encoding, semantic_lines(lines, str(path), parse, canonical)


def semantic_lines(
    lines: Iterable[NumberedLine], path: str, parse: LineParser = parse_line, canonical: bool = True
) -> Iterator[Line | SemanticRecord]:
    """Each ``(number, text, line end)`` line read by :func:`read_record_line`
    (``canonical`` False: every record by ``parse`` alone, for a format the canonical
    shape does not describe)."""
    if not canonical:
        for number, text, eol in lines:
            yield as_semantic(parse(text, path, number, eol))
        return
    for number, text, eol in lines:
        yield read_record_line(text, path, number, eol, parse)


@keyed_cache()
def emir_scores(key: RecordKey, path: str | None = None) -> tuple[SemanticScore, ...]:
    """The Emir items of a record of this key, read and checked in order as
    :func:`parse_emir_record` does (an item that is not Emir output is an error)."""
    if key.items is None or key.suffix:
        found = "a record without evaluation" if key.items is None else key.suffix
        raise InputError(path, "an Emir record GOLD ---> [SYS, ...]:[{...}, ...]", found)
    scores = []
    for text in key.items:
        if parse_evaluation(text).kind != EVAL_SEMANTIC:
            raise InputError(
                path, "Emir evaluation items {Categoria(...) ...} (run harem emir first)", text
            )
        scores.append(parse_semantic_score(text, path))
    return tuple(scores)


def at_line(error: InputError, line: int) -> InputError:
    """``error`` (raised by a rule of a key, which knows no line) located at ``line``."""
    return InputError(error.path, error.expected, error.found, line=line or None, docid=error.docid)


# ---------------------------------------------------------------------------
# ALT blocks, as the Java programs read them (alts, altsem)


def not_a_record_in_alt(item: Line, path: str | None, record: str = "a record") -> InputError:
    """The error for a line inside an alternative of an ALT block that is neither
    ``record`` nor its ``</ALTn>`` (the line's class names what was found)."""
    return InputError(
        path,
        f"{record} or </ALTn> inside an alternative",
        type(item).__name__,
        line=getattr(item, "line", 0) or None,
    )


Out = TypeVar("Out")
T = TypeVar("T")


class AltState(NamedTuple):
    """The state a reader of ALT blocks was left in at the end of its lines (its last
    output): a file read a block at a time was cut well when every block but the last
    leaves it outside ALT blocks (state 0), each block then starting as the one stream
    would."""

    state: int


def ended_outside_alt(pieces: Iterable[T | AltState], path: str | None) -> Iterator[T]:
    """The pieces of a file's blocks, in order, without their :class:`AltState`; an
    input error (for :func:`~harem_pipeline.pipeline.blocks.run_with_fallback`: read
    again as one stream) when a block that is not the last ended inside an ALT block."""
    left: AltState | None = None
    for piece in pieces:
        if left is not None and left.state != 0:
            raise InputError(
                path,
                "a block of lines cut outside ALT blocks",
                f"one that ends in ALT state {left.state}",
            )
        if isinstance(piece, AltState):
            left = piece
        else:
            left = None
            yield piece


class AltBlockReader(Generic[Out]):
    """A reader of a stream's ALT blocks in :func:`next_alt_state`'s states (alts, altsem).

    A subclass says what a state change writes (:meth:`entered`) and what any
    other line becomes (:meth:`other`), an ``<ALT>`` line its state does not
    expect included.
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.state = 0

    def read(self, lines: Iterable[Line | SemanticRecord]) -> Iterator[Out | AltState]:
        """The output of ``lines``, then the state they end in (:func:`ended_outside_alt`
        reads it)."""
        for item in lines:
            yield from self.line(item)
        yield AltState(self.state)

    def line(self, item: Line | SemanticRecord) -> Iterable[Out]:
        """The output of one line (a tuple or a block's lines: no generator a line)."""
        if type(item) is AltOpen or type(item) is AltClose:
            state = next_alt_state(self.state, type(item) is AltOpen, item.n)
            if state is not None:
                self.state = state
                return self.entered(state)
        return self.other(item)

    def entered(self, state: int) -> Iterable[Out]:
        """The output of moving to ``state``."""
        raise NotImplementedError

    def other(self, item: Line | SemanticRecord) -> Iterable[Out]:
        """The output of a line that changes no state."""
        raise NotImplementedError
