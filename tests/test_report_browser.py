"""The HTML report in a real headless Chromium: it renders, sorts, and logs no error.

Chromium comes from Debian's ``chromium`` package (``.ci/run`` installs it
when missing).  Where it cannot be had, these tests are skipped with that
reason, never passed silently.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harem_pipeline.reports.html import render_report
from tests.helpers.report_fixtures import fake_summary

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian package 'chromium')"
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--log-level=0",
]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "profile"
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


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
    # Click the "Id. Precisão" header twice (descending) and record the run order.
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>",
            "<script>var th=document.querySelectorAll('#leaderboard th')[3];th.click();"
            "th.click();document.title=Array.prototype.map.call("
            "document.querySelectorAll('#leaderboard tbody tr'),"
            "function(r){return r.cells[0].getAttribute('data-value')}).join(',');</script></body>",
        ),
        encoding="utf-8",
    )
    result = chromium(tmp_path, "--dump-dom", probe.as_uri())
    assert 'id="leaderboard"' in result.stdout
    assert "<title>sim-strong,real,sim-weak</title>" in result.stdout
    assert console_messages(result.stderr) == []


SHOTS = Path(__file__).resolve().parent.parent / ".screenshots"
"""Where the width screenshots are kept for a person to look at (ignored by git)."""


@pytest.mark.parametrize("width", [1400, 800])
def test_report_fits_the_window_width(page: Path, tmp_path: Path, width: int) -> None:
    from matplotlib.image import imread

    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"report-{width}.png"
    # The page with a script that writes its widths into its title (which is not drawn):
    # one launch both takes the screenshot and dumps the DOM.
    probe = tmp_path / "width.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace(
            "</body>",
            "<script>document.title='scroll:'+document.documentElement.scrollWidth+"
            "' charts:'+Array.prototype.map.call(document.querySelectorAll('.charts svg'),"
            "function(s){return Math.round(s.getBoundingClientRect().width)}).join(',');"
            "</script></body>",
        ),
        encoding="utf-8",
    )
    result = chromium(
        tmp_path,
        f"--window-size={width},2400",
        f"--screenshot={shot}",
        "--dump-dom",
        probe.as_uri(),
    )
    assert shot.is_file(), result.stderr[-2000:]
    assert imread(shot).shape[1] == width
    # Nothing wider than the window: the page scrolls down, never sideways.
    title = result.stdout.split("<title>", 1)[1].split("</title>", 1)[0]
    scroll, charts = (part.split(":", 1)[1] for part in title.split(" "))
    assert int(scroll) <= width, title
    widths = [int(w) for w in charts.split(",")]
    # Every chart spans the page's content width (the body's margins aside).
    assert len(widths) >= 3 and min(widths) >= 0.8 * min(width, 1280) - 64, title
    assert console_messages(result.stderr) == []
