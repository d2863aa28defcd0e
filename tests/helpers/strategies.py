"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from hypothesis import strategies as st

from harem_pipeline.model import Morf
from harem_pipeline.stages.vizir import Alignment, SystemEntity

T = TypeVar("T")


def seeded(build: Callable[[random.Random], T]) -> st.SearchStrategy[T]:
    """Values ``build`` makes from a seeded generator, the seed drawn by hypothesis.

    For inputs of many small choices (lists of pieces, records of sampled
    parts): hypothesis draws one integer where drawing each choice would cost
    it milliseconds an example, far more than the checks on it.  A failure is
    reported with its seed, and replays from it.
    """
    return st.integers(0, 2**32 - 1).map(lambda seed: build(random.Random(seed)))


def one_in(rng: random.Random, n: int) -> bool:
    """True once in ``n`` times (for the builders ``seeded`` calls)."""
    return rng.randrange(n) == 0


# The Vizir and Ida2Mor entities and alignments
GENDERS = ["M", "F", "?"]
NUMBERS = ["S", "P", "?"]
# Texts whose first atoms agree or not ("Abril" / "17 de Abril"), so the first-atom rule bites.
TEXTS = ["Abril", "17 de Abril", "Reportagem", "a Reportagem", "Reportagem Local", "Lisboa"]


def random_morph(rng: random.Random) -> Morf | None:
    """No MORF half the time, else a gender and a number (each maybe ``?``)."""
    return None if rng.random() < 0.5 else Morf(rng.choice(GENDERS), rng.choice(NUMBERS))


def random_alignment(rng: random.Random) -> Alignment:
    """A CD entity and, half the time, one to three system entities (``None``: missing)."""
    system = None
    if rng.random() >= 0.5:
        system = tuple(
            SystemEntity(rng.choice(TEXTS), random_morph(rng), rng.random() < 0.5)
            for _ in range(rng.randint(1, 3))
        )
    return Alignment(rng.choice(TEXTS), random_morph(rng), rng.random() < 0.5, system)


ALIGNMENT = seeded(random_alignment)
ALIGNMENT_LISTS = seeded(lambda rng: [random_alignment(rng) for _ in range(rng.randint(0, 12))])
"""Lists of up to 12 alignments (one seed drawn, not each of their parts)."""
