"""The ReRelEM views in a real headless Chromium, at 1400 and 800 px wide.

The relation-graph page of the shipped run's triples under the NER veil
``cenario5`` (``harem rerelem graph``) and the HTML report's ReRelEM table:
no horizontal overflow, the graphs as many a row as the width takes, every
SVG inside its card, the table's views linked, no console message.  Skipped
(never passed) where Chromium is not installed.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from harem_pipeline.pipeline import rerelem as steps
from harem_pipeline.reports.html import render_report
from tests.helpers.chromium import CHROMIUM, chromium, console_messages, title_of
from tests.helpers.paths import DATA
from tests.helpers.report_fixtures import fake_summary

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian package 'chromium')"
)
TRIPLES = DATA / "reference" / "rerelem" / "cenario5" / "cenario5.triplas.gz"

GRAPH_PROBE = (
    "<script>var f=document.querySelectorAll('figure'),tops={},inside=true;"
    "for(var i=0;i<f.length;i++){tops[f[i].offsetTop]=(tops[f[i].offsetTop]||0)+1;"
    "var s=f[i].querySelector('svg').getBoundingClientRect(),b=f[i].getBoundingClientRect();"
    "if(s.right>b.right+0.5||s.left<b.left-0.5)inside=false;}"
    "document.title=[document.documentElement.scrollWidth,innerWidth,"
    "Math.max.apply(null,Object.values(tops)),f.length,inside].join(',');</script></body>"
)


@pytest.fixture(scope="module")
def graph_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("graph")
    triples = folder / "run.triplas"
    triples.write_bytes(gzip.decompress(TRIPLES.read_bytes()))
    page = steps.run_graph(triples).output
    probe = folder / "probe.html"
    probe.write_text(page.read_text("utf-8").replace("</body>", GRAPH_PROBE), "utf-8")
    return probe


@pytest.mark.parametrize(("width", "per_row"), [(1400, 3), (800, 2)])
def test_the_graph_page_fits_the_window(
    graph_page: Path, tmp_path: Path, width: int, per_row: int
) -> None:
    result = chromium(tmp_path, f"--window-size={width},900", "--dump-dom", graph_page.as_uri())
    scroll, inner, row, figures, inside = title_of(result.stdout).split(",")
    assert int(scroll) <= int(inner) == width  # no horizontal scrolling
    assert int(row) == per_row and int(figures) > 10  # a grid, not one column
    assert inside == "true"  # each graph scaled into its card
    assert console_messages(result.stderr) == []


def _rerelem_summary() -> dict:
    summary = fake_summary()
    summary["rerelem"] = [
        {
            "run": run,
            "simulated": run == "sim",
            "veil": veil,
            "scenario": scenario,
            "gold": 11387,
            "identified": 63,
            "correct": 42,
            "precision": 0.6666666666666666,
            "recall": 0.0036884166154386583,
            "f": 0.007336244541484717,
            "precision_ci95": [0.55, 0.78],
            "recall_ci95": [0.002, 0.005],
            "f_ci95": [0.004, 0.01],
            "graph": f"{run}.{veil}.alts.expandido.selec.normalizado.triplas.html",
        }
        for run in ("real", "sim")
        for veil in ("total", "cenario5")
        for scenario in ("todas", "localizacao")
    ]
    return summary


TABLE_PROBE = (
    "<script>var s=document.getElementById('rerelem'),t=s.querySelector('table');"
    "document.title=[document.documentElement.scrollWidth,innerWidth,"
    "Math.round(t.getBoundingClientRect().right),s.querySelectorAll('a[href]').length,"
    "s.querySelectorAll('.ci').length].join(',');</script></body>"
)


@pytest.mark.parametrize("width", [1400, 800])
def test_the_report_table_fits_and_links_the_views(tmp_path: Path, width: int) -> None:
    page = tmp_path / "report.html"
    html = render_report(_rerelem_summary())
    assert 'href="real/real.total.alts.expandido.selec.normalizado.triplas.html"' in html
    assert 'href="official/resultados_ReRelEM_localizacao_cenario5.html"' in html
    page.write_text(html.replace("</body>", TABLE_PROBE), "utf-8")
    result = chromium(tmp_path, f"--window-size={width},900", "--dump-dom", page.as_uri())
    scroll, inner, right, links, intervals = (int(x) for x in title_of(result.stdout).split(","))
    assert scroll <= inner == width and right <= width
    assert links == 2 * 8 and intervals == 3 * 8
    assert console_messages(result.stderr) == []
