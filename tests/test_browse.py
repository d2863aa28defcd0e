"""``harem browse``: the pages' entities, outcomes, records and CSC, and bad input."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harem_pipeline.cli import main
from harem_pipeline.formats.alinhado import DocStart, DocumentLine, Record, format_line, iter_lines
from harem_pipeline.formats.harem_xml import format_collection
from harem_pipeline.formats.semantic import iter_semantic_lines, parse_emir_record
from harem_pipeline.pipeline.browse import write_browse
from harem_pipeline.reports.browse import browse_href
from harem_pipeline.reports.html import run_browse_link
from tests.helpers.campaign import build, make_campaign
from tests.helpers.paths import DATA
from tests.helpers.shipped import shipped_collection


class _Entities(HTMLParser):
    """The ``.em`` elements of a page's text: one entry per ``data-id`` (pieces joined)."""

    def __init__(self) -> None:
        super().__init__()
        self.entities: dict[str, dict] = {}
        self.records: list | None = None
        self._open: list[str | None] = []
        self._tags: list[str] = []
        self._in_records = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        values = dict(attrs)
        self._tags.append(tag)
        if tag == "script" and values.get("id") == "records":
            self._in_records = True
        if tag != "span":
            self._open.append(None)
            return
        ident = values.get("data-id")
        self._open.append(ident)
        if ident is not None:
            entry = self.entities.setdefault(ident, {**values, "text": ""})
            assert {k: v for k, v in entry.items() if k != "text"} == values  # pieces agree

    def handle_endtag(self, tag: str) -> None:
        self._in_records = False
        if self._open:
            self._open.pop()
            self._tags.pop()

    def handle_data(self, data: str) -> None:
        if self._in_records:
            self.records = json.loads(data)
            return
        if self._tags and self._tags[-1] == "sup":  # a token number, not the entity's text
            return
        for ident in set(self._open):
            if ident is not None:
                self.entities[ident]["text"] += data


def _page(path: Path) -> _Entities:
    parser = _Entities()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _by_side_text(page: _Entities) -> list[tuple[str, str, str]]:
    return sorted((e["data-side"], e["text"], e["data-outcome"]) for e in page.entities.values())


HAND_CD = (
    '<?xml version="1.0" encoding="ISO-8859-1"?>\n<colHAREM>\n<DOC DOCID="d1">\n'
    '<P>Em <EM ID="a" CATEG="LOCAL">Lisboa</EM> e em <EM ID="b" CATEG="LOCAL">Lisboa</EM> '
    'vive <EM ID="c" CATEG="PESSOA">Ana Maria Silva</EM>, no <EM ID="d" CATEG="LOCAL">Porto'
    '</EM>.</P>\n<P><OMITIDO>Texto <EM ID="e" CATEG="OBRA">omitido</EM></OMITIDO> '
    "com um Dia.</P>\n</DOC>\n</colHAREM>\n"
)
HAND_RUN = (
    '<?xml version="1.0" encoding="ISO-8859-1"?>\n<colHAREM>\n<DOC DOCID="d1">\n'
    '<P>Em Lisboa e em <EM ID="r1" CATEG="LOCAL">Lisboa</EM> '
    'vive <EM ID="r2" CATEG="PESSOA">Ana Maria</EM> Silva, no <EM ID="r3" CATEG="ORGANIZACAO">'
    "Porto</EM>.</P>\n<P><OMITIDO>Texto omitido</OMITIDO> "
    'com um <EM ID="r4" CATEG="TEMPO">Dia</EM>.</P>\n</DOC>\n</colHAREM>\n'
)


@pytest.fixture(scope="module")
def hand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hand")
    (folder / "cd.xml").write_text(HAND_CD, encoding="iso8859-1")
    (folder / "run.xml").write_text(
        HAND_RUN.replace("<OMITIDO>", "").replace("</OMITIDO>", ""), encoding="iso8859-1"
    )
    status = main(
        [
            "browse",
            "--cd",
            str(folder / "cd.xml"),
            "--run",
            str(folder / "run.xml"),
            "-o",
            str(folder / "pages"),
        ]
    )
    assert status == 0
    return folder / "pages"


def test_each_entity_carries_its_side_and_avalida_verdict(hand: Path) -> None:
    # Worked by hand: the first "Lisboa" of the CD is missing (the run marks the
    # second); "Ana Maria" is a partial (by default) of "Ana Maria Silva";
    # "Porto" has the right span (Correcto: identification only); "Dia" has no
    # gold entity (spurious); the omitted entity is left out of the evaluation.
    page = _page(hand / "docs" / "00000.html")
    assert _by_side_text(page) == [
        ("gold", "Ana Maria Silva", "Parcialmente_Correcto_por_Defeito"),
        ("gold", "Lisboa", "Correcto"),
        ("gold", "Lisboa", "Em_Falta"),
        ("gold", "Porto", "Correcto"),
        ("gold", "omitido", "omitido"),
        ("system", "Ana Maria", "Parcialmente_Correcto_por_Defeito"),
        ("system", "Dia", "Espurio"),
        ("system", "Lisboa", "Correcto"),
        ("system", "Porto", "Correcto"),
    ]
    lisboas = sorted(
        (e["data-id"], e["data-outcome"])
        for e in page.entities.values()
        if e["text"] == "Lisboa" and e["data-side"] == "gold"
    )
    # the text's first "Lisboa" (the lower data-id, in text order) is the missing one
    assert [outcome for _, outcome in sorted(lisboas, key=lambda x: int(x[0][1:]))] == [
        "Em_Falta",
        "Correcto",
    ]
    categories = {e["text"]: e["data-categ"] for e in page.entities.values()}
    assert categories["Ana Maria Silva"] == "PESSOA" and categories["Dia"] == "TEMPO"
    assert all("data-csc" not in e for e in page.entities.values())  # no .emir: no CSC


def test_a_click_finds_the_avalida_and_token_view_records(hand: Path) -> None:
    page = _page(hand / "docs" / "00000.html")
    assert page.records is not None
    ana = next(e for e in page.entities.values() if e["text"] == "Ana Maria Silva")
    (index,) = map(int, ana["data-rec"].split())
    record = page.records[index]
    assert record["avalida"] == (
        '<EM ID="c" CATEG="PESSOA">Ana Maria Silva</EM> ---> [<EM ID="r2" CATEG="PESSOA">'
        "Ana Maria</EM>]:[Parcialmente_Correcto_por_Defeito(0.3333333333333333; "
        "0.6666666666666667)]"
    )
    assert record["tokens"] == (
        '<EM ID="c" CATEG="PESSOA"><1>Ana</1> <1>Maria</1> <1>Silva</1></EM> ---> '
        '[<EM ID="r2" CATEG="PESSOA"><1>Ana</1> <1>Maria</1></EM>]'
    )
    missing = [e for e in page.entities.values() if e["data-outcome"] == "Em_Falta"]
    assert [page.records[int(e["data-rec"])]["tokens"] for e in missing] == [
        '<EM ID="a" CATEG="LOCAL"><1>Lisboa</1></EM> ---> [null]'
    ]


def test_token_numbers_are_in_the_text_for_the_toggle(hand: Path) -> None:
    html = (hand / "docs" / "00000.html").read_text(encoding="utf-8")
    # the two CD entities are occurrences 1 and 2; the run's "Lisboa" is the
    # second occurrence too, at the same place, so its number is shown once
    assert re.findall(r'Lisboa(?:</span>)*<sup class="n">(\d)</sup>', html) == ["1", "2"]
    assert re.findall(r'Silva(?:</span>)*<sup class="n">(\d)</sup>', html) == ["1"]


def test_an_emir_given_beside_cd_and_run_gives_the_csc(hand: Path, tmp_path: Path) -> None:
    cd, run = hand.parent / "cd.xml", hand.parent / "run.xml"
    x = tmp_path / "x"
    for command in (
        ["align", "--cd", str(cd), "--run", str(run), "-o", f"{x}.alinhado"],
        ["avalida", f"{x}.alinhado", "-o", f"{x}.avalida"],
        ["veus", f"{x}.avalida", "--style", "harem", "-o", f"{x}.veu"],
        ["alts", f"{x}.veu", "-o", f"{x}.alts"],
        ["emir", f"{x}.alts", "-o", f"{x}.emir"],
    ):
        assert main(["-q", *command]) == 0, command
    pages = tmp_path / "pages"
    assert (
        main(
            ["browse", "--cd", str(cd), "--run", str(run), "--emir", f"{x}.emir", "-o", str(pages)]
        )
        == 0
    )
    found = [
        (e["text"], float(e["data-csc"]))
        for e in sorted(
            _page(pages / "docs" / "00000.html").entities.values(),
            key=lambda e: int(e["data-id"][1:]),
        )
        if e["data-side"] == "gold" and "data-csc" in e
    ]
    # the CSC of the .emir's records (CSC(0.0), CSC(1.9), CSC(1.9), CSC(1.0)), in text
    # order: the first "Lisboa" is missing, "Porto" has the wrong category
    assert found == [("Lisboa", 0.0), ("Lisboa", 1.9), ("Ana Maria Silva", 1.9), ("Porto", 1.0)]


def test_the_index_lists_every_document_with_its_error_counts(hand: Path) -> None:
    documents = json.loads((hand / "documents.json").read_text(encoding="utf-8"))
    assert documents == [
        {
            "docid": "d1",
            "page": "docs/00000.html",
            "counts": {
                "gold": 5,
                "system": 4,
                "Correcto": 4,  # two entities a side: Lisboa and Porto
                "Parcialmente_Correcto_por_Excesso": 0,
                "Parcialmente_Correcto_por_Defeito": 2,
                "Em_Falta": 1,
                "Espurio": 1,
                "sem_registo": 0,
                "omitido": 1,
            },
        }
    ]
    index = (hand / "index.html").read_text(encoding="utf-8")
    assert 'data-cats="LOCAL PESSOA TEMPO"' in index  # the categories with errors


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("campaign")
    build(make_campaign(folder, documents=3))
    return folder / "out"


def test_a_campaign_run_gets_its_avalida_and_emir_csc(campaign: Path, tmp_path: Path) -> None:
    run_dir = next(p for p in sorted(campaign.iterdir()) if (p / f"{p.name}.alinhado").is_file())
    assert main(["browse", str(run_dir)]) == 0
    pages = sorted((run_dir / "browse" / "docs").glob("*.html"))
    assert len(pages) == 3
    # every .avalida record is on its document's page, in order
    _, lines = iter_lines(run_dir / f"{run_dir.name}.alinhado.avalida")
    records = [line for line in lines if isinstance(line, Record)]
    shown = [r["avalida"] for page in pages for r in _page(page).records or []]
    assert shown == [format_line(r) for r in records]
    # per document, the gold entities' CSC are those of the .emir's records
    # (one record a gold entity; its CSC the best of its pairs)
    _, emir_lines = iter_semantic_lines(
        run_dir / f"{run_dir.name}.alinhado.avalida.total.alts.emir"
    )
    expected: list[list[tuple[str, float]]] = []
    for line in emir_lines:
        if isinstance(line, (DocStart, DocumentLine)):
            expected.append([])
        elif isinstance(line, Record) and not line.gold.is_spurious:
            scores = parse_emir_record(line).scores
            text = " ".join(line.gold.text.split())
            expected[-1].append((text, round(max(s.csc for s in scores), 3)))
    found = [
        [
            (" ".join(e["text"].split()), round(float(e["data-csc"]), 3))
            for e in _page(page).entities.values()
            if e["data-side"] == "gold" and "data-csc" in e
        ]
        for page in pages
    ]
    assert [sorted(doc) for doc in found] == [sorted(doc) for doc in expected]
    assert sum(map(len, found)) > 20


def test_the_largest_documents_stay_light(tmp_path: Path) -> None:
    # The five longest documents of the Second HAREM collection and the real run:
    # one page each, none near a few MB (the largest page is about 0.3 MB).
    cd = shipped_collection(DATA / "second-harem/SegundoHaremReRelEM_t1.xml.gz")
    run = shipped_collection(DATA / "second-harem/ParticipacaoSegundoHaremReRelEM_t1.xml.gz")
    longest = sorted(cd.documents, key=lambda doc: -len(doc.text))[:5]
    keep = {doc.docid for doc in longest}
    for name, collection in (("cd.xml", cd), ("run.xml", run)):
        kept = dataclasses.replace(
            collection, documents=tuple(d for d in collection.documents if d.docid in keep)
        )
        (tmp_path / name).write_bytes(format_collection(kept).encode(collection.encoding))
    written = write_browse(tmp_path / "cd.xml", tmp_path / "run.xml", tmp_path / "pages")
    assert written.documents == 5
    sizes = [p.stat().st_size for p in (tmp_path / "pages" / "docs").glob("*.html")]
    assert len(sizes) == 5 and max(sizes) == written.largest_page < 1_000_000
    assert min(sizes) > 50_000  # long documents: their pages are not empty


def test_the_report_links_a_run_and_a_category_to_its_pages() -> None:
    assert run_browse_link("sim strong") == "sim%20strong/browse/index.html"
    assert browse_href("weak", "LOCAL") == "weak/browse/index.html#cat=LOCAL"


# ---------------------------------------------------------------------------
# Bad input: one line, exit 2, nothing written


def test_an_avalida_of_another_alignment_is_refused(hand: Path, tmp_path: Path, capsys) -> None:
    run_dir = tmp_path / "mine"
    run_dir.mkdir()
    cd, run = hand.parent / "cd.xml", hand.parent / "run.xml"
    (run_dir / "mine.alinhado").write_text("# run.xml\n# cd.xml\n", encoding="iso8859-1")
    (run_dir / "mine.alinhado.manifest.json").write_text(
        json.dumps({"inputs": {str(cd): {}, str(run): {}}}), encoding="utf-8"
    )
    (run_dir / "mine.alinhado.avalida").write_text(
        "# run.xml\n# cd.xml\nDOC d1\n"
        '<EM ID="a" CATEG="LOCAL">Lisboa</EM> ---> [null]::[Em_Falta]\nEOD\n',
        encoding="iso8859-1",
    )
    status = main(["browse", str(run_dir)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert "mine.alinhado.avalida" in err[0] and "document d1" in err[0]
    assert "records" in err[0] and "found 1" in err[0]
    assert not (run_dir / "browse").exists()
    assert [p.name for p in run_dir.iterdir() if p.name.startswith(".")] == []


def test_a_folder_that_is_no_campaign_run_is_refused(tmp_path: Path, capsys) -> None:
    status = main(["browse", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "OUT/<run>" in err[0]


def test_browse_needs_a_run_folder_or_cd_run_and_output(tmp_path: Path, capsys) -> None:
    status = main(["browse", "--cd", "x.xml"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "--cd CD --run RUN -o DIR" in err[0]


def test_system_entities_are_moved_into_the_collection_text_by_shared_words() -> None:
    from harem_pipeline.stages.browse import SYSTEM, Mark, moved, moved_offsets

    run = "No  Pacífico, em Lisboa."
    cd = "No oceano Pacífico\n, na Lisboa ."
    shared = moved_offsets(run, cd)
    assert shared is not None
    # "No", "Pacífico", ",", "Lisboa", "." are shared; "em" (run) and "na" (cd) are not
    assert [(run[s : s + n], cd[t : t + n]) for s, t, n in shared] == [
        ("No", "No"),
        ("Pacífico", "Pacífico"),
        (",", ","),
        ("Lisboa", "Lisboa"),
        (".", "."),
    ]

    def placed(start: int, end: int) -> str:
        mark = moved(Mark(SYSTEM, start, end, "EM", ("LOCAL",), ()), shared)
        return cd[mark.start : mark.end]

    assert placed(run.index("Pacífico"), run.index(",")) == "Pacífico"
    assert placed(run.index(" Pac"), run.index(",")) == "Pacífico"  # a blank first: next word
    assert placed(run.index("em"), run.index(".")) == "Lisboa"  # "em" is not in the CD
    assert placed(run.index("Pac") + 1, run.index("Pac") + 4) == "ací"  # inside a word
    assert moved_offsets("uma frase", "outra coisa") is None  # nothing shared: shown apart


def test_a_missing_collection_or_a_file_in_the_way_is_one_line(tmp_path: Path, capsys) -> None:
    run = DATA / "lampada2/exemplo0/participacao.xml"
    status = main(
        [
            "browse",
            "--cd",
            str(tmp_path / "nada.xml"),
            "--run",
            str(run),
            "-o",
            str(tmp_path / "pages"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "nada.xml" in err[0]
    assert not (tmp_path / "pages").exists()
    (tmp_path / "file").write_text("x", encoding="utf-8")
    status = main(
        [
            "browse",
            "--cd",
            str(DATA / "lampada2/exemplo0/cd.xml"),
            "--run",
            str(run),
            "-o",
            str(tmp_path / "file"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "a file" in err[0]
    assert (tmp_path / "file").read_text(encoding="utf-8") == "x"


def test_writing_again_replaces_the_pages_whole(tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    ex1 = DATA / "lampada2/exemplo1"
    first = write_browse(ex1 / "CDexemplo.xml", ex1 / "ficheiro.xml", pages)
    assert first.documents > 2
    ex0 = DATA / "lampada2/exemplo0"
    second = write_browse(ex0 / "cd.xml", ex0 / "participacao.xml", pages)
    assert second.documents == 2
    assert sorted(p.name for p in (pages / "docs").iterdir()) == ["00000.html", "00001.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["pages"]  # no temporary folder left


def test_a_simulated_run_is_labelled_on_every_page(campaign: Path) -> None:
    run_dir = campaign / "strong"  # the campaign's runs are harem simulate's
    assert main(["browse", str(run_dir), "-o", str(run_dir / "again")]) == 0
    for page in [run_dir / "again" / "index.html", *(run_dir / "again" / "docs").glob("*.html")]:
        assert "SIMULATED run (harem simulate)" in page.read_text(encoding="utf-8"), page.name


def test_a_real_run_is_not_labelled_simulated(hand: Path) -> None:
    assert "SIMULATED" not in (hand / "index.html").read_text(encoding="utf-8")


def test_an_avalida_whose_records_name_other_entities_is_refused(
    hand: Path, tmp_path: Path, capsys
) -> None:
    # as many records as the alignment gives, but one names another entity
    cd, run = hand.parent / "cd.xml", hand.parent / "run.xml"
    run_dir = tmp_path / "mine"
    run_dir.mkdir()
    assert (
        main(
            [
                "-q",
                "align",
                "--cd",
                str(cd),
                "--run",
                str(run),
                "-o",
                str(run_dir / "mine.alinhado"),
            ]
        )
        == 0
    )
    assert main(["-q", "avalida", str(run_dir / "mine.alinhado")]) == 0
    avalida = run_dir / "mine.alinhado.avalida"
    avalida.write_bytes(avalida.read_bytes().replace(b">Porto</EM> --->", b">Braga</EM> --->"))
    (run_dir / "mine.alinhado.manifest.json").write_text(
        json.dumps({"inputs": {str(cd): {}, str(run): {}}}), encoding="utf-8"
    )
    status = main(["browse", str(run_dir)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert "mine.alinhado.avalida, line 7" in err[0] and "'Porto'" in err[0] and "'Braga'" in err[0]
    assert not (run_dir / "browse").exists()


def test_the_folders_a_killed_writer_left_are_removed_when_the_pages_are_written(
    tmp_path: Path,
) -> None:
    pages = tmp_path / "pages"
    for leftover in (".pages.ab12cd34", ".pages.old.ab12cd34/x"):  # mkdtemp's names
        (tmp_path / leftover).mkdir(parents=True)
        (tmp_path / leftover / "index.html").write_text("stale", encoding="utf-8")
    kept = [tmp_path / ".pages.note", tmp_path / ".other.ab12cd34"]  # not a writer's
    for folder in kept:
        folder.mkdir()
    ex0 = DATA / "lampada2/exemplo0"
    write_browse(ex0 / "cd.xml", ex0 / "participacao.xml", pages)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.ab12cd34", ".pages.note", "pages"]
