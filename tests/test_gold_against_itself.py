"""Every shipped collection scored against itself, in both collection formats.

The first check anyone runs.  Two readings of "itself":

* the collection's one-reading run (``harem simulate --profile perfect``:
  each ALT block resolved to one alternative, OMITIDO tags dropped) scores
  1 on every Ida2ID figure;
* the collection file itself as the run goes through the whole chain (it
  used to stop in Véus: an ALT alternative without entities gave a spurious
  record listing two overlapping run entities, with one ``Espurio``).  It
  finds every entity (no missing, no spurious, as many correct as the
  collection has), but it does not score 1: the aligner takes every
  alternative of a run's ALT block as the run's entities (the official
  aligner's rule, which the worked example ``exemplo0`` shows), so inside
  ALT blocks the run has more entities than any one alternative and they
  overlap, and those count as partially correct.

A collection is cut to its documents with ALT blocks (where the record
shape lives) and its first two, so that every collection stays fast; the
First HAREM collection runs whole once, through ``harem run``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.alinhado import Record, iter_lines
from harem_pipeline.formats.harem_xml import format_collection, read_collection
from harem_pipeline.model import Collection
from harem_pipeline.pipeline.align import run_align
from harem_pipeline.pipeline.ida2id import run_ida2id
from harem_pipeline.pipeline.identification import run_altida, run_avalida, run_veus
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.pipeline.semantic import run_alts, run_emir
from harem_pipeline.tools.simulate import render_run
from tests.helpers.paths import DATA
from tests.helpers.shipped import shipped_collection

COLLECTIONS = (
    "first-harem/ColeccaoDouradaHAREM.txt",  # First HAREM (2005) format
    "lampada2/CDPrimeiroHAREMprimeiroevento.xml.gz",  # the same collection, Second HAREM XML
    "lampada2/CDPrimeiroHAREMMiniHAREM.xml.gz",
    "second-harem/SegundoHaremReRelEM_t1.xml.gz",
    "lampada2/exemplo0/cd.xml",
    "lampada2/exemplo1/CDexemplo.xml",
)


def _sample(cd: Collection) -> Collection:
    """The documents with ALT blocks and the first two (a small collection: all of it)."""
    if len(cd.documents) <= 10:
        return cd
    chosen = [d for i, d in enumerate(cd.documents) if i < 2 or d.alt_blocks]
    return dataclasses.replace(cd, documents=tuple(chosen))


def _write_sample(name: str, folder: Path) -> Path:
    cd = shipped_collection(DATA / name)
    path = folder / ("cd.txt" if name.endswith(".txt") else "cd.xml")
    path.write_bytes(format_collection(_sample(cd)).encode(cd.encoding))
    return path


def _identification(cd: Path, run: Path, folder: Path) -> tuple[Path, dict]:
    """AlinhEM → AvalIDa → Véus (total, harem) → AltinaID → Ida2ID; the .avalida and figures."""
    aligned, _ = run_align(cd, run, folder / "r.alinhado")
    evaluated = run_avalida(aligned, folder / "r.alinhado.avalida")
    total = run_veus(evaluated, SubsetParams(), folder / "r.total")
    for style in ("muc", "relaxado"):  # every style reads the records
        run_veus(evaluated, SubsetParams(style=style), folder / f"r.{style}")
    report = run_ida2id(
        run_altida(total, folder / "r.altida"), ReportParams(evaluation=None, bootstrap=0), "test"
    )
    run_emir(run_alts(total, folder / "r.alts"), output=folder / "r.emir")
    return evaluated, json.loads(report.json_path.read_text("utf-8"))


@pytest.mark.parametrize("name", COLLECTIONS, ids=lambda n: Path(n).name)
def test_the_perfect_run_of_each_collection_scores_one(name: str, tmp_path: Path) -> None:
    cd_path = _write_sample(name, tmp_path)
    cd = read_collection(cd_path)
    run = tmp_path / f"perfect{cd_path.suffix}"
    run.write_bytes(render_run(cd, "perfect", 1, cd_path.name).encode(cd.encoding))
    _, figures = _identification(cd_path, run, tmp_path)
    assert (figures["precisao"], figures["abrangencia"], figures["medida_f"]) == (1.0, 1.0, 1.0)
    assert figures["correctas"] == figures["total_cd"] > 0


@pytest.mark.parametrize("name", COLLECTIONS, ids=lambda n: Path(n).name)
def test_each_collection_against_itself_goes_through_the_chain(name: str, tmp_path: Path) -> None:
    cd_path = _write_sample(name, tmp_path)
    evaluated, figures = _identification(cd_path, cd_path, tmp_path)
    # every entity found (an entity of a run's ALT block found in two alternatives of the
    # collection's block counts twice), nothing spurious, nothing missing
    assert figures["correctas"] >= figures["total_cd"] > 0
    assert (figures["em_falta"], figures["espurios"]) == (0, 0)
    # a spurious record is one spurious entity, whose text it bears, and one verdict
    _, lines = iter_lines(evaluated)
    spurious = [r for r in lines if isinstance(r, Record) and r.gold.is_spurious]
    for record in spurious:
        assert record.system is not None and len(record.system) == 1
        assert record.system[0].text.strip() == record.gold.text
        assert [item.kind for item in record.evaluation or ()] == ["Espurio"]
    if not any(d.alt_blocks for d in read_collection(cd_path).documents):
        assert (figures["precisao"], figures["abrangencia"]) == (1.0, 1.0)
    else:  # the run's own ALT blocks: every alternative's entities are the run's
        assert figures["ocorrencias_parciais"] > 0


def test_the_record_that_stopped_the_chain(tmp_path: Path) -> None:
    # HAREM-56H-02765: <ALT>Agrupamentos de Escuteiros|<ORGANIZACAO|PESSOA ...>Agrupamentos de
    # Escuteiros</...>|Agrupamentos de <ORGANIZACAO ...>Escuteiros</...></ALT>; its first
    # alternative has no entity, and the run (the collection) has both entities there.
    cd = shipped_collection(DATA / "first-harem" / "ColeccaoDouradaHAREM.txt")
    doc = next(d for d in cd.documents if d.docid == "HAREM-56H-02765")
    path = tmp_path / "cd.txt"
    path.write_bytes(format_collection(dataclasses.replace(cd, documents=(doc,))).encode("latin-1"))
    evaluated, _ = _identification(path, path, tmp_path)
    lines = evaluated.read_bytes().decode("latin-1").splitlines()
    first = lines.index("<ALT1>")
    assert lines[first + 1 : first + 4] == [
        '<ESPURIO>Agrupamentos de Escuteiros</ESPURIO> ---> [<ORGANIZACAO|PESSOA TIPO="SUB|'
        'GRUPOMEMBRO" MORF="M,P">Agrupamentos de Escuteiros</ORGANIZACAO|PESSOA>]:[Espurio]',
        '<ESPURIO>Escuteiros</ESPURIO> ---> [<ORGANIZACAO TIPO="INSTITUICAO" MORF="M,P">'
        "Escuteiros</ORGANIZACAO>]:[Espurio]",
        "</ALT1>",
    ]


def test_a_campaign_whose_run_is_the_collection_is_complete(tmp_path: Path) -> None:
    """The whole First HAREM collection through ``harem run`` (all chains, morphology too)."""
    source = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"
    (tmp_path / "runs").mkdir()
    (tmp_path / "cd.txt").write_bytes(source.read_bytes())
    (tmp_path / "runs" / "gold.txt").write_bytes(source.read_bytes())
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        "collection: cd.txt\nruns: [runs/gold.txt]\noutput: out\nsubsets: [total]\n"
        "scenarios: [absolute]\nbootstrap: 0\ncharts: false\n",
        encoding="utf-8",
    )
    assert main(["--quiet", "run", "--config", str(config)]) == 0
    summary = (tmp_path / "out" / "summary.md").read_text("utf-8")
    assert "INCOMPLETE" not in summary
    (found,) = (tmp_path / "out" / "gold").glob("gold*.total*.ida2id.json")
    report = json.loads(found.read_text("utf-8"))
    assert report["correctas"] == report["total_cd"] == 5086
    assert (report["em_falta"], report["espurios"]) == (0, 0)
