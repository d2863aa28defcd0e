"""Write a campaign's official result pages (``docs/spec/official-grid.md``).

``Avaliacao.sh classico`` wrote, per veil, ``resultados_HAREM_Classico_<veil>.html``
(the strict-ALT ``.emir.ida`` of every run) and
``resultados_altrel_HAREM_Classico_<veil>.html`` (the relaxed ``.emir.altrel.ida``).
This module finds those reports in a campaign's output folder and writes the
pages (rendered by ``reports.official``) into ``OUTPUT/official/``, in
ISO-8859-1, atomically.  The official TEMPO pages
(``resultados_TEMPO_<mode>_<veil>.html``) are the same page over other
``.ida`` reports: ``write_semantic_pages`` with ``prefix`` set writes them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.pipeline.config import STYLES
from harem_pipeline.reports.official import (
    F_MEASURE,
    MAX_PRECISION,
    MAX_RECALL,
    PRECISION,
    RECALL,
    anonymise,
    format_key,
    participant_names,
    read_identification_entry,
    read_participants,
    read_semantic_entry,
    render_identification_page,
    render_semantic_page,
)
from harem_pipeline.reports.official_systems import (
    chart_veil,
    render_index,
    render_system_page,
    system_charts,
)
from harem_pipeline.text.atomic import write_text_atomic

# The page names of the official grid are in resources/official_veils.tsv
# (pipeline.config.official_veils) and "proprio".

OFFICIAL_FOLDER = "official"
KEY_FILE = "chave_anonimizacao.txt"


@dataclass(frozen=True, slots=True)
class OfficialRun:
    """One run's Ida reports under one veil: strict ALT, and relaxed when there is one."""

    name: str
    strict: Path
    relaxed: Path | None = None


STRICT_SUFFIX = ".alts.emir.ida"
RELAXED_SUFFIX = ".alts.emir.altrel.ida"


def find_official_runs(output: Path, subset: str = "total") -> dict[str, list[OfficialRun]]:
    """The runs' Ida reports in a campaign folder, by veil.

    A report ``<run>/<run>.alinhado.avalida.<subset>.<veil>.alts.emir.ida`` is of
    the named veil ``<veil>``; the campaign's own chain
    (``<subset>[.<style>].alts.emir.ida``) is reported as ``total`` when the
    campaign has no named veils.
    """
    pattern = re.compile(
        rf"^(?P<run>.+)\.alinhado\.avalida\.{re.escape(subset)}(?P<rest>(?:\.[^.]+)*?)"
        rf"{re.escape(STRICT_SUFFIX)}$"
    )
    named: dict[str, list[OfficialRun]] = {}
    own: list[OfficialRun] = []
    for path in sorted(output.glob(f"*/*{STRICT_SUFFIX}")):
        match = pattern.match(path.name)
        if match is None or match["run"] != path.parent.name:
            continue
        parts = [part for part in match["rest"].split(".") if part]
        relaxed = path.with_name(path.name[: -len(STRICT_SUFFIX)] + RELAXED_SUFFIX)
        run = OfficialRun(match["run"], path, relaxed if relaxed.is_file() else None)
        if parts and parts[-1] not in STYLES:
            named.setdefault(parts[-1], []).append(run)
        else:
            own.append(run)
    # A campaign with veils: reports them (its own chain is not one of its veils).
    return named if named or not own else {"total": own}


def page_names(veil: str, prefix: str = "HAREM_Classico") -> tuple[str, str]:
    """``resultados_<prefix>_<veil>.html`` and ``resultados_altrel_<prefix>_<veil>.html``."""
    return f"resultados_{prefix}_{veil}.html", f"resultados_altrel_{prefix}_{veil}.html"


def filter_label(
    veil: str, relaxed: bool, prefix: str = "HAREM_Classico", tempo: bool = False
) -> str:
    """The ``-filtro`` the official script gave for the page (the title lists it); the
    TEMPO track's pages read ``.emir.tempo.ida`` and ``.emir.altrel.tempo.ida``."""
    suffix = ".alinhado.avalida.veu.alts.emir" + (".altrel" if relaxed else "")
    return f"{prefix}.{veil}{suffix}{'.tempo' if tempo else ''}.ida"


def write_semantic_pages(
    folder: Path,
    veils: Mapping[str, Sequence[OfficialRun]],
    *,
    seed: int | None = None,
    participants: Path | None = None,
    generated: datetime | None = None,
    prefix: str = "HAREM_Classico",
    tempo: bool = False,
) -> list[Path]:
    """Write the strict and relaxed page of every veil into ``folder``; return the paths.

    ``tempo``: the reports are the TEMPO track's ``.tempo.ida`` (the title's filter says so).

    ``seed`` anonymises every page with one set of code names (the same run
    has the same code on every page) and writes the key to ``KEY_FILE``;
    ``participants`` (``lista_participantes``) names runs by system.  Every
    report is read before anything is written.
    """
    moment = generated or datetime.now()
    table = read_participants(participants) if participants is not None else []
    all_names = sorted({run.name for runs in veils.values() for run in runs})
    shown = participant_names(all_names, table)
    pages: list[tuple[Path, str]] = []
    codes = anonymise([shown[name] for name in all_names], seed) if seed is not None else None
    for veil, runs in sorted(veils.items()):
        strict_name, relaxed_name = page_names(veil, prefix)
        strict = [read_semantic_entry(shown[run.name], run.strict) for run in runs]
        text = render_semantic_page(
            strict, [filter_label(veil, False, prefix, tempo)], moment, codes
        )
        pages.append((folder / strict_name, text))
        relaxed = [
            read_semantic_entry(shown[run.name], run.relaxed)
            for run in runs
            if run.relaxed is not None
        ]
        if relaxed:
            label = filter_label(veil, True, prefix, tempo)
            pages.append(
                (folder / relaxed_name, render_semantic_page(relaxed, [label], moment, codes))
            )
    if not pages:
        raise InputError(str(folder.parent), f"some runs' *{STRICT_SUFFIX} reports", "none")
    folder.mkdir(parents=True, exist_ok=True)
    if codes is not None:
        write_text_atomic(folder / KEY_FILE, format_key(codes), encoding="latin-1")
    for path, text in pages:
        _check_latin1(path, text)
    for path, text in pages:
        write_text_atomic(path, text, encoding="latin-1")
    return [path for path, _ in pages]


def _check_latin1(path: Path, text: str) -> None:
    """The pages are ISO-8859-1, as the originals: a run name outside it cannot be written."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError as error:
        found = repr(text[max(0, error.start - 20) : error.end + 20])
        raise InputError(
            str(path), "run names in ISO-8859-1 (the pages' encoding)", found
        ) from None


GRID_FILES = ("grid.csv", "grid.json")
"""The grid's summary in ``OUTPUT/official/``: one row per run, subset, veil and ALT."""
GRID_COLUMNS = (
    "run",
    "subset",
    "veil",
    "alt",
    "id_precision",
    "id_recall",
    "id_f",
    "class_precision",
    "class_recall",
    "class_f",
)


@dataclass(frozen=True, slots=True)
class GridReport:
    """Where the Ida report of one run, subset, veil and ALT (strict or relaxed) is."""

    run: str
    subset: str
    veil: str
    alt: str
    path: Path


def grid_rows(reports: Iterable[GridReport]) -> list[dict[str, str]]:
    """One row per report: the Ida's identification P, R, F and the classification's
    maximum precision, maximum recall and F, as the report writes them (Java doubles)."""
    rows = []
    for report in reports:
        entry = read_semantic_entry(report.run, report.path)
        ident, klass = entry.identification, entry.classification
        rows.append(
            {
                "run": report.run,
                "subset": report.subset,
                "veil": report.veil,
                "alt": report.alt,
                "id_precision": ident[PRECISION],
                "id_recall": ident[RECALL],
                "id_f": ident[F_MEASURE],
                "class_precision": klass[MAX_PRECISION],
                "class_recall": klass[MAX_RECALL],
                "class_f": klass[F_MEASURE],
            }
        )
    return rows


def format_grid_csv(rows: Sequence[Mapping[str, str]]) -> str:
    """The grid's rows as CSV (header first)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=GRID_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_grid_summary(folder: Path, reports: Iterable[GridReport]) -> list[Path]:
    """``grid.csv`` and ``grid.json`` of every report; return their paths."""
    rows = grid_rows(reports)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = (folder / name for name in GRID_FILES)
    write_text_atomic(csv_path, format_grid_csv(rows))
    write_text_atomic(json_path, json.dumps({"rows": rows}, ensure_ascii=False, indent=1) + "\n")
    return [csv_path, json_path]


IDENTIFICATION_SUFFIX = ".ida2id"


def identification_page_name(subset: str) -> str:
    """``resultados_identificacao_<subset>.html``: the script published no such page, so
    the name is ours."""
    return f"resultados_identificacao_{subset}.html"


def find_identification_reports(output: Path, subset: str = "total") -> dict[str, Path]:
    """Every run's Ida2ID report of ``subset``:
    ``<run>/<run>.alinhado.avalida.<subset>[.<style>].ida2id``."""
    found: dict[str, Path] = {}
    for path in sorted(output.glob(f"*/*{IDENTIFICATION_SUFFIX}")):
        run = path.parent.name
        base = f"{run}.alinhado.avalida.{subset}"
        rest = (
            path.name[len(base) : -len(IDENTIFICATION_SUFFIX)]
            if path.name.startswith(base)
            else None
        )
        if rest is not None and (rest == "" or rest.lstrip(".") in STYLES):
            found[run] = path
    return found


def write_identification_page(
    folder: Path,
    reports: Mapping[str, Path],
    subset: str,
    *,
    seed: int | None = None,
    generated: datetime | None = None,
) -> Path:
    """``GlobalIdentificationReporter``'s page of the runs' Ida2ID reports (the Java
    reads them as ``.globalid`` files: their first lines are the same, the others unused)."""
    entries = [read_identification_entry(run, path) for run, path in sorted(reports.items())]
    codes = anonymise(list(reports), seed) if seed is not None else None
    text = render_identification_page(
        entries, [IDENTIFICATION_SUFFIX], generated or datetime.now(), codes
    )
    target = folder / identification_page_name(subset)
    _check_latin1(target, text)
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(target, text, encoding="latin-1")
    return target


SYSTEMS_FOLDER = "relatorios"
SYSTEM_RUN = re.compile(r"^(?P<system>.+?)_\d+(?:_.*)?$")
"""A run of a system: ``<system>_<n>`` or ``<system>_<n>_<more>`` (``n`` digits), as the
official runs were named once the participant table had renamed them (``Cage2_1_corr``)."""
CATEGORY_VEIL = re.compile(r"^[A-Z]+$")
"""A one-category veil (``PESSOA``): the grid's per-category scenarios."""


def group_systems(runs: Sequence[str]) -> dict[str, list[str]]:
    """The campaign's runs by system, in the runs' order.

    A run named ``<system>_<n>`` (or ``<system>_<n>_<more>``, ``n`` digits) is
    a run of ``<system>`` (the shortest such prefix: ``Cage2_1_corr`` is
    Cage2's); any other run is a system of its own.  The official pages
    name runs this way when ``lista_participantes`` is given.
    """
    systems: dict[str, list[str]] = {}
    for run in runs:
        match = SYSTEM_RUN.match(run)
        systems.setdefault(match["system"] if match else run, []).append(run)
    return systems


def category_veils(veils: Iterable[tuple[str, str]]) -> list[str]:
    """The names of the one-category veils among ``(name, definition)`` pairs, in order."""
    return [name for name, definition in veils if CATEGORY_VEIL.match(definition)]


def system_report_names(systems: Sequence[str]) -> list[str]:
    """The per-system pages and their index, relative to ``OUTPUT/official/``."""
    pages = [f"{SYSTEMS_FOLDER}/{name}/relatorio_{name}.html" for name in systems]
    return [*pages, f"{SYSTEMS_FOLDER}/index.html"]


def write_system_reports(
    folder: Path,
    reports: Iterable[GridReport],
    systems: Mapping[str, Sequence[str]],
    subset: str,
    charts: bool,
    *,
    own: Mapping[str, str] | None = None,
    categories: Sequence[str] = (),
) -> list[Path]:
    """One page per system (its runs highlighted among all) and the index, in ``folder``.

    ``own``: each run's own scenario (the veil its ``veil:`` names);
    ``categories``: the one-category veils (the page's category table and chart).
    Every page is rendered before anything is written.
    """
    rows = [row for row in grid_rows(reports) if row["subset"] == subset]
    own = dict(own or {})
    names = system_report_names(list(systems))
    pages = []
    for (system, runs), name in zip(systems.items(), names, strict=False):
        veil = chart_veil(rows, runs, own)
        figures = (
            system_charts(system, runs, rows, systems, veil, categories)
            if charts and veil is not None
            else []
        )
        text = render_system_page(
            system, runs, rows, subset, own=own, categories=categories, charts=figures
        )
        pages.append((folder / name, text))
    links = {system: f"{system}/relatorio_{system}.html" for system in systems}
    index_veil = "total" if any(row["veil"] == "total" for row in rows) else None
    if index_veil is None and rows:
        index_veil = rows[0]["veil"]
    pages.append((folder / names[-1], render_index(systems, links, rows, index_veil)))
    for target, text in pages:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, text)
    return [target for target, _ in pages]
