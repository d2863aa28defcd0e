"""The HTML report in a real headless Chromium: it renders, sorts, and logs no error.

Chromium comes from Debian's ``chromium`` package (``.ci/run`` installs it
when missing).  Where it cannot be had, these tests are skipped with that
reason, never passed silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.reports.html import render_report
from tests.helpers.chromium import CHROMIUM, chromium, console_messages, title_of
from tests.helpers.report_fixtures import fake_summary

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian package 'chromium')"
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(render_report(fake_summary()), encoding="utf-8")
    return path


def test_report_renders_a_non_empty_screenshot(page: Path, tmp_path: Path) -> None:
    from matplotlib.image import imread

    shot = tmp_path / "shot.png"
    result = chromium(tmp_path, "--window-size=1280,1600", f"--screenshot={shot}", page.as_uri())
    assert shot.is_file(), result.stderr[-2000:]
    pixels = imread(shot)
    assert pixels.shape[0] >= 1600 and pixels.shape[1] >= 1280
    assert pixels.std() > 0.05  # not a blank page
    assert console_messages(result.stderr) == []


def test_leaderboard_is_present_and_sorts(page: Path, tmp_path: Path) -> None:
    # Click the "Identificação F (Ida2ID)" header once (ascending), record the run order.
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>",
            "<script>var th=document.querySelectorAll('#leaderboard th')[5];th.click();"
            "document.title=Array.prototype.map.call("
            "document.querySelectorAll('#leaderboard tbody tr'),"
            "function(r){return r.cells[1].getAttribute('data-value')}).join(',');</script></body>",
        ),
        encoding="utf-8",
    )
    result = chromium(tmp_path, "--dump-dom", probe.as_uri())
    assert 'id="leaderboard"' in result.stdout
    assert "<title>sim-weak,real,sim-strong</title>" in result.stdout
    assert console_messages(result.stderr) == []


SHOTS = Path(__file__).resolve().parent.parent / ".screenshots"
"""Where the width screenshots are kept for a person to look at (ignored by git)."""


PROBE = """<script>
(function () {
  var out = {page: document.documentElement.scrollWidth, window: window.innerWidth};
  var board = document.getElementById('leaderboard');
  out.board = [board.scrollWidth, board.parentElement.clientWidth];
  out.charts = Array.prototype.map.call(document.querySelectorAll('.charts svg'),
    function (s) { return Math.round(s.getBoundingClientRect().width); });
  out.fonts = Array.prototype.map.call(document.querySelectorAll('.charts svg text'),
    function (t) {
      var m = t.getScreenCTM();
      return parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    });
  out.links = Array.prototype.map.call(document.querySelectorAll('a[href^="#"]'),
    function (a) { return a.getAttribute('href').slice(1); });
  out.missing = out.links.filter(function (id) { return !document.getElementById(id); });
  out.runs = Array.prototype.map.call(document.querySelectorAll('#saidas > *'),
    function (e) { return e.tagName + (e.open ? ':open' : ''); });
  out.height = document.documentElement.scrollHeight;
  document.title = JSON.stringify(out);
})();
</script>"""
"""Writes what the page measures in the browser into its title (which is not drawn)."""


def measure(page: Path, tmp_path: Path, width: int, shot: Path | None = None) -> dict:
    """The page's measures in Chromium at ``width`` px (and its screenshot, when asked)."""
    import json

    probe = tmp_path / f"probe-{width}.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    args = [f"--window-size={width},2400", "--dump-dom", probe.as_uri()]
    if shot is not None:
        args.insert(1, f"--screenshot={shot}")
    result = chromium(tmp_path, *args)
    assert console_messages(result.stderr) == []
    return json.loads(title_of(result.stdout).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.mark.parametrize("width", [1400, 800])
def test_report_fits_the_window_width(page: Path, tmp_path: Path, width: int) -> None:
    from matplotlib.image import imread

    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"report-{width}.png"
    found = measure(page, tmp_path, width, shot)
    assert shot.is_file()
    assert imread(shot).shape[1] == width
    # Nothing wider than the window: the page scrolls down, never sideways.
    assert found["page"] <= width, found
    # The leaderboard fits its box (no scroll bar of its own), at 1400 px and at 800 px.
    scroll, box = found["board"]
    assert scroll <= box, found
    # Every chart spans the content width, up to the 60rem (960 px) a chart is shown at.
    content = min(width, 1280 + 32) - 32 - 20  # the body's padding, a scroll bar
    assert len(found["charts"]) == 5
    assert min(found["charts"]) >= min(content, 960) - 20, found


def test_chart_text_is_readable_at_800_px(page: Path, tmp_path: Path) -> None:
    found = measure(page, tmp_path, 800)
    assert len(found["fonts"]) > 50  # ticks, labels, legends: real text, not paths
    assert min(found["fonts"]) >= 11, sorted(found["fonts"])[:5]


def test_every_link_resolves_and_runs_are_collapsed(page: Path, tmp_path: Path) -> None:
    found = measure(page, tmp_path, 1400)
    assert found["missing"] == []
    assert "resultados" in found["links"] and "saida-sim-strong" in found["links"]
    assert sum(link.startswith("grafico-") for link in found["links"]) == 5
    # the runs' section: a heading, a line, then one closed <details> per run
    assert found["runs"] == ["H2", "P", "DETAILS", "DETAILS", "DETAILS"]
    # collapsed, the page is a few screens long, not tens
    assert found["height"] < 6000, found


def test_a_link_to_a_run_opens_its_block(page: Path, tmp_path: Path) -> None:
    probe = tmp_path / "open.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>",
            "<script>location.hash='#saida-real';openTarget();document.title="
            "Array.prototype.map.call(document.querySelectorAll('details.run'),"
            "function(d){return d.id+':'+d.open}).join(',');</script></body>",
        ),
        encoding="utf-8",
    )
    result = chromium(tmp_path, "--dump-dom", probe.as_uri())
    assert "<title>saida-sim-strong:false,saida-real:true,saida-sim-weak:false</title>" in (
        result.stdout
    )


@pytest.mark.parametrize("width", [1400, 800])
def test_links_to_the_alignment_pages_keep_the_leaderboard_in_its_box(
    tmp_path: Path, width: int
) -> None:
    summary = fake_summary()
    summary["campaign"]["browse"] = ["sim-strong", "sim-weak", "real"]
    page = tmp_path / "report.html"
    page.write_text(render_report(summary), encoding="utf-8")
    found = measure(page, tmp_path, width)
    assert found["page"] <= width, found
    scroll, box = found["board"]
    assert scroll <= box, found


def ceiling_summary() -> dict:
    """``fake_summary`` with the ceiling run of ``real``: higher than every run, unranked."""
    from tests.helpers.report_fixtures import fake_report

    summary = fake_summary()
    for subset in ("total", "pt"):
        for scenario in ("absolute", "relative"):
            report = fake_report("real-ceiling", subset, scenario, 0.95, simulated=False)
            summary["reports"].append({**report, "ceiling_of": "real"})
    return summary


@pytest.mark.parametrize("width", [1400, 800])
def test_a_ceiling_row_follows_its_model_unranked(tmp_path: Path, width: int) -> None:
    page = tmp_path / "report.html"
    page.write_text(render_report(ceiling_summary()), encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>",
            "<script>document.title=JSON.stringify({rows:Array.prototype.map.call("
            "document.querySelectorAll('#leaderboard tbody tr'),function(r){return ["
            "r.cells[0].textContent,r.cells[1].getAttribute('data-value'),r.className]}),"
            "page:document.documentElement.scrollWidth});</script></body>",
        ),
        encoding="utf-8",
    )
    shot = tmp_path / "shot.png"
    result = chromium(
        tmp_path,
        f"--window-size={width},1600",
        f"--screenshot={shot}",
        "--dump-dom",
        probe.as_uri(),
    )
    assert console_messages(result.stderr) == []
    found = json.loads(title_of(result.stdout).replace("&quot;", '"').replace("&amp;", "&"))
    assert found["rows"] == [
        ["1", "sim-strong", ""],
        ["2", "real", ""],
        ["", "real-ceiling", "ceiling"],
        ["3", "sim-weak", ""],
    ]
    assert found["page"] <= width
    assert shot.is_file()
