"""Helpers shared by the import and export tests: a tiny collection and the scoring chain."""

from __future__ import annotations

import json
from pathlib import Path

from harem_pipeline.cli import main

# Two Second HAREM documents; the second has paragraphs and a character reference.
TINY_CD = """<?xml version="1.0" encoding="UTF-8"?>
<colHAREM versao="teste">
<DOC DOCID="D1">A <EM ID="1" CATEG="PESSOA" TIPO="INDIVIDUAL">Maria Silva</EM> foi a \
<EM ID="2" CATEG="LOCAL|ORGANIZACAO">Lisboa</EM> em <EM ID="3" CATEG="TEMPO">1992</EM>.
</DOC>
<DOC DOCID="D2"><P>O <EM ID="4" CATEG="ORGANIZACAO">Banco AT&amp;T</EM> abriu.</P>
<P>Nada mais.</P></DOC>
</colHAREM>
"""
D1_TEXT = "A Maria Silva foi a Lisboa em 1992.\n"
D2_TEXT = "O Banco AT&amp;T abriu.\nNada mais."


def write_tiny_cd(folder: Path) -> Path:
    path = folder / "cd.xml"
    path.write_text(TINY_CD, encoding="utf-8")
    return path


def identification(cd: Path, run: Path, folder: Path) -> dict:
    """AlinhEM → AvalIDa → Véus (total, harem) → AltinaID → Ida2ID; the report's figures."""
    folder.mkdir(parents=True, exist_ok=True)
    aligned = folder / "run.alinhado"
    assert main(["align", "--cd", str(cd), "--run", str(run), "-o", str(aligned)]) == 0
    assert main(["avalida", str(aligned)]) == 0
    assert main(["veus", f"{aligned}.avalida", "--style", "harem"]) == 0
    assert main(["altida", f"{aligned}.avalida.total"]) == 0
    assert main(["ida2id", f"{aligned}.avalida.total.altida"]) == 0
    report = json.loads(Path(f"{aligned}.avalida.total.altida.ida2id.json").read_text())
    keys = ("total_cd", "total_identificadas", "correctas", "espurios", "em_falta")
    keys += ("precisao", "abrangencia", "medida_f")
    return {key: report[key] for key in keys}
