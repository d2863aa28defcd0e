"""``harem measures`` through ``main(argv)``: JSON shape, text table, help, errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.pipeline.signature import tool_version

PRF_KEYS = {"precision", "recall", "f1", "ci95"}
CATEGORY_KEYS = {
    "correct",
    "label_error",
    "boundary_error",
    "label_boundary_error",
    "missing",
    "spurious",
}


def run_json(capsys, *argv: str) -> dict:
    assert main(["measures", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_view(view: dict) -> None:
    assert set(view) == {"exact", "overlap", "intersection", "semeval", "categories"}
    for name in ("exact", "overlap", "intersection"):
        assert set(view[name]) == PRF_KEYS
    assert set(view["semeval"]) == {"strict", "exact", "partial", "type"}
    for value in view["semeval"].values():
        assert set(value) == PRF_KEYS
    assert set(view["categories"]) == CATEGORY_KEYS


def test_json_shape_and_conlleval_figures(capsys, data_dir: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    out = run_json(capsys, str(sample), "--format", "conll")
    assert set(out) == {
        "labelled",
        "unlabelled",
        "per_label",
        "macro",
        "token_accuracy",
        "confusion",
        "errors",
        "per_document",
        "repairs",
        "signature",
        "documents",
    }
    # conlleval-output.txt: accuracy 84.08% (808 of the 961 tokens have equal tags)
    assert round(100 * out["token_accuracy"], 2) == 84.08
    assert out["token_accuracy"] == 808 / 961
    check_view(out["labelled"])
    check_view(out["unlabelled"])
    exact = out["labelled"]["exact"]
    # conlleval-output.txt: precision 68.83%, recall 80.83%, FB1 74.35 (371/539, 371/459)
    assert exact["precision"] == pytest.approx(371 / 539)
    assert exact["recall"] == pytest.approx(371 / 459)
    assert round(100 * exact["f1"], 2) == 74.35
    assert sorted(out["per_label"]) == ["ADJP", "ADVP", "NP", "PP", "SBAR", "VP"]
    for label in out["per_label"].values():
        assert set(label) == {"exact", "overlap", "intersection"}
    # conlleval: NP precision 64.98%, recall 78.63%
    assert round(100 * out["per_label"]["NP"]["exact"]["precision"], 2) == 64.98
    assert round(100 * out["per_label"]["NP"]["exact"]["recall"], 2) == 78.63
    categories = out["labelled"]["categories"]
    assert sum(c["system"] for c in categories.values()) == 539
    assert sum(c["gold"] for c in categories.values()) == 459
    assert categories["correct"] == {"system": 371, "gold": 371}
    assert out["repairs"] == {"gold": 0, "system": 0}
    digest = hashlib.sha256(sample.read_bytes()).hexdigest()[:12]
    assert out["signature"] == (
        f"harem:{tool_version()}|measures:spans|file:{digest}|format:conll|scheme:lenient|boot:1000|seed:12345"
    )


def iob2_violations(path: Path, column: int) -> int:
    """An independent count of IOB2 breaks: I-X not right after B-X or I-X."""
    count, previous = 0, "O"
    for raw in path.read_text().splitlines():
        fields = raw.split()
        if not fields:
            previous = "O"
            continue
        tag = fields[column]
        if tag.startswith("I-") and (previous == "O" or previous[2:] != tag[2:]):
            count += 1
        previous = tag
    return count


def test_declared_scheme_counts_repairs(capsys, data_dir: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    out = run_json(capsys, str(sample), "--format", "conll", "--scheme", "iob2")
    assert out["repairs"] == {
        "gold": iob2_violations(sample, -2),
        "system": iob2_violations(sample, -1),
    }
    assert out["repairs"]["system"] > 0  # the system column is written in IOB1
    # repairs are conlleval's reading: the scores do not change
    assert out["labelled"]["exact"]["precision"] == pytest.approx(371 / 539)
    assert out["signature"].endswith("|scheme:iob2|boot:1000|seed:12345")


def test_undefined_ratios_are_null_in_json_and_dash_in_text(capsys, tmp_path: Path) -> None:
    path = tmp_path / "empty-system.jsonl"
    path.write_text(
        json.dumps({"id": "a", "tokens": ["x", "y"], "gold": [[0, 1, "A"]], "system": []})
    )
    out = run_json(capsys, str(path), "--format", "tokens-jsonl")
    # one document: every resample is that document, so a defined measure's interval
    # is the point [0.0, 0.0] and an undefined one is null
    ci95 = {"precision": None, "recall": [0.0, 0.0], "f1": None}
    undefined = {"precision": None, "recall": 0.0, "f1": None, "ci95": ci95}
    assert out["labelled"]["exact"] == undefined
    assert out["per_label"]["A"]["intersection"] == undefined
    assert main(["measures", str(path), "--format", "tokens-jsonl"]) == 0
    text = capsys.readouterr().out
    exact_row = next(row for row in text.splitlines() if row.startswith("exact"))
    assert exact_row.split() == ["exact", "-", "0.00", "-", "-", "0.00", "-"]


def test_text_table_is_aligned_and_complete(capsys, data_dir: Path, tmp_path: Path) -> None:
    sample = data_dir / "conll2000" / "sample.txt"
    assert main(["measures", str(sample), "--format", "conll"]) == 0
    text = capsys.readouterr().out
    rows = text.splitlines()
    exact_row = next(row for row in rows if row.startswith("exact"))
    assert exact_row.split()[1:4] == ["68.83", "80.83", "74.35"]  # conlleval's line
    measure_rows = [r for r in rows if r.startswith(("exact ", "overlap ", "semeval "))]
    assert len(measure_rows) == 6
    assert len({len(r) for r in measure_rows}) == 1  # right-aligned columns end together
    for title in ("semeval partial", "label and boundary error", "spurious", "NP", "repairs"):
        assert any(row.startswith(title) for row in rows), title
    assert rows[-1].startswith("signature: harem:")
    # -o writes the same report to a file
    target = tmp_path / "report.txt"
    assert main(["measures", str(sample), "--format", "conll", "-o", str(target)]) == 0
    assert target.read_text() == text


def test_help_explains_each_measure_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["measures", "--help"])
    assert exc.value.code == 0
    help_text = capsys.readouterr().out
    for measure in ("exact", "overlap", "intersection", "semeval", "categories"):
        assert any(line.strip().startswith(measure + " ") for line in help_text.splitlines())
    for scheme in ("iob1", "iob2", "ioe1", "ioe2", "iobes", "bilou", "lenient"):
        assert scheme in help_text


@pytest.mark.parametrize(
    ("name", "content", "fmt", "message"),
    [
        (
            "bad.jsonl",
            '{"id": 1, "tokens": [\n',
            "tokens-jsonl",
            "bad.jsonl, line 1: expected a JSON object",
        ),
        (
            "outside.jsonl",
            '{"id": "d", "tokens": ["a"], "gold": [[0, 2, "A"]], "system": []}\n',
            "tokens-jsonl",
            "outside.jsonl, line 1, document d: expected a span [start, end, label] with "
            "0 <= start < end <= 1",
        ),
        (
            "empty.jsonl",
            '{"id": "d", "tokens": ["a", "b"], "gold": [], "system": [[1, 1, "A"]]}\n',
            "tokens-jsonl",
            "empty.jsonl, line 1, document d: expected a span",
        ),
        (
            "columns.conll",
            "a X B-A B-A\n\nb B-A\n",
            "conll",
            "columns.conll, line 3: expected at least 3 columns",
        ),
        (
            "prefix.conll",
            "a X B-A B-A\nb X I-A Z-A\n",
            "conll",
            "prefix.conll, line 2: expected a tag O, or B/I/E/S/L/U alone or followed by - "
            "and a type, "
            "found Z-A",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys, tmp_path: Path, name: str, content: str, fmt: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert main(["measures", str(path), "--format", fmt]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.rstrip("\n")
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("harem measures: error: ")
    assert message in err
    assert str(tmp_path) in err


def test_missing_file_and_undecodable_bytes(capsys, tmp_path: Path) -> None:
    assert main(["measures", str(tmp_path / "nope.conll"), "--format", "conll"]) == 2
    assert "expected an existing file" in capsys.readouterr().err
    path = tmp_path / "mixed.conll"
    # ASCII for its first 200 KB, then a Latin-1 byte: the file as a whole is
    # not UTF-8, so it is read as ISO-8859-1, like every HAREM file.
    path.write_bytes(b"a X O O\n\n" * 10000 + "b X B-Ç O\n".encode("iso8859-1"))
    out = run_json(capsys, str(path), "--format", "conll")
    assert list(out["per_label"]) == ["Ç"]
    # A UTF-8 BOM says UTF-8: a byte that is not UTF-8 is then an error with its line.
    bad = tmp_path / "bad.conll"
    bad.write_bytes(b"\xef\xbb\xbf" + b"a X O O\n\n" * 10 + b"b X B-\xc7 O\n")
    assert main(["measures", str(bad), "--format", "conll"]) == 2
    err = capsys.readouterr().err
    assert "bad.conll, line 21: expected text in utf-8" in err


def test_the_old_name_jsonl_still_reads_with_a_one_line_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``jsonl`` names export/import's character spans; here the file is ``tokens-jsonl``."""
    path = tmp_path / "d.jsonl"
    path.write_text(
        '{"id": "d", "tokens": ["a", "b"], "gold": [[0, 1, "A"]], "system": [[0, 1, "A"]]}\n',
        encoding="utf-8",
    )
    assert main(["measures", str(path), "--format", "tokens-jsonl", "--json"]) == 0
    current = capsys.readouterr()
    assert current.err == ""
    assert main(["measures", str(path), "--format", "jsonl", "--json"]) == 0
    old = capsys.readouterr()
    assert old.err.count("\n") == 1 and "is now --format tokens-jsonl" in old.err
    assert json.loads(old.out) == json.loads(current.out)
    assert "|format:tokens-jsonl|" in json.loads(current.out)["signature"]
