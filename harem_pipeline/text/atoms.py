"""Atoms: the unit HAREM compares entity texts by.

An atom is a maximal run of letters and digits, upper-cased
(``D.Francisco`` → ``D``, ``FRANCISCO``).  AvalIDa's partial-match weights
and Vizir's first-atom rule both use this one definition.

"Letter or digit" is Java's ``Character.isLetterOrDigit``, the test the
2010 AvalIDa applies: a letter (Unicode L*) or a decimal digit (Nd).  Other
numeric characters such as ``²`` or ``½`` (No, Nl) separate atoms, so
``4000m²`` gives ``4000M``, as in the Java.
"""

from __future__ import annotations

import re

from harem_pipeline.text.tokens import MAYBE_ODD, is_letter_or_digit

_ATOM = re.compile(r"[^\W_]+")
# Below U+0100 every character ``_ATOM`` takes is a letter or a decimal digit
# but the six numerics ² ³ ¹ ¼ ½ ¾; a text with none of these (nor anything
# past Latin-1: ``MAYBE_ODD``) needs no character-by-character check.
_find_atoms = _ATOM.findall
_maybe_other_numeric = MAYBE_ODD.search


def atoms(text: str) -> list[str]:
    """The atoms of ``text`` in order, repeats kept."""
    if _maybe_other_numeric(text) is None:
        return [run.upper() for run in _find_atoms(text)]
    found: list[str] = []
    for match in _ATOM.finditer(text):
        run = match.group(0)
        if all(is_letter_or_digit(char) for char in run):
            found.append(run.upper())
            continue
        # \w also accepts other numerics (², ½, Ⅻ): split the run at them
        part = ""
        for char in run:
            if is_letter_or_digit(char):
                part += char
            elif part:
                found.append(part.upper())
                part = ""
        if part:
            found.append(part.upper())
    return found
