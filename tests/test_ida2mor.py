"""Ida2Mor: hand-computed figures for a First HAREM style run, both scenarios, properties.

The run below is a Véus result written by hand in the First HAREM style
(ISO-8859-1, CRLF, ``HAREM-…`` document lines, category tags, ``:``
marker).  It exercises every outcome word, a missing, a spurious, two
ignored records and an ALT block, and goes through the whole chain
``harem vizir`` → ``harem altmor`` → ``harem ida2mor``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.cli.names import run_from_name, scenario_from_name, subset_from_name
from harem_pipeline.errors import InputError
from harem_pipeline.formats.vizir import MorphScore, Outcome
from harem_pipeline.measures.morphology import measures_from_counts
from harem_pipeline.model import Scenario
from harem_pipeline.reports.ida2mor import format_ida2mor_text
from harem_pipeline.stages.ida2mor import (
    FieldCounts,
    MorphologyCounts,
    MorphologyTotals,
    count_morphology,
    outcome_row,
)
from harem_pipeline.stages.tally import DocumentCounts, from_row
from harem_pipeline.stages.vizir import (
    Alignment,
    counts_for_system,
    evaluated_entity,
    judge_alignment,
)
from tests.helpers.cases import raw_lines, read_case
from tests.helpers.strategies import ALIGNMENT_LISTS

PCD = "Parcialmente_Correcto_por_Defeito"
PCE = "Parcialmente_Correcto_por_Excesso"

# Record numbers in the comments are used by the hand computations below.
RUN = [
    '#CATEGORIA1=["TIPO1"]; CATEGORIA2=["TIPO2"]',
    "HAREM-111-00001 PT Jornal",
    # 1: F,S = F,S, identified Correcto → C C C
    '<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Lisboa</LOCAL> ---> '
    '[<LOCAL TIPO="ADMINISTRATIVO" MORF="F,S">Lisboa</LOCAL>]:[Correcto]',
    # 2: M,S vs M,P, partial → G PC, N Incorrecto, comb Incorrecto
    '<PESSOA TIPO="INDIVIDUAL" MORF="M,S">João Silva</PESSOA> ---> '
    f'[<PESSOA TIPO="INDIVIDUAL" MORF="M,P">João</PESSOA>]:[{PCD}(0.25; 0.75)]',
    # 3: ?,? vs M,P, partial → PSE PSE Incorrecto
    '<LOCAL TIPO="ALARGADO" MORF="?,?">Cais do Porto</LOCAL> ---> '
    '[<LOCAL TIPO="ALARGADO" MORF="M,P">Cais</LOCAL>]:'
    f"[{PCD}(0.16666666666666666; 0.8333333333333334)]",
    # 4: ?,S vs M,S, Correcto → SE C Incorrecto
    '<LOCAL TIPO="ADMINISTRATIVO" MORF="?,S">Setúbal</LOCAL> ---> '
    '[<LOCAL TIPO="ADMINISTRATIVO" MORF="M,S">Setúbal</LOCAL>]:[Correcto]',
    # 5: missing → abs EF EF EF (CD yes, system no); rel excluded
    '<PESSOA TIPO="INDIVIDUAL" MORF="M,S">Peri</PESSOA> ---> [null]:[Em_Falta]',
    # 6: spurious with F,S → abs Espúrio ×3 (CD no, system yes); rel excluded
    "<ESPURIO>Embratur</ESPURIO> ---> "
    '[<ORGANIZACAO TIPO="EMPRESA" MORF="F,S">Embratur</ORGANIZACAO>]:[Espúrio]',
    "HAREM-222-00002 BR Web",
    # 7: M,S vs ?,? → EF EF EF, but the entity has MORF: counted for the system
    '<LOCAL TIPO="ADMINISTRATIVO" MORF="M,S">Próximo Oriente</LOCAL> ---> '
    '[<ORGANIZACAO TIPO="INSTITUICAO" MORF="?,?">Próximo Oriente</ORGANIZACAO>]:[Correcto]',
    # 8: no MORF on the system side → EF EF EF, not counted for the system
    '<LOCAL TIPO="ADMINISTRATIVO" MORF="M,S">Brasil</LOCAL> ---> '
    f'[<LOCAL TIPO="ADMINISTRATIVO">o Brasil</LOCAL>]:[{PCE}(0.25; 0.75)]',
    # 9: F,S = F,S, partial → PC PC PC
    '<ORGANIZACAO TIPO="SUB" MORF="F,S">Secretaria Geral</ORGANIZACAO> ---> '
    '[<ORGANIZACAO TIPO="SUB" MORF="F,S">Secretaria Geral da Escola</ORGANIZACAO>]:'
    f"[{PCE}(0.25; 0.75)]",
    # 10: ?,S vs ?,? → C EF EF
    '<OBRA TIPO="PRODUTO" MORF="?,S">The Artic</OBRA> ---> '
    '[<OBRA TIPO="REPRODUZIDA" MORF="?,?">The Artic</OBRA>]:[Correcto]',
    # 11: gold without MORF → ignored in both scenarios
    '<ORGANIZACAO TIPO="EMPRESA">Embratur</ORGANIZACAO> ---> '
    '[<ORGANIZACAO TIPO="EMPRESA" MORF="M,S">Embratur</ORGANIZACAO>]:[Correcto]',
    # 12: spurious with ?,? → ignored in both scenarios
    '<ESPURIO>Coisa</ESPURIO> ---> [<COISA TIPO="OBJECTO" MORF="?,?">Coisa</COISA>]:[Espúrio]',
    # 13: F,P vs M,S, Correcto → Incorrecto ×3
    '<ORGANIZACAO TIPO="SUB" MORF="F,P">Relações Públicas</ORGANIZACAO> ---> '
    '[<ABSTRACCAO TIPO="DISCIPLINA" MORF="M,S">Relações Públicas</ABSTRACCAO>]:[Correcto]',
    # 14: ALT block; ALT1 (C C C) beats ALT2 (PC, and EF by the first-atom rule)
    "<ALT>",
    "<ALT1>",
    '<ACONTECIMENTO TIPO="EVENTO" MORF="M,S">Aves-Campomaiorense</ACONTECIMENTO> ---> '
    '[<ACONTECIMENTO TIPO="EVENTO" MORF="M,S">Aves-Campomaiorense</ACONTECIMENTO>]:[Correcto]',
    "</ALT1>",
    "<ALT2>",
    '<ORGANIZACAO TIPO="CLUBE" MORF="M,S">Aves</ORGANIZACAO> ---> '
    '[<ACONTECIMENTO TIPO="EVENTO" MORF="M,S">Aves-Campomaiorense</ACONTECIMENTO>]:'
    f"[{PCE}(0.25; 0.75)]",
    '<ORGANIZACAO TIPO="CLUBE" MORF="M,S">Campomaiorense</ORGANIZACAO> ---> '
    '[<ACONTECIMENTO TIPO="EVENTO" MORF="M,S">Aves-Campomaiorense</ACONTECIMENTO>]:'
    f"[{PCE}(0.25; 0.75)]",
    "</ALT2>",
    "</ALT>",
    '<VERIFICACAO_MANUAL> <LOCAL MORF="F,S">Faro</LOCAL> ---> [null] </VERIFICACAO_MANUAL>',
]

# Scored records after AltinaMor, per field (records 11 and 12 ignored):
#        1  2    3    4   5   6    7   8   9   10  13   14
# Gén.   C  PC   PSE  SE  EF  ESP  EF  EF  PC  C   INC  C
# Núm.   C  INC  PSE  C   EF  ESP  EF  EF  PC  EF  INC  C
# Comb.  C  INC  INC  INC EF  ESP  EF  EF  PC  EF  INC  C
# Total na CD (absolute): the 12 scored records but the spurious one (6) = 11.
# Total classificadas pelo sistema (absolute): 1 2 3 4 6 7 9 10 13 14 = 10
# (5 is missing, 8's system entity has no MORF).
# Relative: 5 and 6 are excluded → 10 records, CD 10, system 9.
ABSOLUTE = {
    "genero": {
        # C 1,10,14; PC 2,9; INC 13; EF 5,7,8; ESP 6; SE 4; PSE 3
        "counts": [3, 2, 1, 3, 1, 1, 1],
        "total_cd": 11,
        "total_sistema": 10,
        "pontuacao": 4.0,  # 3 + 2·0.5
        "precisao": 4 / 10,
        "abrangencia": 4 / 11,
        "medida_f": 8 / 21,  # 2·(4/10)(4/11)/((4/10)+(4/11)) = 2·4/(10+11)
        "sobre_especificacao": 2 / 10,  # (SE + PSE) / system
        "sobre_geracao": 1 / 10,
        "sub_geracao": 3 / 11,
    },
    "numero": {
        # C 1,4,14; PC 9; INC 2,13; EF 5,7,8,10; ESP 6; SE 0; PSE 3
        "counts": [3, 1, 2, 4, 1, 0, 1],
        "total_cd": 11,
        "total_sistema": 10,
        "pontuacao": 3.5,
        "precisao": 3.5 / 10,
        "abrangencia": 3.5 / 11,
        "medida_f": 7 / 21,  # 2·3.5/(10+11)
        "sobre_especificacao": 1 / 10,
        "sobre_geracao": 1 / 10,
        "sub_geracao": 4 / 11,
    },
    "combinada": {
        # C 1,14; PC 9; INC 2,3,4,13; EF 5,7,8,10; ESP 6
        "counts": [2, 1, 4, 4, 1, 0, 0],
        "total_cd": 11,
        "total_sistema": 10,
        "pontuacao": 2.5,
        "precisao": 2.5 / 10,
        "abrangencia": 2.5 / 11,
        "medida_f": 5 / 21,  # 2·2.5/(10+11)
        "sobre_especificacao": 0.0,
        "sobre_geracao": 1 / 10,
        "sub_geracao": 4 / 11,
    },
}
RELATIVE = {
    "genero": {
        # as absolute without 5 (EF) and 6 (ESP)
        "counts": [3, 2, 1, 2, 0, 1, 1],
        "total_cd": 10,
        "total_sistema": 9,
        "pontuacao": 4.0,
        "precisao": 4 / 9,
        "abrangencia": 4 / 10,
        "medida_f": 8 / 19,  # 2·4/(9+10)
        "sobre_especificacao": 2 / 9,
        "sobre_geracao": 0.0,
        "sub_geracao": 2 / 10,
    },
    "numero": {
        "counts": [3, 1, 2, 3, 0, 0, 1],
        "total_cd": 10,
        "total_sistema": 9,
        "pontuacao": 3.5,
        "precisao": 3.5 / 9,
        "abrangencia": 3.5 / 10,
        "medida_f": 7 / 19,
        "sobre_especificacao": 1 / 9,
        "sobre_geracao": 0.0,
        "sub_geracao": 3 / 10,
    },
    "combinada": {
        "counts": [2, 1, 4, 3, 0, 0, 0],
        "total_cd": 10,
        "total_sistema": 9,
        "pontuacao": 2.5,
        "precisao": 2.5 / 9,
        "abrangencia": 2.5 / 10,
        "medida_f": 5 / 19,
        "sobre_especificacao": 0.0,
        "sobre_geracao": 0.0,
        "sub_geracao": 3 / 10,
    },
}
COUNT_KEYS = [
    "correcto",
    "parcialmente_correcto",
    "incorrecto",
    "em_falta",
    "espurio",
    "sobre_especificado",
    "parcialmente_sobre_especificado",
]


def expected_json(fields: dict) -> dict:
    return {
        key: {**{k: v for k, v in value.items() if k != "counts"}}
        | {"counts": dict(zip(COUNT_KEYS, value["counts"], strict=True))}
        for key, value in fields.items()
    }


def write_run(folder: Path, scenario: str) -> Path:
    source = folder / f"sys1.alinhado.avalida.pt.jornalistico.{scenario}"
    source.write_bytes(("\r\n".join(RUN) + "\r\n").encode("iso-8859-1"))
    return source


@pytest.mark.parametrize(("scenario", "expected"), [("abs", ABSOLUTE), ("rel", RELATIVE)])
def test_first_harem_chain_hand_computed(tmp_path: Path, scenario: str, expected: dict) -> None:
    source = write_run(tmp_path, scenario)
    assert main(["vizir", str(source), f"-{scenario}"]) == 0
    vizir = source.with_name(source.name + ".vizir")
    assert main(["altmor", str(vizir)]) == 0
    altmor = source.with_name(source.name + ".altmor")
    assert b"# ALT escolhida: 1 de 2\r\n" in altmor.read_bytes()
    assert main(["ida2mor", str(altmor)]) == 0
    report = source.with_name(source.name + ".ida2mor")
    data = json.loads(report.with_name(report.name + ".json").read_text(encoding="utf-8"))
    assert data["scenario"] == {"abs": "absolute", "rel": "relative"}[scenario]
    assert data["run"] == "sys1" and data["subset"] == "pt.jornalistico"
    assert (
        f"|subset:pt.jornalistico|scenario:{scenario}|style:harem|veil:*|alt:best|boot:1000|seed:12345"
        in data["signature"]
    )
    intervals = {key: field.pop("ci95") for key, field in data["fields"].items()}
    assert data["fields"] == expected_json(expected)
    for interval in intervals.values():  # the values are tested in test_ci95.py
        assert list(interval) == ["precisao", "abrangencia", "medida_f"]
    # The text report is in the input's encoding (ISO-8859-1) and carries the same figures.
    text = report.read_bytes().decode("iso-8859-1")
    assert f"Assinatura: {data['signature']}\n" in text
    assert "Cenário: " + {"abs": "absoluto", "rel": "relativo"}[scenario] in text


def test_text_report_absolute_block(tmp_path: Path) -> None:
    source = write_run(tmp_path, "abs")
    assert main(["vizir", str(source), "-abs"]) == 0
    assert main(["altmor", str(source) + ".vizir"]) == 0
    out = tmp_path / "report.txt"
    assert main(["ida2mor", str(source) + ".altmor", "-o", str(out), "--signature", "SIG"]) == 0
    text = out.read_text(encoding="iso-8859-1")
    # Header, then the Género block exactly (figures as in ABSOLUTE, Java-style reals).
    assert text.startswith(
        "Avaliação Global - Classificação Morfológica\n"
        "Execução: sys1\nSubconjunto: pt.jornalistico\nCenário: absoluto\nAssinatura: SIG\n\n"
        "Género:\nCorrecto: 3\nParcialmente Correcto: 2\nIncorrecto: 1\nEm Falta: 3\n"
        "Espúrio: 1\nSobre especificado: 1\nParcialmente sobre especificado: 1\n"
        "Total na CD: 11\nTotal classificadas pelo sistema: 10\nPontuação: 4.0\n"
        "Precisão: 0.4\nAbrangência: 0.36363636363636365\nMedida F: 0.38095238095238093\n"
        "Sobre-especificação: 0.2\nSobre-geração: 0.1\nSub-geração: 0.2727272727272727\n\n"
        "Número:\n"
    )
    assert text.endswith(
        "Sobre-especificação: 0.0\nSobre-geração: 0.1\nSub-geração: 0.36363636363636365\n"
    )
    assert json.loads((tmp_path / "report.txt.json").read_text())["signature"] == "SIG"


def test_per_document_breakdown(tmp_path: Path) -> None:
    source = write_run(tmp_path, "abs")
    assert main(["vizir", str(source), "-abs"]) == 0
    assert main(["altmor", str(source) + ".vizir"]) == 0
    lines = raw_lines((tmp_path / (source.name + ".altmor")).read_text(encoding="iso-8859-1"))
    counts = count_morphology(lines)
    docs = {doc.docid: doc.counts.combinada for doc in counts.documents}
    # Document 1 holds records 1–6: C 1; INC 2,3,4; EF 5; ESP 6; CD 5 (not 6); system 1,2,3,4,6.
    assert docs["HAREM-111-00001"] == FieldCounts(1, 0, 3, 1, 1, 0, 0, 5, 5)
    # Document 2 holds 7,8,9,10,13,14: C 14; PC 9; INC 13; EF 7,8,10; CD 6; system 7,9,10,13,14.
    assert docs["HAREM-222-00002"] == FieldCounts(1, 1, 1, 3, 0, 0, 0, 6, 5)
    assert MorphologyCounts.from_documents(counts.documents) == counts


def test_undefined_ratios_are_null_and_dash(tmp_path: Path) -> None:
    # Only a spurious record: Total na CD = 0, so Abrangência and Sub-geração are
    # undefined and so is Medida F; Precisão = 0/1 = 0.
    source = tmp_path / "only.altmor"
    source.write_text(
        '<ESPURIO>X</ESPURIO> ---> [<EM MORF="F,S">X</EM>]:'
        "[(Género: Espúrio 0) (Número: Espúrio 0) (Combinada: Espúrio 0)]\n",
        encoding="utf-8",
    )
    assert main(["ida2mor", str(source), "-abs"]) == 0
    data = json.loads((tmp_path / "only.ida2mor.json").read_text(encoding="utf-8"))
    field = data["fields"]["combinada"]
    assert field["precisao"] == 0.0 and field["sobre_geracao"] == 1.0
    assert field["abrangencia"] is None and field["medida_f"] is None
    assert field["sub_geracao"] is None
    text = (tmp_path / "only.ida2mor").read_text(encoding="utf-8")
    assert "Abrangência: -\n" in text and "Medida F: -\n" in text


def test_f_is_zero_when_p_and_r_are_zero() -> None:
    measures = measures_from_counts(FieldCounts(incorrect=2, total_cd=2, total_system=2))
    assert (measures.precisao, measures.abrangencia, measures.medida_f) == (0.0, 0.0, 0.0)
    empty = measures_from_counts(FieldCounts())
    assert empty == type(empty)(None, None, None, None, None, None)


def test_alt_lines_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="line 1: expected an .altmor file"):
        count_morphology(raw_lines("<ALT>\n"), "x.vizir")


def test_scenario_must_be_known(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "run.altmor"
    source.write_text("", encoding="utf-8")
    assert main(["ida2mor", str(source)]) == 2
    assert "expected a scenario (a '# Cenário:' line, .abs/.rel in the name, or -abs/-rel)" in (
        capsys.readouterr().err
    )
    assert main(["ida2mor", str(tmp_path / "missing.altmor"), "-rel"]) == 2
    assert "missing.altmor: expected an existing file" in capsys.readouterr().err


def test_names() -> None:
    name = "sys1.alinhado.avalida.pt.jornalistico.rel.vizir.altmor"
    assert scenario_from_name(name) is Scenario.RELATIVE
    assert subset_from_name(name) == "pt.jornalistico"
    assert run_from_name(name) == "sys1"
    assert scenario_from_name("x.total.vizir") is None
    assert subset_from_name("x.vizir", default=None) is None
    assert subset_from_name("x.vizir") == "total"


# ---------------------------------------------------------------------------
# Properties over random records


def tally(alignments: list[Alignment], scenario: Scenario) -> MorphologyCounts:
    total = MorphologyTotals()
    for alignment in alignments:
        score = judge_alignment(alignment, scenario)
        if score is not None:
            index = evaluated_entity(alignment)
            in_system = counts_for_system(alignment, index)
            row = outcome_row(score, not alignment.spurious, in_system)
            total = total + from_row(MorphologyTotals, row)
    return MorphologyCounts.from_documents([DocumentCounts("d", total)])


@settings(derandomize=True, deadline=None, max_examples=200)
@given(ALIGNMENT_LISTS)
def test_relative_totals_never_exceed_absolute(alignments: list[Alignment]) -> None:
    absolute = tally(alignments, Scenario.ABSOLUTE)
    relative = tally(alignments, Scenario.RELATIVE)
    for key in ("genero", "numero", "combinada"):
        a, r = absolute.field(key), relative.field(key)
        assert r.total_cd <= a.total_cd and r.total_system <= a.total_system
        assert r.records <= a.records
        assert r.score == a.score  # only zero-score records are excluded
    # Count conservation: every scored record has one outcome in each field.
    for counts in (absolute, relative):
        records = {counts.field(key).records for key in ("genero", "numero", "combinada")}
        assert len(records) == 1
        assert counts.field("genero").records == sum(
            judge_alignment(a, Scenario.ABSOLUTE if counts is absolute else Scenario.RELATIVE)
            is not None
            for a in alignments
        )


@settings(derandomize=True, deadline=None, max_examples=200)
@given(ALIGNMENT_LISTS, st.sampled_from(list(Scenario)))
def test_measures_are_proportions(alignments: list[Alignment], scenario: Scenario) -> None:
    counts = tally(alignments, scenario)
    combined = counts.field("combinada")
    for key in ("genero", "numero", "combinada"):
        field = counts.field(key)
        assert combined.score <= field.score
        assert field.score <= min(field.total_cd, field.total_system)
        m = measures_from_counts(field)
        for value in (m.precisao, m.abrangencia, m.medida_f, m.sobre_especificacao):
            assert value is None or 0.0 <= value <= 1.0
        for value in (m.sobre_geracao, m.sub_geracao):
            assert value is None or 0.0 <= value <= 1.0


@settings(derandomize=True, deadline=None)
@given(ALIGNMENT_LISTS)
def test_scores_only_take_zero_half_one(alignments: list[Alignment]) -> None:
    for alignment in alignments:
        for scenario in Scenario:
            score = judge_alignment(alignment, scenario)
            if score is not None:
                assert isinstance(score, MorphScore)
                for outcome in (score.gender, score.number, score.combined):
                    assert outcome.score in {Fraction(0), Fraction(1, 2), Fraction(1)}
                    assert isinstance(outcome, Outcome)


def test_text_report_renders_counts_only() -> None:
    # A report is a function of counts and signature: same counts, same text.
    counts = MorphologyCounts.from_documents([])
    text = format_ida2mor_text(counts, Scenario.RELATIVE, "S")
    assert "Cenário: relativo\nAssinatura: S\n" in text
    assert text.count("Precisão: -\n") == 3


# Whether each numbered example of the original adds one to "Total
# classificadas pelo sistema" (and to "Total na CD"), as its comment says:
# 3 — only the first entity (Hotel Lisboa) counts, the second is not counted;
# 5 — first atom A ≠ REPORTAGEM: nothing evaluated, nothing counted;
# 7 — spurious: counted for the system, not in the CD;
# 8 — "não é contabilizado para o número total de EMs classificadas pelo sistema";
# 9 — no MORF: "não é contabilizado pelo ida2mor";
# 11 — MORF="?,?": "é contabilizado pelo ida2mor".
SYSTEM_TOTAL_BY_EXAMPLE = {
    1: (1, 1), 2: (1, 1), 3: (1, 1), 4: (1, 1), 5: (0, 1), 6: (1, 1),
    7: (1, 0), 8: (0, 1), 9: (0, 1), 10: (1, 1), 11: (1, 1),
}  # fmt: skip
CASES = Path(__file__).parent / "cases" / "vizir"


@pytest.mark.parametrize("number", sorted(SYSTEM_TOTAL_BY_EXAMPLE))
def test_totals_of_the_numbered_examples(number: int) -> None:
    case = read_case(CASES / f"example-{number:02d}.txt")
    assert case.expected
    last = case.expected[-1]  # the example's own record
    counts = count_morphology(raw_lines(last + "\n")).field("combinada")
    assert (counts.total_system, counts.total_cd) == SYSTEM_TOTAL_BY_EXAMPLE[number]


def test_replacing_the_half_credit_moves_pontuacao_and_the_f_measure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One rule, one function: formats.vizir.morph_credit is what the printed
    # Pontuação and the F measure both read; 1 + 2 x 1/2 = 2 by
    # docs/spec/vizir-altinamor-ida2mor.md §5.
    import harem_pipeline.formats.vizir as vizir_format

    field = FieldCounts(correct=1, partially_correct=2, incorrect=1, total_cd=4, total_system=4)
    counts = MorphologyCounts(MorphologyTotals(field, field, field), ())

    def figures() -> tuple[str, float | None]:
        text = format_ida2mor_text(counts, Scenario.ABSOLUTE, "SIG")
        (pontuacao,) = {line for line in text.splitlines() if line.startswith("Pontuação")}
        return pontuacao, measures_from_counts(field).medida_f

    assert figures() == ("Pontuação: 2.0", 0.5)
    monkeypatch.setattr(
        vizir_format, "morph_credit", lambda correct, partial: correct + partial / 4
    )
    assert figures() == ("Pontuação: 1.5", 0.375)
