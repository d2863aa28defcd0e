"""The document reader of CoNLL predictions gives what the sentence reader gives."""

from __future__ import annotations

import io

import pytest

from harem_pipeline.formats.conll_predictions import (
    ConllDocument,
    ConllSentence,
    conll_docids,
    parse_conll_predictions,
    read_conll_documents,
)

FILES = {
    "two columns": "-DOCSTART- D1\n\nA O\nMaria B-PESSOA\n\nfoi O\n-DOCSTART- D2\nx B-LOCAL\n",
    "three columns": "-DOCSTART- D1\n\nA O O\nMaria B-PESSOA I-PESSOA\n\n\nfoi O O\n",
    "mixed widths": "-DOCSTART- D1\nA O\nMaria x B-PESSOA\n\nfoi O\n",
    "blank lines with spaces": "-DOCSTART- D1\nA O\n  \n\t\nMaria B-PESSOA\n",
    "comments": "# doc_id = D1\n# sent_id = 1\nA O\n\n# text = b\n#hash O\nb O\n",
    "unnamed": "-DOCSTART- -X- O\nA O\n\n-DOCSTART- -X- O\nB B-X\n",
    "no document lines": "A O\nb B-X\n\nc O\n",
    "header comment": "# generated = yes\n\n-DOCSTART- D1\nA O\n",
    "no final line end": "-DOCSTART- D1\nA O\nb I-X",
    "empty document": "-DOCSTART- D1\n\n-DOCSTART- D2\nA O\n",
    "marks in a token": "-DOCSTART- D1\nA\x01 O\n",
}


def normalised(items: list) -> list:
    """Document starts, and between them (token, tag, line) of every token, in file order.

    Sentences and columns alike; the empty token after each sentence of
    the columns is left out (a token is never empty).
    """
    out: list = []
    for item in items:
        if isinstance(item, ConllDocument):
            out += [item, []]
            continue
        if isinstance(item, ConllSentence):
            found = [
                (t, g, item.line + k)
                for k, (t, g) in enumerate(zip(item.tokens, item.tags, strict=True))
            ]
        else:
            found = [
                (t, g, item.line_of(k))
                for k, (t, g) in enumerate(zip(item.tokens, item.tags, strict=True))
                if t
            ]
        if not out or isinstance(out[-1], ConllDocument):
            out.append([])
        out[-1] += found
    return [item for item in out if item != []]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("chunked", [False, True], ids=["whole", "lines"])
def test_documents_read_as_sentences(name: str, chunked: bool) -> None:
    text = FILES[name]
    source = io.StringIO(text).readlines() if chunked else io.StringIO(text)
    expected = normalised(list(parse_conll_predictions(io.StringIO(text))))
    assert normalised(list(read_conll_documents(source))) == expected


def test_docids_and_their_lines() -> None:
    assert conll_docids(io.StringIO(FILES["two columns"])) == {"D1": 1, "D2": 7}
    assert conll_docids(io.StringIO(FILES["comments"])) == {"D1": 1}
    assert conll_docids(io.StringIO(FILES["unnamed"])) is None
