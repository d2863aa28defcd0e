"""AltinaID: per <ALT> block, the alternative the Java ranking puts last (best)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    AltClose,
    AltOpen,
    Blank,
    DocEnd,
    DocStart,
    Header,
    Line,
    Record,
    Tag,
    format_evaluation,
    parse_lines,
    read_lines,
)
from harem_pipeline.pipeline.identification import run_altida
from harem_pipeline.stages.altida import (
    AlternativeScore,
    choose_alternative,
    score_alternative,
    select_alternatives,
)

EXEMPLO0 = "reference/exemplo0/total_muc.alinhado.avalida.gz"
GABRIEL = "reference/gabriel/run.alinhado.avalida.gz"


def alternatives_of_first_block(lines: list[Line]) -> list[list[Record]]:
    blocks: list[list[Record]] = []
    inside = False
    for item in lines:
        if isinstance(item, AltOpen) and item.n is not None:
            blocks.append([])
            inside = True
        elif isinstance(item, AltClose) and item.n is not None:
            inside = False
        elif isinstance(item, AltClose):
            return blocks
        elif inside and isinstance(item, Record):
            blocks[-1].append(item)
    return blocks


def test_worked_example_exemplo0(data_dir: Path) -> None:
    _, lines = read_lines(data_dir / EXEMPLO0)
    scores = [score_alternative(alt) for alt in alternatives_of_first_block(lines)]
    # Hand computation from the evaluations printed in the reference .avalida; with
    # smoothing F = 2(1+C+Σw)/(2+G+Y):
    # ALT1: 1 record, [Correcto, 5/14, 5/14, 1/14, 1/14, 1/14] → c = 2+13/14, G=1, Y=6
    # ALT2: 2 records, [5/14, Correcto, 1/3, .1, .1] and [1/14, .1, Correcto] → G=2, Y=8
    # ALT3: 1 record, [5/14, 1/3, Correcto, .1, .1, .1] → G=1, Y=6
    # ALT4: 2 records, [3/14, .3, .3, 1/6, 1/6] and [1/14, .1, Correcto] → G=2, Y=8
    c1 = 2 + 13 / 14
    c2 = 3 + 5 / 14 + 1 / 3 + 0.2 + 1 / 14 + 0.1
    c3 = 2 + 5 / 14 + 1 / 3 + 0.3
    c4 = 2 + 3 / 14 + 0.6 + 1 / 3 + 1 / 14 + 0.1
    expected = [2 * c1 / 9, 2 * c2 / 12, 2 * c3 / 9, 2 * c4 / 12]
    assert [s.f_measure for s in scores] == pytest.approx(expected, rel=1e-12)
    assert [(s.gold, s.identified, s.records) for s in scores] == [
        (1, 6, 1),
        (2, 8, 2),
        (1, 6, 1),
        (2, 8, 2),
    ]
    assert choose_alternative(scores) == 1  # ALT2: F = 0.67698 beats 0.66455 (ALT3)
    out = list(select_alternatives(lines))
    assert Header(" ALT escolhida: 2 de 4") in out
    ids = [r.gold.attr("ID") for r in out if isinstance(r, Record)]
    assert ids[:3] == ["cdAlt2a", "cdAlt2b", "cd2"]


def score(credit: float, identified: int, gold: int, error: float, items: int, records: int):
    return AlternativeScore(credit, identified, gold, error, items, records)


def test_ties_lower_error_then_more_records_then_later() -> None:
    # same credit, Y and G → the very same F; then the rules of the Java compareTo
    low_error = score(2.0, 1, 1, 0.0, 1, 1)
    high_error = score(2.0, 1, 1, 0.5, 2, 1)
    assert choose_alternative([low_error, high_error]) == 0
    assert choose_alternative([high_error, low_error]) == 1
    more_records = score(2.0, 1, 1, 0.0, 1, 3)
    assert choose_alternative([more_records, low_error]) == 0
    assert choose_alternative([low_error, low_error, low_error]) == 2


def test_smoothing_values() -> None:
    # one gold entity found exactly: P = R = (1+1)/(1+1) = 1
    correct = Record(Tag("EM", (), "Lisboa"), (Tag("EM", (), "Lisboa"),), (ev("Correcto"),))
    perfect = score_alternative([correct])
    assert (perfect.precision, perfect.recall, perfect.f_measure) == (1.0, 1.0, 1.0)
    assert perfect.combined_error == 0.0
    # one missing: P = 1/1, R = 1/2, F = 2/3, error = 1/(1+1)
    missing = Record(Tag("EM", (), "Lisboa"), None, (ev("Em_Falta"),))
    scored = score_alternative([missing])
    assert (scored.precision, scored.recall) == (1.0, 0.5)
    assert scored.f_measure == pytest.approx(2 / 3)
    assert scored.combined_error == 0.5


def ev(kind: str, weight: float | None = None):
    return format_evaluation(kind, weight)


def test_real_run_keeps_everything_outside_blocks(data_dir: Path, tmp_path: Path) -> None:
    _, lines = read_lines(data_dir / GABRIEL)
    out = run_altida(data_dir / GABRIEL, tmp_path / "run.altida")
    _, chosen = read_lines(out)
    assert not any(isinstance(item, (AltOpen, AltClose)) for item in chosen)
    comments = [item for item in chosen if isinstance(item, Header) and "escolhida" in item.text]
    assert len(comments) == sum(1 for i in lines if isinstance(i, AltOpen) and i.n is None) == 382
    # rebuild the expected file from the input and the announced choices: every line
    # outside the blocks in place, each block replaced by its k-th alternative
    choices = iter(int(c.text.split()[2]) for c in comments)
    expected: list[Line] = []
    block: list[list[Line]] | None = None
    for item in lines:
        if isinstance(item, AltOpen) and item.n is None:
            block = []
        elif isinstance(item, AltOpen):
            assert block is not None
            block.append([])
        elif isinstance(item, AltClose) and item.n is None:
            assert block is not None
            k = next(choices)
            expected += [Header(f" ALT escolhida: {k} de {len(block)}"), *block[k - 1]]
            block = None
        elif isinstance(item, AltClose):
            pass
        elif block is not None:
            block[-1].append(item)
        else:
            expected.append(item)
    assert len(chosen) == len(expected)
    for ours, theirs in zip(chosen, expected, strict=True):
        if isinstance(ours, Record) and isinstance(theirs, Record):
            assert (ours.gold, ours.system, ours.evaluation) == (
                theirs.gold,
                theirs.system,
                theirs.evaluation,
            )
        else:
            assert ours == theirs
    assert all(isinstance(r, Record) and r.marker == ":" for r in chosen if isinstance(r, Record))


def test_bad_structure_is_an_input_error() -> None:
    unclosed = "DOC d\n<ALT>\n<ALT1>\n</ALT1>\n"
    with pytest.raises(InputError, match=r"f, line 2: expected </ALT> closing the block"):
        list(select_alternatives(parse_lines(unclosed, "f"), "f"))
    stray = "DOC d\n</ALT1>\n"
    with pytest.raises(InputError, match=r"f, line 2: expected <ALT> before an alternative"):
        list(select_alternatives(parse_lines(stray, "f"), "f"))
    doc_inside = "<ALT>\n<ALT1>\nEOD\n"
    with pytest.raises(InputError, match=r"line 3: expected a well-nested"):
        list(select_alternatives(parse_lines(doc_inside, "f"), "f"))


def test_unevaluated_record_is_an_input_error() -> None:
    text = "<ALT>\n<ALT1>\n<EM>Lisboa</EM> ---> [null]\n</ALT1>\n</ALT>\n"
    with pytest.raises(InputError, match=r"f, line 3: expected an evaluated record"):
        list(select_alternatives(parse_lines(text, "f"), "f"))


def test_cli(data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.altida"
    assert main(["altida", str(data_dir / EXEMPLO0), "-o", str(out)]) == 0
    assert "# ALT escolhida: 2 de 4\n" in out.read_text("utf-8")
    bad = tmp_path / "bad.avalida"
    bad.write_text("<ALT>\n<ALT1>\n", "utf-8")
    assert main(["altida", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and f"{bad}, line 1" in err


VERDICTS = st.one_of(
    st.just(("Correcto", None)),
    st.tuples(
        st.sampled_from(["Parcialmente_Correcto_por_Excesso", "Parcialmente_Correcto_por_Defeito"]),
        st.sampled_from([0.05, 0.1, 0.25, 1 / 3, 5 / 14, 0.5]),
    ),
)


@st.composite
def records(draw: st.DrawFn, label: str) -> Record:
    kind = draw(st.sampled_from(["found", "missing", "spurious"]))
    if kind == "missing":
        return Record(Tag("EM", (("ID", label),), "x"), None, (ev("Em_Falta"),), ":")
    if kind == "spurious":
        gold = Tag("EM", (("CATEG", "ESPURIO"),), "x")
        return Record(gold, (Tag("EM", (), "x"),), (ev("Espurio"),), ":")
    verdicts = draw(st.lists(VERDICTS, min_size=1, max_size=3))
    system = tuple(Tag("EM", (), "x") for _ in verdicts)
    evaluation = tuple(ev(k, w) for k, w in verdicts)
    return Record(Tag("EM", (("ID", label),), "x"), system, evaluation, ":")


@st.composite
def blocks(draw: st.DrawFn) -> list[list[Record]]:
    n = draw(st.integers(1, 4))
    return [draw(st.lists(records(f"a{k}"), min_size=0, max_size=3)) for k in range(1, n + 1)]


@settings(derandomize=True, deadline=None, max_examples=150)
@given(blocks())
def test_chosen_is_the_best_and_the_last_of_equals(alternatives: list[list[Record]]) -> None:
    lines: list[Line] = [DocStart("d"), AltOpen(None)]
    for k, alternative in enumerate(alternatives, start=1):
        lines += [AltOpen(k), *alternative, AltClose(k)]
    lines += [AltClose(None), Blank(), DocEnd()]
    out = list(select_alternatives(lines))
    comment = out[1]
    assert isinstance(comment, Header)
    k = int(comment.text.split()[2])
    assert comment.text == f" ALT escolhida: {k} de {len(alternatives)}"
    assert out[2:-2] == alternatives[k - 1]
    keys = [score_alternative(alt).rank_key() for alt in alternatives]
    assert all(keys[k - 1] >= other for other in keys)
    assert all(keys[k - 1] > other for other in keys[k:])
    # smoothed precision never exceeds 1: each identified entity earns at most 1
    assert all(0 < score_alternative(alt).precision <= 1 for alt in alternatives)
