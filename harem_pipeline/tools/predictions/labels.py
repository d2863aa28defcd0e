"""Prediction labels: ``CAT``, ``CAT:TIPO``, ``A|B``, read against the category grids and
written back.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from harem_pipeline.formats.veils import GRID_2005_PATH, read_grid

_VALUE = re.compile(r"[^\s<>\"'&|]+")


class Label(NamedTuple):
    """The semantic part of a predicted entity, as HAREM attributes."""

    categories: tuple[str, ...]
    types: tuple[str, ...] = ()
    subtypes: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def known_categories() -> frozenset[str]:
    """Categories a label prefix may name: the ``harem.conf`` grid's and the First HAREM's."""
    return frozenset(read_grid().categories) | frozenset(read_grid(GRID_2005_PATH).categories)


@lru_cache(maxsize=4096)
def parse_label(label: str) -> Label:
    """``CAT``, ``CAT:TIPO`` (``-``, ``_``), ``CAT:TIPO:SUB``, ``A|B`` → a ``Label``.

    A prefix is split off only when it is a known category, so an unknown
    ``B-PER`` stays the category ``B-PER``.  Raises ``ValueError`` on a value
    that cannot be an attribute (blank, quotes, ``<``, ``>``, ``&``).
    """
    parsed = [_parse_part(part) for part in label.strip().split("|")]
    categories = tuple(p[0] for p in parsed)
    types = tuple(p[1] for p in parsed) if all(p[1] for p in parsed) else ()
    subtypes = tuple(p[2] for p in parsed) if types and all(p[2] for p in parsed) else ()
    for value in (*categories, *types, *subtypes):
        if not _VALUE.fullmatch(value):
            raise ValueError(f"label {label!r}: {value!r} cannot be a HAREM attribute value")
    return Label(categories, types, subtypes)


def _parse_part(part: str) -> tuple[str, str, str]:
    known = known_categories()
    cuts = sorted((part.find(sep), sep) for sep in (":", "-", "_") if part.find(sep) > 0)
    for index, sep in cuts:
        if part[:index] in known:
            rest = part[index + 1 :]
            if sep != "_" and sep in rest:
                kind, _, sub = rest.partition(sep)
                return part[:index], kind, sub
            return part[:index], rest, ""
    return part, "", ""
