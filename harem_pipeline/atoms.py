"""Atoms: the unit HAREM compares entity texts by.

An atom is a maximal run of letters and digits, upper-cased
(``D.Francisco`` → ``D``, ``FRANCISCO``).  AvalIDa's partial-match weights
and Vizir's first-atom rule both use this one definition.
"""

from __future__ import annotations

import re

_ATOM = re.compile(r"[^\W_]+")


def atoms(text: str) -> list[str]:
    """The atoms of ``text`` in order, repeats kept."""
    return [match.group(0).upper() for match in _ATOM.finditer(text)]
