"""The pages of ``harem browse`` in a real headless Chromium: filters, clicks, widths.

Skipped, with the reason, where Chromium is not installed (Debian package
``chromium``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harem_pipeline.pipeline.browse import write_browse
from tests.helpers.chromium import CHROMIUM, chromium, console_messages, title_of
from tests.helpers.paths import DATA

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (Debian package 'chromium')"
)
SHOTS = Path(__file__).resolve().parent.parent / ".screenshots"
"""Where the screenshots are kept for a person to look at (ignored by git)."""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("browse") / "pages"
    write_browse(
        DATA / "lampada2/exemplo1/CDexemplo.xml", DATA / "lampada2/exemplo1/ficheiro.xml", folder
    )
    return folder


def _probe(page: Path, tmp_path: Path, script: str, name: str = "probe.html") -> Path:
    """A copy of ``page`` beside it that runs ``script`` after the page's own."""
    probe = page.with_name(name)
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", f"<script>{script}</script></body>"),
        encoding="utf-8",
    )
    return probe


def test_a_click_shows_the_records_and_the_filters_dim_the_rest(
    pages: Path, tmp_path: Path
) -> None:
    page = pages / "docs" / "00000.html"
    # Open with the category LOCAL chosen (as report.html's category cells link),
    # untick Correcto, turn the token numbers on, click the first missing entity.
    probe = _probe(
        page,
        tmp_path,
        "var box=document.querySelector('input[data-outcome=Correcto]');box.click();"
        "document.getElementById('tokens').click();"
        "var em=document.querySelector('#text .em[data-outcome=Em_Falta]');em.click();"
        "var dim=document.querySelectorAll('#text .em.dim').length;"
        "var shown=Array.prototype.filter.call(document.querySelectorAll('#text .em'),"
        "function(e){return !e.classList.contains('dim')});"
        "var bad=shown.filter(function(e){return e.getAttribute('data-outcome')==='Correcto'||"
        "e.getAttribute('data-categ').split('|').indexOf('LOCAL')<0}).length;"
        "document.title='dim:'+dim+' shown:'+shown.length+' bad:'+bad+"
        "' tokens:'+document.body.classList.contains('tokens')+"
        "' pres:'+document.querySelectorAll('#panel pre').length;",
    )
    result = chromium(tmp_path, "--dump-dom", probe.as_uri() + "#cat=LOCAL")
    assert console_messages(result.stderr) == []
    fields = dict(part.split(":", 1) for part in title_of(result.stdout).split(" "))
    assert int(fields["shown"]) > 0 and int(fields["dim"]) > 0
    assert fields["bad"] == "0"  # nothing shown but non-Correcto LOCAL entities
    assert fields["tokens"] == "true"
    assert int(fields["pres"]) == 2  # the .avalida line and the token view's
    # the panel holds the missing entity's records as the files have them
    panel = result.stdout.split('id="panel"', 1)[1].split("</aside>", 1)[0]
    assert "---&gt; [null]:[Em_Falta]" in panel
    assert re.search(r"&lt;(\d+)&gt;\w+&lt;/\1&gt;", panel)  # the token view's numbers
    # every entity element names its side, outcome and category
    for side in ('data-side="gold"', 'data-side="system"'):
        assert side in result.stdout
    assert 'data-categ="' in result.stdout and 'data-outcome="Espurio"' in result.stdout


def test_the_index_filters_documents_by_category(pages: Path, tmp_path: Path) -> None:
    # a category some documents have errors in and some not, chosen through the link
    index = (pages / "index.html").read_text(encoding="utf-8")
    rows = [cats.split() for cats in re.findall(r'<tr data-cats="([^"]*)"', index)]
    category = next(
        c for c in sorted({c for r in rows for c in r}) if any(c not in r for r in rows)
    )
    expected_hidden = sum(1 for r in rows if category not in r)
    probe = _probe(
        pages / "index.html",
        tmp_path,
        "var rows=document.querySelectorAll('tr[data-cats]');"
        "var hidden=Array.prototype.filter.call(rows,function(r){return r.hidden}).length;"
        "var shown=Array.prototype.filter.call(rows,function(r){return !r.hidden})[0];"
        "document.title='rows:'+rows.length+' hidden:'+hidden+' href:'+"
        "shown.querySelector('a').getAttribute('href');",
    )
    result = chromium(tmp_path, "--dump-dom", probe.as_uri() + "#cat=" + category)
    assert console_messages(result.stderr) == []
    fields = dict(part.split(":", 1) for part in title_of(result.stdout).split(" "))
    assert int(fields["rows"]) == len(rows) and int(fields["hidden"]) == expected_hidden > 0
    assert fields["href"].endswith("#cat=" + category)  # the page opens filtered alike


@pytest.mark.parametrize("width", [1400, 800])
def test_a_document_page_fits_the_window_width(pages: Path, tmp_path: Path, width: int) -> None:
    from matplotlib.image import imread

    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"browse-{width}.png"
    probe = _probe(
        pages / "docs" / "00000.html",
        tmp_path,
        "document.querySelector('#text .em[data-outcome=Em_Falta]').click();"
        "document.title='scroll:'+document.documentElement.scrollWidth+"
        "' panel:'+Math.round(document.getElementById('panel').getBoundingClientRect().width);",
        name=f"width-{width}.html",
    )
    result = chromium(
        tmp_path,
        f"--window-size={width},1000",
        f"--screenshot={shot}",
        "--dump-dom",
        probe.as_uri(),
    )
    assert shot.is_file(), result.stderr[-2000:]
    pixels = imread(shot)
    assert pixels.shape[1] == width and pixels.std() > 0.05  # drawn, not blank
    fields = dict(part.split(":", 1) for part in title_of(result.stdout).split(" "))
    assert int(fields["scroll"]) <= width  # scrolls down, never sideways
    # beside the text when wide, the whole width (a sheet at the bottom) when narrow
    panel = int(fields["panel"])
    assert panel < width / 2 if width == 1400 else panel >= width - 20
    assert console_messages(result.stderr) == []


def test_a_category_linked_without_errors_here_stays_chosen(pages: Path, tmp_path: Path) -> None:
    # report.html links every category of the Ida report; one with no error in these
    # documents is shown chosen on the index, with no document, not every document
    index = (pages / "index.html").read_text(encoding="utf-8")
    categories = re.findall(r'<option value="([^"]+)">', index)
    assert "LOCAL" in categories and "VARIADO" not in categories
    category = "VARIADO"  # a category of the Second HAREM grid
    probe = _probe(
        pages / "index.html",
        tmp_path,
        "var rows=document.querySelectorAll('tr[data-cats]');"
        "var shown=Array.prototype.filter.call(rows,function(r){return !r.hidden}).length;"
        "document.title='chosen:'+document.getElementById('categ').value+' shown:'+shown;",
    )
    result = chromium(tmp_path, "--dump-dom", probe.as_uri() + "#cat=" + category)
    assert console_messages(result.stderr) == []
    assert title_of(result.stdout) == f"chosen:{category} shown:0"
