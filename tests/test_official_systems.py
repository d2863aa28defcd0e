"""Per-system reports of the scenario grid, after Alcaide.r (docs/spec/official-grid.md).

The figures come from hand-made ``.ida`` reports whose values are known
(``data/reference/official/handmade``): classification F eta 0.6857, Beta and
alfa 0.4444, gama 0.3529, vazio NaN.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harem_pipeline.pipeline.config import official_veils
from harem_pipeline.pipeline.official import (
    GridReport,
    category_veils,
    grid_rows,
    group_systems,
    write_system_reports,
)
from harem_pipeline.reports.official_systems import chart_veil, runs_by_f
from tests.helpers.paths import DATA

HANDMADE = DATA / "reference" / "official" / "handmade"
# run -> the hand-made report it has under veil total and under veil pessoa
FILES = {
    "sysA_1": ("eta", "gama"),
    "sysA_2": ("gama", "eta"),
    "sysB_1": ("Beta", "alfa"),
    "vazio": ("vazio", "vazio"),
}
F_ETA, F_BETA, F_GAMA = 0.6857142857142857, 0.4444444444444445, 0.35294117647058826


def reports() -> list[GridReport]:
    return [
        GridReport(run, "total", veil, alt, HANDMADE / f"{files[k]}.emir.ida")
        for run, files in FILES.items()
        for k, veil in enumerate(("total", "pessoa"))
        for alt in ("strict", "relaxed")
    ]


def test_runs_are_grouped_by_their_system_prefix() -> None:
    runs = ["Cage2_1_corr", "Cage2_2", "a_b_1", "solo", "x_1y", "REMBRANDT_10"]
    assert group_systems(runs) == {
        "Cage2": ["Cage2_1_corr", "Cage2_2"],
        "a_b": ["a_b_1"],
        "solo": ["solo"],
        "x_1y": ["x_1y"],
        "REMBRANDT": ["REMBRANDT_10"],
    }


def test_the_category_veils_of_the_official_grid() -> None:
    pairs = [(veil.name, veil.veil) for veil in official_veils()]
    assert category_veils(pairs) == [
        "tempo",
        "abstraccao",
        "acontecimento",
        "coisa",
        "local",
        "obra",
        "organizacao",
        "pessoa",
        "valor",
    ]
    assert category_veils([("meu", "PESSOA:LOCAL"), ("p", "PESSOA(INDIVIDUAL)")]) == []


def test_runs_by_f_split_the_system_from_the_others() -> None:
    rows = grid_rows(reports())
    ordered, series = runs_by_f(rows, "total", {"sysA_1", "sysA_2"}, "sysA")
    assert ordered == ["sysA_1", "sysB_1", "sysA_2", "vazio"]
    assert series["sysA, ALT estrita"] == [F_ETA, None, F_GAMA, None]
    assert series["outras saídas, ALT estrita"] == [None, F_BETA, None, None]
    assert chart_veil(rows, ["sysA_1"], {"sysA_1": "pessoa"}) == "pessoa"
    assert chart_veil(rows, ["sysB_1"], {}) == "total"


def table_runs(page: str, veil: str, alt: str) -> list[tuple[str, bool]]:
    """The runs of one veil's table in page order, and whether each is highlighted."""
    section = page.split(f'<h2 id="veu-{veil}">', 1)[1].split("<h2", 1)[0]
    table = section.split(f"<h3>{alt}</h3>", 1)[1].split("</table>", 1)[0]
    return [
        (run, mine == ' class="mine"')
        for mine, run in re.findall(
            r'<tr( class="mine")?><td class="num">\d+</td><td>(\w+)</td>', table
        )
    ]


@pytest.mark.parametrize("charts", [False, True])
def test_one_page_per_system_and_an_index(tmp_path: Path, charts: bool) -> None:
    systems = group_systems(list(FILES))
    written = write_system_reports(
        tmp_path,
        reports(),
        systems,
        "total",
        charts,
        own={"sysA_1": "pessoa"},
        categories=["pessoa"],
    )
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "relatorios/sysA/relatorio_sysA.html",
        "relatorios/sysB/relatorio_sysB.html",
        "relatorios/vazio/relatorio_vazio.html",
        "relatorios/index.html",
    ]
    page = written[0].read_text("utf-8")
    assert "sysA_1 (cenário próprio: pessoa), sysA_2," in page
    # Every table holds every run, ranked by classification F (NaN last), sysA's marked.
    assert table_runs(page, "total", "ALT estrita") == [
        ("sysA_1", True),
        ("sysB_1", False),
        ("sysA_2", True),
        ("vazio", False),
    ]
    assert table_runs(page, "pessoa", "ALT relaxada") == [
        ("sysA_2", True),
        ("sysB_1", False),
        ("sysA_1", True),
        ("vazio", False),
    ]
    assert page.count('<tr class="mine">') == 2 * 2 * 2
    # The category table: sysA's runs under pessoa (gama, eta) and the best other (alfa).
    categories = page.split('<h2 id="categorias">', 1)[1]
    assert (
        "<th>Véu</th><th>sysA_1</th><th>sysA_2</th><th>melhor das outras saídas</th>" in categories
    )
    assert (
        '<tr><td>pessoa</td><td class="num">0.3529</td><td class="num">0.6857</td>'
        '<td class="num">0.4444</td></tr>' in categories
    )
    index = written[-1].read_text("utf-8")
    assert re.findall(r'<a href="(\w+/relatorio_\w+\.html)">(\w+)</a>', index) == [
        ("sysA/relatorio_sysA.html", "sysA"),
        ("sysB/relatorio_sysB.html", "sysB"),
        ("vazio/relatorio_vazio.html", "vazio"),
    ]
    best = re.findall(r'<td class="num">([^<]+)</td></tr>', index)
    assert best == ["0.6857", "0.4444", "—"]
    figures = re.findall(r'<figure id="([\w-]+)"><h3>([^<]+)</h3><svg', page)
    if charts:
        assert figures == [
            (
                "grafico-precisao-abrangencia",
                "Classificação: precisão máxima contra abrangência máxima, véu pessoa",
            ),
            ("grafico-saidas-por-f", "Saídas por medida F da classificação, véu pessoa"),
            ("grafico-sistemas", "Melhor medida F da classificação por sistema, véu pessoa"),
            ("grafico-categorias", "Medida F da classificação por categoria (ALT estrita)"),
        ]
        other = written[1].read_text("utf-8")
        assert "véu total</h3><svg" in other  # sysB has no own scenario: total
    else:
        assert figures == [] and "<svg" not in page
