"""The ReRelEM summary as the official ``.resumo`` text and its JSON twin.

Labels and layout are ``GlobalRelationsEvaluatorM2``'s (docs/spec/rerelem.md,
stage 8); counts print as integers, the rest as Java's ``Double.toString``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from harem_pipeline.measures.rerelem import Block, RerelemFigures
from harem_pipeline.reports.rerelem_official import OFFICIAL_FOLDER, page_name
from harem_pipeline.reports.summary import cell_text, markdown_table, sortable_section
from harem_pipeline.text.numbers import java_double


def _figure(value: float) -> float | str:
    """A JSON figure: the number, or its Java text when it is NaN or infinite."""
    return value if value == value and abs(value) != float("inf") else java_double(value)


def _count_lines(item: Block, correct_label: str) -> list[str]:
    return [
        f"Total na CD: {int(item.gold)}",
        f"Total identificadas: {int(item.identified)}",
        f"{correct_label}: {int(item.correct)}",
        f"Espúrios: {item.spurious}",
        f"Em Falta: {item.missing}",
        f"Precisão: {java_double(item.precision)}",
        f"Abrangência: {java_double(item.recall)}",
        f"Medida F: {java_double(item.f)}",
    ]


def format_summary(veil: str, scenario: str, figures: RerelemFigures) -> list[str]:
    """The 33 lines of a ``.resumo``."""
    score = figures.score
    return [
        "Avaliação do ReRelEM",
        "Descrição do cenário HAREM",
        "\t" + veil,
        "Descrição do cenário ReRelEM",
        "\t" + scenario,
        "",
        "Avaliação de CORELs",
        *_count_lines(figures.corels, "Total correctamente identificados"),
        "",
        "Avaliação de Relações",
        *_count_lines(figures.relations, "Total correctamente identificadas"),
        "",
        "Avaliação Global - ReRelEM",
        f"Pontuação na CD: {java_double(score.gold)}",
        f"Pontuação máxima possível do Sistema: {java_double(score.identified)}",
        f"Pontuação do Sistema: {java_double(score.correct)}",
        f"Precisão: {java_double(score.precision)}",
        f"Abrangência: {java_double(score.recall)}",
        f"Medida F: {java_double(score.f)}",
    ]


def _block_json(item: Block, counts: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if counts:
        out |= {
            "gold": int(item.gold),
            "identified": int(item.identified),
            "correct": int(item.correct),
            "spurious": item.spurious,
            "missing": item.missing,
        }
    else:
        out |= {"gold": item.gold, "maximum_system": item.identified, "system": item.correct}
    out |= {
        "precision": _figure(item.precision),
        "recall": _figure(item.recall),
        "f": _figure(item.f),
    }
    return out


def summary_json(
    veil: str,
    scenario: str,
    figures: RerelemFigures,
    documents: dict[str, Any],
    ci95: Mapping[str, Any] | None = None,
    graph: str | None = None,
) -> dict[str, Any]:
    """The JSON twin of a ``.resumo``: the three blocks, their 95 % document-bootstrap
    intervals (``ci95``, null without a bootstrap), the per-document counts and, in a
    campaign, the file name of the run's relation-graph view (``graph``, a sibling)."""
    return {
        "report": "rerelem",
        "veil": veil,
        "scenario": scenario,
        "corels": _block_json(figures.corels),
        "relations": _block_json(figures.relations),
        "score": _block_json(figures.score, counts=False),
        "ci95": None if ci95 is None else dict(ci95),
        **({"graph": graph} if graph is not None else {}),
        "documents": documents,
    }


# ---------------------------------------------------------------------------
# The campaign summary's and the HTML report's ReRelEM table

RERELEM_COLUMNS = (
    ("run", "Run"),
    ("veil", "Veil"),
    ("scenario", "Scenario"),
    ("gold", "Gold"),
    ("identified", "Run"),
    ("correct", "Correct"),
    ("precision", "Rel P"),
    ("recall", "Rel R"),
    ("f", "Rel F"),
)
_NAMES = ("run", "veil", "scenario")
_FIGURES = ("precision", "recall", "f")
RERELEM_LEGEND = (
    "Rel P, R, F: the ReRelEM relations block (Avaliação de Relações of the .resumo, the "
    "official figure) of each run under each NER veil and relation scenario, ± the "
    "half-width of its 95 % document-bootstrap interval; Gold, Run, Correct: the relations "
    "of the collection, of the run, and those correctly identified. NaN: the scenario has "
    "no relation under the veil."
)
VIEWS_LEGEND = (
    "Views: the official table of the scenario under the veil (GlobalRelationsReporter, "
    "every run) and the run's relation graph under the veil (every document, the golden "
    "relations solid, the run's dashed)."
)


def rerelem_rows(reports: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows from the summary's report entries (those with a ``rerelem`` part):
    the relations block, its intervals (``<figure>_ci95``, None without a bootstrap) and
    the run's relation-graph view (``graph``, a file name in the run's folder)."""
    rows = []
    for report in reports:
        for item in report.get("rerelem") or ():
            resumo = item.get("resumo") or {}
            relations = resumo.get("relations") or {}
            intervals = (resumo.get("ci95") or {}).get("relations") or {}
            rows.append(
                {
                    "run": report["run"],
                    "simulated": bool(report.get("simulated")),
                    "veil": item["veil"],
                    "scenario": item["scenario"],
                    **{key: relations.get(key) for key, _ in RERELEM_COLUMNS[3:]},
                    **{f"{key}_ci95": intervals.get(key) for key in _FIGURES},
                    "graph": resumo.get("graph"),
                }
            )
    return rows


def _half_width(row: Mapping[str, Any], key: str) -> str:
    """`` ± 0.0123`` for a figure with an interval, nothing otherwise."""
    interval = row.get(f"{key}_ci95")
    if not interval or not isinstance(row.get(key), float):
        return ""
    return f" ± {(interval[1] - interval[0]) / 2:.4f}"


def format_rerelem_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summary's ReRelEM section (nothing when the campaign ran no ReRelEM track)."""
    if not rows:
        return ""
    table = [
        [cell_text(row[key]) + _half_width(row, key) for key, _ in RERELEM_COLUMNS] for row in rows
    ]
    lines = markdown_table([label for _, label in RERELEM_COLUMNS], table)
    return "\n".join(["", "## The ReRelEM track (relations)", "", *lines, "", RERELEM_LEGEND, ""])


def _views(row: Mapping[str, Any]) -> str:
    """Links to the official table of the row's scenario and veil and to the run's graph."""
    page = f"{OFFICIAL_FOLDER}/{page_name(row['scenario'], row['veil'])}"
    links = [f'<a href="{escape(quote(page))}">oficial</a>']
    if row.get("graph"):
        graph = f"{quote(row['run'])}/{quote(row['graph'])}"
        links.append(f'<a href="{escape(graph)}">grafo</a>')
    return " · ".join(links)


def render_rerelem_section(summary: Mapping[str, Any]) -> str:
    """The HTML report's ReRelEM section (empty when the summary has no ReRelEM rows)."""
    rows = summary.get("rerelem") or []
    if not rows:
        return ""
    body = []
    for row in rows:
        cells = []
        for key, _ in RERELEM_COLUMNS:
            value = row.get(key)
            shown = escape(cell_text(value))
            mark = (
                ' <span class="sim">simulated</span>'
                if key == "run" and row.get("simulated")
                else ""
            )
            interval = _half_width(row, key)
            if interval:
                mark += f' <span class="ci">{escape(interval.strip())}</span>'
            kind = ' class="name"' if key in _NAMES else ""
            sort = repr(value) if isinstance(value, float) else shown
            cells.append(f'<td{kind} data-value="{escape(sort)}">{shown}{mark}</td>')
        cells.append(f'<td class="name" style="white-space:nowrap">{_views(row)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    columns = (*RERELEM_COLUMNS, ("views", "Views"))
    legend = f"{RERELEM_LEGEND} {VIEWS_LEGEND}"
    return sortable_section(
        "rerelem", "ReRelEM (relações)", columns, {*_NAMES, "views"}, body, legend
    )
