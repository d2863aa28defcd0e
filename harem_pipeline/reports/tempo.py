"""The TEMPO track in the campaign summary and the HTML report: one small table.

One row per run × subset × mode × ALT scoring, from the JSON twins of the
Ida reports of the ``.tempo`` files (``docs/spec/tempo.md``, "Invocation and
files"): the classification precision, recall and F with the TEMPO points
added (Ida's ``Precisão Máxima do Sistema``, ``Abrangência Máxima na CD``,
``Medida F``).  The official pages of the track
(``resultados_TEMPO_<modo>_<cenário>.html``) belong to the official grid, not
to this table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from harem_pipeline.reports.summary import cell_text, dig, markdown_table, sortable_section

TEMPO_COLUMNS = (
    ("run", "Run"),
    ("subset", "Subset"),
    ("mode", "Mode"),
    ("alt", "ALT"),
    ("precision", "TEMPO P"),
    ("recall", "TEMPO R"),
    ("f", "TEMPO F"),
    ("signature", "Signature"),
)
TEMPO_LEGEND = (
    "TEMPO P, R, F: the classification precision, recall and F of Ida on the TEMPO "
    "track's .tempo file (AvalTEMPO, 2008 settings), the CSC raised by the credit for "
    "TEMPO_REF and SENTIDO (mode estendido_semnorm), VAL_NORM and VAL_DELTA "
    "(estendido_sonorm) or all four (estendido_completo); ALT strict: the .emir.tempo, "
    "relaxed: the .emir.altrel.tempo."
)


def tempo_rows(reports: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The table's rows from the summary's report entries (those with a ``tempo`` part)."""
    rows = []
    for report in reports:
        for item in report.get("tempo") or ():
            ida = item.get("ida") or {}
            rows.append(
                {
                    "run": report["run"],
                    "simulated": bool(report.get("simulated")),
                    "subset": report["subset"],
                    "mode": item["mode"],
                    "alt": item["alt"],
                    "precision": dig(ida, "classificacao", "precisao"),
                    "recall": dig(ida, "classificacao", "abrangencia"),
                    "f": dig(ida, "classificacao", "medida_f"),
                    "signature": ida.get("signature") or "",
                }
            )
    return rows


_NAMES = ("run", "subset", "mode", "alt")
"""The TEMPO table's columns of names (left-aligned in the HTML)."""


def format_tempo_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summary's TEMPO section (nothing when the campaign ran no TEMPO track)."""
    if not rows:
        return ""
    table = [
        [*(cell_text(row[key]) for key, _ in TEMPO_COLUMNS[:-1]), f"`{row['signature']}`"]
        for row in rows
    ]
    lines = markdown_table([label for _, label in TEMPO_COLUMNS], table)
    return "\n".join(["", "## The TEMPO track", "", *lines, "", TEMPO_LEGEND, ""])


def render_tempo_section(summary: Mapping[str, Any]) -> str:
    """The HTML report's TEMPO section (empty when the summary has no TEMPO rows)."""
    rows = summary.get("tempo") or []
    if not rows:
        return ""
    body = []
    for row in rows:
        cells = []
        for key, _ in TEMPO_COLUMNS:
            value = row.get(key)
            if key == "signature":
                cells.append(f'<td class="name"><code class="sig">{escape(str(value))}</code></td>')
            elif key in _NAMES:
                mark = (
                    ' <span class="sim">simulated</span>'
                    if key == "run" and row.get("simulated")
                    else ""
                )
                shown = escape(str(value))
                cells.append(f'<td class="name" data-value="{shown}">{shown}{mark}</td>')
            else:
                cells.append(
                    f'<td data-value="{escape(cell_text(value))}">{escape(cell_text(value))}</td>'
                )
        body.append("<tr>" + "".join(cells) + "</tr>")
    return sortable_section("tempo", "Pista TEMPO", TEMPO_COLUMNS, _NAMES, body, TEMPO_LEGEND)
