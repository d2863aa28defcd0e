"""``harem align --show-tokens``: the official Aligner's ``-etiquetas sim`` token view.

The references under ``data/reference/etiquetas/`` are what the official
2010 Aligner printed with ``-etiquetas sim`` (``data/README.md`` says how
they were made); every line after the ``#`` lines must be equal.
"""

from __future__ import annotations

import difflib
import gzip
import re
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.pipeline.align import run_align
from harem_pipeline.tools.simulate import simulated_run_bytes
from tests.helpers.campaign import campaign_files

DATA = Path(__file__).resolve().parent.parent / "data"
TOKENS = DATA / "reference" / "etiquetas"

# name: (CD, run (None: the simulated run 'average', seed 1, of the CD))
CASES = {
    "exemplo0": ("lampada2/exemplo0/cd.xml", "lampada2/exemplo0/participacao.xml"),
    "exemplo1": ("lampada2/exemplo1/CDexemplo.xml", "lampada2/exemplo1/ficheiro.xml"),
    "gabriel": (
        "second-harem/SegundoHaremReRelEM_t1.xml.gz",
        "second-harem/ParticipacaoSegundoHaremReRelEM_t1.xml.gz",
    ),
    "mini1": ("lampada2/CDPrimeiroHAREMMiniHAREM.xml.gz", None),
    "segundo1": ("second-harem/SegundoHaremReRelEM_t1.xml.gz", None),
}


def _lines(data: bytes) -> list[str]:
    return data.decode("iso8859-1").removesuffix("\n").split("\n")


def _without_file_names(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("#")]


def _assert_same_lines(expected: list[str], found: list[str], what: str) -> None:
    if expected != found:
        diff = difflib.unified_diff(expected, found, "official", "ours", lineterm="", n=2)
        pytest.fail(f"{what} differs from the official output:\n" + "\n".join(list(diff)[:80]))


@pytest.mark.parametrize("case", sorted(CASES))
def test_token_view_equals_the_official_aligner_line_for_line(case: str, tmp_path: Path) -> None:
    cd, run = CASES[case]
    if run is None:
        run_path = tmp_path / "run.xml"
        run_path.write_bytes(simulated_run_bytes(DATA / cd, "average", 1, gzip_it=False))
    else:
        run_path = DATA / run
    out = tmp_path / "tokens.alinhado"
    run_align(DATA / cd, run_path, out, workers=1, show_tokens=True)
    expected = _lines(gzip.decompress((TOKENS / f"{case}.alinhado.gz").read_bytes()))
    _assert_same_lines(
        _without_file_names(expected), _without_file_names(_lines(out.read_bytes())), case
    )


def test_the_references_exercise_what_the_view_adds() -> None:
    # numbered tokens, a manual-check line, ALT blocks and spurious records are all in them
    text = "".join(
        gzip.decompress(path.read_bytes()).decode("iso8859-1") for path in TOKENS.glob("*.gz")
    )
    for needle in ("<VERIFICACAO_MANUAL>", "<ALT1>", 'CATEG="ESPURIO"><1>', "<2>"):
        assert needle in text


def test_hand_numbered_occurrences(tmp_path: Path) -> None:
    # "Vila" and "Real" are the CD's markable tokens; "de" is a stopword.  The
    # second "Vila Real" is their second occurrence; "Porto" is no CD token, so
    # the spurious run entity holding it is numbered through "Real" only (the
    # official Aligner prints these very lines for these two files).
    cd = tmp_path / "cd.xml"
    cd.write_text(
        '<colHAREM><DOC DOCID="d1"><P>Em <EM ID="a" CATEG="LOCAL">Vila Real</EM> e em '
        '<EM ID="b" CATEG="LOCAL">Vila Real de Santo</EM>.</P><P>Porto Real</P></DOC></colHAREM>',
        encoding="iso8859-1",
    )
    run = tmp_path / "run.xml"
    run.write_text(
        '<colHAREM><DOC DOCID="d1"><P>Em <EM ID="r1" CATEG="PESSOA">Vila</EM> Real e em '
        'Vila Real de Santo.</P><P><EM ID="r2" CATEG="LOCAL">Porto Real</EM></P></DOC></colHAREM>',
        encoding="iso8859-1",
    )
    out = tmp_path / "out.alinhado"
    assert main(["align", "--cd", str(cd), "--run", str(run), "--show-tokens", "-o", str(out)]) == 0
    assert out.read_text("iso8859-1").split("\n")[2:] == [
        "DOC d1",
        '<EM ID="a" CATEG="LOCAL"><1>Vila</1> <1>Real</1></EM> ---> '
        '[<EM ID="r1" CATEG="PESSOA"><1>Vila</1></EM>]',
        '<EM ID="b" CATEG="LOCAL"><2>Vila</2> <2>Real</2> de <1>Santo</1></EM> ---> [null]',
        '<EM CATEG="ESPURIO">Porto <3>Real</3></EM> ---> '
        '[<EM ID="r2" CATEG="LOCAL">Porto <3>Real</3></EM>]',
        "EOD",
        "",
        "",
        "",
    ]
    plain = tmp_path / "plain.alinhado"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(plain)]) == 0
    assert '<EM CATEG="ESPURIO">Porto Real</EM>' in plain.read_text("iso8859-1")


def test_show_tokens_refuses_a_cd_with_docids_equal_once_trimmed(tmp_path: Path, capsys) -> None:
    cd = tmp_path / "cd.xml"
    cd.write_text(
        '<colHAREM><DOC DOCID="d1"><P>O <EM ID="a" CATEG="LOCAL">Porto</EM>.</P></DOC>'
        '<DOC DOCID=" d1"><P>A <EM ID="b" CATEG="LOCAL">Braga</EM>.</P></DOC></colHAREM>',
        encoding="utf-8",
    )
    run = tmp_path / "run.xml"
    run.write_text(
        '<colHAREM><DOC DOCID="d1"><P>A <EM ID="r" CATEG="LOCAL">Braga</EM>.</P></DOC></colHAREM>',
        encoding="utf-8",
    )
    out = tmp_path / "out.alinhado"
    status = main(["align", "--cd", str(cd), "--run", str(run), "--show-tokens", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1 and str(cd) in err[0] and "'d1'" in err[0]
    assert not out.exists()


def test_first_harem_token_view_is_the_plain_alignment_numbered(tmp_path: Path) -> None:
    # No official aligner read the 2005 format; there the token view is checked
    # against our own plain output: the same lines once the numbers are taken out
    # (and the blanks at the ends of an entity's text, which the view keeps).
    files = dict(campaign_files(40))  # the first 40 documents and a weak simulated run
    cd, run = tmp_path / "cd.txt", tmp_path / "run.txt"
    cd.write_bytes(files["cd.txt"])
    run.write_bytes(files["runs/weak.txt"])
    tokens, plain = tmp_path / "tokens.alinhado", tmp_path / "plain.alinhado"
    run_align(cd, run, tokens, workers=1, show_tokens=True)
    run_align(cd, run, plain, workers=1)
    numbered = _lines(tokens.read_bytes())
    expected = _lines(plain.read_bytes())

    def bare(line: str) -> str:
        line = re.sub(r"<(\d+)>([^<]*)</\1>", r"\2", line)
        return re.sub(r"\s+(</)|(>)\s+", r"\1\2", line)

    assert len(numbered) == len(expected)
    assert [bare(line) for line in numbered] == [bare(line) for line in expected]
    records = [line for line in numbered if " ---> " in line]
    numbered_records = [line for line in records if re.search(r"<(\d+)>\w+</\1>", line)]
    assert len(numbered_records) > 0.9 * len(records) > 500  # nearly all hold a number
