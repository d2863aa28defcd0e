"""The HTML report's section on the scenario grid (``veils:``): one table per veil.

With the 15 veils of the official grid the report would grow 15 times
longer; instead a selector shows one veil's table at a time (every table is
in the page, so it works offline and prints whole with the selector's
choice).  The figures are the grid summary's (``official/grid.json``),
the links go to the official pages beside it (docs/spec/official-grid.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

GRID_SCRIPT = """
function showVeil(name) {
  document.querySelectorAll('table.grelha').forEach(function (t) {
    t.hidden = t.dataset.veu !== name;
  });
}
var veilSelector = document.getElementById('veu');
if (veilSelector) {
  veilSelector.addEventListener('change', function () { showVeil(this.value); });
  showVeil(veilSelector.value);
}
"""

COLUMNS = (
    ("id_precision", "Id. P"),
    ("id_recall", "Id. A"),
    ("id_f", "Id. F"),
    ("class_precision", "Class. P máx."),
    ("class_recall", "Class. A máx."),
    ("class_f", "Class. F"),
)
ALT_LABELS = {"strict": "ALT estrita", "relaxed": "ALT relaxada", "relative": "relativo"}


def _number(value: str) -> str:
    """Four decimals; a dash for NaN (a run that identified nothing)."""
    number = float(value)
    return "—" if math.isnan(number) else f"{number:.4f}"


def _table(veil: str, rows: Sequence[Mapping[str, str]]) -> str:
    ranked = sorted(rows, key=lambda r: (r["alt"], -_sortable(r["class_f"]), r["run"], r["subset"]))
    head = "".join(f"<th>{escape(label)}</th>" for _, label in COLUMNS)
    body = "".join(
        "<tr>"
        f"<td>{escape(row['run'])}</td><td>{escape(row['subset'])}</td>"
        f"<td>{escape(ALT_LABELS.get(row['alt'], row['alt']))}</td>"
        + "".join(f'<td class="num">{_number(row[key])}</td>' for key, _ in COLUMNS)
        + "</tr>"
        for row in ranked
    )
    return (
        f'<table class="grelha" data-veu="{escape(veil)}"><thead><tr><th>Saída</th>'
        f"<th>Subconjunto</th><th>ALT</th>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _sortable(value: str) -> float:
    number = float(value)
    return -1.0 if math.isnan(number) else number


def render_grid_section(rows: Sequence[Mapping[str, str]]) -> str:
    """The section: a veil selector and one table per veil, in the grid's order."""
    if not rows:
        return ""
    veils = list(dict.fromkeys(row["veil"] for row in rows))
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in veils)
    tables = "".join(_table(v, [r for r in rows if r["veil"] == v]) for v in veils)
    return (
        '<section id="grelha"><h2>Grelha de cenários</h2>'
        '<p class="muted">Every run under every veil of <code>veils:</code>, strict and '
        "relaxed ALT; the official result pages are in <code>official/</code> "
        '(<a href="official/">resultados_HAREM_Classico_&lt;véu&gt;.html</a>); one report '
        'per system in <a href="official/relatorios/index.html">official/relatorios/</a>.</p>'
        f'<label for="veu">Véu: </label><select id="veu">{options}</select>'
        f"{tables}<script>{GRID_SCRIPT}</script></section>"
    )
