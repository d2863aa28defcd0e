"""``harem rerelem report DIR``: the official ReRelEM table (``GlobalRelationsReporter -depurar``).

Reference (``data/reference/rerelem/report``, see ``data/README.md``): the
official program's pages on ``participacoes/`` — the summaries of the
shipped run under both NER veils and five relation scenarios (``c5_ident``
and ``c5_localizacao`` have no system relation: no row), a copy of the best
run (two green marks), one in a sub-folder, and a hand-edited one with an
empty CD (``Infinity``, ``-Infinity``, NaN) — with ``-dir participacoes``
(``dep.html``: ``-desaconselhadas`` too; ``slash.html``: ``-dir
participacoes/``) and from inside it with ``-dir .`` and ``-filtro
.x.resumo:y.resumo`` (``dot.html``: rows named by the whole path).  Pages
compared after the timestamp line, which the references lack.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.pipeline import rerelem as steps
from harem_pipeline.reports.rerelem_official import parse_relations_entry, render_relations_page
from tests.helpers.paths import DATA

REFERENCE = DATA / "reference" / "rerelem" / "report"
STAMP = b"<br>Pagina gerada automaticamente em:"


def undated(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if not line.startswith(STAMP)]


@pytest.fixture
def participacoes(tmp_path: Path) -> Path:
    shutil.copytree(REFERENCE / "participacoes", tmp_path / "participacoes")
    return tmp_path / "participacoes"


@pytest.mark.parametrize(
    ("reference", "folder", "options"),
    [
        ("dep.html", "participacoes", ["--deprecated"]),
        ("slash.html", "participacoes/", []),
        ("dot.html", ".", ["--filter", ".x.resumo:y.resumo"]),
    ],
)
def test_the_table_equals_the_official_programs(
    participacoes: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: str,
    folder: str,
    options: list[str],
) -> None:
    monkeypatch.chdir(participacoes if folder == "." else participacoes.parent)
    out = participacoes.parent / "page.html"
    assert main(["rerelem", "report", folder, "-o", str(out), *options]) == 0
    assert undated(out.read_bytes()) == undated((REFERENCE / reference).read_bytes())


def test_the_default_page_is_in_the_folder_and_names_the_runs_as_the_java(
    participacoes: Path,
) -> None:
    assert main(["rerelem", "report", str(participacoes)]) == 0
    page = (participacoes / steps.REPORT).read_bytes().decode("iso-8859-1")
    rows = [line for line in page.splitlines() if line.startswith("<tr><td>")]
    assert len(rows) == 11  # 13 summaries, two with no system relation
    assert f"<td><b>{participacoes}/sub/deep</b></td>" in rows[-2]  # ties: reverse name order
    assert f"<td><b>{participacoes}/neg</b></td>" in rows[-1]  # F NaN: the smallest
    # best P 1.0 twice (ident, sub/deep), R Infinity (neg), F twice (c5_inclusao, z_copy)
    assert page.count("<font color=green>") == 2 + 1 + 2
    # written again, the page itself is not read as a summary
    assert main(["rerelem", "report", str(participacoes)]) == 0


def test_java_paths_and_names() -> None:
    assert steps.java_file_path("a//b/") == "a/b"
    assert steps.java_file_path("/") == "/"
    assert steps.java_run_name("corridas/run_t1.xml.todas.resumo") == "corridas/run_t1"
    assert steps.java_run_name("../c/run.resumo") == "../c/run.resumo"  # '.' first: whole path


def _summary(**values: str) -> list[str]:
    lines = (REFERENCE / "participacoes" / "shipped_todas.x.resumo").read_text("iso-8859-1")
    out = []
    block = None
    for line in lines.splitlines():
        if line.startswith("Avaliação"):
            block = line
        label = line.split(": ")[0]
        key = f"{'R' if block == 'Avaliação de Relações' else 'C'}:{label}"
        out.append(f"{label}: {values[key]}" if key in values else line)
    return out


def test_a_run_with_no_corels_precision_has_no_row() -> None:
    entries = [
        parse_relations_entry("a", _summary()),
        parse_relations_entry("b", _summary(**{"C:Precisão": "NaN", "R:Medida F": "NaN"})),
    ]
    page = render_relations_page(entries, [".resumo"], datetime(2026, 1, 2, 3, 4, 5))
    assert "<td><b>a</b></td>" in page and "<td><b>b</b></td>" not in page
    assert "<br>Pagina gerada automaticamente em: 02 Jan 2026 03:04:05" in page.splitlines()


def test_a_summary_without_a_shown_figure_is_one_clear_error(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    lines = [line for line in _summary() if not line.startswith("Total identificadas")]
    (folder / "r.resumo").write_text("\n".join(lines) + "\n", encoding="iso-8859-1")
    assert main(["rerelem", "report", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "r.resumo" in err[0] and "Total identificadas" in err[0]
    assert not (folder / steps.REPORT).exists()


def test_a_figure_that_is_not_a_number_is_an_error() -> None:
    with pytest.raises(InputError, match="Medida F"):
        parse_relations_entry("a", _summary(**{"R:Medida F": "0,5"}), "a.resumo")


def test_a_folder_without_summaries_is_an_error(tmp_path: Path, capsys) -> None:
    assert main(["rerelem", "report", str(tmp_path)]) == 2
    assert ".resumo" in capsys.readouterr().err
    assert main(["rerelem", "report", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err
