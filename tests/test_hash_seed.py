"""Outputs are byte-identical whatever ``PYTHONHASHSEED``.

Python randomises the iteration order of sets and frozensets of strings per
process; a float sum taken in that order differs in its last digit from one
process to the next.  Each command runs in two subprocesses with different
hash seeds, and every byte they write must agree.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

from harem_pipeline.formats.harem_xml import format_collection
from tests.helpers.campaign import make_campaign, outputs
from tests.helpers.paths import DATA, ROOT
from tests.helpers.shipped import shipped_collection

SEEDS = ("1", "2")


def harem(seed: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "HAREM_QUIET": "1"}
    return subprocess.run(
        [sys.executable, "-m", "harem_pipeline", "--quiet", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


# The document of the First HAREM whose per-document intersection count
# (per_label.OBRA.intersection_gold) depended on the hash seed against the
# shipped strong simulated run, and two ordinary ones beside it.
DOCIDS = ("HAREM-871-07800", "HAREM-182-08895", "HAREM-361-02413")


def write_subset(source: Path, target: Path, docids: tuple[str, ...]) -> None:
    """The documents ``docids`` of the collection or run ``source``, in its format."""
    full = shipped_collection(source)
    chosen = tuple(doc for doc in full.documents if doc.docid in docids)
    assert len(chosen) == len(docids)
    small = dataclasses.replace(full, documents=chosen)
    target.write_bytes(format_collection(small).encode(full.encoding))


def test_measures_json_is_the_same_under_two_hash_seeds(tmp_path: Path) -> None:
    # The case of the report: per_label.OBRA.intersection_gold was 5.666666666666666
    # under one seed and 5.666666666666667 under another, from one document's count
    # (DOCIDS holds it).
    cd, run = tmp_path / "cd.txt", tmp_path / "run.txt"
    write_subset(DATA / "first-harem" / "ColeccaoDouradaHAREM.txt", cd, DOCIDS)
    write_subset(DATA / "campaign" / "sim-strong.txt.gz", run, DOCIDS)
    written = {}
    for seed in SEEDS:
        out = tmp_path / f"measures-{seed}.json"
        args = ["measures", "--cd", str(cd), "--run", str(run), "--json", "--bootstrap", "0"]
        done = harem(seed, *args, "-o", str(out))
        assert done.returncode == 0, done.stderr
        written[seed] = out.read_bytes()
    assert written["1"] == written["2"]


def test_campaign_outputs_are_the_same_under_two_hash_seeds(tmp_path: Path) -> None:
    source = tmp_path / "source"
    make_campaign(source, documents=3, charts=True)  # the charts too
    write_subset(DATA / "first-harem" / "ColeccaoDouradaHAREM.txt", source / "cd.txt", DOCIDS)
    write_subset(DATA / "campaign" / "sim-strong.txt.gz", source / "runs" / "strong.txt", DOCIDS)
    (source / "runs" / "weak.txt").unlink()
    built = {}
    for seed in SEEDS:
        # The same absolute folder for both builds, so only the hash seed differs.
        folder = tmp_path / "campaign"
        shutil.copytree(source, folder)
        done = harem(seed, "run", "--config", str(folder / "pipeline.yaml"), "--workers", "1")
        assert done.returncode == 0, done.stdout + done.stderr
        built[seed] = outputs(folder / "out")
        shutil.rmtree(folder)
    assert built["1"].keys() == built["2"].keys()
    differing = [name for name in built["1"] if built["1"][name] != built["2"][name]]
    assert differing == []
