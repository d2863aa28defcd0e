"""AvalIDa: identification verdicts equal to the 2010 Java program's, line for line."""

from __future__ import annotations

import difflib
import gzip
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import Record, Tag, parse_line
from harem_pipeline.pipeline.identification import run_avalida
from harem_pipeline.stages import avalida
from harem_pipeline.stages.avalida import (
    evaluate_record,
    intersection_size,
    is_correct,
    judge_texts,
    partial_weight,
)
from harem_pipeline.text.atoms import atoms

REFERENCE_CASES = [
    ("exemplo0", "total_muc"),
    ("exemplo1", "total_muc"),
    ("exemplo1", "total_harem"),
    ("gabriel", "run"),
    ("brackets", "total_harem"),  # entity texts with [ ] and '' (see its README)
    ("bracket-edges", "total_harem"),  # a system text trimmed once its brackets are gone
]


def em(text: str, categ: str = "PESSOA") -> Tag:
    return Tag("EM", (("CATEG", categ),), text)


def comparable_lines(raw: bytes, encoding: str) -> list[str]:
    """Lines without ``#`` file-name headers, with the Java ``::`` marker written ``:``."""
    lines = []
    for line in raw.decode(encoding).split("\n"):
        if line.startswith("#"):
            continue
        if line.startswith("<") and not line.startswith("<VERIFICACAO_MANUAL>"):
            line = line.replace("]::[", "]:[", 1)
        lines.append(line)
    return lines


@pytest.mark.parametrize(("folder", "name"), REFERENCE_CASES)
def test_equals_java_avalida(data_dir: Path, tmp_path: Path, folder: str, name: str) -> None:
    source = data_dir / "reference" / folder / f"{name}.alinhado.gz"
    reference = data_dir / "reference" / folder / f"{name}.alinhado.avalida.gz"
    out = run_avalida(source, tmp_path / f"{name}.alinhado.avalida")
    encoding = "utf-8" if folder == "exemplo0" else "iso8859-1"
    expected = comparable_lines(gzip.open(reference).read(), encoding)
    found = comparable_lines(out.read_bytes(), encoding)
    diff = list(difflib.unified_diff(expected, found, "java", "ours", lineterm="", n=1))
    assert not diff, "\n".join(diff[:60])


def test_default_output_name_drops_gz(data_dir: Path, tmp_path: Path) -> None:
    source = tmp_path / "x.alinhado.gz"
    source.write_bytes((data_dir / "reference/exemplo0/total_muc.alinhado.gz").read_bytes())
    assert run_avalida(source) == tmp_path / "x.alinhado.avalida"
    assert (tmp_path / "x.alinhado.avalida").is_file()


def test_partial_weight_of_the_worked_example() -> None:
    # exemplo0, ALT2: CD "Professor da Faculdade de Letras" (5 atoms) against the run's
    # "Professor da Faculdade de Letras da UC" (7 atoms): 5 shared, w = 0.5 * 5/7 = 5/14;
    # the reference prints Parcialmente_Correcto_por_Excesso(0.35714285714285715; 0.6428...).
    verdict = judge_texts(
        "Professor da Faculdade de Letras", "Professor da Faculdade de Letras da UC"
    )
    assert verdict.text == (
        "Parcialmente_Correcto_por_Excesso(0.35714285714285715; 0.6428571428571428)"
    )
    reverse = judge_texts(
        "Professor da Faculdade de Letras da UC", "Professor da Faculdade de Letras"
    )
    assert reverse.text.startswith("Parcialmente_Correcto_por_Defeito(0.35714285714285715;")


def test_shared_atoms_counted_on_the_shorter_list_with_repeats() -> None:
    # gabriel run.alinhado.avalida, line 6409: CD "2º Encontro de Arte de Matriz Africana"
    # (7 atoms, DE twice) vs run "Encontro de Arte de Matriz Africana" (6 atoms): the
    # Java counts the 6 atoms of the shorter list, so w = 0.5 * 6/(7+6-6) = 3/7 =
    # 0.42857142857142855, as printed there; a set intersection (5) would give 0.3125.
    gold = em("2º Encontro de Arte de Matriz Africana", "ACONTECIMENTO")
    run = em("Encontro de Arte de Matriz Africana", "ACONTECIMENTO")
    assert intersection_size(["A", "A", "B"], ["A", "A"]) == 2
    assert judge_texts(gold.text, run.text).text == (
        "Parcialmente_Correcto_por_Defeito(0.42857142857142855; 0.5714285714285714)"
    )


def test_correct_needs_same_atom_count_not_same_order() -> None:
    assert judge_texts("Letras de Faculdade", "Faculdade de Letras").text == "Correcto"
    # punctuation and case are not atoms: D.Francisco = D, FRANCISCO
    assert judge_texts("D. Francisco", "d.francisco").text == "Correcto"


def test_record_kinds() -> None:
    missing = parse_line('<EM ID="c1" CATEG="LOCAL">Lisboa</EM> ---> [null]')
    spurious = parse_line('<EM CATEG="ESPURIO">Ele</EM> ---> [<EM ID="s0" CATEG="OUTRO">Ele</EM>]')
    two = parse_line(
        '<EM ID="c2" CATEG="LOCAL">Rio de Janeiro</EM> ---> '
        '[<EM ID="s1">Rio</EM>, <EM ID="s2">Rio de Janeiro</EM>]'
    )
    assert isinstance(missing, Record) and isinstance(spurious, Record)
    assert isinstance(two, Record)
    assert [e.text for e in evaluate_record(missing).evaluation or ()] == ["Em_Falta"]
    assert [e.text for e in evaluate_record(spurious).evaluation or ()] == ["Espurio"]
    # "Rio" vs "Rio de Janeiro": 1 shared atom of 1 + 3, w = 0.5 * 1/3
    assert [e.text for e in evaluate_record(two).evaluation or ()] == [
        "Parcialmente_Correcto_por_Defeito(0.16666666666666666; 0.8333333333333334)",
        "Correcto",
    ]
    assert evaluate_record(two).marker == ":"


def test_empty_system_list_is_an_input_error() -> None:
    record = parse_line('<EM ID="c1">Lisboa</EM> ---> []', "f.alinhado", 7)
    assert isinstance(record, Record)
    with pytest.raises(InputError, match=r"f\.alinhado, line 7: expected \[null\] or a non-empty"):
        evaluate_record(record, "f.alinhado")


def test_cli_writes_output(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.avalida"
    source = data_dir / "reference/exemplo0/total_muc.alinhado.gz"
    assert main(["avalida", str(source), "-o", str(out)]) == 0
    assert "::[" not in out.read_text("utf-8")
    assert "]:[Em_Falta]" in out.read_text("utf-8")


def test_cli_bad_line_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.alinhado"
    bad.write_text('DOC d1\n<EM ID="c1">Lisboa</EM> ---> []\nEOD\n', "utf-8")
    assert main(["avalida", str(bad), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{bad}, line 2: expected [null] or a non-empty list" in err
    assert not (tmp_path / "o").exists()


def test_cli_garbage_line_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.alinhado"
    bad.write_text("DOC d1\nthis is not a record\n", "utf-8")
    assert main(["avalida", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}, line 2: expected" in err


ATOM_LISTS = st.lists(st.sampled_from(["A", "B", "C", "DE", "RIO"]), min_size=1, max_size=6)


@settings(derandomize=True, deadline=None, max_examples=200)
@given(ATOM_LISTS, ATOM_LISTS)
def test_weight_is_between_0_and_half(gold: list[str], system: list[str]) -> None:
    weight = partial_weight(gold, system)
    assert 0 <= weight <= 0.5
    # the same atoms in any order are Correcto; without repeated atoms a Correcto pair
    # has full overlap, the 0.5 a partial match can only approach
    if sorted(gold) == sorted(system):
        assert is_correct(gold, system)
    if is_correct(gold, system) and len(set(gold)) == len(gold):
        assert weight == 0.5


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.lists(st.sampled_from(["Rio", "de", "Janeiro", "Faculdade", "2º"]), min_size=1))
def test_an_entity_is_correct_against_itself(words: list[str]) -> None:
    text = " ".join(words)
    assert judge_texts(text, text.upper()).text == "Correcto"


def test_superscript_two_is_not_part_of_an_atom() -> None:
    # Java's Character.isLetterOrDigit('²') is false (category No), so the Java AvalIDa
    # reads "36 mil m²" (First HAREM collection) as 36, MIL, M: "36 mil m" is Correcto
    assert atoms("4000m²") == ["4000M"]
    assert judge_texts("36 mil m²", "36 mil m").text == "Correcto"


def test_replacing_partial_weight_moves_every_printed_weight(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``partial_weight`` is the one rule of the weight: replaced, ``harem avalida`` on a
    reference file prints the replacement's weights, and every partial item moves."""
    source = data_dir / "reference/exemplo1/total_harem.alinhado.gz"
    ours, replaced = tmp_path / "ours.avalida", tmp_path / "replaced.avalida"
    judge_texts.cache_clear()  # the verdicts remembered by earlier tests
    assert main(["avalida", str(source), "-o", str(ours)]) == 0
    monkeypatch.setattr(avalida, "partial_weight", lambda gold, system: 0.37)
    judge_texts.cache_clear()
    try:
        assert main(["avalida", str(source), "-o", str(replaced)]) == 0
    finally:
        judge_texts.cache_clear()
    before = re.findall(r"Parcialmente_Correcto_por_\w+\(([^)]*)\)", ours.read_text("latin-1"))
    after = re.findall(r"Parcialmente_Correcto_por_\w+\(([^)]*)\)", replaced.read_text("latin-1"))
    assert len(before) == len(after) > 10
    assert set(after) == {"0.37; 0.63"}
    assert "0.37; 0.63" not in before
