"""``harem stats``: the published figures of the shipped collections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import parse_collection, read_collection
from harem_pipeline.tools.stats import count_collection, format_stats_text

DATA = Path(__file__).resolve().parent.parent / "data"
FIRST = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"
SECOND = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
MINI = DATA / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz"
META = DATA / "lampada2" / "colSegundoHAREM-meta.xml.gz"

# (file, documents, entities, with_morf, alt_blocks, omitido).  Sources: data/README.md
# (First HAREM: 129 docs, 5,132 EMs, 4,189 with MORF, 65 ALT, 14 OMITIDO; Second HAREM
# GC: 129 docs, 7,846 EMs, 411 ALT; Mini-HAREM: 128 docs, 3,669 EMs); the OMITIDO and
# Mini-HAREM ALT figures are the number of <OMITIDO> / <ALT> opening tags in the files.
FIGURES = [
    (FIRST, "first-harem", 129, 5132, 4189, 65, 14),
    (SECOND, "second-harem", 129, 7846, 0, 411, 116),
    (MINI, "second-harem", 128, 3669, 0, 57, 0),
]


@pytest.mark.parametrize(
    ("path", "fmt", "documents", "entities", "with_morf", "alt_blocks", "omitido"),
    FIGURES,
    ids=lambda v: v.name if isinstance(v, Path) else None,
)
def test_published_figures(
    path: Path,
    fmt: str,
    documents: int,
    entities: int,
    with_morf: int,
    alt_blocks: int,
    omitido: int,
) -> None:
    stats = count_collection(read_collection(path))
    found = [stats[k] for k in ("format", "documents", "entities", "with_morf", "alt_blocks")]
    assert found == [fmt, documents, entities, with_morf, alt_blocks]
    assert stats["omitido"] == omitido
    # Every entity tag is counted exactly once: plain + ALT alternatives + OMITIDO.
    plain = sum(len(d.entities) for d in read_collection(path).documents)
    assert plain + stats["entities_in_alt"] + stats["entities_omitted"] == entities
    assert sum(stats["by_category"].values()) == entities


def test_first_harem_morf_variants_and_genres() -> None:
    stats = count_collection(read_collection(FIRST))
    # data/README.md: M,S 1976; F,S 1527; ?,S 428; M,P 109; ?,? 83; F,P 66.
    assert stats["morf_values"] == {
        "M,S": 1976,
        "F,S": 1527,
        "?,S": 428,
        "M,P": 109,
        "?,?": 83,
        "F,P": 66,
    }
    # data/README.md: PT 63, BR 60, and one each of AO, CV, IN, MO, MZ, TL.
    assert stats["variants"] == {
        "PT": 63,
        "BR": 60,
        "AO": 1,
        "CV": 1,
        "IN": 1,
        "MO": 1,
        "MZ": 1,
        "TL": 1,
    }
    assert sum(stats["genres"].values()) == 129
    assert "(none)" not in stats["genres"]


def test_second_harem_variants_from_meta() -> None:
    stats = count_collection(read_collection(SECOND, META))
    # Every one of the 129 documents has a VARIANTE in colSegundoHAREM-meta.xml.
    assert sum(stats["variants"].values()) == 129
    assert set(stats["variants"]) == {"pt_PT", "pt_BR"}


def test_counts_of_a_hand_made_collection() -> None:
    text = (
        '<colHAREM><DOC DOCID="a"><EM CATEG="LOCAL" MORF="F,S">X</EM> '
        '<ALT><EM CATEG="PESSOA">Y Z</EM>|<EM CATEG="PESSOA">Y</EM> '
        '<EM CATEG="LOCAL|PESSOA">Z</EM></ALT>'
        '<OMITIDO><EM CATEG="OBRA">W</EM></OMITIDO></DOC>'
        '<DOC DOCID="b">nada</DOC></colHAREM>'
    )
    stats = count_collection(parse_collection(text, "h.xml", "utf-8"))
    # 1 plain + 3 in the ALT (1 + 2) + 1 omitted = 5 tags; one carries MORF.
    assert stats["documents"] == 2
    assert (stats["entities"], stats["entities_in_alt"], stats["entities_omitted"]) == (5, 3, 1)
    assert (stats["with_morf"], stats["alt_blocks"], stats["omitido"]) == (1, 1, 1)
    # Most frequent first, ties in name order.
    assert list(stats["by_category"].items()) == [
        ("PESSOA", 2),
        ("LOCAL", 1),
        ("LOCAL|PESSOA", 1),
        ("OBRA", 1),
    ]
    assert stats["morf_values"] == {"F,S": 1}
    assert stats["variants"] == {"(none)": 2}


def test_text_form_is_key_value_lines() -> None:
    text = format_stats_text({"documents": 2, "by_category": {"PESSOA": 2, "LOCAL": 1}})
    assert text == "documents: 2\nby_category:\n  PESSOA: 2\n  LOCAL: 1\n"


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(MINI)]) == 0
    lines = capsys.readouterr().out.splitlines()
    for line in (
        "documents: 128",
        "entities: 3669",
        "with_morf: 0",
        "alt_blocks: 57",
        "omitido: 0",
        "format: second-harem",
    ):
        assert line in lines


def test_cli_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(tmp_path / "none.xml")]) == 2
    err = capsys.readouterr().err
    expected = "expected an existing file, found no such file"
    assert err == f"harem stats: error: {tmp_path}/none.xml: {expected}\n"


def test_stats_of_the_metadata_alone_lists_the_subset_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    meta = DATA / "lampada2" / "colSegundoHAREM-meta.xml.gz"
    assert main(["stats", "--meta", str(meta), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    # Counted from the metadata file: 1,040 documents, 660 pt_PT and 380 pt_BR.
    assert stats["documents"] == 1040
    assert stats["subset_variants"] == {"pt": 660, "br": 380}
    assert list(stats["subset_genres"])[:2] == ["noticia", "didactico"]
    assert "jornalistico" not in stats["subset_genres"]
