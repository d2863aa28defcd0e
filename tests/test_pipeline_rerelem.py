"""The ReRelEM track in a campaign: ``rerelem:`` in pipeline.yaml, its tasks, the summary.

A campaign on three documents of the Second HAREM ReRelEM collection with the
collection itself and a simulated average run: each run's ``.alts`` under
each NER veil gets the relation chain, every file equal to what
``run_chain`` writes on the same ``.alts``; the summary and the HTML report
gain the ReRelEM table, where the collection against itself scores near 1
and the simulated run less.  A collection
without relations runs no ReRelEM task; ``rerelem: false`` turns it off; a
wrong ``rerelem:`` is one line naming the key.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from harem_pipeline.errors import ConfigError
from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.measures.resampling import NO_BOOTSTRAP
from harem_pipeline.pipeline.config import load_campaign
from harem_pipeline.pipeline.rerelem import RERELEM_OFF, chain_names, run_chain
from harem_pipeline.stages.rerelem.scoring import SCENARIOS
from harem_pipeline.tools.simulate import render_run
from tests.helpers.campaign import build
from tests.helpers.paths import DATA

RERELEM_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"


def _campaign(folder: Path, extra: str = "", documents: int = 3) -> Path:
    """The first documents of the ReRelEM collection, itself as a run and a simulated
    average run; the absolute scenario, no bootstrap, no charts, no browse."""
    text = gzip.decompress(RERELEM_CD.read_bytes()).decode("latin-1")
    found = re.findall(r"<DOC DOCID=.*?</DOC>\s*", text, flags=re.S)
    head = text[: text.index("<DOC DOCID=")]
    small = head + "".join(found[:documents]) + "</colHAREM>\n"
    (folder / "runs").mkdir(parents=True)
    (folder / "cd.xml").write_bytes(small.encode("latin-1"))
    (folder / "runs" / "gold.xml").write_bytes(small.encode("latin-1"))
    cd = read_collection(folder / "cd.xml")
    run = render_run(cd, "average", 1, "cd.xml")
    (folder / "runs" / "average.xml").write_bytes(run.encode(cd.encoding))
    config = folder / "pipeline.yaml"
    config.write_text(
        "collection: cd.xml\nruns: [runs/*.xml]\noutput: out\nsubsets: [total]\n"
        "scenarios: [absolute]\nbootstrap: 0\ncharts: false\nbrowse: false\n" + extra,
        encoding="utf-8",
    )
    return config


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = _campaign(tmp_path_factory.mktemp("rerelem"))
    build(config)
    return config.parent / "out"


def _alts(out: Path, run: str, veil: str) -> Path:
    return out / run / f"{run}.alinhado.avalida.total.{veil}.alts"


def test_each_run_and_veil_gets_the_chain_as_run_chain_writes_it(
    built: Path, tmp_path: Path
) -> None:
    for run in ("gold", "average"):
        for veil in ("total", "cenario5"):
            alts = _alts(built, run, veil)
            names, summaries = chain_names(alts, SCENARIOS)
            assert list(summaries) == list(SCENARIOS) and len(names) == 5 + 4 * len(SCENARIOS)
            assert all(name.is_file() for name in names)
            assert Path(str(names[-1]).removesuffix(".json") + ".manifest.json").is_file()
            copy = tmp_path / run / alts.name
            copy.parent.mkdir(exist_ok=True)
            shutil.copyfile(alts, copy)
            run_chain(copy, SCENARIOS, resampling=NO_BOOTSTRAP)  # the campaign's bootstrap: 0
            ours = chain_names(copy, SCENARIOS)[0]
            for campaign_file, fresh in zip(names, ours, strict=True):
                assert campaign_file.read_bytes() == fresh.read_bytes(), campaign_file.name


def test_the_summary_has_the_rerelem_table(built: Path) -> None:
    summary = json.loads((built / "summary.json").read_text(encoding="utf-8"))
    rows = summary["rerelem"]
    assert [(r["run"], r["veil"], r["scenario"]) for r in rows] == [
        (run, veil, scenario)
        for run in ("average", "gold")
        for veil in ("total", "cenario5")
        for scenario in SCENARIOS
    ]
    gold = {(r["veil"], r["scenario"]): r for r in rows if r["run"] == "gold"}
    average = {(r["veil"], r["scenario"]): r for r in rows if r["run"] == "average"}
    todas = gold["total", "todas"]
    assert todas["gold"] > 1000 and todas["correct"] <= todas["identified"] <= todas["gold"]
    # The collection as its own run: nearly every relation it gives is right (its ALT
    # alternatives and the aligner's choices keep it from 1); the average run far less.
    assert todas["precision"] > 0.99 and todas["recall"] > 0.75
    assert 0 < average["total", "todas"]["f"] < todas["f"] - 0.1
    assert average["total", "todas"]["simulated"] and not todas["simulated"]
    # A scenario with no relation under a veil prints NaN, as the official summary.
    assert any(r["f"] == "NaN" for r in gold.values())
    markdown = (built / "summary.md").read_text(encoding="utf-8")
    assert "## The ReRelEM track (relations)" in markdown
    assert "| gold | total | todas | " in markdown
    html = (built / "report.html").read_text(encoding="utf-8")
    assert '<section id="rerelem">' in html and "ReRelEM (relações)" in html
    contents = html.split('<nav id="indice">')[1].split("</nav>")[0]
    assert '<a href="#rerelem">ReRelEM (relações)</a>' in contents


def test_the_official_pages_are_the_tables_of_the_runs_summaries(built: Path) -> None:
    """One page per scenario and veil in ``official/``, equal to what ``harem rerelem
    report`` gives on the runs' own summaries (rows named by run, not by path)."""
    from datetime import datetime

    from harem_pipeline.pipeline import official
    from harem_pipeline.pipeline.rerelem import summary_suffix, write_relations_page
    from harem_pipeline.reports.rerelem_official import OFFICIAL_FOLDER, page_name

    assert OFFICIAL_FOLDER == official.OFFICIAL_FOLDER
    for veil in ("total", "cenario5"):
        for scenario in SCENARIOS:
            page = built / OFFICIAL_FOLDER / page_name(scenario, veil)
            runs = []
            for run in ("gold", "average"):
                summary = chain_names(_alts(built, run, veil), SCENARIOS)[1][scenario]
                resumo = summary.with_name(summary.name.removesuffix(".json"))
                assert resumo.name.endswith(summary_suffix(veil, scenario))
                runs.append((run, resumo))
            fresh = write_relations_page(
                built.parent / "page.html",
                runs,
                [summary_suffix(veil, scenario)],
                generated=datetime(2026, 1, 1),
            )
            stamp = b"<br>Pagina gerada"
            ours = [x for x in page.read_bytes().split(b"\n") if not x.startswith(stamp)]
            again = [x for x in fresh.read_bytes().split(b"\n") if not x.startswith(stamp)]
            assert ours == again
            rows = [x for x in ours if x.startswith(b"<tr><td>")]
            # a run with no system relation under the scenario has no row (as the Java)
            assert {r.split(b"</b>")[0][11:] for r in rows} <= {b"gold", b"average"}
    assert (built / OFFICIAL_FOLDER / page_name("todas", "total")).read_bytes().count(
        b"<tr><td><b>"
    ) == 2


def test_the_table_shows_intervals_and_links_the_views(tmp_path: Path) -> None:
    config = _campaign(tmp_path, documents=3)
    text = config.read_text(encoding="utf-8").replace("bootstrap: 0", "bootstrap: 200")
    config.write_text(text + "rerelem: {scenarios: [todas], veils: [total]}\n", "utf-8")
    build(config)
    out = config.parent / "out"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    rows = {r["run"]: r for r in summary["rerelem"]}
    for row in rows.values():
        for key in ("precision", "recall", "f"):
            low, high = row[f"{key}_ci95"]
            assert low <= row[key] <= high, (row["run"], key)
    average = rows["average"]
    assert average["f_ci95"][0] < average["f_ci95"][1]  # three documents: a real spread
    markdown = (out / "summary.md").read_text(encoding="utf-8")
    half = (average["f_ci95"][1] - average["f_ci95"][0]) / 2
    assert f"{average['f']:.4f} ± {half:.4f}" in markdown
    html = (out / "report.html").read_text(encoding="utf-8")
    assert f'<span class="ci">± {half:.4f}</span>' in html
    graph = average["graph"]
    assert graph.endswith(".triplas.html") and (out / "average" / graph).is_file()
    assert f'href="average/{graph}"' in html
    assert 'href="official/resultados_ReRelEM_todas_total.html"' in html
    assert (out / "official" / "resultados_ReRelEM_todas_total.html").is_file()


def test_a_collection_without_relations_runs_no_rerelem_task(tmp_path: Path) -> None:
    config = _campaign(tmp_path, documents=1)
    cd = config.parent / "cd.xml"
    stripped = re.sub(rb' (?:COREL|TIPOREL|FACS_ORIGEM|FACS_ALVO)="[^"]*"', b"", cd.read_bytes())
    cd.write_bytes(stripped)
    for run in (config.parent / "runs").iterdir():
        run.write_bytes(stripped)
    build(config)
    summary = json.loads((config.parent / "out" / "summary.json").read_text(encoding="utf-8"))
    assert "rerelem" not in summary
    assert not list((config.parent / "out").rglob("*.resumo"))


def test_rerelem_false_turns_the_track_off(tmp_path: Path) -> None:
    config = _campaign(tmp_path, "rerelem: false\n", documents=1)
    assert load_campaign(config).rerelem == RERELEM_OFF


def test_rerelem_chooses_scenarios_and_veils(tmp_path: Path) -> None:
    config = _campaign(tmp_path, "rerelem: {scenarios: [ident, todas], veils: [cenario5]}\n", 1)
    setting = load_campaign(config).rerelem
    assert (setting.scenarios, setting.veils) == (("ident", "todas"), ("cenario5",))


@pytest.mark.parametrize(
    ("setting", "found"),
    [
        ("rerelem: {scenarios: [nenhuma]}", "found 'nenhuma'"),
        ("rerelem: {veils: [cenario9]}", "found 'cenario9'"),
        ("rerelem: [todas]", "expected false or a mapping"),
    ],
)
def test_a_wrong_rerelem_setting_is_one_line(tmp_path: Path, setting: str, found: str) -> None:
    config = _campaign(tmp_path, setting + "\n", documents=1)
    with pytest.raises(ConfigError) as error:
        load_campaign(config)
    assert str(error.value).startswith(f"{config}: rerelem: ") and found in str(error.value)
    assert "\n" not in str(error.value)


def test_the_campaign_knows_every_name_the_track_writes(built: Path) -> None:
    from harem_pipeline.pipeline.config import output_names

    campaign = load_campaign(built.parent / "pipeline.yaml")
    known = {str(p) for p in output_names(campaign)}
    written = [
        p for p in built.rglob("*") if ".alts.expandido" in p.name and "manifest" not in p.name
    ]
    assert len(written) == 2 * 2 * (5 + 4 * len(SCENARIOS))
    assert all(str(p) in known for p in written)
