"""Span measures judged a chunk (CoNLL) or a batch (JSON lines) at a time.

What is checked: each chunk of a CoNLL text knows its first line and the
``-DOCSTART-`` line before it (against a line-by-line reading, tricky
``-DOCSTART-`` look-alikes included); the report -- figures, intervals,
units, confusion and every error entry -- is the same text however the
file is cut into chunks or JSON lines into batches, and on one or two
worker processes; a bad line in a later chunk is reported as when read
alone, and `--workers` changes nothing but the time.
"""

from __future__ import annotations

import io
import json
import random
import tempfile
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats import conll
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.measures.resampling import NO_BOOTSTRAP, Resampling
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.reports.measures import measures_json
from harem_pipeline.stages import span_measures
from harem_pipeline.stages.span_measures import CountOptions

TYPES = ("PER", "LOC", "ORG")
LOOK_ALIKES = ("-DOCSTART- -X- O O", "  -DOCSTART-\t-X- O O", "-DOCSTART-x O O", "x -DOCSTART- O")


def sentence_lines(rng: random.Random) -> list[str]:
    """One sentence: IOB2 gold, a system that misses, mislabels and cuts spans."""
    lines = []
    for t in range(rng.randint(1, 12)):
        gold = rng.choice(("O", "O", "B-", "I-")) + rng.choice(TYPES)
        gold = "O" if gold.startswith("O") else gold
        system = gold if rng.random() < 0.6 else rng.choice(("O", "B-PER", "I-LOC", "B-ORG"))
        lines.append(f"w{t} X {gold} {system}")
    return lines


def conll_file(path: Path, seed: int, sentences: int, documents: bool, leading: int = 0) -> str:
    """``sentences`` sentences, a ``-DOCSTART-`` before every 7th (``documents``) after
    ``leading`` sentences outside any document (else one ``-DOCSTART-`` at the top)."""
    rng = random.Random(seed)
    out = [] if leading else ["-DOCSTART- -X- O O", ""]
    for i in range(sentences):
        if documents and i >= leading and (i - leading) % 7 == 3:
            out += ["-DOCSTART- -X- O O", ""]
        out += [*sentence_lines(rng), ""]
    text = "\n".join(out) + "\n"
    path.write_text(text, encoding="utf-8")
    return text


def report_text(path: Path, fmt: str = "conll", workers: int | None = None, **options) -> str:
    """The whole JSON report of ``path`` with its error entries, as written."""
    report = measure_file(
        path, fmt, CountOptions(errors=True, **options), Resampling(20), workers=workers
    )
    try:
        obj = measures_json(report)
        obj["errors"] = list(report.errors.records())
        return format_report_json(obj)
    finally:
        report.errors.close()


def test_chunks_know_their_first_line_and_the_document_before_them(monkeypatch) -> None:
    rng = random.Random(3)
    lines: list[str] = []
    for i in range(120):
        if i % 5 == 0:
            lines.append(LOOK_ALIKES[i % len(LOOK_ALIKES)])
        lines += [*sentence_lines(rng), ""]
    text = "\n".join(lines) + "\n"
    monkeypatch.setattr(conll, "_CHUNK_CHARS", 97)
    chunks = list(conll.conll_chunks(io.StringIO(text)))
    assert len(chunks) > 20
    assert "".join(chunk.text for chunk in chunks) == text
    starts = [0]
    for chunk in chunks[:-1]:
        starts.append(starts[-1] + chunk.text.count("\n"))
    for chunk, before in zip(chunks, starts, strict=True):
        heads = [
            n
            for n, line in enumerate(text.split("\n")[:before], 1)
            if line.split()[:1] == ["-DOCSTART-"]
        ]
        assert chunk.line == before + 1
        assert chunk.document == (heads[-1] if heads else 0)


@pytest.mark.parametrize(
    ("seed", "documents", "limit", "leading"),
    [(1, False, 2000, 0), (2, True, 2000, 0), (3, False, 7, 0), (4, True, 5, 0), (5, True, 3, 37)],
)
def test_conll_report_is_the_same_however_cut_and_on_any_workers(
    monkeypatch, tmp_path: Path, seed: int, documents: bool, limit: int, leading: int
) -> None:
    path = tmp_path / "run.conll"
    conll_file(path, seed, 400, documents, leading)
    whole = report_text(path, workers=1, unit_limit=limit)
    monkeypatch.setattr(conll, "_CHUNK_CHARS", 300)
    assert report_text(path, workers=1, unit_limit=limit) == whole
    assert report_text(path, workers=2, unit_limit=limit) == whole
    assert json.loads(whole)["errors"], "the file has errors to list"


@pytest.mark.parametrize("workers", [1, 2])
def test_the_error_files_go_with_the_report(monkeypatch, tmp_path: Path, workers: int) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(conll, "_CHUNK_CHARS", 300)
    path = tmp_path / "run.conll"
    conll_file(path, 6, 400, True)
    report = measure_file(
        path, "conll", CountOptions(errors=True), resampling=NO_BOOTSTRAP, workers=workers
    )
    pieces = report.errors.pieces
    assert len(pieces) > 10 and len(report.errors) == sum(piece.entries for piece in pieces)
    assert len(list(report.errors.lines())) == len(report.errors)
    report.errors.close()
    assert not any(scratch.iterdir())
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2] + text[len(text) // 2 :].replace(" O\n", " Q\n"))
    with pytest.raises(InputError):  # a bad tag halfway: nothing left behind either
        measure_file(
            path, "conll", CountOptions(errors=True), resampling=NO_BOOTSTRAP, workers=workers
        )
    assert not any(scratch.iterdir())


def test_a_bad_tag_in_a_later_chunk_is_reported_as_read_alone(monkeypatch, tmp_path: Path) -> None:
    path = tmp_path / "bad.conll"
    text = conll_file(path, 5, 300, True).split("\n")
    bad = len(text) - 40
    while not text[bad]:
        bad += 1
    text[bad] = "w X B-PER Q-LOC"
    path.write_text("\n".join(text), encoding="utf-8")
    monkeypatch.setattr(conll, "_CHUNK_CHARS", 250)
    for workers in (1, 2):
        with pytest.raises(InputError) as caught:
            measure_file(path, "conll", workers=workers)
        assert caught.value.line == bad + 1
        assert "Q-LOC" in str(caught.value)


def test_jsonl_report_is_the_same_in_any_batches(monkeypatch, tmp_path: Path) -> None:
    rng = random.Random(8)
    labels = ("PER", "LOC", "PER|LOC", "ORG")

    def spans(n: int) -> list[list]:
        found = []
        for _ in range(rng.randint(0, 6)):
            a = rng.randrange(n)
            found.append([a, min(n, a + rng.randint(1, 4)), rng.choice(labels)])
        return found

    path = tmp_path / "docs.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for d in range(60):
            n = rng.randint(1, 20)
            gold = spans(n)
            system = [s for s in gold if rng.random() < 0.5] + spans(n)
            if d % 9 == 0:
                system = [list(s) for s in gold]
            document = {"id": f"d{d % 50}", "tokens": [f"t{i}" for i in range(n)]}
            out.write(json.dumps({**document, "gold": gold, "system": system}) + "\n")
    whole = report_text(path, "tokens-jsonl", unit_limit=9)
    monkeypatch.setattr(span_measures, "_BATCH", 4)
    assert report_text(path, "tokens-jsonl", unit_limit=9) == whole


def test_workers_option_gives_the_same_report(monkeypatch, capsys, tmp_path: Path) -> None:
    path = tmp_path / "run.conll"
    conll_file(path, 6, 300, True)
    monkeypatch.setattr(conll, "_CHUNK_CHARS", 400)
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        argv = ["measures", str(path), "--format", "conll", "--json", "--workers", workers]
        assert main([*argv, "--bootstrap", "50", "-o", str(out)]) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert main(["measures", str(path), "--format", "conll", "--workers", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["harem measures: error: --workers: expected a whole number, 1 or more, found 0"]
