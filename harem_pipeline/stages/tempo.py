"""AvalTEMPO: the TEMPO track's credit for the time attributes of golden TEMPO entities.

The rules of ``AvalTEMPO.awk`` (gawk, Cristina Mota, June 2008), as
``docs/spec/tempo.md`` describes them ("Per line", "Unit rule"), on the
text of each Emir line: the awk looks at the raw line with regular
expressions (``$0``, ``$1`` the golden side before the first `` ---> ``,
``$2`` what follows it up to a second one), so the rules do too, and the
same expressions give the same answers.  :func:`score_line` runs the rules
on one line; :func:`score_lines` on a file's lines, carrying the two
globals the awk never resets (:class:`DeltaState`).

The arithmetic is the 2008 run's (``docs/spec/tempo.md``, "Decimal point
and locale"): the classic values a, b, c are read as decimals, the points
added as doubles in rule order, every sum printed ``%.6g``
(:func:`~harem_pipeline.formats.tempo.awk_number`).  The C-locale accident
(values cut to their integer part) is not offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from harem_pipeline.errors import InputError
from harem_pipeline.formats.semantic import (
    SemanticRecord,
    at_line,
    emir_scores,
    parse_semantic_line,
    read_record_line,
)
from harem_pipeline.formats.tempo import (
    TEMPO_RECORD,
    TempoBlock,
    awk_equal,
    awk_number,
    awk_strtonum,
    format_tempo_block,
)

MODE_COMPLETE = 1
MODE_ATTRIBUTES = 2
MODE_NORM = 3
MODE_NAMES = {
    MODE_COMPLETE: "estendido_completo",
    MODE_ATTRIBUTES: "estendido_semnorm",
    MODE_NORM: "estendido_sonorm",
}
"""``MODO`` → the name the official file names give it (``Avaliacao.sh``'s ``str_modo``)."""

FIELD_SEPARATOR = " ---> "

# The awk's tables (BEGIN): weight × correct points per attribute.
WEIGHTS = {
    "TEMPO_REF": 1 - (1 / 3),
    "SENTIDO": 1 - (1 / 5),
    "VAL_DELTA": 1,
    "DATA": 1 / 8,
    "HORA": 1 / 3,
    "DURACAO": 1,
}
CORRECT = {"TEMPO_REF": 1, "SENTIDO": 1, "VAL_DELTA": 1, "DATA": 8, "HORA": 3, "DURACAO": 1}
UNITS = (12, 30, 7, 24, 60, 60, 1)
"""``conv_table``: years → months → days (weeks ×7 added), hours, minutes, seconds."""

# System maxima, on the whole line.
_SYSTEM_TEMPO_REF = re.compile(r"---> .+TEMPO_REF")
_SYSTEM_SENTIDO = re.compile(r"---> .*SENTIDO")
_SYSTEM_DATA = re.compile(r'---> .*SUBTIPO="DATA".* VAL_NORM')
_SYSTEM_HORA = re.compile(r'---> .*SUBTIPO="HORA".* VAL_NORM=')
_SYSTEM_DURACAO = re.compile(r'---> .*TIPO="DURACAO".* VAL_NORM')
_SYSTEM_DELTA = re.compile(r"---> .*VAL_DELTA")

# Golden rules, on the whole line, and the values they read on each side.
_GOLD_TEMPO_REF = re.compile(r"TEMPO_REF=.* ---> ")
_GOLD_SENTIDO = re.compile(r"SENTIDO=.* ---> ")
_GOLD_EMPTY_DELTA = re.compile(r'VAL_DELTA="".* ---> ')
_GOLD_EMPTY_NORM = re.compile(r'SUBTIPO="[DH][A-Z]+".*VAL_NORM="".* --->')
_GOLD_EMPTY_DURATION = re.compile(r'TIPO="DURACAO".*VAL_NORM="".* --->')
_GOLD_DELTA = re.compile(r"VAL_DELTA=.* ---> ")
_GOLD_DURATION = re.compile(r'VAL_NORM="A.* ---> ')
_GOLD_HORA = re.compile(r"HORA.*VAL_NORM=.* ---> ")
_GOLD_DATA = re.compile(r"DATA.*VAL_NORM=.* ---> ")
_GOLD_TEMPO = TEMPO_RECORD

_TEMPO_REF = re.compile(r'TEMPO_REF="([^"]+)"')
_SENTIDO = re.compile(r'SENTIDO="([^"]+)"')
_EMPTY_DELTA = re.compile(r'VAL_DELTA=""')
_EMPTY_NORM = re.compile(r'SUBTIPO="([DH][A-Z]+)".*VAL_NORM=""')
_EMPTY_DURATION = re.compile(r'TIPO="DURACAO".*VAL_NORM=""')
_UNITS = r"A([0-9]+)M([0-9]+)S([0-9]+)D([0-9]+)H([0-9]+)M([0-9]+)S([0-9]+)"
_DELTA = re.compile(rf'VAL_DELTA="{_UNITS}"')
_DURATION = re.compile(rf'VAL_NORM="{_UNITS}"')
_DATE = re.compile(r'VAL_NORM="(.)(....)(..)(..)T(..)(..)E(..)LM(.)"')
_UNKNOWN = re.compile(r'VAL_NORM="[\-+]99999999T9999E--LM-"')
_UNKNOWN_TYPO = re.compile(r'VAL_NORM="[\-+]99999999T9999E--LM-""')
"""``analyse_val_norm_hora``'s test of the unknown value: one quote too many, never true."""
_DASHES = re.compile(r"-+")
_AD = re.compile(r"[AD]")
_PE = re.compile(r"[PE]")

_CLASSIC = re.compile(r"MaxCSC_CD\(([0-9,.]+)\) MaxCSC_S\(([0-9,.]+)\) CSC\(([0-9,.]+)\)")
_VALUES = (
    ("MaxCSC_CD", re.compile(r"MaxCSC_CD[(][0-9,.]+[)]")),
    ("MaxCSC_S", re.compile(r"MaxCSC_S[(][0-9,.]+[)]")),
    ("CSC", re.compile(r"CSC[(][0-9,.]+[)]")),
)


CORRECTIONS = {
    "missing": "a system without a VAL_DELTA or duration VAL_NORM scores 0 (no reuse)",
    "cut-off": "the unit cut-off is worked out for each comparison",
    "empty-delta": "VAL_NORM is scored too when the golden VAL_DELTA is empty",
}
"""Documented departures from AvalTEMPO, each opt-in (``docs/spec/tempo.md``, "Decimal
point and locale"): the name, and what it changes."""


@dataclass(slots=True)
class DeltaState:
    """The awk's globals that outlive a line: ``val_match`` (the last comparison's result
    of rules 6–9, reused when the system has no value; None before the first) and
    ``cut_off`` (the awk's ``max``: the unit cut-off set by the file's first differing
    comparison, 0 before)."""

    val_match: float | None = None
    cut_off: int = 0
    corrections: frozenset[str] = frozenset()
    """The opt-in corrections of :data:`CORRECTIONS` (none: the 2008 program)."""


@dataclass(frozen=True, slots=True)
class TempoLine:
    """What AvalTEMPO prints for one line (None: the line as read) and its error lines."""

    text: str | None
    errors: tuple[str, ...] = field(default=())
    """``<labels so far>`` of each wrong attribute (the side file adds ``NR:``)."""


Groups = tuple[str, ...]
"""A ``match(s, re, arr)`` array: ``arr[0]`` the match, then the groups; ``()`` when the
match failed (gawk clears the array: every element reads ``""``)."""


def _groups(pattern: re.Pattern[str], text: str) -> Groups:
    found = pattern.search(text)
    if found is None:
        return ()
    return (found.group(), *(g or "" for g in found.groups()))


def _at(groups: Groups, index: int) -> str:
    return groups[index] if index < len(groups) else ""


def _points(name: str) -> float:
    """``weights[x] * correct[x]``: 0 for a name outside the tables (awk's empty element)."""
    return WEIGHTS.get(name, 0) * CORRECT.get(name, 0)


def _value_of(groups: Groups, attribute: str) -> str:
    """``valcd[0]`` without ``ATTR="`` and its first ``"`` (the two ``sub`` calls)."""
    return _at(groups, 0).replace(f'{attribute}="', "", 1).replace('"', "", 1)


def analyse_delta(gold: Groups, system: Groups, state: DeltaState) -> int:
    """``analyse_delta``: 1 when the two durations fold to the same number, else 0.

    The cut-off (the finest field either value sets) is fixed by the first
    differing comparison of the file and kept (``docs/spec/tempo.md``, "Unit rule").
    """
    gold_value = system_value = 0.0
    if not awk_equal(_at(gold, 0), _at(system, 0)):
        cut_off = 0 if "cut-off" in state.corrections else state.cut_off
        i = 7
        while i >= 1 and cut_off == 0:
            if awk_strtonum(_at(gold, i)) != 0 or awk_strtonum(_at(system, i)) != 0:
                cut_off = i
            i -= 1
        if "cut-off" not in state.corrections:
            state.cut_off = cut_off
        for i in range(1, cut_off + 1):
            unit = UNITS[i - 1]
            if i != 3:
                gold_value = (gold_value + awk_strtonum(_at(gold, i))) * unit
                system_value = (system_value + awk_strtonum(_at(system, i))) * unit
            else:
                gold_value = gold_value + awk_strtonum(_at(gold, i)) * unit
                system_value = system_value + awk_strtonum(_at(system, i)) * unit
    return 1 if gold_value == system_value else 0


def _field_right(gold: str, system: str) -> bool:
    """A date field is right when equal, or one is numerically zero and the other dashes."""
    return (
        awk_equal(gold, system)
        or (awk_strtonum(gold) == 0 and _DASHES.fullmatch(system) is not None)
        or (awk_strtonum(system) == 0 and _DASHES.fullmatch(gold) is not None)
    )


def _limit_right(gold: str, system: str) -> bool:
    """The open limit is right when equal, or both in ``[AD]``, or both in ``[PE]``."""
    return (
        awk_equal(gold, system)
        or (_AD.search(gold) is not None and _AD.search(system) is not None)
        or (_PE.search(gold) is not None and _PE.search(system) is not None)
    )


def analyse_hora(gold: Groups, system: Groups) -> int:
    """``analyse_val_norm_hora``: hour, minute and limit right, 0 to 3."""
    if _UNKNOWN_TYPO.search(_at(system, 0)) is not None:
        return 0
    score = sum(_field_right(_at(gold, i), _at(system, i)) for i in (5, 6))
    return score + _limit_right(_at(gold, 8), _at(system, 8))


def analyse_data(gold: Groups, system: Groups) -> int:
    """``analyse_val_norm_data``: era, year, month, day, hour, minute, season, limit, 0 to 8;
    with an unknown value on either side, 8 for identical values, else 0."""
    if _UNKNOWN.search(_at(gold, 0)) or _UNKNOWN.search(_at(system, 0)):
        return CORRECT["DATA"] if awk_equal(_at(gold, 0), _at(system, 0)) else 0
    score = int(awk_equal(_at(gold, 1), _at(system, 1)))
    score += sum(_field_right(_at(gold, i), _at(system, i)) for i in range(2, 7))
    score += awk_equal(_at(gold, 7), _at(system, 7))
    return score + _limit_right(_at(gold, 8), _at(system, 8))


class _Line:
    """One line's running sums and labels (the awk's ``time_score`` and ``output_string``)."""

    def __init__(self) -> None:
        self.gold = 0.0
        self.system = 0.0
        self.csc = 0.0
        self.labels = ""
        self.errors: list[str] = []

    def label(self, name: str, right: bool, value: str, partial: bool = False) -> None:
        """Add ``Name(Correcto:[v] Em_Falta:[])`` (``CorrectoP`` partial), or the missing
        form and an error line."""
        if right:
            word = "CorrectoP" if partial else "Correcto"
            self.labels += f"{name}({word}:[{value}] Em_Falta:[]) "
        else:
            self.labels += f"{name}(Correcto:[] Em_Falta:[{value}]) "
            self.errors.append(self.labels)


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    """An ``re.sub`` replacement inserting ``text`` as it is (no backslash escapes)."""
    return lambda _match: text


def rewrite(text: str, sums: _Line) -> TempoLine:
    """``update_csc``: the first block's values raised by the points, the block appended."""
    found = _CLASSIC.search(text)
    written = found.groups() if found is not None else ("", "", "")
    points = (sums.gold, sums.system, sums.csc)
    classic: list[str] = []
    for (name, pattern), value, added in zip(_VALUES, written, points, strict=True):
        local = value.replace(".", ",", 1)
        total = awk_number(awk_strtonum(local) + added)
        text = pattern.sub(_literal(f"{name}({total})"), text, count=1)
        classic.append(local.replace(",", ".", 1))
    a, b, c = classic
    block = TempoBlock(
        sums.labels,
        (a, b, c),
        (awk_number(sums.gold), awk_number(sums.system), awk_number(sums.csc)),
    )
    return TempoLine(text + format_tempo_block(block), tuple(sums.errors))


def score_line(text: str, mode: int, state: DeltaState) -> TempoLine | None:
    """AvalTEMPO's rules on one line other than ``#``, ``DOC`` and empty lines (``MODO`` =
    ``mode``): the rewritten TEMPO record (text None for a line it copies as read, with the
    errors rules 1–2 may still have written), or None for a line no rule touches."""
    if "TEMPO" not in text and "SENTIDO" not in text and "VAL_" not in text:
        return None  # no golden rule can match (each needs one of these words)
    fields = text.split(FIELD_SEPARATOR)
    gold, system = fields[0], fields[1] if len(fields) > 1 else ""
    attributes = mode in (MODE_COMPLETE, MODE_ATTRIBUTES)
    norm = mode in (MODE_COMPLETE, MODE_NORM)
    sums = _Line()
    if attributes:
        if _SYSTEM_TEMPO_REF.search(text):
            sums.system += WEIGHTS["TEMPO_REF"]
        if _SYSTEM_SENTIDO.search(text):
            sums.system += WEIGHTS["SENTIDO"]
    if norm:
        if _SYSTEM_DATA.search(text):
            sums.system += _points("DATA")
        if _SYSTEM_HORA.search(text):
            sums.system += _points("HORA")
        if _SYSTEM_DURACAO.search(text):
            sums.system += WEIGHTS["DURACAO"]
        if _SYSTEM_DELTA.search(text):
            sums.system += WEIGHTS["VAL_DELTA"]
    if attributes:
        for name, rule, pattern, attribute in (
            ("TempoRef", _GOLD_TEMPO_REF, _TEMPO_REF, "TEMPO_REF"),
            ("Sentido", _GOLD_SENTIDO, _SENTIDO, "SENTIDO"),
        ):
            if rule.search(text):
                sums.gold += WEIGHTS[attribute]
                value = _at(_groups(pattern, gold), 1)
                theirs = _groups(pattern, system)
                right = bool(theirs) and awk_equal(value, theirs[1])
                if right:
                    sums.csc += WEIGHTS[attribute] * 1
                sums.label(name, right, value)
    if norm:
        scored = _score_norm(text, gold, system, sums, state)
        if scored:
            return rewrite(text, sums)
    if _GOLD_TEMPO.search(text):
        return rewrite(text, sums)
    return TempoLine(None, tuple(sums.errors)) if sums.errors else None


def _score_norm(text: str, gold: str, system: str, sums: _Line, state: DeltaState) -> bool:
    """Rules 3–9 (modes 1 and 3): True when one of them scored the line (it is printed)."""
    empty_delta = _GOLD_EMPTY_DELTA.search(text) is not None
    if empty_delta:
        sums.gold += WEIGHTS["VAL_DELTA"]
        right = _EMPTY_DELTA.search(system) is not None
        if right:
            sums.csc += WEIGHTS["VAL_DELTA"] * 1
        sums.label("ValDelta", right, '""')
        if "empty-delta" not in state.corrections:
            return True
    return _score_values(text, gold, system, sums, state, empty_delta) or empty_delta


def _score_values(
    text: str, gold: str, system: str, sums: _Line, state: DeltaState, empty_delta: bool
) -> bool:
    """Rules 4–9 (the VAL_DELTA rule 6 left out when rule 3 scored an empty one)."""
    if _GOLD_EMPTY_NORM.search(text):
        sums.gold += _points(_at(_groups(_EMPTY_NORM, gold), 1))
        theirs = _groups(_EMPTY_NORM, system)
        if theirs:
            sums.csc += _points(theirs[1])
        sums.label("ValNorm", bool(theirs), '""')
        return True
    if _GOLD_EMPTY_DURATION.search(text):
        sums.gold += _points("DURACAO")
        right = _EMPTY_DURATION.search(system) is not None
        if right:
            sums.csc += _points("DURACAO")
        sums.label("ValNorm", right, '""')
        return True
    for rule, pattern, name, attribute in (
        (_GOLD_DELTA, _DELTA, "ValDelta", "VAL_DELTA"),
        (_GOLD_DURATION, _DURATION, "ValNorm", "VAL_NORM"),
    ):
        if attribute == "VAL_DELTA" and empty_delta:
            continue
        if rule.search(text):
            sums.gold += WEIGHTS["VAL_DELTA" if attribute == "VAL_DELTA" else "DURACAO"]
            ours, theirs = _groups(pattern, gold), _groups(pattern, system)
            if theirs:
                state.val_match = analyse_delta(ours, theirs, state)
            elif "missing" in state.corrections:
                state.val_match = 0
            right = state.val_match == 1
            if right:
                sums.csc += 1  # the awk's ``1 * val_match``, val_match being 1
            sums.label(name, right, _value_of(ours, attribute))
            return True
    for rule, kind, analyse in (
        (_GOLD_HORA, "HORA", analyse_hora),
        (_GOLD_DATA, "DATA", analyse_data),
    ):
        if rule.search(text):
            sums.gold += _points(kind)
            ours, theirs = _groups(_DATE, gold), _groups(_DATE, system)
            state.val_match = analyse(ours, theirs) if theirs else 0
            k = state.val_match
            if k > 0:
                sums.csc += WEIGHTS[kind] * k
            sums.label("ValNorm", k > 0, _value_of(ours, "VAL_NORM"), partial=k != CORRECT[kind])
            return True
    return False


def is_copied(text: str) -> bool:
    """``#…``, ``DOC …`` and empty lines: copied before any rule, whatever the options."""
    return text == "" or text.startswith("#") or text.startswith("DOC ")


@dataclass(frozen=True, slots=True)
class TempoOutput:
    """One output line of :func:`score_lines` (None: none) and the side file's lines it adds."""

    text: str | None
    errors: tuple[str, ...] = ()


def score_lines(
    lines: Iterable[tuple[int, str]],
    mode: int,
    tempo_only: bool = False,
    corrections: Iterable[str] = (),
) -> Iterator[TempoOutput]:
    """AvalTEMPO over a file's ``(line number, text)`` lines, in order: each output line
    (a line it drops with ``tempo_only``, the official ``TODOS=0``, gives none) and the
    ``NR:<labels>`` side-file lines of its wrong attributes; ``corrections`` names the
    opt-in departures (:data:`CORRECTIONS`) applied."""
    if mode not in MODE_NAMES:
        raise ValueError(f"AvalTEMPO mode {mode!r}: 1, 2 or 3")
    unknown = set(corrections) - set(CORRECTIONS)
    if unknown:
        raise ValueError(f"unknown AvalTEMPO corrections {sorted(unknown)}")
    state = DeltaState(corrections=frozenset(corrections))
    for number, text in lines:
        if is_copied(text):
            yield TempoOutput(text)
            continue
        scored = score_line(text, mode, state)
        errors = () if scored is None else tuple(f"{number}:{e}" for e in scored.errors)
        if scored is not None and scored.text is not None:
            yield TempoOutput(scored.text, errors)
        elif not tempo_only:
            yield TempoOutput(text, errors)
        elif errors:
            yield TempoOutput(None, errors)


class EmirCheck:
    """Raises the reader's error when a line is not one of an Emir file (``.emir`` or
    ``.altrel``): AvalTEMPO would rewrite anything, so a wrong input is caught here.

    A line is read by :mod:`harem_pipeline.formats.semantic` as Ida reads it (every
    item of an Emir record is read, once per record key:
    :func:`~harem_pipeline.formats.semantic.emir_scores`); a ``.tempo`` record's
    appended block is refused.
    """

    def __init__(self, path: str | None) -> None:
        self.path = path

    def __call__(self, text: str, number: int) -> None:
        if "]::[{MaxCSC_CD=" in text or "MaxCSC_CD=MaxCSC_CD_class(" in text:
            raise InputError(
                self.path,
                "an Emir record (.emir or .altrel)",
                "a record with AvalTEMPO's block",
                line=number,
            )
        item = read_record_line(text, self.path, number, "\n", parse_semantic_line)
        if type(item) is SemanticRecord:
            try:
                emir_scores(item.key, self.path)
            except InputError as error:
                raise at_line(error, number) from None
