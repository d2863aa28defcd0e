"""The campaign summary: one row per run × subset × scenario.

Rows are built from the JSON twins of the reports (``.ida2id.json`` and
``.ida2mor.json``), never from the text reports, so the summary carries the
very numbers the reports carry.  Formatting (Markdown, CSV, JSON) is kept
apart from building rows.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from html import escape
from typing import Any

from harem_pipeline.errors import InputError

COLUMNS = (
    ("run", "Run"),
    ("subset", "Subset"),
    ("scenario", "Scenario"),
    ("class_f", "Class. F"),
    ("class_f_relaxed", "Class. F relax."),
    ("id_f_official", "Id. F (Ida)"),
    ("id_precision", "Id. P"),
    ("id_recall", "Id. R"),
    ("id_f", "Id. F"),
    ("exact_f1", "Exact F1"),
    ("overlap_f1", "Overlap F1"),
    ("intersection_f1", "Inters. F1"),
    ("morf_precision", "Morf. P"),
    ("morf_recall", "Morf. R"),
    ("morf_f", "Morf. F"),
    ("signature", "Signature"),
)

VEIL_COLUMNS = (("veil", "Veil"), ("alt", "ALT"))
"""The CSV's last columns: the named veil and ALT of a row of the scenario grid
(``veils:``); empty for the campaign's own rows, which carry both ALTs."""


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """The headline figures of one run on one subset in one scenario."""

    run: str
    subset: str
    scenario: str
    class_f: float | None
    class_f_relaxed: float | None
    id_f_official: float | None
    id_precision: float | None
    id_recall: float | None
    id_f: float | None
    exact_f1: float | None
    overlap_f1: float | None
    intersection_f1: float | None
    morf_precision: float | None
    morf_recall: float | None
    morf_f: float | None
    signature: str
    veil: str | None = None
    """The named veil of a scenario-grid row; None for the campaign's own rows."""
    alt: str | None = None
    """``strict`` or ``relaxed`` for a scenario-grid row (its ``class_f`` is that ALT's)."""
    ceiling_of: str | None = None
    """A ceiling run's row: the model run whose ceiling it is (``CEILING_LEGEND``)."""


def dig(data: Any, *keys: str) -> Any:
    """``data[k1][k2]…``, or None as soon as a level is missing (reports may lack a part)."""
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def build_row(
    run: str,
    subset: str,
    scenario: str,
    identification: Mapping[str, Any],
    morphology: Mapping[str, Any] | None,
    classification: Mapping[str, Any] | None = None,
    relaxed: Mapping[str, Any] | None = None,
    ceiling_of: str | None = None,
) -> SummaryRow:
    """One summary row from the reports of one run × subset × scenario (``ceiling_of``: of
    the ceiling run of that model run).

    The official figures lead: the classification F of the strict Ida report
    (``.emir.ida``, the relative scenario's ``.emir_relativo.ida``), of the
    relaxed one (``.emir.altrel.ida``), and the Ida's identification F; then
    Ida2ID's partial-credit identification (the First HAREM measure of the
    ``.globalid``), the span measures and the morphology.  A run whose system
    classified no entity morphologically has no Ida2Mor report: its
    morphology columns are undefined (None), not zero.

    The row's signature is :func:`row_signature`'s: that of the figure the
    row ranks by.
    """
    combined = dig(morphology, "fields", "combinada")
    labelled = dig(identification, "measures", "labelled")
    signature = row_signature(identification, morphology, classification)
    return SummaryRow(
        run=run,
        subset=subset,
        scenario=scenario,
        class_f=dig(classification, "classificacao", "medida_f"),
        class_f_relaxed=dig(relaxed, "classificacao", "medida_f"),
        id_f_official=dig(classification, "identificacao", "medida_f"),
        id_precision=identification.get("precisao"),
        id_recall=identification.get("abrangencia"),
        id_f=identification.get("medida_f"),
        exact_f1=dig(labelled, "exact", "f1"),
        overlap_f1=dig(labelled, "overlap", "f1"),
        intersection_f1=dig(labelled, "intersection", "f1"),
        morf_precision=dig(combined, "precisao"),
        morf_recall=dig(combined, "abrangencia"),
        morf_f=dig(combined, "medida_f"),
        signature=signature,
        ceiling_of=ceiling_of,
    )


def build_veil_row(
    run: str, subset: str, veil: str, kind: str, classification: Mapping[str, Any] | None
) -> SummaryRow:
    """One row of the scenario grid: the Ida report of one run, subset, named veil and
    ALT (``kind``: ``strict``, ``relaxed`` or ``relative``, the relative scenario's
    strict-ALT report; None when it is missing).

    Only the Ida's figures are the veil's own: its classification F (in
    ``class_f``, whichever the ALT) and identification F.  Ida2ID, the span
    measures and the morphology are scored under the campaign's own veil, so
    they are undefined here rather than borrowed from another scenario.
    """
    return SummaryRow(
        run=run,
        subset=subset,
        scenario="relative" if kind == "relative" else "absolute",
        class_f=dig(classification, "classificacao", "medida_f"),
        class_f_relaxed=None,
        id_f_official=dig(classification, "identificacao", "medida_f"),
        id_precision=None,
        id_recall=None,
        id_f=None,
        exact_f1=None,
        overlap_f1=None,
        intersection_f1=None,
        morf_precision=None,
        morf_recall=None,
        morf_f=None,
        signature=str(dig(classification, "signature") or ""),
        veil=veil,
        alt="relaxed" if kind == "relaxed" else "strict",
    )


def row_signature(
    identification: Mapping[str, Any] | None,
    morphology: Mapping[str, Any] | None,
    classification: Mapping[str, Any] | None,
) -> str:
    """The signature of the strict Ida report (``.emir.ida``; relative rows:
    ``.emir_relativo.ida``), whose classification F ranks the row.

    Its signature carries the scenario and the ALT choice, so the absolute and
    the relative row of one run and subset never share a signature even where
    no morphology report tells them apart.  A row without an Ida report (an
    incomplete campaign) falls back to the morphology's, then the
    identification's signature.
    """
    for report in (classification, morphology, identification):
        signature = (report or {}).get("signature")
        if signature:
            return str(signature)
    return ""


def cell_text(value: Any) -> str:
    """A value as the summaries' tables print it: ``-`` when undefined, floats to 4 places."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


MORPHOLOGY_LEGEND = "Morf. P, R, F: Ida2Mor's combined (gender and number) field. "
LEGEND = (
    "Class. F: semantic classification F (CSC) of the official strict-ALT Ida report "
    "(`.emir.ida`; relative rows: `.emir_relativo.ida`); Class. F relax.: the relaxed-ALT "
    "one (`.emir.altrel.ida`); Id. F (Ida): the identification F of the same `.emir.ida`, "
    "the figure the official HAREM result tables show. Id. P, Id. R, Id. F: Ida2ID's "
    "identification measures with partial credit (a partly identified entity counts for its "
    "share of the tokens, `soma_parciais_correctos`; the First HAREM `.globalid`), not the "
    "figures the official HAREM result tables show. Exact, Overlap, Inters. F1: the labelled "
    "span measures of the same documents. "
    + MORPHOLOGY_LEGEND
    + "Signature: that of the strict Ida report, whose Class. F ranks the row (its "
    "scenario and ALT included)."
)
"""What the columns are, printed under every Markdown summary (and in the HTML report)."""

FAMILY_LEGENDS = (
    (
        "Class. F",
        "Classification F (Class. F, Class. F relax.) counts, over the entities Ida aligned "
        "with a golden one, how much of each golden entity's category, type and subtype the "
        "run gave it (CSC), under the run's veil; it is what HAREM ranked systems by. A "
        "perfect model that predicts categories only reaches 1 only under a veil that scores "
        "categories alone; under the default veil, which scores types too, it stays below 1 "
        "(the Mini-HAREM gold exported by `harem export` and read back: 0.9001; "
        "`harem_pipeline.evaluate()` gives that ceiling as `ceiling`).",
    ),
    (
        "Id. F (Ida)",
        "Identification F of the Ida report (Id. F (Ida)) counts a run entity as identified "
        "whenever Ida aligned it with a golden entity, whatever its label, and per category "
        "it counts any aligned entity, so it can be far above the exact F. Labels do not "
        "enter it, but a flat layer cannot hold every golden entity of an ALT block: the "
        "Mini-HAREM gold exported and read back gets 0.9965 (29 of 3,633 golden entities "
        "missing).",
    ),
    (
        "Id. F",
        "Ida2ID identification (Id. P, Id. R, Id. F) counts each golden entity's share of "
        "tokens the run identified (partial credit), ignoring labels; a perfect model, "
        "category-only or not, gets 1 (the Mini-HAREM gold exported and read back: 1.0).",
    ),
    (
        "Exact F1",
        "Span measures (Exact, Overlap, Inters. F1) count labelled spans: exact is "
        "conlleval's and seqeval's F (start, end and label equal), overlap and intersection "
        "give credit for spans that share characters. A perfect category-only model gets 1 "
        "on each when the labels are categories.",
    ),
)
"""One paragraph per figure family: what it counts and what a perfect category-only model
gets (printed under the Markdown summary and in the HTML legend)."""


def family_legend() -> str:
    """The families' paragraphs, blank-line apart (the Markdown summary's)."""
    return "\n\n".join(text for _, text in FAMILY_LEGENDS)


CEILING_LEGEND = (
    "Ceiling rows (NAME-ceiling, one beside each model run): the golden collection itself, "
    "exported by `harem export` in the model's label set (categories, or CAT:TIPO when the "
    "model predicts types; the selective categories for a model that declared them) and "
    "read back as that model's predictions, scored the same way. They are the best figures "
    "a model predicting that label set can get: a model's figure is read against its "
    "ceiling, not against 1."
)
"""What the ceiling rows are (the Markdown summary and the HTML report, when there are any)."""

RELATIVE_NOTE = (
    "In the relative scenario, the identification of the Ida report (Id. F (Ida), its "
    "precision and recall, and the same per category) is not a proportion and may exceed 1, "
    "as the official programs print it: the relative report (`.emir_relativo.ida`) keeps "
    "only the records where the system found the golden entity (the missing and the "
    "spurious ones are dropped), so every system entity it keeps counts as correctly "
    "identified (precision 1); but a golden entity the system split into n pieces adds n "
    "to the correct entities and 1 to the golden total (Ida counts each system entity, "
    "but each golden entity once), so recall, and F with it, exceed 1 "
    "whenever the system splits entities. Read it as system entities per golden entity "
    "found, not as a share; the classification F of the relative rows is a proportion. "
    "The same count can lift a per-category identification recall of the absolute scenario "
    "above 1 too, for a category with few missing entities."
)
"""Why a relative row's identification may exceed 1 (the summary, the HTML report, the README)."""


def sortable_section(
    anchor: str,
    title: str,
    columns: Sequence[tuple[str, str]],
    names: Collection[str],
    body: Iterable[str],
    legend: str,
) -> str:
    """An HTML report section of one sortable table (the TEMPO and ReRelEM tracks').

    ``columns`` are (key, label); the columns in ``names`` hold names (left-aligned);
    ``body`` is the rows, already rendered, and ``legend`` the text below the table.
    """
    head = "".join(
        f'<th class="name">{escape(label)}</th>' if key in names else f"<th>{escape(label)}</th>"
        for key, label in columns
    )
    return (
        f'<section id="{anchor}"><h2>{title}</h2>'
        f'<div class="scroll"><table class="sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        f'<p class="muted">{escape(legend)}</p></section>'
    )


def markdown_table(labels: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table's lines: the head, the rule, a line a row of cells.

    Each cell's ``|`` is escaped (``\\|``), even inside code, so cells stay cells.
    """
    lines = ["| " + " | ".join(labels) + " |", "|" + "---|" * len(labels)]
    for cells in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return lines


MORPHOLOGY_COLUMNS = frozenset({"morf_precision", "morf_recall", "morf_f"})


def format_markdown(
    rows: Iterable[SummaryRow],
    notes: Iterable[str] = (),
    morphology: bool = True,
) -> str:
    """A Markdown table; undefined values show as ``-``.

    ``notes`` are paragraphs between the title and the table (what was not
    run, what is missing); the column legend follows the table, and, when a
    row is of the relative scenario, why its identification may exceed 1.
    Without ``morphology`` (a collection with no MORF, said in the notes)
    the table has no Morf. columns; the CSV and JSON keep every column.
    """
    rows = list(rows)
    columns = [
        (key, label) for key, label in COLUMNS if morphology or key not in MORPHOLOGY_COLUMNS
    ]
    lines = ["# HAREM campaign summary", ""]
    for note in notes:
        lines += [note, ""]
    table = []
    for row in rows:
        values = asdict(row)
        cells = [cell_text(values[key]) for key, _ in columns]
        cells[-1] = f"`{cells[-1]}`" if values["signature"] else "-"
        table.append(cells)
    lines += markdown_table([label for _, label in columns], table)
    legend = LEGEND if morphology else LEGEND.replace(MORPHOLOGY_LEGEND, "")
    lines += ["", legend, "", family_legend()]
    if any(row.ceiling_of for row in rows):
        lines += ["", CEILING_LEGEND]
    if any(row.scenario == "relative" for row in rows):
        lines += ["", RELATIVE_NOTE]
    return "\n".join(lines) + "\n"


def format_csv(rows: Iterable[SummaryRow]) -> str:
    """CSV with a header of field names; undefined values are empty cells.

    The ``veil`` and ``alt`` columns come last, so the campaign's own rows
    (empty there) read as before by column name; ``ceiling_of`` follows when a
    row is a ceiling run's.
    """
    rows = list(rows)
    ceilings = (("ceiling_of", "Ceiling of"),) if any(row.ceiling_of for row in rows) else ()
    columns = (*COLUMNS, *VEIL_COLUMNS, *ceilings)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([key for key, _ in columns])
    for row in rows:
        values = asdict(row)
        writer.writerow(["" if values[key] is None else values[key] for key, _ in columns])
    return buffer.getvalue()


SUMMARY_KEYS = ("rows", "campaign", "reports")
"""What every ``summary.json`` that ``harem run`` writes holds (complete or not)."""


def check_campaign_summary(data: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """``data`` when it is a campaign summary; else an ``InputError`` naming what lacks.

    A ``{}`` (or another JSON object) would otherwise become a report page
    of no run, with exit status 0.
    """
    missing = [key for key in SUMMARY_KEYS if key not in data]
    if missing:
        raise InputError(
            path,
            "the campaign summary harem run writes (keys rows, campaign, reports)",
            "an empty object" if not data else f"no {', '.join(missing)}",
        )
    if not isinstance(data["reports"], list) or not isinstance(data["campaign"], dict):
        raise InputError(path, "a list of reports and a campaign object", "other values")
    return data


def format_json(rows: Iterable[SummaryRow], veil_rows: Iterable[SummaryRow] = ()) -> str:
    """JSON: ``{"rows": [...]}`` with null for undefined values, and the scenario
    grid's rows apart (``veil_rows``, when there are any), so that a reader of
    ``rows`` sees the campaign's own rows only."""
    data: dict[str, Any] = {"rows": [_row_json(row) for row in rows]}
    veils = [_row_json(row) for row in veil_rows]
    if veils:
        data["veil_rows"] = veils
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _row_json(row: SummaryRow) -> dict[str, Any]:
    """A row as JSON: ``ceiling_of`` only on a ceiling run's row."""
    values = asdict(row)
    if values["ceiling_of"] is None:
        del values["ceiling_of"]
    return values
