"""The official Second HAREM result pages (``GlobalSemanticReporter``, Sultão).

``Avaliacao.sh classico`` published, per veil, one page of every run's
strict-ALT ``.ida`` and one of the relaxed ones, printed by
``GlobalSemanticReporter -depurar``.  This module renders those pages from
the runs' ``.ida`` reports so that they are byte-equal to the Java's output
(after its timestamp line), as ``docs/spec/official-grid.md`` describes
("Result tables" and "GlobalSemanticReporter"):

* rows named by run; sorted by Medida F descending through a stable
  ascending sort then a reversal, the input sorted by name first (ties come
  in reverse name order); NaN sorts as the smallest positive double;
* best cells (max P, R, F; min Sobre-/Sub-geração) marked green on every row
  whose value string equals the best one, chosen among all runs, printed or
  not;
* the report's value strings, first ``.`` turned into ``,``; NaN shown as
  ``0.0`` in the zerofied cells; a run whose identification Precisão is NaN
  has no row.

Anonymised pages (the Java's mode without ``-depurar``) take code names
drawn under a seed from the official 32; the key is returned, not printed
into the page.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol, TypeVar

from harem_pipeline.errors import InputError
from harem_pipeline.formats.report import SEPARATOR, Field, Text, parse_report
from harem_pipeline.reports.ida2id import UNDEFINED_TEXT
from harem_pipeline.text.numbers import java_double
from harem_pipeline.text.textio import read_text

IDENTIFICATION = "Avaliação Global - Identificação"
CLASSIFICATION = "Avaliação Global - Classificação"

PRECISION = "Precisão"
RECALL = "Abrangência"
F_MEASURE = "Medida F"
OVER = "Sobre-geração"
UNDER = "Sub-geração"
MAX_PRECISION = "Precisão Máxima do Sistema"
MAX_RECALL = "Abrangência Máxima na CD"
TOTAL_IN_GC = "Total de EMs identificadas na CD"
TOTAL_IDENTIFIED = "Total de EMs identificadas pelo sistema"
MAX_CLASS_GC = "Valor máximo possível para a Classificação na CD"
MAX_CLASS_SYSTEM = "Valor máximo possível para a Classificação do sistema"

IDENTIFICATION_KEYS = (PRECISION, RECALL, F_MEASURE, OVER, UNDER, TOTAL_IN_GC, TOTAL_IDENTIFIED)
CLASSIFICATION_KEYS = (MAX_PRECISION, MAX_RECALL, F_MEASURE, MAX_CLASS_GC, MAX_CLASS_SYSTEM)

CODE_NAMES = (
    "meca",
    "bagdad",
    "tripoli",
    "casablanca",
    "eritreia",
    "marraquexe",
    "jerusalem",
    "kuwait",
    "teerao",
    "riad",
    "cairo",
    "abudhabi",
    "dakar",
    "bahrein",
    "tunis",
    "argel",
    "rabat",
    "luxor",
    "bengazi",
    "doha",
    "mascate",
    "damasco",
    "ancara",
    "ama",
    "asmara",
    "nicosia",
    "sana",
    "qatar",
    "oman",
    "iemen",
    "manama",
    "gaza",
)
"""The 32 distinct code names of ``GlobalReporter.loadNames`` (``argel`` is listed twice there)."""

SELECTIVE = ".selectivo."
JAVA_NAN = "NaN"
"""``Double.toString`` of NaN: what the Java reports hold for an undefined ratio."""
JAVA_MONTHS = ("Jan", "Fev", "Mar", "Abr", "Mai", "Jun", "Jul", "Ago", "Set", "Out", "Nov", "Dec")
"""``GlobalReporter.hackMonth``: Java's English abbreviations, six of them made Portuguese."""


@dataclass(frozen=True, slots=True)
class SemanticEntry:
    """One run's ``.ida``: the two global sections' value strings, as written."""

    name: str
    identification: Mapping[str, str]
    classification: Mapping[str, str]

    @property
    def printable(self) -> bool:
        """The Java prints no row for a run whose identification Precisão is NaN."""
        return not math.isnan(_number(self.identification[PRECISION]))


def parse_semantic_entry(name: str, text: str, path: str | None = None) -> SemanticEntry:
    """Read the global sections of an ``.ida`` report as ``GlobalSemanticReporter`` does.

    A ``Label: value`` line belongs to the last of the two global titles
    above it (a later line of the same label replaces an earlier one); lines
    before the first title are ignored.  Every value the pages show must be
    there and be a number.
    """
    sections: dict[str, dict[str, str]] = {IDENTIFICATION: {}, CLASSIFICATION: {}}
    current: dict[str, str] | None = None
    for item in parse_report(text):
        if isinstance(item, Text) and item.text in sections:
            current = sections[item.text]
        elif (
            isinstance(item, Field)
            and current is not None
            and ": " not in item.value
            and item.value
        ):
            current[item.label.strip()] = item.value
    for title, keys in (
        (IDENTIFICATION, IDENTIFICATION_KEYS),
        (CLASSIFICATION, CLASSIFICATION_KEYS),
    ):
        check_numbers(sections[title], keys, title, path)
    return SemanticEntry(name, sections[IDENTIFICATION], sections[CLASSIFICATION])


def check_numbers(
    block: Mapping[str, str], keys: Iterable[str], title: str, path: str | None
) -> None:
    """Every one of ``keys`` is in ``block`` (a report's block ``title``) with a number
    as Java's ``Double.parseDouble`` reads one: else the one line naming key and block."""
    for key in keys:
        value = block.get(key)
        if value is None:
            raise InputError(path, f"a '{key}: <number>' line under '{title}'", "none")
        try:
            float(value)
        except ValueError:
            raise InputError(
                path, f"a number after '{key}: ' under '{title}'", repr(value)
            ) from None


def read_semantic_entry(name: str, path: str | Path) -> SemanticEntry:
    """``parse_semantic_entry`` of the ``.ida`` file at ``path``."""
    return parse_semantic_entry(name, read_text(path).text, str(path))


def _number(value: str) -> float:
    """Java ``Double.parseDouble`` of a report value."""
    return float(value)


def _masked(value: str, nan_is_small: bool) -> float:
    """``ScoreComparator``'s key: NaN as ``Double.MIN_VALUE`` (or ``MAX_VALUE`` for Sub-geração)."""
    number = _number(value)
    if math.isnan(number):
        return 5e-324 if nan_is_small else 1.7976931348623157e308
    return number


def _java_string_key(text: str) -> bytes:
    """Java ``String.compareTo`` order (UTF-16 code units)."""
    return text.encode("utf-16-be")


def _best(values: Sequence[str], largest: bool, nan_small: bool) -> set[int]:
    """``addToBestResults``: the indices of the runs whose value string equals the extreme one's.

    The extreme is the last (for a maximum) or first (for a minimum) run of a
    stable ascending sort by the masked value; the marked runs are the ones
    next to it whose value string is the same.
    """
    ordered = sorted(range(len(values)), key=lambda i: _masked(values[i], nan_small))
    if largest:
        ordered.reverse()
    best = values[ordered[0]]
    marked: set[int] = set()
    for index in ordered:
        if values[index] != best:
            break
        marked.add(index)
    return marked


def _comma(value: str) -> str:
    """``pointToComma``: the first ``.`` becomes ``,``."""
    return value.replace(".", ",", 1)


def _zerofied(value: str) -> str:
    """``getZerofiedNaN``: ``0.0`` for NaN, the value string otherwise."""
    return "0.0" if math.isnan(_number(value)) else value


def _cell(value: str, best: bool) -> str:
    return f"<td><font color=green><b>{value}</b></font></td>" if best else f"<td>{value}</td>"


def java_timestamp(moment: datetime) -> str:
    """The page's ``DD Mon YYYY HH:MM:SS`` (``hackMonth`` of ``Date.toString``)."""
    return f"{moment.day:02d} {JAVA_MONTHS[moment.month - 1]} {moment.year} {moment:%H:%M:%S}"


def page_header(filters: Sequence[str], generated: datetime) -> list[str]:
    """``GlobalReporter.writeHeader``: the lines up to ``<body>``."""
    listed = "[" + ", ".join(filters) + "]"
    return [
        '<html LANG="pt">',
        "<head>",
        '<meta http-equiv=Content-Type content="text/html; charset=ISO-8859-1">',
        f"<title>Resultados --- Segundo HAREM --- {listed}</title>",
        '<meta http-equiv="EXPIRES" content="-1">',
        '<meta http-equiv="PRAGMA" content="NO-CACHE">',
        '<meta http-equiv="MAX-AGE" content="0">',
        '<meta http-equiv="CACHE-CONTROL" content="NO-CACHE">',
        "</head>",
        "<b><br>Resultados <A HREF=http://www.linguateca.pt/HAREM>Segundo HAREM</A> ",
        f"<br>Ficheiros utilizados: {listed}",
        f"<br>Pagina gerada automaticamente em: {java_timestamp(generated)}",
        "</b><body>",
    ]


def _name_cell(name: str, shown: str) -> str:
    """The run's name (all runs official: bold; ``.selectivo.`` ones in italics)."""
    if SELECTIVE in name:
        shown = f"<i>{shown}</i>"
    return f"<td><b>{shown}</b></td>"


def _table(
    entries: list[SemanticEntry],
    shown: Mapping[str, str],
    classification: bool,
    debug: bool,
) -> list[str]:
    """``writeTable`` for one of the two global sections."""
    section = "classification" if classification else "identification"
    title = CLASSIFICATION if classification else IDENTIFICATION
    if classification:
        columns = [(MAX_PRECISION, False, True), (MAX_RECALL, False, True), (F_MEASURE, True, True)]
        labels = [f"{MAX_PRECISION} ", f"{MAX_RECALL} ", F_MEASURE]
        extra = [MAX_CLASS_GC, MAX_CLASS_SYSTEM]
    else:
        columns = [
            (PRECISION, True, True),
            (RECALL, False, True),
            (F_MEASURE, True, True),
            (OVER, False, False),
            (UNDER, False, False),
        ]
        labels = [f"{PRECISION} ", f"{RECALL} ", F_MEASURE, OVER, UNDER]
        extra = [TOTAL_IN_GC, TOTAL_IDENTIFIED]
    best = {
        key: _best([getattr(e, section)[key] for e in entries], largest, nan_small=key != UNDER)
        for key, _zero, largest in columns
    }
    colspan = (4 if classification else 6) + (2 if debug else 0)
    lines = [
        "<br>",
        "<br>",
        "<table border>",
        "<tr>",
        f"<tr> <TH COLSPAN={colspan}>{title}</TH> </tr>",
    ]
    lines += [f"<td>{label}</td>" for label in ["Saida", *labels, *(extra if debug else [])]]
    lines.append("</tr>")
    by_name = sorted(entries, key=lambda e: _java_string_key(e.name))
    ordered = sorted(by_name, key=lambda e: _masked(getattr(e, section)[F_MEASURE], True))
    ordered.reverse()
    index = {id(entry): i for i, entry in enumerate(entries)}
    for entry in ordered:
        if not entry.printable:
            continue
        values = getattr(entry, section)
        cells = [_name_cell(entry.name, shown[entry.name])]
        for key, zero, _largest in columns:
            value = _zerofied(values[key]) if zero else values[key]
            cells.append(_cell(_comma(value), index[id(entry)] in best[key]))
        if debug:
            cells += [f"<td>{_comma(values[key])}</td>" for key in extra]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return lines


class _HasName(Protocol):
    @property
    def name(self) -> str: ...


_Named = TypeVar("_Named", bound=_HasName)


def _distinct_runs(entries: Iterable[_Named], report: str) -> list[_Named]:
    """The page's runs, at least one and each name once: the page's rows are keyed by name."""
    runs = list(entries)
    if not runs:
        raise InputError(None, f"at least one run's {report} report for an official page", "none")
    names = [entry.name for entry in runs]
    if len(set(names)) != len(names):
        duplicated = sorted({name for name in names if names.count(name) > 1})
        raise InputError(
            None, "distinct run names on one official page", f"{', '.join(duplicated)} twice"
        )
    return runs


def render_semantic_page(
    entries: Sequence[SemanticEntry],
    filters: Sequence[str],
    generated: datetime,
    code_names: Mapping[str, str] | None = None,
) -> str:
    """The page ``GlobalSemanticReporter`` prints for these runs.

    ``filters`` are the ``-filtro`` suffixes the title lists.  Without
    ``code_names`` it is the ``-depurar`` page (real names, the two extra
    columns per table); with them, the anonymised page (code names, no
    extra columns).  Lines end in ``\\n``; encode as ISO-8859-1.
    """
    runs = _distinct_runs(entries, ".ida")
    debug = code_names is None
    shown = {entry.name: entry.name for entry in runs} if code_names is None else dict(code_names)
    lines = page_header(filters, generated)
    lines += _table(runs, shown, classification=True, debug=debug)
    lines += _table(runs, shown, classification=False, debug=debug)
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"


def anonymise(names: Sequence[str], seed: int) -> dict[str, str]:
    """A code name for every run, drawn under ``seed`` from the official 32.

    Like the Java, more runs than code names is an error (it crashed).
    """
    unique = sorted(set(names), key=_java_string_key)
    if len(unique) > len(CODE_NAMES):
        raise InputError(
            None,
            f"at most {len(CODE_NAMES)} runs to anonymise (the official code names)",
            f"{len(unique)} runs",
        )
    drawn = random.Random(seed).sample(CODE_NAMES, len(unique))
    return dict(zip(unique, drawn, strict=True))


def format_key(code_names: Mapping[str, str]) -> str:
    """The key as the Java printed it: ``{name=code, …}`` (a Java map's ``toString``)."""
    return "{" + ", ".join(f"{name}={code}" for name, code in code_names.items()) + "}\n"


@dataclass(frozen=True, slots=True)
class Participant:
    """A row of ``lista_participantes``: the run's path and its system."""

    path: str
    system: str

    @property
    def display(self) -> str:
        """``Sistema`` + the file name from its first ``_`` (``Cage2_1_corr``)."""
        file_name = self.path.rstrip("/").rsplit("/", 1)[-1]
        return self.system + file_name[file_name.index("_") :]


def parse_participants(text: str, path: str | None = None) -> list[Participant]:
    """The participant table: tab-separated, ``"`` quotes dropped; Path, Veu, Descrição, Sistema, ….

    The header line (``#Path``) is read as a row like any other, as the Java
    does; it matches no run.
    """
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = [field.replace('"', "") for field in line.split("\t")]
        if len(fields) < 4:
            raise InputError(
                path,
                "at least 4 tab-separated fields (Path, Veu, Descrição veu, Sistema)",
                f"{len(fields)}",
                line=number,
            )
        file_name = fields[0].rstrip("/").rsplit("/", 1)[-1]
        if "_" not in file_name and not fields[0].startswith("#"):
            raise InputError(
                path,
                "a Path whose file name has a '_' before the run number",
                repr(fields[0]),
                line=number,
            )
        rows.append(Participant(fields[0], fields[3]))
    return rows


def read_participants(path: str | Path) -> list[Participant]:
    """``parse_participants`` of the table at ``path`` (ISO-8859-1 as the original, or UTF-8)."""
    return parse_participants(read_text(path).text, str(path))


def participant_names(names: Sequence[str], participants: Sequence[Participant]) -> dict[str, str]:
    """Each run's shown name: a run named as a Path (or its file name) becomes Sistema + run."""
    table: dict[str, str] = {}
    for row in participants:
        if row.path.startswith("#"):
            continue
        table[row.path] = row.display
        table.setdefault(row.path.rstrip("/").rsplit("/", 1)[-1], row.display)
    return {name: table.get(name, name) for name in names}


# ---------------------------------------------------------------------------
# GlobalIdentificationReporter: the 2005-style identification table

COMBINED_ERROR = "Erro Combinado"
ID_TOTAL_IN_GC = "Total na CD"
ID_TOTAL_IDENTIFIED = "Total identificadas"
ID_TOTAL_CORRECT = "Total correctamente identificadas"
ID_SPURIOUS = "Espúrios"
ID_MISSING = "Em Falta"
ID_SUM_PARTIAL_CORRECT = "Soma Parcialmente Correctos"
ID_SUM_PARTIAL_INCORRECT = "Soma Parcialmente Incorrectos"
ID_PARTIAL_OCCURRENCES = "Total Ocorrências Parcialmente Correctos"

GLOBALID_SCORES = (
    (PRECISION, True),
    (RECALL, True),
    (F_MEASURE, True),
    (COMBINED_ERROR, False),
    (OVER, False),
    (UNDER, False),
)
"""The scored columns and whether the best is the largest (else the smallest)."""

GLOBALID_EXTRA = (
    ID_TOTAL_IN_GC,
    ID_TOTAL_IDENTIFIED,
    ID_TOTAL_CORRECT,
    ID_SPURIOUS,
    ID_MISSING,
    ID_TOTAL_CORRECT,
    ID_SUM_PARTIAL_CORRECT,
    ID_SUM_PARTIAL_INCORRECT,
    ID_PARTIAL_OCCURRENCES,
)
"""The ``-depurar`` columns (``Total correctamente identificadas`` twice, as the Java prints it)."""


@dataclass(frozen=True, slots=True)
class IdentificationEntry:
    """One run's ``.globalid`` report: its value strings by label."""

    name: str
    values: Mapping[str, str]


def parse_identification_entry(
    name: str, text: str, path: str | None = None
) -> IdentificationEntry:
    """Read a ``.globalid`` report as ``GlobalIdentificationReporter`` does.

    Every line is ``Label: value`` (the Java stops on any other line); a
    later line of a label replaces an earlier one; every shown value must be
    there, the scored ones numbers.

    Our Ida2ID report writes ``-`` where the Java's ``.globalid`` has ``NaN``
    (an undefined ratio: a run with no entity has no Precisão, one with no
    correct entity no Medida F).  The Java reporter cannot parse ``-`` (it
    stops with a ``NumberFormatException``), so such a value is read as the
    ``NaN`` the Java evaluator would have written: the page is then the one
    the official reporter prints for the official ``.globalid``.
    """
    values: dict[str, str] = {}
    for number, item in enumerate(parse_report(text), 1):
        if not isinstance(item, Field):
            raise InputError(path, "a 'Label: value' line", repr(item.text), line=number)
        value = item.value.split(SEPARATOR, 1)[0]
        values[item.label] = JAVA_NAN if value == UNDEFINED_TEXT else value
    for key in (*(key for key, _ in GLOBALID_SCORES), *GLOBALID_EXTRA):
        if key not in values:
            raise InputError(path, f"a '{key}: <number>' line", "none")
    for key, _ in GLOBALID_SCORES:
        try:
            float(values[key])
        except ValueError:
            raise InputError(path, f"a number after '{key}: '", repr(values[key])) from None
    return IdentificationEntry(name, values)


def read_identification_entry(name: str, path: str | Path) -> IdentificationEntry:
    """``parse_identification_entry`` of the ``.globalid`` file at ``path``."""
    return parse_identification_entry(name, read_text(path).text, str(path))


def _percentage(value: str) -> str:
    """``getPercentage``: the value × 100 as a Java double, points kept."""
    return java_double(_number(value) * 100)


def render_identification_page(
    entries: Sequence[IdentificationEntry],
    filters: Sequence[str],
    generated: datetime,
    code_names: Mapping[str, str] | None = None,
) -> str:
    """The page ``GlobalIdentificationReporter`` prints for these runs.

    Sorted by Medida F descending (NaN as the smallest positive double).
    The Java shuffles the runs before sorting, so its ties come in a random
    order; here they come in reverse name order, as in the semantic pages.
    With ``-depurar`` (no ``code_names``) every run has a row, NaN Precisão
    included; anonymised, those runs have none.  No comma decimals; P and R
    × 100; F zerofied.
    """
    runs = _distinct_runs(entries, ".globalid")
    debug = code_names is None
    best = {
        key: _best([entry.values[key] for entry in runs], largest, nan_small=largest)
        for key, largest in GLOBALID_SCORES
    }
    lines = page_header(filters, generated)
    lines += ["<br>", "<br>", "<table border>", "<tr>", "<td>Saida</td>"]
    lines += [f"<td>{PRECISION} (%) </td>", f"<td>{RECALL} (%) </td>"]
    lines += [f"<td>{key}</td>" for key, _ in GLOBALID_SCORES[2:]]
    if debug:
        lines += [f"<td>{key}</td>" for key in GLOBALID_EXTRA]
    lines.append("</tr>")
    by_name = sorted(range(len(runs)), key=lambda i: _java_string_key(runs[i].name))
    ordered = sorted(by_name, key=lambda i: _masked(runs[i].values[F_MEASURE], True))
    ordered.reverse()
    for index in ordered:
        entry = runs[index]
        printable = not math.isnan(_number(entry.values[PRECISION]))
        if not debug and not printable:
            continue
        shown = entry.name if code_names is None else code_names[entry.name]
        cells = [_name_cell(entry.name, shown)]
        for key, _largest in GLOBALID_SCORES:
            value = entry.values[key]
            if key in (PRECISION, RECALL):
                value = _percentage(value)
            elif key == F_MEASURE:
                value = _zerofied(value)
            cells.append(_cell(value, index in best[key]))
        if debug:
            cells += [f"<td>{entry.values[key]}</td>" for key in GLOBALID_EXTRA]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines += ["</table>", "</body>", "</html>"]
    return "\n".join(lines) + "\n"
