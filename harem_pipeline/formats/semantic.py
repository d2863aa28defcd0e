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
    iter_lines,
    iter_numbered_lines,
    parse_evaluation,
    parse_line,
)
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


PlainReader = Callable[[str, int, str], "PlainRecord | KeyedRecord | None"]
"""Reads a line as a plain (or keyed) record, None when it is not one."""


# ---------------------------------------------------------------------------
# Keyed records: the plainest records, known by what Emir and Ida depend on
#
# Emir's evaluation part of a plain record, and what Ida adds for it, depend
# only on its entities' element names and classic attributes (CATEG, TIPO,
# SUBTIPO) and on what follows its system list.  When each entity writes
# those attributes first — ``ID``, ``CATEG``, ``TIPO``, ``SUBTIPO``, each at
# most once and in that order, no later attribute named so — and there is at
# most one system entity, one regular expression reads them all, and a stage
# finds the work of an earlier line of the same key without cutting the line
# into a :class:`PlainRecord`.  Values and texts hold no brackets, braces or
# quote marks (no ``''`` to reprint), so the system list ends at the line's
# first ``]`` and all that is left outside the key is IDs, other attributes
# and texts, which no stage's answer depends on; the rest of the line (an
# item that does not fit, a bad ALT weight) is in the key and seen when the
# first line of a key is read as plain (:meth:`KeyedRecord.unkeyed`), and the
# same key always gives the same answer there.

_KEYED_VALUE = r'[^"<>\[\]{}\'\n]*+'
"""An attribute value (and, without ``"``, a text) of the keyed shape: no line end either,
so that in a block of lines (:class:`KeyedBlock`) no line's match reaches into the next."""


def _keyed_entity(name: int) -> str:
    """An entity in the keyed shape whose element name is group ``name``.

    Possessive quantifiers: every part ends at a character its class
    excludes, so giving characters back could never make a match.
    """
    value = _KEYED_VALUE
    return (
        rf'<([A-Z]++)(?: ID="{value}")?+'
        rf'((?: CATEG="{value}")?+(?: TIPO="{value}")?+(?: SUBTIPO="{value}")?+)'
        rf'(?: (?!CATEG=|TIPO=|SUBTIPO=)[A-Za-z_]++="{value}")*+>'
        rf"[^<>\[\]{{}}\'\n]*+</\{name}>"
    )


_KEYED_RECORD_RE = re.compile(
    _keyed_entity(1) + r" ---> \[(?:null|" + _keyed_entity(3) + r")\](::?\[.*)\Z"
)
"""Groups 1-2: the gold's element and its CATEG, TIPO and SUBTIPO attributes as written
(one group: they follow each other, so the text says which are there and their values);
3-4 the system entity's; 5 the rest of the line from the evaluation marker."""


KEY_GROUPS = (1, 2, 3, 4, 5)
"""The groups of a keyed record's key (:attr:`KeyedRecord.key`)."""
KEYED_LINE = 5
"""The group of the line from the evaluation marker on, the last of a keyed record's
(its ``Match.lastindex``)."""


class KeyedRecord(NamedTuple):
    """A record line in the keyed shape, with its key: the entities' element names and
    classic attributes as written, and the line from the evaluation marker on."""

    text: str
    line: int
    eol: str
    key: tuple[str | None, ...]
    head_end: int
    """Where ``GOLD ---> [SYS]`` ends (:attr:`PlainRecord.head` is ``text[:head_end]``)."""

    def unkeyed(
        self, plain: PlainReader, parse: LineParser, path: str | None
    ) -> PlainRecord | Line:
        """The line as :func:`iter_plain_lines` with ``plain`` and ``parse`` reads it."""
        found = plain(self.text, self.line, self.eol)
        return parse(self.text, path, self.line, self.eol) if found is None else found


def read_keyed_record(text: str, line: int = 0, eol: str = "\n") -> KeyedRecord | None:
    """The keyed record of a line (``.alts`` or ``.emir``); None for any other line."""
    match = _KEYED_RECORD_RE.match(text)
    if match is None:
        return None
    key = match.group(*KEY_GROUPS)
    return _new_tuple(KeyedRecord, (text, line, eol, key, match.start(KEYED_LINE)))


_new_tuple = tuple.__new__


def keyed_or(plain: PlainReader) -> PlainReader:
    """A reader giving a :class:`KeyedRecord` where it can, else what ``plain`` gives."""

    def read(text: str, line: int = 0, eol: str = "\n") -> PlainRecord | KeyedRecord | None:
        return read_keyed_record(text, line, eol) or plain(text, line, eol)

    return read


def iter_plain_lines(
    path: str | os.PathLike[str],
    plain: PlainReader = read_plain_record,
    parse: LineParser = parse_line,
) -> tuple[str, Iterator[Line | PlainRecord | KeyedRecord]]:
    """Stream a record file as :func:`~harem_pipeline.formats.alinhado.iter_lines` does,
    a plain record line as a :class:`PlainRecord` (or what ``plain`` gives for it: with
    :func:`keyed_or`, a :class:`KeyedRecord` where it can), any other line parsed by
    ``parse``.

    Lines are parsed whole up to the first record or First HAREM document
    line, so a stage that reads the file's format there finds it as usual.
    The file is decoded a chunk of lines at a time (:func:`iter_numbered_lines`).
    """
    encoding, lines = iter_numbered_lines(path)
    return encoding, _plain_lines(lines, str(path), plain, parse)


def _plain_lines(
    lines: Iterator[NumberedLine], path: str, plain: PlainReader, parse: LineParser
) -> Iterator[Line | PlainRecord | KeyedRecord]:
    for number, text, eol in lines:
        item = parse(text, path, number, eol)
        yield item
        if isinstance(item, (Record, DocumentLine)):
            break
    yield from _plain_lines_after_head(lines, path, plain, parse)


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
# line outside a run is read as :func:`iter_plain_lines` reads it, so it
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
    """A line of a run (of an Emir run with ``emir``) as :func:`iter_plain_lines` gives it.

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
    """:func:`iter_plain_lines` with the lines that ``run`` (default :func:`plain_run`)
    matches given as :class:`PlainRun`.

    Lines are parsed whole up to the first record or First HAREM document
    line; after it, a chunk of lines at a time, each run of lines ``run``
    matches is one :class:`PlainRun`, any other line is read as
    :func:`iter_plain_lines` reads it.
    """
    match = (plain_run() if run is None else run).match
    name = str(path)

    def runs(text: str, first: int) -> Iterator[Line | PlainRecord | PlainRun]:
        return _chunk_runs(text, first, name, match, plain, parse)

    return _after_head(path, runs, plain, parse)


def _after_head(
    path: str | os.PathLike[str],
    texts: Callable[[str, int], Iterable[Line | PlainRecord | PlainRun | KeyedBlock]],
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
    texts: Callable[[str, int], Iterable[Line | PlainRecord | PlainRun | KeyedBlock]],
    plain: PlainReader,
    parse: LineParser,
) -> Iterator[Line | PlainRecord | PlainRun | KeyedBlock]:
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
) -> Iterator[Line | PlainRecord | KeyedRecord]:
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


# ---------------------------------------------------------------------------
# Blocks of keyed lines: Emir and Ida read a decoded chunk by one expression
#
# Emir and Ida look at a keyed record line only for its key, and nearly every
# key was seen on an earlier line; the blank, ``DOC``, ``EOD`` and ``<ALT>``
# lines between them Emir writes back as read and Ida only looks at for the
# document lines.  So after the head a decoded chunk (without ``\r``) is
# handed over whole as a :class:`KeyedBlock`, and the stage walks it with
# :func:`keyed_lines`, whose every match is one line: a keyed record (its key
# in groups 1-5, the same groups as :func:`read_keyed_record`), one of those
# other lines (no group), or any other line (group 6), which the stage reads
# as :func:`iter_plain_lines` would (:meth:`KeyedBlock.reader`), as it does
# the first line of each key.

OTHER_LINE = 6
"""``Match.lastindex`` of a line that is neither keyed nor one of the usual others."""


@cache
def _keyed_line() -> re.Pattern[str]:
    return re.compile(
        _keyed_entity(1)
        + r" ---> \[(?:null|"
        + _keyed_entity(3)
        + rf")\](::?\[[^\n]*+)\n|{_RUN_OTHER}|([^\n]++)\n?"
    )


def keyed_lines(text: str) -> Iterator[re.Match[str]]:
    """One match per line of ``text`` (see above), in order and back to back.

    A keyed record's match is :func:`read_keyed_record`'s on the line without its
    ``\\n`` (values and texts hold no line end, the tail runs to the line end); the
    blank, ``DOC``, ``EOD`` and ``<ALT>`` lines are those of a run
    (:func:`plain_run`); any other non-empty line, the last one with or without its
    ``\\n``, matches the last alternative.
    """
    return _keyed_line().finditer(text)


def replace_keyed_lines(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """``text`` with each line's match of :func:`keyed_lines` replaced by ``replace``'s text."""
    return _keyed_line().sub(replace, text)


class KeyedBlock(NamedTuple):
    """Consecutive lines after the head, decoded whole, each ending in ``\\n`` but maybe
    the last, and how :func:`iter_keyed_blocks` reads a line of them alone."""

    text: str
    line: int
    """The number of its first line."""
    plain: PlainReader
    parse: LineParser
    path: str

    def read(self, match: re.Match[str], number: int) -> Line | PlainRecord | KeyedRecord:
        """The line of a match of :func:`keyed_lines` as :func:`iter_plain_lines` reads it,
        line ``number`` (see :meth:`numbers`)."""
        body = match.group()
        eol = "\n" if body.endswith("\n") else ""
        if eol:
            body = body[:-1]
        found = self.plain(body, number, eol)
        return self.parse(body, self.path, number, eol) if found is None else found

    def numbers(self) -> Callable[[re.Match[str]], int]:
        """A function giving the number of the line of a match of :func:`keyed_lines`,
        asked in order (it counts the line ends since the last one asked)."""
        text = self.text
        counted = [0, self.line]  # a position of the text, the number of its line

        def number(match: re.Match[str]) -> int:
            start = match.start()
            counted[1] += text.count("\n", counted[0], start)
            counted[0] = start
            return counted[1]

        return number


def iter_keyed_blocks(
    path: str | os.PathLike[str],
    plain: PlainReader = read_plain_record,
    parse: LineParser = parse_line,
) -> tuple[str, Iterator[Line | PlainRecord | KeyedRecord | KeyedBlock]]:
    """:func:`iter_plain_lines` with ``keyed_or(plain)``, each decoded chunk of lines
    without ``\\r`` after the head given whole as a :class:`KeyedBlock`."""
    read = keyed_or(plain)
    name = str(path)

    def blocks(text: str, first: int) -> tuple[KeyedBlock]:
        return (KeyedBlock(text, first, read, parse, name),)

    return _after_head(path, blocks, read, parse)
