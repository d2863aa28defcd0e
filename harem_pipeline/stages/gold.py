"""The categories of a golden collection, against the grid it is scored with.

A category of the golden collection that the grid lacks (a typo such as
``PESOA``) is an error of no stage: AlinhEM, AvalIDa and Véus copy it, and
Emir scores it against the grid, silently (the system's right category
becomes a spurious one).  Before a campaign runs, each such category is
said in one line naming the file, the line and the DOCID of its first
entity, and how many entities carry it.

It is a warning, not a refusal: the official First HAREM collection of the
LÂMPADA 2.0 package (``CDPrimeiroHAREMprimeiroevento.xml``) has six
``OBJECTO`` entities, the First HAREM's earlier name of ``COISA``, which
the official programs score as the grid lacking it; that collection must
still be scored as they score it.  Entities inside ``OMITIDO`` are left out
of every evaluation and are not counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from harem_pipeline.model import Collection, Grid


@dataclass(frozen=True, slots=True)
class CategoryUse:
    """One category of a collection: how many entities carry it, and the first one's place."""

    category: str
    entities: int
    line: int
    docid: str


def category_uses(collection: Collection) -> tuple[CategoryUse, ...]:
    """Every category of the collection's scored entities (plain and in ALT), sorted."""
    counts: Counter[str] = Counter()
    first: dict[str, CategoryUse] = {}
    for doc in collection.documents:
        in_alts = (e for block in doc.alt_blocks for alt in block.alternatives for e in alt)
        for entity in (*doc.entities, *in_alts):
            for category in entity.categories:
                counts[category] += 1
                if category not in first:
                    first[category] = CategoryUse(category, 0, entity.line, doc.docid)
    return tuple(replace(first[cat], entities=counts[cat]) for cat in sorted(first))


def unknown_category_warnings(uses: tuple[CategoryUse, ...], grid: Grid, path: str) -> list[str]:
    """One line per category of ``uses`` that ``grid`` lacks, naming its first entity."""
    known = frozenset(grid.categories)
    name = grid.path.rsplit("/", 1)[-1] if grid.path else "harem.conf"
    return [
        f"{path}, line {use.line}, document {use.docid}: warning: category {use.category!r} "
        f"is not in the grid {name} ({use.entities} entities); it is scored as the grid "
        "lacking it"
        for use in uses
        if use.category not in known
    ]
