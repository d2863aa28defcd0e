"""Checks of a campaign against its collection, once, before any task runs.

``load_campaign`` validates ``pipeline.yaml`` itself (keys, types, paths,
veils) and is cheap enough for every task to call.  What needs the
collection read lives here and runs once per build (``harem run`` and the
``FullEvaluation`` task of the ``luigi`` command call it): every subset's
variant and genre must name documents of the collection, the valid names
listed when one does not; and whether the collection carries MORF at all,
which decides if the morphology chain has anything to score; and the
golden categories its grid lacks (:mod:`harem_pipeline.stages.gold`),
said before the campaign runs.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harem_pipeline.errors import ConfigError, HaremWarning, InputError
from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.formats.veils import parse_veil
from harem_pipeline.model import FIRST_HAREM, Collection
from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.stages.emir import choose_grid
from harem_pipeline.stages.gold import CategoryUse, category_uses, unknown_category_warnings
from harem_pipeline.stages.veus import DocumentInfo, genre_key, subset_problem, variant_key
from harem_pipeline.text import PathLike


@dataclass(frozen=True, slots=True)
class CollectionFacts:
    """What the campaign's tasks are decided on: the documents' subsets, MORF or not."""

    documents: tuple[DocumentInfo, ...]
    has_morphology: bool
    categories: tuple[CategoryUse, ...] = ()
    first_harem: bool = False


def document_infos_of(collection: Collection) -> tuple[DocumentInfo, ...]:
    """Each document's variant and genres as subset names (``pt``, ``jornalistico``)."""
    return tuple(
        DocumentInfo(
            doc.docid,
            variant_key(doc.variant or ""),
            tuple(genre_key(g) for g in (doc.genre or "").split("|") if g),
        )
        for doc in collection.documents
    )


def has_morphology(collection: Collection) -> bool:
    """Whether any entity of the collection (plain, in ALT or in OMITIDO) carries MORF."""
    return any(
        entity.morf is not None for doc in collection.documents for entity in doc.all_entities
    )


@lru_cache(maxsize=8)
def _facts(path: Path, meta: Path | None, size: int, mtime: int) -> CollectionFacts:
    collection = read_collection(path, meta)
    return CollectionFacts(
        document_infos_of(collection),
        has_morphology(collection),
        category_uses(collection),
        collection.format == FIRST_HAREM,
    )


def collection_facts(path: PathLike, meta: PathLike | None = None) -> CollectionFacts:
    """:class:`CollectionFacts` of a collection file, read once per process and version."""
    path = Path(path).resolve()
    stat = path.stat()
    return _facts(path, Path(meta).resolve() if meta else None, stat.st_size, stat.st_mtime_ns)


def collection_has_morphology(path: PathLike, meta: PathLike | None = None) -> bool:
    """Whether the collection at ``path`` has any MORF (else Vizir has nothing to score)."""
    return collection_facts(path, meta).has_morphology


def check_campaign(campaign: Campaign) -> CollectionFacts:
    """Every subset names documents of the collection; ``ConfigError`` naming the subset if not."""
    facts = collection_facts(campaign.collection, campaign.collection_meta)
    for i, subset in enumerate(campaign.subsets):
        problem = subset_problem(facts.documents, subset.variant, subset.genre)
        if problem is not None:
            expected, found = problem
            raise ConfigError(
                str(campaign.source),
                f"subsets[{i}]",
                f"expected {expected}, found {found}",
                f"from {campaign.collection.name}; harem stats lists them",
            )
    _check_veils_on_grid(campaign, facts)
    return facts


def _check_veils_on_grid(campaign: Campaign, facts: CollectionFacts) -> None:
    """Every veil of the campaign names categories and types of the grid Emir will use for
    this collection (a First HAREM collection has the 2005 grid, which has no
    ``LOCAL(FISICO)``): else one ``ConfigError`` naming the key, before any task runs.

    The configuration checks veils against the shipped grid when it is read;
    only here is the collection's format known.
    """
    grid = choose_grid(facts.first_harem, campaign.grid)
    shown = "the 2005 grid of a First HAREM collection" if facts.first_harem else "its grid"
    if campaign.grid is not None:
        shown = f"the campaign's grid {campaign.grid.name}"
    given = [("veil", campaign.veil)]
    given += [(f"veils[{i}] ({v.name})", v.veil) for i, v in enumerate(campaign.veils)]
    given += [(f"runs[{i}].veil", r.veil) for i, r in enumerate(campaign.runs) if r.veil]
    for key, text in given:
        try:
            parse_veil(text, grid, None)
        except InputError as error:
            raise ConfigError(
                str(campaign.source),
                key,
                f"expected a veil of {shown} ({campaign.collection.name}), found {error.found}",
            ) from None


def campaign_warnings(campaign: Campaign) -> list[str]:
    """The lines to say before the campaign runs: each golden category its grid lacks.

    The grid is the campaign's ``grid:``, else the one Emir picks for the
    collection's format (:func:`~harem_pipeline.stages.emir.choose_grid`).
    """
    facts = collection_facts(campaign.collection, campaign.collection_meta)
    grid = choose_grid(facts.first_harem, campaign.grid)
    return unknown_category_warnings(facts.categories, grid, str(campaign.collection))


def warn_campaign(campaign: Campaign) -> None:
    """Issue :func:`campaign_warnings` as ``HaremWarning``s: both commands (``harem run`` and
    ``luigi``) show each as its one line, once per process, before any task runs."""
    for line in campaign_warnings(campaign):
        warnings.warn(HaremWarning(line), stacklevel=2)
