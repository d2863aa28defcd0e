"""A campaign with ``veils:``: every run under every named veil, and the official pages.

The per-veil chains share the run's alignment and AvalIDa; each writes
``<run>.alinhado.avalida.<subset>.<veil>.alts.emir(.altrel).ida``; the build
writes ``out/official/`` (docs/spec/official-grid.md).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from pathlib import Path

from harem_pipeline.reports.official import read_semantic_entry
from tests.helpers.campaign import build, make_campaign
from tests.helpers.paths import DATA


def veiled_campaign(folder: Path) -> Path:
    config = make_campaign(folder)
    text = config.read_text(encoding="utf-8").replace(
        "runs: [runs/*.txt]",
        "runs:\n  - {path: runs/strong.txt, veil: pessoa}\n  - runs/weak.txt",
    )
    text = text.replace("scenarios: [absolute]", "scenarios: [absolute, relative]")
    extra = "style: muc\nveils: [total, pessoa, {name: meu, veil: 'PESSOA:LOCAL'}]\n"
    config.write_text(text + extra, encoding="utf-8")
    return config


def rows(page: Path) -> list[str]:
    text = page.read_bytes().decode("latin-1")
    return re.findall(r"<tr><td><b>(\w+)</b>", text)


def test_every_run_under_every_veil_and_the_official_pages(tmp_path: Path) -> None:
    config = veiled_campaign(tmp_path)
    started = build(config)
    out = tmp_path / "out"
    # One alignment and one AvalIDa per run, whatever the number of veils.
    assert sorted(name for name, _ in started if name in ("Align", "Avalida")) == [
        "Align",
        "Align",
        "Avalida",
        "Avalida",
    ]
    # Véus per run: the campaign's own two (style harem for identification, muc for the
    # semantic chain) and one per named veil.
    assert [run for name, run in started if name == "Veus"].count("weak") == 2 + 3
    official = out / "official"
    assert sorted(p.name for p in official.iterdir() if p.suffix == ".html") == sorted(
        [
            *(
                f"resultados{alt}_HAREM_Classico_{veil}.html"
                for veil in ("total", "pessoa", "meu", "proprio")
                for alt in ("", "_altrel")
            ),
            "resultados_identificacao_total.html",
        ]
    )
    assert sorted(rows(official / "resultados_identificacao_total.html")) == ["strong", "weak"]
    for veil in ("total", "pessoa", "meu"):
        page = official / f"resultados_HAREM_Classico_{veil}.html"
        assert sorted(rows(page)) == ["strong", "strong", "weak", "weak"]
    assert rows(official / "resultados_HAREM_Classico_proprio.html") == ["strong", "strong"]
    # The total veil's chain in style muc is the campaign's own muc chain: the same report.
    for run in ("strong", "weak"):
        veiled = out / run / f"{run}.alinhado.avalida.total.total.alts.emir.ida"
        plain = out / run / f"{run}.alinhado.avalida.total.muc.alts.emir.ida"
        assert veiled.read_bytes() == plain.read_bytes()
        pessoa = read_semantic_entry(
            run, out / run / f"{run}.alinhado.avalida.total.pessoa.alts.emir.ida"
        )
        total = read_semantic_entry(run, veiled)
        assert (
            pessoa.identification["Total de EMs identificadas na CD"]
            != (total.identification["Total de EMs identificadas na CD"])
        )
    # proprio: the strong run's pessoa figures.
    proprio = (official / "resultados_HAREM_Classico_proprio.html").read_bytes().decode("latin-1")
    pessoa = (official / "resultados_HAREM_Classico_pessoa.html").read_bytes().decode("latin-1")
    strong_rows = [line for line in pessoa.splitlines() if line.startswith("<tr><td><b>strong<")]
    for line in strong_rows:
        bare = re.sub("</?font[^>]*>|</?b>", "", line)
        assert bare in re.sub("</?font[^>]*>|</?b>", "", proprio)
    # The grid's summary: one row per run, subset, veil and ALT, the Ida's own figures.
    grid = list(csv.DictReader(io.StringIO((official / "grid.csv").read_text(encoding="utf-8"))))
    assert len(grid) == 2 * 1 * 3 * 3  # strict, relaxed and relative
    keys = {(row["run"], row["subset"], row["veil"], row["alt"]) for row in grid}
    assert ("weak", "total", "meu", "relaxed") in keys and len(keys) == 18
    relative = out / "weak" / "weak.alinhado.avalida.total.meu.alts.emir_relativo.ida"
    row = next(r for r in grid if (r["run"], r["veil"], r["alt"]) == ("weak", "meu", "relative"))
    assert row["class_f"] == read_semantic_entry("weak", relative).classification["Medida F"]
    row = next(r for r in grid if (r["run"], r["veil"], r["alt"]) == ("strong", "pessoa", "strict"))
    ida = read_semantic_entry(
        "strong", out / "strong" / "strong.alinhado.avalida.total.pessoa.alts.emir.ida"
    )
    assert row["id_f"] == ida.identification["Medida F"]
    assert row["class_f"] == ida.classification["Medida F"]
    assert json.loads((official / "grid.json").read_text(encoding="utf-8"))["rows"] == grid
    # The campaign summary carries the same rows (veil and alt columns), its own rows as before.
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [(r["run"], r["scenario"], r["veil"]) for r in summary["rows"]] == [
        ("strong", "absolute", None),
        ("strong", "relative", None),
        ("weak", "absolute", None),
        ("weak", "relative", None),
    ]
    table = list(csv.DictReader(io.StringIO((out / "summary.csv").read_text(encoding="utf-8"))))
    assert [r for r in table if not r["veil"]] == [
        {k: "" if v is None else str(v) for k, v in r.items()} for r in summary["rows"]
    ]
    by_key = {(r["run"], r["subset"], r["veil"], r["alt"]): r for r in grid}
    assert len(summary["veil_rows"]) == len(grid) == len([r for r in table if r["veil"]])
    for row in summary["veil_rows"]:
        kind = "relative" if row["scenario"] == "relative" else row["alt"]
        official_row = by_key[row["run"], row["subset"], row["veil"], kind]
        assert row["class_f"] == float(official_row["class_f"])
        assert row["id_f_official"] == float(official_row["id_f"])
        assert row["id_f"] is None and row["class_f_relaxed"] is None
    # The report's grid section: a veil selector and one table per veil.
    report = (out / "report.html").read_text(encoding="utf-8")
    assert '<select id="veu"><option value="total">total</option><option value="pessoa">' in report
    assert report.count('<table class="grelha"') == 3
    assert '<a href="official/relatorios/index.html">' in report
    # Per-system reports (one per run here), the run highlighted, and their index.
    strong = (official / "relatorios" / "strong" / "relatorio_strong.html").read_text("utf-8")
    rank = r'<td class="num">\d+</td>'
    mine = re.findall(rf'<tr class="mine">{rank}<td>(\w+)</td>', strong)
    assert mine == ["strong"] * 3 * 3  # veils x ALTs
    assert len(re.findall(rf"<tr>{rank}<td>weak</td>", strong)) == 3 * 3
    index = (official / "relatorios" / "index.html").read_text("utf-8")
    assert '<a href="strong/relatorio_strong.html">strong</a>' in index
    # Unchanged, a rebuild runs nothing.
    assert build(config) == []


GRID_REFERENCE = DATA / "reference" / "official" / "grid"


OFFICIAL_VEILS = (
    "total",
    "cenario2",
    "cenario3",
    "cenario4",
    "cenario5",
    "cenario6",
    "tempo",
    "pessoa",
    "organizacao",
    "local",
    "obra",
    "acontecimento",
    "coisa",
    "abstraccao",
    "valor",
)
"""The fifteen veils of the official grid (docs/spec/official-grid.md)."""


def test_the_second_harem_run_under_the_grid_equals_the_official_pages(tmp_path: Path) -> None:
    """The shipped Second HAREM run under the whole grid (its own veil: cenario2).

    References (``<veil>_<alt>.html.gz``): GlobalSemanticReporter -depurar on the
    .ida files of every veil (data/README.md).  The whole grid is one build of
    fifteen veils: this test takes about a minute on a loaded machine.
    """
    second = DATA / "second-harem"
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"collection: {second / 'SegundoHaremReRelEM_t1.xml.gz'}\n"
        "runs:\n"
        f"  - {{path: {second / 'ParticipacaoSegundoHaremReRelEM_t1.xml.gz'}, name: segundo,"
        " veil: cenario2}\n"
        "output: out\nsubsets: [total]\nscenarios: [absolute]\nstyle: muc\nbootstrap: 20\n"
        "charts: false\nveils: official\n",
        encoding="utf-8",
    )
    build(config)
    official = tmp_path / "out" / "official"
    pages = sorted(p.name for p in official.glob("resultados_*HAREM_Classico_*.html"))
    assert len(pages) == 2 * (len(OFFICIAL_VEILS) + 1)
    for veil in (*OFFICIAL_VEILS, "proprio"):
        source = "cenario2" if veil == "proprio" else veil
        for alt, prefix, filtro in (
            ("strict", "", ".emir.ida"),
            ("relaxed", "_altrel", ".emir.altrel.ida"),
        ):
            ours = (official / f"resultados{prefix}_HAREM_Classico_{veil}.html").read_bytes()
            title = f"HAREM_Classico.{veil}.alinhado.avalida.veu.alts{filtro}"
            reference = gzip.decompress(
                (GRID_REFERENCE / f"{source}_{alt}.html.gz").read_bytes()
            ).decode("latin-1")
            text = ours.decode("latin-1").replace(title, filtro)
            assert (
                "".join(
                    line for line in text.splitlines(keepends=True) if "Pagina gerada" not in line
                )
                == reference
            ), (veil, alt)


TIED_REFERENCE = DATA / "reference" / "official" / "tied-campaign"


def test_a_campaign_with_tied_runs_equals_the_official_pages(tmp_path: Path) -> None:
    """A hand-made campaign: ``twin``, a copy of ``strong``, ties it on every figure.

    References: GlobalSemanticReporter -depurar on this campaign's .ida files
    (data/README.md); the tie's order and best-cell marking are the Java's.
    """
    config = make_campaign(tmp_path, extra="style: muc\nveils: [total, pessoa]\n")
    runs = tmp_path / "runs"
    (runs / "twin.txt").write_bytes((runs / "strong.txt").read_bytes())
    build(config)
    official = tmp_path / "out" / "official"
    for veil in ("total", "pessoa"):
        for alt, prefix, filtro in (
            ("strict", "", ".emir.ida"),
            ("relaxed", "_altrel", ".emir.altrel.ida"),
        ):
            page = official / f"resultados{prefix}_HAREM_Classico_{veil}.html"
            title = f"HAREM_Classico.{veil}.alinhado.avalida.veu.alts{filtro}"
            text = page.read_bytes().decode("latin-1").replace(title, filtro)
            ours = "".join(
                line for line in text.splitlines(keepends=True) if "Pagina gerada" not in line
            )
            reference = gzip.decompress((TIED_REFERENCE / f"{veil}_{alt}.html.gz").read_bytes())
            assert ours == reference.decode("latin-1"), (veil, alt)
            assert rows(page)[:2] == ["twin", "strong"]
