"""Span measures of HAREM collections: hand-computed pair, real pair, perfect run, pipeline."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import iter_lines, parse_lines
from harem_pipeline.formats.harem_xml import parse_collection
from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.measures.resampling import NO_BOOTSTRAP
from harem_pipeline.measures.spans import PRF
from harem_pipeline.model import Collection
from harem_pipeline.pipeline.harem_spans import measure_collections
from harem_pipeline.stages.align import align_collections
from harem_pipeline.stages.altida import select_alternatives
from harem_pipeline.stages.avalida import evaluate_lines
from harem_pipeline.stages.harem_spans import (
    choose_alternatives,
    read_alt_choices,
    spans_from_collections,
    text_tokens,
)
from harem_pipeline.stages.ida2id import tally_identification
from harem_pipeline.tools.simulate import simulate_collection
from tests.helpers.harem_pair import CD, RUN
from tests.helpers.shipped import shipped_collection

PER, LOC, ORG, TIME = "PESSOA", "LOCAL", "ORGANIZACAO", "TEMPO"


def collections() -> tuple:
    return (
        parse_collection(CD, "cd.xml", "utf-8"),
        parse_collection(RUN, "run.xml", "utf-8"),
    )


def span(start: int, end: int, *labels: str) -> tuple[int, int, frozenset[str]]:
    return (start, end, frozenset(labels))


def test_tokens_skip_blanks_and_cut_at_tags() -> None:
    assert [t.key for t in text_tokens("Rio  Tejo,\n1999")] == [
        "RIO",
        "TEJO",
        ",",
        "1",
        "9",
        "9",
        "9",
    ]
    # a tag inside a word cuts it, as the aligner reads each text node apart
    assert [t.key for t in text_tokens("Boiadeirose", cuts={10})] == ["BOIADEIROS", "E"]


def test_altinaid_chooses_the_second_alternative() -> None:
    # Alternative 1 (Rio Tejo vs Tejo): one partial, w = 0.5·1/(2+1-1) = 0.25,
    # smoothed F = (1+0.25)/2 = 0.625; alternative 2 (Tejo vs Tejo): correct,
    # F = (1+1)/2 = 1.  AltinaID keeps alternative 2 of 2.
    cd, run = collections()
    assert choose_alternatives(cd, run) == {"d1": ((1, 2),), "d2": ()}


def test_spans_of_the_hand_pair() -> None:
    cd, run = collections()
    got = list(spans_from_collections(cd, run, choose_alternatives(cd, run)))
    assert [d.docid for d in got] == ["d1", "d2"]
    d1, d2 = got
    # Zeca (17) is inside OMITIDO: left out on both sides; "fim" is placed after
    # the document's 20 tokens, so it overlaps nothing.
    assert sorted(d1.gold) == [
        span(0, 2, PER),
        span(3, 5, LOC),
        span(7, 10, ORG, LOC),
        span(13, 14, LOC),
    ]
    assert sorted(d1.system) == [
        span(0, 1, PER),
        span(3, 5, PER),
        span(7, 10, LOC),
        span(13, 14, LOC),
        span(20, 21, ORG),
    ]
    assert d2.gold == (span(0, 1, TIME),)
    assert d2.system == ((0, 1, frozenset()),)


def close(value: PRF, precision: float | None, recall: float | None, f1: float | None) -> None:
    assert value.precision == pytest.approx(precision)
    assert value.recall == pytest.approx(recall)
    assert value.f1 == pytest.approx(f1)


def test_hand_computed_measures() -> None:
    cd, run = collections()
    report = measure_collections(cd, run, choose_alternatives(cd, run), resampling=NO_BOOTSTRAP)
    m = report.measures
    # Gold g1 (0,2)P g2 (3,5)L g3 (7,10){O,L} g4 (13,14)L g5 d2(0,1)T: 5 spans.
    # System s1 (0,1)P s2 (3,5)P s3 (7,10)L s4 (13,14)L s5 (20,21)O s6 d2(0,1){}: 6 spans.
    assert (report.counts.labelled.match.gold, report.counts.labelled.match.system) == (5, 6)
    # Labelled exact: s3 (L in {O,L}) and s4 -> P 2/6, R 2/5, F 2·(1/3)(2/5)/(11/15) = 4/11.
    close(m.labelled.exact, 2 / 6, 2 / 5, 4 / 11)
    # Labelled overlap: s1, s3, s4 overlap a same-label gold span (3/6);
    # g1, g3, g4 are overlapped (3/5); F = 2·0.5·0.6/1.1 = 6/11.
    close(m.labelled.overlap, 3 / 6, 3 / 5, 6 / 11)
    # Labelled intersection: coverage of s1 by g1 = 1/1, s3 = 1, s4 = 1 -> 3/6;
    # of g1 by s1 = 1/2, g3 = 1, g4 = 1 -> 2.5/5; F = 0.5.
    close(m.labelled.intersection, 0.5, 0.5, 0.5)
    # Unlabelled exact: s2=g2, s3=g3, s4=g4, s6=g5 -> 4/6, 4/5, F = (16/15)/(22/15) = 8/11.
    close(m.unlabelled.exact, 4 / 6, 4 / 5, 8 / 11)
    # Unlabelled overlap: all but s5 (5/6); every gold span (5/5); F = (10/6)/(11/6).
    close(m.unlabelled.overlap, 5 / 6, 1.0, 10 / 11)
    # Unlabelled intersection: P = (1+1+1+1+0+1)/6 = 5/6, R = (0.5+1+1+1+1)/5 = 0.9,
    # F = 2·(5/6)·0.9/(5/6+0.9) = 1.5/(26/15) = 45/52.
    close(m.unlabelled.intersection, 5 / 6, 0.9, 45 / 52)
    c = m.labelled.categories
    # s1 boundary error, s2 and s6 label errors (s6 has no label), s3 s4 correct, s5 spurious.
    assert (c.system_correct, c.system_label_error, c.system_boundary_error, c.spurious) == (
        2,
        2,
        1,
        1,
    )
    assert (c.gold_correct, c.gold_label_error, c.gold_boundary_error, c.missing) == (2, 2, 1, 0)
    per_label = dict(m.per_label)
    # LOCAL: gold g2, g3 (vague), g4; system s3, s4; both exact -> P 2/2, R 2/3.
    close(per_label[LOC].exact, 1.0, 2 / 3, 0.8)
    # PESSOA: gold g1, system s1 s2; no exact (P 0/2, R 0/1, F 0); s1 overlaps g1.
    close(per_label[PER].exact, 0.0, 0.0, 0.0)
    close(per_label[PER].overlap, 0.5, 1.0, 2 / 3)
    # TEMPO: no system span with it: precision undefined, recall 0/1.
    assert per_label[TIME].exact.precision is None and per_label[TIME].exact.recall == 0.0
    assert [docid for docid, _ in report.document_counts] == ["d1", "d2"]
    assert report.documents == 2 and report.tokens == 20 + 3


def test_the_first_alternative_changes_the_figures() -> None:
    # With alternative 1 (Rio Tejo, (12,14)), s4 (13,14) becomes a boundary error:
    # labelled exact 1/6 and 1/5; intersection recall (0.5 + 1 + 0.5)/5 = 0.4,
    # precision unchanged (s4 is inside g4): 3/6.
    cd, run = collections()
    report = measure_collections(cd, run, {"d1": ((0, 2),), "d2": ()}, resampling=NO_BOOTSTRAP)
    close(report.measures.labelled.exact, 1 / 6, 1 / 5, 2 / 11)
    close(report.measures.labelled.intersection, 0.5, 0.4, 0.4 / 0.9)


def test_veil_keeps_its_categories() -> None:
    # Veil LOCAL: gold g2, g3 (as {LOCAL}), g4; g1 (PESSOA) and g5 (TEMPO) hidden.
    # System s3, s4 and the uncategorised s6 (kept, as Véus keeps it); s1, s2, s5 hidden.
    # Exact: s3, s4 -> P 2/3, R 2/3.
    cd, run = collections()
    veil = parse_veil("LOCAL", read_grid())
    spans = list(spans_from_collections(cd, run, choose_alternatives(cd, run), veil))
    assert sorted(spans[0].gold) == [span(3, 5, LOC), span(7, 10, LOC), span(13, 14, LOC)]
    report = measure_collections(
        cd, run, choose_alternatives(cd, run), veil, resampling=NO_BOOTSTRAP
    )
    close(report.measures.labelled.exact, 2 / 3, 2 / 3, 2 / 3)


def test_run_text_that_drifts_is_placed_by_numbered_tokens() -> None:
    # The run adds "Ontem ," and changes spacing: its entities still land on the
    # CD positions of the same numbered tokens (Porto 0, Lisboa 2 of "Porto e Lisboa").
    # "Ontem" holds no token of a CD entity: a fresh position (3) after the
    # document's three, so it can only be spurious.
    cd = parse_collection(
        '<colHAREM><DOC DOCID="d"><P><EM CATEG="LOCAL">Porto</EM> e '
        '<EM CATEG="LOCAL">Lisboa</EM></P></DOC></colHAREM>',
        "cd.xml",
        "utf-8",
    )
    run = parse_collection(
        '<colHAREM><DOC DOCID="d"><P><EM CATEG="TEMPO">Ontem</EM> ,  <EM CATEG="LOCAL">Porto</EM>'
        '   e <EM CATEG="LOCAL">Lisboa</EM></P></DOC></colHAREM>',
        "run.xml",
        "utf-8",
    )
    (doc,) = spans_from_collections(cd, run)
    assert sorted(doc.system) == [span(0, 1, LOC), span(2, 3, LOC), span(3, 4, TIME)]


def test_alt_choices_read_from_an_altida_file() -> None:
    text = (
        "DOC d1\n# ALT escolhida: 2 de 2\n"
        '<EM CATEG="LOCAL">Tejo</EM> ---> [<EM CATEG="LOCAL">Tejo</EM>]:[Correcto]\n'
        "EOD\nDOC d2\nEOD\n"
    )
    assert read_alt_choices(parse_lines(text)) == {"d1": ((1, 2),), "d2": ()}


def test_choices_that_do_not_fit_the_cd_are_an_input_error() -> None:
    cd, run = collections()
    with pytest.raises(InputError) as error:
        list(spans_from_collections(cd, run, {"d1": (), "d2": ()}))
    assert str(error.value) == (
        "cd.xml, document d1: expected 1 ALT choice(s), one per ALT block of the CD document, "
        "found 0"
    )


def test_cli_harem_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cd.xml").write_text(CD, "utf-8")
    (tmp_path / "run.xml").write_text(RUN, "utf-8")
    args = ["measures", "--cd", str(tmp_path / "cd.xml"), "--run", str(tmp_path / "run.xml")]
    assert main([*args, "--json", "--bootstrap", "0"]) == 0
    data = json.loads(capsys.readouterr().out)
    # The figures worked out by hand in test_hand_computed_measures (labelled exact
    # F = 4/11, unlabelled intersection F = 45/52), now through the command.
    assert data["labelled"]["exact"]["f1"] == pytest.approx(4 / 11)
    assert data["unlabelled"]["intersection"]["f1"] == pytest.approx(45 / 52)
    assert set(data["per_label"]) == {PER, LOC, ORG, TIME}
    assert "|format:harem|cd:" in data["signature"] and "|run:" in data["signature"]
    # per-document counts for a bootstrap or harem compare: d2 has one gold and one
    # system span, a label error, so no exact match (zero counts are left out)
    assert data["documents"]["d2"]["labelled.gold"] == 1
    assert data["documents"]["d2"]["labelled.system_label_error"] == 1
    assert "labelled.exact_system" not in data["documents"]["d2"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[5].split() == [
        "exact",
        "33.33",
        "40.00",
        "36.36",
        "66.67",
        "80.00",
        "72.73",
    ]
    assert main(["measures", "--cd", str(tmp_path / "cd.xml")]) == 2
    assert capsys.readouterr().err.strip() == (
        "harem measures: error: <input>: expected --cd CD --run RUN (and no FILE or --format), "
        "found --cd"
    )


def test_help_names_the_harem_mode(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["measures", "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert "HAREM: --cd CD --run RUN, aligner's tokens, A|B = label set, ALT as AltinaID" in lines


def test_real_second_harem_pair(data_dir: Path, second_harem_cd: Collection) -> None:
    cd = second_harem_cd
    run = shipped_collection(
        data_dir / "second-harem" / "ParticipacaoSegundoHaremReRelEM_t1.xml.gz"
    )
    chosen = list(select_alternatives(evaluate_lines(align_collections(cd, run).lines)))
    choices = read_alt_choices(chosen)
    # Same documents, same ALT choices, same OMITIDO rule as the HAREM measures:
    # each document has as many gold spans as Ida2ID counts CD entities (Total na CD).
    total_cd = {d.docid: d.counts.total_cd for d in tally_identification(chosen).documents}
    gold = {d.docid: len(d.gold) for d in spans_from_collections(cd, run, choices)}
    assert gold == total_cd
    # The same total from the Java AvalIDa output: 7158 is line 1 ("Total na CD:
    # 7158") of `harem ida2id` on `harem altida` of the gunzipped
    # data/reference/gabriel/run.alinhado.avalida.gz.  (Without AltinaID the
    # same file gives 7732, line 1 of run.alinhado.avalida.globalid.gz there.)
    _, reference = iter_lines(data_dir / "reference" / "gabriel" / "run.alinhado.avalida.gz")
    java_total = tally_identification(select_alternatives(reference)).total.total_cd
    assert sum(gold.values()) == java_total == 7158
    report = measure_collections(cd, run, choices, resampling=NO_BOOTSTRAP)
    assert report.documents == 129  # the Second HAREM CD's documents (tests/test_stats.py)
    for view in (report.measures.labelled, report.measures.unlabelled):
        for side in ("precision", "recall"):
            exact, inter, over = (
                getattr(getattr(view, name), side) for name in ("exact", "intersection", "overlap")
            )
            assert 0 <= exact <= inter <= over <= 1
        assert 0 < view.exact.f1 < 1


@pytest.mark.parametrize("collection", ["first_harem_cd", "second_harem_cd"])
def test_a_perfect_run_scores_one(request: pytest.FixtureRequest, collection: str) -> None:
    cd = request.getfixturevalue(collection)  # the shipped collection, read once per session
    run = simulate_collection(cd, "perfect", 1)
    report = measure_collections(cd, run, choose_alternatives(cd, run), resampling=NO_BOOTSTRAP)
    assert report.counts.labelled.match.gold > 1000
    assert report.measures.labelled.exact.f1 == 1.0
    assert report.measures.unlabelled.exact.f1 == 1.0


def test_pipeline_reports_carry_the_span_measures(tmp_path: Path) -> None:
    from tasks.pipeline import Ida2ID
    from tests.helpers.campaign import build, make_campaign

    config = make_campaign(tmp_path)
    config.write_text(
        "collection: cd.txt\nruns:\n  - path: runs/strong.txt\n    veil: PESSOA:LOCAL\n"
        "output: out\nsubsets: [total, selectivo]\nscenarios: [absolute]\nbootstrap: 20\n",
        encoding="utf-8",
    )
    build(config)
    folder = tmp_path / "out" / "strong"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text("utf-8"))
    for subset in ("total", "selectivo"):
        base = folder / f"strong.alinhado.avalida.{subset}.ida2id"
        report = json.loads(base.with_name(base.name + ".json").read_text("utf-8"))
        spans = report["measures"]
        assert list(report)[-2:] == ["measures", "documents"]
        exact = spans["labelled"]["exact"]
        assert 0 < exact["f1"] <= 1 and exact["ci95"]["f1"] is not None
        labels = set(spans["per_label"])
        assert labels <= {"PESSOA", "LOCAL"} if subset == "selectivo" else len(labels) > 2
        # every CD entity of the subset is one gold span, as it is one record
        text = base.read_text("iso8859-1").splitlines()
        assert text[14].removeprefix("Extensões na CD: ") == text[0].removeprefix("Total na CD: ")
        assert text[-1].startswith("Assinatura: ")
        (row,) = [r for r in summary["rows"] if r["subset"] == subset]
        assert row["exact_f1"] == exact["f1"]
        assert row["intersection_f1"] == spans["labelled"]["intersection"]["f1"]
    task = Ida2ID(config=str(config), run_name="strong", subset="total")
    assert {tmp_path / "cd.txt", tmp_path / "runs" / "strong.txt"} <= set(task.input_paths())


# Each example simulates, aligns and measures 8 real documents.
@settings(derandomize=True, deadline=None, max_examples=8)
@given(
    profile=st.sampled_from(["strong", "average", "weak"]),
    seed=st.integers(0, 10_000),
    start=st.integers(0, 120),
)
def test_simulated_runs_give_well_formed_spans(profile: str, seed: int, start: int) -> None:
    # Any simulated run of a few First HAREM documents: spans inside positions
    # (fresh ones after the document), one gold span per CD entity Ida2ID counts,
    # and exact <= intersection <= overlap (neither side has overlapping spans).
    full = _first_harem()
    cd = dataclasses.replace(full, documents=full.documents[start : start + 8])
    run = simulate_collection(cd, profile, seed)
    chosen = list(select_alternatives(evaluate_lines(align_collections(cd, run).lines)))
    total_cd = {d.docid: d.counts.total_cd for d in tally_identification(chosen).documents}
    for doc in spans_from_collections(cd, run, read_alt_choices(chosen)):
        assert len(doc.gold) == total_cd.get(doc.docid, 0)
        assert all(0 <= a < b for a, b, _ in (*doc.gold, *doc.system))
    m = measure_collections(cd, run, read_alt_choices(chosen), resampling=NO_BOOTSTRAP).measures
    for view in (m.labelled, m.unlabelled):
        for side in ("precision", "recall"):
            values = [getattr(getattr(view, n), side) for n in ("exact", "intersection", "overlap")]
            if values[0] is not None:
                assert 0 <= values[0] <= values[1] + 1e-12 <= values[2] + 2e-12 <= 1 + 2e-12


@functools.cache
def _first_harem():
    from tests.helpers.paths import DATA

    return shipped_collection(DATA / "first-harem" / "ColeccaoDouradaHAREM.txt")
