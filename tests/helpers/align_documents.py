"""Second HAREM documents for the aligner's plain-path tests: the shipped plain files, and
generated document bodies that mix the plain shape with everything past it (character
references, CR, empty elements, nesting the plain reading does not take, broken tags)."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.helpers.paths import DATA

SECOND_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
SECOND_RUN = DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
PLAIN_FILES = [
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
TEXT = st.lists(st.sampled_from(PIECES), max_size=5).map("".join)
ATTRIBUTES = st.sampled_from(
    [
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
)


@st.composite
def _entity(draw: st.DrawFn) -> str:
    body = draw(TEXT)
    attributes = draw(ATTRIBUTES)
    if draw(st.integers(0, 20)) == 0:
        return f"<EM{attributes}/>"
    return f"<EM{attributes}>{body}</EM>"


def _alt(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    alternative = st.lists(st.one_of(TEXT, _entity(), inner), max_size=3).map("".join)
    return st.lists(alternative, min_size=1, max_size=3).map(
        lambda alts: "<ALT>" + "|".join(alts) + "</ALT>"
    )


def _element(name: str, inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(inner, max_size=3).map(
        lambda parts: f"<{name}>" + "".join(parts) + f"</{name}>"
    )


ITEM = st.recursive(
    st.one_of(TEXT, _entity(), st.sampled_from(["<", "<P/>", "</P>", "<X>"])),
    lambda inner: st.one_of(
        _alt(inner), _element("P", inner), _element("OMITIDO", inner), _element("EM", inner)
    ),
    max_leaves=12,
)
