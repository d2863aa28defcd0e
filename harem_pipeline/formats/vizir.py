"""The Vizir evaluation part of a scored record, and the vocabulary it uses.

A ``.vizir`` line is an alignment record (see ``formats/alinhado.py``) whose
evaluation part is the morphological verdict instead of the identification
one::

    <EM MORF="M,S">Portugal</EM> ---> [<EM MORF="M,S">Portugal</EM>]:[(Género: Correcto 1) \
(Número: Correcto 1) (Combinada: Correcto 1)]

This module owns the words and scores of that verdict (``Outcome``,
``morph_credit``) and the three-field verdict (``MorphScore``), and
parses/formats the bracketed part.  The record around it is parsed and
formatted by ``formats/alinhado.py``; the end of this module reads a record
line into the key the chain's stages decide on (``RecordText``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    ARROW,
    EVAL_MORPHOLOGICAL,
    MARKER_FIRST_HAREM,
    NULL_LIST,
    Evaluation,
    Record,
    Tag,
    format_attributes,
    format_line,
    parse_line,
    strip_semantics,
)
from harem_pipeline.text.memo import KeyedTable, keyed_cache

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
        """1 for Correcto, 1/2 for Parcialmente Correcto, else 0 (:func:`morph_credit`); exact."""
        return morph_credit(
            Fraction(self is Outcome.CORRECTO), Fraction(self is Outcome.PARCIALMENTE_CORRECTO)
        )

    @property
    def score_text(self) -> str:
        """The score as the original prints it: ``1``, ``0.5`` or ``0``."""
        return format(float(self.score), "g")

    @property
    def key(self) -> str:
        """The snake-case name used in JSON reports (``parcialmente_correcto``)."""
        return self.name.lower()


def morph_credit(correct: Any, partially_correct: Any) -> Any:
    """Pontuação: 1 per Correcto and 1/2 per Parcialmente Correcto.

    The rule is docs/spec/vizir-altinamor-ida2mor.md §5.

    The one place the half credit is written: a verdict's printed score, the
    printed Pontuação, the F measure and AltinaMor's choice all read it.
    Counts may be integers, ``Fraction``s (exact) or arrays.
    """
    return correct + partially_correct / 2


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
# A record line as the morphology chain reads it
#
# Vizir, AltinaMor and Ida2Mor read hundreds of thousands of records whose
# answer depends only on a small key: the tag heads, the evaluation items and
# which system entity is evaluated.  A line is read into a ``RecordText`` by
# one of two constructors -- the canonical expression the chain itself
# writes (``cut_record``), or the full grammar (``record_text`` of
# ``parse_line``'s record) -- and each stage decides on the key alone,
# reading the record without its texts once per key (``skeleton``).

_NAME = r'[^\s<>/"=]++'
_ATTRIBUTES = r'(?: [^\s<>"=]++="[^"]*+")*+'
_CANONICAL_RECORD = re.compile(
    rf"(?!<OMITIDO>|<VERIFICACAO_MANUAL>)<(({_NAME}){_ATTRIBUTES})>([^<]*+)</\2> ---> "
    rf"(?:\[null\]|\[<(({_NAME}){_ATTRIBUTES})>([^<]*+)</\5>"
    rf"((?:, <{_NAME}{_ATTRIBUTES}>[^<]*+</{_NAME}>)*+)\]):\["
)
"""A record ``format_line`` writes back unchanged, up to its evaluation list: tags with
single spaces and no ``<`` in their texts, ``[null]`` or a list of tags, ``:[``; the rest of
the line must be a list with no bracket or brace inside (:func:`plain_list`, asked once per
list text: the expression's engine scanned the long verdicts several times slower).
Groups: 1 gold head, 3 gold text, 4 first system head, 6 its text, 7 the other system tags.
(Possessive repeats: each is followed by a character it cannot take, so they match what
plain ones match, faster.)"""


def plain_list(items: str) -> bool:
    """Whether an evaluation list's text has no bracket or brace inside (its items are
    then split at ``", "``, as ``parse_line`` splits them)."""
    return not ("[" in items or "]" in items or "{" in items or "}" in items)


_PLAIN_LISTS: KeyedTable[str, bool] = KeyedTable(plain_list)
""":func:`plain_list` of each list text seen: a line's verdict is one of a few dozen, and
the hash this lookup computes is kept by the string for the stage's key lookup after it."""
_OTHER_TAGS = re.compile(rf"<(({_NAME}){_ATTRIBUTES})>([^<]*+)</({_NAME})>")


RecordText = tuple[str, str, tuple[str, ...] | None, tuple[str, ...], str | None]
"""A record line: its key (tag heads and items) and its entity texts, the fields
``(gold_head, gold_text, system_heads, system_texts, items)``.

A head is a tag's opening as ``format_tag`` writes it, without ``<>``
(``LOCAL TIPO="X" MORF="M,S"``); ``system_heads`` is None for ``[null]``;
``items`` is the evaluation list's text between its brackets, its items
joined by ``", "`` (None for a record with no evaluation part).  A plain
tuple, unpacked where it is read: it is built once a line, and a
``NamedTuple`` costs a Python-level constructor call each time (about a
tenth of Vizir's time on 500,000 records).
"""


def cut_record(body: str) -> RecordText | None:
    """The canonical constructor: a record in the shape the chain writes, else None.

    What it gives is what :func:`record_text` gives of ``parse_line(body)``;
    its fields are the expression's groups as they are.
    """
    match = _CANONICAL_RECORD.match(body)
    if match is None:
        return None
    items = body[match.end() : -1]
    if body[-1] != "]" or not _PLAIN_LISTS[items]:
        return None
    gold_head, gold_text, head, text, others = match.group(1, 3, 4, 6, 7)
    if head is None:
        return gold_head, gold_text, None, (), items
    if not others:
        return gold_head, gold_text, (head,), (text,), items
    heads, texts = [head], [text]
    for other, name, other_text, closing in _OTHER_TAGS.findall(others):
        if name != closing:
            return None
        heads.append(other)
        texts.append(other_text)
    return gold_head, gold_text, tuple(heads), tuple(texts), items


def record_text(record: Record) -> RecordText:
    """The general constructor: a record ``parse_line`` read, as a :class:`RecordText`."""
    system = record.system
    evaluation = record.evaluation
    return (
        _head(record.gold),
        record.gold.text,
        None if system is None else tuple(map(_head, system)),
        () if system is None else tuple(tag.text for tag in system),
        None if evaluation is None else ", ".join(item.text for item in evaluation),
    )


def _head(tag: Tag) -> str:
    return tag.name + format_attributes(tag.attributes)


@keyed_cache()
def skeleton(gold_head: str, system_heads: tuple[str, ...] | None, items: str | None) -> Record:
    """The record of a key, without its texts, read by ``parse_line`` (its errors are unlocated).

    Every rule of the chain reads a record's heads and items from here, so a
    key is read by the general grammar once, whichever constructor cut it.
    """
    gold_name = gold_head.partition(" ")[0]
    if system_heads is None:
        listed = NULL_LIST
    else:
        tags = [f"<{head}></{head.partition(' ')[0]}>" for head in system_heads]
        listed = "[" + ", ".join(tags) + "]"
    evaluation = "" if items is None else f"{MARKER_FIRST_HAREM}[{items}]"
    record = parse_line(f"<{gold_head}></{gold_name}>{ARROW}{listed}{evaluation}")
    assert isinstance(record, Record)
    return record


def located(error: InputError, path: str | None, line: int | None) -> InputError:
    """``error`` (raised on a key, with no place) as the general path raises it on a line."""
    return InputError(path, error.expected, error.found, line=line, docid=error.docid)
