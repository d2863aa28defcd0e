"""A campaign folder is the campaign's own: it may be copied or moved, and no link in it
leads a write outside.

Manifests name files by their place in the campaign (``Places``), so a
campaign copied with ``cp -a`` (links as links, times kept) or moved, or
its output folder moved with ``output:`` changed to match, reruns nothing.
A symbolic link planted in the output folder is replaced by the real file
when a stage writes there; the file it led to is never touched.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.pipeline.manifest import CAMPAIGN_MANIFEST, Places
from tests.helpers.campaign import build, make_campaign, outputs


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    config = make_campaign(tmp_path_factory.mktemp("campaign"), documents=3)
    assert len(build(config)) == 30  # 2 runs × 14 stages (the pages too), summary, report
    yield config


def manifests(folder: Path) -> dict[str, int]:
    """Every manifest of a campaign and its mtime: a stage that runs rewrites its own."""
    return {
        str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*.manifest.json")
    }


def cp_a(built: Path, folder: Path) -> Path:
    """``cp -a``: links copied as links, file times kept."""
    shutil.copytree(built.parent, folder, symlinks=True)
    return folder / built.name


def test_no_manifest_holds_an_absolute_path(built: Path) -> None:
    texts = [p.read_text("utf-8") for p in built.parent.rglob("*.manifest.json")]
    assert len(texts) == 30 + 1
    assert not any(str(built.parent) in text for text in texts)
    align = json.loads((built.parent / "out/strong/strong.alinhado.manifest.json").read_text())
    assert sorted(align["inputs"]) == ["cd.txt", "runs/strong.txt"]
    assert sorted(align["outputs"]) == [
        "$output/strong/strong.aligner.stderr",
        "$output/strong/strong.alinhado",
    ]


@pytest.mark.parametrize("how", ["copied", "moved"])
@pytest.mark.parametrize("record", ["with", "without"])
def test_a_copied_or_moved_campaign_reruns_nothing(
    built: Path, tmp_path: Path, how: str, record: str
) -> None:
    config = cp_a(built, tmp_path / "original")
    if how == "moved":
        config = Path(shutil.move(config.parent, tmp_path / "else" / "where")) / config.name
    else:
        config = cp_a(config, tmp_path / "else" / "where" / "deeper")
    if record == "without":  # every stage checked by its own manifest
        (config.parent / "out" / CAMPAIGN_MANIFEST).unlink()
    before = manifests(config.parent)
    assert build(config) == []
    after = manifests(config.parent)
    if record == "without":
        del after[f"out/{CAMPAIGN_MANIFEST}"]  # written anew once every stage is complete
    assert after == before
    assert outputs(config.parent) == outputs(built.parent)


def test_harem_run_on_a_copy_runs_no_task(built: Path, tmp_path: Path) -> None:
    config = cp_a(built, tmp_path / "copy")
    before = manifests(config.parent)
    assert main(["--quiet", "run", "--config", str(config)]) == 0
    assert manifests(config.parent) == before


def test_a_moved_output_folder_reruns_nothing(built: Path, tmp_path: Path) -> None:
    config = cp_a(built, tmp_path / "c")
    (config.parent / "results").mkdir()
    (config.parent / "out").rename(config.parent / "results" / "out2")
    text = config.read_text(encoding="utf-8").replace("output: out\n", "output: results/out2\n")
    config.write_text(text, encoding="utf-8")
    before = manifests(config.parent)
    assert build(config) == []
    assert manifests(config.parent) == before
    (config.parent / "results" / "out2" / CAMPAIGN_MANIFEST).unlink()
    assert build(config) == []
    assert outputs(config.parent / "results" / "out2") == outputs(built.parent / "out")


def test_a_copy_beside_a_shared_collection_reruns_nothing(built: Path, tmp_path: Path) -> None:
    """A collection outside the campaign folder stays where it is when the campaign moves."""
    config = cp_a(built, tmp_path / "c")
    (tmp_path / "shared").mkdir()
    (config.parent / "cd.txt").rename(tmp_path / "shared" / "cd.txt")
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("collection: cd.txt", f"collection: {tmp_path}/shared/cd.txt"))
    assert {family for family, _ in build(config)} >= {"Align", "Summary"}  # a new path
    config = cp_a(config, tmp_path / "else" / "where" / "c2")
    before = manifests(config.parent)
    assert build(config) == []
    assert manifests(config.parent) == before


def test_a_copy_whose_run_changed_reruns_that_run(built: Path, tmp_path: Path) -> None:
    config = cp_a(built, tmp_path / "c")
    run = config.parent / "runs" / "weak.txt"
    run.write_bytes(run.read_bytes().replace(b'MORF="M,S"', b'MORF="F,S"', 1))
    ran = build(config)
    assert {name for _, name in ran} == {"weak", None}
    assert ("Align", "weak") in ran


def test_places_name_files_both_ways(tmp_path: Path) -> None:
    places = Places(tmp_path / "campaign", tmp_path / "campaign" / "out")
    for path, key in [
        (tmp_path / "campaign" / "cd.txt", "cd.txt"),
        (tmp_path / "campaign" / "runs" / "a.txt", "runs/a.txt"),
        (tmp_path / "shared" / "cd.txt", str(tmp_path / "shared" / "cd.txt")),
        (tmp_path / "campaign" / "out" / "a" / "a.alinhado", "$output/a/a.alinhado"),
        (tmp_path / "campaign" / "out", "$output"),
        (tmp_path / "campaign" / "outside.txt", "outside.txt"),
        (tmp_path / "campaign" / "out.txt", "out.txt"),
        (tmp_path / "campaign" / "$output" / "a.txt", "./$output/a.txt"),  # not the output
        (tmp_path / "scratch" / "out" / "a", str(tmp_path / "scratch" / "out" / "a")),
    ]:
        assert places.key(path) == key
        assert places.path(key) == path


# ---------------------------------------------------------------------------
# Links planted in the output folder


def test_a_link_planted_in_the_output_folder_writes_nothing_outside(
    built: Path, tmp_path: Path
) -> None:
    config = cp_a(built, tmp_path / "c")
    folder = config.parent
    expected = outputs(folder / "out")
    victim, victim_dir = folder / "victim.txt", tmp_path / "elsewhere"
    victim.write_text("precious\n", encoding="utf-8")
    victim_dir.mkdir()
    alinhado = folder / "out" / "strong" / "strong.alinhado"
    alinhado.unlink()
    alinhado.symlink_to("../../victim.txt")  # ln -s ../../victim.txt out/strong/strong.alinhado
    manifest = folder / "out" / "strong" / "strong.alinhado.avalida.manifest.json"
    manifest.unlink()
    manifest.symlink_to(victim)
    shutil.rmtree(folder / "out" / "weak")
    (folder / "out" / "weak").symlink_to(victim_dir)  # a whole run folder, elsewhere
    summary = folder / "out" / "summary.md"
    summary.unlink()
    summary.symlink_to(victim)

    assert main(["--quiet", "run", "--config", str(config)]) == 0

    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert list(victim_dir.iterdir()) == []
    links = [p for p in (folder / "out").rglob("*") if p.is_symlink()]
    assert links == []
    assert outputs(folder / "out") == expected
    before = manifests(folder)
    assert build(config) == []
    assert manifests(folder) == before


def test_a_link_inside_the_output_folder_is_replaced_too(built: Path, tmp_path: Path) -> None:
    config = cp_a(built, tmp_path / "c")
    out = config.parent / "out"
    other = out / "weak" / "weak.alinhado"
    kept = other.read_bytes()
    alinhado = out / "strong" / "strong.alinhado"
    alinhado.unlink()
    alinhado.symlink_to("../weak/weak.alinhado")  # another run's file
    assert ("Align", "strong") in build(config)
    assert other.read_bytes() == kept
    assert not alinhado.is_symlink()
    assert alinhado.read_bytes() == (built.parent / "out/strong/strong.alinhado").read_bytes()


def test_an_explicit_output_still_writes_through_a_link(tmp_path: Path, data_dir: Path) -> None:
    evaluated = data_dir / "reference" / "exemplo1" / "total_harem.alinhado.avalida.gz"
    target = tmp_path / "real.ida2id"
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.ida2id"
    link.symlink_to(target)
    assert main(["ida2id", str(evaluated), "--bootstrap", "0", "-o", str(link)]) == 0
    assert link.is_symlink()
    assert target.read_text(encoding="iso-8859-1").startswith("harem:") or "Medida" in (
        target.read_text(encoding="iso-8859-1")
    )


def test_the_grid_is_named_by_its_place_in_emir_parameters(tmp_path: Path) -> None:
    from harem_pipeline.formats.veils import DEFAULT_GRID_PATH
    from tasks.base import reread_campaign
    from tasks.pipeline import Emir

    config = make_campaign(tmp_path, documents=2, extra="grid: grids/mine.conf\n")
    (tmp_path / "grids").mkdir()
    (tmp_path / "grids" / "mine.conf").write_bytes(DEFAULT_GRID_PATH.read_bytes())
    reread_campaign(str(config))
    emir = Emir(config=str(config), run_name="strong", subset="total")
    assert emir.stage_params()["emir"]["grid_path"] == "grids/mine.conf"
    assert emir.params().grid_path == str(tmp_path / "grids" / "mine.conf")
