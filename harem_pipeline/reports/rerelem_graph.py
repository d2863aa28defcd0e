"""A relation-graph view of a ReRelEM triples file: one SVG per document, in one HTML page.

It replaces the official Swing viewer (``ViewRelationGraphs``): each
document's entities (``ID CATEGORY`` nodes) sit on a circle; golden
relations (``[CD]``) are straight solid arrows, the system's (``[Part]``)
curved dashed ones;
the colour is the type (the five basic types each their own, every other
type grey, as the evaluator scores them as ``outra``).  Input is a
``.triplas`` or ``.filtrado`` file (docs/spec/rerelem.md, stage 5).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape

from harem_pipeline.stages.rerelem.scoring import CD_MARK, PART_MARK, Triple, parse_triple

COLOURS = {
    "ident": "#1f77b4",
    "inclui": "#2ca02c",
    "incluido": "#98df8a",
    "sede_de": "#d62728",
    "ocorre_em": "#ff9896",
}
OTHER_COLOUR = "#7f7f7f"
SIZE = 520
RADIUS = 200
MAX_LABELS = 60
"""Documents with more entities show no labels (the dots' tooltips still name them)."""


@dataclass(slots=True)
class DocumentGraph:
    """One document's golden and system relations."""

    docid: str
    gold: list[Triple] = field(default_factory=list)
    system: list[Triple] = field(default_factory=list)


def read_graphs(lines: Iterable[str]) -> list[DocumentGraph]:
    """The documents of a triples file, their ``[CD]`` and ``[Part]`` relations."""
    graphs: list[DocumentGraph] = []
    side: list[Triple] | None = None
    for line in lines:
        if line.startswith("DOC"):
            graphs.append(DocumentGraph(line[4:]))
            side = None
        elif line.startswith(CD_MARK) and graphs:
            side = graphs[-1].gold
        elif line.startswith(PART_MARK) and graphs:
            side = graphs[-1].system
        elif line.startswith("EOD"):
            side = None
        elif side is not None:
            triple = parse_triple(line)
            if triple is not None:
                side.append(triple)
    return graphs


def _nodes(graph: DocumentGraph) -> list[str]:
    """The ``ID CATEGORY`` nodes of a document, in the order they first occur."""
    return list(
        dict.fromkeys(
            f"{end} {cat}"
            for t in graph.gold + graph.system
            for end, cat in ((t.a, t.source), (t.b, t.target))
        )
    )


def _label(node: str, docid: str) -> str:
    """A node's short label: its ID without the document's ``DOCID-`` prefix."""
    ident = node.split(" ", 1)[0]
    return ident.removeprefix(docid + "-")


def _colour_id(relation_type: str) -> str:
    """The arrow marker of a type's colour (one per colour, defined once in the page)."""
    colours = list(COLOURS)
    return f"m{colours.index(relation_type)}" if relation_type in COLOURS else "mo"


def _markers() -> str:
    """The arrowheads, one per colour, in a hidden SVG every document's SVG refers to."""
    ids = [(f"m{i}", colour) for i, colour in enumerate(COLOURS.values())]
    ids.append(("mo", OTHER_COLOUR))
    marks = "".join(
        f'<marker id="{key}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="{colour}"/></marker>'
        for key, colour in ids
    )
    return (
        '<svg width="0" height="0" style="position:absolute" aria-hidden="true">'
        f"<defs>{marks}</defs></svg>"
    )


def _edge(start: tuple[float, float], end: tuple[float, float], bend: float) -> str:
    """An edge's path from ``start`` to ``end``, stopping short of the target's dot;
    ``bend`` (px) curves it toward the circle's centre (the system's edges)."""
    (x1, y1), (x2, y2) = start, end
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    x2, y2 = x2 - (x2 - x1) * 6 / length, y2 - (y2 - y1) * 6 / length
    if not bend:
        return f"M{x1:.1f} {y1:.1f}L{x2:.1f} {y2:.1f}"
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    centre = SIZE / 2
    towards = math.hypot(centre - mx, centre - my) or 1.0
    cx, cy = mx + (centre - mx) * bend / towards, my + (centre - my) * bend / towards
    return f"M{x1:.1f} {y1:.1f}Q{cx:.1f} {cy:.1f} {x2:.1f} {y2:.1f}"


def _svg(graph: DocumentGraph) -> str:
    """One document: its entities on a circle, labelled by ID (when at most
    :data:`MAX_LABELS`); the golden relations straight and solid, the system's
    curved inward and dashed (so that a relation both give shows twice); arrows
    point from an argument to the other (``A type B``)."""
    nodes = _nodes(graph)
    centre = SIZE / 2
    angle = {node: 2 * math.pi * k / max(len(nodes), 1) for k, node in enumerate(nodes)}
    place = {
        node: (centre + RADIUS * math.cos(a), centre + RADIUS * math.sin(a))
        for node, a in angle.items()
    }
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" '
        f'role="img" aria-label="{escape(graph.docid)}">'
    ]
    for triples, dash, bend in (
        (graph.gold, "", 0.0),
        (graph.system, ' stroke-dasharray="6 4"', 28.0),
    ):
        for t in triples:
            path = _edge(place[f"{t.a} {t.source}"], place[f"{t.b} {t.target}"], bend)
            colour = COLOURS.get(t.type, OTHER_COLOUR)
            parts.append(
                f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.5"{dash} '
                f'marker-end="url(#{_colour_id(t.type)})"><title>{escape(str(t))}</title></path>'
            )
    for node, (x, y) in place.items():
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#000">'
            f"<title>{escape(node)}</title></circle>"
        )
        if len(nodes) <= MAX_LABELS:
            a = angle[node]
            lx, ly = centre + (RADIUS + 12) * math.cos(a), centre + (RADIUS + 12) * math.sin(a)
            anchor = "start" if math.cos(a) > 0.2 else "end" if math.cos(a) < -0.2 else "middle"
            parts.append(
                f'<text x="{lx:.1f}" y="{ly + 3:.1f}" font-size="10" text-anchor="{anchor}">'
                f"{escape(_label(node, graph.docid))}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


PAGE_STYLE = (
    "body{font-family:sans-serif;margin:1em 2em;color:#222}"
    ".legend span{margin-right:1em;white-space:nowrap}"
    ".docs{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),1fr));"
    "gap:1em}"
    "figure{margin:0;border:1px solid #ddd;border-radius:4px;padding:.5em;min-width:0}"
    "figure h2{font-size:1em;margin:.2em 0;overflow-wrap:anywhere}"
    "figure p{margin:.2em 0;color:#555;font-size:.9em}"
    "svg{width:100%;height:auto;display:block}"
    "details{margin:1em 0}table{border-collapse:collapse}"
    "td,th{border:1px solid #ddd;padding:.1em .5em;text-align:right}"
    "td:first-child,th:first-child{text-align:left}"
)


def _shared(graph: DocumentGraph) -> int:
    """The system relations the golden collection gives too (same arguments and type)."""
    gold = {(t.a, t.type, t.b) for t in graph.gold}
    return sum((t.a, t.type, t.b) in gold for t in graph.system)


def format_graph_page(title: str, graphs: list[DocumentGraph]) -> str:
    """The HTML page: a legend, the documents' counts, then each document with
    relations as an SVG (a grid of them, as many a row as the window takes)."""
    legend = "".join(
        f'<span style="color:{c}">&#9632; {escape(t)}</span>' for t, c in COLOURS.items()
    )
    legend += f'<span style="color:{OTHER_COLOUR}">&#9632; outra (any other type)</span>'
    shown = [g for g in graphs if g.gold or g.system]
    rows = "".join(
        f'<tr><td><a href="#{escape(g.docid)}">{escape(g.docid)}</a></td>'
        f"<td>{len(g.gold)}</td><td>{len(g.system)}</td><td>{_shared(g)}</td></tr>"
        for g in shown
    )
    body = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{PAGE_STYLE}</style></head><body>",
        _markers(),
        f"<h1>{escape(title)}</h1>",
        f'<p class="legend">{legend}</p>',
        "<p>Straight solid lines: the golden collection's relations (CD); curved dashed "
        "lines: the system's (Part); arrows point from the first argument to the second. "
        "Hover a line or a dot for the relation or the entity.</p>",
        f"<details><summary>{len(shown)} documents with relations</summary><table>"
        "<tr><th>Document</th><th>golden</th><th>system</th><th>both</th></tr>"
        f"{rows}</table></details>",
        '<div class="docs">',
    ]
    for graph in shown:
        body.append(
            f'<figure id="{escape(graph.docid)}"><h2>{escape(graph.docid)}</h2>'
            f"<p>{len(graph.gold)} golden, {len(graph.system)} system relations, "
            f"{_shared(graph)} of them in both</p>{_svg(graph)}</figure>"
        )
    body.append("</div></body></html>")
    return "\n".join(body) + "\n"
