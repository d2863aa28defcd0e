"""The run as the model has it: the collection's documents with the predicted entities.

The run is written by ``formats.harem_xml`` (``format_frame``,
``format_document``), the one writer of HAREM XML.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from harem_pipeline.model import EM_TAG, FIRST_HAREM, Collection, Document, Entity, entity_of_fields
from harem_pipeline.tools.predictions.labels import Label
from harem_pipeline.tools.predictions.merge import ImportedDocument
from harem_pipeline.tools.predictions.placing import Placed


def run_entity(doc: Document, number: int, placed: Placed, fmt: str) -> Entity:
    """The model entity of a placed prediction (IDs ``<DOCID>-<n>``; none in First HAREM).

    Its attributes are its label's (``label_attributes``) after the ID, so
    its fields agree with them by construction (``entity_of_fields``).
    """
    label = placed.label
    start, end = placed.start, placed.end
    ident = None if fmt == FIRST_HAREM else f"{doc.docid}-{number}"
    described = label_attributes(label)
    attributes = described if ident is None else (("ID", ident), *described)
    categories, types, subtypes = label
    text = doc.text[start:end]
    return entity_of_fields(
        (ident, categories, types, subtypes, None, text, start, end, attributes, EM_TAG, 0)
    )


@lru_cache(maxsize=4096)
def label_attributes(label: Label) -> tuple[tuple[str, str], ...]:
    """The attributes after the ID that ``Entity`` gives a label's entity (those not empty:
    ``Entity._default_attributes``, which ``tests/test_import.py`` holds them to).

    A run has few distinct labels and many entities: each label's are built once.
    """
    pairs = (
        ("CATEG", "|".join(label.categories)),
        ("TIPO", "|".join(label.types)),
        ("SUBTIPO", "|".join(label.subtypes)),
    )
    return tuple((name, value) for name, value in pairs if value)


def run_document(imported: ImportedDocument, fmt: str) -> Document:
    """The run's document: the collection's text and paragraphs, the predicted entities."""
    doc = imported.document
    entities = tuple([run_entity(doc, n, p, fmt) for n, p in enumerate(imported.entities, 1)])
    return Document(
        docid=doc.docid,
        text=doc.text,
        entities=entities,
        variant=doc.variant,
        genre=doc.genre,
        paragraphs=doc.paragraphs,
    )


def run_collection(info: Collection, documents: Iterable[Document]) -> Collection:
    """The run as a collection in the golden collection's format (no version: a run has none)."""
    return replace(info, documents=tuple(documents), version=None)
