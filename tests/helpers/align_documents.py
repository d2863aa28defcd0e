"""Second HAREM documents for the aligner's item tests: the shipped Second HAREM files, and
generated document bodies that mix the common shape with everything past it (character
references, CR, empty elements, nesting, broken tags).

Hypothesis draws a seed (``bodies``, ``seeded``) and the body is built from
it in plain Python: drawing the same grammar piece by piece cost hypothesis
5–15 ms an example, far more than the checks on it.
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from tests.helpers.paths import DATA
from tests.helpers.strategies import seeded

SECOND_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
SECOND_RUN = DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
SECOND_FILES = [
    SECOND_CD,
    SECOND_RUN,
    DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz",
    DATA / "lampada2" / "CDPrimeiroHAREMprimeiroevento.xml.gz",
    DATA / "lampada2" / "exemplo0" / "cd.xml",
    DATA / "lampada2" / "exemplo0" / "participacao.xml",
    DATA / "lampada2" / "exemplo1" / "CDexemplo.xml",
    DATA / "lampada2" / "exemplo1" / "ficheiro.xml",
    DATA / "reference" / "omitido-p" / "cd.xml",
    DATA / "reference" / "omitido-p" / "run.xml",
]

PIECES = ["a", "Ç", " ", "\n", "\r\n", "\r", "|", ".", "&amp;", "&#124;", "&x", ">"]
ATTRIBUTES = [
    ' ID="e1" CATEG="LOCAL"',
    ' ID="e2" CATEG="PESSOA|ORGANIZACAO" TIPO="X"',
    "",
    ' ID="e3" CATEG="A&amp;B"',  # a reference in a value
    ' ID="e4"  CATEG="LOCAL"',  # two blanks
    " ID='e5'",  # single quotes
    ' ID="e6" MORF="F,S"',
    ' ID="e7" OMITIDO="1"',
    ' ID="e8" CATEG="a>b"',
]
STRAY_TAGS = ["<", "<P/>", "</P>", "<X>"]
MAX_LEAVES = 12
"""The leaves (texts, entities, stray tags) of one item at most."""


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 5)))


def _entity(rng: random.Random) -> str:
    body, attributes = _text(rng), rng.choice(ATTRIBUTES)
    if rng.randint(0, 20) == 0:
        return f"<EM{attributes}/>"
    return f"<EM{attributes}>{body}</EM>"


def _item(rng: random.Random, leaves: list[int]) -> str:
    """A text, an entity or a stray tag, or an ALT, P, OMITIDO or EM around more items."""
    if leaves[0] <= 1 or rng.random() < 0.5:
        leaves[0] -= 1
        kind = rng.randrange(3)
        if kind == 0:
            return _text(rng)
        return _entity(rng) if kind == 1 else rng.choice(STRAY_TAGS)
    kind = rng.randrange(4)
    if kind == 0:
        pieces = (_text, _entity, lambda rng: _item(rng, leaves))
        alternatives = (
            "".join(rng.choice(pieces)(rng) for _ in range(rng.randint(0, 3)))
            for _ in range(rng.randint(1, 3))
        )
        return "<ALT>" + "|".join(alternatives) + "</ALT>"
    name = ("P", "OMITIDO", "EM")[kind - 1]
    return (
        f"<{name}>" + "".join(_item(rng, leaves) for _ in range(rng.randint(0, 3))) + f"</{name}>"
    )


def random_body(rng: random.Random, max_items: int) -> str:
    """Up to ``max_items`` items one after the other: a document's content."""
    return "".join(_item(rng, [MAX_LEAVES]) for _ in range(rng.randint(0, max_items)))


def bodies(max_items: int) -> st.SearchStrategy[str]:
    """Document bodies of up to ``max_items`` items, each built from a seed hypothesis draws."""
    return seeded(lambda rng: random_body(rng, max_items))
