"""The ReRelEM summary as the official ``.resumo`` text and its JSON twin.

Labels and layout are ``GlobalRelationsEvaluatorM2``'s (docs/spec/rerelem.md,
stage 8); counts print as integers, the rest as Java's ``Double.toString``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from harem_pipeline.measures.rerelem import Block, RerelemFigures
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
    veil: str, scenario: str, figures: RerelemFigures, documents: dict[str, Any]
) -> dict[str, Any]:
    """The JSON twin of a ``.resumo``: the three blocks and the per-document counts."""
    return {
        "report": "rerelem",
        "veil": veil,
        "scenario": scenario,
        "corels": _block_json(figures.corels),
        "relations": _block_json(figures.relations),
        "score": _block_json(figures.score, counts=False),
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
RERELEM_LEGEND = (
    "Rel P, R, F: the ReRelEM relations block (Avaliação de Relações of the .resumo, the "
    "official figure) of each run under each NER veil and relation scenario; Gold, Run, "
    "Correct: the relations of the collection, of the run, and those correctly identified. "
    "NaN: the scenario has no relation under the veil."
)


def rerelem_rows(reports: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows from the summary's report entries (those with a ``rerelem`` part)."""
    rows = []
    for report in reports:
        for item in report.get("rerelem") or ():
            relations = (item.get("resumo") or {}).get("relations") or {}
            rows.append(
                {
                    "run": report["run"],
                    "simulated": bool(report.get("simulated")),
                    "veil": item["veil"],
                    "scenario": item["scenario"],
                    **{key: relations.get(key) for key, _ in RERELEM_COLUMNS[3:]},
                }
            )
    return rows


def _text(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def format_rerelem_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summary's ReRelEM section (nothing when the campaign ran no ReRelEM track)."""
    if not rows:
        return ""
    lines = ["", "## The ReRelEM track (relations)", ""]
    lines.append("| " + " | ".join(label for _, label in RERELEM_COLUMNS) + " |")
    lines.append("|" + "---|" * len(RERELEM_COLUMNS))
    for row in rows:
        cells = [_text(row[key]) for key, _ in RERELEM_COLUMNS]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join([*lines, "", RERELEM_LEGEND, ""])


def render_rerelem_section(summary: Mapping[str, Any]) -> str:
    """The HTML report's ReRelEM section (empty when the summary has no ReRelEM rows)."""
    rows = summary.get("rerelem") or []
    if not rows:
        return ""
    head = "".join(
        f'<th class="name">{escape(label)}</th>' if key in _NAMES else f"<th>{escape(label)}</th>"
        for key, label in RERELEM_COLUMNS
    )
    body = []
    for row in rows:
        cells = []
        for key, _ in RERELEM_COLUMNS:
            shown = escape(_text(row.get(key)))
            mark = (
                ' <span class="sim">simulated</span>'
                if key == "run" and row.get("simulated")
                else ""
            )
            kind = ' class="name"' if key in _NAMES else ""
            cells.append(f'<td{kind} data-value="{shown}">{shown}{mark}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<section id="rerelem"><h2>ReRelEM (relações)</h2>'
        f'<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        f'<p class="muted">{escape(RERELEM_LEGEND)}</p></section>'
    )
