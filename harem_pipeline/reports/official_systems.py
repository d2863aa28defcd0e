"""Per-system reports of the scenario grid, after ``Alcaide.r`` (docs/spec/official-grid.md).

One page per system: every veil's table of all runs, strict and relaxed ALT,
the system's runs highlighted; the precision–recall plane of the
classification under the first veil (when charts are drawn); an index links
the pages.  The figures are the grid summary's rows (``official/grid.json``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:.2em .5em}td.num{text-align:right}"
    "tr.mine{background:#fff3c4;font-weight:bold}"
)
ALT_LABELS = {"strict": "ALT estrita", "relaxed": "ALT relaxada", "relative": "relativo"}


def _value(text: str) -> float:
    number = float(text)
    return -1.0 if math.isnan(number) else number


def _cell(text: str) -> str:
    number = float(text)
    return '<td class="num">—</td>' if math.isnan(number) else f'<td class="num">{number:.4f}</td>'


def _table(rows: Sequence[Mapping[str, str]], mine: set[str]) -> str:
    ranked = sorted(rows, key=lambda r: (-_value(r["class_f"]), r["run"]))
    body = "".join(
        f"<tr{' class=' + chr(34) + 'mine' + chr(34) if row['run'] in mine else ''}>"
        f"<td>{escape(row['run'])}</td>"
        + "".join(
            _cell(row[key])
            for key in (
                "class_precision",
                "class_recall",
                "class_f",
                "id_precision",
                "id_recall",
                "id_f",
            )
        )
        + "</tr>"
        for row in ranked
    )
    return (
        "<table><thead><tr><th>Saída</th><th>Class. P máx.</th><th>Class. A máx.</th>"
        "<th>Class. F</th><th>Id. P</th><th>Id. A</th><th>Id. F</th></tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )


def render_system_page(
    system: str,
    runs: Sequence[str],
    rows: Sequence[Mapping[str, str]],
    subset: str,
    chart: str = "",
) -> str:
    """The page of ``system`` (its ``runs`` highlighted) over the grid rows of ``subset``."""
    mine = set(runs)
    shown = [row for row in rows if row["subset"] == subset]
    veils = list(dict.fromkeys(row["veil"] for row in shown))
    sections = []
    for veil in veils:
        tables = []
        for alt in ("strict", "relaxed", "relative"):
            part = [row for row in shown if row["veil"] == veil and row["alt"] == alt]
            if part:
                tables.append(f"<h3>{escape(ALT_LABELS[alt])}</h3>{_table(part, mine)}")
        sections.append(f"<h2>Véu {escape(veil)}</h2>{''.join(tables)}")
    listed = ", ".join(escape(run) for run in runs)
    return (
        '<!DOCTYPE html><html lang="pt"><head><meta charset="utf-8">'
        f"<title>Relatório de {escape(system)}</title><style>{STYLE}</style></head><body>"
        f"<h1>Relatório de {escape(system)}</h1>"
        f"<p>Saídas: {listed} (realçadas); subconjunto {escape(subset)}. "
        '<a href="../index.html">Todos os sistemas</a></p>'
        f"{chart}{''.join(sections)}</body></html>\n"
    )


def precision_recall_points(
    rows: Sequence[Mapping[str, str]], subset: str, veil: str
) -> dict[str, dict[str, tuple[float | None, float | None]]]:
    """The classification's (maximum precision, maximum recall) per ALT and run, for the chart."""
    points: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    for row in rows:
        if row["subset"] == subset and row["veil"] == veil:
            p, r = float(row["class_precision"]), float(row["class_recall"])
            points.setdefault(ALT_LABELS[row["alt"]], {})[row["run"]] = (
                None if math.isnan(p) else p,
                None if math.isnan(r) else r,
            )
    return points


def render_index(systems: Mapping[str, str]) -> str:
    """The index: one link per system (``systems``: name → page path relative to the index)."""
    links = "".join(
        f'<li><a href="{escape(path)}">{escape(name)}</a></li>' for name, path in systems.items()
    )
    return (
        '<!DOCTYPE html><html lang="pt"><head><meta charset="utf-8">'
        f"<title>Relatórios por sistema</title><style>{STYLE}</style></head><body>"
        f"<h1>Relatórios por sistema</h1><ul>{links}</ul></body></html>\n"
    )
