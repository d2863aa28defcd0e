"""Charts of the campaign report, drawn with matplotlib as inline SVG.

Each function takes plain numbers and returns an ``<svg>`` element as text,
ready to be placed in the HTML page: no file, no network resource.  The SVG
is made reproducible (fixed hash salt, no date) so the same campaign gives
the same report bytes.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

OUTCOME_COLOURS = {
    "Correcto": "#2e7d32",
    "Parcialmente Correcto": "#9ccc65",
    "Incorrecto": "#c62828",
    "Em Falta": "#f9a825",
    "Espúrio": "#6a1b9a",
    "Sobre especificado": "#1565c0",
    "Parcialmente sobre especificado": "#64b5f6",
}
SERIES_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#8c6d31",
)  # fmt: skip
WIDTH = 11.0
"""Figure width in inches: the page shows every chart at its full width."""
LEGEND_SIZE = 10
"""Legend and annotation font size in points, legible at the page width."""


def series_colour(i: int, n: int) -> str:
    """The colour of series ``i`` of ``n``: all distinct within a chart, however many."""
    if n <= len(SERIES_COLOURS):
        return SERIES_COLOURS[i]
    import colorsys

    r, g, b = colorsys.hsv_to_rgb(i / n, 0.65, 0.8)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


@cache
def _pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend, imported on first use.

    Importing matplotlib costs about a third of a second; only drawing a
    report should pay it, not every command or pipeline run that merely
    imports this module.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _to_svg(figure: Any) -> str:
    """The figure as an ``<svg>`` element (XML prologue and DOCTYPE dropped)."""
    plt = _pyplot()
    buffer = io.StringIO()
    with plt.rc_context({"svg.hashsalt": "harem-report", "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _errors(values: Sequence[float | None], intervals: Sequence[list[float] | None]):
    """Asymmetric error-bar lengths, zero where an interval is unknown."""
    lower, upper = [], []
    for value, interval in zip(values, intervals, strict=True):
        if value is None or not interval:
            lower.append(0.0)
            upper.append(0.0)
        else:
            lower.append(max(0.0, value - interval[0]))
            upper.append(max(0.0, interval[1] - value))
    return [lower, upper]


def grouped_bars(
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    intervals: Mapping[str, Sequence[list[float] | None]] | None = None,
    ylabel: str = "F",
) -> str:
    """Bars of one value per group and series, with 95 % error bars when given."""
    width = 0.8 / max(1, len(series))
    figure, axes = _pyplot().subplots(figsize=(WIDTH, 4.0))
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [v if v is not None else 0.0 for v in values]
        yerr = _errors(values, intervals[name]) if intervals and name in intervals else None
        axes.bar(
            xs,
            heights,
            width,
            label=name,
            color=series_colour(i, len(series)),
            yerr=yerr,
            capsize=3 if yerr else 0,
        )
    axes.set_xticks(range(len(groups)), groups, rotation=20, ha="right")
    axes.set_ylim(0, 1.05)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize=LEGEND_SIZE, loc="center left", bbox_to_anchor=(1.0, 0.5))
    axes.grid(axis="y", alpha=0.3)
    return _to_svg(figure)


def stacked_outcomes(
    panels: Sequence[tuple[str, Sequence[str], Sequence[Mapping[str, int]]]],
    title: str = "",
) -> str:
    """Stacked bars of outcome shares (Correcto, …) per run; one panel per field.

    ``panels`` holds (title, runs, counts per run) for each field, drawn side
    by side with one shared legend; ``title`` goes above them all.
    """
    figure, axes_row = _pyplot().subplots(
        1, len(panels), figsize=(WIDTH, 4.2), sharey=True, squeeze=False
    )
    if title:
        figure.suptitle(title)
    for axes, (title, runs, counts) in zip(axes_row[0], panels, strict=True):
        bottoms = [0.0] * len(runs)
        totals = [sum(c.values()) or 1 for c in counts]
        for outcome, colour in OUTCOME_COLOURS.items():
            shares = [c.get(outcome, 0) / t for c, t in zip(counts, totals, strict=True)]
            axes.bar(range(len(runs)), shares, 0.6, bottom=bottoms, label=outcome, color=colour)
            bottoms = [b + s for b, s in zip(bottoms, shares, strict=True)]
        axes.set_xticks(range(len(runs)), runs, rotation=20, ha="right")
        axes.set_ylim(0, 1)
        axes.set_title(title)
    axes_row[0][0].set_ylabel("share of records")
    handles, labels = axes_row[0][0].get_legend_handles_labels()
    # Below the panels, in rows: the panels keep the page's width, the legend stays legible.
    figure.legend(
        handles, labels, fontsize=LEGEND_SIZE, loc="upper center", ncol=4,
        bbox_to_anchor=(0.5, 0.02), frameon=False,
    )  # fmt: skip
    return _to_svg(figure)


def precision_recall(
    title: str, points: Mapping[str, Mapping[str, tuple[float | None, float | None]]]
) -> str:
    """Precision against recall: one marker per run, one colour per measure family."""
    figure, axes = _pyplot().subplots(figsize=(WIDTH, 5.0))
    for i, (family, runs) in enumerate(points.items()):
        colour = series_colour(i, len(points))
        shown = [(r, p, rc) for r, (p, rc) in runs.items() if p is not None and rc is not None]
        axes.scatter(
            [rc for _, _, rc in shown], [p for _, p, _ in shown], label=family, color=colour
        )
        for run, p, rc in shown:
            axes.annotate(
                run, (rc, p), fontsize=LEGEND_SIZE, xytext=(3, 3), textcoords="offset points"
            )
    axes.set_xlim(0, 1.05)
    axes.set_ylim(0, 1.05)
    axes.set_xlabel("recall (Abrangência)")
    axes.set_ylabel("precision (Precisão)")
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=LEGEND_SIZE, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _to_svg(figure)
