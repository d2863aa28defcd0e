"""The Vizir evaluation part of a scored record, and the vocabulary it uses.

A ``.vizir`` line is an alignment record (see ``formats/alinhado.py``) whose
evaluation part is the morphological verdict instead of the identification
one::

    <EM MORF="M,S">Portugal</EM> ---> [<EM MORF="M,S">Portugal</EM>]:[(Género: Correcto 1) \
(Número: Correcto 1) (Combinada: Correcto 1)]

This module owns the words and scores of that verdict (``Outcome``), the
``MORF="G,N"`` value (``Morph``) and the three-field verdict (``MorphScore``),
and parses/formats the bracketed part.  The record around it is parsed and
formatted by ``formats/alinhado.py``; the morphology chain's fast path (end of
this module) cuts records in the canonical shape itself, reading each
distinct tag head with ``formats/alinhado.py``, and hands every other line to it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_MORPHOLOGICAL,
    MARKER_FIRST_HAREM,
    NULL_LIST,
    Evaluation,
    NumberedLine,
    RawBlock,
    Record,
    format_line,
    format_tag,
    iter_lines,
    iter_numbered_lines,
    iter_raw_blocks,
    parse_tag,
    strip_semantics,
)
from harem_pipeline.model import Morf

UNDERSPECIFIED = "?"


class Outcome(Enum):
    """One field's verdict; the value is the word printed in ``.vizir`` files."""

    CORRECTO = "Correcto"
    PARCIALMENTE_CORRECTO = "Parcialmente Correcto"
    INCORRECTO = "Incorrecto"
    EM_FALTA = "Em Falta"
    ESPURIO = "Espúrio"
    SOBRE_ESPECIFICADO = "Sobre especificado"
    PARCIALMENTE_SOBRE_ESPECIFICADO = "Parcialmente sobre especificado"

    @property
    def score(self) -> Fraction:
        """1 for Correcto, 1/2 for Parcialmente Correcto, else 0; exact, so sums tie exactly."""
        return _SCORES.get(self, Fraction(0))

    @property
    def score_text(self) -> str:
        """The score as the original prints it: ``1``, ``0.5`` or ``0``."""
        return _SCORE_TEXT[self.score]

    @property
    def key(self) -> str:
        """The snake-case name used in JSON reports (``parcialmente_correcto``)."""
        return self.name.lower()


_SCORES = {Outcome.CORRECTO: Fraction(1), Outcome.PARCIALMENTE_CORRECTO: Fraction(1, 2)}
_SCORE_TEXT = {Fraction(1): "1", Fraction(1, 2): "0.5", Fraction(0): "0"}
# Accepted spellings of outcome words on input: the printed word, plus the
# unaccented ``Espurio`` that some HAREM tools write.
_OUTCOME_BY_WORD = {o.value: o for o in Outcome} | {"Espurio": Outcome.ESPURIO}


@dataclass(frozen=True, slots=True)
class MorphScore:
    """The three-field verdict of one record."""

    gender: Outcome
    number: Outcome
    combined: Outcome

    def fields(self) -> tuple[tuple[str, Outcome], ...]:
        """``(label, outcome)`` pairs in the printed order."""
        return (("Género", self.gender), ("Número", self.number), ("Combinada", self.combined))


FIELD_LABELS = ("Género", "Número", "Combinada")

_ITEM = re.compile(r"\(\s*([^():]+?)\s*:\s*([^()]*?)\s+(1|0\.5|0|1\.0|0\.0)\s*\)")


def format_morph_items(score: MorphScore) -> str:
    """``(Género: X s) (Número: X s) (Combinada: X s)``: the one item of a verdict list."""
    return " ".join(f"({label}: {o.value} {o.score_text})" for label, o in score.fields())


def format_morph_score(score: MorphScore) -> str:
    """``[(Género: X s) (Número: X s) (Combinada: X s)]``."""
    return f"[{format_morph_items(score)}]"


def morph_evaluation(score: MorphScore) -> Evaluation:
    """The verdict as the one evaluation item of a ``.vizir`` record."""
    return Evaluation(EVAL_MORPHOLOGICAL, None, None, format_morph_items(score))


def vizir_record(record: Record, score: MorphScore) -> Record:
    """The ``.vizir`` record of a scored Véus record.

    Semantics are stripped on both sides (``<EM MORF="G,N">text</EM>``, a
    spurious gold side stays ``<ESPURIO>text</ESPURIO>``), every aligned
    system entity is kept, the marker is ``:`` and the verdict replaces the
    identification list; line end and line number are the input's.
    """
    system = None if record.system is None else tuple(strip_semantics(t) for t in record.system)
    return Record(
        strip_semantics(record.gold),
        system,
        (morph_evaluation(score),),
        MARKER_FIRST_HAREM,
        "",
        record.eol,
        record.line,
    )


def format_vizir_line(record: Record, score: MorphScore) -> str:
    """The ``.vizir`` line (without line end) of a scored Véus record."""
    return format_line(vizir_record(record, score))


def parse_morph_score(text: str, path: str | None = None, line: int | None = None) -> MorphScore:
    """Read a verdict, with or without its square brackets.

    The printed score must agree with the outcome word: a file whose
    ``Correcto 0`` contradicts itself is reported, not silently re-scored.
    """
    expected = "[(Género: OUTCOME SCORE) (Número: OUTCOME SCORE) (Combinada: OUTCOME SCORE)]"
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    items = _ITEM.findall(body)
    rebuilt = " ".join(f"({a}: {b} {c})" for a, b, c in items)
    labels = [label for label, _, _ in items]
    if labels != list(FIELD_LABELS) or _normalise(body) != _normalise(rebuilt):
        raise InputError(path, expected, text, line=line)
    outcomes = []
    for _label, word, score in items:
        outcome = _OUTCOME_BY_WORD.get(" ".join(word.split()))
        if outcome is None:
            raise InputError(path, "an outcome word (Correcto, Em Falta, ...)", word, line=line)
        if Fraction(score) != outcome.score:
            expected_score = f"score {outcome.score_text} for {outcome.value}"
            raise InputError(path, expected_score, score, line=line)
        outcomes.append(outcome)
    return MorphScore(*outcomes)


def record_morph_score(record: Record, path: str | None = None) -> MorphScore:
    """The verdict of a scored ``.vizir`` record (exactly one morphological item)."""
    evaluation = record.evaluation or ()
    if len(evaluation) != 1 or evaluation[0].kind != EVAL_MORPHOLOGICAL:
        found = ", ".join(item.text for item in evaluation) or "no evaluation"
        raise InputError(path, "a Vizir verdict :[(Género: ...) ...]", found, line=record.line)
    return parse_morph_score(evaluation[0].text, path, record.line)


def _normalise(text: str) -> str:
    """Whitespace-insensitive form used to check that nothing but items is present."""
    return re.sub(r"\s+", "", text)


# ---------------------------------------------------------------------------
# The fast path of the morphology chain: raw lines, canonical records, caches
#
# Vizir, AltinaMor and Ida2Mor read hundreds of thousands of records whose
# shape almost never varies.  Their fast paths work on the line text: a
# record in the canonical shape below is cut by one regular expression, each
# distinct tag head (``<LOCAL TIPO="X" MORF="M,S">``) is read once by the
# general parser and remembered, and so is each distinct verdict.  Any other
# line (or a record the fast path is unsure of) is handed to the general
# parser, which gives the same result or the same error.

RAW_ENCODINGS = frozenset({"utf-8", "iso8859-1"})
"""Encodings whose text can be cut into lines at ``\\n`` after decoding whole chunks."""

CANONICAL_TAG = r'<([^\s<>/"=]+)((?: [^\s<>"=]+="[^"]*")*)>([^<]*)</\1>'
"""A tag that ``format_tag`` writes back unchanged: single spaces, no ``<`` in the text."""

_HEAD = r'([^\s<>/"=]+)(?: [^\s<>"=]+="[^"]*")*'
_SYSTEM_TAG = r'<[^\s<>/"=]+(?: [^\s<>"=]+="[^"]*")*>[^<]*</[^\s<>/"=]+>'
_CANONICAL_RECORD = re.compile(
    r"<(" + _HEAD + r")>([^<]*)</\2> ---> "
    r"(\[null\]|\[(?:" + _SYSTEM_TAG + ", )*" + _SYSTEM_TAG + r"\])(.*)\Z"
)
_SYSTEM_TAGS = re.compile(r'<([^\s<>/"=]+(?: [^\s<>"=]+="[^"]*")*)>([^<]*)</([^\s<>/"=]+)>')
_SINGLE_HEAD = r'(([^\s<>/"=]++)(?: [^\s<>"=]++="[^"]*+")*+)'
_SINGLE_START = (
    f"<{_SINGLE_HEAD}>([^<]*+)</\\2> ---> (?:\\[null\\]|\\[<{_SINGLE_HEAD}>([^<]*+)</\\5>\\]):\\["
)
SINGLE_RECORD = re.compile(_SINGLE_START + r"([^\[\]{},]*+)\]\Z")
"""A canonical record with at most one system entity and one evaluation item (most records).

Groups: 1 gold head, 3 gold text, 4 system head, 6 system text (both None for
``[null]``), 7 the item.  (Possessive repeats: every repeat here is followed by
a character it cannot take, so they match what plain ones match, faster.)
"""
SINGLE_RECORD_START = re.compile("(?!<OMITIDO>|<VERIFICACAO_MANUAL>)" + _SINGLE_START)
""":data:`SINGLE_RECORD` up to its item, on a line that is not one of :data:`SPECIAL_LINES`:
the same groups 1–6, and the rest of the line is ``item]`` exactly when
:data:`SINGLE_RECORD` matches the line (:func:`single_item`)."""


def single_item(rest: str) -> str | None:
    """The item of a line :data:`SINGLE_RECORD_START` matched, from what follows the match.

    None when :data:`SINGLE_RECORD` would not match the line (another
    ``]``, a bracket, brace or comma in the item, or no ``]`` at the end).
    """
    if rest[-1:] != "]":
        return None
    item = rest[:-1]
    if "]" in item or "[" in item or "{" in item or "}" in item or "," in item:
        return None
    return item


SPECIAL_LINES = ("<OMITIDO>", "<VERIFICACAO_MANUAL>")
"""Line starts ``parse_line`` reads as other lines, whatever follows."""
_SCORED_SYSTEM_TAG = r'<([^\s<>/"=]+)(?: [^\s<>"=]+="[^"]*")*>[^<]*</\{}>'
_CANONICAL_SCORED = re.compile(
    r'<([^\s<>/"=]+)(?: [^\s<>"=]+="[^"]*")*>[^<]*</\1> ---> '
    r"(?:\[null\]|\[(?:"
    + _SCORED_SYSTEM_TAG.format(2)
    + ", )*"
    + _SCORED_SYSTEM_TAG.format(3)
    + r"\]):\[\([^\[\]{},]*\)\]\Z"
)


def is_canonical_scored(body: str) -> bool:
    """Whether ``format_line(parse_line(body), ":")`` is ``body`` itself, with no error.

    True for a ``.vizir`` record as Vizir writes it: canonical tags, ``:`` and
    one morphological item with no comma, nothing after it.
    """
    return _CANONICAL_SCORED.match(body) is not None and not body.startswith(SPECIAL_LINES)


def open_raw_blocks(path: str | os.PathLike[str]) -> tuple[str, Iterator[RawBlock] | None]:
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


def open_raw_lines(path: str | os.PathLike[str]) -> tuple[str, Iterator[RawLine]]:
    """A record file's encoding and its lines unparsed, streamed (``iter_lines``'s reading).

    Files in UTF-8 or ISO-8859-1 (all HAREM files) are read a chunk at a time
    (:func:`~harem_pipeline.formats.alinhado.iter_numbered_lines`); any other
    encoding line by line by ``iter_lines``.
    """
    encoding, lines = iter_numbered_lines(path)
    if encoding not in RAW_ENCODINGS:
        return iter_lines(path, _raw_line)  # type: ignore[arg-type]
    return encoding, lines


@dataclass(frozen=True, slots=True, eq=False)
class TagHead:
    """What the morphology chain needs of one distinct tag head, read by the general parser.

    ``opening`` and ``closing`` are the head and end of the tag once its
    semantics are stripped (``strip_semantics``); ``morph`` is None when the
    tag has no MORF, and ``morph_error`` says a malformed MORF (an error).
    Heads are compared by identity (one object per distinct head text).
    """

    spurious: bool
    morph: Morf | None
    morph_error: bool
    opening: str
    closing: str
    name: str


_HEADS: dict[str, TagHead] = {}
_CACHE_LIMIT = 1 << 14


def tag_head(head: str) -> TagHead:
    """The :class:`TagHead` of ``<head>`` (``NAME K="v" …``), cached; the cache is bounded."""
    found = _HEADS.get(head)
    if found is None:
        if len(_HEADS) >= _CACHE_LIMIT:
            _HEADS.clear()
        name = head.partition(" ")[0]
        tag = parse_tag(f"<{head}></{name}>")
        stripped = strip_semantics(tag)
        closing = f"</{stripped.name}>"
        opening = format_tag(stripped).removesuffix(closing)
        morph, error = None, False
        if tag.morf is not None:
            try:
                morph = Morf.parse(tag.morf)
            except InputError:
                error = True
        found = _HEADS[head] = TagHead(tag.is_spurious, morph, error, opening, closing, name)
    return found


RawTag = tuple[TagHead, str]
"""A tag of a canonical record: its head and its text."""


def split_canonical_record(
    body: str,
) -> tuple[TagHead, str, list[RawTag] | None, str] | None:
    """``(gold head, gold text, system, items)`` of a record in the canonical shape, else None.

    ``system`` is None for ``[null]`` (an empty list ``[]`` is not canonical);
    ``items`` is the text inside the ``:[…]`` that must end the record.  A
    record cut here is cut the same way by ``parse_line`` (tags written back
    unchanged by ``format_tag``), so the general path is needed only when
    this gives None.
    """
    match = _CANONICAL_RECORD.match(body)
    if match is None or body.startswith(SPECIAL_LINES):
        return None
    head, _, gold_text, listed, rest = match.groups()
    if rest[:2] != ":[" or rest[-1:] != "]":
        return None
    items = rest[2:-1]
    heads = _HEADS
    gold = heads.get(head) or tag_head(head)
    if listed == NULL_LIST:
        return gold, gold_text, None, items
    system = []
    for head, text, name in _SYSTEM_TAGS.findall(listed):
        found = heads.get(head) or tag_head(head)
        if found.name != name:
            return None
        system.append((found, text))
    return gold, gold_text, system, items


def format_raw_tag(tag: RawTag) -> str:
    """The tag with its semantics stripped, as ``format_tag(strip_semantics(...))`` writes it."""
    head, text = tag
    return head.opening + text + head.closing


_VERDICTS: dict[str, MorphScore | None] = {}
_ABSENT = object()
_VERDICT_START = "(" + FIELD_LABELS[0] + ": "


def cached_morph_score(items: str) -> MorphScore | None:
    """The verdict of a ``.vizir`` record's one evaluation item, None when not well formed.

    Only items the general reader takes as one morphological item are
    read (a ``(…)`` with no ``", "`` and no bracket or brace); anything else
    is None, for the general path to read (or report).
    """
    score = _VERDICTS.get(items, _ABSENT)
    if score is _ABSENT:
        score = None
        if (
            items.startswith(_VERDICT_START)
            and items.endswith(")")
            and ", " not in items
            and not any(mark in items for mark in "[]{}")
        ):
            try:
                score = parse_morph_score(items)
            except InputError:
                score = None
        if len(_VERDICTS) >= _CACHE_LIMIT:
            _VERDICTS.clear()
        _VERDICTS[items] = score
    return score
