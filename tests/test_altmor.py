"""AltinaMor: the best CD alternative of each ALT block, with every tie-break.

The rules are docs/spec/vizir-altinamor-ida2mor.md §4.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.pipeline.naming import stage_output
from harem_pipeline.stages.altmor import AltTally, choose_alternative, choose_lines
from tests.helpers.cases import raw_lines

V = "[(Género: {0}) (Número: {0}) (Combinada: {0})]"
C, PC, EF, ESP = "Correcto 1", "Parcialmente Correcto 0.5", "Em Falta 0", "Espúrio 0"
INC = "Incorrecto 0"


def rec(gold: str, system: str | None, verdict: str, morf: str = "M,S") -> str:
    """One ``.vizir`` record line; the gold/system text decides the first-atom rule."""
    sys_side = "[null]" if system is None else f'[<EM MORF="{morf}">{system}</EM>]'
    gold_side = f"<ESPURIO>{gold}</ESPURIO>" if verdict == ESP else f'<EM MORF="M,S">{gold}</EM>'
    return f"{gold_side} ---> {sys_side}:{V.format(verdict)}"


def block(*alternatives: list[str]) -> list[str]:
    lines = ["<ALT>"]
    for k, records in enumerate(alternatives, start=1):
        lines += [f"<ALT{k}>", *records, f"</ALT{k}>"]
    return [*lines, "</ALT>"]


def run(lines: list[str], path: str = "f.vizir") -> list[str]:
    batches = choose_lines(raw_lines("\n".join(lines)), path)
    written = "".join(text for batch in batches for text in batch)
    return written.split("\n")[:-1]


AVES_ALT1 = (
    '<EM MORF="M,S">Aves-Campomaiorense</EM> ---> [<EM MORF="M,S">Aves-Campomaiorense</EM>]:'
    "[(Género: Correcto 1) (Número: Correcto 1) (Combinada: Correcto 1)]"
)
AVES_ALT2 = [
    '<EM MORF="M,S">Aves</EM> ---> [<EM MORF="M,S">Aves-Campomaiorense</EM>]:'
    "[(Género: Parcialmente Correcto 0.5) (Número: Parcialmente Correcto 0.5) "
    "(Combinada: Parcialmente Correcto 0.5)]",
    '<EM MORF="M,S">Campomaiorense</EM> ---> [<EM MORF="M,S">Aves-Campomaiorense</EM>]:'
    "[(Género: Em Falta 0) (Número: Em Falta 0) (Combinada: Em Falta 0)]",
]


def test_aves_campomaiorense_alt1_wins(tmp_path: Path) -> None:
    # The original's ALT example (Vizir output as printed).  By hand:
    # ALT1: S=1, G=1, Y=1 → P=(1+1)/(1+1)=1, R=1, F=1.
    # ALT2: S=0.5 (Aves PC), G=2, Y=1 (Campomaiorense fails the first-atom
    # rule, so its system entity is not counted) → P=1.5/2=0.75, R=1.5/3=0.5,
    # F=2·0.75·0.5/1.25=0.6.  ALT1 wins.
    source = tmp_path / "x.vizir"
    text = "\n".join(["HAREM-251-04443 PT Web", *block([AVES_ALT1], AVES_ALT2), "EOD"]) + "\n"
    source.write_text(text, encoding="iso-8859-1")
    assert main(["altmor", str(source)]) == 0
    out = tmp_path / "x.altmor"
    assert stage_output("altmor", source) == out
    assert out.read_bytes() == (
        "HAREM-251-04443 PT Web\n# ALT escolhida: 1 de 2\n" + AVES_ALT1 + "\nEOD\n"
    ).encode("iso-8859-1")


def test_aves_tallies() -> None:
    alt1 = AltTally(Fraction(1), 1, 1, 0, 1)
    alt2 = AltTally(Fraction(1, 2), 2, 1, 1, 2)
    assert alt1.f_measure == 1
    assert alt2.precision == Fraction(3, 4) and alt2.recall == Fraction(1, 2)
    assert alt2.f_measure == Fraction(3, 5)
    assert alt2.error == Fraction(1, 3)
    assert choose_alternative([alt1, alt2]) == 0


def test_tie_on_f_lower_error_wins() -> None:
    # ALT1 {PC, PC}: S=1, G=2, Y=2 → P=R=2/3, F=2/3; errors 0 → error 0/3.
    # ALT2 {C, INC}: S=1, G=2, Y=2 → F=2/3; errors 1 → error 1/3.
    # Same F and records: the lower error (ALT1) wins over the later one.
    alt1 = [rec("A", "A", PC), rec("B", "B", PC)]
    alt2 = [rec("A", "A", C), rec("B", "B", INC)]
    assert run(block(alt1, alt2)) == ["# ALT escolhida: 1 de 2", *alt1]


def test_tie_on_f_and_error_more_records_win() -> None:
    # ALT1 {C, C}: S=2, G=2, Y=2 → F=1, error 0/3, 2 records.
    # ALT2 {C}: S=1, G=1, Y=1 → F=1, error 0/2, 1 record.  ALT1: more records.
    alt1 = [rec("A", "A", C), rec("B", "B", C)]
    alt2 = [rec("AB", "AB", C)]
    assert run(block(alt1, alt2)) == ["# ALT escolhida: 1 de 2", *alt1]


def test_full_tie_later_alternative_wins() -> None:
    # ALT1 and ALT2 {C} tie in everything → ALT2 (the later); ALT3 {PC}:
    # S=0.5, G=Y=1 → P=R=0.75, F=0.75 < 1.
    alt1, alt2, alt3 = [rec("A", "A", C)], [rec("A", "A", C)], [rec("A", "A", PC)]
    assert run(block(alt1, alt2, alt3)) == ["# ALT escolhida: 2 de 3", *alt2]


def test_spurious_and_missing_in_alternatives() -> None:
    # ALT1 {C, missing}: S=1, G=2, Y=1 → P=1, R=2/3, F=0.8, error 1/3.
    # ALT2 {C, spurious}: S=1, G=1, Y=2 → P=2/3, R=1, F=0.8, error 1/3.
    # Tie on F, error and records (2 each): the later one, ALT2.
    alt1 = [rec("A", "A", C), rec("B", None, EF)]
    alt2 = [rec("A", "A", C), rec("X", "X", ESP, morf="F,S")]
    assert run(block(alt1, alt2)) == ["# ALT escolhida: 2 de 2", *alt2]


def test_empty_alternative_competes() -> None:
    # A relative-scenario file may leave an alternative empty (its records were
    # excluded): S=G=Y=0 → F=1, error 0, 0 records.  Against {C} (F=1, error 0,
    # 1 record) it loses on the record count.
    alt2 = [rec("A", "A", C)]
    assert run(block([], alt2)) == ["# ALT escolhida: 2 de 2", *alt2]
    assert run(block([], [rec("A", "A", PC)])) == ["# ALT escolhida: 1 de 2"]


def test_records_outside_blocks_unchanged() -> None:
    lines = ["DOC d", rec("A", "A", INC), *block([rec("B", "B", C)]), rec("C", None, EF), "EOD"]
    assert run(lines) == [
        "DOC d",
        rec("A", "A", INC),
        "# ALT escolhida: 1 de 1",
        rec("B", "B", C),
        rec("C", None, EF),
        "EOD",
    ]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ["<ALT>", "<ALT1>", rec("A", "A", C), "</ALT1>"],
            "line 1: expected </ALT> closing the block, found end of file",
        ),
        (["<ALT1>", "</ALT1>"], "line 1: expected <ALT> before an alternative, found <ALT1>"),
        (
            ["<ALT>", "<ALT1>", "</ALT2>", "</ALT>"],
            "line 3: expected a well-nested <ALT><ALTn>…</ALTn>…</ALT> block, found </ALT2>",
        ),
        (["<ALT>", rec("A", "A", C), "</ALT>"], "line 2: expected a record inside <ALTn>"),
        (["<ALT>", "<ALT>"], "line 2: expected a well-nested <ALT><ALTn>…</ALTn>…</ALT> block"),
    ],
)
def test_bad_alt_structure(lines: list[str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        run(lines)


def test_bad_verdict_through_main(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "bad.vizir"
    source.write_text(
        "<ALT>\n<ALT1>\n"
        '<EM MORF="M,S">A</EM> ---> [null]:[(Género: Correcto 0) (Número: Em Falta 0) '
        "(Combinada: Em Falta 0)]\n</ALT1>\n</ALT>\n",
        encoding="utf-8",
    )
    assert main(["altmor", str(source)]) == 2
    assert capsys.readouterr().err == (
        f"harem altmor: error: {source}, line 3: expected score 1 for Correcto, found 0\n"
    )
    assert not (tmp_path / "bad.altmor").exists()
