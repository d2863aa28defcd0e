"""The HTML campaign report: self-contained, complete, honest about simulated runs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from harem_pipeline.reports import charts
from harem_pipeline.reports.html import NO_CHARTS, render_report, run_anchor
from tests.helpers.campaign import build, make_campaign
from tests.helpers.report_fixtures import fake_summary


@pytest.fixture(scope="module")
def page() -> str:
    """The report of the fake summary, rendered once (charts take a while); read-only."""
    return render_report(fake_summary())


def leaderboard(page: str, table_id: str = "leaderboard") -> str:
    return page.split(f'id="{table_id}"')[1].split("</table>")[0]


def test_report_is_self_contained_and_complete(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    # No network resource of any kind.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page
    table = leaderboard(page)
    # One leaderboard row per run (subset total, absolute scenario).
    assert table.count("<tr>") == 4  # header + 3 runs
    # sim-strong's strict classification F (0.9 - 0.15) with its interval's half-width
    assert '0.7500 <span class="ci">± 0.0100</span>' in table
    # Best classification F first: sim-strong (0.75), real (0.55), sim-weak (0.35).
    order = re.findall(r'<td class="name" data-value="([^"]+)"', table)
    assert order == ["sim-strong", "real", "sim-weak"]
    # Charts: F per run (classification, identification, morphology), outcome panels,
    # precision/recall.
    assert page.count("<svg") == 5
    # Every run × subset × scenario table has its signatures, one per report it shows:
    # 12 tables, 4 reports for the 6 absolute ones, 3 for the relative ones, one morphology
    # report missing.
    assert page.count("Assinaturas:</p>") == 12
    assert page.count("<li>Ida, ALT estrito: <code") == 12
    assert page.count("<li>Ida2Mor: <code") == 11
    assert "harem:x|run:sim-weak|subset:pt|scenario:rel" in page


def test_the_compact_leaderboard_shows_the_official_figures_and_hides_the_rest(
    page: str,
) -> None:
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", leaderboard(page))
    assert heads == [
        "#",
        "Saída",
        "Classificação F (ALT estrito)",
        "Classificação F (ALT relaxado)",
        "Identificação F (Ida)",
        "Identificação F (Ida2ID)",
        "Morfologia F (Combinada)",
    ]
    details = page.split('<details id="todas-as-medidas">')[1].split("</details>")[0]
    assert "<summary>Todas as medidas e assinaturas</summary>" in details
    assert "F sobreposição" in leaderboard(page, "leaderboard-details")
    # the leaderboard's signatures are its strict Ida reports'
    assert (
        'sim-strong: <code class="sig">harem:x|run:sim-strong|subset:total|scenario:abs|alt:strict'
        in (details)
    )


def test_labels_are_portuguese(page: str) -> None:
    for english in ("<th>Run", ">Subset<", ">Scenario<", "Leaderboard", "<h2>Charts", "<h2>Runs"):
        assert english not in page
    for label in ("<h2>Resultados globais</h2>", "<h2>Gráficos</h2>", "<h2>Índice</h2>"):
        assert label in page
    assert "<h1>Relatório da campanha HAREM</h1>" in page
    assert "are in Portuguese, as the HAREM reports have them; notes and explanations are in" in (
        page
    )


def test_a_table_of_contents_links_every_section_chart_and_run(page: str) -> None:
    contents = page.split('<nav id="indice">')[1].split("</nav>")[0]
    targets = re.findall(r'href="#([^"]+)"', contents)
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    assert set(targets) <= ids
    assert {"resultados", "graficos", "saidas", "legenda", "todas-as-medidas"} <= set(targets)
    assert sum(t.startswith("grafico-") for t in targets) == 5
    assert [t for t in targets if t.startswith("saida-")] == [
        "saida-sim-strong",
        "saida-real",
        "saida-sim-weak",
    ]


def test_every_run_is_a_collapsed_details_block(page: str) -> None:
    blocks = re.findall(r'<details class="run" id="([^"]+)">', page)
    assert blocks == ["saida-sim-strong", "saida-real", "saida-sim-weak"]
    assert '<details class="run" id="saida-sim-strong" open' not in page


def test_run_anchors_are_distinct_and_valid() -> None:
    names = ["a b", "a_b", "a.b", "a-b", "ção", "a.2E.b", "\u0100A", "\u100a"]
    anchors = [run_anchor(name) for name in names]
    assert len(set(anchors)) == len(names)
    assert all(re.fullmatch(r"saida-[A-Za-z0-9_.-]+", a) for a in anchors)
    assert run_anchor("a.b") == "saida-a.2E.b"


def test_the_relative_identification_above_one_is_explained(page: str) -> None:
    legend = page.split('<div id="legenda"')[1].split("</div>")[0]
    assert "is not a proportion and may exceed 1" in legend
    assert "a golden entity the system split into n pieces adds n" in legend
    # the figure itself is kept as the official programs print it
    assert "1.0131" in page
    # each relative table points to the legend
    assert page.count('may exceed 1 (see <a href="#legenda">the legend</a>)') == 6


def test_simulated_runs_are_said_to_be_simulated(page: str) -> None:
    assert "Simulated runs: sim-strong, sim-weak." in page
    assert "not the output of any real system" in page
    assert page.count("(simulada)") >= 2


def test_run_without_morphology_is_stated_not_zeroed(page: str) -> None:
    assert "o sistema não classificou morfologicamente nenhuma EM" in page


def test_a_campaign_without_charts_draws_none_and_says_why(page: str) -> None:
    summary = fake_summary()
    summary["campaign"]["charts"] = False
    plain = render_report(summary)
    assert "<svg" not in plain and "<figure" not in plain
    assert plain.count(NO_CHARTS) == 1
    assert 'href="#grafico-' not in plain
    # everything after the charts is the page with charts
    end = page.index('<section id="saidas">')
    assert plain.endswith(page[end:])


def test_report_is_reproducible(page: str) -> None:
    assert render_report(fake_summary()) == page


def test_every_chart_says_which_subset_and_scenario_it_shows(page: str) -> None:
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert len(captions) == 5
    for caption in captions:
        assert "subconjunto" in caption, caption
        assert "cenário absoluto" in caption, caption
        assert "eixo vertical de " in caption, caption
    assert "subconjuntos total, pt, cenário absoluto" in captions[0]


def test_axes_span_the_figures_and_say_so(page: str) -> None:
    # The classification F of the fake runs lies between 0.35 and 0.75, intervals ±0.01.
    caption = re.findall(r"<figcaption>(.*?)</figcaption>", page)[0]
    assert "eixo vertical de 0.30 a 0.80 (não começa em 0)" in caption
    assert charts.axis_range([0.61, 0.69]) == (0.55, 0.75)
    assert charts.axis_range([0.6, 0.7]) == (0.55, 0.75)
    assert charts.axis_range([0.01, 0.99]) == (0.0, 1.05)
    assert charts.axis_range([0.63, 0.67]) == (0.6, 0.7)
    assert charts.axis_range([0.8, 0.8]) == (0.75, 0.85)
    assert charts.axis_range([0.9, 1.0131]) == (0.85, 1.05)  # relative figures above 1 fit
    assert charts.axis_range([None, float("nan")]) == (0.0, 1.0)
    assert charts.describe_range("vertical", (0.0, 1.0)) == "eixo vertical de 0.00 a 1.00"


def test_the_legend_says_which_identification_f_the_leaderboard_shows(page: str) -> None:
    assert "Ida2ID&#x27;s identification measures with partial credit" in page
    assert "not the figures the official HAREM result tables show" in page


def test_the_precision_recall_chart_writes_no_text_beside_its_markers() -> None:
    # Runs close together made their names overlap: names go to a legend, not the axes.
    svg, _, _ = charts.precision_recall(
        "", {"Identificação": {"a": (0.70, 0.71), "b": (0.701, 0.709), "c": (0.5, 0.4)}}
    )
    axes = svg.split('id="axes_1"')[1].split('id="legend_1"')[0]
    assert ">a<" not in axes and ">b<" not in axes
    assert svg.count(">a<") == svg.count(">b<") == 1  # once each, in the legend


def test_series_colours_never_repeat_within_a_chart() -> None:
    from harem_pipeline.reports.charts import series_colour

    for n in (1, 6, 12, 13, 30):
        colours = [series_colour(i, n) for i in range(n)]
        assert len(set(colours)) == n


def test_incomplete_and_no_morphology_are_said_once() -> None:
    summary = fake_summary()
    summary["campaign"]["morphology"] = False
    summary["incomplete"] = ["real"]
    summary["notes"] = ["INCOMPLETE: the chain of real failed.", "The collection has no MORF."]
    page = render_report(summary)
    assert page.count("INCOMPLETE: the chain of real failed.") == 1
    assert "<title>Relatório da campanha HAREM (INCOMPLETO)</title>" in page
    assert page.count("The collection has no MORF.") == 1
    assert "Morfologia: Medida F" not in page and "Morfologia: resultados" not in page
    assert "o sistema não classificou" not in page  # said once at the top, not per table
    # no empty morphology columns, in the leaderboard or its details
    assert "Morf" not in leaderboard(page) and "Morf" not in leaderboard(
        page, "leaderboard-details"
    )
    assert "Ida2Mor&#x27;s combined" not in page


def browse_links(page: str) -> list[str]:
    """Every link of the page to alignment pages (``<run>/browse/…``)."""
    return re.findall(r'href="([^"#]*/browse/[^"]*)"', page)


def test_runs_and_their_categories_link_the_pages_the_campaign_wrote() -> None:
    summary = fake_summary()
    summary["campaign"]["browse"] = ["real"]
    page = render_report(summary)
    # the name in the leaderboard and in its details table, and in the run's block; a
    # category cell in each of the run's 4 tables of strict Ida figures (2 subsets × 2
    # scenarios); the other runs' pages were not written, so not linked
    assert (
        sorted(browse_links(page))
        == ["real/browse/index.html"] * 3 + ["real/browse/index.html#cat=PESSOA"] * 4
    )
    assert leaderboard(page).count('class="browse" href="real/browse/index.html"') == 1
    block = page.split(f'id="{run_anchor("real")}"')[1].split("</summary>")[0]
    assert 'href="real/browse/index.html"' in block
    # the run's name still leads to its block on this page
    assert f'<a href="#{run_anchor("real")}">real</a>' in leaderboard(page)


def test_no_links_to_pages_a_campaign_did_not_write(page: str) -> None:
    assert browse_links(page) == []
    assert 'class="browse"' not in page


def test_a_campaign_links_every_run_to_its_pages_and_they_exist(tmp_path: Path) -> None:
    config = make_campaign(tmp_path, documents=3)
    build(config)
    out = tmp_path / "out"
    page = (out / "report.html").read_text(encoding="utf-8")
    links = browse_links(page)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["campaign"]["browse"] == ["strong", "weak"]
    categories = {r["run"]: list(r["classification"]["por_categoria"]) for r in summary["reports"]}
    assert categories["strong"]  # the per-category table is there to link
    for run in ("strong", "weak"):
        assert links.count(f"{run}/browse/index.html") == 3
        assert sorted(link for link in links if link.startswith(f"{run}/browse/index.html#")) == [
            f"{run}/browse/index.html#cat={c}" for c in sorted(categories[run])
        ]
    for link in links:
        target = out / unquote(link.split("#")[0])
        assert target.is_file(), link
    # the index filters by the names the report links: each category with errors there
    # is one of the Ida report's
    index = (out / "strong" / "browse" / "index.html").read_text(encoding="utf-8")
    filtered = {c for cats in re.findall(r'data-cats="([^"]*)"', index) for c in cats.split()}
    assert filtered and filtered <= set(categories["strong"]), filtered
    assert len(list((out / "strong" / "browse" / "docs").glob("*.html"))) == 3


def test_the_legend_has_a_paragraph_per_figure_family(page: str) -> None:
    from html import escape

    from harem_pipeline.reports.summary import FAMILY_LEGENDS

    legend = page.split('id="legenda"')[1].split("</div>")[0]
    for _, paragraph in FAMILY_LEGENDS:
        assert f"<p>{escape(paragraph.replace('`', ''))}</p>" in legend
    assert "0.9001" in legend and "0.9965" in legend
