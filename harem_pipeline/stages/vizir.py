"""Vizir: scoring the morphological classification (``MORF``) of aligned entities.

The rules are those of the HAREM Vizir documentation (2005), reproduced in
``docs/spec/vizir-altinamor-ida2mor.md``.  They are written here as pure
functions on plain values, from the smallest up:

* ``score_field`` — one field (gender or number) of the evaluated entity;
* ``combine_outcomes`` — the *Combinada* field from the two others;
* ``evaluated_index`` — which aligned system entity is evaluated (the first
  one sharing GOLD's first atom);
* ``judge_alignment`` — a whole record under a scenario, including the
  missing / spurious / ignored cases;

and on top of them ``score_lines`` (Véus lines → ``.vizir`` text), whose
decision is :func:`vizir_decision` of a record's key, and :func:`scored_facts`,
what AltinaMor and Ida2Mor need of a ``.vizir`` record.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    ALT_MARKS,
    DOCUMENT_STARTS,
    EVAL_CORRECT,
    MARKER_FIRST_HAREM,
    PARTIAL_KINDS,
    Blank,
    DocEnd,
    Header,
    Line,
    ManualCheck,
    Omitted,
    RawLine,
    Record,
    Tag,
    format_line,
    parse_line,
)
from harem_pipeline.formats.vizir import (
    UNDERSPECIFIED,
    MorphScore,
    Outcome,
    RecordText,
    cut_record,
    located,
    record_morph_score,
    record_text,
    skeleton,
    vizir_record,
)
from harem_pipeline.model import Morf, Scenario
from harem_pipeline.text.atoms import atoms
from harem_pipeline.text.memo import KeyedTable, keyed_cache

SCENARIO_NAMES = {Scenario.ABSOLUTE: "absoluto", Scenario.RELATIVE: "relativo"}
SCENARIO_HEADER = " Cenário: "
"""The text of the ``#`` line that opens a ``.vizir`` file (and so its ``.altmor``)."""


def scenario_header(scenario: Scenario, eol: str = "\n") -> Header:
    """``# Cenário: absoluto``: the scenario, recorded in the file Vizir writes."""
    return Header(SCENARIO_HEADER + SCENARIO_NAMES[scenario], eol=eol)


def header_scenario(line: Line) -> Scenario | None:
    """The scenario a ``# Cenário: …`` header line names (None for any other line)."""
    if not isinstance(line, Header) or not line.text.startswith(SCENARIO_HEADER):
        return None
    name = line.text[len(SCENARIO_HEADER) :].strip()
    for scenario, word in SCENARIO_NAMES.items():
        if name == word:
            return scenario
    return None


# ---------------------------------------------------------------------------
# One field, the combined field
# ---------------------------------------------------------------------------


def score_field(gold: str, system: str | None, partial: bool) -> Outcome:
    """Score one field (a gender or a number value) of the evaluated system entity.

    ``system`` is ``None`` when the entity carries no MORF at all; ``partial``
    says the identification was only partially correct, which halves a
    correct answer and softens over-specification (the table of
    docs/spec/vizir-altinamor-ida2mor.md §2).
    """
    if system is None:
        return Outcome.EM_FALTA
    if gold == UNDERSPECIFIED:
        if system == UNDERSPECIFIED:
            return Outcome.PARCIALMENTE_CORRECTO if partial else Outcome.CORRECTO
        return Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO if partial else Outcome.SOBRE_ESPECIFICADO
    if system == UNDERSPECIFIED:
        return Outcome.EM_FALTA
    if system == gold:
        return Outcome.PARCIALMENTE_CORRECTO if partial else Outcome.CORRECTO
    return Outcome.INCORRECTO


_WRONG = frozenset(
    {Outcome.INCORRECTO, Outcome.SOBRE_ESPECIFICADO, Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO}
)


def combine_outcomes(gender: Outcome, number: Outcome) -> Outcome:
    """The *Combinada* outcome: any error wins, then a gap, then partial credit.

    Order (original's table): Incorrecto/over-specified in either field →
    Incorrecto; else Em Falta in either → Em Falta; else Parcialmente
    Correcto in either → Parcialmente Correcto; else Correcto.  Espúrio only
    meets Espúrio (a spurious record is spurious in every field).
    """
    if gender is Outcome.ESPURIO or number is Outcome.ESPURIO:
        if gender is number:
            return Outcome.ESPURIO
        raise ValueError("Espúrio combines only with Espúrio")
    if gender in _WRONG or number in _WRONG:
        return Outcome.INCORRECTO
    if Outcome.EM_FALTA in (gender, number):
        return Outcome.EM_FALTA
    if Outcome.PARCIALMENTE_CORRECTO in (gender, number):
        return Outcome.PARCIALMENTE_CORRECTO
    return Outcome.CORRECTO


def score_morph(gold: Morf, system: Morf | None, partial: bool) -> MorphScore:
    """The three fields of a non-spurious record whose evaluated entity is ``system``."""
    gender = score_field(gold.gender, system.gender if system else None, partial)
    number = score_field(gold.number, system.number if system else None, partial)
    return MorphScore(gender, number, combine_outcomes(gender, number))


def uniform_score(outcome: Outcome) -> MorphScore:
    """The same outcome in all three fields (missing and spurious records)."""
    return MorphScore(outcome, outcome, outcome)


# ---------------------------------------------------------------------------
# Which system entity is evaluated
# ---------------------------------------------------------------------------


def first_atom(text: str) -> str | None:
    """The first atom of an entity's text (``None`` for a text without letters or digits)."""
    found = atoms(text)
    return found[0] if found else None


_FIRST_ATOMS: KeyedTable[str, str | None] = KeyedTable(first_atom)
""":func:`first_atom` of each text seen (entity texts repeat across a collection)."""


def evaluated_index(gold_text: str, system_texts: Sequence[str]) -> int | None:
    """Index of the system entity Vizir evaluates, or ``None`` when none qualifies.

    Only the first system entity whose first atom equals GOLD's first atom is
    evaluated; the others count nowhere (original, examples 3 and 5).  Every
    stage of the chain asks this function, so it is the one first-atom rule.
    """
    first = _FIRST_ATOMS
    gold_atom = first[gold_text]
    if gold_atom is not None:
        index = 0  # counted by hand: an ``enumerate`` a record costs more than the search
        for text in system_texts:
            if text == gold_text or first[text] == gold_atom:
                return index
            index += 1
    return None


def evaluated_entity(alignment: Alignment) -> int | None:
    """:func:`evaluated_index` of an alignment's texts (None for ``[null]``)."""
    if not alignment.system:
        return None
    return evaluated_index(alignment.gold_text, tuple(e.text for e in alignment.system))


# ---------------------------------------------------------------------------
# A whole record on plain values
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SystemEntity:
    """What Vizir needs of one aligned system entity."""

    text: str
    morf: Morf | None
    partial: bool  # identification Parcialmente_Correcto_* rather than Correcto


@dataclass(frozen=True, slots=True)
class Alignment:
    """What Vizir needs of one alignment record, free of any file syntax.

    ``system`` is ``None`` for a missing record (``[null]``).
    """

    gold_text: str
    gold_morf: Morf | None
    spurious: bool
    system: tuple[SystemEntity, ...] | None


def judge_alignment(alignment: Alignment, scenario: Scenario) -> MorphScore | None:
    """The verdict of one record, or ``None`` when it is ignored or excluded."""
    return judge_evaluated(alignment, scenario, evaluated_entity(alignment))


def judge_evaluated(
    alignment: Alignment, scenario: Scenario, index: int | None
) -> MorphScore | None:
    """:func:`judge_alignment` once the evaluated entity (``index``) is known.

    The special records are those of docs/spec/vizir-altinamor-ida2mor.md §2.

    ``None`` records are written nowhere and count nowhere.
    """
    if alignment.spurious:
        if scenario is Scenario.RELATIVE or not alignment.system:
            return None
        morf = alignment.system[0].morf
        if morf is None or (morf.gender == UNDERSPECIFIED and morf.number == UNDERSPECIFIED):
            return None
        return uniform_score(Outcome.ESPURIO)
    if alignment.gold_morf is None:
        return None
    if alignment.system is None:
        return uniform_score(Outcome.EM_FALTA) if scenario is Scenario.ABSOLUTE else None
    if index is None:
        return uniform_score(Outcome.EM_FALTA)
    entity = alignment.system[index]
    return score_morph(alignment.gold_morf, entity.morf, entity.partial)


def counts_for_system(alignment: Alignment, index: int | None) -> bool:
    """Whether a scored record adds one to *Total classificadas pelo sistema*.

    The rule is docs/spec/vizir-altinamor-ida2mor.md §5.

    A scored spurious record does; otherwise the evaluated system entity
    (``index``) must exist and carry a MORF attribute (``?,?`` included,
    original example 11).
    """
    if not alignment.system:
        return False
    if alignment.spurious:
        return alignment.system[0].morf is not None
    return index is not None and alignment.system[index].morf is not None


def any_system_morph(alignments: Iterable[Alignment]) -> bool:
    """Whether any aligned system entity carries MORF (else Vizir writes nothing)."""
    return any(e.morf is not None for a in alignments for e in (a.system or ()))


# ---------------------------------------------------------------------------
# Parsed records and line streams
# ---------------------------------------------------------------------------


def tag_morph(tag: Tag, path: str | None = None, line: int | None = None) -> Morf | None:
    """The MORF of a tag, ``None`` when absent; a malformed value is an input error."""
    value = tag.morf
    return None if value is None else Morf.parse(value, path, line)


def alignment_from_record(
    record: Record, path: str | None = None, index: int | None = None
) -> Alignment:
    """What Vizir needs of a Véus record: texts, MORF values and identification verdicts.

    The identification list must give one item per system entity, and the
    evaluated entity (``index``) must be ``Correcto`` or partially correct
    (the ``harem`` Véus style); anything else is reported with its line.
    """
    line = record.line or None
    spurious = record.gold.is_spurious
    gold_morf = None if spurious else tag_morph(record.gold, path, line)
    if record.system is None:
        return Alignment(record.gold.text, gold_morf, spurious, None)
    evaluation = record.evaluation
    if evaluation is None:
        raise InputError(path, "an evaluated record ...:[EVAL, ...]", "no evaluation", line=line)
    if not spurious and len(evaluation) != len(record.system):
        raise InputError(
            path,
            f"one evaluation item per system entity ({len(record.system)})",
            f"{len(evaluation)} items",
            line=line,
        )
    entities = tuple(
        SystemEntity(
            tag.text,
            tag_morph(tag, path, line),
            not spurious and evaluation[i].kind in PARTIAL_KINDS,
        )
        for i, tag in enumerate(record.system)
    )
    alignment = Alignment(record.gold.text, gold_morf, spurious, entities)
    if not spurious and gold_morf is not None:
        if index is not None and evaluation[index].kind not in (EVAL_CORRECT, *PARTIAL_KINDS):
            raise InputError(
                path,
                "Correcto or Parcialmente_Correcto_* for an aligned entity (Véus style harem)",
                evaluation[index].text,
                line=line,
            )
    return alignment


def alignment_from_scored_record(record: Record) -> Alignment:
    """What the later stages need of a ``.vizir`` record (identification no longer matters);
    errors unlocated, as :func:`scored_facts` raises them."""
    line = record.line or None
    spurious = record.gold.is_spurious
    gold_morf = None if spurious else tag_morph(record.gold, None, line)
    system = None
    if record.system is not None:
        system = tuple(
            SystemEntity(tag.text, tag_morph(tag, None, line), False) for tag in record.system
        )
    return Alignment(record.gold.text, gold_morf, spurious, system)


@dataclass(slots=True)
class VizirTally:
    """What a pass of ``score_lines`` saw: filled in as the stream is consumed."""

    records: int = 0
    scored: int = 0
    system_morph_seen: bool = False


_COPIED = (*DOCUMENT_STARTS, *ALT_MARKS, DocEnd, Blank)
_DROPPED = (Header, ManualCheck, Omitted)
_SENTINEL = "\x00"


@keyed_cache()
def vizir_decision(
    gold_head: str,
    system_heads: tuple[str, ...] | None,
    items: str | None,
    index: int | None,
    absolute: bool,
) -> tuple[tuple[str, ...] | None, bool]:
    """How a Véus record with this key is written: the text around its entity texts
    (None: dropped), and whether a system entity carries MORF.

    The rules are docs/spec/vizir-altinamor-ida2mor.md §1–3, applied by
    :func:`alignment_from_record` and :func:`judge_evaluated` to the record
    without its texts; ``index`` is the evaluated entity (:func:`evaluated_index`);
    ``absolute``: the scenario is the absolute one.
    The text is ``format_line`` of the ``.vizir`` record, cut where the texts go.
    """
    record = skeleton(gold_head, system_heads, items)
    alignment = alignment_from_record(record, None, index)
    morph_seen = any_system_morph((alignment,))
    scenario = Scenario.ABSOLUTE if absolute else Scenario.RELATIVE
    score = judge_evaluated(alignment, scenario, index)
    if score is None:
        return None, morph_seen
    texts = len(system_heads or ()) + 1
    gold = replace(record.gold, text=_SENTINEL)
    system = record.system and tuple(replace(tag, text=_SENTINEL) for tag in record.system)
    blanked = Record(
        gold, system, record.evaluation, record.marker, record.suffix, record.eol, record.line
    )
    written = format_line(vizir_record(blanked, score))
    pieces = tuple(written.split(_SENTINEL))
    assert len(pieces) == texts + 1
    return pieces, morph_seen


DecisionKey = tuple[str, tuple[str, ...] | None, str | None, int | None]
"""What :func:`vizir_decision` decides on, but the scenario: the heads, the items and
the evaluated entity."""


def _decision(absolute: bool, key: DecisionKey) -> tuple[tuple[str, ...] | None, bool]:
    return vizir_decision(*key, absolute)


_DECISIONS: dict[bool, KeyedTable[DecisionKey, tuple[tuple[str, ...] | None, bool]]] = {
    absolute: KeyedTable(functools.partial(_decision, absolute)) for absolute in (True, False)
}
""":func:`vizir_decision` of each key seen, per scenario (``absolute``), kept from one
call of :func:`score_lines` to the next: a worker reading a file's blocks one after the
other decides each key once, not once a block."""


def score_lines(
    lines: Iterable[RawLine], scenario: Scenario, path: str, tally: VizirTally
) -> Iterator[list[str]]:
    """The ``.vizir`` text of Véus lines (see ``open_raw_lines``), in batches.

    A batch is ``[text, line end, text, line end, …]``.  Document and ALT
    lines (and blank lines) are copied; headers, manual revision and
    omission lines are dropped; each record is written as
    :func:`vizir_decision` of its key says, or dropped when ignored or
    excluded.  ``tally`` learns whether any system entity carried MORF,
    which decides the no-output rule.
    """
    decisions = _DECISIONS[scenario is Scenario.ABSOLUTE]
    cut, evaluate = cut_record, evaluated_index  # looked up once a pass
    out: list[str] = []
    write = out.append
    records = scored = 0
    morph_seen = False
    for number, text, eol in lines:
        if len(out) >= 8192:
            _add(tally, records, scored, morph_seen)
            records = scored = 0
            yield out
            out = []
            write = out.append
        record = cut(text) if text[:1] == "<" else None
        if record is None:
            item = parse_line(text, path, number, eol)
            if not isinstance(item, Record):
                if isinstance(item, _COPIED):
                    write(format_line(item, MARKER_FIRST_HAREM))
                    write(item.eol)
                elif not isinstance(item, _DROPPED):
                    found = type(item).__name__
                    raise InputError(path, "a Véus result line", found, line=number or None)
                continue
            record = record_text(item)
        gold_head, gold_text, heads, texts, items = record
        try:
            pieces, seen = decisions[
                gold_head, heads, items, None if heads is None else evaluate(gold_text, texts)
            ]
        except InputError as error:
            raise located(error, path, number or None) from None
        records += 1
        if seen:
            morph_seen = True
        if pieces is not None:
            scored += 1
            if len(pieces) == 3:
                write(pieces[0] + gold_text + pieces[1] + texts[0] + pieces[2])
            else:
                write(_fill(pieces, (gold_text, *texts)))
            write(eol)
    _add(tally, records, scored, morph_seen)
    if out:
        yield out


def _add(tally: VizirTally, records: int, scored: int, morph_seen: bool) -> None:
    """Add the counts of the lines read since the last batch to ``tally`` (kept in locals
    in between: an attribute write a record costs)."""
    tally.records += records
    tally.scored += scored
    tally.system_morph_seen = tally.system_morph_seen or morph_seen


def _fill(pieces: tuple[str, ...], texts: tuple[str, ...]) -> str:
    """``pieces`` with ``texts`` between them."""
    written = [pieces[0]]
    for text, piece in zip(texts, pieces[1:], strict=True):
        written.append(text)
        written.append(piece)
    return "".join(written)


ScoredKey = tuple[str, tuple[str, ...] | None, str | None, int | None]
"""What a ``.vizir`` record's facts depend on: its heads, its items, its evaluated entity."""


def scored_key(record: RecordText) -> ScoredKey:
    """The :data:`ScoredKey` of a ``.vizir`` record line (:func:`evaluated_index` asked here)."""
    gold_head, gold_text, heads, texts, items = record
    return gold_head, heads, items, None if heads is None else evaluated_index(gold_text, texts)


@keyed_cache()
def scored_facts(key: ScoredKey) -> tuple[MorphScore, bool, bool]:
    """A ``.vizir`` record's verdict and whether it counts in *Total na CD* and in
    *Total classificadas pelo sistema*: what AltinaMor and Ida2Mor decide on.

    The totals are docs/spec/vizir-altinamor-ida2mor.md §5's; errors unlocated.
    """
    gold_head, system_heads, items, index = key
    record = skeleton(gold_head, system_heads, items)
    score = record_morph_score(record)
    alignment = alignment_from_scored_record(record)
    return score, not alignment.spurious, counts_for_system(alignment, index)


def record_facts(record: RecordText, path: str | None, line: int) -> tuple[MorphScore, bool, bool]:
    """:func:`scored_facts` of a ``.vizir`` record line, its errors located."""
    try:
        return scored_facts(scored_key(record))
    except InputError as error:
        raise located(error, path, line or None) from None


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

# Extensions of files the chain derives from a Véus result (and of other
# outputs of the HAREM tools): a folder run never takes them as input.
DERIVED_EXTENSIONS = frozenset(
    {
        "altida", "altmor", "vizir", "emir", "emir_relativo", "ida2id", "ida2mor", "json",
        "ida", "globalid", "alts", "altrel", "espurios", "stderr", "manifest", "tmp",
        "alinhado",
    }
)  # fmt: skip
