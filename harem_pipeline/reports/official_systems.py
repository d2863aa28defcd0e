"""Per-system reports of the scenario grid, after ``Alcaide.r`` (docs/spec/official-grid.md).

``Alcaide.r`` wrote one page per participant system from the official result
pages: every scenario's table of all runs, strict and relaxed ALT, the
system's runs highlighted, and charts (the precision–recall plane, the runs
ordered by F, F grouped by system, the categories).  Its systems, colours
and scenarios were hard-coded for the 2008 participants; here they come
from the campaign (``pipeline.official.group_systems``), and the charts are
the campaign report's own (``reports.charts``, inline SVG).

The figures are the grid summary's rows (``official/grid.json``): per run,
subset, veil and ALT the Ida's identification P, R, F and the
classification's maximum precision, maximum recall and F.  An undefined
figure (NaN: a run that identified nothing) is a dash in the tables, sorts
last and is left out of the charts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from harem_pipeline.reports import charts

STYLE = (
    "body{font-family:sans-serif;margin:1.5em auto;max-width:75rem;padding:0 1em;"
    "line-height:1.4;color:#222}"
    "h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}"
    "nav ul{display:flex;flex-wrap:wrap;gap:.3em 1em;padding:0;list-style:none}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}"
    "td,th{border:1px solid #ccc;padding:.2em .5em}th{background:#f3f3f3}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "tr.mine{background:#fff3c4;font-weight:bold}"
    "figure{margin:0 0 2rem 0;max-width:60rem}figure svg{width:100%;height:auto;display:block}"
    "figcaption{font-size:.9em;color:#444}"
    ".pair{display:flex;flex-wrap:wrap;gap:0 2em}.pair>div{flex:1 1 30rem;min-width:0}"
)
ALT_LABELS = {"strict": "ALT estrita", "relaxed": "ALT relaxada", "relative": "relativo"}
NUMBER_COLUMNS = (
    ("class_precision", "Class. P máx."),
    ("class_recall", "Class. A máx."),
    ("class_f", "Class. F"),
    ("id_precision", "Id. P"),
    ("id_recall", "Id. A"),
    ("id_f", "Id. F"),
)
OTHERS = "outras saídas"


def _figure(text: str) -> float | None:
    """A report value as a number; None when undefined (NaN)."""
    number = float(text)
    return None if math.isnan(number) else number


def _rank_key(row: Mapping[str, str]) -> tuple[float, str]:
    """Classification F descending (undefined last), then the run's name."""
    value = _figure(row["class_f"])
    return (-value if value is not None else math.inf, row["run"])


def _number_cell(value: float | None) -> str:
    """Four decimals; a dash when undefined."""
    return '<td class="num">—</td>' if value is None else f'<td class="num">{value:.4f}</td>'


def _cell(text: str) -> str:
    return _number_cell(_figure(text))


def _table(rows: Sequence[Mapping[str, str]], mine: set[str]) -> str:
    """All runs of one veil and ALT, ranked by classification F; ``mine`` highlighted."""
    body = "".join(
        f"<tr{' class=' + chr(34) + 'mine' + chr(34) if row['run'] in mine else ''}>"
        f'<td class="num">{rank}</td><td>{escape(row["run"])}</td>'
        + "".join(_cell(row[key]) for key, _ in NUMBER_COLUMNS)
        + "</tr>"
        for rank, row in enumerate(sorted(rows, key=_rank_key), 1)
    )
    head = "".join(f"<th>{escape(label)}</th>" for _, label in NUMBER_COLUMNS)
    return (
        f'<div class="scroll"><table><thead><tr><th>#</th><th>Saída</th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _rows_of(rows: Sequence[Mapping[str, str]], veil: str, alt: str) -> list[Mapping[str, str]]:
    return [row for row in rows if row["veil"] == veil and row["alt"] == alt]


def chart_veil(
    rows: Sequence[Mapping[str, str]], runs: Sequence[str], own: Mapping[str, str]
) -> str | None:
    """The veil the page's charts show: the system's own scenario (the veil its first run's
    ``veil:`` names), else ``total``, else the first veil of the grid."""
    veils = list(dict.fromkeys(row["veil"] for row in rows))
    if not veils:
        return None
    for run in runs:
        if own.get(run) in veils:
            return own[run]
    return "total" if "total" in veils else veils[0]


def precision_recall_points(
    rows: Sequence[Mapping[str, str]], veil: str, mine: set[str], system: str
) -> dict[str, dict[str, tuple[float | None, float | None]]]:
    """The classification's (maximum precision, maximum recall) under ``veil``, one family
    (marker shape) per ALT and side: the system's runs, the others."""
    points: dict[str, dict[str, tuple[float | None, float | None]]] = {}
    for alt in ("strict", "relaxed"):
        for side in (system, OTHERS):
            points[f"{side}, {ALT_LABELS[alt]}"] = {
                row["run"]: (_figure(row["class_precision"]), _figure(row["class_recall"]))
                for row in _rows_of(rows, veil, alt)
                if (row["run"] in mine) == (side == system)
            }
    return {family: by_run for family, by_run in points.items() if by_run}


def runs_by_f(
    rows: Sequence[Mapping[str, str]], veil: str, mine: set[str], system: str
) -> tuple[list[str], dict[str, list[float | None]]]:
    """The runs ordered by strict classification F under ``veil`` and the F of each, strict
    and relaxed, split into the system's series and the others' (the highlight)."""
    strict = {row["run"]: row for row in _rows_of(rows, veil, "strict")}
    relaxed = {row["run"]: _figure(row["class_f"]) for row in _rows_of(rows, veil, "relaxed")}
    ordered = [row["run"] for row in sorted(strict.values(), key=_rank_key)]
    series: dict[str, list[float | None]] = {}
    for side in (system, OTHERS):
        ours = side == system
        for alt, figures in (
            ("strict", {run: _figure(row["class_f"]) for run, row in strict.items()}),
            ("relaxed", relaxed),
        ):
            values = [figures.get(run) if (run in mine) == ours else None for run in ordered]
            if any(value is not None for value in values):
                series[f"{side}, {ALT_LABELS[alt]}"] = values
    return ordered, series


def best_by_system(
    rows: Sequence[Mapping[str, str]], veil: str, systems: Mapping[str, Sequence[str]]
) -> dict[str, list[float | None]]:
    """Per ALT, each system's best classification F under ``veil`` (None: none defined)."""
    series: dict[str, list[float | None]] = {}
    for alt in ("strict", "relaxed"):
        figures = {row["run"]: _figure(row["class_f"]) for row in _rows_of(rows, veil, alt)}
        best = []
        for runs in systems.values():
            defined = [f for f in (figures.get(run) for run in runs) if f is not None]
            best.append(max(defined) if defined else None)
        if any(value is not None for value in best):
            series[ALT_LABELS[alt]] = best
    return series


def per_category(
    rows: Sequence[Mapping[str, str]], categories: Sequence[str], runs: Sequence[str]
) -> dict[str, list[float | None]]:
    """Strict classification F under each category veil: one series per run of the system
    and the best of the other runs."""
    mine = set(runs)
    series: dict[str, list[float | None]] = {run: [] for run in runs}
    series[f"melhor das {OTHERS}"] = []
    for veil in categories:
        figures = {row["run"]: _figure(row["class_f"]) for row in _rows_of(rows, veil, "strict")}
        for run in runs:
            series[run].append(figures.get(run))
        others = [f for run, f in figures.items() if run not in mine and f is not None]
        series[f"melhor das {OTHERS}"].append(max(others) if others else None)
    return {name: values for name, values in series.items() if any(v is not None for v in values)}


def _chart(chart_id: str, title: str, svg: str, caption: str) -> str:
    return (
        f'<figure id="{chart_id}"><h3>{escape(title)}</h3>{svg}'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def system_charts(
    system: str,
    runs: Sequence[str],
    rows: Sequence[Mapping[str, str]],
    systems: Mapping[str, Sequence[str]],
    veil: str,
    categories: Sequence[str],
) -> list[str]:
    """The page's charts (``rows`` of one subset): precision–recall plane, runs by F and
    systems by F under ``veil``, and the categories."""
    mine = set(runs)
    blocks = []
    points = precision_recall_points(rows, veil, mine, system)
    if points:
        svg, recall_range, precision_range = charts.precision_recall("", points)
        blocks.append(
            _chart(
                "grafico-precisao-abrangencia",
                f"Classificação: precisão máxima contra abrangência máxima, véu {veil}",
                svg,
                f"Uma marca por saída e ALT; as formas separam as saídas de {system} das "
                f"{OTHERS}; {charts.describe_range('horizontal', recall_range)}, "
                f"{charts.describe_range('vertical', precision_range)}.",
            )
        )
    ordered, series = runs_by_f(rows, veil, mine, system)
    if series:
        svg, bounds = charts.grouped_points(ordered, series, legend_title="saídas e ALT")
        blocks.append(
            _chart(
                "grafico-saidas-por-f",
                f"Saídas por medida F da classificação, véu {veil}",
                svg,
                f"Por ordem da medida F com ALT estrita; as cores separam as saídas de "
                f"{system}; {charts.describe_range('vertical', bounds)}.",
            )
        )
    best = best_by_system(rows, veil, systems)
    if best and len(systems) > 1:
        svg, bounds = charts.grouped_points(list(systems), best, legend_title="ALT")
        blocks.append(
            _chart(
                "grafico-sistemas",
                f"Melhor medida F da classificação por sistema, véu {veil}",
                svg,
                f"A melhor saída de cada sistema; {charts.describe_range('vertical', bounds)}.",
            )
        )
    by_category = per_category(rows, categories, runs)
    if by_category and categories:
        svg, bounds = charts.grouped_points(list(categories), by_category, legend_title="saída")
        blocks.append(
            _chart(
                "grafico-categorias",
                "Medida F da classificação por categoria (ALT estrita)",
                svg,
                f"Um véu por categoria (Ncat = 1): as saídas de {system} e a melhor das "
                f"{OTHERS}; {charts.describe_range('vertical', bounds)}.",
            )
        )
    return blocks


def _category_table(
    rows: Sequence[Mapping[str, str]], categories: Sequence[str], runs: Sequence[str]
) -> str:
    """The categories' strict classification F: the system's runs and the best other run."""
    series = per_category(rows, categories, runs)
    if not series:
        return ""
    head = "".join(f"<th>{escape(name)}</th>" for name in series)
    body = "".join(
        f"<tr><td>{escape(veil)}</td>"
        + "".join(_number_cell(values[i]) for values in series.values())
        + "</tr>"
        for i, veil in enumerate(categories)
    )
    return (
        '<h2 id="categorias">Por categoria</h2>'
        "<p>Medida F da classificação com ALT estrita, um véu por categoria.</p>"
        f'<div class="scroll"><table><thead><tr><th>Véu</th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def render_system_page(
    system: str,
    runs: Sequence[str],
    rows: Sequence[Mapping[str, str]],
    subset: str,
    *,
    own: Mapping[str, str] | None = None,
    categories: Sequence[str] = (),
    charts: Sequence[str] = (),
) -> str:
    """The page of ``system`` (its ``runs`` highlighted) over the grid rows of ``subset``.

    ``own``: each run's own scenario (the veil its ``veil:`` names), shown in
    the heading; ``categories``: the one-category veils, for the category
    table; ``charts``: the figures of :func:`system_charts`.
    """
    own = own or {}
    mine = set(runs)
    shown = [row for row in rows if row["subset"] == subset]
    veils = list(dict.fromkeys(row["veil"] for row in shown))
    sections = []
    for veil in veils:
        parts = []
        for alt in ("strict", "relaxed", "relative"):
            part = _rows_of(shown, veil, alt)
            if part:
                parts.append(f"<div><h3>{escape(ALT_LABELS[alt])}</h3>{_table(part, mine)}</div>")
        sections.append(
            f'<h2 id="veu-{escape(veil)}">Véu {escape(veil)}</h2><div class="pair">'
            f"{''.join(parts)}</div>"
        )
    listed = ", ".join(
        escape(run) + (f" (cenário próprio: {escape(own[run])})" if run in own else "")
        for run in runs
    )
    nav = "".join(f'<li><a href="#veu-{escape(v)}">{escape(v)}</a></li>' for v in veils)
    if categories:
        nav += '<li><a href="#categorias">por categoria</a></li>'
    figures = f'<h2 id="graficos">Gráficos</h2>{"".join(charts)}' if charts else ""
    return (
        '<!DOCTYPE html><html lang="pt"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Relatório de {escape(system)}</title><style>{STYLE}</style></head><body>"
        f"<h1>Relatório de {escape(system)}</h1>"
        f"<p>Saídas: {listed}, realçadas entre todas as da campanha; subconjunto "
        f'{escape(subset)}. <a href="../index.html">Todos os sistemas</a></p>'
        f"<nav><ul>{nav}</ul></nav>{figures}{''.join(sections)}"
        f"{_category_table(shown, categories, runs)}</body></html>\n"
    )


def render_index(
    systems: Mapping[str, Sequence[str]],
    links: Mapping[str, str],
    rows: Sequence[Mapping[str, str]] = (),
    veil: str | None = None,
) -> str:
    """The index: one row per system (its page, its runs, its best strict classification F
    under ``veil``); ``links``: system → page path relative to the index."""
    best: dict[str, float | None] = {}
    if veil is not None:
        strict = best_by_system(rows, veil, systems).get(ALT_LABELS["strict"], [])
        best = dict(zip(systems, strict, strict=False))
    head = "<th>Sistema</th><th>Saídas</th>" + (
        f"<th>Melhor Class. F ({escape(veil)}, ALT estrita)</th>" if veil else ""
    )
    body = "".join(
        f'<tr><td><a href="{escape(links[system])}">{escape(system)}</a></td>'
        f"<td>{escape(', '.join(runs))}</td>"
        + (_number_cell(best.get(system)) if veil else "")
        + "</tr>"
        for system, runs in systems.items()
    )
    return (
        '<!DOCTYPE html><html lang="pt"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Relatórios por sistema</title><style>{STYLE}</style></head><body>"
        "<h1>Relatórios por sistema</h1>"
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        "</table></div></body></html>\n"
    )
