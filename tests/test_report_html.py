"""The HTML campaign report: self-contained, complete, honest about simulated runs."""

from __future__ import annotations

import re

import pytest

from harem_pipeline.reports.html import NO_CHARTS, render_report
from tests.helpers.report_fixtures import fake_summary


@pytest.fixture(scope="module")
def page() -> str:
    """The report of the fake summary, rendered once (charts take a while); read-only."""
    return render_report(fake_summary())


def test_report_is_self_contained_and_complete(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    # No network resource of any kind.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page
    assert 'id="leaderboard"' in page
    # One leaderboard row per run (subset total, absolute scenario).
    table = page.split('id="leaderboard"')[1].split("</table>")[0]
    assert table.count("<tr>") == 4  # header + 3 runs
    assert "0.9000 ± 0.0200" in table  # sim-strong precision with its interval
    # Best identification F first: sim-strong (0.85), real (0.65), sim-weak (0.45).
    order = re.findall(r'<tr><td class="name" data-value="([^"]+)"', table)
    assert order == ["sim-strong", "real", "sim-weak"]
    # Charts: F bars (classification, identification, morphology), outcome panels,
    # precision/recall.
    assert page.count("<svg") == 5
    # Every table has its signature.
    assert page.count("Signature: <code") == 12
    assert "harem:x|run:sim-weak|subset:pt|scenario:rel" in page


def test_simulated_runs_are_said_to_be_simulated(page: str) -> None:
    assert "Simulated runs: sim-strong, sim-weak." in page
    assert "not the output of any real system" in page
    assert page.count("(simulated)") >= 2


def test_run_without_morphology_is_stated_not_zeroed(page: str) -> None:
    assert "o sistema não classificou morfologicamente nenhuma EM" in page


def test_a_campaign_without_charts_draws_none_and_says_why(page: str) -> None:
    summary = fake_summary()
    summary["campaign"]["charts"] = False
    plain = render_report(summary)
    assert "<svg" not in plain and "<figure" not in plain
    assert plain.count("charts: false") == 1
    # everything else is the page with charts, the charts' block left out
    start, end = page.index('<div class="charts">'), page.index("<h2>Runs</h2>")
    assert plain == page[:start] + '<p class="muted">' + NO_CHARTS + "</p>" + page[end:]


def test_report_is_reproducible(page: str) -> None:
    assert render_report(fake_summary()) == page


def test_every_chart_says_which_subset_and_scenario_it_shows(page: str) -> None:
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    assert len(captions) == 5
    for caption in captions:
        assert "subconjunto" in caption, caption
        assert "cenário absoluto" in caption, caption
    assert "subconjuntos total, pt, cenário absoluto" in captions[0]


def test_the_legend_says_which_identification_f_the_leaderboard_shows(page: str) -> None:
    assert "Ida2ID&#x27;s identification measures with partial credit" in page
    assert "not the figures the official HAREM result tables show" in page


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
    assert "<title>HAREM campaign report (INCOMPLETE)</title>" in page
    assert page.count("The collection has no MORF.") == 1
    assert "Morfologia: Medida F" not in page and "Morfologia: resultados" not in page
    assert "o sistema não classificou" not in page  # said once at the top, not per table
