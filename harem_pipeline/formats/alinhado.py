"""Alignment-record files: ``.alinhado``, ``.avalida``, Véus subsets, ``.alts``, ``.emir``…

Every intermediate file of the HAREM identification chain is a list of
lines, one line per record, and the same few line kinds recur in all of
them.  This module is the only place that knows their syntax; stages work
on the parsed values and never split strings themselves.

Line kinds (each a frozen dataclass; every one carries ``eol``, the line
end as read, so that reading and writing a file gives back the same bytes,
even in the LÂMPADA example files that mix CRLF and LF lines):

* ``Header``            ``#...`` (file names in ``.alinhado``, the veil in Véus files)
* ``DocStart``          ``DOC <id>``
* ``DocEnd``            ``EOD``
* ``DocumentLine``      First HAREM document line ``HAREM-251-04443 PT Web``
* ``AltOpen``/``AltClose``  ``<ALT>``, ``<ALTn>``, ``</ALTn>``, ``</ALT>``
* ``ManualCheck``       ``<VERIFICACAO_MANUAL> … </VERIFICACAO_MANUAL>``; it
  contains ``--->`` itself, so it is recognised before records are
* ``Omitted``           a line starting with ``<OMITIDO>`` (First HAREM revisions)
* ``SpuriousListLine``  ``[<EM …>…</EM>]`` in ``.espurios`` files
* ``Blank``             an empty line
* ``Record``            ``GOLD ---> [SYS, …]`` optionally followed by
  ``:[EVAL, …]`` or ``::[EVAL, …]`` and a verbatim suffix (``^0.25`` in ``.alts``)

There is no catch-all raw kind: a line that is none of these is an
``InputError``, so a malformed file is reported instead of copied blindly.

Evaluation items come in three families, all kept as written:
identification (``Correcto``, ``Parcialmente_Correcto_por_Excesso(w; 1-w)``…,
from AvalIDa), semantic (``{Categoria(…) … Peso(1.0)}``, from Emir) and
morphological (``(Género: …) (Número: …) (Combinada: …)``, from Vizir).
This module recognises the family and keeps the text; the meaning of a
semantic item belongs to Emir and of a morphological one to
``formats/vizir.py``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice, repeat
from pathlib import Path
from typing import IO, Any, TypeVar, overload

from harem_pipeline.errors import InputError
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.java import java_trim
from harem_pipeline.text.memo import KeyedTable, keyed_cache
from harem_pipeline.text.numbers import java_double
from harem_pipeline.text.progress import progress_counter
from harem_pipeline.text.textio import decode_line, detect_file_encoding, open_binary

# ---------------------------------------------------------------------------
# Evaluation kinds

EVAL_CORRECT = "Correcto"
EVAL_PARTIAL_EXCESS = "Parcialmente_Correcto_por_Excesso"
EVAL_PARTIAL_DEFECT = "Parcialmente_Correcto_por_Defeito"
EVAL_MISSING = "Em_Falta"
EVAL_SPURIOUS = "Espurio"
EVAL_SEMANTIC = "Semantica"
"""Kind of an Emir item ``{Categoria(…) … Peso(…)}``; its ``text`` holds the details."""
EVAL_MORPHOLOGICAL = "Morfologica"
"""Kind of a Vizir item ``(Género: …) (Número: …) (Combinada: …)``."""

IDENTIFICATION_KINDS = (
    EVAL_CORRECT,
    EVAL_PARTIAL_EXCESS,
    EVAL_PARTIAL_DEFECT,
    EVAL_MISSING,
    EVAL_SPURIOUS,
)
PARTIAL_KINDS = (EVAL_PARTIAL_EXCESS, EVAL_PARTIAL_DEFECT)

MARKER_FIRST_HAREM = ":"
MARKER_SECOND_HAREM = "::"
ARROW = " ---> "
NULL_LIST = "[null]"
SPURIOUS_TAG = "ESPURIO"


# ---------------------------------------------------------------------------
# Tags


@dataclass(frozen=True, slots=True)
class Tag:
    """One entity exactly as written in a record: element name, attributes, text.

    ``name`` is ``EM`` in Second HAREM files and the category itself in
    First HAREM ones (``LOCAL``, vague ``COISA|COISA``, ``ESPURIO``).
    """

    name: str
    attributes: tuple[tuple[str, str], ...]
    text: str

    def attr(self, key: str) -> str | None:
        """The value of attribute ``key``, or None when absent."""
        for name, value in self.attributes:
            if name == key:
                return value
        return None

    @property
    def categories(self) -> tuple[str, ...]:
        """Categories (vague ones split on ``|``): CATEG, or the element name when not EM."""
        categ = self.attr("CATEG")
        if categ is not None:
            return tuple(categ.split("|"))
        if self.name == "EM":
            return ()
        return tuple(self.name.split("|"))

    @property
    def types(self) -> tuple[str, ...]:
        """TIPO split on ``|`` (empty when absent)."""
        return _split_bar(self.attr("TIPO"))

    @property
    def subtypes(self) -> tuple[str, ...]:
        """SUBTIPO split on ``|`` (empty when absent)."""
        return _split_bar(self.attr("SUBTIPO"))

    @property
    def morf(self) -> str | None:
        """The raw ``MORF`` text (``"F,S"``), None when not morphologically classified."""
        return self.attr("MORF")

    @property
    def is_spurious(self) -> bool:
        """True for ``<ESPURIO>…`` and ``<EM CATEG="ESPURIO">…`` (a gold side with no entity).

        Any of a vague tag's categories counts, as in the Java tools, so every
        stage agrees on which records are spurious.
        """
        return SPURIOUS_TAG in self.categories


def _split_bar(value: str | None) -> tuple[str, ...]:
    return () if value is None else tuple(value.split("|"))


_TAG_RE = re.compile(
    r'<(?P<name>[^\s<>/"=]+)(?P<attrs>(?:\s+[^\s<>"=]+\s*=\s*"[^"]*")*)\s*>'
    r"(?P<text>.*?)</(?P=name)>",
    re.DOTALL,
)
_ATTR_RE = re.compile(r'([^\s<>"=]+)\s*=\s*"([^"]*)"')


def _match_tag(text: str, pos: int) -> re.Match[str] | None:
    return _TAG_RE.match(text, pos)


_findall_attrs = _ATTR_RE.findall


def _tag_from_match(match: re.Match[str]) -> Tag:
    name, attrs, text = match.group(1, 2, 3)
    return Tag(name, tuple(_findall_attrs(attrs)) if attrs else (), text)


def parse_tag(text: str, path: str | None = None, line: int | None = None) -> Tag:
    """Parse one whole ``<NAME K="v" …>text</NAME>``; anything else is an input error."""
    match = _match_tag(text, 0)
    if match is None or match.end() != len(text):
        raise InputError(path, 'one tag <NAME KEY="value" ...>text</NAME>', text, line=line)
    return _tag_from_match(match)


def format_tag(tag: Tag) -> str:
    """Write ``tag`` as ``<NAME K="v" …>text</NAME>`` (single spaces, attributes in order)."""
    return format_tag_parts(tag.name, format_attributes(tag.attributes), tag.text)


def format_attributes(attributes: Iterable[tuple[str, str]]) -> str:
    """The attributes of a tag as ``format_tag`` writes them: `` K="v"`` each."""
    return "".join([f' {key}="{value}"' for key, value in attributes])


def format_tag_parts(name: str, attributes: str, text: str) -> str:
    """``format_tag`` of a tag whose attributes are already written (``format_attributes``)."""
    return f"<{name}{attributes}>{text}</{name}>"


def strip_semantics(tag: Tag) -> Tag:
    """Remove all semantic information, as Vizir does before scoring morphology.

    An entity becomes ``<EM MORF="G,N">text</EM>`` (``<EM>text</EM>`` with no
    MORF); a spurious gold side stays ``<ESPURIO>text</ESPURIO>`` so the
    record still says it is spurious (Vizir original, example 7).
    """
    if tag.is_spurious:
        return Tag(SPURIOUS_TAG, (), tag.text)
    morf = tag.morf
    return Tag("EM", (("MORF", morf),) if morf is not None else (), tag.text)


# ---------------------------------------------------------------------------
# Evaluations


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One item of a record's evaluation list, with its written text kept for round trips."""

    kind: str
    weight: float | None
    complement: float | None
    text: str


_PARTIAL_RE = re.compile(
    r"(Parcialmente_Correcto_por_(?:Excesso|Defeito))\(([^;()]+);\s*([^;()]+)\)\Z"
)
_SIMPLE_KINDS = {
    EVAL_CORRECT: EVAL_CORRECT,
    EVAL_MISSING: EVAL_MISSING,
    EVAL_SPURIOUS: EVAL_SPURIOUS,
    "Espúrio": EVAL_SPURIOUS,
}


_SIMPLE_EVALUATIONS = {
    text: Evaluation(kind, None, None, text) for text, kind in _SIMPLE_KINDS.items()
}
"""The items without numbers, built once (evaluations are immutable values)."""


def parse_evaluation(text: str, path: str | None = None, line: int | None = None) -> Evaluation:
    """Parse one evaluation item (identification, semantic or morphological)."""
    simple = _SIMPLE_EVALUATIONS.get(text)
    if simple is not None:
        return simple
    match = _PARTIAL_RE.match(text)
    if match is not None:
        try:
            weight, complement = float(match.group(2)), float(match.group(3))
        except ValueError:
            raise InputError(
                path, "numbers in a partial evaluation (w; 1-w)", text, line=line
            ) from None
        return Evaluation(match.group(1), weight, complement, text)
    if text.startswith("{") and text.endswith("}"):
        return Evaluation(EVAL_SEMANTIC, None, None, text)
    if text.startswith("(") and text.endswith(")"):
        return Evaluation(EVAL_MORPHOLOGICAL, None, None, text)
    raise InputError(
        path,
        "an evaluation (Correcto, Parcialmente_Correcto_por_Excesso(w; 1-w), "
        "Parcialmente_Correcto_por_Defeito(w; 1-w), Em_Falta, Espurio, {...} or (...))",
        text,
        line=line,
    )


def format_evaluation(kind: str, weight: float | None = None) -> Evaluation:
    """Build an identification evaluation as the Java AvalIDa writes it.

    Partial kinds need ``weight``; the complement is computed as ``1 - w``
    in floating point and both are printed with ``java_double``
    (``Parcialmente_Correcto_por_Excesso(0.25; 0.75)``).
    """
    if kind in PARTIAL_KINDS:
        if weight is None:
            raise ValueError(f"{kind} needs a weight")
        complement = 1.0 - weight
        text = f"{kind}({java_double(weight)}; {java_double(complement)})"
        return Evaluation(kind, weight, complement, text)
    if kind in _SIMPLE_KINDS and _SIMPLE_KINDS[kind] == kind:
        if weight is not None:
            raise ValueError(f"{kind} takes no weight")
        return Evaluation(kind, None, None, kind)
    raise ValueError(f"not an identification evaluation kind: {kind!r}")


CORRECT_EVALUATION = format_evaluation(EVAL_CORRECT)
MISSING_EVALUATION = format_evaluation(EVAL_MISSING)
SPURIOUS_EVALUATION = format_evaluation(EVAL_SPURIOUS)
"""The evaluations with no weight, made once: AvalIDa writes them, Véus rewrites to them."""


# ---------------------------------------------------------------------------
# Line kinds


@dataclass(frozen=True, slots=True)
class LineKind:
    """What every line that is not a record carries: the line end it was read with
    (``eol``, written back as read) and its line number (``line``: 0 when the line was
    made, not read; never compared).  Both are keywords, after each kind's own fields."""

    eol: str = field(default="\n", kw_only=True)
    line: int = field(default=0, compare=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Header(LineKind):
    """``#`` + ``text``: a file-name header or the veil line; copied, never scored."""

    text: str


@dataclass(frozen=True, slots=True)
class DocStart(LineKind):
    """``DOC <docid>``: start of a document's records."""

    docid: str


@dataclass(frozen=True, slots=True)
class DocEnd(LineKind):
    """``EOD``: end of a document's records."""


@dataclass(frozen=True, slots=True)
class DocumentLine(LineKind):
    """First HAREM document line ``HAREM-251-04443 PT Web``: DOCID, variant, genre."""

    docid: str
    variant: str
    genre: str


@dataclass(frozen=True, slots=True)
class AltOpen(LineKind):
    """``<ALT>`` (``n`` None) or ``<ALTn>``: start of an alternative block / alternative."""

    n: int | None


@dataclass(frozen=True, slots=True)
class AltClose(LineKind):
    """``</ALT>`` (``n`` None) or ``</ALTn>``."""

    n: int | None


@dataclass(frozen=True, slots=True)
class ManualCheck(LineKind):
    """``<VERIFICACAO_MANUAL>body</VERIFICACAO_MANUAL>``: AlinhEM asks for a human look.

    ``body`` is kept verbatim (with its leading/trailing spaces); its
    ``--->`` arrows are not records.
    """

    body: str


@dataclass(frozen=True, slots=True)
class Omitted(LineKind):
    """A line starting with ``<OMITIDO>``, kept verbatim in ``text``; never scored."""

    text: str


@dataclass(frozen=True, slots=True)
class SpuriousListLine(LineKind):
    """``[SYS, …]`` in ``.espurios`` files: the system entities left spurious."""

    tags: tuple[Tag, ...]


@dataclass(frozen=True, slots=True)
class Blank(LineKind):
    """An empty line (documents are followed by two in the Java outputs)."""


DOCUMENT_STARTS = (DocStart, DocumentLine)
"""The lines that open a document's records: ``DOC <docid>``, or the First HAREM's line."""

ALT_MARKS = (AltOpen, AltClose)
"""The lines that open and close an ALT block or one of its alternatives."""


_UNPARSED: Any = object()
"""A part of a :class:`Record` read from a line and not yet asked for."""


class Record:
    """One alignment: a gold entity, the system entities aligned to it, their evaluation.

    ``system`` None is ``[null]`` (missing); ``evaluation`` None is a
    record with no evaluation part (``.alinhado``), and then ``marker``
    and ``suffix`` are empty.  ``marker`` is ``:`` or ``::`` as read;
    ``suffix`` is whatever follows the evaluation list, kept verbatim
    (``^0.25``, the ALT weight of ``.alts`` files).

    Two constructors: ``Record(gold, system, …)`` from its values, and
    :meth:`read` from a line.  Nearly every line is written the way
    :func:`format_line` writes it; :meth:`read` recognises that shape with
    one expression and then keeps the line as :attr:`text`, builds the
    gold and system tags only when asked for, and gives the raw texts a
    stage's decision depends on (:attr:`gold_text`, :attr:`system_texts`)
    without building them; writing such a record unchanged copies
    :attr:`text`.  Any other line is read by the full grammar.  The
    evaluation is always read at once, so a bad item is reported whatever
    the stage does with the record.  A record is a value: equal parts are
    equal records, whichever constructor built them (``line`` is not
    compared); treat it as immutable.
    """

    __slots__ = (
        "_gold",
        "_system",
        "_raw",
        "_texts",
        "_marker_at",
        "evaluation",
        "marker",
        "suffix",
        "eol",
        "line",
        "text",
    )

    def __init__(
        self,
        gold: Tag,
        system: tuple[Tag, ...] | None,
        evaluation: tuple[Evaluation, ...] | None = None,
        marker: str = "",
        suffix: str = "",
        eol: str = "\n",
        line: int = 0,
    ) -> None:
        self._gold: Tag = gold
        self._system: tuple[Tag, ...] | None = system
        self._raw: tuple[str | Any, ...] | None = None
        """The canonical expression's groups: gold name, attributes, text, system list, …"""
        self._texts: tuple[str, ...] | None = _UNPARSED
        self._marker_at = 0
        self.evaluation = evaluation
        self.marker = marker
        self.suffix = suffix
        self.eol = eol
        self.line = line
        self.text: str | None = None
        """The line as read when it is written as :func:`format_line` writes it, else None."""

    @classmethod
    def read(
        cls, body: str, eol: str = "\n", line: int | None = None, path: str | None = None
    ) -> Record:
        """The record on line ``body`` (its end cut off); an ``InputError`` when it is none."""
        match = _match_canonical_record(body)
        if match is None:
            return _parse_record(body, eol, path, line)
        return _canonical_record(match, eol, line, path)

    @property
    def gold(self) -> Tag:
        """The gold entity (``<ESPURIO>`` / ``CATEG="ESPURIO"`` for a spurious record)."""
        gold = self._gold
        if gold is _UNPARSED:
            raw = self._raw
            assert raw is not None  # only a record read leaves its tags unbuilt
            gold = self._gold = _tag_of(raw[0], raw[1], raw[2])
        return gold

    @property
    def system(self) -> tuple[Tag, ...] | None:
        """The system entities aligned to the gold one, None for ``[null]``."""
        system = self._system
        if system is _UNPARSED:
            raw = self._raw
            assert raw is not None
            listed = raw[3]
            system = self._system = (
                None if listed == NULL_LIST else tuple(_tag_of(*tag) for tag in _tags_in(listed))
            )
        return system

    @property
    def gold_text(self) -> str:
        """The gold entity's text, read without building its tag."""
        raw = self._raw
        return self.gold.text if raw is None else raw[2]

    @property
    def system_texts(self) -> tuple[str, ...] | None:
        """The system entities' texts (None for ``[null]``), read without building their tags."""
        texts = self._texts
        if texts is _UNPARSED:
            raw = self._raw
            if raw is None or self._system is not _UNPARSED:
                system = self.system
                texts = None if system is None else tuple([tag.text for tag in system])
            else:
                texts = tuple([text for _, _, text in _tags_in(raw[3])])
            self._texts = texts
        return texts

    @property
    def is_spurious(self) -> bool:
        """The gold side is ``<ESPURIO>`` / ``CATEG="ESPURIO"``: the system entity has no match."""
        raw = self._raw
        if raw is not None and SPURIOUS_TAG not in raw[0] and SPURIOUS_TAG not in raw[1]:
            return False
        return self.gold.is_spurious

    def evaluated(self, evaluation: tuple[Evaluation, ...], marker: str) -> Record:
        """The record with ``evaluation`` after ``marker`` and no suffix (an old one replaced).

        A record read without evaluation keeps its text, the list appended.
        """
        text = self.text
        if text is None or self.evaluation is not None:
            return Record(self.gold, self.system, evaluation, marker, "", self.eol, self.line)
        items = evaluation[0].text if len(evaluation) == 1 else _joined_items(evaluation)
        return self._with(f"{text}{marker}[{items}]", evaluation, marker, "", self.eol, len(text))

    def rewritten(self, marker: str, eol: str) -> Record:
        """The same record with ``marker`` (when it has an evaluation), ended by ``eol``."""
        if eol == self.eol and (marker == self.marker or self.evaluation is None):
            return self
        if self.evaluation is None or marker == self.marker:
            marker = self.marker
            text = self.text
        else:
            text = None if self.text is None else _format_record(self, marker)
        return self._with(text, self.evaluation, marker, self.suffix, eol, self._marker_at)

    def _with(
        self,
        text: str | None,
        evaluation: tuple[Evaluation, ...] | None,
        marker: str,
        suffix: str,
        eol: str,
        marker_at: int,
    ) -> Record:
        copy = _new_record(Record)
        copy._gold = self._gold
        copy._system = self._system
        copy._raw = self._raw
        copy._texts = self._texts
        copy._marker_at = marker_at
        copy.line = self.line
        copy.text = text
        copy.evaluation = evaluation
        copy.marker = marker
        copy.suffix = suffix
        copy.eol = eol
        return copy

    def _values(self) -> tuple[object, ...]:
        return (self.gold, self.system, self.evaluation, self.marker, self.suffix, self.eol)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        if self.text is not None and self.text == other.text:
            return (self.marker, self.suffix, self.eol) == (other.marker, other.suffix, other.eol)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (
            f"Record(gold={self.gold!r}, system={self.system!r}, evaluation={self.evaluation!r}, "
            f"marker={self.marker!r}, suffix={self.suffix!r}, eol={self.eol!r}, line={self.line})"
        )


_new_record = object.__new__


def _joined_items(evaluation: tuple[Evaluation, ...]) -> str:
    """The items of an evaluation list as written, without its brackets."""
    return ", ".join([item.text for item in evaluation])


def _canonical_record(match: re.Match[str], eol: str, line: int | None, path: str | None) -> Record:
    """:meth:`Record.read` of a line ``_CANONICAL_RECORD`` matched: tags left unbuilt.

    The match's groups are taken at once (one call) and kept as they are
    (:attr:`Record._raw`: the gold name, attributes and text and the system
    list come first).
    """
    raw = match.groups()
    _, _, _, listed, _, first, more, marker, part = raw
    record = _new_record(Record)
    record._gold = record._system = _UNPARSED
    record._raw = raw
    record.eol = eol
    record.line = line or 0
    record.text = match.string
    if marker is None:
        record._texts = _UNPARSED if more is not None else None if first is None else (first,)
        record.evaluation = None
        record.marker = record.suffix = ""
        record._marker_at = 0
        return record
    if more is None:
        if first is None:
            record._texts = None
            aligned = None
        else:
            record._texts = (first,)
            aligned = 1
    else:
        record._texts = _UNPARSED
        aligned = len(_tags_in(listed))
    try:
        evaluation, end = _EVALUATION_PARTS[part, aligned]
    except InputError:  # read it again to report it with the file and line
        body = match.string
        start = match.start(9)
        evaluation, end = _parse_evaluation_list(body, start, path, line)
        _check_evaluation_count(aligned, evaluation, path, line)
        end -= start
    record.evaluation = evaluation
    record.marker = marker
    record.suffix = part[end:] if end < len(part) else ""
    record._marker_at = match.start(8)
    return record


def _evaluation_part(key: tuple[str, int | None]) -> tuple[tuple[Evaluation, ...], int]:
    """The items of a record's evaluation part (``[…]`` and its suffix) for ``aligned``
    system entities (None: ``[null]``), and where the list ends: read once per text,
    since a few texts (``[Correcto]``, ``[Em_Falta]``…) make most records."""
    part, aligned = key
    evaluation, end = _parse_evaluation_list(part, 0, None, None)
    _check_evaluation_count(aligned, evaluation, None, None)
    return evaluation, end


_EVALUATION_PARTS: KeyedTable[tuple[str, int | None], tuple[tuple[Evaluation, ...], int]] = (
    KeyedTable(_evaluation_part, 4096)
)
""":func:`_evaluation_part` of each ``(part, aligned)`` seen (one lookup a record)."""


def evaluation_part(part: str, aligned: int | None) -> tuple[tuple[Evaluation, ...], int]:
    """The items of a record's evaluation part (``[…]`` and its suffix) for ``aligned``
    system entities (None: ``[null]``), and where the list ends, as the full grammar
    reads them (an unlocated input error when it refuses them); read once per text."""
    return _EVALUATION_PARTS[part, aligned]


def _tag_of(name: str, attributes: str, text: str) -> Tag:
    return Tag(name, tuple(_findall_attrs(attributes)) if attributes else (), text)


_CANONICAL_NAME = r"([A-Za-z0-9_|-]++)"
_CANONICAL_ATTRIBUTES = r'((?: [A-Za-z0-9_-]++="[^"]*+")*+)'
_CANONICAL_TAG = re.compile(f"<{_CANONICAL_NAME}{_CANONICAL_ATTRIBUTES}>([^<]*+)</\\1>")
"""A tag as :func:`format_tag` writes it, with plain ASCII names and keys and a text free
of ``<``: what it matches, ``_TAG_RE`` matches the same way (ASCII classes and
possessive repeats only make it faster; they accept a subset)."""
_tags_in = _CANONICAL_TAG.findall
_NAMED_TAG = '<([A-Za-z0-9_|-]++)(?: [A-Za-z0-9_-]++="[^"]*+")*+>'


_CANONICAL_RECORD = re.compile(
    f"<(?!OMITIDO>|VERIFICACAO_MANUAL>){_CANONICAL_NAME}{_CANONICAL_ATTRIBUTES}>([^<]*+)</\\1>"
    + re.escape(ARROW)
    + f"(\\[null\\]|\\[{_NAMED_TAG}([^<]*+)</\\5>(?:, {_NAMED_TAG}[^<]*+</\\7>)*+\\])"
    + r"(?:(::?)(\[.*))?\Z",
    re.DOTALL,
)
"""A record as :func:`format_line` writes it, with canonical tags (``_CANONICAL_TAG``):
groups gold name, attributes and text, the system list, its first tag's name and text,
a later tag's name (None when there is one tag), the marker and the evaluation list
with the suffix, which :func:`_parse_evaluation_list` reads as the full grammar does."""
_match_canonical_record = _CANONICAL_RECORD.match


Line = (
    Header
    | DocStart
    | DocEnd
    | DocumentLine
    | AltOpen
    | AltClose
    | ManualCheck
    | Omitted
    | SpuriousListLine
    | Blank
    | Record
)

# ---------------------------------------------------------------------------
# Parsing one line

_ALT_RE = re.compile(r"<(/?)ALT(\d*)>\Z")
ALT_PREFIXES = ("<ALT", "</ALT")
"""How every line :func:`alt_marker` reads starts (a cheap test before the others)."""
_DOCUMENT_LINE_RE = re.compile(r"([A-Za-z]+-[\w-]+) (\S+) (\S+)\Z")
_MANUAL_OPEN = "<VERIFICACAO_MANUAL>"
_MANUAL_CLOSE = "</VERIFICACAO_MANUAL>"
_OMITTED_OPEN = "<OMITIDO>"
_RECORD_EXPECTED = "a record GOLD ---> [SYS, ...] with optional :[EVAL, ...]"


def alt_marker(body: str) -> tuple[bool, int | None] | None:
    """``(closing, n)`` of an ``<ALT…>`` line as :func:`parse_line` reads it, else None.

    ``n`` is None for the block's own ``<ALT>``/``</ALT>``, the number of
    ``<ALTn>``/``</ALTn>`` otherwise.
    """
    alt = _ALT_RE.match(body)
    if alt is None:
        return None
    return bool(alt.group(1)), int(alt.group(2)) if alt.group(2) else None


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


def alt_line(body: str, eol: str, line: int | None) -> AltOpen | AltClose | None:
    """The ``<ALT…>`` line ``body`` (:func:`alt_marker`) as :func:`parse_line` reads it;
    None for any other line."""
    alt = alt_marker(body)
    if alt is None:
        return None
    closing, n = alt
    if closing:
        return AltClose(n, eol=eol, line=line or 0)
    return AltOpen(n, eol=eol, line=line or 0)


def _split_eol(text: str, eol: str | None) -> tuple[str, str]:
    if eol is not None:
        return text, eol
    if text.endswith("\r\n"):
        return text[:-2], "\r\n"
    if text.endswith("\n"):
        return text[:-1], "\n"
    return text, "\n"


def parse_line(
    text: str, path: str | None = None, line: int | None = None, eol: str | None = None
) -> Line:
    """Parse one line of an alignment-record file.

    ``text`` may end with its line end (``\\n`` or ``\\r\\n``), which is then
    stored in ``eol``; without one ``eol`` is ``"\\n"`` unless given.
    """
    body, end = (text, eol) if eol is not None else _split_eol(text, eol)
    if body[:1] == "<":
        if body.startswith(ALT_PREFIXES):
            alt = alt_line(body, end, line)
            if alt is not None:
                return alt
        record = _match_canonical_record(body)
        if record is not None:
            return _canonical_record(record, end, line, path)
    number = line or 0
    if body == "":
        return Blank(eol=end, line=number)
    first = body[0]
    if first == "#":
        return Header(body[1:], eol=end, line=number)
    if body.startswith("DOC "):
        return DocStart(body[4:], eol=end, line=number)
    if body == "EOD":
        return DocEnd(eol=end, line=number)
    if first == "<":
        if body.startswith(_MANUAL_OPEN):
            if not body.endswith(_MANUAL_CLOSE):
                raise InputError(path, f"{_MANUAL_CLOSE} at the end of the line", body, line=line)
            return ManualCheck(body[len(_MANUAL_OPEN) : -len(_MANUAL_CLOSE)], eol=end, line=number)
        if body.startswith(_OMITTED_OPEN):
            return Omitted(body, eol=end, line=number)
        return _parse_record(body, end, path, line)
    if first == "[":
        tags, pos = _parse_tag_list(body, 0, path, line)
        if tags is None or pos != len(body):
            raise InputError(path, "a list of spurious entities [SYS, ...]", body, line=line)
        return SpuriousListLine(tags, eol=end, line=number)
    document = _DOCUMENT_LINE_RE.match(body)
    if document is not None:
        docid, variant, genre = document.groups()
        return DocumentLine(docid, variant, genre, eol=end, line=number)
    raise InputError(
        path,
        "a record, #header, DOC id, EOD, <ALT>, document line, [entities] or blank line",
        body,
        line=line,
    )


def _parse_tag_list(
    text: str, pos: int, path: str | None, line: int | None
) -> tuple[tuple[Tag, ...] | None, int]:
    """Parse ``[null]`` (None), ``[]`` or ``[TAG, TAG…]`` starting at ``pos``."""
    if text.startswith(NULL_LIST, pos):
        return None, pos + len(NULL_LIST)
    if not text.startswith("[", pos):
        raise InputError(path, "a list [SYS, ...] or [null]", text[pos:], line=line)
    pos += 1
    tags: list[Tag] = []
    if text.startswith("]", pos):
        return (), pos + 1
    while True:
        match = _match_tag(text, pos)
        if match is None:
            raise InputError(path, 'a tag <NAME KEY="value" ...>text</NAME>', text[pos:], line=line)
        tags.append(_tag_from_match(match))
        pos = match.end()
        if text.startswith(", ", pos):
            pos += 2
        elif text.startswith("]", pos):
            return tuple(tags), pos + 1
        else:
            found = text[pos:] or "end of line"
            raise InputError(path, '", " or "]" after an entity', found, line=line)


_OPENERS = {"[": "]", "{": "}"}


def _parse_evaluation_list(
    text: str, pos: int, path: str | None, line: int | None
) -> tuple[tuple[Evaluation, ...], int]:
    """Parse ``[EVAL, EVAL…]`` from ``pos`` (at ``[``): items split at top-level ``", "``.

    Square brackets and braces nest (Emir items hold ``Correcto:[PESSOA]``);
    parentheses are not counted because the Java Emir writes an unbalanced
    ``PALT(1.0))`` in ``.altrel`` files.

    A list whose first ``]`` has no bracket or brace before it (every
    identification list) is cut with ``str.split``; a list of Emir items
    ``{…}`` with unnested ``[…]`` inside (every semantic list) is read by one
    match (``_BRACE_LIST_RE``); any other is scanned bracket by bracket
    (``_LIST_TOKEN_RE``) rather than character by character.
    """
    start = pos + 1
    close = text.find("]", start)
    if close >= 0:
        inner = text[start:close]
        if "[" not in inner and "{" not in inner and "}" not in inner:
            if not inner:
                return (), close + 1
            return _evaluations(inner.split(", "), path, line), close + 1
    braces = _BRACE_LIST_RE.match(text, pos)
    if braces is not None:
        # inside a brace no ", " splits and no "]" closes: the items are the braces
        return _evaluations(_BRACE_ITEM_RE.findall(braces.group(1)), path, line), braces.end()
    return _scan_evaluation_list(text, pos, path, line)


def _scan_evaluation_list(
    text: str, pos: int, path: str | None, line: int | None
) -> tuple[tuple[Evaluation, ...], int]:
    """:func:`_parse_evaluation_list` of any list, bracket by bracket."""
    start = pos + 1
    depth = 1
    items: list[str] = []
    for token in _LIST_TOKEN_RE.finditer(text, start):
        mark = token.group()
        if mark == ", ":
            if depth == 1:
                items.append(text[start : token.start()])
                start = token.end()
        elif mark in _OPENERS:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                end = token.start()
                items.append(text[start:end])
                break
    else:
        raise InputError(path, "an evaluation list closed by ]", text[pos:], line=line)
    if items == [""]:
        return (), end + 1
    return _evaluations(items, path, line), end + 1


_LIST_TOKEN_RE = re.compile(r"[\[\]{}]|, ")
_BRACE_ITEM = r"\{[^{}\[\]]*(?:\[[^{}\[\]]*\][^{}\[\]]*)*\}"
"""An Emir item: ``{`` … ``}``, with ``[…]`` lists inside that hold no bracket or brace."""
_BRACE_ITEM_RE = re.compile(_BRACE_ITEM)
_BRACE_LIST_RE = re.compile(rf"\[({_BRACE_ITEM}(?:, {_BRACE_ITEM})*)\]")
"""A whole list of Emir items, ``[{…}, {…}]``: read as the bracket scan reads it."""


def _evaluations(items: list[str], path: str | None, line: int | None) -> tuple[Evaluation, ...]:
    try:
        return tuple(map(_known_evaluation, items))
    except InputError:  # report it with the file and line
        return tuple(parse_evaluation(item, path, line) for item in items)


@keyed_cache(4096)
def _known_evaluation(text: str) -> Evaluation:
    """:func:`parse_evaluation` of an item's text (a few dozen texts make most files)."""
    return parse_evaluation(text)


def _parse_record(body: str, eol: str, path: str | None, line: int | None) -> Record:
    gold_match = _match_tag(body, 0)
    if gold_match is None:
        raise InputError(path, _RECORD_EXPECTED, body, line=line)
    pos = gold_match.end()
    if not body.startswith(ARROW, pos):
        raise InputError(path, f'"{ARROW.strip()}" after the gold entity', body[pos:], line=line)
    system, pos = _parse_tag_list(body, pos + len(ARROW), path, line)
    number = line or 0
    gold = _tag_from_match(gold_match)
    if pos == len(body):
        return Record(gold, system, None, "", "", eol, number)
    if body.startswith("::[", pos):
        marker = MARKER_SECOND_HAREM
    elif body.startswith(":[", pos):
        marker = MARKER_FIRST_HAREM
    else:
        expected = ":[EVAL, ...] or ::[EVAL, ...] after the list"
        raise InputError(path, expected, body[pos:], line=line)
    evaluation, end = _parse_evaluation_list(body, pos + len(marker), path, line)
    _check_evaluation_count(None if system is None else len(system), evaluation, path, line)
    return Record(gold, system, evaluation, marker, body[end:], eol, number)


def _check_evaluation_count(
    aligned: int | None,
    evaluation: tuple[Evaluation, ...],
    path: str | None,
    line: int | None,
) -> None:
    """One item per system entity (``aligned`` of them; one for ``[null]``, None);
    Vizir's single item excepted.

    Every AvalIDa, Véus and Emir file of the reference outputs obeys this;
    a Vizir record carries one morphological item however many entities
    were aligned (original examples 3 and 7).
    """
    if any(item.kind == EVAL_MORPHOLOGICAL for item in evaluation):
        if len(evaluation) != 1:
            expected = "exactly one morphological evaluation (Género…) (Número…) (Combinada…)"
            raise InputError(path, expected, f"{len(evaluation)} items", line=line)
        return
    wanted = 1 if aligned is None else aligned
    if len(evaluation) != wanted:
        what = "[null]" if aligned is None else f"{wanted} system entities"
        raise InputError(
            path,
            f"{wanted} evaluation item(s) for {what}",
            f"{len(evaluation)} item(s)",
            line=line,
        )


# ---------------------------------------------------------------------------
# Writing one line


def format_line(item: Line, marker: str | None = None) -> str:
    """Write one line, without its line end (``item.eol``).

    ``marker`` None writes a record's marker as read; ``":"`` (or ``"::"``)
    forces it, e.g. to write our own ``:`` after reading a Java ``::`` file.
    """
    if type(item) is Record:
        text = item.text
        if text is not None and (marker is None or marker == item.marker):
            return text
        return _format_record(item, marker)
    if isinstance(item, Blank):
        return ""
    if isinstance(item, Header):
        return "#" + item.text
    if isinstance(item, DocStart):
        return "DOC " + item.docid
    if isinstance(item, DocEnd):
        return "EOD"
    if isinstance(item, AltOpen):
        return f"<ALT{'' if item.n is None else item.n}>"
    if isinstance(item, AltClose):
        return f"</ALT{'' if item.n is None else item.n}>"
    if isinstance(item, DocumentLine):
        return f"{item.docid} {item.variant} {item.genre}"
    if isinstance(item, ManualCheck):
        return _MANUAL_OPEN + item.body + _MANUAL_CLOSE
    if isinstance(item, Omitted):
        return item.text
    if isinstance(item, SpuriousListLine):
        return format_tag_list(item.tags)
    raise TypeError(f"not an alignment-file line: {item!r}")


def format_tag_list(tags: tuple[Tag, ...] | None) -> str:
    """``[null]`` for None, else ``[TAG, TAG…]``."""
    return _written_list(None if tags is None else map(format_tag, tags))


def _written_list(tags: Iterable[str] | None) -> str:
    """``[null]`` for None, else ``[TAG, TAG…]`` of tags already written."""
    return NULL_LIST if tags is None else "[" + ", ".join(tags) + "]"


def format_record_parts(gold: str, system: Iterable[str] | None) -> str:
    """A record with no evaluation, from its tags already written (``format_tag``).

    ``system`` None is ``[null]``: this is ``format_line(Record(gold, system))``
    for a writer that holds its tags as text.
    """
    return f"{gold}{ARROW}{_written_list(system)}"


def _format_record(record: Record, marker: str | None) -> str:
    """The record's line: its text as read when it has one (the marker replaced when
    ``marker`` differs), else written from its parts."""
    text = record.text
    if text is not None:
        if marker is None or marker == record.marker or record.evaluation is None:
            return text
        if marker not in (MARKER_FIRST_HAREM, MARKER_SECOND_HAREM):
            raise ValueError(f"evaluation marker must be ':' or '::', not {marker!r}")
        at = record._marker_at
        return f"{text[:at]}{marker}{text[at + len(record.marker) :]}"
    system = record.system
    text = format_record_parts(
        format_tag(record.gold), None if system is None else map(format_tag, system)
    )
    if record.evaluation is None:
        return text
    used = record.marker if marker is None else marker
    if used not in (MARKER_FIRST_HAREM, MARKER_SECOND_HAREM):
        raise ValueError(f"evaluation marker must be ':' or '::', not {used!r}")
    items = ", ".join(item.text for item in record.evaluation)
    return f"{text}{used}[{items}]{record.suffix}"


# ---------------------------------------------------------------------------
# Whole texts and files


# ---------------------------------------------------------------------------
# ALT blocks: the grammar AltinaID and AltinaMor both read


@dataclass(frozen=True, slots=True)
class AltBlockLines:
    """An ``<ALT>`` block as read: each alternative's number and its lines."""

    labels: tuple[int, ...]
    alternatives: tuple[tuple[Line, ...], ...]
    line: int = field(default=0, compare=False)
    eol: str = field(default="\n", compare=False)


ALT_CHOICE = " ALT escolhida: {k} de {n}"


def alt_choice_header(k: int, n: int, eol: str = "\n") -> Header:
    """The ``# ALT escolhida: k de n`` line written before a chosen alternative."""
    return Header(ALT_CHOICE.format(k=k, n=n), eol=eol)


def group_alt_blocks(
    lines: Iterable[Line], path: str | None = None
) -> Iterator[Line | AltBlockLines]:
    """The lines with every ``<ALT><ALT1>…</ALT1>…</ALT>`` block gathered into one item.

    Only one block is held at a time.  Lines between two alternatives other
    than records (blank lines) are dropped; a record there, a document
    boundary inside a block, or badly nested markers are input errors.
    """
    labels: list[int] = []
    alternatives: list[list[Line]] = []
    start: AltOpen | None = None
    inside: int | None = None
    for item in lines:
        if start is None and type(item) is Record:  # nearly every line: outside any block
            yield item
            continue
        number = getattr(item, "line", 0) or None
        if start is None:
            if isinstance(item, AltOpen) and item.n is None:
                start, labels, alternatives = item, [], []
            elif isinstance(item, ALT_MARKS):
                raise InputError(path, "<ALT> before an alternative", _marker(item), line=number)
            else:
                yield item
        elif isinstance(item, AltOpen) and item.n is not None and inside is None:
            inside = item.n
            labels.append(item.n)
            alternatives.append([])
        elif isinstance(item, AltClose) and item.n is not None and item.n == inside:
            inside = None
        elif isinstance(item, AltClose) and item.n is None and inside is None:
            yield AltBlockLines(
                tuple(labels), tuple(map(tuple, alternatives)), start.line, item.eol
            )
            start = None
        elif isinstance(item, (AltOpen, AltClose, DocStart, DocEnd, DocumentLine)):
            raise InputError(
                path, "a well-nested <ALT><ALTn>…</ALTn>…</ALT> block", _marker(item), line=number
            )
        elif inside is not None:
            alternatives[-1].append(item)
        elif isinstance(item, Record):
            raise InputError(
                path, "a record inside <ALTn>", "a record between alternatives", line=number
            )
    if start is not None:
        raise InputError(path, "</ALT> closing the block", "end of file", line=start.line or None)


def _marker(item: Line) -> str:
    return format_line(item) if isinstance(item, ALT_MARKS) else type(item).__name__


def parse_lines(text: str, path: str | None = None) -> Iterator[Line]:
    """Parse an already-decoded text lazily, line by line (``\\n`` and ``\\r\\n`` ends kept)."""
    pos = 0
    number = 0
    n = len(text)
    while pos < n:
        number += 1
        end = text.find("\n", pos)
        if end < 0:
            yield parse_line(text[pos:], path, number, eol="")
            return
        if end > pos and text[end - 1] == "\r":
            yield parse_line(text[pos : end - 1], path, number, eol="\r\n")
        else:
            yield parse_line(text[pos:end], path, number, eol="\n")
        pos = end + 1


def format_lines(lines: Iterable[Line]) -> str:
    """The text of ``lines``, each followed by its own line end."""
    return "".join(format_line(item) + item.eol for item in lines)


LineParser = Callable[[str, str | None, int | None, str], Line]
"""``parse(text, path, line, eol)``: one line of a record file, its line end cut off."""
Parsed = TypeVar("Parsed")
"""What a line reader makes of a line (a ``Line``, or a stage's own value)."""


@overload
def iter_lines(path: PathLike) -> tuple[str, Iterator[Line]]: ...
@overload
def iter_lines(
    path: PathLike, parse: Callable[[str, str | None, int | None, str], Parsed]
) -> tuple[str, Iterator[Parsed]]: ...
def iter_lines(
    path: PathLike,
    parse: Callable[[str, str | None, int | None, str], Any] = parse_line,
) -> tuple[str, Iterator[Any]]:
    """Stream a file (``.gz`` allowed): its encoding and a lazy iterator of its lines.

    Memory stays constant whatever the file size: the file is decoded a chunk
    at a time (:func:`iter_line_chunks`), then lines are parsed one at a time,
    by ``parse`` (a format with a reader of its own records passes its parser).
    """
    encoding, chunks = iter_line_chunks(path)
    return encoding, _parsed_lines(chunks, str(path), parse)


def _parsed_lines(
    chunks: Iterable[LineChunk],
    name: str,
    parse: Callable[[str, str | None, int | None, str], Parsed],
) -> Iterator[Parsed]:
    for chunk in chunks:
        first = chunk.first
        numbers = range(first, first + len(chunk.bodies))
        yield from map(parse, chunk.bodies, repeat(name), numbers, chunk.eols)


def read_lines(path: PathLike) -> tuple[str, list[Line]]:
    """Read a whole file into a list of lines, with its encoding."""
    encoding, lines = iter_lines(path)
    return encoding, list(lines)


def write_lines(
    path: PathLike,
    lines: Iterable[Line],
    encoding: str = "utf-8",
    marker: str | None = None,
) -> None:
    """Write ``lines`` atomically in ``encoding``, each with its own line end."""
    with atomic_write(path, "w", encoding=encoding, newline="") as handle:
        write_to(handle, lines, marker)


WRITE_BATCH = 8192
"""Lines :func:`write_to` joins into one ``write`` (a call a line cost more than the join)."""


def write_to(handle: IO[str], lines: Iterable[Line], marker: str | None = None) -> None:
    """Write ``lines`` to an open text handle (opened with ``newline=""``), a batch of
    :data:`WRITE_BATCH` lines a call."""
    write = handle.write
    for text in formatted_batches(lines, marker):
        write(text)


def formatted_batches(lines: Iterable[Line], marker: str | None = None) -> Iterator[str]:
    """The text of ``lines`` as :func:`write_to` writes it, :data:`WRITE_BATCH` lines a piece."""
    items = iter(lines)
    while batch := [format_line(item, marker) + item.eol for item in islice(items, WRITE_BATCH)]:
        yield "".join(batch)


def parse_numbered(lines: Iterable[NumberedLine], path: str | None = None) -> Iterator[Line]:
    """``(number, text, line end)`` lines parsed: the lines :func:`iter_lines` gives."""
    for number, text, eol in lines:
        yield parse_line(text, path, number, eol)


# ---------------------------------------------------------------------------
# The chunk reader: a file's lines decoded a chunk at a time
#
# Every reader of record files streams through here (:func:`iter_lines`
# included): a block of whole lines is decoded at once and cut into line
# texts and ends, so memory stays flat and each line costs one slice.

CHUNK_BYTES = 1 << 20
"""Bytes read at a time by :func:`iter_line_chunks` (cut at the last line end)."""

_CHUNK_ENCODINGS = frozenset({"utf-8", "iso8859-1", "ascii", "cp1252"})
"""Encodings whose text of a chunk cut at ``\\n`` bytes is the text of its lines."""


@dataclass(frozen=True, slots=True)
class LineChunk:
    """Consecutive lines of a file: ``bodies[i]`` is line ``first + i`` without its end.

    ``eols[i]`` is its line end as read (``"\\n"``, ``"\\r\\n"``, or ``""`` for
    a last line with none).
    """

    first: int
    bodies: list[str]
    eols: list[str]


def iter_line_chunks(path: PathLike) -> tuple[str, Iterator[LineChunk]]:
    """Stream a file (``.gz`` allowed) as chunks of lines; its encoding first.

    The same lines, line ends, encoding and errors as :func:`iter_lines`
    (a byte the encoding cannot decode is reported with its line), read
    about :data:`CHUNK_BYTES` at a time, so memory stays flat.
    """
    encoding = chunk_encoding(path)
    return encoding, _iter_chunks(path, encoding)


def chunk_encoding(path: PathLike) -> str:
    """The encoding the chunk reader reads ``path`` in (:func:`detect_file_encoding`, a
    BOM dropped by the reader itself)."""
    encoding = detect_file_encoding(path)
    return "utf-8" if encoding == "utf-8-sig" else encoding


NumberedLine = tuple[int, str, str]
"""``(line number, text, line end)``: one line of a file before parsing."""


def iter_numbered_lines(path: PathLike) -> tuple[str, Iterator[NumberedLine]]:
    """:func:`iter_line_chunks` one line at a time: the encoding, then each
    ``(number, text, line end)``, for stages that look at a line at a time."""
    encoding, chunks = iter_line_chunks(path)
    return encoding, _numbered(chunks)


PEEK_BYTES = 1 << 16
"""The first read of :func:`peek_numbered_lines`."""


def peek_numbered_lines(path: PathLike) -> tuple[str, Iterator[NumberedLine]]:
    """:func:`iter_numbered_lines` for a pass that reads only a file's first lines (its
    header, its first record): the same lines, the first :data:`PEEK_BYTES` of them
    decoded before any other (a megabyte chunk costs a few milliseconds)."""
    encoding = chunk_encoding(path)
    return encoding, _numbered(_iter_chunks(path, encoding, PEEK_BYTES))


RawBlock = tuple[int, bytes]
"""``(number of its first line, bytes)``: consecutive whole lines of a file, undecoded."""


def iter_raw_blocks(path: PathLike) -> tuple[str, Iterator[RawBlock]]:
    """:func:`iter_line_chunks` left undecoded: the encoding, then blocks of whole lines.

    For a reader that decodes elsewhere (a worker process):
    :func:`block_lines` of each block, in order, are the lines
    :func:`iter_numbered_lines` gives.
    """
    encoding = chunk_encoding(path)
    return encoding, _numbered_blocks(path)


RAW_ENCODINGS = frozenset({"utf-8", "iso8859-1"})
"""Encodings whose text can be cut into lines at ``\\n`` after decoding whole chunks."""


def open_raw_blocks(path: PathLike) -> tuple[str, Iterator[RawBlock] | None]:
    """:func:`open_raw_lines` as blocks of whole lines (``block_lines`` reads each).

    None instead of the blocks for an encoding ``open_raw_lines`` reads line
    by line.
    """
    encoding, blocks = iter_raw_blocks(path)
    return (encoding, blocks) if encoding in RAW_ENCODINGS else (encoding, None)


RawLine = NumberedLine
"""``(line number, text, line end)``: a line of a record file before parsing."""


def _raw_line(text: str, path: str | None, line: int | None, eol: str) -> RawLine:
    return (line or 0, text, eol)


def open_raw_lines(path: PathLike) -> tuple[str, Iterator[RawLine]]:
    """A record file's encoding and its lines unparsed, streamed (``iter_lines``'s reading).

    Files in UTF-8 or ISO-8859-1 (all HAREM files) are read a chunk at a time
    (:func:`iter_numbered_lines`); any other
    encoding line by line by ``iter_lines``.
    """
    encoding, lines = iter_numbered_lines(path)
    if encoding not in RAW_ENCODINGS:
        return iter_lines(path, _raw_line)
    return encoding, lines


def _numbered_blocks(path: PathLike) -> Iterator[RawBlock]:
    bar = progress_counter(Path(path).name, "line")
    number = 1
    for block in iter_line_blocks(path):
        yield number, block
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        number += count
        bar.update(count)
    bar.close()


def block_lines(block: RawBlock, path: str, encoding: str) -> Iterator[NumberedLine]:
    """The ``(number, text, line end)`` lines of a block, decoded as :func:`_iter_chunks` does."""
    first, data = block
    whole = codecs.lookup(encoding).name in _CHUNK_ENCODINGS
    return _numbered([_chunk_of(data, first, path, encoding, whole)])


def _numbered(chunks: Iterable[LineChunk]) -> Iterator[NumberedLine]:
    for chunk in chunks:
        first = chunk.first
        numbers = range(first, first + len(chunk.bodies))
        yield from zip(numbers, chunk.bodies, chunk.eols, strict=True)


def iter_line_blocks(path: PathLike, first: int | None = None) -> Iterator[bytes]:
    """The file's bytes, ``CHUNK_BYTES`` at a time (``first`` the first time, if given),
    each block cut after its last ``\\n`` (the rest goes with the next block; the last
    block ends where the file does)."""
    rest = b""
    with open_binary(path) as handle:
        size = CHUNK_BYTES if first is None else first
        while data := handle.read(size):
            size = CHUNK_BYTES
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            yield data[:cut]
            rest = data[cut:]
    if rest:
        yield rest


def _iter_chunks(path: PathLike, encoding: str, first: int | None = None) -> Iterator[LineChunk]:
    name = str(path)
    whole_chunks = codecs.lookup(encoding).name in _CHUNK_ENCODINGS
    bar = progress_counter(Path(path).name, "line")
    number = 1
    for block in iter_line_blocks(path, first):
        chunk = _chunk_of(block, number, name, encoding, whole_chunks)
        number += len(chunk.bodies)
        bar.update(len(chunk.bodies))
        yield chunk
    bar.close()


def _chunk_of(block: bytes, first: int, name: str, encoding: str, whole: bool) -> LineChunk:
    text: str | None = None
    if whole:
        try:
            text = block.decode(encoding)
        except UnicodeDecodeError:
            text = None
    if text is None:  # decode line by line: the error names its line, as decode_line does
        lines: list[str] = []
        for offset, raw in enumerate(block.split(b"\n")):
            lines.append(decode_line(raw, encoding, name, first + offset))
        text = "\n".join(lines)
    if first == 1:
        text = text.removeprefix("\ufeff")
    bodies = text.split("\n")
    if block.endswith(b"\n"):  # not the text: a file holding only a BOM is one empty line
        bodies.pop()
        eols = ["\n"] * len(bodies)
    else:
        eols = ["\n"] * (len(bodies) - 1) + [""]
    if "\r" in text:
        for index, body in enumerate(bodies):
            if body.endswith("\r") and eols[index]:
                bodies[index] = body[:-1]
                eols[index] = "\r\n"
    return LineChunk(first, bodies, eols)


# ---------------------------------------------------------------------------
# Entity texts as the Java programs read them back


def java_entity_text(text: str, system: bool) -> str:
    """An entity's text as every official program after the aligner reads and writes it.

    The Java reads a record's entities back with ``NamedEntity``: the system
    list through ``toNamedEntityList``, which removes every ``[`` and ``]``
    of the list before cutting it into entities (those inside entity texts
    too), and each entity through ``replaceInvalidXMLChars2``, which escapes
    two apostrophes as one ``&apos;`` (so ``''`` is read as ``'``); it writes
    each entity through ``unmarkTokens``, which sets its text trimmed
    (``NamedEntity.setEntity``: Java ``String.trim``), so ``[ 8 ] K`` is
    written ``8  K``.  The gold side keeps its brackets.  AvalIDa is the first
    program to do it, scores the entities so read and writes them so; every
    later program reads them the same way again (the rule is idempotent).
    See ``docs/spec/identification.md``, "Entity texts after the aligner".
    """
    if system and ("[" in text or "]" in text):
        text = text.replace("[", "").replace("]", "")
    if "''" in text:
        text = text.replace("''", "'")
    if text[:1] <= " " or text[-1:] <= " ":  # "" too: nothing to trim
        trimmed = java_trim(text)
        if trimmed != text:
            return trimmed
    return text


def reprint_tag(tag: Tag, system: bool = False) -> Tag:
    """``tag`` with its text as the Java reads it back (:func:`java_entity_text`)."""
    text = java_entity_text(tag.text, system)
    if text == tag.text:
        return tag
    return Tag(tag.name, tag.attributes, text)


def reprint_system(system: tuple[Tag, ...] | None) -> tuple[Tag, ...] | None:
    """:func:`reprint_tag` over a system list (``[null]`` stays None)."""
    if system is None:
        return None
    return tuple(reprint_tag(tag, system=True) for tag in system)


def evaluation_of(record: Record, path: str | None, expected: str) -> tuple[Evaluation, ...]:
    """The record's evaluation items; a record without them is the input error ``expected``
    (each stage names what it reads and where such a file comes from)."""
    if record.evaluation is None:
        raise InputError(path, expected, "a record without evaluation", line=record.line or None)
    return record.evaluation


_EDGE_BLANK = re.compile(r">[\x00- ]|[\x00- ]</")
"""An entity text of a tag list that starts or ends with a blank (the trim would change it)."""


def reprint_record(record: Record) -> Record:
    """``record`` with both sides as the Java reads them back (itself when nothing changes,
    decided on the texts alone, so an unchanged record keeps its text and unbuilt tags).

    A record read from a line is first asked as a whole: when the rule leaves its
    gold text and its whole system list (inside the outer brackets) as they are,
    it leaves every text in them so, and no tag is looked at."""
    raw = record._raw
    if raw is not None:
        inner = raw[3][1:-1]
        if (
            java_entity_text(raw[2], False) is raw[2]
            and java_entity_text(inner, True) is inner
            and not _EDGE_BLANK.search(inner)
        ):
            return record
    gold = record.gold_text
    texts = record.system_texts
    if java_entity_text(gold, False) is gold and (
        texts is None or all(java_entity_text(text, True) is text for text in texts)
    ):
        return record
    return Record(
        reprint_tag(record.gold),
        reprint_system(record.system),
        record.evaluation,
        record.marker,
        record.suffix,
        record.eol,
        record.line,
    )
