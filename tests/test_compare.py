"""``harem compare``: paired bootstrap of two reports over their shared documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.model import Scenario
from harem_pipeline.reports.ida2mor import ida2mor_json_object
from harem_pipeline.stages.ida2mor import FieldCounts, MorphologyCounts, MorphologyTotals
from harem_pipeline.stages.tally import DocumentCounts


def write_jsonl(path: Path, documents: int, right: int) -> Path:
    """``documents`` documents of 4 gold spans; the system labels ``right`` of them right."""
    lines = []
    for i in range(documents):
        gold = [[2 * k, 2 * k + 1, "PER"] for k in range(4)]
        system = [[s, e, "PER" if k < right else "ORG"] for k, (s, e, _) in enumerate(gold)]
        lines.append(json.dumps({"id": f"d{i}", "tokens": ["x"] * 8, "gold": gold,
                                 "system": system}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def measures_report(tmp_path: Path, name: str, documents: int, right: int) -> Path:
    source = write_jsonl(tmp_path / f"{name}.jsonl", documents, right)
    out = tmp_path / f"{name}.json"
    argv = ["measures", str(source), "--format", "tokens-jsonl", "--json", "-o", str(out)]
    assert main(argv) == 0
    return out


def compare_json(capsys, *argv: str) -> dict:
    assert main(["compare", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_clear_winner_has_p_zero(capsys, tmp_path: Path) -> None:
    # A labels 1 of 4 spans right in each of 30 documents, B 3 of 4: exact P = R = F
    # = 30/120 and 90/120, in every resample B is ahead, so p = 0
    a = measures_report(tmp_path, "a", 30, 1)
    b = measures_report(tmp_path, "b", 30, 3)
    result = compare_json(capsys, str(a), str(b), "--bootstrap", "200")
    assert (result["kind"], result["shared_documents"]) == ("measures", 30)
    exact = result["measures"]["labelled.exact.f1"]
    assert exact == {"a": 0.25, "b": 0.75, "difference": 0.5, "p_value": 0.0}
    # unlabelled, both systems find every span: no difference, p = 1
    assert result["measures"]["unlabelled.exact.f1"]["difference"] == 0.0
    assert result["measures"]["unlabelled.exact.f1"]["p_value"] == 1.0
    # A is not better than B: p = 1
    reverse = compare_json(capsys, str(b), str(a), "--bootstrap", "200")
    assert reverse["measures"]["labelled.exact.f1"]["p_value"] == 1.0
    # the text table shows A, B, B-A and p for every measure
    assert main(["compare", str(a), str(b), "--bootstrap", "200"]) == 0
    text = capsys.readouterr().out
    assert "30 shared documents (only in A: 0, only in B: 0)" in text
    assert any(
        line.split() == ["labelled.exact.f1", "0.2500", "0.7500", "+0.5000", "0.000"]
        for line in text.splitlines()
    )


def test_close_systems_get_a_middle_p_value(capsys, tmp_path: Path) -> None:
    # B is better on one document of 40 only: its lead is fragile, p is far from 0
    a = measures_report(tmp_path, "a", 40, 2)
    b_source = write_jsonl(tmp_path / "b.jsonl", 40, 2)
    rows = b_source.read_text().splitlines()
    rows[0] = write_jsonl(tmp_path / "one.jsonl", 1, 3).read_text().strip()
    b_source.write_text("\n".join(rows) + "\n")
    b = tmp_path / "b.json"
    assert (
        main(["measures", str(b_source), "--format", "tokens-jsonl", "--json", "-o", str(b)]) == 0
    )
    result = compare_json(capsys, str(a), str(b), "--bootstrap", "500")
    f1 = result["measures"]["labelled.exact.f1"]
    assert f1["difference"] == pytest.approx(81 / 160 - 80 / 160)
    # B ≤ A exactly when document d0 is not drawn: (39/40)^40 ≈ 0.363 of resamples
    assert 0.28 < f1["p_value"] < 0.45


def test_identical_ida2id_reports(capsys, data_dir: Path, tmp_path: Path) -> None:
    # exemplo1's total_muc and total_harem alignments identify the same entities
    reports = []
    for name in ("total_muc", "total_harem"):
        source = data_dir / "reference" / "exemplo1" / f"{name}.alinhado.avalida.gz"
        out = tmp_path / f"{name}.ida2id"
        assert main(["ida2id", str(source), "-o", str(out)]) == 0
        reports.append(str(out) + ".json")
    result = compare_json(capsys, *reports)
    assert (result["kind"], result["shared_documents"]) == ("ida2id", 6)
    assert list(result["measures"]) == [
        "precisao", "abrangencia", "medida_f", "sobre_geracao", "sub_geracao", "erro_combinado"
    ]  # fmt: skip
    figures = json.loads(Path(reports[0]).read_text("utf-8"))
    for key, value in result["measures"].items():
        assert value["a"] == value["b"] == pytest.approx(figures[key], rel=1e-12)
        assert (value["difference"], value["p_value"]) == (0.0, 1.0)


def ida2mor_report(path: Path, espurio: int) -> Path:
    """Twenty documents; each: 3 correct, 1 wrong, ``espurio`` spurious in every field."""

    def field() -> FieldCounts:
        return FieldCounts(correct=3, incorrect=1, spurious=espurio, total_cd=4,
                           total_system=4 + espurio)  # fmt: skip

    documents = [
        DocumentCounts(f"HAREM-{i}", MorphologyTotals(field(), field(), field())) for i in range(20)
    ]
    counts = MorphologyCounts.from_documents(documents)
    path.write_text(
        format_report_json(ida2mor_json_object(counts, Scenario.ABSOLUTE, "S")), encoding="utf-8"
    )
    return path


def test_ida2mor_every_field_and_error_rates(capsys, tmp_path: Path) -> None:
    a = ida2mor_report(tmp_path / "a.ida2mor.json", espurio=2)
    b = ida2mor_report(tmp_path / "b.ida2mor.json", espurio=0)
    result = compare_json(capsys, str(a), str(b), "--bootstrap", "100")
    assert result["kind"] == "ida2mor"
    assert len(result["measures"]) == 3 * 6
    for field in ("genero", "numero", "combinada"):
        precision = result["measures"][f"{field}.precisao"]
        # 60/120 against 60/80: B wins every resample
        assert (precision["a"], precision["b"], precision["p_value"]) == (0.5, 0.75, 0.0)
        # Sobre-geração 40/120 against 0/80: lower is better, B wins: p = 0
        over = result["measures"][f"{field}.sobre_geracao"]
        assert over["difference"] == pytest.approx(-1 / 3) and over["p_value"] == 0.0
        # the same recall (60/80): not better, p = 1
        assert result["measures"][f"{field}.abrangencia"]["p_value"] == 1.0


def test_bootstrap_zero_gives_no_p_values(capsys, tmp_path: Path) -> None:
    a = measures_report(tmp_path, "a", 5, 1)
    result = compare_json(capsys, str(a), str(a), "--bootstrap", "0")
    assert result["measures"]["labelled.exact.f1"] == {
        "a": 0.25, "b": 0.25, "difference": 0.0, "p_value": None
    }  # fmt: skip


def test_seed_changes_only_the_draws(capsys, tmp_path: Path) -> None:
    a = measures_report(tmp_path, "a", 40, 2)
    b_rows = write_jsonl(tmp_path / "b.jsonl", 40, 2).read_text().splitlines()
    b_rows[0] = write_jsonl(tmp_path / "one.jsonl", 1, 3).read_text().strip()
    (tmp_path / "b.jsonl").write_text("\n".join(b_rows) + "\n")
    b = tmp_path / "b.json"
    argv = [
        "measures",
        str(tmp_path / "b.jsonl"),
        "--format",
        "tokens-jsonl",
        "--json",
        "-o",
        str(b),
    ]
    assert main(argv) == 0
    one = compare_json(capsys, str(a), str(b), "--seed", "1", "--bootstrap", "300")
    same = compare_json(capsys, str(a), str(b), "--seed", "1", "--bootstrap", "300")
    other = compare_json(capsys, str(a), str(b), "--seed", "2", "--bootstrap", "300")
    key = "labelled.exact.f1"
    assert one == same
    assert one["measures"][key]["p_value"] != other["measures"][key]["p_value"]
    assert one["measures"][key]["difference"] == other["measures"][key]["difference"]


def test_different_kinds_is_a_one_line_error(capsys, data_dir: Path, tmp_path: Path) -> None:
    a = measures_report(tmp_path, "a", 3, 1)
    source = data_dir / "reference" / "exemplo1" / "total_harem.alinhado.avalida.gz"
    assert main(["ida2id", str(source), "-o", str(tmp_path / "r.ida2id")]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(tmp_path / "r.ida2id.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err == (
        f"harem compare: error: {tmp_path / 'r.ida2id.json'}: expected a report of the same "
        f"kind as {a} (measures), found an ida2id report\n"
    )


def test_no_shared_documents_is_a_one_line_error(capsys, data_dir: Path, tmp_path: Path) -> None:
    outputs = []
    for folder, name in (("exemplo1", "total_harem"), ("gabriel", "run")):
        source = data_dir / "reference" / folder / f"{name}.alinhado.avalida.gz"
        out = tmp_path / f"{name}.ida2id"
        assert main(["ida2id", str(source), "-o", str(out), "--bootstrap", "0"]) == 0
        outputs.append(f"{out}.json")
    capsys.readouterr()
    assert main(["compare", *outputs]) == 2
    assert capsys.readouterr().err == (
        f"harem compare: error: {outputs[1]}: expected documents in common with "
        f"{outputs[0]}, found none\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", ", line 1: expected a report JSON, found invalid JSON"),
        ('{"x": 1}', ": expected the JSON of harem ida2id, ida2mor, ida or measures"),
        ('{"total_cd": 1, "precisao": 1.0}', ": expected per-document counts"),
    ],
)
def test_bad_reports_are_one_line_errors(capsys, tmp_path: Path, content, message) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    assert main(["compare", str(bad), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"harem compare: error: {bad}{message}")
    assert err.count("\n") == 1
    assert main(["compare", str(tmp_path / "missing.json"), str(bad)]) == 2
    assert "expected an existing file, found no such file" in capsys.readouterr().err


def test_ida_reports_compare_on_classification_and_identification(capsys, tmp_path: Path) -> None:
    """The figure HAREM ranks by (the classification F of ``.emir.ida.json``) gets its
    paired test: the strong simulated run against the weak one, and a run against
    itself (B - A = 0, p = 1), each A and B the reports' own figures."""
    from tests.helpers.campaign import build, make_campaign

    config = make_campaign(tmp_path, documents=6)
    build(config)
    ida = "{0}.alinhado.avalida.total.alts.emir.ida.json"
    weak, strong = (tmp_path / "out" / run / ida.format(run) for run in ("weak", "strong"))
    argv = ["compare", str(weak), str(strong), "--json", "--bootstrap", "200"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kind"] == "ida" and result["shared_documents"] == 6
    measures = result["measures"]
    for path, side in ((weak, "a"), (strong, "b")):
        report = json.loads(path.read_text("utf-8"))
        assert measures["classificacao_medida_f"][side] == pytest.approx(
            report["classificacao"]["medida_f"]
        )
        assert measures["medida_f"][side] == pytest.approx(report["identificacao"]["medida_f"])
    assert measures["classificacao_medida_f"]["difference"] > 0
    assert measures["classificacao_medida_f"]["p_value"] < 0.05
    assert main(["compare", str(weak), str(weak), "--json", "--bootstrap", "50"]) == 0
    same = json.loads(capsys.readouterr().out)["measures"]["classificacao_medida_f"]
    assert same["difference"] == 0 and same["p_value"] == 1.0
