"""Comparing two reports: is B really better than A?

Every report JSON (``.ida2id.json``, ``.ida2mor.json``, the Ida reports
``.emir.ida.json`` and their kin, ``harem measures --json``) keeps its
per-document counts under ``documents``.  Two reports of the same kind are
compared over the documents both have: for each measure, A, B and B − A over
those documents, and a one-sided paired bootstrap p-value
(Koehn 2004) — the share of resamples in which B is not better than A (not
higher; not lower for an error rate).  A small p says B's advantage is
unlikely to be an accident of which documents were drawn; identical reports
give a difference of 0 and p = 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harem_pipeline.errors import InputError
from harem_pipeline.measures import identification, morphology, semantic
from harem_pipeline.measures.bootstrap import ArrayMeasure, PairedResult, paired_table
from harem_pipeline.measures.resampling import BOOTSTRAP, Resampling
from harem_pipeline.measures.spans import span_figures
from harem_pipeline.reports.ida2mor import row_from_json
from harem_pipeline.text import PathLike
from harem_pipeline.text.textio import read_json_object

KINDS: dict[str, tuple[ArrayMeasure, tuple[str, ...]]] = {
    "ida2id": (identification.identification_figures, identification.LOWER_IS_BETTER),
    "ida2mor": (morphology.morphology_figures, morphology.LOWER_IS_BETTER),
    "measures": (span_figures, ()),
    "ida": (semantic.interval_figures, ()),
}
"""Report kind → (measures over count columns, the keys where lower is better)."""

_DETECT: tuple[tuple[str, Callable[[Mapping[str, Any]], bool]], ...] = (
    ("ida2mor", lambda obj: "fields" in obj and "scenario" in obj),
    ("ida2id", lambda obj: "total_cd" in obj and "precisao" in obj),
    ("measures", lambda obj: "labelled" in obj and "unlabelled" in obj),
    ("ida", lambda obj: "identificacao" in obj and "classificacao" in obj),
)


@dataclass(frozen=True, slots=True)
class LoadedReport:
    """What ``harem compare`` needs of a report: its kind and per-document counts."""

    path: str
    kind: str
    documents: dict[str, dict[str, float]]


@dataclass(frozen=True, slots=True)
class Comparison:
    """B against A: one paired result per measure, over ``shared`` documents."""

    kind: str
    a: str
    b: str
    shared: int
    only_a: int
    only_b: int
    resampling: Resampling
    results: tuple[PairedResult, ...]


def report_kind(obj: Mapping[str, Any]) -> str | None:
    """``ida2id``, ``ida2mor``, ``measures`` or ``ida`` from the report's keys; None if
    none fits."""
    for kind, test in _DETECT:
        if test(obj):
            return kind
    return None


def load_report(path: PathLike) -> LoadedReport:
    """Read a report JSON and check it carries per-document counts."""
    name = str(path)
    obj = read_json_object(path, "a report JSON")
    kind = report_kind(obj)
    if kind is None:
        raise InputError(
            name, "the JSON of harem ida2id, ida2mor, ida or measures", "another JSON document"
        )
    documents = obj.get("documents")
    if not isinstance(documents, dict) or not all(
        isinstance(counts, dict) for counts in documents.values()
    ):
        raise InputError(name, "per-document counts (a documents object; rerun the stage)", "none")
    if kind == "ida2mor":  # the JSON names counts in Portuguese, the formula in the code's words
        documents = {docid: row_from_json(counts) for docid, counts in documents.items()}
    return LoadedReport(name, kind, documents)


def compare_reports(
    a: LoadedReport,
    b: LoadedReport,
    resampling: Resampling = BOOTSTRAP,
) -> Comparison:
    """Every measure of B against A over their shared documents (paired bootstrap)."""
    if a.kind != b.kind:
        raise InputError(
            b.path,
            f"a report of the same kind as {a.path} ({a.kind})",
            f"{_article(b.kind)} {b.kind} report",
        )
    shared = set(a.documents) & set(b.documents)
    if not shared:
        raise InputError(b.path, f"documents in common with {a.path}", "none")
    measure, lower_is_better = KINDS[a.kind]
    results, count = paired_table(a.documents, b.documents, measure, resampling, lower_is_better)
    return Comparison(
        a.kind,
        a.path,
        b.path,
        count,
        len(a.documents) - count,
        len(b.documents) - count,
        resampling,
        tuple(results),
    )


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def format_comparison_text(comparison: Comparison) -> str:
    """An aligned table: measure, A, B, B−A, p (``-`` where undefined)."""
    c = comparison
    lines = [
        f"A: {c.a}",
        f"B: {c.b}",
        f"{c.kind} reports; {c.shared} shared documents"
        f" (only in A: {c.only_a}, only in B: {c.only_b});"
        f" paired bootstrap, {c.resampling.resamples} resamples, seed {c.resampling.seed}",
        "p: share of resamples where B is not better than A"
        " (not higher; not lower for an error rate)",
        "",
    ]
    rows = [["measure", "A", "B", "B-A", "p"]]
    for r in c.results:
        p = "-" if r.p_value is None else f"{r.p_value:.3f}"
        rows.append([r.key, _number(r.a), _number(r.b), _number(r.difference, True), p])
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            x.rjust(w) for x, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison as a JSON-ready dict."""
    c = comparison
    return {
        "kind": c.kind,
        "a": c.a,
        "b": c.b,
        "shared_documents": c.shared,
        "only_a": c.only_a,
        "only_b": c.only_b,
        "resamples": c.resampling.resamples,
        "seed": c.resampling.seed,
        "measures": {
            r.key: {"a": r.a, "b": r.b, "difference": r.difference, "p_value": r.p_value}
            for r in c.results
        },
    }
