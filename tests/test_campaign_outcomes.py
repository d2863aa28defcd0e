"""What a campaign's summary and report say when not everything could be scored.

A collection without MORF runs no morphology chain, and both the summary and
the report say so once.  A run whose chain fails does not take the others
down with it: they still get their summary and report, marked incomplete
and naming the missing run; a report left by an earlier build is never
left in place as if it were current.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import luigi
import pytest

from harem_pipeline.cli import main
from tasks.pipeline import FullEvaluation, Summary
from tests.helpers.campaign import break_run, luigi_command, make_campaign
from tests.helpers.paths import DATA

SECOND = DATA / "second-harem"
NO_MORF = "has no MORF: the morphology chain was not run"


def test_a_collection_without_morf_runs_and_charts_no_morphology(tmp_path: Path) -> None:
    for name in ("SegundoHaremReRelEM_t1.xml.gz", "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"):
        shutil.copy(SECOND / name, tmp_path)
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        "collection: SegundoHaremReRelEM_t1.xml.gz\n"
        "runs: [ParticipacaoSegundoHaremReRelEM_t1.xml.gz]\n"
        "output: out\nsubsets: [total]\nbootstrap: 0\n",
        encoding="utf-8",
    )
    assert main(["--quiet", "run", "--config", str(config)]) == 0
    out = tmp_path / "out"
    assert not list(out.rglob("*.vizir")) and not list(out.rglob("*.ida2mor*"))
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert summary.count(NO_MORF) == 1
    # the campaign's table: the ReRelEM track's own table follows it (the collection has
    # relations)
    table = summary.split("## The ReRelEM track", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| Participacao")]
    # one row per scenario (the semantic chain's absolute and relative), morphology undefined
    assert [row.split(" | ")[2] for row in rows] == ["absolute", "relative"]
    # no Morf. columns at all: the run, subset, scenario, nine figures and the signature
    assert "Morf." not in summary
    assert all(len(row.replace("\\|", "").split(" | ")) == 13 for row in rows)
    # Each row is signed by its own Ida report (the figure it ranks by): the absolute and
    # the relative rows differ in classification F, so they never share a signature.
    signatures = [row.rsplit(" | ", 1)[1].strip("` |").replace("\\|", "|") for row in rows]
    ida = out / "ParticipacaoSegundoHaremReRelEM_t1"
    strict, relative = (
        json.loads(next(ida.glob(f"*.total.alts.{name}.ida.json")).read_text(encoding="utf-8"))
        for name in ("emir", "emir_relativo")
    )
    assert signatures == [strict["signature"], relative["signature"]]
    assert "|scenario:abs|" in signatures[0] and "|scenario:rel|" in signatures[1]
    assert all("|alt:strict|" in signature for signature in signatures)
    assert rows[0].split(" | ")[3] != rows[1].split(" | ")[3]
    # the official Second HAREM figure of this run (reference total_harem.veu.alts.emir.ida,
    # "Medida F" of the identification block): 0.6561…
    assert rows[0].split(" | ")[5] == "0.6561"
    # and its classification "Medida F" in the same file: 0.3838…
    assert rows[0].split(" | ")[3] == "0.3838"
    report = (out / "report.html").read_text(encoding="utf-8")
    assert report.count(NO_MORF) == 1
    assert "Morfologia: Medida F" not in report and "Morfologia (Combinada)" not in report
    assert (
        json.loads((out / "summary.json").read_text(encoding="utf-8"))["campaign"]["morphology"]
        is False
    )


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    return make_campaign(tmp_path, documents=3)


def test_a_failed_run_leaves_the_others_a_summary_marked_incomplete(campaign: Path) -> None:
    folder = campaign.parent
    assert main(["--quiet", "run", "--config", str(campaign)]) == 0
    old_report = (folder / "out" / "report.html").read_text(encoding="utf-8")
    assert "INCOMPLETE" not in old_report
    break_run(folder / "runs" / "weak.txt")
    assert main(["--quiet", "run", "--config", str(campaign)]) == 1
    summary = (folder / "out" / "summary.md").read_text(encoding="utf-8")
    assert summary.count("INCOMPLETE") == 1 and "weak" in summary.split("| Run |")[0]
    strong = [line for line in summary.splitlines() if line.startswith("| strong |")]
    assert strong and "| - |" not in strong[0].split("`")[0][:60]  # the strong run's figures
    report = (folder / "out" / "report.html").read_text(encoding="utf-8")
    assert report != old_report and "INCOMPLETE" in report
    data = json.loads((folder / "out" / "summary.json").read_text(encoding="utf-8"))
    assert data["incomplete"] == ["weak"]
    # the complete run's alignment pages are linked; the failed run's earlier ones are not
    assert data["campaign"]["browse"] == ["strong"]
    assert 'href="strong/browse/index.html"' in report and "weak/browse/" not in report
    # Neither passes as complete: once the run is mended, a build makes them whole again.
    (folder / "runs" / "weak.txt").unlink()
    shutil.copy(folder / "runs" / "strong.txt", folder / "runs" / "weak.txt")
    assert main(["--quiet", "run", "--config", str(campaign)]) == 0
    assert "INCOMPLETE" not in (folder / "out" / "report.html").read_text(encoding="utf-8")
    assert "incomplete" not in json.loads(
        (folder / "out" / "summary.json").read_text(encoding="utf-8")
    )


def test_a_run_sharing_no_docid_fails_alone(campaign: Path) -> None:
    folder = campaign.parent
    weak = folder / "runs" / "weak.txt"
    text = weak.read_text(encoding="iso-8859-1").replace("HAREM-", "OTHER-")
    weak.write_text(text, encoding="iso-8859-1")
    assert main(["--quiet", "run", "--config", str(campaign)]) == 1
    summary = (folder / "out" / "summary.md").read_text(encoding="utf-8")
    assert "INCOMPLETE" in summary and "| strong |" in summary


def test_the_luigi_command_also_leaves_an_incomplete_summary(campaign: Path) -> None:
    folder = campaign.parent
    break_run(folder / "runs" / "weak.txt")
    result = luigi_command("FullEvaluation", "--local-scheduler", "--workers", "2", cwd=folder)
    assert result.returncode == 30, result.stderr[-3000:]
    data = json.loads((folder / "out" / "summary.json").read_text(encoding="utf-8"))
    assert data["incomplete"] == ["weak"]
    strong = [r for r in data["reports"] if r["run"] == "strong"]
    assert strong and all(r["identification"] for r in strong)  # taken in as it finished
    assert "INCOMPLETE" in (folder / "out" / "report.html").read_text(encoding="utf-8")


def test_the_incomplete_summary_is_redrawn_once_per_run_that_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a failure, the summary and report are redrawn when a run's last report is
    written (whichever kind it is), not after every report: with two subsets, one
    scenario and three good runs that is at most four drawings (the failure's, then one
    per run), where one per report would be up to thirteen; and every report of every
    good run is in the end."""
    config = make_campaign(tmp_path, documents=3)
    text = config.read_text(encoding="utf-8").replace("[total]", "[total, pt]")
    config.write_text(text, encoding="utf-8")
    runs = tmp_path / "runs"
    for name in ("third", "fourth"):
        shutil.copy(runs / "strong.txt", runs / f"{name}.txt")
    break_run(runs / "weak.txt")
    drawn: list[str] = []
    produce = Summary.produce_incomplete

    def counted(summary: Summary) -> None:
        drawn.append("summary")
        produce(summary)

    monkeypatch.setattr(Summary, "produce_incomplete", counted)
    luigi.task_register.Register.clear_instance_cache()
    result = luigi.build(
        [FullEvaluation(config=str(config))],
        local_scheduler=True,
        workers=1,
        detailed_summary=True,
        log_level="CRITICAL",
    )
    assert not result.status.name.startswith("SUCCESS")
    assert 1 <= len(drawn) <= 4, drawn
    data = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert data["incomplete"] == ["weak"]
    good = [r for r in data["reports"] if r["run"] != "weak"]
    assert {(r["run"], r["subset"]) for r in good} == {
        (run, subset) for run in ("fourth", "strong", "third") for subset in ("total", "pt")
    }
    kinds = ("identification", "morphology", "classification", "relaxed")
    assert all(r[kind] for r in good for kind in kinds)


def test_a_run_failing_under_one_veil_of_the_grid_is_missing_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scenario grid: a run whose chain fails under one veil (its other reports whole)
    is named incomplete, and the other run keeps its rows under every veil (the summary
    of such a campaign used to fail on the failed veil's missing report)."""
    from harem_pipeline.errors import InputError
    from harem_pipeline.pipeline import chain

    for name in ("CDexemplo.xml", "ficheiro.xml"):
        shutil.copy(DATA / "lampada2" / "exemplo1" / name, tmp_path)
    shutil.copy(tmp_path / "ficheiro.xml", tmp_path / "broken.xml")
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        "collection: CDexemplo.xml\nruns: [ficheiro.xml, broken.xml]\noutput: out\n"
        "subsets: [total]\nveils: [total, pessoa]\nworkers: 1\nbootstrap: 0\n",
        encoding="utf-8",
    )
    emir = chain.run_emir

    def failing(path: Path, *args: object, **kwargs: object) -> object:
        if Path(path).name.startswith("broken.") and ".pessoa." in Path(path).name:
            raise InputError(str(path), "an Emir input", "a failure made by the test")
        return emir(path, *args, **kwargs)

    monkeypatch.setattr(chain, "run_emir", failing)
    assert main(["--quiet", "run", "--config", str(config)]) == 1
    data = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert data["incomplete"] == ["broken"]
    assert {(row["run"], row["veil"]) for row in data["veil_rows"]} == {
        ("ficheiro", "total"),
        ("ficheiro", "pessoa"),
    }
