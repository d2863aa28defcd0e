"""AvalTEMPO's rules on hand-made records, each worked out by hand from
``docs/spec/tempo.md`` ("Per line", "Unit rule", "The rewrite"), and bad input.

Every record is a TEMPO_CALEND entity aligned to one system entity with the
classic values ``MaxCSC_CD(2.4875) MaxCSC_S(2.4875) CSC(2.4875)``; a test
gives the two sides' time attributes and checks the points added (printed
``%.6g``), the labels of the appended block and the side file's lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.tempo import awk_equal, awk_number, awk_strtonum
from harem_pipeline.stages.tempo import DeltaState, score_line, score_lines

ITEM = (
    "{Categoria(Correcto:[TEMPO] Espurio:[] Em_Falta:[]) "
    "Tipo(Correcto:[TEMPO_CALEND] Espurio:[] Em_Falta:[]) "
    "Subtipo(Correcto:[DATA] Espurio:[] Em_Falta:[]) "
    "MaxCSC_CD(2.4875) MaxCSC_S(2.4875) CSC(2.4875) Peso(1.0)}"
)


def record(gold: str, system: str, subtype: str = "DATA", tipo: str = "TEMPO_CALEND") -> str:
    """A TEMPO record; ``gold``/``system`` are the entities' time attributes."""
    sub = f' SUBTIPO="{subtype}"' if subtype else ""
    g = f'<EM ID="g" CATEG="TEMPO" TIPO="{tipo}"{sub}{gold}>ontem</EM>'
    s = f'<EM ID="s" CATEG="TEMPO" TIPO="{tipo}"{sub}{system}>ontem</EM>'
    return f"{g} ---> [{s}]::[{ITEM}]"


def block(line: str) -> str:
    """The appended block of a rewritten line."""
    return line[line.index("}]::[{") + 5 :]


def points(line: str) -> tuple[str, str, str]:
    """The TEMPO points of a block: (MaxCSC_CD, MaxCSC_S, CSC)."""
    b = block(line)
    return tuple(  # type: ignore[return-value]
        b.split(f"{name}_tempo(")[1].split(")")[0] for name in ("MaxCSC_CD", "MaxCSC_S", "CSC")
    )


def labels(line: str) -> str:
    b = block(line)
    return b[1 : b.index("MaxCSC_CD=")]


def scored(gold: str, system: str, mode: int = 1, **kw: str) -> tuple[str, tuple[str, ...]]:
    result = score_line(record(gold, system, **kw), mode, DeltaState())
    assert result is not None
    return result.text, result.errors


# ---------------------------------------------------------------------------
# TEMPO_REF and SENTIDO (modes 1 and 2)


def test_tempo_ref_right_adds_two_thirds_everywhere_and_raises_the_first_block() -> None:
    text, errors = scored(' TEMPO_REF="ABSOLUTO"', ' TEMPO_REF="ABSOLUTO"')
    assert points(text) == ("0.666667",) * 3
    assert labels(text) == "TempoRef(Correcto:[ABSOLUTO] Em_Falta:[]) "
    # 2.4875 + 2/3 = 3.1541666… printed %.6g; the block keeps the classic values as read.
    assert "MaxCSC_CD(3.15417) MaxCSC_S(3.15417) CSC(3.15417) Peso(1.0)" in text
    assert "MaxCSC_CD=MaxCSC_CD_class(2.4875)+MaxCSC_CD_tempo(0.666667)" in text
    assert errors == ()


def test_sentido_wrong_is_missing_and_an_error_line() -> None:
    text, errors = scored(' SENTIDO="ANTERIOR"', ' SENTIDO="POSTERIOR"')
    assert points(text) == ("0.8", "0.8", "0")
    assert labels(text) == "Sentido(Correcto:[] Em_Falta:[ANTERIOR]) "
    assert errors == ("Sentido(Correcto:[] Em_Falta:[ANTERIOR]) ",)


def test_errors_carry_the_labels_so_far() -> None:
    text, errors = scored(
        ' TEMPO_REF="ENUNCIACAO" SENTIDO="ANTERIOR"', ' TEMPO_REF="TEXTUAL" SENTIDO="ANTERIOR"'
    )
    # 2/3 + 4/5 = 1.4666…; only SENTIDO right.
    assert points(text) == ("1.46667", "1.46667", "0.8")
    assert errors == ("TempoRef(Correcto:[] Em_Falta:[ENUNCIACAO]) ",)


def test_a_system_without_the_attribute_gets_no_maximum_and_no_credit() -> None:
    text, errors = scored(' TEMPO_REF="ABSOLUTO"', "")
    assert points(text) == ("0.666667", "0", "0")
    assert len(errors) == 1


# ---------------------------------------------------------------------------
# VAL_NORM of DATA and HORA (modes 1 and 3)


def test_date_one_field_wrong_is_partial_credit() -> None:
    # Year 2003 for 2002: 7 of 8 fields (era, month, day, hour, minute, season, limit).
    text, errors = scored(' VAL_NORM="+20020430T----E--LM-"', ' VAL_NORM="+20030430T----E--LM-"')
    assert points(text) == ("1", "1", "0.875")
    assert labels(text) == "ValNorm(CorrectoP:[+20020430T----E--LM-] Em_Falta:[]) "
    assert errors == ()


def test_date_zero_matches_dashes_and_the_limit_classes() -> None:
    # "--" against "00" and "----" against "0000" are right; limits A and D are one class.
    text, _ = scored(' VAL_NORM="+2002----T----E--LMA"', ' VAL_NORM="+20020000T0000E--LMD"')
    assert points(text) == ("1", "1", "1")
    assert labels(text) == "ValNorm(Correcto:[+2002----T----E--LMA] Em_Falta:[]) "


def test_date_unknown_value_scores_all_or_nothing() -> None:
    unknown = ' VAL_NORM="+99999999T9999E--LM-"'
    text, _ = scored(unknown, unknown)
    assert points(text)[2] == "1"
    # Against a date equal in every field but the year: 0, not 7/8.
    text, errors = scored(unknown, ' VAL_NORM="+19999999T9999E--LM-"')
    assert points(text)[2] == "0"
    assert errors == ("ValNorm(Correcto:[] Em_Falta:[+99999999T9999E--LM-]) ",)


def test_hour_scores_hour_minute_and_limit_in_thirds() -> None:
    text, _ = scored(
        ' VAL_NORM="+--------T1806E--LM-"', ' VAL_NORM="+--------T1706E--LM-"', subtype="HORA"
    )
    assert points(text) == ("1", "1", "0.666667")
    assert labels(text) == "ValNorm(CorrectoP:[+--------T1806E--LM-] Em_Falta:[]) "


def test_hour_unknown_value_is_scored_field_by_field() -> None:
    # analyse_val_norm_hora's unknown-value test has one quote too many: it never fires,
    # so 99/99 hour and minute are compared as any others (2 of 3 here: the limit differs).
    text, _ = scored(
        ' VAL_NORM="+99999999T9999E--LM-"', ' VAL_NORM="+99999999T9999E--LMP"', subtype="HORA"
    )
    assert points(text)[2] == "0.666667"


def test_empty_gold_norm_is_right_only_against_an_empty_one() -> None:
    text, errors = scored(' VAL_NORM=""', ' VAL_NORM=""')
    assert points(text) == ("1", "1", "1")
    assert labels(text) == 'ValNorm(Correcto:[""] Em_Falta:[]) '
    text, errors = scored(' VAL_NORM=""', ' VAL_NORM="+2002----T----E--LM-"')
    assert points(text) == ("1", "1", "0")
    assert errors == ('ValNorm(Correcto:[] Em_Falta:[""]) ',)


# ---------------------------------------------------------------------------
# VAL_DELTA and durations, the unit rule and its quirk


def test_delta_in_other_units_is_the_same_delta() -> None:
    # One day as 24 hours: folded, 1·24·60 = 24·60 minutes (the cut-off is the hours).
    text, errors = scored(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D0H24M0S0"')
    assert points(text) == ("1", "1", "1")
    assert labels(text) == "ValDelta(Correcto:[A0M0S0D1H0M0S0] Em_Falta:[]) "
    # A week is 7 days (the weeks field is added, not multiplied through).
    text, _ = scored(' VAL_DELTA="A0M0S1D0H0M0S0"', ' VAL_DELTA="A0M0S0D7H0M0S0"')
    assert points(text)[2] == "1"


def test_the_first_cut_off_of_a_file_holds_for_every_later_comparison() -> None:
    first = record(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D2H0M0S0"')  # cut: days
    later = record(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D1H5M0S0"')  # 5 h more
    out = list(score_lines([(1, first), (2, later)], 1))
    assert points(out[0].text)[2] == "0"
    assert points(out[1].text)[2] == "1"  # the hours are finer than the first cut-off
    alone = list(score_lines([(1, later)], 1))
    assert points(alone[0].text)[2] == "0"  # in a file of its own the hours count
    assert [line.errors for line in out] == [
        ("1:ValDelta(Correcto:[] Em_Falta:[A0M0S0D1H0M0S0]) ",),
        (),
    ]


def test_a_missing_system_delta_reuses_the_previous_result() -> None:
    right = record(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D1H0M0S0"')
    bare = record(' VAL_DELTA="A0M0S0D3H0M0S0"', "")
    out = list(score_lines([(1, right), (2, bare)], 3))
    assert points(out[1].text) == ("1", "0", "1")  # credit, though the system has no value
    first = list(score_lines([(1, bare)], 3))
    assert points(first[0].text) == ("1", "0", "0")  # before any comparison: false


def test_duration_norm_uses_the_unit_rule() -> None:
    text, _ = scored(
        ' VAL_NORM="A0M0S0D1H0M0S0"', ' VAL_NORM="A0M0S0D0H24M0S0"', subtype="", tipo="DURACAO"
    )
    assert points(text) == ("1", "1", "1")
    assert labels(text) == "ValNorm(Correcto:[A0M0S0D1H0M0S0] Em_Falta:[]) "


def test_an_empty_gold_delta_stops_the_line_before_val_norm() -> None:
    text, _ = scored(
        ' VAL_DELTA="" VAL_NORM="+2002----T----E--LM-"',
        ' VAL_DELTA="" VAL_NORM="+2002----T----E--LM-"',
    )
    # The system's VAL_NORM and VAL_DELTA still count in its maximum (1 + 1).
    assert points(text) == ("1", "2", "1")
    assert labels(text) == 'ValDelta(Correcto:[""] Em_Falta:[]) '


# ---------------------------------------------------------------------------
# The opt-in corrections (documented departures from the 2008 program)


def test_the_missing_correction_scores_a_missing_value_zero() -> None:
    right = record(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D1H0M0S0"')
    bare = record(' VAL_DELTA="A0M0S0D3H0M0S0"', "")
    out = list(score_lines([(1, right), (2, bare)], 3, corrections=["missing"]))
    assert points(out[1].text) == ("1", "0", "0")
    assert out[1].errors == ("2:ValDelta(Correcto:[] Em_Falta:[A0M0S0D3H0M0S0]) ",)


def test_the_cut_off_correction_works_out_each_comparison_alone() -> None:
    first = record(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D2H0M0S0"')
    later = record(' VAL_DELTA="A0M0S0D1H0M0S0"', ' VAL_DELTA="A0M0S0D1H5M0S0"')
    out = list(score_lines([(1, first), (2, later)], 1, corrections=["cut-off"]))
    assert points(out[1].text)[2] == "0"  # five hours more is another delta


def test_the_empty_delta_correction_scores_val_norm_too() -> None:
    both = ' VAL_DELTA="" VAL_NORM="+2002----T----E--LM-"'
    line = record(both, both)
    (out,) = score_lines([(1, line)], 1, corrections=["empty-delta"])
    assert points(out.text) == ("2", "2", "2")
    assert labels(out.text) == (
        'ValDelta(Correcto:[""] Em_Falta:[]) ValNorm(Correcto:[+2002----T----E--LM-] Em_Falta:[]) '
    )


def test_an_unknown_correction_is_one_line(emir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tempo", str(emir), "--mode", "1", "--correct", "all"]) == 2
    assert "--correct: expected one of missing, cut-off, empty-delta" in _one_line(capsys, "tempo")


# ---------------------------------------------------------------------------
# Modes, other records, the rewrite


def test_modes_choose_the_attributes() -> None:
    gold = ' TEMPO_REF="ABSOLUTO" VAL_NORM="+2002----T----E--LM-"'
    assert points(scored(gold, gold, mode=1)[0]) == ("1.66667",) * 3
    assert points(scored(gold, gold, mode=2)[0]) == ("0.666667",) * 3
    assert points(scored(gold, gold, mode=3)[0]) == ("1",) * 3


def test_a_tempo_record_without_attributes_is_rewritten_with_no_points() -> None:
    line = record("", "", subtype="", tipo="FREQUENCIA").replace(
        "CSC(2.4875) Peso", "CSC(1.7999999999999998) Peso"
    )
    result = score_line(line, 1, DeltaState())
    assert result is not None
    assert "CSC(1.8) Peso(1.0)}]::[{MaxCSC_CD=MaxCSC_CD_class(2.4875)" in result.text
    assert result.text.endswith("CSC=CSC_class(1.7999999999999998)+CSC_tempo(0)}]")


def test_other_records_are_copied_or_dropped_with_tempo_only() -> None:
    other = record("", "").replace('CATEG="TEMPO"', 'CATEG="LOCAL"')
    lines = [(1, "#TEMPO"), (2, "DOC x"), (3, other), (4, ""), (5, "<ALT>")]
    assert [o.text for o in score_lines(lines, 1)] == ["#TEMPO", "DOC x", other, "", "<ALT>"]
    kept = [o.text for o in score_lines(lines, 1, tempo_only=True)]
    assert kept == ["#TEMPO", "DOC x", ""]


def test_rules_1_and_2_write_errors_even_on_a_line_they_do_not_rewrite() -> None:
    # A golden entity that is not TEMPO but has a TEMPO_REF (not in the collections, but
    # the awk's first rules look at any line): copied as read, its error still written.
    line = record(' TEMPO_REF="ABSOLUTO"', "").replace('CATEG="TEMPO"', 'CATEG="LOCAL"')
    (out,) = score_lines([(7, line)], 2)
    assert out.text == line
    assert out.errors == ("7:TempoRef(Correcto:[] Em_Falta:[ABSOLUTO]) ",)
    (dropped,) = score_lines([(7, line)], 2, tempo_only=True)
    assert dropped.text is None and dropped.errors == out.errors


def test_awk_numbers() -> None:
    assert awk_strtonum("2,4875") == 2.4875
    assert awk_strtonum("2.4875") == 2  # the locale's point is the comma
    assert awk_strtonum("--") == 0 and awk_strtonum("19--") == 19 and awk_strtonum("") == 0
    assert awk_equal("01", "1") and awk_equal("1,0", "1") and not awk_equal("1.0", "1")
    assert [awk_number(x) for x in (0.0, 3.0, 2 / 3, 4.954166666, 1234567.5)] == [
        "0",
        "3",
        "0.666667",
        "4.95417",
        "1.23457e+06",
    ]


# ---------------------------------------------------------------------------
# Bad input: one line, exit 2, nothing written


def _one_line(capsys: pytest.CaptureFixture[str], command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"harem {command}: error: ") and err.count("\n") == 1, err
    return err


@pytest.fixture
def emir(tmp_path: Path) -> Path:
    path = tmp_path / "run.emir"
    lines = ["#TEMPO", "DOC x", record(' TEMPO_REF="ABSOLUTO"', ' TEMPO_REF="TEXTUAL"'), ""]
    path.write_text("\n".join(lines), encoding="latin-1")
    return path


def test_the_command_writes_the_tempo_file_and_the_side_file(emir: Path) -> None:
    assert main(["tempo", str(emir), "--mode", "1"]) == 0
    tempo = emir.with_name("run.emir.tempo")
    assert "TempoRef(Correcto:[] Em_Falta:[ABSOLUTO]) " in tempo.read_text(encoding="latin-1")
    errors = emir.with_name("run.emir.ERROS.txt").read_text(encoding="latin-1")
    assert errors == "3:TempoRef(Correcto:[] Em_Falta:[ABSOLUTO]) \n"


@pytest.mark.parametrize("mode", ["4", "0", "x", "completo"])
def test_an_unknown_mode_is_one_line(
    emir: Path, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tempo", str(emir), "--mode", mode]) == 2
    err = _one_line(capsys, "tempo")
    assert "--mode: expected one of 1 (completo), 2 (semnorm), 3 (sonorm)" in err
    assert not emir.with_name("run.emir.tempo").exists()


def test_a_non_emir_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alts = tmp_path / "run.veu.alts"
    gold = '<EM ID="g" CATEG="TEMPO" TEMPO_REF="ABSOLUTO">ontem</EM>'
    alts.write_text(f"#TEMPO\nDOC x\n{gold} ---> [{gold}]:[Correcto]\n", encoding="latin-1")
    assert main(["tempo", str(alts), "--mode", "1"]) == 2
    err = _one_line(capsys, "tempo")
    assert "run.veu.alts, line 3: expected Emir evaluation items" in err
    assert not (tmp_path / "run.veu.alts.tempo").exists()


def test_a_tempo_file_is_not_an_input_of_tempo(
    emir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tempo", str(emir), "--mode", "1"]) == 0
    tempo = emir.with_name("run.emir.tempo")
    assert main(["tempo", str(tempo), "--mode", "1", "-o", str(emir.with_name("x"))]) == 2
    err = _one_line(capsys, "tempo")
    assert (
        "run.emir.tempo, line 3: expected an Emir record (.emir or .altrel), found a record" in err
    )


def test_ida_of_a_tempo_line_without_its_block_is_one_line(
    emir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = emir.with_name("bad.emir.tempo")
    bad.write_bytes(emir.read_bytes())  # the Emir file under a .tempo name: no block
    assert main(["ida", str(bad), "--bootstrap", "0"]) == 2
    err = _one_line(capsys, "ida")
    assert "bad.emir.tempo, line 3: expected a TEMPO record ending in AvalTEMPO's block" in err
    assert not bad.with_name("bad.emir.tempo.ida").exists()


def test_ida_of_a_broken_block_is_one_line(emir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tempo", str(emir), "--mode", "1"]) == 0
    tempo = emir.with_name("run.emir.tempo")
    text = tempo.read_text(encoding="latin-1").replace("+CSC_tempo(", "+CSC_tmp(")
    tempo.write_text(text, encoding="latin-1")
    assert main(["ida", str(tempo), "--bootstrap", "0"]) == 2
    assert "run.emir.tempo, line 3: expected AvalTEMPO's block" in _one_line(capsys, "ida")


def test_the_side_file_is_never_the_input(emir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = emir.read_bytes()
    assert main(["tempo", str(emir), "--mode", "1", "--errors", str(emir)]) == 2
    assert "--errors: expected a file other than the input" in _one_line(capsys, "tempo")
    assert emir.read_bytes() == before and not emir.with_name("run.emir.tempo").exists()


def test_to_standard_output_the_side_file_is_beside_the_input(
    emir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["tempo", str(emir), "--mode", "2", "-o", "-"]) == 0
    assert "TempoRef(Correcto:[] Em_Falta:[ABSOLUTO])" in capsys.readouterr().out
    assert emir.with_name("run.emir.ERROS.txt").is_file() and not list(elsewhere.iterdir())
