"""``harem stats``: what a collection or run holds, counted from the model alone.

The counts are those a reader checks a HAREM file against: documents, every
entity tag in the file (plain, inside each ALT alternative, inside OMITIDO),
the tags carrying MORF, ALT blocks and OMITIDO regions, plus breakdowns by
category, MORF value, variant and genre.  Counting tags as written (and not
"entities to score") is what makes the figures comparable with the numbers
published for each collection.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from harem_pipeline.model import Collection, Entity
from harem_pipeline.stages.veus import DocumentInfo, genre_key, subset_counts, variant_key

# Key used for an entity or document that does not state the value counted.
UNSTATED = "(none)"


def count_collection(collection: Collection) -> dict[str, Any]:
    """The statistics of one collection, as a JSON-ready ordered dict."""
    entities = [entity for doc in collection.documents for entity in doc.all_entities]
    return {
        "path": collection.path,
        "format": collection.format,
        "encoding": collection.encoding,
        "documents": len(collection.documents),
        "entities": len(entities),
        "entities_in_alt": sum(
            len(alt)
            for doc in collection.documents
            for b in doc.alt_blocks
            for alt in b.alternatives
        ),
        "entities_omitted": sum(len(doc.omitted_entities) for doc in collection.documents),
        "with_morf": sum(1 for entity in entities if entity.morf is not None),
        "alt_blocks": sum(len(doc.alt_blocks) for doc in collection.documents),
        "omitido": sum(len(doc.omitted) for doc in collection.documents),
        "by_category": _ranked(_category_key(entity) for entity in entities),
        "morf_values": _ranked(str(entity.morf) for entity in entities if entity.morf),
        "variants": _ranked(doc.variant or UNSTATED for doc in collection.documents),
        "genres": _ranked(doc.genre or UNSTATED for doc in collection.documents),
        **subset_names(
            DocumentInfo(
                doc.docid,
                variant_key(doc.variant or ""),
                tuple(genre_key(g) for g in (doc.genre or "").split("|") if g),
            )
            for doc in collection.documents
        ),
    }


def subset_names(infos: Iterable[DocumentInfo]) -> dict[str, dict[str, int]]:
    """Documents per subset name: what ``--variant``/``--genre`` and ``subsets:`` accept."""
    variants, genres = subset_counts(infos)
    return {"subset_variants": variants, "subset_genres": genres}


def count_meta(path: str, infos: Mapping[str, DocumentInfo]) -> dict[str, Any]:
    """The subset names of a collection's metadata file alone (``harem stats --meta M``)."""
    return {"path": path, "documents": len(infos), **subset_names(infos.values())}


def _category_key(entity: Entity) -> str:
    """The category as annotated: a vague ``A|B`` stays one key."""
    return "|".join(entity.categories) or UNSTATED


def _ranked(values: Iterable[str]) -> dict[str, int]:
    """Counts, most frequent first, ties in name order (stable output)."""
    counts = Counter(values)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def format_stats_text(stats: Mapping[str, Any]) -> str:
    """Readable ``key: value`` lines; breakdowns as indented ``value: count`` lines."""
    lines = []
    for key, value in stats.items():
        if isinstance(value, Mapping):
            lines.append(f"{key}:")
            lines += [f"  {name}: {count}" for name, count in value.items()]
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n"
