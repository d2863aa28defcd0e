"""A relation-graph view of a ReRelEM triples file: one SVG per document, in one HTML page.

It replaces the official Swing viewer (``ViewRelationGraphs``): each
document's entities (``ID CATEGORY`` nodes) sit on a circle; golden
relations (``[CD]``) are solid lines, the system's (``[Part]``) dashed;
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


def _svg(graph: DocumentGraph) -> str:
    nodes = list(
        dict.fromkeys(
            f"{end} {cat}"
            for t in graph.gold + graph.system
            for end, cat in ((t.a, t.source), (t.b, t.target))
        )
    )
    centre = SIZE / 2
    place = {
        node: (
            centre + RADIUS * math.cos(2 * math.pi * k / max(len(nodes), 1)),
            centre + RADIUS * math.sin(2 * math.pi * k / max(len(nodes), 1)),
        )
        for k, node in enumerate(nodes)
    }
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}">']
    for triples, dash in ((graph.gold, ""), (graph.system, ' stroke-dasharray="6 4"')):
        for t in triples:
            (x1, y1), (x2, y2) = place[f"{t.a} {t.source}"], place[f"{t.b} {t.target}"]
            colour = COLOURS.get(t.type, OTHER_COLOUR)
            parts.append(
                f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                f'stroke="{colour}" stroke-width="1.5"{dash}>'
                f"<title>{escape(str(t))}</title></line>"
            )
    for node, (x, y) in place.items():
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#000">'
            f"<title>{escape(node)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def format_graph_page(title: str, graphs: list[DocumentGraph]) -> str:
    """The HTML page: a legend, then each document with relations as an SVG."""
    legend = " ".join(
        f'<span style="color:{c}">&#9632; {escape(t)}</span>' for t, c in COLOURS.items()
    )
    legend += f' <span style="color:{OTHER_COLOUR}">&#9632; outra (any other type)</span>'
    body = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p>{legend}<br>solid: golden collection (CD); dashed: system (Part)</p>",
    ]
    for graph in graphs:
        if not graph.gold and not graph.system:
            continue
        body.append(
            f'<h2 id="{escape(graph.docid)}">{escape(graph.docid)}</h2>'
            f"<p>{len(graph.gold)} golden, {len(graph.system)} system relations</p>"
        )
        body.append(_svg(graph))
    body.append("</body></html>")
    return "\n".join(body) + "\n"
