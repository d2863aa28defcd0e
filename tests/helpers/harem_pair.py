"""A hand-made HAREM collection and run, small enough to work every figure out by hand."""

from __future__ import annotations

# Token positions of d1 (blanks are no positions):
#  0 Ana  1 Silva  2 visitou  3 Porto  4 Alegre  5 ontem  6 .  7 Banco  8 Central
#  9 Europeu  10 falou  11 .  12 Rio  13 Tejo  14 corre  15 .  16 Lixo  17 Zeca  18 fim  19 .
# and of d2:  0 Hoje  1 chove  2 .
CD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<colHAREM versao="teste">\n'
    '<DOC DOCID="d1"><P><EM ID="g1" CATEG="PESSOA">Ana Silva</EM> visitou '
    '<EM ID="g2" CATEG="LOCAL">Porto Alegre</EM> ontem. '
    '<EM ID="g3" CATEG="ORGANIZACAO|LOCAL">Banco Central Europeu</EM> falou. '
    '<ALT><EM ID="g4a" CATEG="LOCAL">Rio Tejo</EM>|Rio <EM ID="g4b" CATEG="LOCAL">Tejo</EM></ALT>'
    ' corre. <OMITIDO>Lixo <EM ID="g5" CATEG="PESSOA">Zeca</EM></OMITIDO> fim.</P></DOC>\n'
    '<DOC DOCID="d2"><P><EM ID="g6" CATEG="TEMPO">Hoje</EM> chove.</P></DOC>\n'
    "</colHAREM>\n"
)
# The run: "Ana" alone (boundary error), "Porto Alegre" as PESSOA (label error),
# the vague ORGANIZACAO|LOCAL bank as LOCAL (correct), "Tejo" (the ALT decides),
# "Zeca" inside the OMITIDO (left out), "fim" (no token of any CD entity: spurious)
# and, in d2, "Hoje" with no category.
RUN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<colHAREM versao="teste">\n'
    '<DOC DOCID="d1"><P><EM ID="s1" CATEG="PESSOA">Ana</EM> Silva visitou '
    '<EM ID="s2" CATEG="PESSOA">Porto Alegre</EM> ontem. '
    '<EM ID="s3" CATEG="LOCAL">Banco Central Europeu</EM> falou. '
    'Rio <EM ID="s4" CATEG="LOCAL">Tejo</EM>'
    ' corre. Lixo <EM ID="s5" CATEG="PESSOA">Zeca</EM> '
    '<EM ID="s6" CATEG="ORGANIZACAO">fim</EM>.</P></DOC>\n'
    '<DOC DOCID="d2"><P><EM ID="s7">Hoje</EM> chove.</P></DOC>\n'
    "</colHAREM>\n"
)
