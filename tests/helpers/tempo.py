"""A small campaign on the TEMPO collection (a few of its documents, to stay quick)."""

from __future__ import annotations

import re
from pathlib import Path

from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.tools.simulate import render_run
from tests.helpers.paths import DATA

TEMPO_CD = DATA / "lampada2" / "CDSegundoHAREM_TEMPO.xml.gz"
MODES = ("estendido_completo", "estendido_semnorm", "estendido_sonorm")


def tempo_campaign(folder: Path, extra: str = "") -> Path:
    """Four documents of the TEMPO collection, the collection itself as a run and a
    simulated average run; style muc, the absolute scenario, no bootstrap."""
    import gzip

    text = gzip.decompress(TEMPO_CD.read_bytes()).decode("latin-1")
    documents = re.findall(r"<DOC DOCID=.*?</DOC>\s*", text, flags=re.S)
    head = text[: text.index("<DOC DOCID=")]
    small = head + "".join(documents[:4]) + "</colHAREM>\n"
    (folder / "runs").mkdir(parents=True)
    (folder / "cd.xml").write_bytes(small.encode("latin-1"))
    (folder / "runs" / "gold.xml").write_bytes(small.encode("latin-1"))
    cd = read_collection(folder / "cd.xml")
    run = render_run(cd, "average", 1, "cd.xml")
    (folder / "runs" / "average.xml").write_bytes(run.encode(cd.encoding))
    config = folder / "pipeline.yaml"
    config.write_text(
        "collection: cd.xml\nruns: [runs/*.xml]\noutput: out\nsubsets: [total]\n"
        "scenarios: [absolute]\nstyle: muc\nbootstrap: 0\ncharts: false\n" + extra,
        encoding="utf-8",
    )
    return config
