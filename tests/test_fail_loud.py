"""An evaluation that would score nothing is an error naming why, not a table of zeros.

No document in a subset, an unknown variant or genre (the valid names
listed with their document counts), an empty input file, an empty list of
subsets or scenarios, a run that shares no DOCID with the collection: each
is one line on stderr and exit status 2.  A run that shares only some
DOCIDs is scored, with the aligner's warnings on stderr (and, in the
pipeline, in the ``.aligner.stderr`` file).
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import format_collection
from tests.helpers.campaign import make_campaign
from tests.helpers.paths import DATA
from tests.helpers.shipped import shipped_collection

CASES = Path(__file__).resolve().parent / "cases" / "veus"
SECOND_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
SECOND_RUN = DATA / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
SECOND_META = DATA / "lampada2" / "colSegundoHAREM-meta.xml.gz"


def one_error_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"harem {command}: error: ") and err.count("\n") == 1, err
    return err


# ---------------------------------------------------------------------------
# Véus: a subset of no document


@pytest.fixture
def avalida(tmp_path: Path) -> Path:
    """The hand-made First HAREM .avalida of tests/cases/veus (see the README there)."""
    shutil.copy(CASES / "first_harem.avalida", tmp_path)
    return tmp_path / "first_harem.avalida"


def test_a_subset_of_no_document_is_an_error(
    avalida: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file has PT, BR and AO documents, Web, Jornal and Literário ones, but no BR Web one.
    assert (
        main(["veus", str(avalida), "--style", "harem", "--variant", "br", "--genre", "web"]) == 2
    )
    err = one_error_line(capsys, "veus")
    assert "at least one document in the subset br.web" in err
    assert "variants: pt 3, ao 1, br 1; genres: jornalistico 2, web 2, literario 1" in err
    assert not (avalida.parent / "first_harem.avalida.br.web").exists()


def test_an_unknown_genre_lists_the_valid_ones(
    avalida: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["veus", str(avalida), "--style", "harem", "--genre", "noticia"]) == 2
    err = one_error_line(capsys, "veus")
    assert "expected a genre of the documents (jornalistico 2, web 2, literario 1)" in err
    assert "found 'noticia'" in err


def test_an_unknown_variant_lists_the_valid_ones(
    avalida: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["veus", str(avalida), "--style", "harem", "--variant", "mz"]) == 2
    assert "expected a variant of the documents (pt 3, ao 1, br 1)" in one_error_line(
        capsys, "veus"
    )


def test_an_empty_avalida_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.avalida"
    empty.write_text("", encoding="utf-8")
    assert main(["veus", str(empty), "--style", "harem"]) == 2
    assert "expected at least one document" in one_error_line(capsys, "veus")


def test_jornalistico_on_the_second_harem_lists_noticia(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alinhado, avalida = tmp_path / "run.alinhado", tmp_path / "run.alinhado.avalida"
    assert (
        main(["align", "--cd", str(SECOND_CD), "--run", str(SECOND_RUN), "-o", str(alinhado)]) == 0
    )
    assert main(["avalida", str(alinhado), "-o", str(avalida)]) == 0
    capsys.readouterr()
    args = ["veus", str(avalida), "--style", "harem", "--meta", str(SECOND_META)]
    assert main([*args, "--genre", "jornalistico"]) == 2
    err = one_error_line(capsys, "veus")
    assert "expected a genre of the documents (noticia 45, didactico 30," in err
    assert "found 'jornalistico'" in err
    assert main([*args, "--genre", "noticia"]) == 0


# ---------------------------------------------------------------------------
# harem measures: an empty file


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("empty.conll", "", "conll"),
        ("docstart.conll", "-DOCSTART- -X- O O\n\n", "conll"),
        ("empty.jsonl", "", "tokens-jsonl"),
    ],
)
def test_measures_of_a_file_without_tokens_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, fmt: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert main(["measures", str(path), "--format", fmt]) == 2
    err = one_error_line(capsys, "measures")
    assert f"{path}: expected at least one token" in err


# ---------------------------------------------------------------------------
# Runs and collections that share no document


def collection_of(source: Path, target: Path, keep: slice) -> Path:
    full = shipped_collection(source)
    small = dataclasses.replace(full, documents=full.documents[keep])
    target.write_bytes(format_collection(small).encode(full.encoding))
    return target


def test_align_of_a_run_sharing_no_docid_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cd = collection_of(
        DATA / "first-harem" / "ColeccaoDouradaHAREM.txt", tmp_path / "cd.txt", slice(0, 3)
    )
    run = collection_of(DATA / "campaign" / "sim-strong.txt.gz", tmp_path / "run.txt", slice(3, 6))
    assert (
        main(["align", "--cd", str(cd), "--run", str(run), "-o", str(tmp_path / "r.alinhado")]) == 2
    )
    err = one_error_line(capsys, "align")
    assert "a run sharing at least one DOCID with the collection cd.txt" in err
    assert "none of its 3 documents" in err
    assert not (tmp_path / "r.alinhado").exists()


def test_align_of_a_run_sharing_some_docids_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cd = collection_of(
        DATA / "first-harem" / "ColeccaoDouradaHAREM.txt", tmp_path / "cd.txt", slice(0, 3)
    )
    run = collection_of(DATA / "campaign" / "sim-strong.txt.gz", tmp_path / "run.txt", slice(1, 4))
    assert (
        main(["align", "--cd", str(cd), "--run", str(run), "-o", str(tmp_path / "r.alinhado")]) == 0
    )
    err = capsys.readouterr().err
    assert "NÃo consegui encontrar o documento na CD: " in err  # the run's 4th document
    assert "A submissÃo nÃo continha documentos da CD:" in err  # the CD's 1st one
    assert (tmp_path / "r.alinhado").exists()


# ---------------------------------------------------------------------------
# pipeline.yaml


@pytest.mark.parametrize("key", ["subsets", "scenarios"])
def test_an_empty_list_in_pipeline_yaml_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    config = make_campaign(tmp_path, documents=2, extra="")
    text = config.read_text(encoding="utf-8")
    text = "\n".join(line for line in text.splitlines() if not line.startswith(f"{key}:"))
    config.write_text(text + f"\n{key}: []\n", encoding="utf-8")
    assert main(["run", "--config", str(config)]) == 2
    err = one_error_line(capsys, "run")
    assert f"pipeline.yaml: {key}: empty" in err
    assert not (tmp_path / "out").exists()
