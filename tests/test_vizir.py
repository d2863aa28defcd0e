"""Vizir: every worked example of the original documentation, the scoring table, files.

The original is docs/spec/original/vizir-avaliador-morfologico.pt.txt, the rules
docs/spec/vizir-altinamor-ida2mor.md.

The case files in ``tests/cases/vizir/`` hold one worked example each
(``# params: -abs``, the Véus input lines, ``# expected``, the ``.vizir``
lines); their leading ``#`` comments say where each comes from.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Record, format_line, parse_line, parse_lines
from harem_pipeline.formats.vizir import (
    MorphScore,
    Outcome,
    cut_record,
    format_morph_score,
    format_vizir_line,
    parse_morph_score,
    record_morph_score,
    record_text,
)
from harem_pipeline.model import Morf
from harem_pipeline.pipeline.morphology import is_vizir_input, run_vizir
from harem_pipeline.pipeline.naming import stage_output
from harem_pipeline.stages.vizir import (
    SCENARIO_NAMES,
    Alignment,
    Scenario,
    SystemEntity,
    combine_outcomes,
    evaluated_index,
    judge_alignment,
    score_field,
)
from tests.helpers.cases import case_files, read_case
from tests.helpers.strategies import ALIGNMENT

CASES = Path(__file__).parent / "cases" / "vizir"
C = Outcome.CORRECTO
PC = Outcome.PARCIALMENTE_CORRECTO
INC = Outcome.INCORRECTO
EF = Outcome.EM_FALTA
ESP = Outcome.ESPURIO
SE = Outcome.SOBRE_ESPECIFICADO
PSE = Outcome.PARCIALMENTE_SOBRE_ESPECIFICADO


# ---------------------------------------------------------------------------
# Case files


ALL_CASES = case_files(CASES)


@pytest.mark.parametrize("path", ALL_CASES, ids=[p.stem for p in ALL_CASES])
def test_worked_example(path: Path, tmp_path: Path) -> None:
    case = read_case(path)
    (scenario,) = (Scenario.parse(word) for word in case.params)
    source = tmp_path / f"{case.name}.avalida.total"
    source.write_text("\n".join(case.input) + "\n", encoding="utf-8")
    result = run_vizir(source, scenario)
    if case.expected is None:
        assert result.output is None
        assert not stage_output("vizir", source).exists()
        return
    assert result.output == stage_output("vizir", source)
    header, *got = result.output.read_text(encoding="utf-8").splitlines()
    assert header == f"# Cenário: {SCENARIO_NAMES[scenario]}"  # the scenario, in the file
    assert got == case.expected, "\n".join(["got:", *got, "expected:", *case.expected])


def test_every_numbered_example_has_a_case() -> None:
    names = {p.stem for p in ALL_CASES}
    assert {f"example-{n:02d}" for n in range(1, 12)} <= names


# ---------------------------------------------------------------------------
# The field table and the combined rule (docs/spec/vizir-altinamor-ida2mor.md §2), value by value


@pytest.mark.parametrize(
    ("gold", "system", "partial", "expected"),
    [
        ("M", "M", False, C),
        ("M", "M", True, PC),
        ("M", "F", False, INC),
        ("M", "F", True, INC),
        ("S", "P", True, INC),
        ("M", "?", False, EF),
        ("M", "?", True, EF),
        ("?", "?", False, C),
        ("?", "?", True, PC),
        ("?", "F", False, SE),
        ("?", "F", True, PSE),
        ("M", None, False, EF),
        ("?", None, True, EF),
    ],
)
def test_score_field_table(gold: str, system: str | None, partial: bool, expected: Outcome) -> None:
    assert score_field(gold, system, partial) is expected


# The original's combined table, row by row (Número, Género, Resultado); "*"
# rows are checked against every non-spurious outcome.
COMBINED_TABLE = [
    (C, C, C),
    (C, INC, INC),
    (C, SE, INC),
    (C, PSE, INC),
    (C, PC, PC),
    (C, EF, EF),
    (PC, C, PC),
    (PC, PC, PC),
    (PC, EF, EF),
    (PC, SE, INC),
    (PC, PSE, INC),
    (PC, INC, INC),
    (ESP, ESP, ESP),
]
NON_SPURIOUS = [o for o in Outcome if o is not ESP]


@pytest.mark.parametrize(("number", "gender", "expected"), COMBINED_TABLE)
def test_combined_table_rows(number: Outcome, gender: Outcome, expected: Outcome) -> None:
    assert combine_outcomes(gender, number) is expected
    assert combine_outcomes(number, gender) is expected  # the rule is symmetric


@pytest.mark.parametrize("wrong", [INC, SE, PSE])
def test_combined_star_rows(wrong: Outcome) -> None:
    for other in NON_SPURIOUS:
        assert combine_outcomes(wrong, other) is INC
        assert combine_outcomes(other, wrong) is INC


def test_spurious_combines_only_with_spurious() -> None:
    with pytest.raises(ValueError):
        combine_outcomes(ESP, C)


def test_first_atom_rule() -> None:
    # D.Francisco gives atoms D, FRANCISCO; Aves-Campomaiorense gives AVES, ...
    assert evaluated_index("Instituto D.Francisco Gomes", ["Instituto", "D.Francisco"]) == 0
    assert evaluated_index("D.Francisco Gomes", ["Instituto", "d francisco"]) == 1
    assert evaluated_index("Campomaiorense", ["Aves-Campomaiorense"]) is None
    assert evaluated_index("Abril", ["17 de Abril", "Abril", "abril"]) == 1
    assert evaluated_index("...", ["..."]) is None


# ---------------------------------------------------------------------------
# Records under each scenario (docs/spec/vizir-altinamor-ida2mor.md §2, special records)

FS = Morf("F", "S")


def record(gold: Morf | None, *system: SystemEntity | None, spurious: bool = False) -> Alignment:
    entities = None if system == (None,) else tuple(system)  # type: ignore[arg-type]
    return Alignment("Embratur", gold, spurious, entities)


def spurious(morf: Morf | None) -> Alignment:
    return record(None, SystemEntity("Embratur", morf, False), spurious=True)


ALL_EF, ALL_ESP, ALL_PC = MorphScore(EF, EF, EF), MorphScore(ESP, ESP, ESP), MorphScore(PC, PC, PC)


@pytest.mark.parametrize(
    ("alignment", "absolute", "relative"),
    [
        (record(FS, None), ALL_EF, None),
        (spurious(FS), ALL_ESP, None),
        (spurious(Morf("?", "S")), ALL_ESP, None),
        (spurious(Morf("?", "?")), None, None),
        (spurious(None), None, None),
        (record(None, SystemEntity("Embratur", FS, False)), None, None),
        (record(None, None), None, None),
        (record(FS, SystemEntity("a Embratur", FS, False)), ALL_EF, ALL_EF),
        (record(FS, SystemEntity("Embratur", FS, True)), ALL_PC, ALL_PC),
    ],
)
def test_special_records(
    alignment: Alignment, absolute: MorphScore | None, relative: MorphScore | None
) -> None:
    assert judge_alignment(alignment, Scenario.ABSOLUTE) == absolute
    assert judge_alignment(alignment, Scenario.RELATIVE) == relative


# ---------------------------------------------------------------------------
# Properties


@settings(derandomize=True, deadline=None, max_examples=300)
@given(ALIGNMENT)
def test_combined_never_exceeds_its_fields(alignment: Alignment) -> None:
    for scenario in Scenario:
        score = judge_alignment(alignment, scenario)
        if score is None:
            continue
        assert score.combined.score <= min(score.gender.score, score.number.score)
        assert {o.score for o in (score.gender, score.number, score.combined)} <= {0, 0.5, 1}


@settings(derandomize=True, deadline=None, max_examples=300)
@given(ALIGNMENT)
def test_relative_scores_a_subset_of_absolute(alignment: Alignment) -> None:
    # Whatever the relative scenario scores, the absolute one scores the same way.
    relative = judge_alignment(alignment, Scenario.RELATIVE)
    if relative is not None:
        assert judge_alignment(alignment, Scenario.ABSOLUTE) == relative


@settings(derandomize=True, deadline=None)
@given(st.sampled_from(NON_SPURIOUS), st.sampled_from(NON_SPURIOUS), st.sampled_from(NON_SPURIOUS))
def test_verdict_text_round_trip(g: Outcome, n: Outcome, c: Outcome) -> None:
    score = MorphScore(g, n, c)
    text = format_morph_score(score)
    assert parse_morph_score(text) == score
    assert format_morph_score(parse_morph_score(text)) == text


def test_verdict_text_errors() -> None:
    with pytest.raises(InputError, match="score 1 for Correcto, found 0"):
        parse_morph_score("[(Género: Correcto 0) (Número: Correcto 1) (Combinada: Correcto 1)]")
    with pytest.raises(InputError, match="expected \\[\\(Género"):
        parse_morph_score("[(Número: Correcto 1) (Género: Correcto 1) (Combinada: Correcto 1)]")
    with pytest.raises(InputError, match="an outcome word"):
        parse_morph_score("[(Género: Certo 1) (Número: Correcto 1) (Combinada: Correcto 1)]")


def test_parse_morf_accepts_a_blank_after_the_comma() -> None:
    assert Morf.parse("M, S") == Morf("M", "S")


@pytest.mark.parametrize("value", ["X,S", "M", "M,S,P", "m,s", "", "M;S"])
def test_parse_morf_rejects(value: str) -> None:
    with pytest.raises(InputError) as exc:
        Morf.parse(value, "f.veu", 7)
    assert str(exc.value) == (
        f'f.veu, line 7: expected MORF="G,N" with G in M,F,? and N in S,P,?, found MORF="{value}"'
    )


# ---------------------------------------------------------------------------
# Files: encodings, errors, the no-output rule, folders, the CLI

LATIN_INPUT = (
    "HAREM-251-04443 PT Web\r\n"
    '<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Rússia</LOCAL> ---> '
    '[<LOCAL TIPO="ALARGADO" MORF="F,S">Rússia</LOCAL>]:[Correcto]\r\n'
)
LATIN_OUTPUT = (
    "HAREM-251-04443 PT Web\r\n"
    '<EM MORF="F,S">Rússia</EM> ---> [<EM MORF="F,S">Rússia</EM>]:'
    "[(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)]\r\n"
)


@pytest.mark.parametrize("encoding", ["iso-8859-1", "utf-8"])
def test_output_in_the_input_encoding(tmp_path: Path, encoding: str) -> None:
    source = tmp_path / "run.alinhado.avalida.total"
    source.write_bytes(LATIN_INPUT.encode(encoding))
    result = run_vizir(source, Scenario.ABSOLUTE)
    assert result.output == tmp_path / "run.alinhado.avalida.total.vizir"
    # Same bytes as the expected text in the same encoding: accents and CRLF kept.
    expected = "# Cenário: absoluto\r\n" + LATIN_OUTPUT
    assert result.output.read_bytes() == expected.encode(encoding)


def test_gzipped_input_and_explicit_output(tmp_path: Path) -> None:
    source = tmp_path / "total.veu.gz"
    source.write_bytes(gzip.compress(LATIN_INPUT.encode("iso-8859-1")))
    assert stage_output("vizir", source) == tmp_path / "total.veu.vizir"
    out = tmp_path / "x" / "out.vizir"
    assert run_vizir(source, Scenario.RELATIVE, out).output == out
    assert out.read_bytes() == ("# Cenário: relativo\r\n" + LATIN_OUTPUT).encode("iso-8859-1")


def test_bad_morf_is_an_input_error_through_main(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.total"
    source.write_text(
        '<EM MORF="M,S">A</EM> ---> [<EM MORF="M,S">A</EM>]:[Correcto]\n'
        '<EM MORF="N,S">B</EM> ---> [<EM MORF="M,S">B</EM>]:[Correcto]\n',
        encoding="utf-8",
    )
    assert main(["vizir", str(source), "-abs"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f'harem vizir: error: {source}, line 2: expected MORF="G,N" with G in M,F,? '
        'and N in S,P,?, found MORF="N,S"\n'
    )
    assert not stage_output("vizir", source).exists()
    assert list(tmp_path.iterdir()) == [source]  # no temporary file left behind


def test_unaligned_evaluation_count_is_an_input_error(tmp_path: Path) -> None:
    source = tmp_path / "bad.total"
    source.write_text(
        '<EM MORF="M,S">A B</EM> ---> [<EM MORF="M,S">A</EM>, <EM>B</EM>]:[Correcto]\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="line 1: expected .*evaluation item"):
        run_vizir(source, Scenario.ABSOLUTE)


def test_reference_run_without_morf_gives_no_output(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The Second HAREM reference run carries no MORF at all: no-output rule.
    source = data_dir / "reference" / "exemplo1" / "total_harem.veu.gz"
    out = tmp_path / "total_harem.veu.vizir"
    assert main(["vizir", str(source), "--scenario", "absolute", "-o", str(out)]) == 0
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
    err = capsys.readouterr().err
    assert "classified no entity morphologically" in err
    assert "no output written" in err


def test_no_output_removes_an_earlier_output(tmp_path: Path) -> None:
    # A .vizir left by an earlier run of a file that now classifies nothing
    # must not pass as this run's output.
    source = tmp_path / "r.alinhado.avalida.total"
    source.write_text('<EM MORF="M,S">A</EM> ---> [<EM>A</EM>]:[Correcto]\n', encoding="utf-8")
    stale = stage_output("vizir", source)
    stale.write_text("old\n", encoding="utf-8")
    assert run_vizir(source, Scenario.ABSOLUTE).output is None
    assert not stale.exists()


def test_no_output_scores_the_whole_file_first(tmp_path: Path) -> None:
    # A bad record after many unclassified ones is still found: the rule does
    # not short-cut reading.
    source = tmp_path / "late.total"
    source.write_text(
        '<EM MORF="M,S">A</EM> ---> [<EM>A</EM>]:[Correcto]\n'
        '<EM MORF="M,S">B</EM> ---> [<EM>B</EM>]:[Oops]\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="line 2"):
        run_vizir(source, Scenario.ABSOLUTE)


def test_folder_scores_only_vei_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = '<EM MORF="F,S">APSS</EM> ---> [<EM MORF="F,S">APSS</EM>]:[Correcto]\n'
    for name in [
        "run.alinhado.avalida.total",
        "run.alinhado.avalida.pt",
        "old.total.vizir",
        "x.altmor",
        "x.ida2mor.json",
        "x.emir",
        "x.altida",
        "x.ida2id",
        ".hidden",
    ]:
        (tmp_path / name).write_text(good, encoding="utf-8")
    assert is_vizir_input(tmp_path / "run.alinhado.avalida.pt")
    assert not is_vizir_input(tmp_path / "x.ida2mor.json")
    assert main(["vizir", str(tmp_path), "-rel"]) == 0
    made = sorted(p.name for p in tmp_path.iterdir())
    assert "run.alinhado.avalida.total.vizir" in made
    assert "run.alinhado.avalida.pt.vizir" in made
    assert "old.total.vizir.vizir" not in made and "x.altmor.vizir" not in made
    assert len(made) == 11  # the 9 files written above and the two .vizir outputs
    expected = (
        "# Cenário: relativo\n"
        '<EM MORF="F,S">APSS</EM> ---> [<EM MORF="F,S">APSS</EM>]:'
        "[(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)]\n"
    )
    assert (tmp_path / "run.alinhado.avalida.pt.vizir").read_text(encoding="utf-8") == expected


def test_a_folder_with_a_bad_file_writes_no_output_at_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = '<EM MORF="F,S">B</EM> ---> [<EM MORF="F,S">B</EM>]:[Correcto]\n'
    (tmp_path / "a.total").write_text(good, encoding="utf-8")
    (tmp_path / "b.total").write_text(good, encoding="utf-8")
    (tmp_path / "c.total").write_text('<EM MORF="Z,S">A</EM> ---> [null]:[Em_Falta]\n')
    (tmp_path / "b.total.vizir").write_text("an earlier run's\n", encoding="utf-8")
    assert main(["vizir", str(tmp_path), "-abs"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"harem vizir: error: {tmp_path / 'c.total'}, line 1: expected MORF=")
    # nothing written for the good files either, the earlier output kept, no temporary left
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.total",
        "b.total",
        "b.total.vizir",
        "c.total",
    ]
    assert (tmp_path / "b.total.vizir").read_text(encoding="utf-8") == "an earlier run's\n"


def test_a_folder_scored_whole_once_every_file_is_good(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = '<EM MORF="F,S">B</EM> ---> [<EM MORF="F,S">B</EM>]:[Correcto]\n'
    (tmp_path / "a.total").write_text(good, encoding="utf-8")
    (tmp_path / "b.total").write_text("<EM>B</EM> ---> [<EM>B</EM>]:[Correcto]\n")  # no MORF
    (tmp_path / "b.total.vizir").write_text("stale\n", encoding="utf-8")
    assert main(["vizir", str(tmp_path), "-abs"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.total", "a.total.vizir", "b.total"]
    assert (tmp_path / "a.total.vizir").read_text(encoding="utf-8") == (
        "# Cenário: absoluto\n"
        '<EM MORF="F,S">B</EM> ---> [<EM MORF="F,S">B</EM>]:'
        "[(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)]\n"
    )
    # quiet on success: the one line on stderr is the file that gave no output, and why
    err = capsys.readouterr().err
    assert err == (
        f"harem vizir: {tmp_path / 'b.total'}: the system classified no entity morphologically "
        "(no MORF attribute); no output written\n"
    )


def test_scenario_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["vizir", "some.file"])
    assert exc.value.code == 2


def test_vizir_line_round_trip() -> None:
    # Original example 3's record (Véus) → its .vizir line → read back.
    veus = (
        '<LOCAL TIPO="ALARGADO" MORF="M,S">Hotel Lisboa Plaza</LOCAL> ---> '
        '[<LOCAL TIPO="ALARGADO" MORF="M,S">Hotel Lisboa</LOCAL>, '
        '<PESSOA TIPO="INDIVIDUAL" MORF="F,S">Plaza</PESSOA>]::'
        "[Parcialmente_Correcto_por_Defeito(0.3333333333333333; 0.6666666666666667), "
        "Parcialmente_Correcto_por_Defeito(0.16666666666666666; 0.8333333333333334)]"
    )
    (record,) = parse_lines(veus + "\n")
    score = MorphScore(PC, PC, PC)
    line = format_vizir_line(record, score)
    # docs/spec/vizir-altinamor-ida2mor.md §3, the printed line
    assert line == (
        '<EM MORF="M,S">Hotel Lisboa Plaza</EM> ---> [<EM MORF="M,S">Hotel Lisboa</EM>, '
        '<EM MORF="F,S">Plaza</EM>]:[(Género: Parcialmente Correcto 0.5) '
        "(Número: Parcialmente Correcto 0.5) (Combinada: Parcialmente Correcto 0.5)]"
    )
    (back,) = parse_lines(line + "\n")
    assert record_morph_score(back) == score
    assert format_line(back) == line


def test_record_without_verdict_is_refused() -> None:
    (record,) = parse_lines('<EM MORF="M,S">A</EM> ---> [null]:[Em_Falta]\n', "f.vizir")
    with pytest.raises(InputError, match="expected a Vizir verdict"):
        record_morph_score(record, "f.vizir")


def test_replacing_the_first_atom_rule_moves_vizir_and_ida2mor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # stages.vizir.evaluated_index is the one first-atom rule: Vizir's verdict
    # and Ida2Mor's Total classificadas pelo sistema both move with it.
    import harem_pipeline.stages.vizir as vizir_stage

    source = tmp_path / "r.veu"
    porto = '<LOCAL MORF="M,S">Porto</LOCAL>'
    source.write_text(f"DOC d1\n{porto} ---> [{porto}]:[Correcto]\n", encoding="utf-8")

    def chain(name: str) -> tuple[str, str]:
        scored = run_vizir(source, Scenario.ABSOLUTE, tmp_path / f"{name}.vizir").output
        assert scored is not None
        assert main(["ida2mor", str(scored), "-o", str(tmp_path / f"{name}.mor")]) == 0
        vizir_text = scored.read_text(encoding="utf-8").splitlines()[-1]
        report = (tmp_path / f"{name}.mor").read_text(encoding="utf-8")
        return vizir_text.rpartition(":[")[2], report

    verdict, report = chain("before")
    assert verdict == "(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)]"
    assert "Total classificadas pelo sistema: 1\n" in report
    monkeypatch.setattr(vizir_stage, "evaluated_index", lambda gold, system: None)
    verdict, report = chain("after")
    assert verdict == "(Género: Em Falta 0) (Número: Em Falta 0) (Combinada: Em Falta 0)]"
    assert "Total classificadas pelo sistema: 0\n" in report


def test_a_record_is_cut_as_the_grammar_reads_it_or_left_to_the_grammar() -> None:
    # The canonical constructor gives what the general one gives; a later system tag that
    # closes with another name is left to the grammar, which refuses the line.
    head = '<LOCAL MORF="M,S">Porto</LOCAL> ---> [<LOCAL MORF="M,S">Porto</LOCAL>, '
    good = head + "<PESSOA>Rio</PESSOA>]:[Correcto, Correcto]"
    bad = head + "<PESSOA>Rio</LOCAL>]:[Correcto, Correcto]"
    record = parse_line(good)
    assert isinstance(record, Record)
    heads = ('LOCAL MORF="M,S"', "PESSOA")
    expected = ('LOCAL MORF="M,S"', "Porto", heads, ("Porto", "Rio"), "Correcto, Correcto")
    assert cut_record(good) == record_text(record) == expected
    assert cut_record(bad) is None
    with pytest.raises(InputError, match="found <PESSOA>Rio</LOCAL>"):
        parse_line(bad)
