"""The campaign report: one self-contained HTML page.

Built from the campaign summary data (``summary.json``: every report's JSON
twin), never from text reports.  Everything is inline — CSS, the sorting
script and the charts (SVG from ``reports.charts``) — so the file can be
mailed or archived and opens without any network.  Every figure is shown
with the signature of the report it comes from, and simulated runs are
labelled as such.

What an organiser reads first comes first and fits a 1400 px window: a
table of contents, a compact leaderboard (the official figures; every other
measure and the signatures one click away, in a ``<details>``), the legend,
the charts (axes that span the figures, their range said), then one
collapsed ``<details>`` block per run with all its tables.  Labels are in
Portuguese, as the HAREM reports have them; the explanations are in English,
like the rest of the package.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from harem_pipeline import __version__
from harem_pipeline.reports import charts
from harem_pipeline.reports.browse import browse_href
from harem_pipeline.reports.grid_html import render_grid_section
from harem_pipeline.reports.rerelem import render_rerelem_section
from harem_pipeline.reports.summary import (
    CEILING_LEGEND,
    FAMILY_LEGENDS,
    RELATIVE_NOTE,
    check_campaign_summary,
    dig,
    row_signature,
)
from harem_pipeline.reports.tempo import render_tempo_section
from harem_pipeline.text import PathLike
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
SCENARIO_NAMES = {"absolute": "absoluto", "relative": "relativo"}

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem auto;padding:0 1rem;color:#222;max-width:80rem;
line-height:1.4}
h1{margin-bottom:.2rem} h2{margin-top:2rem;border-bottom:1px solid #ddd}
.muted{color:#666;font-size:.9rem}
.note{background:#fff8e1;border-left:4px solid #f9a825;padding:.5rem 1rem}
.note.incomplete{background:#ffebee;border-left-color:#c62828;font-weight:bold}
nav#indice{background:#f7f7f7;border:1px solid #e3e3e3;padding:.25rem 1rem;font-size:.95rem}
nav#indice h2{margin:.5rem 0;border:0;font-size:1.1rem} nav#indice ol{margin:.25rem 0}
nav#indice ol ol{columns:2;font-size:.9rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0 1rem 0;font-size:.9rem}
th,td{border:1px solid #ddd;padding:.25rem .45rem;text-align:right;vertical-align:top}
th{background:#f3f3f3;font-weight:600} td.name,th.name{text-align:left}
table#leaderboard{font-size:1rem} table#leaderboard th{max-width:10rem}
table#leaderboard td.name{white-space:nowrap}
@media (max-width:900px){table#leaderboard{font-size:.8rem} table#leaderboard th{max-width:7rem}}
table.sortable th{cursor:pointer} table.sortable th:after{content:" \\2195";color:#aaa}
.ci{color:#666;font-size:.8em;white-space:nowrap}
code.sig{font-size:.75rem;color:#555;word-break:break-all}
ul.sigs{font-size:.85rem;padding-left:1.2rem}
details{margin:.5rem 0} details>summary{cursor:pointer;padding:.25rem 0}
details.run{border:1px solid #ddd;border-radius:4px;padding:.25rem .75rem}
details.run>summary{font-size:1.1rem;font-weight:600}
details.run[open]>summary{border-bottom:1px solid #eee;margin-bottom:.5rem}
.charts figure{margin:0 0 2rem 0;max-width:60rem}
.charts svg{width:100%;height:auto;display:block}
.charts figcaption{font-size:.9rem;color:#444;margin-top:.25rem}
.sim{color:#8d6e00;font-weight:normal;font-size:.8rem}
tr.ceiling td{font-style:italic;background:#f6f6f2}
a.browse{font-size:.8rem;font-weight:normal;white-space:nowrap} td.name a.browse{display:block}
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
function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1));
  for (var el = id && document.getElementById(id); el; el = el.parentElement) {
    if (el.tagName === 'DETAILS') { el.open = true; }
  }
}
window.addEventListener('hashchange', openTarget);
openTarget();
"""
"""Sorting by a header's click; a link to a block inside a closed ``<details>`` opens it."""


def _number(value: float | None) -> str:
    """``0.7036``; ``-`` when undefined."""
    return "-" if value is None else f"{value:.4f}"


def _cell(value: float | None, interval: Sequence[float] | None = None) -> str:
    """A figure's cell: its value, and the half-width of its 95 % interval (``± 0.0123``)."""
    sort_value = "" if value is None else repr(value)
    text = escape(_number(value))
    if value is not None and interval:
        text += f' <span class="ci">± {(interval[1] - interval[0]) / 2:.4f}</span>'
    return f'<td data-value="{sort_value}">{text}</td>'


_HEADLINE_PLACES: dict[str, tuple[str, tuple[str, ...], int]] = {
    "class_f": ("strict", ("classificacao", "medida_f"), 0),
    "class_f_relaxed": ("relaxed", ("classificacao", "medida_f"), 0),
    "id_f_official": ("strict", ("identificacao", "medida_f"), 0),
    "id_p": ("ident", ("precisao",), 0),
    "id_r": ("ident", ("abrangencia",), 0),
    "id_f": ("ident", ("medida_f",), 0),
    "exact": ("spans", ("exact", "f1"), 1),
    "overlap": ("spans", ("overlap", "f1"), 1),
    "intersection": ("spans", ("intersection", "f1"), 1),
    "morf_p": ("morph", ("precisao",), 0),
    "morf_r": ("morph", ("abrangencia",), 0),
    "morf_f": ("morph", ("medida_f",), 0),
}
"""Where each leaderboard figure stands in its report part: the part, the keys, and where
among them the interval's ``ci95`` goes (the span measures keep theirs beside each figure)."""


def _headline(report: Mapping[str, Any]) -> dict[str, Any]:
    """The leaderboard figures of one report entry, with their intervals."""
    ident = report.get("identification") or {}
    parts = {
        "ident": ident,
        "morph": dig(report, "morphology", "fields", "combinada") or {},
        "spans": dig(ident, "measures", "labelled") or {},
        "strict": report.get("classification") or {},
        "relaxed": report.get("relaxed") or {},
    }
    return {
        key: (dig(parts[part], *keys), dig(parts[part], *keys[:at], "ci95", *keys[at:]))
        for key, (part, keys, at) in _HEADLINE_PLACES.items()
    }


LEADERBOARD_COLUMNS = (
    ("class_f", "Classificação F (ALT estrito)"),
    ("class_f_relaxed", "Classificação F (ALT relaxado)"),
    ("id_f_official", "Identificação F (Ida)"),
    ("id_f", "Identificação F (Ida2ID)"),
    ("morf_f", "Morfologia F (Combinada)"),
)
"""The compact leaderboard: the official figures, and one figure per other family."""

DETAIL_COLUMNS = (
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
"""The leaderboard's other measures, one click away."""

MORPHOLOGY_KEYS = frozenset({"morf_p", "morf_r", "morf_f"})


def _columns(columns: Sequence[tuple[str, str]], morphology: bool) -> list[tuple[str, str]]:
    """``columns`` without the morphology ones for a collection with no MORF."""
    return [(k, label) for k, label in columns if morphology or k not in MORPHOLOGY_KEYS]


def _leaderboard_entries(reports: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """One entry per run: subset ``total`` and the absolute scenario when present; ranked,
    each model run's ceiling run (unranked) right after it."""
    best: dict[str, Mapping[str, Any]] = {}
    for report in reports:
        run = report["run"]
        preferred = (report.get("subset") == "total", report.get("scenario") == "absolute")
        current = best.get(run)
        if current is None or preferred > (
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

    ranked = sorted((r for r in best.values() if not r.get("ceiling_of")), key=rank)
    ceilings = {r["ceiling_of"]: r for r in best.values() if r.get("ceiling_of")}
    return [entry for r in ranked for entry in (r, ceilings.get(r["run"])) if entry]


def _run_label(report: Mapping[str, Any]) -> str:
    label = escape(report["run"])
    if report.get("simulated"):
        label += ' <span class="sim">(simulada)</span>'
    if report.get("ceiling_of"):
        label += (
            ' <span class="sim" title="O ouro exportado no conjunto de etiquetas do modelo '
            f'{escape(report["ceiling_of"])} e lido de volta">(tecto)</span>'
        )
    return label


def run_anchor(run: str) -> str:
    """The id of a run's block: ``saida-`` and the name, any character but letters, digits,
    ``_`` and ``-`` written as ``.XX.`` (its code point between dots), so every name gives
    its own id."""
    safe = re.sub(r"[^A-Za-z0-9_-]", lambda m: f".{ord(m.group()):X}.", run)
    return f"saida-{safe}"


def _where(subset: str | None, scenario: str | None) -> str:
    """``subconjunto total, cenário absoluto`` (the scenario left out when there is none)."""
    parts = [f"subconjunto {subset}"] if subset else []
    if scenario:
        parts.append(f"cenário {SCENARIO_NAMES.get(scenario, scenario)}")
    return ", ".join(parts)


def _browse_link(run: str, browsed: Collection[str]) -> str:
    """A link to ``run``'s alignment pages beside its name (none when the campaign wrote
    none for it): the name itself leads to the run's block on this page."""
    if run not in browsed:
        return ""
    return (
        f' <a class="browse" href="{escape(run_browse_link(run))}" '
        'title="Os alinhamentos da saída, documento a documento (harem browse)">'
        "alinhamentos</a>"
    )


def render_leaderboard(
    reports: Sequence[Mapping[str, Any]],
    morphology: bool = True,
    browsed: Collection[str] = (),
) -> str:
    """The compact leaderboard (fits a 1400 px window), and in a ``<details>`` the other
    measures of the same reports with every signature; each run linked to its alignment
    pages when it is one of ``browsed``."""
    entries = _leaderboard_entries(reports)
    main = _columns(LEADERBOARD_COLUMNS, morphology)
    detail = _columns(DETAIL_COLUMNS, morphology)

    def table(table_id: str, columns: Sequence[tuple[str, str]], ranked: bool) -> str:
        head = ("<th>#</th>" if ranked else "") + '<th class="name">Saída</th>'
        head += "".join(f"<th>{escape(label)}</th>" for _, label in columns)
        rows = []
        position = 0
        for report in entries:
            figures = _headline(report)
            cells = "".join(_cell(*figures[key]) for key, _ in columns)
            ceiling = bool(report.get("ceiling_of"))
            position += not ceiling
            rank = ""
            if ranked:  # a ceiling row sorts with its model, and takes no place
                shown = "" if ceiling else str(position)
                rank = f'<td data-value="{position}">{shown}</td>'
            row_class = ' class="ceiling"' if ceiling else ""
            rows.append(
                f"<tr{row_class}>{rank}"
                f'<td class="name" data-value="{escape(report["run"])}">'
                f'<a href="#{run_anchor(report["run"])}">{_run_label(report)}</a>'
                f"{_browse_link(report['run'], browsed)}</td>"
                f"{cells}</tr>"
            )
        return (
            f'<div class="scroll"><table id="{table_id}" class="sortable"><thead><tr>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )

    shown = ", ".join(dict.fromkeys(_where(r.get("subset"), r.get("scenario")) for r in entries))
    signatures = "".join(
        f'<li>{escape(r["run"])}: <code class="sig">{escape(_signature(r))}</code></li>'
        for r in entries
    )
    return (
        f'<p class="muted">{escape(shown)}; ordenado pela Classificação F (ALT estrito), '
        "como o HAREM ordenou os sistemas (clicar num cabeçalho ordena por ele).</p>"
        + table("leaderboard", main, ranked=True)
        + '<details id="todas-as-medidas"><summary>Todas as medidas e assinaturas</summary>'
        + table("leaderboard-details", detail, ranked=False)
        + f'<p class="muted">Assinaturas (do relatório Ida estrito):</p>'
        f'<ul class="sigs">{signatures}</ul></details>'
    )


def _signature(report: Mapping[str, Any]) -> str:
    """The signature of the figure the entry ranks by (see ``summary.row_signature``)."""
    return row_signature(
        report.get("identification"), report.get("morphology"), report.get("classification")
    )


def render_categories(semantic: Mapping[str, Any] | None, browse_run: str | None = None) -> str:
    """The per-category table of an Ida report (the Sultão tables): P, R, F of both blocks,
    collapsed (one click away); with ``browse_run``, each category links to that run's
    alignment pages filtered on it."""
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
        name = escape(category)
        if browse_run is not None:
            href = escape(run_browse_link(browse_run, category))
            name = f'<a href="{href}" title="Os alinhamentos desta categoria">{name}</a>'
        rows.append(f'<tr><td class="name">{name}</td>{cells}</tr>')
    return (
        "<details><summary>Por categoria (Ida estrito)</summary>"
        f'<div class="scroll"><table class="categories">{"".join(rows)}</table></div></details>'
    )


REPORT_NAMES = (
    ("classification", "Ida, ALT estrito"),
    ("relaxed", "Ida, ALT relaxado"),
    ("identification", "Ida2ID"),
    ("morphology", "Ida2Mor"),
)


def render_run_tables(
    report: Mapping[str, Any], collection_morphology: bool = True, browsed: bool = False
) -> str:
    """Every measure of one run × subset × scenario, with the signature of each report.

    Without ``collection_morphology`` (a collection with no MORF, said once at the top
    of the page) the table has no morphology rows at all; ``browsed``: the run's
    alignment pages exist, and its categories link to them.
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
    add("Identificação (Ida2ID)", ident, "precisao", "abrangencia", "medida_f")
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
    subset = str(report.get("subset"))
    title = f"{subset} — {SCENARIO_NAMES.get(scenario, scenario)}" if scenario else subset
    relative = (
        '<p class="muted">Relative scenario: the identification of the Ida report is not a '
        'proportion and may exceed 1 (see <a href="#legenda">the legend</a>).</p>'
        if scenario == "relative" and report.get("classification")
        else ""
    )
    signatures = "".join(
        f'<li>{label}: <code class="sig">{escape(str(report[key]["signature"]))}</code></li>'
        for key, label in REPORT_NAMES
        if isinstance(report.get(key), Mapping) and report[key].get("signature")
    )
    return (
        f'<h4>{escape(title)}</h4><div class="scroll"><table>{"".join(rows)}</table></div>'
        + relative
        + render_categories(report.get("classification"), report["run"] if browsed else None)
        + f'<p class="muted">Assinaturas:</p><ul class="sigs">{signatures}</ul>'
    )


LEGEND = (
    "Classificação F (ALT estrito / relaxado): the semantic classification F (CSC) of the "
    "official Ida reports .emir.ida / .emir.altrel.ida (relative rows: .emir_relativo.ida), "
    "what HAREM ranked systems by; Identificação F (Ida): the identification F of the same "
    ".emir.ida, the figure the official tables show. "
    "Identificação F (Ida2ID), Id. Precisão, Abrangência, Medida F: Ida2ID's identification "
    "measures with partial credit (a partly identified entity counts for its share of the "
    "tokens), in the campaign's style; not the figures the official HAREM result tables show. "
    "F exacta, sobreposição, intersecção: the labelled span measures of the same documents. "
)
MORPHOLOGY_LEGEND = "Morfologia / Morf.: Ida2Mor's combined (gender and number) field. "
LEGEND_END = (
    "± is the half-width of the 95 % document-bootstrap interval. Each figure's signature "
    "(Assinatura) pins what made it: the leaderboard's is the strict Ida report's, with its "
    "subset, scenario and ALT. Labels (headings, column headers, chart titles and axes) are in "
    "Portuguese, as the HAREM reports have them; notes and explanations are in English."
)


def render_legend(reports: Sequence[Mapping[str, Any]], morphology: bool) -> str:
    """What the columns are; why a relative row's identification may exceed 1 (when the page
    shows relative rows)."""
    text = LEGEND + (MORPHOLOGY_LEGEND if morphology else "") + LEGEND_END
    parts = [f"<p>{escape(text)}</p>"]
    parts += [f"<p>{escape(family.replace('`', ''))}</p>" for _, family in FAMILY_LEGENDS]
    if any(r.get("ceiling_of") for r in reports):
        parts.append(f"<p><strong>Tecto.</strong> {escape(CEILING_LEGEND.replace('`', ''))}</p>")
    if any(r.get("scenario") == "relative" and r.get("classification") for r in reports):
        parts.append(f"<p><strong>Cenário relativo.</strong> {escape(RELATIVE_NOTE_HTML)}</p>")
    return '<div id="legenda" class="muted">' + "".join(parts) + "</div>"


RELATIVE_NOTE_HTML = RELATIVE_NOTE.replace("`", "").replace("Id. F (Ida)", "Identificação F (Ida)")
"""The summary's note on the relative identification, in the page's labels."""


def _chart(chart_id: str, title: str, svg: str, caption: str) -> tuple[str, str, str]:
    return (
        chart_id,
        title,
        (
            f'<figure id="{chart_id}"><h3>{escape(title)}</h3>{svg}'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        ),
    )


def chart_blocks(
    reports: Sequence[Mapping[str, Any]], morphology: bool = True
) -> list[tuple[str, str, str]]:
    """(id, title, ``<figure>``) of every chart: F per run and subset, outcome distributions
    per field, precision against recall.

    Each chart's title and caption say which subset(s) and scenario it shows, and the range
    of every axis that does not span 0–1; without ``morphology`` only the identification and
    classification charts are drawn.
    """
    if not reports:
        return []
    subsets = list(dict.fromkeys(str(r.get("subset")) for r in reports))
    runs = [r["run"] for r in _leaderboard_entries(reports)]  # the leaderboard's order
    absolute = [r for r in reports if r.get("scenario") in ("absolute", None)] or list(reports)
    shown_scenario = absolute[0].get("scenario")
    by_key = {(r["run"], str(r.get("subset"))): r for r in absolute}
    blocks: list[tuple[str, str, str]] = []
    families = [
        ("class_f", "grafico-classificacao", "Classificação semântica: Medida F (ALT estrito)"),
        ("id_f", "grafico-identificacao", "Identificação (Ida2ID): Medida F"),
    ]
    if morphology:
        families.append(("morf_f", "grafico-morfologia", "Morfologia: Medida F"))
    where = _where(", ".join(subsets), shown_scenario).replace("subconjunto", "subconjuntos")
    for family, chart_id, label in families:
        series, intervals = {}, {}
        for subset in subsets:
            figures = [
                _headline(by_key[(run, subset)]) if (run, subset) in by_key else None
                for run in runs
            ]
            series[subset] = [f[family][0] if f else None for f in figures]
            intervals[subset] = [f[family][1] if f else None for f in figures]
        svg, bounds = charts.grouped_points(runs, series, intervals)
        blocks.append(
            _chart(
                chart_id,
                f"{label}, por saída e subconjunto",
                svg,
                f"{label}, por saída; um ponto por subconjunto ({where}); barras de erro: "
                f"intervalo de 95 %; {charts.describe_range('vertical', bounds)}.",
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
            blocks.append(
                _chart(
                    "grafico-resultados-morfologia",
                    "Morfologia: resultados por campo",
                    charts.stacked_outcomes(panels),
                    f"Morfologia: parte de cada resultado por campo e saída ({leader_where}); "
                    "eixo vertical de 0 a 1.",
                )
            )
    points = {
        "Identificação (Ida2ID)": {
            r["run"]: (_headline(r)["id_p"][0], _headline(r)["id_r"][0]) for r in leader
        },
    }
    if morphology:
        points["Morfologia (Combinada)"] = {
            r["run"]: (_headline(r)["morf_p"][0], _headline(r)["morf_r"][0]) for r in leader
        }
    svg, recall_range, precision_range = charts.precision_recall("", points)
    blocks.append(
        _chart(
            "grafico-precisao-abrangencia",
            "Precisão contra abrangência",
            svg,
            f"Precisão contra abrangência de cada saída ({leader_where}): a cor diz a saída, "
            f"a forma a medida; {charts.describe_range('horizontal', recall_range)}, "
            f"{charts.describe_range('vertical', precision_range)}.",
        )
    )
    return blocks


NO_CHARTS = "Not drawn: the campaign says charts: false."


def _contents(
    charts_shown: Sequence[tuple[str, str]],
    runs: Sequence[str],
    tracks: Sequence[tuple[str, str]] = (),
) -> str:
    """The table of contents: every section, chart and run block, each a link
    (``tracks``: the anchor and title of each track section the page has)."""
    chart_items = "".join(
        f'<li><a href="#{chart_id}">{escape(title)}</a></li>' for chart_id, title in charts_shown
    )
    run_items = "".join(f'<li><a href="#{run_anchor(run)}">{escape(run)}</a></li>' for run in runs)
    return (
        '<nav id="indice"><h2>Índice</h2><ol>'
        '<li><a href="#resultados">Resultados globais</a> '
        '(<a href="#todas-as-medidas">todas as medidas</a>, <a href="#legenda">legenda</a>)</li>'
        + "".join(f'<li><a href="#{anchor}">{escape(title)}</a></li>' for anchor, title in tracks)
        + f'<li><a href="#graficos">Gráficos</a>{f"<ol>{chart_items}</ol>" if chart_items else ""}'
        "</li>"
        f'<li><a href="#saidas">Saídas, uma a uma</a><ol>{run_items}</ol></li>'
        "</ol></nav>"
    )


def _tracks(summary: Mapping[str, Any], grid: Sequence[Mapping[str, str]] | None) -> list:
    """The track sections the page shows, in page order, for the table of contents."""
    shown = [
        (bool(summary.get("tempo")), "tempo", "Pista TEMPO"),
        (bool(summary.get("rerelem")), "rerelem", "ReRelEM (relações)"),
        (bool(grid), "grelha", "Grelha de cenários"),
    ]
    return [(anchor, title) for present, anchor, title in shown if present]


def render_report(
    summary: Mapping[str, Any],
    grid: Sequence[Mapping[str, str]] | None = None,
) -> str:
    """The whole page from the campaign summary data (and the scenario grid's rows)."""
    title = "Relatório da campanha HAREM"
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
        title += " (INCOMPLETO)"
    ranked = [r["run"] for r in _leaderboard_entries(reports)]
    browsed = frozenset(campaign.get("browse") or ())
    sections = []
    for run in ranked:
        mine = [r for r in reports if r["run"] == run]
        body = "".join(render_run_tables(r, morphology, run in browsed) for r in mine)
        subsets = len({r.get("subset") for r in mine})
        scenarios = len({r.get("scenario") for r in mine})
        where = f"{subsets} subconjunto(s) × {scenarios} cenário(s)"
        sections.append(
            f'<details class="run" id="{run_anchor(run)}"><summary>{_run_label(mine[0])} '
            f'<span class="muted">— {len(mine)} tabelas ({where})</span>'
            f"{_browse_link(run, browsed)}</summary>"
            f"{body}</details>"
        )
    about = escape(str(campaign.get("collection", "")))
    drawn = campaign.get("charts", True) is not False
    models = [r for r in reports if not r.get("ceiling_of")]  # the charts compare systems
    blocks = chart_blocks(models, morphology) if drawn else []
    charts_html = (
        f'<div class="charts">{"".join(block for _, _, block in blocks)}</div>'
        if drawn
        else f'<p class="muted">{escape(NO_CHARTS)}</p>'
    )
    return (
        '<!DOCTYPE html><html lang="pt"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="muted">harem-pipeline {escape(__version__)} · golden collection: {about}'
        " · intervals are 95 % document bootstrap (±: half-width)</p>"
        f"{notes}{note}"
        + _contents([(chart_id, t) for chart_id, t, _ in blocks], ranked, _tracks(summary, grid))
        + '<section id="resultados"><h2>Resultados globais</h2>'
        + render_leaderboard(reports, morphology, browsed)
        + render_legend(reports, morphology)
        + "</section>"
        + render_tempo_section(summary)
        + render_rerelem_section(summary)
        + render_grid_section(grid or [])
        + f'<section id="graficos"><h2>Gráficos</h2>{charts_html}</section>'
        '<section id="saidas"><h2>Saídas, uma a uma</h2>'
        '<p class="muted">Every table of each run, by subset and scenario (click a run to '
        f"open it).</p>{''.join(sections)}</section>"
        f"<script>{SORT_SCRIPT}</script></body></html>\n"
    )


def write_report_html(
    summary_json: PathLike,
    output: PathLike,
    grid_json: PathLike | None = None,
) -> Path:
    """Render the campaign summary at ``summary_json`` into the page ``output``, atomically
    (with the scenario grid's section when ``grid_json``, ``official/grid.json``, is given)."""
    grid = read_json_object(grid_json)["rows"] if grid_json is not None else None
    summary = check_campaign_summary(read_json_object(summary_json), str(summary_json))
    write_text_atomic(output, render_report(summary, grid=grid))
    return Path(output)


# ---------------------------------------------------------------------------
# Link to the pages of ``harem browse OUT/<run>`` (written to OUT/<run>/browse/):
# for a run's cell, and a run's category cell (the index opens filtered on it).


def run_browse_link(run: str, category: str | None = None) -> str:
    """The ``href``, relative to ``report.html``, of a run's alignment pages."""
    return browse_href(run, category)
