"""Rendering the span measures: a JSON-ready dict and an aligned text table.

Reports only render: every number comes from ``MeasuresReport`` (counts,
measures, repairs, signature).  An undefined ratio is ``null`` in JSON and
``-`` in text, never 0 or 1.

The JSON puts a ``ci95`` object beside every precision/recall/f1 triple:
``{"precision": [lo, hi], "recall": …, "f1": …}``, 95 % document-bootstrap
intervals, ``null`` for a measure undefined in every resample and ``null``
as a whole when no bootstrap was run; the text table shows no intervals.
``documents`` holds each bootstrap unit's counts (``span_intervals``' flat
keys, zeros left out), which ``harem compare`` resamples: one entry per
unit, at most 2,000 (runs of consecutive documents beyond that), so the JSON
stays small whatever the input.  A unit is named by its first document: a
CoNLL unit by the line of its first token, a JSON-lines unit by its first
document's id, a HAREM unit by its DOCID.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice

from harem_pipeline.formats.jsontext import DOCUMENTS_KEY, ENCODER
from harem_pipeline.measures.spans import (
    PRF,
    LabelMeasures,
    MeasuresReport,
    UnitFigures,
    ViewMeasures,
    triple_interval,
)
from harem_pipeline.stages.span_errors import ERROR_FIELDS, ErrorSpill
from harem_pipeline.stages.span_units import UnitCounts
from harem_pipeline.stages.spans import CategoryCounts

MEASURE_ROWS = ("exact", "overlap", "intersection")
SEMEVAL_ROWS = ("strict", "exact", "partial", "type")
CATEGORY_ROWS = (
    ("correct", "correct"),
    ("label_error", "label error"),
    ("boundary_error", "boundary error"),
    ("label_boundary_error", "label and boundary error"),
    ("missing", "missing"),
    ("spurious", "spurious"),
)


def prf_json(value: PRF, ci95: dict | None = None) -> dict:
    """One triple with its intervals (``ci95`` None: no bootstrap)."""
    return {"precision": value.precision, "recall": value.recall, "f1": value.f1, "ci95": ci95}


def category_pairs(c: CategoryCounts) -> dict[str, tuple[int, int]]:
    """``category -> (system spans, gold spans)`` in report order."""
    return {
        "correct": (c.system_correct, c.gold_correct),
        "label_error": (c.system_label_error, c.gold_label_error),
        "boundary_error": (c.system_boundary_error, c.gold_boundary_error),
        "label_boundary_error": (c.system_label_boundary_error, c.gold_label_boundary_error),
        "missing": (0, c.missing),
        "spurious": (c.spurious, 0),
    }


def view_json(view: ViewMeasures, intervals: dict | None = None, name: str = "labelled") -> dict:
    """One view (``name``: labelled or unlabelled) with the intervals of ``span_intervals``."""
    view_name = name

    def ci(*path: str) -> dict | None:
        return triple_interval(intervals, view_name, *path)

    return {
        "exact": prf_json(view.exact, ci("exact")),
        "overlap": prf_json(view.overlap, ci("overlap")),
        "intersection": prf_json(view.intersection, ci("intersection")),
        "semeval": {
            name: prf_json(getattr(view.semeval, name), ci("semeval", name))
            for name in SEMEVAL_ROWS
        },
        "categories": {
            name: {"system": s, "gold": g}
            for name, (s, g) in category_pairs(view.categories).items()
        },
    }


def label_json(
    measures: LabelMeasures, intervals: dict | None = None, label: str | None = ""
) -> dict:
    """One label's triples with their intervals (from ``span_intervals``); ``label``
    None: the macro averages."""
    path = ("macro",) if label is None else ("per_label", label)
    return {
        name: prf_json(getattr(measures, name), triple_interval(intervals, *path, name))
        for name in MEASURE_ROWS
    }


def measures_json(report: MeasuresReport, tails: bool = True) -> dict:
    """The report as the JSON object ``harem measures --json`` prints, but ``errors``
    (which :func:`measures_streams` gives) and, without ``tails``, ``per_document``
    and ``documents`` (which :func:`measures_lines` gives as text)."""
    m, intervals = report.measures, report.intervals
    out = {
        "labelled": view_json(m.labelled, intervals, "labelled"),
        "unlabelled": view_json(m.unlabelled, intervals, "unlabelled"),
        "per_label": {label: label_json(lm, intervals, label) for label, lm in m.per_label},
        "macro": None if m.macro is None else label_json(m.macro, intervals, MACRO_PATH),
        "token_accuracy": report.token_accuracy,
        "confusion": None if report.errors is None else report.errors.confusion(),
        "repairs": {"gold": report.repairs.gold, "system": report.repairs.system},
        "signature": report.signature,
    }
    if tails:
        if report.per_document:
            out["per_document"] = dict(report.per_document.items())
        out[DOCUMENTS_KEY] = dict(report.document_counts)
    return out


MACRO_PATH = None
"""``label_json``'s label for the macro averages: their intervals are at ``macro``."""


def measures_lines(report: MeasuresReport) -> dict[str, Iterator[str]]:
    """The objects written one entry a line, as the entries' JSON texts: ``per_document``
    (with units) and ``documents``, what ``measures_json`` would hold, written without
    building them.  Neither needs the intervals."""
    lines = {DOCUMENTS_KEY: document_lines(report.document_counts)}
    if report.per_document:
        lines["per_document"] = unit_lines(report.per_document)
    return lines


def document_lines(units: UnitCounts) -> Iterator[str]:
    """Each unit's ``"name": {...}`` flat counts as JSON text, as ``json.dumps`` writes
    them (:meth:`CountLayout.row_items`; a count's text is its ``repr``, as JSON's),
    written from the rows without building the mappings."""
    layout = units.layout
    keys = [ENCODER.encode(key) + ": " for key in layout.keys]
    for name, row in zip(units.names, units.rows.tolist(), strict=True):
        cells = [keys[i] + repr(value) for i, value in layout.row_items(row)]
        yield f"{ENCODER.encode(name)}: {{{', '.join(cells)}}}"


def unit_lines(figures: UnitFigures) -> Iterator[str]:
    """Each unit's ``"name": {...}`` JSON text (as ``json.dumps``, floats with every digit).

    A unit's text is its shape's template -- :meth:`UnitFigures.unit` with a
    numbered placeholder in each figure's place, encoded once per set of
    labels present -- filled with its figures; each distinct float is
    turned into text once.
    """
    templates: dict[tuple[bool, ...], tuple[str, list[int]]] = {}
    texts: dict[float, str] = {}
    labels = sorted(figures.present)
    marks = [f"\0{k}\0" for k in range(len(figures.values[0]) if figures.values else 0)]
    for u, name in enumerate(figures.names):
        shape = tuple(figures.present[label][u] for label in labels)
        found = templates.get(shape)
        if found is None:
            text = ENCODER.encode(figures.unit(u, marks)).replace("%", "%%")
            order = [int(k) for k in _PLACEHOLDER.findall(text)]
            found = templates[shape] = (_PLACEHOLDER.sub("%s", text), order)
        template, order = found
        row = figures.values[u]
        values = []
        for k in order:
            value = row[k]
            shown = texts.get(value)
            if shown is None:
                if value != value:  # NaN: undefined
                    shown = "null"
                else:  # as json writes a float (the shortest text that reads back)
                    shown = texts[value] = float.__repr__(value)
            values.append(shown)
        yield f"{ENCODER.encode(name)}: {template % tuple(values)}"


_PLACEHOLDER = re.compile(r'"\\u0000(\d+)\\u0000"')
"""A figure's place in a unit's template (JSON writes the placeholder's NULs escaped)."""


def measures_streams(report: MeasuresReport) -> dict:
    """The JSON arrays written piece by piece: ``errors`` (one JSON text per entry)."""
    return {} if report.errors is None else {"errors": report.errors.lines()}


def format_errors_tsv(records: Iterable[Mapping]) -> Iterator[str]:
    """The error listing as a table: a header, then one tab-separated line per entry.

    Columns are the JSON keys; ``other`` is written ``start-end LABEL`` joined
    by ``; ``, an absent document or sentence as an empty cell, and blanks
    inside the text (a HAREM text may span lines) as one space.
    """
    yield "\t".join(ERROR_FIELDS) + "\n"
    for entry in records:
        cells = []
        for key in ERROR_FIELDS:
            value = entry[key]
            if key == "other":
                value = "; ".join(f"{s}-{e} {label}" for s, e, label in value)
            cells.append("" if value is None else " ".join(str(value).split()))
        yield "\t".join(cells) + "\n"


def percent(value: float | None) -> str:
    """A ratio as a percentage with two decimals (conlleval's style); ``-`` if undefined."""
    return "-" if value is None else f"{100 * value:.2f}"


def _prf_cells(value: PRF) -> list[str]:
    return [percent(value.precision), percent(value.recall), percent(value.f1)]


def _table(rows: list[list[str]], left: int = 1) -> list[str]:
    """Align ``rows``: the first ``left`` columns to the left, the others to the right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.ljust(w) if i < left else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def format_measures_text(report: MeasuresReport) -> str:
    """The human-readable report: measures, categories, per-label table, repairs."""
    m, c = report.measures, report.counts
    if report.sentences is None:
        units = f"documents: {report.documents}"
    elif report.documents:
        units = f"documents: {report.documents}  sentences: {report.sentences}"
    else:  # a CoNLL file without -DOCSTART- lines
        units = f"sentences: {report.sentences}"
    out = [
        f"Span measures of {report.path}",
        f"{units}  tokens: {report.tokens}  "
        f"gold spans: {c.labelled.match.gold}  system spans: {c.labelled.match.system}",
        "",
    ]
    rows = [
        ["", "labelled", "", "", "unlabelled", "", ""],
        ["measure", "P", "R", "F", "P", "R", "F"],
    ]
    for name in MEASURE_ROWS:
        rows.append(
            [name, *_prf_cells(getattr(m.labelled, name)), *_prf_cells(getattr(m.unlabelled, name))]
        )
    for name in SEMEVAL_ROWS:
        rows.append(
            [
                f"semeval {name}",
                *_prf_cells(getattr(m.labelled.semeval, name)),
                *_prf_cells(getattr(m.unlabelled.semeval, name)),
            ]
        )
    if m.macro is not None and m.per_label:
        for name in MEASURE_ROWS:
            rows.append([f"macro {name}", *_prf_cells(getattr(m.macro, name)), "", "", ""])
    out += _table(rows)
    out.append("")
    rows = [
        ["", "labelled", "", "unlabelled", ""],
        ["category", "system", "gold", "system", "gold"],
    ]
    lab, unl = category_pairs(m.labelled.categories), category_pairs(m.unlabelled.categories)
    for key, title in CATEGORY_ROWS:
        rows.append([title, *map(str, lab[key]), *map(str, unl[key])])
    rows.append(
        [
            "total",
            str(m.labelled.categories.system_total),
            str(m.labelled.categories.gold_total),
            str(m.unlabelled.categories.system_total),
            str(m.unlabelled.categories.gold_total),
        ]
    )
    out += _table(rows)
    if m.per_label:
        out.append("")
        rows = [
            ["", "", "", "exact", "", "", "overlap", "", "", "intersection", "", ""],
            ["label", "gold", "system", "P", "R", "F", "P", "R", "F", "P", "R", "F"],
        ]
        counts = dict(c.per_label)
        for label, lm in m.per_label:
            rows.append(
                [
                    label,
                    str(counts[label].gold),
                    str(counts[label].system),
                    *_prf_cells(lm.exact),
                    *_prf_cells(lm.overlap),
                    *_prf_cells(lm.intersection),
                ]
            )
        out += _table(rows)
    if report.errors is not None:
        out += _confusion_lines(report.errors.confusion())
        out += _error_lines(report.errors, TEXT_ERRORS)
    out.append("")
    out.append(f"token accuracy: {percent(report.token_accuracy)}")
    scheme = f" (scheme {report.scheme})" if report.scheme else ""
    out.append(f"repairs{scheme}: gold {report.repairs.gold}, system {report.repairs.system}")
    out.append(f"signature: {report.signature}")
    return "\n".join(out) + "\n"


TEXT_ERRORS = 20
"""Error entries the text report shows (the JSON and ``--errors`` have them all)."""


def _confusion_lines(table: dict[str, dict[str, int]]) -> list[str]:
    """The confusion as a table: gold keys down, system keys across (empty cells blank)."""
    if not table:
        return []
    columns: list[str] = []
    for row in table.values():
        columns += [key for key in row if key not in columns]
    labels = sorted(k for k in columns if not k.startswith("("))
    columns = labels + sorted((k for k in columns if k.startswith("(")), reverse=True)
    rows = [["gold \\ system", *columns]]
    for gold, row in table.items():
        rows.append([gold, *(str(row[c]) if c in row else "" for c in columns)])
    return ["", "confusion (same boundaries; rows gold, columns system)", *_table(rows)]


def _error_lines(errors: ErrorSpill, limit: int) -> list[str]:
    """The first ``limit`` errors in short form, and how many there are."""
    total = len(errors)
    if not total:
        return ["", "errors: none"]
    out = ["", f"errors: {total} (the first {min(limit, total)}; all in --json and --errors)"]
    for entry in islice(errors.records(), limit):
        out.append("  " + short_error(entry))
    return out


def short_error(entry: Mapping) -> str:
    """``boundary_error system PER 3-5 "Vila Real" (line 12) ~ 3-4 PER``: one entry on one line.

    ``sentence`` is a file line (where a CoNLL sentence or a JSON-lines document
    starts); ``document`` a CoNLL ``-DOCSTART-`` line, a JSON-lines id or a DOCID.
    """
    where = []
    if entry["document"] is not None:
        where.append(f"document {entry['document']}")
    if entry["sentence"] is not None:
        where.append(f"line {entry['sentence']}")
    place = f" ({', '.join(where)})" if where else ""
    other = "; ".join(f"{s}-{e} {label}" for s, e, label in entry["other"]) or "nothing"
    text = " ".join(str(entry["text"]).split())
    return (
        f"{entry['kind']} {entry['side']} {entry['label']} {entry['start']}-{entry['end']} "
        f'"{text}"{place} ~ {other}'
    )
