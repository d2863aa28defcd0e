"""The campaign report: one self-contained HTML page.

Built from the campaign summary data (``summary.json``: every report's JSON
twin), never from text reports.  Everything is inline — CSS, the sorting
script and the charts (SVG from ``reports.charts``) — so the file can be
mailed or archived and opens without any network.  Every table shows the
signature of the numbers in it, and simulated runs are labelled as such.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from harem_pipeline import __version__
from harem_pipeline.reports import charts
from harem_pipeline.reports.summary import check_campaign_summary, dig
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.text.textio import read_json_object

FIELDS = (("genero", "Género"), ("numero", "Número"), ("combinada", "Combinada"))
OUTCOME_KEYS = (
    ("correcto", "Correcto"),
    ("parcialmente_correcto", "Parcialmente Correcto"),
    ("incorrecto", "Incorrecto"),
    ("em_falta", "Em Falta"),
    ("espurio", "Espúrio"),
    ("sobre_especificado", "Sobre especificado"),
    ("parcialmente_sobre_especificado", "Parcialmente sobre especificado"),
)
SPAN_MEASURES = (("exact", "Exacta"), ("overlap", "Sobreposição"), ("intersection", "Intersecção"))

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;padding:0 1rem;color:#222;max-width:80rem}
h1{margin-bottom:.2rem} .muted{color:#666;font-size:.9rem}
.note{background:#fff8e1;border-left:4px solid #f9a825;padding:.5rem 1rem}
.note.incomplete{background:#ffebee;border-left-color:#c62828;font-weight:bold}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0 1rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:right}
th{background:#f3f3f3} td.name,th.name{text-align:left}
table.sortable th{cursor:pointer} table.sortable th:after{content:" \\2195";color:#aaa}
code.sig{font-size:.75rem;color:#555;word-break:break-all}
.charts figure{margin:0 0 1.5rem 0;width:100%}
.charts svg{width:100%;height:auto;display:block}
.charts figcaption{font-size:.9rem;color:#444;margin-top:.25rem}
.sim{color:#8d6e00;font-weight:normal;font-size:.8rem}
"""

SORT_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var ascending = th.getAttribute('data-order') !== 'asc';
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute('data-value');
        var y = b.cells[column].getAttribute('data-value');
        var nx = parseFloat(x), ny = parseFloat(y);
        var result = (isNaN(nx) || isNaN(ny)) ? String(x).localeCompare(String(y)) : nx - ny;
        return ascending ? result : -result;
      });
      rows.forEach(function (row) { body.appendChild(row); });
      th.setAttribute('data-order', ascending ? 'asc' : 'desc');
    });
  });
});
"""


def _number(value: float | None, interval: Sequence[float] | None = None) -> str:
    """``0.7036 ± 0.0123`` (half-width of the 95 % interval), ``-`` when undefined."""
    if value is None:
        return "-"
    text = f"{value:.4f}"
    if interval:
        text += f" ± {(interval[1] - interval[0]) / 2:.4f}"
    return text


def _cell(value: float | None, interval: Sequence[float] | None = None) -> str:
    sort_value = "" if value is None else repr(value)
    return f'<td data-value="{sort_value}">{escape(_number(value, interval))}</td>'


def _headline(report: Mapping[str, Any]) -> dict[str, Any]:
    """The leaderboard figures of one report entry, with their intervals."""
    ident = report.get("identification") or {}
    morph = dig(report, "morphology", "fields", "combinada") or {}
    spans = dig(ident, "measures", "labelled") or {}
    strict = report.get("classification") or {}
    relaxed = report.get("relaxed") or {}
    return {
        "class_f": (
            dig(strict, "classificacao", "medida_f"),
            dig(strict, "ci95", "classificacao", "medida_f"),
        ),
        "class_f_relaxed": (
            dig(relaxed, "classificacao", "medida_f"),
            dig(relaxed, "ci95", "classificacao", "medida_f"),
        ),
        "id_f_official": (
            dig(strict, "identificacao", "medida_f"),
            dig(strict, "ci95", "identificacao", "medida_f"),
        ),
        "id_p": (ident.get("precisao"), dig(ident, "ci95", "precisao")),
        "id_r": (ident.get("abrangencia"), dig(ident, "ci95", "abrangencia")),
        "id_f": (ident.get("medida_f"), dig(ident, "ci95", "medida_f")),
        "exact": (dig(spans, "exact", "f1"), dig(spans, "exact", "ci95", "f1")),
        "overlap": (dig(spans, "overlap", "f1"), dig(spans, "overlap", "ci95", "f1")),
        "intersection": (
            dig(spans, "intersection", "f1"),
            dig(spans, "intersection", "ci95", "f1"),
        ),
        "morf_p": (morph.get("precisao"), dig(morph, "ci95", "precisao")),
        "morf_r": (morph.get("abrangencia"), dig(morph, "ci95", "abrangencia")),
        "morf_f": (morph.get("medida_f"), dig(morph, "ci95", "medida_f")),
    }


LEADERBOARD_COLUMNS = (
    ("class_f", "Classificação F (ALT estrito)"),
    ("class_f_relaxed", "Classificação F (ALT relaxado)"),
    ("id_f_official", "Identificação F (Ida)"),
    ("id_p", "Id. Precisão"),
    ("id_r", "Id. Abrangência"),
    ("id_f", "Id. Medida F"),
    ("exact", "F exacta"),
    ("overlap", "F sobreposição"),
    ("intersection", "F intersecção"),
    ("morf_p", "Morf. Precisão"),
    ("morf_r", "Morf. Abrangência"),
    ("morf_f", "Morf. Medida F"),
)


def _leaderboard_entries(reports: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """One entry per run: subset ``total`` and the absolute scenario when present."""
    best: dict[str, Mapping[str, Any]] = {}
    for report in reports:
        run = report["run"]
        rank = (report.get("subset") == "total", report.get("scenario") == "absolute")
        current = best.get(run)
        if current is None or rank > (
            current.get("subset") == "total",
            current.get("scenario") == "absolute",
        ):
            best[run] = report

    def rank(report: Mapping[str, Any]) -> tuple[float, float, str]:
        """The official classification F first (HAREM's ranking), then identification."""
        classification = dig(report, "classification", "classificacao", "medida_f")
        identification = dig(report, "identification", "medida_f")
        return (
            -(classification if classification is not None else -1.0),
            -(identification if identification is not None else -1.0),
            report["run"],
        )

    return sorted(best.values(), key=rank)


def _run_label(report: Mapping[str, Any]) -> str:
    label = escape(report["run"])
    if report.get("simulated"):
        label += ' <span class="sim">(simulated)</span>'
    return label


def render_leaderboard(reports: Sequence[Mapping[str, Any]]) -> str:
    entries = _leaderboard_entries(reports)
    head = '<th class="name">Run</th><th class="name">Subset</th><th class="name">Scenario</th>'
    head += "".join(f"<th>{escape(label)}</th>" for _, label in LEADERBOARD_COLUMNS)
    rows = []
    for report in entries:
        figures = _headline(report)
        cells = "".join(_cell(*figures[key]) for key, _ in LEADERBOARD_COLUMNS)
        rows.append(
            f'<tr><td class="name" data-value="{escape(report["run"])}">{_run_label(report)}</td>'
            f'<td class="name">{escape(str(report.get("subset")))}</td>'
            f'<td class="name">{escape(str(report.get("scenario")))}</td>{cells}</tr>'
        )
    signatures = "".join(
        f'<li><code class="sig">{escape(str(_signature(r)))}</code></li>' for r in entries
    )
    return (
        '<div class="scroll"><table id="leaderboard" class="sortable"><thead><tr>'
        + head
        + "</tr></thead><tbody>"
        + "".join(rows)
        + f'</tbody></table></div><p class="muted">Signatures:</p><ul>{signatures}</ul>'
    )


def _signature(report: Mapping[str, Any]) -> str:
    return (
        dig(report, "morphology", "signature") or dig(report, "identification", "signature") or ""
    )


def render_categories(semantic: Mapping[str, Any] | None) -> str:
    """The per-category table of an Ida report (the Sultão tables): P, R, F of both blocks."""
    categories = (semantic or {}).get("por_categoria") or {}
    if not categories:
        return ""
    head = (
        '<tr><th class="name">Categoria</th><th>Id. Precisão</th><th>Id. Abrangência</th>'
        "<th>Id. Medida F</th><th>Class. Precisão</th><th>Class. Abrangência</th>"
        "<th>Class. Medida F</th></tr>"
    )
    rows = [head]
    for category, blocks in categories.items():
        cells = "".join(
            _cell(dig(blocks, block, key), None)
            for block in ("identificacao", "classificacao")
            for key in ("precisao", "abrangencia", "medida_f")
        )
        rows.append(f'<tr><td class="name">{escape(category)}</td>{cells}</tr>')
    return f'<div class="scroll"><table class="categories">{"".join(rows)}</table></div>'


def render_run_tables(report: Mapping[str, Any], collection_morphology: bool = True) -> str:
    """Every measure of one run × subset × scenario, with the table's signature.

    Without ``collection_morphology`` (a collection with no MORF, said once at the top
    of the page) the table has no morphology rows at all.
    """
    ident = report.get("identification") or {}
    rows = [
        '<tr><th class="name">Medida</th><th>Precisão</th><th>Abrangência</th>'
        "<th>Medida F</th></tr>"
    ]

    def add(name: str, data: Mapping[str, Any] | None, p: str, r: str, f: str) -> None:
        data = data or {}
        ci = data.get("ci95") or {}
        rows.append(
            f'<tr><td class="name">{escape(name)}</td>'
            + _cell(data.get(p), ci.get(p))
            + _cell(data.get(r), ci.get(r))
            + _cell(data.get(f), ci.get(f))
            + "</tr>"
        )

    for key, name in (("classification", "estrito"), ("relaxed", "relaxado")):
        semantic = report.get(key) or {}
        blocks = (("identificacao", "Identificação"), ("classificacao", "Classificação"))
        for block, label in blocks:
            data = dict(semantic.get(block) or {})
            data["ci95"] = dig(semantic, "ci95", block)
            if semantic:
                add(f"{label} (Ida, ALT {name})", data, "precisao", "abrangencia", "medida_f")
    add("Identificação (HAREM)", ident, "precisao", "abrangencia", "medida_f")
    labelled = dig(ident, "measures", "labelled") or {}
    for key, name in SPAN_MEASURES:
        add(f"Identificação, medida {name}", labelled.get(key), "precision", "recall", "f1")
    morphology = report.get("morphology")
    if morphology:
        for key, name in FIELDS:
            add(
                f"Morfologia: {name}",
                dig(morphology, "fields", key),
                "precisao",
                "abrangencia",
                "medida_f",
            )
    elif collection_morphology:
        rows.append(
            '<tr><td class="name" colspan="4">Morfologia: o sistema não classificou '
            "morfologicamente nenhuma EM (no morphology report)</td></tr>"
        )
    scenario = report.get("scenario")
    title = f"{report.get('subset')} — {scenario}" if scenario else str(report.get("subset"))
    return (
        f'<h4>{escape(title)}</h4><div class="scroll"><table>{"".join(rows)}</table></div>'
        + render_categories(report.get("classification"))
        + f'<p class="muted">Signature: <code class="sig">{escape(_signature(report))}</code></p>'
    )


SCENARIO_NAMES = {"absolute": "absoluto", "relative": "relativo"}
LEGEND = (
    "Classificação F (ALT estrito / relaxado): the semantic classification F (CSC) of the "
    "official Ida reports .emir.ida / .emir.altrel.ida (relative rows: .emir_relativo.ida), "
    "what HAREM ranked systems by; Identificação F (Ida): the identification F of the same "
    ".emir.ida, the figure the official tables show. "
    "Id. Precisão, Abrangência, Medida F: Ida2ID's identification measures with partial "
    "credit (a partly identified entity counts for its share of the tokens), in the "
    "campaign's style; not the figures the official HAREM result tables show. "
    "F exacta, sobreposição, intersecção: the labelled span measures of the same documents. "
    "Morf.: Ida2Mor's combined (gender and number) field."
)


def _where(subset: str | None, scenario: str | None) -> str:
    """``subconjunto total, cenário absoluto`` (the scenario left out when there is none)."""
    parts = [f"subconjunto {subset}"] if subset else []
    if scenario:
        parts.append(f"cenário {SCENARIO_NAMES.get(scenario, scenario)}")
    return ", ".join(parts)


def render_charts(reports: Sequence[Mapping[str, Any]], morphology: bool = True) -> str:
    """F per run and subset, outcome distributions per field, precision against recall.

    Each chart's title and caption say which subset(s) and scenario it shows;
    without ``morphology`` only the identification charts are drawn.
    """
    if not reports:
        return ""
    subsets = list(dict.fromkeys(str(r.get("subset")) for r in reports))
    runs = sorted({r["run"] for r in reports})
    absolute = [r for r in reports if r.get("scenario") in ("absolute", None)] or list(reports)
    shown_scenario = absolute[0].get("scenario")
    by_key = {(r["run"], str(r.get("subset"))): r for r in absolute}
    parts: list[tuple[str, str]] = []
    families = [
        ("class_f", "Classificação semântica: Medida F (ALT estrito)"),
        ("id_f", "Identificação: Medida F"),
    ]
    if morphology:
        families.append(("morf_f", "Morfologia: Medida F"))
    for family, label in families:
        series, intervals = {}, {}
        for subset in subsets:
            figures = [
                _headline(by_key[(run, subset)]) if (run, subset) in by_key else None
                for run in runs
            ]
            series[subset] = [f[family][0] if f else None for f in figures]
            intervals[subset] = [f[family][1] if f else None for f in figures]
        where = _where(", ".join(subsets), shown_scenario).replace("subconjunto", "subconjuntos")
        title = f"{label} por run e subconjunto ({_where(None, shown_scenario) or 'identificação'})"
        parts.append(
            (
                charts.grouped_bars(title, runs, series, intervals),
                f"{label}, por run; uma barra por subconjunto ({where}); "
                "barras de erro: intervalo de 95 %.",
            )
        )
    leader = _leaderboard_entries(reports)
    names = [r["run"] for r in leader]
    leader_where = ", ".join(
        dict.fromkeys(_where(str(r.get("subset")), r.get("scenario")) for r in leader)
    )
    if morphology:
        panels = []
        for key, name in FIELDS:
            counts = []
            for report in leader:
                raw = dig(report, "morphology", "fields", key, "counts") or {}
                counts.append({label: raw.get(k, 0) for k, label in OUTCOME_KEYS})
            panels.append((name, names, counts))
        if any(sum(c.values()) for _, _, counts in panels for c in counts):
            parts.append(
                (
                    charts.stacked_outcomes(panels, f"Morfologia: resultados ({leader_where})"),
                    f"Morfologia: parte de cada resultado por campo e run ({leader_where}).",
                )
            )
    points = {
        "Identificação": {
            r["run"]: (_headline(r)["id_p"][0], _headline(r)["id_r"][0]) for r in leader
        },
    }
    if morphology:
        points["Morfologia (Combinada)"] = {
            r["run"]: (_headline(r)["morf_p"][0], _headline(r)["morf_r"][0]) for r in leader
        }
    parts.append(
        (
            charts.precision_recall(f"Precisão contra abrangência ({leader_where})", points),
            f"Precisão contra abrangência de cada run ({leader_where}).",
        )
    )
    return "".join(
        f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
        for svg, caption in parts
    )


NO_CHARTS = "Not drawn: the campaign says charts: false."


def render_report(summary: Mapping[str, Any], title: str = "HAREM campaign report") -> str:
    """The whole page from the campaign summary data."""
    reports = list(summary.get("reports") or [])
    simulated = sorted({r["run"] for r in reports if r.get("simulated")})
    note = ""
    if simulated:
        note = (
            '<p class="note">Simulated runs: ' + escape(", ".join(simulated)) + ". They were "
            "generated by <code>harem simulate</code> from the golden collection; they are "
            "not the output of any real system.</p>"
        )
    campaign = summary.get("campaign") or {}
    morphology = campaign.get("morphology", True) is not False
    notes = "".join(
        f'<p class="note{" incomplete" if note.startswith("INCOMPLETE") else ""}">'
        f"{escape(note)}</p>"
        for note in summary.get("notes") or []
    )
    if summary.get("incomplete"):
        title += " (INCOMPLETE)"
    sections = []
    for run in sorted({r["run"] for r in reports}):
        mine = [r for r in reports if r["run"] == run]
        body = "".join(render_run_tables(r, morphology) for r in mine)
        sections.append(f"<section><h3>{_run_label(mine[0])}</h3>{body}</section>")
    about = escape(str(campaign.get("collection", "")))
    charts = (
        f'<div class="charts">{render_charts(reports, morphology)}</div>'
        if campaign.get("charts", True) is not False
        else f'<p class="muted">{escape(NO_CHARTS)}</p>'
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="muted">harem-pipeline {escape(__version__)} · golden collection: {about}'
        " · intervals are 95 % document bootstrap (±: half-width)</p>"
        f"{notes}{note}<h2>Leaderboard</h2>{render_leaderboard(reports)}"
        f'<p class="muted">{escape(LEGEND)}</p>'
        f"<h2>Charts</h2>{charts}"
        f"<h2>Runs</h2>{''.join(sections)}"
        f"<script>{SORT_SCRIPT}</script></body></html>\n"
    )


def write_report_html(summary_json: str | os.PathLike[str], output: str | os.PathLike[str]) -> Path:
    """Render the campaign summary at ``summary_json`` into the page ``output``, atomically."""
    summary = check_campaign_summary(read_json_object(summary_json), str(summary_json))
    write_text_atomic(output, render_report(summary))
    return Path(output)
