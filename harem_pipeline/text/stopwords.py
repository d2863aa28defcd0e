"""The words AlinhEM never uses to align entities (Portuguese function words).

A token of a golden entity that is one of these words is not *markable*:
it is not numbered, so two entities never align through it alone.

The list and its case-sensitivity are those of the official aligner
(LÂMPADA 2.0): membership is tested on the token AS WRITTEN, and each word
is listed only in the spellings the official list has.  That is why ``DE``,
``E`` and ``Por`` are NOT stopwords while ``de``, ``De``, ``e``, ``por`` and
``POR`` are: reproducing the official alignments requires the same gaps.

Three spellings of the official list can never match a token, because their
source text contains a malformed escape (``n\\00e3o``, ``\\00c0``,
``\\00c0s`` denote strings with a NUL character), so ``não``, ``NÃO``,
``Não``, ``À`` and ``Às`` are markable; they are left out here for the same
effect.
"""

from __future__ import annotations

STOPWORDS: frozenset[str] = frozenset(
    {
        "de", "De",
        "a", "A",
        "e",
        "o", "O",
        "do", "DO", "Do",
        "da", "DA", "Da",
        "que", "QUE", "Que",
        "em", "EM", "Em",
        "para", "PARA", "Para",
        "com", "COM", "Com",
        "os", "OS", "Os",
        "se", "SE", "Se",
        "um", "UM", "Um",
        "no", "NO", "No",
        "as", "AS", "As",
        "dos", "DOS", "Dos",
        "uma", "UMA", "Uma",
        "por", "POR",
        "na", "NA", "Na",
        "ou", "OU", "Ou",
        "à", "às",
        "ao", "AO", "Ao",
        "das", "DAS", "Das",
        "mais", "MAIS", "Mais",
        "for", "FOR", "For",
        "como", "COMO", "Como",
        "nos", "NOS", "Nos",
        "pelo", "PELO", "Pelo",
        "pela", "PELA", "Pela",
    }
)  # fmt: skip


def is_stopword(token: str) -> bool:
    """True when ``token`` (as written, case-sensitive) is never markable."""
    return token in STOPWORDS
