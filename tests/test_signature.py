"""Signatures: order, omission of unknown fields, digests."""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields, replace
from pathlib import Path

from harem_pipeline.formats.veils import veil_in_words
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.pipeline.signature import (
    Signature,
    file_signature,
    report_signature,
    short_digest,
    tool_version,
)


def test_run_signature_shape_as_in_the_spec() -> None:
    # docs/spec/pipeline.md, Reproducibility signature:
    # harem:<version>|cd:<sha12>|run:<sha12>|subset:…|scenario:abs|style:harem|alt:best,
    # with every other parameter that can move a number after the spec's keys
    params = ReportParams(
        subset="total", scenario=Scenario.ABSOLUTE, evaluation=SubsetParams(style="harem")
    )
    sig = report_signature(params, cd="aaaaaaaaaaaa", run="bbbbbbbbbbbb")
    assert sig.format() == (
        f"harem:{tool_version()}|cd:aaaaaaaaaaaa|run:bbbbbbbbbbbb"
        "|subset:total|scenario:abs|style:harem|veil:*|alt:best|boot:1000|seed:12345"
    )


def test_every_report_parameter_is_in_the_signature() -> None:
    # each field of the parameter objects, changed alone, changes the signature
    base = ReportParams(subset="total", evaluation=SubsetParams())
    changed = [
        replace(base, subset="pt"),
        replace(base, scenario=Scenario.RELATIVE),
        replace(base, alt=Alt.STRICT),
        replace(base, bootstrap=10),
        replace(base, seed=1),
        replace(base, evaluation=SubsetParams(style="muc")),
        replace(base, evaluation=SubsetParams(veil="PESSOA:LOCAL:ORGANIZACAO")),
        replace(base, evaluation=SubsetParams(system_veil="PESSOA")),
        replace(base, weights="1;1;0.5;0.25"),
        replace(base, penalties=False),
        replace(base, grid="harem2005"),
        replace(base, tempo="estendido_completo"),
        replace(base, documents="predicted"),
    ]
    signatures = {report_signature(p, cd="c", run="r").format() for p in [base, *changed]}
    assert len(signatures) == len(changed) + 1
    # every field of both objects is covered by the list above (a new field needs a key)
    report_fields = {f.name for f in fields(ReportParams)} - {"evaluation"}
    assert report_fields == {
        "subset",
        "scenario",
        "alt",
        "weights",
        "penalties",
        "grid",
        "bootstrap",
        "seed",
        "tempo",
        "documents",
    }
    # variant and genre reach the signature through the subset's name
    assert {f.name for f in fields(SubsetParams)} == {
        "style",
        "veil",
        "system_veil",
        "variant",
        "genre",
        "selective",
    }


def test_a_selective_subset_signs_the_declared_veil() -> None:
    params = ReportParams(
        subset="selectivo",
        evaluation=SubsetParams(veil="*", system_veil="PESSOA:LOCAL", selective=True),
    )
    assert "|veil:PESSOA:LOCAL|sysveil:PESSOA:LOCAL|" in report_signature(params).format()


def test_none_fields_are_left_out_and_order_is_kept() -> None:
    sig = Signature.build(b="2", a=None, c="3")
    assert sig.format() == f"harem:{tool_version()}|b:2|c:3"


def test_short_digest_is_sha256_prefix(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"HAREM")
    assert short_digest(path) == hashlib.sha256(b"HAREM").hexdigest()[:12]


def test_file_signature_pins_the_evaluated_file_under_its_own_key(tmp_path: Path) -> None:
    path = tmp_path / "r.alinhado.avalida.total.altida"
    path.write_bytes(b"x")
    digest = hashlib.sha256(b"x").hexdigest()[:12]
    params = ReportParams(subset="total", evaluation=SubsetParams(style="harem"), bootstrap=0)
    assert file_signature(path, params).format() == (
        f"harem:{tool_version()}|input:{digest}|subset:total|style:harem|veil:*|alt:best"
        "|boot:0|seed:12345"
    )


def test_reports_say_the_evaluation_veil_in_words(tmp_path: Path) -> None:
    # the campaign's veil reaches the report as words and as the JSON's veil
    from harem_pipeline.cli import main
    from tests.helpers.paths import DATA

    source = DATA / "reference" / "gabriel" / "run.alinhado.avalida.gz"
    out = tmp_path / "r.ida2id"
    assert main(["ida2id", str(source), "-o", str(out), "--veil", "PESSOA:LOCAL"]) == 0
    text = out.read_bytes().decode("iso8859-1")
    assert "Véu de avaliação: categorias PESSOA, LOCAL\n" in text
    assert json.loads((tmp_path / "r.ida2id.json").read_text("utf-8"))["veil"] == "PESSOA:LOCAL"
    assert main(["ida2id", str(source), "-o", str(out)]) == 0
    assert "Véu de avaliação: todas as categorias\n" in out.read_bytes().decode("iso8859-1")


def test_veil_in_words() -> None:
    assert veil_in_words("*") == "todas as categorias"
    assert veil_in_words("LOCAL(HUMANO{PAIS,RUA};FISICO):PESSOA") == (
        "categorias LOCAL (tipos HUMANO {PAIS, RUA}, FISICO), PESSOA"
    )
