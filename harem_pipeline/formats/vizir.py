"""The Vizir evaluation part of a scored record, and the vocabulary it uses.

A ``.vizir`` line is an alignment record (see ``formats/alinhado.py``) whose
evaluation part is the morphological verdict instead of the identification
one::

    <EM MORF="M,S">Portugal</EM> ---> [<EM MORF="M,S">Portugal</EM>]:[(Género: Correcto 1) \
(Número: Correcto 1) (Combinada: Correcto 1)]

This module owns the words and scores of that verdict (``Outcome``), the
``MORF="G,N"`` value (``Morph``) and the three-field verdict (``MorphScore``),
and parses/formats the bracketed part.  The record around it is parsed and
formatted by ``formats/alinhado.py`` only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    EVAL_MORPHOLOGICAL,
    MARKER_FIRST_HAREM,
    Evaluation,
    Record,
    format_line,
    strip_semantics,
)

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
