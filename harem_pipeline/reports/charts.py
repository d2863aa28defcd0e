"""Charts of the campaign report, drawn with matplotlib as inline SVG.

Each function takes plain numbers and returns an ``<svg>`` element as text
(with the ranges of the axes that follow the figures, for the caption to say),
ready to be placed in the HTML page: no file, no network resource.  The SVG
keeps matplotlib's ``viewBox``, so the page scales it to its width, and its
text is real text at :data:`FONT_SIZE`.  It is made reproducible (fixed hash
salt, no date) so the same campaign gives the same report bytes.  Labels are
in Portuguese, as in the HAREM reports.
"""

from __future__ import annotations

import colorsys
import io
import math
from collections.abc import Iterable, Mapping, Sequence
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
WIDTH = 8.0
"""Figure width in inches (768 px at 96 dpi): the page shows a chart at most 60rem wide, so
at an 800 px window a chart is drawn at about its natural size."""
FONT_SIZE = 12
"""Every text of a chart in points (16 px at natural size): at least 11 px on the page at an
800 px window, where a chart with its legend beside it is scaled to about 0.75."""
STEP = 0.05
"""Axis ranges are whole multiples of this step."""


def series_colour(i: int, n: int) -> str:
    """The colour of series ``i`` of ``n``: all distinct within a chart, however many."""
    if n <= len(SERIES_COLOURS):
        return SERIES_COLOURS[i]
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

    plt.rcParams.update(
        {
            "font.size": FONT_SIZE,
            "axes.titlesize": FONT_SIZE,
            "axes.labelsize": FONT_SIZE,
            "xtick.labelsize": FONT_SIZE,
            "ytick.labelsize": FONT_SIZE,
            "legend.fontsize": FONT_SIZE,
            "figure.titlesize": FONT_SIZE,
        }
    )
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


def _errors(
    values: Sequence[float | None], intervals: Sequence[list[float] | None]
) -> list[list[float]]:
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


def axis_range(values: Iterable[float | None]) -> tuple[float, float]:
    """The range an axis needs to show ``values`` apart: from a multiple of :data:`STEP` at
    least 0.4 step (0.02) below the smallest, so no marker sits on the frame, to one as far
    above the largest; at least two steps wide, never below 0.

    Runs that all score between 0.6 and 0.7 drawn on 0–1 all look alike; drawn on
    0.55–0.75 their differences show.  The chart says its range (see ``describe_range``).
    """
    shown = [v for v in values if v is not None and math.isfinite(v)]
    if not shown:
        return 0.0, 1.0
    low = max(0.0, math.floor(round(min(shown) / STEP - 0.4, 9)) * STEP)
    high = math.ceil(round(max(shown) / STEP + 0.4, 9)) * STEP
    if high - low < 2 * STEP:
        high = low + 2 * STEP
    return round(low, 2), round(high, 2)


def describe_range(axis: str, bounds: tuple[float, float]) -> str:
    """``eixo vertical de 0.55 a 0.75 (não começa em 0)``: what a reader must know of an axis."""
    low, high = bounds
    text = f"eixo {axis} de {low:.2f} a {high:.2f}"
    return text + (" (não começa em 0)" if low > 0 else "")


def _ends(
    values: Sequence[float | None], intervals: Sequence[Sequence[float] | None] | None
) -> list[float | None]:
    """The values and the ends of their intervals: everything an axis must show."""
    ends: list[float | None] = list(values)
    for interval in intervals or ():
        if interval:
            ends.extend(interval)
    return ends


def grouped_points(
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    intervals: Mapping[str, Sequence[list[float] | None]] | None = None,
    legend_title: str = "subconjunto",
) -> tuple[str, tuple[float, float]]:
    """One marker per group and series, with its 95 % error bar when given; returns the SVG
    and the vertical axis range.  ``legend_title`` names what the series are.

    Markers, not bars: the axis starts where the figures are (``axis_range``), and a bar
    cut off at its foot would mislead about the ratio of two figures.
    """
    width = 0.8 / max(1, len(series))
    bounds = axis_range(
        v
        for name, values in series.items()
        for v in _ends(values, intervals.get(name) if intervals else None)
    )
    figure, axes = _pyplot().subplots(figsize=(WIDTH, 4.0))
    for i, (name, values) in enumerate(series.items()):
        shown = [(g, v) for g, v in enumerate(values) if v is not None]
        xs = [g + (i - (len(series) - 1) / 2) * width for g, _ in shown]
        ys = [v for _, v in shown]
        yerr = None
        if intervals and name in intervals:
            kept = [intervals[name][g] for g, _ in shown]
            yerr = _errors(ys, kept)
        axes.errorbar(
            xs, ys, yerr=yerr, fmt="o", markersize=7, capsize=4,
            label=name, color=series_colour(i, len(series)),
        )  # fmt: skip
    axes.set_xticks(range(len(groups)), groups, rotation=20, ha="right")
    axes.set_xlim(-0.5, len(groups) - 0.5)
    axes.set_ylim(*bounds)
    axes.set_ylabel("F")
    axes.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), title=legend_title)
    axes.grid(axis="y", alpha=0.3)
    return _to_svg(figure), bounds


def stacked_outcomes(
    panels: Sequence[tuple[str, Sequence[str], Sequence[Mapping[str, int]]]],
) -> str:
    """Stacked bars of outcome shares (Correcto, …) per run; one panel per field.

    ``panels`` holds (title, runs, counts per run) for each field, drawn side
    by side with one shared legend.
    """
    figure, axes_row = _pyplot().subplots(
        1, len(panels), figsize=(WIDTH, 4.2), sharey=True, squeeze=False
    )
    for axes, (title, runs, counts) in zip(axes_row[0], panels, strict=True):
        bottoms = [0.0] * len(runs)
        totals = [sum(c.values()) or 1 for c in counts]
        for outcome, colour in OUTCOME_COLOURS.items():
            shares = [c.get(outcome, 0) / t for c, t in zip(counts, totals, strict=True)]
            axes.bar(range(len(runs)), shares, 0.6, bottom=bottoms, label=outcome, color=colour)
            bottoms = [b + s for b, s in zip(bottoms, shares, strict=True)]
        axes.set_xticks(range(len(runs)), runs, rotation=40, ha="right", rotation_mode="anchor")
        axes.set_ylim(0, 1)
        axes.set_title(title)
    axes_row[0][0].set_ylabel("parte dos registos")
    handles, labels = axes_row[0][0].get_legend_handles_labels()
    # Below the panels, in rows: the panels keep the page's width, the legend stays legible.
    figure.legend(
        handles, labels, loc="upper center", ncol=3,
        bbox_to_anchor=(0.5, -0.08), frameon=False,
    )  # fmt: skip
    return _to_svg(figure)


MARKERS = ("o", "s", "^", "D", "v", "P")
"""One marker shape per measure family of the precision–recall chart."""


def precision_recall(
    title: str, points: Mapping[str, Mapping[str, tuple[float | None, float | None]]]
) -> tuple[str, tuple[float, float], tuple[float, float]]:
    """Precision against recall: one colour per run, one marker shape per measure family;
    returns the SVG and the ranges of the recall and precision axes.

    No text beside the markers (runs close together made their names overlap): one legend
    below the axes gives the families by shape, then the runs by colour.
    """
    from matplotlib.lines import Line2D

    runs = list(dict.fromkeys(run for family in points.values() for run in family))
    colours = {run: series_colour(i, len(runs)) for i, run in enumerate(runs)}
    shown = {
        family: [(r, p, rc) for r, (p, rc) in by_run.items() if p is not None and rc is not None]
        for family, by_run in points.items()
    }
    recall_range = axis_range(rc for pts in shown.values() for _, _, rc in pts)
    precision_range = axis_range(p for pts in shown.values() for _, p, _ in pts)
    figure, axes = _pyplot().subplots(figsize=(WIDTH, 5.0))
    for i, pts in enumerate(shown.values()):
        axes.scatter(
            [rc for _, _, rc in pts],
            [p for _, p, _ in pts],
            c=[colours[r] for r, _, _ in pts],
            marker=MARKERS[i % len(MARKERS)],
            s=70,
            edgecolors="#222",
            linewidths=0.6,
        )
    axes.set_xlim(*recall_range)
    axes.set_ylim(*precision_range)
    axes.set_xlabel("Abrangência")
    axes.set_ylabel("Precisão")
    if title:
        axes.set_title(title, loc="left")
    axes.grid(alpha=0.3)
    run_handles = [
        Line2D([], [], linestyle="", marker="o", markersize=9, color=colours[r], label=r)
        for r in runs
    ]
    family_handles = [
        Line2D([], [], linestyle="", marker=MARKERS[i % len(MARKERS)], markersize=9,
               color="#888", markeredgecolor="#222", label=family)
        for i, family in enumerate(shown)
    ]  # fmt: skip
    # One legend below the axes, not beside them: the figure keeps its width (so its text
    # its size), and the measures (by shape) and the runs (by colour) cannot overlap.
    axes.legend(
        handles=[*family_handles, *run_handles],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.14),
        ncol=3,
        title="medida (forma) e saída (cor)",
    )
    return _to_svg(figure), recall_range, precision_range
