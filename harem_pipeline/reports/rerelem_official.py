"""The official ReRelEM result table (``GlobalRelationsReporter -depurar``).

``Avaliacao.sh rerelem`` published, per relation scenario and NER veil, one
page of every run's ``.resumo``, printed by ``GlobalRelationsReporter
-depurar`` (docs/spec/rerelem.md, "table").  This module renders that page
from the summaries' text so that it is byte-equal to the Java's output after
its timestamp line:

* each ``.resumo`` read as the Java reads it: a ``Label: value`` line (one
  ``": "`` in it) belongs to the last of the three block titles above it,
  its label trimmed, a later line of a label replacing an earlier one;
* one table, *Avaliação de Relações* (with ``-desaconselhadas`` also the
  CORELs and the ReRelEM score tables), rows sorted by Medida F descending
  through a stable ascending sort then a reversal, the runs sorted by name
  first (ties come in reverse name order); NaN sorts as the smallest
  positive double;
* the best Precisão, Abrangência and Medida F of each table marked green on
  every row whose value string equals the best one, chosen among all runs;
* every cell the value string with NaN as ``0.0`` and the first ``.`` as
  ``,``; a run whose CORELs Precisão is NaN (no system relation) has no row.

The sorting, marking and cell rules are the semantic pages' (``reports.official``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from harem_pipeline.errors import InputError
from harem_pipeline.reports.official import (
    _best,
    _cell,
    _comma,
    _java_string_key,
    _masked,
    _name_cell,
    _zerofied,
    check_numbers,
    page_header,
)

FILTER1 = "Descrição do cenário HAREM"
FILTER2 = "Descrição do cenário ReRelEM"
CORELS = "Avaliação de CORELs"
RELATIONS = "Avaliação de Relações"
SCORE = "Avaliação Global - ReRelEM"

PRECISION = "Precisão"
RECALL = "Abrangência"
F_MEASURE = "Medida F"
SCORED = (PRECISION, RECALL, F_MEASURE)

COUNT_COLUMNS = ("Espúrios", "Em Falta", "Total na CD", "Total identificadas")
EXTRA_COLUMNS = {
    CORELS: (*COUNT_COLUMNS, "Total correctamente identificados"),
    RELATIONS: (*COUNT_COLUMNS, "Total correctamente identificadas"),
    SCORE: (
        "Pontuação na CD",
        "Pontuação máxima possível do Sistema",
        "Pontuação do Sistema",
    ),
}
"""The ``-depurar`` columns of each table (``GlobalRelationsReporter.writeTable``)."""

OFFICIAL_FOLDER = "official"
"""Where a campaign writes the official pages (``pipeline.official.OFFICIAL_FOLDER``)."""


def page_name(scenario: str, veil: str) -> str:
    """The official page of a relation scenario under a NER veil (``Avaliacao.sh``'s name)."""
    return f"resultados_ReRelEM_{scenario}_{veil}.html"


_JAVA_SPACE = "".join(chr(code) for code in range(33))
"""What Java's ``String.trim`` removes: every character up to the space."""


@dataclass(frozen=True, slots=True)
class RelationsEntry:
    """One run's ``.resumo``: the three blocks' value strings by label, as written."""

    name: str
    blocks: Mapping[str, Mapping[str, str]]

    @property
    def printable(self) -> bool:
        """The Java prints no row for a run whose CORELs Precisão is NaN."""
        return not math.isnan(float(self.blocks[CORELS][PRECISION]))


def _fields(line: str) -> list[str]:
    """Java's ``line.split(": ")``: trailing empty strings dropped."""
    parts = line.split(": ")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def parse_relations_entry(
    name: str, lines: Iterable[str], path: str | None = None, deprecated: bool = False
) -> RelationsEntry:
    """Read a ``.resumo``'s lines as ``GlobalRelationsReporter.createReport`` does.

    The scenario lines (``\\t#…`` after the two descriptions) are skipped,
    and so is the line after the HAREM description when it is not one;
    every value a table shows (and the CORELs Precisão, which decides
    whether the run has a row) must be there and be a number, or the
    file is an InputError (the Java printed a stack trace and a cut page).
    """
    blocks: dict[str, dict[str, str]] = {CORELS: {}, RELATIONS: {}, SCORE: {}}
    state: str | int = -1  # -1 before, 0 / 1 in the scenario descriptions, then a title
    for line in lines:
        if line.startswith(FILTER1):
            state = 0
        elif line.startswith(FILTER2):
            state = 1
        elif state in (0, 1) and line.startswith("\t#"):
            continue
        elif state == 0:
            state = 1
        elif line in blocks:
            state = line
        elif isinstance(state, str) and len(fields := _fields(line)) == 2:
            blocks[state][fields[0].strip(_JAVA_SPACE)] = fields[1]
    needed = {CORELS: {PRECISION}, RELATIONS: set(SCORED) | set(EXTRA_COLUMNS[RELATIONS])}
    if deprecated:
        needed[CORELS] |= set(SCORED) | set(EXTRA_COLUMNS[CORELS])
        needed[SCORE] = set(SCORED) | set(EXTRA_COLUMNS[SCORE])
    for title, keys in needed.items():
        check_numbers(blocks[title], sorted(keys), title, path)
    return RelationsEntry(name, blocks)


def _table(entries: Sequence[RelationsEntry], title: str) -> list[str]:
    """``writeTable`` of one block, ``-depurar`` layout."""
    best = {
        key: _best([entry.blocks[title][key] for entry in entries], True, nan_small=True)
        for key in SCORED
    }
    lines = [
        "<br>",
        "<br>",
        "<table border>",
        "<tr>",
        f"<tr> <TH COLSPAN=10>{title}</TH> </tr>",
        "<td>Saida</td>",
        f"<td>{PRECISION} </td>",
        f"<td>{RECALL} </td>",
        f"<td>{F_MEASURE}</td>",
        *(f"<td>{key}</td>" for key in EXTRA_COLUMNS[title]),
        "</tr>",
    ]
    by_name = sorted(range(len(entries)), key=lambda i: _java_string_key(entries[i].name))
    by_name.sort(key=lambda i: _java_string_key(entries[i].name.rsplit("/", 1)[-1]))
    ordered = sorted(by_name, key=lambda i: _masked(entries[i].blocks[title][F_MEASURE], True))
    ordered.reverse()
    for index in ordered:
        entry = entries[index]
        if not entry.printable:
            continue
        values = entry.blocks[title]
        cells = [_name_cell(entry.name, entry.name)]
        cells += [_cell(_comma(_zerofied(values[key])), index in best[key]) for key in SCORED]
        cells += [f"<td>{_comma(_zerofied(values[key]))}</td>" for key in EXTRA_COLUMNS[title]]
        lines.append("<tr>" + "".join(cells) + "</tr>")
    lines.append("</table>")
    return lines


def render_relations_page(
    entries: Sequence[RelationsEntry],
    filters: Sequence[str],
    generated: datetime,
    deprecated: bool = False,
) -> str:
    """The page ``GlobalRelationsReporter -depurar [-desaconselhadas]`` prints.

    ``filters`` are the ``-filtro`` suffixes its title lists; ``deprecated``
    adds the CORELs and ReRelEM score tables.  Lines end in ``\\n``; encode
    as ISO-8859-1.  Runs named alike tie in the order given (the Java's is
    random: it shuffles them first).
    """
    runs = list(entries)
    if not runs:
        raise InputError(None, "at least one run's .resumo for the ReRelEM table", "none")
    lines = page_header(filters, generated)
    for title in (RELATIONS, CORELS, SCORE) if deprecated else (RELATIONS,):
        lines += _table(runs, title)
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"
