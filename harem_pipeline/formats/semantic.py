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

import codecs
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple, Protocol

from harem_pipeline.errors import InputError
from harem_pipeline.formats import alinhado
from harem_pipeline.formats.alinhado import (
    _CHUNK_ENCODINGS,
    ARROW,
    EVAL_SEMANTIC,
    IDENTIFICATION_KINDS,
    MARKER_FIRST_HAREM,
    NULL_LIST,
    AltClose,
    AltOpen,
    DocumentLine,
    Evaluation,
    Line,
    LineChunk,
    LineParser,
    NumberedLine,
    Record,
    Tag,
    _chunk_of,
    format_line,
    iter_lines,
    iter_numbered_lines,
    parse_evaluation,
    parse_line,
    reprint_system,
    reprint_tag,
)
from harem_pipeline.text.memo import keyed_cache
from harem_pipeline.text.numbers import java_double as _java_double
from harem_pipeline.text.progress import progress_counter
from harem_pipeline.text.textio import detect_file_encoding

java_double = lru_cache(maxsize=8192)(_java_double)
"""``Double.toString``, remembered: the same few CSC values recur on most lines."""

ALT_WEIGHT_MARK = "^"

CATEGORY = "Categoria"
TYPE = "Tipo"
SUBTYPE = "Subtipo"
LEVELS = (CATEGORY, TYPE, SUBTYPE)


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
    if record.evaluation is None:
        raise InputError(
            path,
            "an evaluated record GOLD ---> [SYS, ...]:[EVAL, ...] (Véus output)",
            "a record without evaluation",
            line=record.line or None,
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


_KNOWN_SCORES: dict[str, SemanticScore] = {}
"""Items read so far, by their text: an Emir file repeats a few thousand items (scores are
immutable values, so each reading is shared)."""
_KNOWN_SCORES_LIMIT = 4096


def parse_semantic_score(
    text: str, path: str | None = None, line: int | None = None
) -> SemanticScore:
    """Parse one ``{Categoria(…) … Peso(x) [PALT(w)]}`` item."""
    score = _KNOWN_SCORES.get(text)
    if score is None:
        score = _read_semantic_score(text, path, line)
        if len(_KNOWN_SCORES) >= _KNOWN_SCORES_LIMIT:
            _KNOWN_SCORES.clear()
        _KNOWN_SCORES[text] = score
    return score


def _read_semantic_score(text: str, path: str | None, line: int | None) -> SemanticScore:
    """:func:`parse_semantic_score` without the items read so far."""
    match = _SCORE_RE.match(text)
    if match is None:
        raise InputError(path, _SCORE_EXPECTED, text, line=line)
    g = match.groups()
    levels = [LevelResult(_names(g[i]), _names(g[i + 1]), _names(g[i + 2])) for i in (0, 3, 6)]
    try:
        numbers = [float(x) for x in g[9:13]]
        alt = None if g[13] is None else float(g[13])
    except ValueError:
        raise InputError(path, _SCORE_EXPECTED, text, line=line) from None
    return SemanticScore(*levels, *numbers, alt, bool(g[14]))


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


def iter_semantic_lines(path: str | os.PathLike[str]) -> tuple[str, Iterator[Line]]:
    """Stream an Emir file (``.gz`` allowed): its encoding and its parsed lines."""
    return iter_lines(path, parse_semantic_line)


# ---------------------------------------------------------------------------
# Plain records: the common shape, read without building tags

_NAME = r'[^\s<>/"=]+'
_ATTRIBUTES = r'(?: [^\s<>"=]+="[^"]*")*'
_TEXT = r"[^<>\[\]]*"
_PLAIN_TAG_RE = re.compile(rf"<({_NAME})({_ATTRIBUTES})>({_TEXT})</\1>")
_PLAIN_HEAD = (
    rf"<({_NAME})({_ATTRIBUTES})>({_TEXT})</\1> ---> "  # gold: groups 1-3
    rf"(\[null\]|\[<({_NAME}){_ATTRIBUTES}>{_TEXT}</\5>"  # system list: group 4
    rf"(?:, <({_NAME}){_ATTRIBUTES}>{_TEXT}</\6>)*\])"
)
_PLAIN_HEAD_RE = re.compile(_PLAIN_HEAD)
_PLAIN_RECORD_RE = re.compile(_PLAIN_HEAD + r"(::?)(\[([^\[\]{}]*)\].*)\Z")
"""Groups 7-9: the marker, the tail from the list's ``[``, the list's inside."""
_NOT_RECORDS = ("<VERIFICACAO_MANUAL>", "<OMITIDO>")

PlainTag = tuple[str, str, str]
"""An entity of a plain record: element name, attributes as written, text."""


class PlainRecord(NamedTuple):
    """A record line in the shape nearly every line has, cut without building tags.

    Plain means: every entity written ``<NAME K="v" …>text</NAME>`` with one
    space before each attribute and none around ``=``, its text free of
    ``<``, ``>``, ``[`` and ``]``, no ``''`` on the line, at least one system
    entity (or ``[null]``), and an evaluation list that the general reader
    (:func:`~harem_pipeline.formats.alinhado.parse_line`) accepts with one
    item per entity.  Such a line is exactly what
    :func:`~harem_pipeline.formats.alinhado.format_line` writes back for
    its parse, and the Java writes its entities back unchanged
    (:func:`~harem_pipeline.formats.alinhado.reprint_tag` is the identity on
    them), so a stage may copy its parts as written.  Any other line is read by the general reader.
    """

    text: str
    """The line, its line end cut off."""
    line: int
    eol: str
    head: str
    """``GOLD ---> [SYS, …]`` as written."""
    gold: PlainTag
    listed: str
    """The system list as written: ``[SYS, …]`` or ``[null]``."""
    items: tuple[str, ...]
    """The evaluation items as written."""
    tail: str
    """From the ``[`` of the evaluation list to the end (suffix included)."""

    def entities(self) -> tuple[PlainTag, ...] | None:
        """The system entities, None for ``[null]``."""
        return None if self.listed == NULL_LIST else tuple(_PLAIN_TAG_RE.findall(self.listed))

    def parse(self, path: str | None, parse: LineParser = parse_line) -> Line:
        """The line read by the general reader, for a stage that needs the whole record."""
        return parse(self.text, path, self.line, self.eol)


_IDENTIFICATION_ITEMS: dict[str, str] = {}
"""Identification items already read (text → kind), so each is parsed once."""


def _identification_item(text: str) -> str | None:
    """The kind of an identification item the general reader accepts; None for any other."""
    kind = _IDENTIFICATION_ITEMS.get(text)
    if kind is None:
        try:
            kind = parse_evaluation(text).kind
        except InputError:
            return None
        if kind not in IDENTIFICATION_KINDS:
            return None
        if len(_IDENTIFICATION_ITEMS) < 4096:
            _IDENTIFICATION_ITEMS[text] = kind
    return kind


def _entity_count(listed: str) -> int:
    """Entities of a plain system list: one ``</`` each (texts hold no ``<``); 1 for [null]."""
    return 1 if listed == NULL_LIST else listed.count("</")


def read_plain_record(text: str, line: int = 0, eol: str = "\n") -> PlainRecord | None:
    """The plain record of a Véus or ``.alts`` line (identification items); None otherwise."""
    if "''" in text or text.startswith(_NOT_RECORDS):
        return None
    match = _PLAIN_RECORD_RE.match(text)
    if match is None:
        return None
    inner = match.group(9)
    items = tuple(inner.split(", ")) if inner else ()
    listed = match.group(4)
    if len(items) != _entity_count(listed):
        return None
    known = _IDENTIFICATION_ITEMS
    for item in items:
        if item not in known and _identification_item(item) is None:
            return None
    gold = match.group(1, 2, 3)
    return PlainRecord(text, line, eol, text[: match.end(4)], gold, listed, items, match.group(8))


def read_plain_emir_record(text: str, line: int = 0, eol: str = "\n") -> PlainRecord | None:
    """The plain record of an Emir line (what :func:`parse_semantic_line` cuts); None otherwise."""
    if not text.endswith("}]") or "''" in text or text.startswith(_NOT_RECORDS):
        return None
    for marker in _EMIR_MARKERS:
        cut = text.find(marker)
        if cut > 0:
            match = _PLAIN_HEAD_RE.match(text, 0, cut + 1)
            if match is None or match.end() != cut + 1:
                return None
            start = cut + len(marker) - 2  # the list's "["
            items = tuple("{" + part + "}" for part in text[start + 2 : -2].split("}, {"))
            listed = match.group(4)
            if len(items) != _entity_count(listed):
                return None
            gold = match.group(1, 2, 3)
            return PlainRecord(text, line, eol, text[: cut + 1], gold, listed, items, text[start:])
    return None


PlainReader = Callable[[str, int, str], "PlainRecord | None"]
"""Reads a line as a plain record, None when it is not one."""


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
    _canonical_entity(1)
    + r" ---> \[(?:null|"
    + _canonical_entity(3)
    + r")\](::?)\[(\{[^{}\n]*+\}|[^\[\]{},\n]++)\](.*)\Z"
)
"""Groups 1-2: the gold's element and classic attributes, 3-4 the system entity's (at
most one), 5 the marker, 6 the one item, 7 the suffix."""
_MARKER = 5


@keyed_cache()
def _is_item(text: str) -> bool:
    """Whether the full grammar reads ``text`` as one evaluation item."""
    try:
        parse_evaluation(text)
    except InputError:
        return False
    return True


def _canonical_record(text: str, line: int, eol: str) -> SemanticRecord | None:
    if text.startswith(_NOT_RECORDS):
        return None
    match = _CANONICAL_RE.match(text)
    if match is None or not _is_item(match.group(6)):
        return None
    g_element, g_written, s_element, s_written, _, item, suffix = match.groups()
    systems = None if s_element is None else (_written_classic(s_element, s_written),)
    key = RecordKey(_written_classic(g_element, g_written), systems, (0,), (item,), suffix)
    return SemanticRecord(text, line, eol, match.start(_MARKER), key, None)


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
    ``parse`` reads it."""
    found = _canonical_record(text, line, eol)
    if found is not None:
        return found
    return as_semantic(parse(text, path, line, eol))


def iter_records(
    path: str | os.PathLike[str], parse: LineParser = parse_line, canonical: bool = True
) -> tuple[str, Iterator[Line | SemanticRecord]]:
    """Stream a semantic-chain file: its encoding and each line read by
    :func:`read_record_line` (``canonical`` False: every record by ``parse`` alone, for
    a format the canonical shape does not describe)."""
    encoding, lines = iter_numbered_lines(path)
    name = str(path)

    def read() -> Iterator[Line | SemanticRecord]:
        for number, text, eol in lines:
            if canonical:
                yield read_record_line(text, name, number, eol, parse)
                continue
            yield as_semantic(parse(text, name, number, eol))

    return encoding, read()


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
# Runs of plain lines: many lines checked by one match
#
# alts, altsem and espurios copy (or skip) nearly every line outside the ALT
# blocks as written, so checking one line at a time costs more than the
# work.  One regular expression instead matches a run of consecutive lines
# that :func:`read_plain_record` (:func:`read_plain_emir_record` for Emir
# files) reads as plain, written in a stricter shape still — names and keys
# of ASCII letters, digits, ``_``, ``-`` and ``|``, attribute values and
# texts free of brackets, braces and ``<>``, at most
# :data:`RUN_ENTITIES` system entities, items a strict subset of what the
# general reader accepts, the marker ``:`` or ``::``, a ``\n`` line end —
# together with the blank, ``DOC``, ``EOD`` and ``<ALT>`` lines between them
# (``<ALT1>``, not ``<ALT01>``), which every stage writes back as read
# (records with the ``:`` marker: :func:`first_harem_markers`).  A run holding
# ``''`` is read line by line (its entities would be reprinted).  Every
# line outside a run is read as :func:`read_plain_record` (else the grammar) reads it, so it
# raises the same errors.

RUN_ENTITIES = 4
"""System entities of the longest record a run holds (longer ones are read alone)."""

_RUN_NAME = r"[A-Za-z0-9_|-]++"
_RUN_ATTRIBUTES = r'(?: [A-Za-z0-9_-]++="[^"<>\[\]{}\n]*+")*+'
_RUN_TEXT = r"[^<>\[\]{}\n]*+"
_RUN_NUMBER = r"[0-9]++\.[0-9]++(?:E-?[0-9]++)?"
_RUN_IDENTIFICATION_ITEM = (
    rf"(?:Correcto|Em_Falta|Espurio|Parcialmente_Correcto_por_(?:Excesso|Defeito)"
    rf"\({_RUN_NUMBER}; {_RUN_NUMBER}\))"
)
_RUN_EMIR_ITEM = r"\{[^}]*+\}"
_RUN_EMIR_LINE_END = r"(?=[^\n]*+(?<=\}\])\n)"
"""An Emir record line ends in ``}]``: then no item (``[^}]``, the fast loop of one
excluded character) reaches past the line's last ``}``, so none holds a line end."""
_RUN_OTHER = r"(?:DOC [^\n]*+|EOD||</?ALT(?:[1-9][0-9]*+)?>)\n"


def _run_tag(group: str) -> str:
    return rf"<(?P<{group}>{_RUN_NAME}){_RUN_ATTRIBUTES}>{_RUN_TEXT}</(?P={group})>"


def _run_pattern(item: str, suffix: str, line_end: str = "") -> re.Pattern[str]:
    """Runs of records with one ``item`` per system entity (up to RUN_ENTITIES) and other lines.

    The system list is matched entity by entity, each count with its own
    item list, so no line is matched twice.
    """
    listed = ""
    for count in range(RUN_ENTITIES, 0, -1):
        tag = _run_tag(f"s{count}")
        close = r"\]::?\[" + ", ".join([item] * count)
        listed = f"{tag}(?:{close}|, {listed})" if listed else f"{tag}{close}"
    record = (
        rf"(?!<OMITIDO>|<VERIFICACAO_MANUAL>){line_end}{_run_tag('g')} ---> "
        rf"\[(?:null\]::?\[{item}|{listed})\]{suffix}\n"
    )
    return re.compile(rf"(?:{record}|{_RUN_OTHER})+")  # not ++: 3.11's re fails on it


@cache
def plain_run() -> re.Pattern[str]:
    """Runs of Véus or ``.alts`` lines (identification items, any suffix).

    Compiled when first asked for (4 ms): only alts and espurios read runs
    of these, and every other command starts faster without it.
    """
    return _run_pattern(_RUN_IDENTIFICATION_ITEM, r"[^\n]*+")


@cache
def plain_emir_run() -> re.Pattern[str]:
    """Runs of Emir lines (compiled when first asked for: only altsem reads them)."""
    return _run_pattern(_RUN_EMIR_ITEM, "", _RUN_EMIR_LINE_END)


class PlainRun(NamedTuple):
    """Consecutive lines, each ending in ``\\n``: plain records, blank, ``DOC``, ``EOD``
    and ``<ALT>`` lines.

    Every record of it is one :func:`read_plain_record` (or
    :func:`read_plain_emir_record`, for an Emir run) reads as plain, every
    other line one :func:`~harem_pipeline.formats.alinhado.format_line`
    writes back as read, so a stage may copy the text whole.
    """

    text: str
    line: int
    """The number of its first line."""

    def bodies(self) -> Iterator[tuple[int, str]]:
        """Each line's number and text (line end cut off)."""
        texts = self.text.split("\n")
        texts.pop()
        return enumerate(texts, self.line)


def next_alt_block(text: str, pos: int) -> int:
    """Where the next ``<ALT>`` line of a run starts, from the line at ``pos``; its end if none."""
    if text.startswith("<ALT>\n", pos):
        return pos
    found = text.find("\n<ALT>\n", pos)
    return len(text) if found < 0 else found + 1


def read_run_line(body: str, line: int, emir: bool = False) -> Line | PlainRecord:
    """A line of a run (of an Emir run with ``emir``) as a line outside a run is read.

    The run's match checked its shape, so a record is cut at its marks: the
    first ``>`` ends the gold tag's head, the first ``]`` the system list.
    """
    if body[:1] != "<":
        return parse_line(body, None, line)  # blank, DOC or EOD
    alt = ALT_LINES.get(body)
    if alt is not None:
        return alt[0](alt[1], "\n", line)
    opening = body.index(">")
    name_end = body.find(" ", 0, opening)
    if name_end < 0:
        name_end = opening
    arrow = body.index(ARROW, opening)
    gold = (
        body[1:name_end],
        body[name_end:opening],
        body[opening + 1 : body.rindex("</", 0, arrow)],
    )
    close = body.index("]", arrow)
    start = close + 3 if body[close + 2] == ":" else close + 2  # the list's "[" after : or ::
    if emir:
        items = tuple("{" + part + "}" for part in body[start + 2 : -2].split("}, {"))
    else:
        items = tuple(body[start + 1 : body.index("]", start)].split(", "))
    listed = body[arrow + len(ARROW) : close + 1]
    return PlainRecord(body, line, "\n", body[: close + 1], gold, listed, items, body[start:])


def not_a_record_in_alt(item: Line, path: str | None, record: str = "a record") -> InputError:
    """The error for a line inside an alternative of an ALT block that is neither
    ``record`` nor its ``</ALTn>`` (the line's class names what was found)."""
    return InputError(
        path,
        f"{record} or </ALTn> inside an alternative",
        type(item).__name__,
        line=getattr(item, "line", 0) or None,
    )


class RunReader(Protocol):
    """A stage reading ALT blocks as the Java programs do (alts, altsem), as
    :func:`read_run` drives it."""

    state: int
    """0 outside ALT blocks (see :func:`next_alt_state`)."""

    def copy(self, text: str) -> Iterable[Line | str]:
        """The output of lines of a run outside ALT blocks, up to the next ``<ALT>`` line."""
        ...

    def run_alt(self, opening: bool, n: int | None) -> Iterable[Line | str] | None:
        """The output of an ``<ALT>`` line of a run; None when it is read as any other line."""
        ...

    def line(self, item: Line | PlainRecord) -> Iterable[Line | str]:
        """The output of any other line."""
        ...


def read_run(run: PlainRun, reader: RunReader, emir: bool = False) -> Iterator[Line | str]:
    """The output of a run (of an Emir run with ``emir``) for ``reader``: outside ALT
    blocks its text up to the next ``<ALT>`` line at once, inside them a line at a time."""
    text, number = run.text, run.line
    pos, end = 0, len(text)
    while pos < end:
        if reader.state == 0:
            stop = next_alt_block(text, pos)
            if stop > pos:
                yield from reader.copy(text[pos:stop])
                number += text.count("\n", pos, stop)
                pos = stop
                continue
        stop = text.index("\n", pos)
        body = text[pos:stop]
        alt = ALT_LINES.get(body)
        output = None if alt is None else reader.run_alt(alt[0] is AltOpen, alt[1])
        if output is not None:
            yield from output
        else:
            yield from reader.line(read_run_line(body, number, emir))
        pos, number = stop + 1, number + 1


def first_harem_markers(text: str) -> str:
    """Lines of a run as the general path writes them back with the ``:`` marker
    (``]::[`` is the evaluation marker wherever it is: texts and values hold no brackets)."""
    return text.replace("]::[", "]:[")


def iter_plain_runs(
    path: str | os.PathLike[str],
    run: re.Pattern[str] | None = None,
    plain: PlainReader = read_plain_record,
    parse: LineParser = parse_line,
) -> tuple[str, Iterator[Line | PlainRecord | PlainRun]]:
    """Stream a record file: its encoding, and its lines with those ``run`` (default
    :func:`plain_run`) matches given as :class:`PlainRun`.

    Lines are parsed whole up to the first record or First HAREM document
    line; after it, a chunk of lines at a time, each run of lines ``run``
    matches is one :class:`PlainRun`, any other line is read by ``plain`` (a
    :class:`PlainRecord`), else by ``parse``.
    """
    match = (plain_run() if run is None else run).match
    name = str(path)

    def runs(text: str, first: int) -> Iterator[Line | PlainRecord | PlainRun]:
        return _chunk_runs(text, first, name, match, plain, parse)

    return _after_head(path, runs, plain, parse)


def _after_head(
    path: str | os.PathLike[str],
    texts: Callable[[str, int], Iterable[Line | PlainRecord | PlainRun]],
    plain: PlainReader,
    parse: LineParser,
) -> tuple[str, Iterator]:
    """The file's encoding, and its lines: parsed whole up to the first record or First
    HAREM document line, then each decoded text of lines without ``\\r`` as ``texts``
    gives it, any other line read by ``plain`` (else ``parse``)."""
    encoding = detect_file_encoding(path)
    if encoding == "utf-8-sig":  # as iter_line_chunks: the BOM is dropped on reading
        encoding = "utf-8"
    return encoding, _plain_runs(_text_chunks(path, encoding), str(path), texts, plain, parse)


def _text_chunks(
    path: str | os.PathLike[str], encoding: str
) -> Iterator[LineChunk | tuple[int, str]]:
    """The chunks of :func:`~harem_pipeline.formats.alinhado.iter_line_chunks`, read the
    same way, but one decoded whole without a ``\\r`` as ``(first line, text)``: a run
    needs the text, not its lines (splitting and joining them back cost more than the
    reading).  The first chunk, and any other, is a ``LineChunk`` (its errors as there)."""
    name = str(path)
    whole = codecs.lookup(encoding).name in _CHUNK_ENCODINGS
    bar = progress_counter(Path(path).name, "line")
    number = 1
    for block in alinhado.iter_line_blocks(path):
        text = _whole_text(block, encoding) if whole and number > 1 else None
        if text is None:
            chunk = _chunk_of(block, number, name, encoding, whole)
            count = len(chunk.bodies)
            yield chunk
        else:
            count = text.count("\n") + (not text.endswith("\n"))
            yield number, text
        number += count
        bar.update(count)
    bar.close()


def _text_lines(first: int, text: str) -> LineChunk:
    """The lines of a chunk's text without ``\\r`` (as ``_chunk_of`` cuts them)."""
    bodies = text.split("\n")
    if text.endswith("\n"):
        bodies.pop()
        return LineChunk(first, bodies, ["\n"] * len(bodies))
    return LineChunk(first, bodies, ["\n"] * (len(bodies) - 1) + [""])


def _whole_text(block: bytes, encoding: str) -> str | None:
    """The text of a block with no ``\\r`` decoded whole; None for any other."""
    try:
        text = block.decode(encoding)
    except UnicodeDecodeError:
        return None
    return None if "\r" in text else text


def _plain_runs(
    chunks: Iterator[LineChunk | tuple[int, str]],
    path: str,
    texts: Callable[[str, int], Iterable[Line | PlainRecord | PlainRun]],
    plain: PlainReader,
    parse: LineParser,
) -> Iterator[Line | PlainRecord | PlainRun]:
    started = False
    for chunk in chunks:
        if type(chunk) is tuple:
            if started:
                yield from texts(chunk[1], chunk[0])
                continue
            chunk = _text_lines(*chunk)  # still in the head: read a line at a time
        bodies, eols, first = chunk.bodies, chunk.eols, chunk.first  # type: ignore[union-attr]
        start = 0
        if not started:
            for index, body in enumerate(bodies):
                item = parse(body, path, first + index, eols[index])
                yield item
                if isinstance(item, (Record, DocumentLine)):
                    started, start = True, index + 1
                    break
            if not started:
                continue
        if "\r\n" in eols:  # runs end in \n only: read this chunk a line at a time
            numbers = range(first + start, first + len(bodies))
            lines = zip(numbers, bodies[start:], eols[start:], strict=True)
            yield from _plain_lines_after_head(lines, path, plain, parse)
        elif start < len(bodies):
            yield from texts("\n".join(bodies[start:]) + eols[-1], first + start)


def _chunk_runs(
    text: str,
    first: int,
    path: str,
    match: Callable[[str, int], re.Match[str] | None],
    plain: PlainReader,
    parse: LineParser,
) -> Iterator[Line | PlainRecord | PlainRun]:
    """The runs and other lines of ``text``, lines without ``\\r`` from line ``first``."""
    pos, end, number = 0, len(text), first
    while pos < end:
        found = match(text, pos)
        if found is not None:
            stop = found.end()
            run = PlainRun(text[pos:stop], number)
            count = run.text.count("\n")
            if "''" in run.text:  # its entities are reprinted: each line read alone
                lines = ((n, body, "\n") for n, body in run.bodies())
                yield from _plain_lines_after_head(lines, path, plain, parse)
            else:
                yield run
            pos, number = stop, number + count
            continue
        stop = text.find("\n", pos)
        if stop < 0:
            stop = end
        body, eol = text[pos:stop], "\n" if stop < end else ""
        alt = ALT_LINES.get(body)
        if alt is not None:
            yield alt[0](alt[1], eol, number)
        else:
            record = plain(body, number, eol)
            yield parse(body, path, number, eol) if record is None else record
        pos, number = stop + 1, number + 1


ALT_LINES: dict[str, tuple[type[AltOpen | AltClose], int | None]] = {
    f"<{close}ALT{n}>": (AltClose if close else AltOpen, int(n) if n else None)
    for close in ("", "/")
    for n in ("", *"123456789")
}
"""The usual ``<ALT>`` lines: what the general reader reads from them, without reading them."""


def next_alt_state(state: int, opening: bool, n: int | None) -> int | None:
    """Where an ``<ALT>`` line moves a reader of ALT blocks, as the Java programs read
    them (AltAlignmentOrganizer, SemanticAltAlignmentSelector alike).

    States: 0 outside blocks, 1 after ``<ALT>``, 2 inside an ``<ALTn>``
    (n from 1 to 9), 3 after its ``</ALTn>``; ``</ALT>`` in state 3 ends the
    block.  None when the line comes where its state does not expect it: the
    Java then reads it as any other line.
    """
    numbered = n is not None and 1 <= n <= 9
    if state == 0 and opening and n is None:
        return 1
    if state in (1, 3) and opening and numbered:
        return 2
    if state == 2 and not opening and numbered:
        return 3
    if state == 3 and not opening and n is None:
        return 0
    return None


def _plain_lines_after_head(
    lines: Iterable[NumberedLine], path: str, plain: PlainReader, parse: LineParser
) -> Iterator[Line | PlainRecord]:
    for number, text, eol in lines:
        record = plain(text, number, eol)
        yield parse(text, path, number, eol) if record is None else record


def lines_holding(text: str, word: str) -> Iterator[int]:
    """Where each line of ``text`` (lines ending in ``\\n``) holding ``word`` starts, in order.

    A search for a rare word (``ESPURIO``) finds the few lines of a run a
    stage must look at faster than reading its lines one by one.
    """
    pos = text.find(word)
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        yield start
        pos = text.find(word, text.index("\n", pos))
