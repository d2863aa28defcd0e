"""Véus: subsets by veil, variant and genre, and the harem / muc / relaxado styles.

Reference outputs: ``data/reference/*/<case>.veu.gz``, printed by the 2010
Java Véus (``AlignmentFilter``) from the ``.avalida`` files beside them; our
output must equal them line for line, with our ``:`` for their ``::``.
Hand-made First HAREM cases: ``tests/cases/veus/`` (see the README there).
"""

from __future__ import annotations

import difflib
import gzip
import shutil
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import format_line, format_lines, iter_lines, parse_lines
from harem_pipeline.formats.harem_meta import read_meta
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.pipeline.identification import run_veus
from harem_pipeline.pipeline.params import SubsetParams
from harem_pipeline.stages.veus import (
    FIRST_HAREM_GENRES,
    VeusSubset,
    document_infos,
    genre_key,
    subset_file_name,
    variant_key,
)
from tests.helpers.cases import case_files, read_case

CASES = Path(__file__).resolve().parent / "cases" / "veus"
ALL_CATEGORIES = "ABSTRACCAO:ACONTECIMENTO:COISA:LOCAL:OBRA:ORGANIZACAO:OUTRO:PESSOA:TEMPO:VALOR"

# (input .avalida, reference .veu, style, evaluation veil, declared veil)
REFERENCE_CASES = [
    ("gabriel/run.alinhado.avalida.gz", "gabriel/total_muc.veu.gz", "muc", None, None),
    ("gabriel/run.alinhado.avalida.gz", "gabriel/total_harem.veu.gz", "harem", None, None),
    ("gabriel/run.alinhado.avalida.gz", "gabriel/total_relaxado.veu.gz", "relaxado", None, None),
    # The categories-only scenario; the run's own declared veil (Cage2's, one of
    # lista_participantes_veus.tsv) shares categories with it, so nothing changes.
    (
        "gabriel/run.alinhado.avalida.gz",
        "gabriel/cenario4_categs_muc.veu.gz",
        "muc",
        ALL_CATEGORIES,
        None,
    ),
    (
        "gabriel/run.alinhado.avalida.gz",
        "gabriel/cenario4_categs_muc.veu.gz",
        "muc",
        ALL_CATEGORIES,
        "LOCAL(FISICO{*};HUMANO{*}):PESSOA:ORGANIZACAO:TEMPO",
    ),
    ("gabriel/run.alinhado.avalida.gz", "gabriel/PLO_muc.veu.gz", "muc",
     "PESSOA:LOCAL:ORGANIZACAO", None),
    ("exemplo0/total_muc.alinhado.avalida.gz", "exemplo0/total_muc.veu.gz", "muc", None, None),
    ("exemplo1/total_muc.alinhado.avalida.gz", "exemplo1/total_muc.veu.gz", "muc", None, None),
    ("exemplo1/total_harem.alinhado.avalida.gz", "exemplo1/total_harem.veu.gz", "harem",
     None, None),
    # entity texts with [ ] and '' (data/reference/brackets/README.md)
    ("brackets/total_harem.alinhado.avalida.gz", "brackets/total_harem.veu.gz", "harem",
     None, None),
    ("brackets/total_harem.alinhado.avalida.gz", "brackets/total_muc.veu.gz", "muc", None, None),
    ("brackets/total_harem.alinhado.avalida.gz", "brackets/total_relaxado.veu.gz", "relaxado",
     None, None),
    # a system text trimmed once its brackets are gone (data/reference/bracket-edges/)
    ("bracket-edges/total_harem.alinhado.avalida.gz", "bracket-edges/total_harem.veu.gz",
     "harem", None, None),
    # texts as the run wrote them: Véus reads them back as AvalIDa does
    ("brackets/unread.alinhado.avalida.gz", "brackets/unread_harem.veu.gz", "harem", None, None),
    ("brackets/unread.alinhado.avalida.gz", "brackets/unread_muc.veu.gz", "muc", None, None),
]  # fmt: skip


@pytest.fixture(scope="module")
def grid():
    return read_grid()


def normalise(lines: list[str]) -> list[str]:
    """Drop ``# file`` header lines and write the Java ``::`` marker as our ``:``."""
    return [line.replace("]::[", "]:[", 1) for line in lines if not line.startswith("# ")]


def assert_same_lines(expected: list[str], actual: list[str], name: str) -> None:
    if expected != actual:
        diff = difflib.unified_diff(expected, actual, f"{name} (reference)", f"{name} (ours)", n=1)
        pytest.fail("\n".join(list(diff)[:80]), pytrace=False)


@pytest.mark.parametrize(
    ("source", "reference", "style", "veil", "declared"),
    REFERENCE_CASES,
    ids=[f"{r.split('.')[0]}{'+declared' if d else ''}" for _, r, _, _, d in REFERENCE_CASES],
)
def test_equals_the_java_reference(data_dir, grid, source, reference, style, veil, declared):
    """As a campaign runs it: the file streamed through the stage and written."""
    encoding, lines = iter_lines(data_dir / "reference" / source)
    evaluation = parse_veil(veil, grid)
    system = parse_veil(declared, grid) if declared else None
    written = format_lines(VeusSubset(style, evaluation, system, None, source=source).apply(lines))
    ours = written.removesuffix("\n").split("\n")
    with gzip.open(data_dir / "reference" / reference, "rb") as handle:
        expected = handle.read().decode(encoding).split("\n")
    if expected[-1] == "":
        expected.pop()
    assert_same_lines(normalise(expected), normalise(ours), reference)


# ---------------------------------------------------------------------------
# Hand-made First HAREM cases (tests/cases/veus/*.txt)


@pytest.mark.parametrize("path", case_files(CASES), ids=lambda p: p.stem)
def test_first_harem_case(path: Path, tmp_path: Path) -> None:
    case = read_case(path)
    source, output = case.files["input"], case.files["output"]
    assert case.input == [] and case.expected is not None  # the input is a file
    shutil.copy(CASES / source, tmp_path / source)
    assert main(["veus", str(tmp_path / source), *case.params]) == 0
    written = tmp_path / output  # the default output name follows the original files
    assert written.exists(), sorted(p.name for p in tmp_path.iterdir())
    actual = written.read_text(encoding="utf-8").split("\n")
    assert actual.pop() == ""
    assert_same_lines(case.expected, actual, case.name)


# ---------------------------------------------------------------------------
# Second HAREM records made by hand


def veus(text: str, style: str, veil: str | None = None, declared: str | None = None) -> list[str]:
    grid = read_grid()
    lines = parse_lines(text)
    system = parse_veil(declared, grid) if declared else None
    out = VeusSubset(style, parse_veil(veil, grid), system).apply(lines)
    return [format_line(line) for line in out][1:]  # without the veil header


GOLD_ANA = '<EM ID="g1" CATEG="PESSOA" TIPO="INDIVIDUAL">Ana</EM>'


def test_declared_veil_matters_only_for_unclassified_run_entities() -> None:
    text = f'DOC d\n{GOLD_ANA} ---> [<EM ID="s1">Ana</EM>]::[Correcto]\n'
    kept = '<EM ID="g1" CATEG="PESSOA">Ana</EM> ---> [<EM ID="s1">Ana</EM>]:[Correcto]'
    dropped = '<EM ID="g1" CATEG="PESSOA">Ana</EM> ---> [null]:[Em_Falta]'
    # Evaluation veil PESSOA (no types): its TIPO goes.  The unclassified run
    # entity stays unless the declared veil shares nothing with PESSOA.
    assert veus(text, "harem", "PESSOA") == ["DOC d", kept]
    assert veus(text, "harem", "PESSOA", "PESSOA(INDIVIDUAL)") == ["DOC d", kept]
    assert veus(text, "harem", "PESSOA", "TEMPO(*)") == ["DOC d", dropped]
    assert veus(text, "harem", "PESSOA(INDIVIDUAL)", "PESSOA(CARGO)") == [
        "DOC d",
        f"{GOLD_ANA} ---> [null]:[Em_Falta]",
    ]


def test_veil_drops_missing_entities_outside_it_and_makes_gold_spurious() -> None:
    text = (
        "DOC d\n"
        '<EM ID="g2" CATEG="TEMPO">ontem</EM> ---> [null]::[Em_Falta]\n'
        '<EM ID="g3" CATEG="TEMPO">Maio</EM> ---> '
        '[<EM ID="s3" CATEG="PESSOA">Maio</EM>]::[Correcto]\n'
        '<EM ID="g4" CATEG="PESSOA">Rui</EM> ---> '
        '[<EM ID="s4" CATEG="TEMPO">Rui</EM>]::[Correcto]\n'
    )
    assert veus(text, "harem", "PESSOA") == [
        "DOC d",
        # g2 is outside the veil and found by nobody: gone.
        # g3 is outside, but the run said PESSOA: a spurious record, ID and all dropped.
        '<EM CATEG="ESPURIO">Maio</EM> ---> [<EM ID="s3" CATEG="PESSOA">Maio</EM>]:[Espurio]',
        # g4's run entity loses its only category, so it no longer counts.
        '<EM ID="g4" CATEG="PESSOA">Rui</EM> ---> [null]:[Em_Falta]',
    ]


def test_muc_spurious_once_per_run_id_and_document() -> None:
    partial = "Parcialmente_Correcto_por_Defeito(0.25; 0.75)"
    rio = f'[<EM ID="s1" CATEG="LOCAL">Rio</EM>]::[{partial}]'
    text = (
        "# run.xml\n"
        "DOC d1\n"
        f'<EM ID="g1" CATEG="LOCAL">Rio de Janeiro</EM> ---> {rio}\n'
        f'<EM ID="g2" CATEG="LOCAL">Rio Douro</EM> ---> {rio}\n'
        "EOD\n"
        "DOC d2\n"
        f'<EM ID="g3" CATEG="LOCAL">Rio Tejo</EM> ---> {rio}\n'
    )
    spurious = '<EM CATEG="ESPURIO">Rio</EM> ---> [<EM ID="s1" CATEG="LOCAL">Rio</EM>]:[Espurio]'
    assert veus(text, "muc") == [
        "DOC d1",
        '<EM ID="g1" CATEG="LOCAL">Rio de Janeiro</EM> ---> [null]:[Em_Falta]',
        spurious,
        '<EM ID="g2" CATEG="LOCAL">Rio Douro</EM> ---> [null]:[Em_Falta]',
        "EOD",
        "DOC d2",
        '<EM ID="g3" CATEG="LOCAL">Rio Tejo</EM> ---> [null]:[Em_Falta]',
        spurious,
    ]
    # harem and relaxado keep one-to-one partials as they are.
    assert veus(text, "harem")[1].endswith(f"]:[{partial}]")
    assert veus(text, "relaxado")[1].endswith(f"]:[{partial}]")


def test_muc_merges_several_correct_run_entities() -> None:
    text = (
        "DOC d\n"
        '<EM ID="g" CATEG="LOCAL">Porto</EM> ---> [<EM ID="a" CATEG="LOCAL">Porto</EM>, '
        '<EM ID="b" CATEG="ORGANIZACAO">Porto</EM>]::[Correcto, Correcto]\n'
    )
    # The first correct entity takes the other's (category, type, subtype) tuples.
    assert veus(text, "muc") == [
        "DOC d",
        '<EM ID="g" CATEG="LOCAL">Porto</EM> ---> [<EM ID="a" CATEG="LOCAL|ORGANIZACAO">Porto</EM>]'
        ":[Correcto]",
    ]


def test_lines_kept_and_lines_dropped() -> None:
    text = (
        "# participacao.xml\n"
        "# cd.xml\n"
        "DOC d\n"
        "<ALT>\n<ALT1>\n"
        f"{GOLD_ANA} ---> [null]::[Em_Falta]\n"
        "</ALT1>\n</ALT>\n"
        "<VERIFICACAO_MANUAL> Verifique: <EM>Ana</EM> ---> null </VERIFICACAO_MANUAL>\n"
        "\n"
        "EOD\n"
    )
    # File-name headers before the first document are not copied (as in the Java).
    assert veus(text, "muc") == [
        "DOC d", "<ALT>", "<ALT1>", f"{GOLD_ANA} ---> [null]:[Em_Falta]", "</ALT1>", "</ALT>",
        "<VERIFICACAO_MANUAL> Verifique: <EM>Ana</EM> ---> null </VERIFICACAO_MANUAL>", "", "EOD",
    ]  # fmt: skip


# ---------------------------------------------------------------------------
# Subset names and document metadata


def test_subset_file_names() -> None:
    base = "run.alinhado.avalida"
    assert subset_file_name(base) == "run.alinhado.avalida.total"
    assert subset_file_name(base, "PT") == "run.alinhado.avalida.pt"
    assert subset_file_name(base, "pt", "Jornal") == "run.alinhado.avalida.pt.jornalistico"
    assert subset_file_name(base, None, "jornalistico", True) == (
        "run.alinhado.avalida.selectivo.jornalistico"
    )
    assert subset_file_name(base, selective=True) == "run.alinhado.avalida.selectivo"


def test_first_harem_genres_and_variants() -> None:
    assert [genre_key(g) for g in FIRST_HAREM_GENRES] == [
        "web", "jornalistico", "correioelectronico", "entrevista",
        "expositivo", "literario", "politico", "tecnico",
    ]  # fmt: skip
    assert genre_key("jornalistico") == genre_key("Jornal") == "jornalistico"
    assert genre_key("CorreioElectronico") == "correioelectronico"
    assert genre_key("blogue jornalístico") == "blogue_jornalistico"
    assert variant_key("PT") == variant_key("pt_PT") == "pt"
    assert variant_key("pt_BR") == "br"


def test_second_harem_metadata(data_dir) -> None:
    path = data_dir / "lampada2" / "colSegundoHAREM-meta.xml.gz"
    meta = document_infos(read_meta(path))
    assert len(meta) == 1040  # <DOC DOCID=...> elements in the file
    assert meta["H2-dftre765"].variant == "pt"
    assert meta["H2-dftre765"].genres == ("didactico",)
    assert meta["cha-55664"].variant == "br"
    # 380 <VARIANTE>pt_BR</VARIANTE> in the file (and 660 pt_PT)
    assert sum(1 for info in meta.values() if info.variant == "br") == 380


def test_second_harem_subset_by_variant_and_genre(data_dir, tmp_path) -> None:
    source = data_dir / "reference" / "gabriel" / "run.alinhado.avalida.gz"
    meta = data_dir / "lampada2" / "colSegundoHAREM-meta.xml.gz"
    out = run_veus(source, SubsetParams(variant="pt"), tmp_path / "pt.veu", meta_path=meta)
    written = out.read_text(encoding="iso8859-1").split("\n")
    docs = [line[4:] for line in written if line.startswith("DOC ")]
    info = document_infos(read_meta(meta))
    assert docs and all(info[d].variant == "pt" for d in docs)
    _, lines = iter_lines(source)
    every = [line.docid for line in lines if type(line).__name__ == "DocStart"]
    assert len(every) == 129  # the Second HAREM CD's documents (tests/test_stats.py)
    assert docs == [d for d in every if info[d].variant == "pt"]


# ---------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--veil", "PESSOA:FOO"],
            "--veil: expected a category of the grid (ABSTRACCAO, ACONTECIMENTO, COISA, LOCAL, "
            "OBRA, ORGANIZACAO, OUTRO, PESSOA, TEMPO, VALOR), found unknown category 'FOO' at "
            "position 8 of 'PESSOA:FOO'\n",
        ),
        (
            ["--veil", "PESSOA(INDIVIDUAL"],
            "--veil: expected ')' in the veil, found end of veil at position 18 of "
            "'PESSOA(INDIVIDUAL'\n",
        ),
        (["--selective"], "expected --system-veil for the selective scenario"),
        (["--selective", "--system-veil", ""], "expected --system-veil for the selective scenario"),
        (
            ["--variant", "pt"],
            "total_muc.alinhado.avalida.gz, line 3: expected collection metadata "
            "(colSegundoHAREM-meta.xml, --meta) to choose documents by variant or genre, "
            "found document 'DOC teste1' without variant or genre\n",
        ),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(data_dir, tmp_path, capsys, args, message) -> None:
    source = data_dir / "reference" / "exemplo0" / "total_muc.alinhado.avalida.gz"
    target = tmp_path / "out.veu"
    status = main(["veus", str(source), "--style", "muc", *args, "-o", str(target)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("harem veus: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not target.exists()


def test_cli_unknown_style_is_a_usage_error(data_dir, capsys) -> None:
    source = data_dir / "reference" / "exemplo0" / "total_muc.alinhado.avalida.gz"
    with pytest.raises(SystemExit) as exc:
        main(["veus", str(source), "--style", "conll"])
    assert exc.value.code == 2
    assert "invalid choice: 'conll'" in capsys.readouterr().err


def test_cli_writes_the_reference(data_dir, tmp_path) -> None:
    source = data_dir / "reference" / "exemplo1" / "total_harem.alinhado.avalida.gz"
    target = tmp_path / "total_harem.veu"
    assert main(["veus", str(source), "--style", "harem", "-o", str(target)]) == 0
    with gzip.open(data_dir / "reference" / "exemplo1" / "total_harem.veu.gz", "rb") as handle:
        expected = normalise(handle.read().decode("iso8859-1").split("\n"))
    assert_same_lines(expected, target.read_bytes().decode("iso8859-1").split("\n"), "exemplo1")


def test_an_alinhado_file_without_evaluations_is_refused() -> None:
    text = f"DOC d\n{GOLD_ANA} ---> [null]\n"
    with pytest.raises(InputError) as exc:
        veus(text, "muc")
    assert "one evaluation per aligned entity" in str(exc.value)
    assert "line 2" in str(exc.value)


# ---------------------------------------------------------------------------
# Invariants on the real run


def gold_sequence(lines) -> list[str]:
    """The gold entities of the non-spurious records, in order."""
    return [
        format_line(line).split(" ---> ")[0]
        for line in lines
        if type(line).__name__ == "Record" and not line.gold.is_spurious
    ]


def test_muc_keeps_every_gold_entity_and_no_partial(data_dir, grid) -> None:
    source = data_dir / "reference" / "gabriel" / "run.alinhado.avalida.gz"
    _, lines = iter_lines(source)
    harem = list(VeusSubset("harem", parse_veil(None, grid)).apply(lines))
    muc = list(VeusSubset("muc", parse_veil(None, grid)).apply(iter(harem[1:])))
    assert gold_sequence(muc) == gold_sequence(harem)
    texts = [format_line(line) for line in muc]
    assert not any("Parcialmente" in text for text in texts)
    # Spurious records made from partials: one per distinct run ID in a document.
    assert sum(text.endswith(":[Espurio]") for text in texts) > sum(
        text.endswith(":[Espurio]") for text in map(format_line, harem)
    )
