"""The campaign's stages as file-to-file steps, for the Luigi layer.

Each function reads its input files, calls the stage of the library, writes
its outputs atomically and returns the paths it wrote (an empty list when a
stage, by its rule, writes nothing: Vizir for a run with no morphology).
No scoring happens here; this is the seam that keeps ``tasks/`` free of
anything but scheduling.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harem_pipeline.formats.veils import parse_veil, read_grid
from harem_pipeline.model import Scenario
from harem_pipeline.pipeline import browse as alignment_pages
from harem_pipeline.pipeline.align import run_align
from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.pipeline.harem_spans import measure_evaluated
from harem_pipeline.pipeline.ida import run_ida
from harem_pipeline.pipeline.ida2id import run_ida2id
from harem_pipeline.pipeline.ida2mor import run_ida2mor
from harem_pipeline.pipeline.identification import run_altida, run_avalida, run_veus
from harem_pipeline.pipeline.morphology import run_altmor, run_vizir
from harem_pipeline.pipeline.naming import json_twin
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.pipeline.preflight import collection_facts
from harem_pipeline.pipeline.semantic import run_alts, run_altsem, run_emir
from harem_pipeline.reports import summary as summary_stage
from harem_pipeline.reports.html import write_report_html
from harem_pipeline.reports.rerelem import format_rerelem_markdown, rerelem_rows
from harem_pipeline.reports.tempo import format_tempo_markdown, tempo_rows
from harem_pipeline.stages.emir import EmirParams, choose_grid
from harem_pipeline.stages.tempo import MODE_NAMES
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import write_text_atomic
from harem_pipeline.text.textio import detect_file_encoding, read_json_object
from harem_pipeline.tools.export import SELECTIVE, run_export
from harem_pipeline.tools.predictions import predicted_docids, predictions_source, run_import
from harem_pipeline.tools.simulate import is_simulated


def load_lazy_modules() -> None:
    """Import what numpy itself loads only when first asked: its random generator.

    Each task of a build with several workers runs in a process forked from
    the scheduling one; a module imported there is imported once per task
    (numpy's random generator alone takes tens of milliseconds), one
    imported before the forks is shared by all.  Every module of the steps
    is imported with this one.
    """
    importlib.import_module("numpy.random")


def existing(paths: Iterable[PathLike | None]) -> list[Path]:
    """The given paths that name existing files (optional inputs)."""
    return [Path(p) for p in paths if p is not None and Path(p).is_file()]


def warnings_path(alinhado: PathLike) -> Path:
    """``r.alinhado`` → ``r.aligner.stderr``, the original name of the aligner's warnings."""
    alinhado = Path(alinhado)
    return alinhado.with_name(alinhado.name.removesuffix(".alinhado") + ".aligner.stderr")


def import_run(
    predictions: PathLike,
    fmt: str,
    cd: PathLike,
    output: PathLike,
    scheme: str,
    only_predicted: bool = False,
    label_map: Mapping[str, str] | None = None,
) -> list[Path]:
    """A model's predictions as a HAREM run over ``cd``; what was dropped, and why, beside it
    (``only_predicted``: the documents the predictions do not name written empty;
    ``label_map``: the model's labels renamed first)."""
    output, summary = run_import(
        predictions,
        fmt,
        cd,
        output,
        scheme,
        label_map=dict(label_map or {}),
        only_predicted=only_predicted,
    )
    notes = Path(output).with_name(Path(output).name + ".import.stderr")
    write_text_atomic(notes, summary.format() + "\n")
    return [Path(output), notes]


_TYPED_TAG = re.compile(rb"""\bTIPO\s*=\s*["'][^"']""")


def run_is_typed(run: PathLike) -> bool:
    """Whether a HAREM run carries any type (``TIPO="…"``): an imported model's label set
    is then ``CAT:TIPO``, else categories alone."""
    with open(run, "rb") as handle:
        return any(_TYPED_TAG.search(line) for line in handle)


def predicted_documents(predictions: PathLike, fmt: str) -> frozenset[str]:
    """The DOCIDs a predictions file names."""
    encoding = None if fmt == "spacy" else detect_file_encoding(predictions)
    with predictions_source(predictions, fmt, encoding) as handle:
        return frozenset(predicted_docids(fmt, handle, str(predictions)) or ())


def declares_selective(veil: str | None, cd: PathLike, grid: PathLike | None = None) -> bool:
    """Whether a model's declared ``veil`` keeps exactly the selective scenario's
    categories (read by the veil parser, on the grid Emir uses for ``cd``)."""
    if veil is None:
        return False
    first_harem = collection_facts(cd).first_harem
    tree = parse_veil(veil, choose_grid(first_harem, grid), "veil").tree
    return {category for category, _ in tree} == SELECTIVE


def export_ceiling(
    cd: PathLike,
    imported_run: PathLike,
    output: PathLike,
    veil: str | None,
    grid: PathLike | None = None,
    documents: frozenset[str] | None = None,
) -> list[Path]:
    """A model's ceiling predictions: the gold of ``cd`` exported as harem-json in the
    label set of the model's ``imported_run`` (``CAT:TIPO`` when it carries types, else
    categories), with the selective scenario's categories when the model's declared
    ``veil`` keeps those (:func:`declares_selective`), and only the ``documents`` named
    when given (the model's own, for ``only_predicted``).

    Read back as predictions and scored the model's way, it gives the best figures a
    model predicting that label set can get: ``evaluate()``'s ``ceiling`` and a
    campaign's ``NAME-ceiling`` rows are this file's figures.
    """
    scenario = "selective" if declares_selective(veil, cd, grid) else "total"
    run_export(cd, "harem-json", output, scenario, "first", "iob2", run_is_typed(imported_run))
    if documents is not None:
        exported = json.loads(Path(output).read_text(encoding="utf-8"))
        chosen = [doc for doc in exported if doc["doc_id"] in documents]
        write_text_atomic(output, json.dumps(chosen, ensure_ascii=False))
    return [Path(output)]


def align(
    cd: PathLike, run: PathLike, output: PathLike, meta: PathLike | None = None
) -> list[Path]:
    """AlinhEM: write ``output`` and, beside it, the aligner's warnings (``.aligner.stderr``)."""
    output, result = run_align(cd, run, output, meta)
    warnings = warnings_path(output)
    write_text_atomic(warnings, "".join(f"{line}\n" for line in result.warnings))
    return [output, warnings]


def avalida(source: PathLike, output: PathLike) -> list[Path]:
    return [run_avalida(source, output)]


def veus(
    source: PathLike, output: PathLike, meta: PathLike | None, params: SubsetParams
) -> list[Path]:
    """Véus; a selective subset is evaluated with the run's declared veil only."""
    return [run_veus(source, params, output, meta_path=meta)]


def altida(source: PathLike, output: PathLike) -> list[Path]:
    return [run_altida(source, output)]


def ida2id(
    source: PathLike,
    output: PathLike,
    signature: str,
    params: ReportParams,
    cd: PathLike | None = None,
    run: PathLike | None = None,
    meta: PathLike | None = None,
) -> list[Path]:
    """Ida2ID, its JSON with intervals from ``params.bootstrap`` resamples (0: none).

    Given the CD and the run, the report also carries the span measures of
    the same documents with the same ALT choices (those of ``source``),
    restricted to the categories of the subset's evaluation veil.
    """
    spans = None
    if cd is not None and run is not None:
        if params.evaluation is None:  # a campaign's report always has them
            raise ValueError("the span measures need the subset's settings (params.evaluation)")
        veil = parse_veil(params.evaluation.evaluation_veil(), read_grid(), "veil")
        spans = measure_evaluated(cd, run, source, meta, veil, params.resampling)
    outputs = run_ida2id(source, params, signature, output, spans)
    return [outputs.text_path, outputs.json_path]


def vizir(source: PathLike, output: PathLike, scenario: Scenario) -> list[Path]:
    result = run_vizir(source, scenario, output)
    return [result.output] if result.output is not None else []


def _nothing(*outputs: PathLike) -> list[Path]:
    """No output for this stage: remove what an earlier run left, so it cannot be read."""
    for output in outputs:
        Path(output).unlink(missing_ok=True)
    return []


def altmor(sources: Sequence[PathLike], output: PathLike) -> list[Path]:
    """AltinaMor of the Vizir output, if Vizir wrote one."""
    return [run_altmor(sources[0], output)] if sources else _nothing(output)


def ida2mor(
    sources: Sequence[PathLike],
    output: PathLike,
    signature: str,
    run: str,
    params: ReportParams,
) -> list[Path]:
    """Ida2Mor of the AltinaMor output, if there is one (intervals from ``params.bootstrap``)."""
    if not sources:
        return _nothing(output, json_twin(output))
    outputs = run_ida2mor(sources[0], params, signature, output, run)
    return [outputs.text_path, outputs.json_path]


def alts(source: PathLike, output: PathLike) -> list[Path]:
    return [run_alts(source, output)]


def emir(source: PathLike, output: PathLike, params: EmirParams) -> list[Path]:
    return [run_emir(source, params, output)]


def altsem(source: PathLike, output: PathLike) -> list[Path]:
    return [run_altsem(source, output)]


def ida(
    source: PathLike, output: PathLike, signature: str, params: ReportParams, grid: PathLike | None
) -> list[Path]:
    """The Ida report of an Emir file, and its JSON (``params`` says scenario and ALT)."""
    outputs = run_ida(source, params, signature, output, grid_path=grid)
    return [outputs.text_path, outputs.json_path]


def load_report(path: Path | None) -> dict[str, Any] | None:
    """A report's JSON without its per-document counts (those stay in the report itself)."""
    if path is None or not path.is_file():
        return None
    report = read_json_object(path)
    report.pop("documents", None)
    if isinstance(report.get("measures"), dict):
        report["measures"].pop("documents", None)
    return report


@dataclass(frozen=True, slots=True)
class ReportFiles:
    """Where the reports of one run × subset × scenario are (the pipeline names them).

    ``scenario`` and ``morphology`` are None when the collection has no MORF
    (no morphology chain); ``identification`` is None for a run whose
    reports are missing (its chain failed): an old file there is not read.
    """

    run: str
    run_path: Path
    subset: str
    scenario: str | None
    identification: Path | None
    morphology: Path | None
    classification: Path | None = None
    """The strict Ida report (``.emir.ida``, or ``.emir_relativo.ida`` for the relative rows)."""
    relaxed: Path | None = None
    """The relaxed Ida report (``.emir.altrel.ida``; absolute rows only)."""
    tempo: tuple[tuple[int, str, Path], ...] = ()
    """The TEMPO track's Ida reports ``(mode, strict|relaxed, JSON)`` (absolute rows only)."""
    rerelem: tuple[tuple[str, str, Path], ...] = ()
    """The ReRelEM summaries ``(NER veil, relation scenario, .resumo.json)`` (a run's first row)."""
    ceiling_of: str | None = None
    """A ceiling run's row: the model run whose ceiling it is."""


@dataclass(frozen=True, slots=True)
class VeilReportFile:
    """Where the Ida report's JSON of one run, subset, named veil and kind (``strict``,
    ``relaxed``, ``relative``) of the scenario grid is."""

    run: str
    subset: str
    veil: str
    kind: str
    path: Path


def collect_reports(files: Sequence[ReportFiles]) -> list[dict[str, Any]]:
    """Every report's JSON of the campaign, one entry per run × subset × scenario."""
    simulated = {f.run: f.ceiling_of is None and is_simulated(f.run_path) for f in files}
    return [
        {
            "run": f.run,
            **({"ceiling_of": f.ceiling_of} if f.ceiling_of else {}),
            "simulated": simulated[f.run],
            "subset": f.subset,
            "scenario": f.scenario,
            "identification": load_report(f.identification),
            "morphology": load_report(f.morphology),
            "classification": load_report(f.classification) if f.classification else None,
            "relaxed": load_report(f.relaxed) if f.relaxed else None,
            **({"tempo": _tempo_reports(f.tempo)} if f.tempo else {}),
            **({"rerelem": _rerelem_reports(f.rerelem)} if f.rerelem else {}),
        }
        for f in files
    ]


def _tempo_reports(files: Sequence[tuple[int, str, Path]]) -> list[dict[str, Any]]:
    """The TEMPO track's Ida JSONs of one row: mode (its official name), ALT scoring, report."""
    return [{"mode": MODE_NAMES[m], "alt": alt, "ida": load_report(path)} for m, alt, path in files]


def _rerelem_reports(files: Sequence[tuple[str, str, Path]]) -> list[dict[str, Any]]:
    """The ReRelEM ``.resumo.json`` of one row: NER veil, relation scenario, summary."""
    return [{"veil": v, "scenario": s, "resumo": load_report(path)} for v, s, path in files]


def no_morphology_note(collection: str) -> str:
    """The one sentence that says why a campaign has no morphology figures."""
    return (
        f"The collection {collection} has no MORF: the morphology chain was not run "
        "(no Vizir, AltinaMor or Ida2Mor outputs, no morphology figures)."
    )


def incomplete_note(runs: Sequence[str]) -> str:
    """The one sentence that says a summary lacks some runs, and which."""
    return (
        f"INCOMPLETE: the chain of {', '.join(runs)} failed, so its figures are missing "
        "here (shown as -); every other run is complete. Fix the failure and run again."
    )


def summary(
    campaign: Campaign,
    files: Sequence[ReportFiles],
    folder: PathLike,
    *,
    morphology: bool = True,
    incomplete: Sequence[str] = (),
    browsed: Sequence[str] = (),
    veil_files: Sequence[VeilReportFile] = (),
) -> list[Path]:
    """``summary.md``, ``summary.csv`` and ``summary.json`` (JSON last: it is the anchor).

    ``veil_files`` (a campaign with ``veils:``) add one row per run, subset,
    named veil and ALT to the CSV (its ``veil`` and ``alt`` columns) and to
    the JSON (``veil_rows``); the Markdown keeps the campaign's own rows.

    Without ``morphology`` (a collection with no MORF) the summary says so
    once; ``incomplete`` names the runs whose reports are missing, ``browsed``
    those whose alignment pages (``browse``) are written, which the report links.
    """
    folder = Path(folder)
    reports = collect_reports(files)
    rows = [
        summary_stage.build_row(
            r["run"],
            r["subset"],
            r["scenario"] or "-",
            r["identification"] or {},
            r["morphology"],
            r["classification"],
            r["relaxed"],
            r.get("ceiling_of"),
        )
        for r in reports
    ]
    notes = [] if morphology else [no_morphology_note(campaign.collection.name)]
    if incomplete:
        notes.insert(0, incomplete_note(incomplete))
    markdown, table = folder / "summary.md", folder / "summary.csv"
    tempo = tempo_rows(reports)
    text = summary_stage.format_markdown(rows, notes=notes, morphology=morphology)
    rerelem = rerelem_rows(reports)
    write_text_atomic(
        markdown, text + format_tempo_markdown(tempo) + format_rerelem_markdown(rerelem)
    )
    veil_rows = [
        summary_stage.build_veil_row(f.run, f.subset, f.veil, f.kind, load_report(f.path))
        for f in veil_files
    ]
    write_text_atomic(table, summary_stage.format_csv([*rows, *veil_rows]))
    data = json.loads(summary_stage.format_json(rows, veil_rows))
    data["campaign"] = {
        "collection": campaign.collection.name,
        "style": campaign.style,
        "runs": [run.name for run in campaign.runs],
        "morphology": morphology,
        "charts": campaign.charts,
        "browse": list(browsed),
    }
    if incomplete:
        data["incomplete"] = list(incomplete)
    data["notes"] = notes
    if tempo:
        data["tempo"] = tempo
    if rerelem:
        data["rerelem"] = rerelem
    data["reports"] = reports
    anchor = folder / "summary.json"
    write_text_atomic(anchor, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return [markdown, table, anchor]


def is_incomplete_summary(path: PathLike) -> bool:
    """Whether the summary at ``path`` was written after a failure (``incomplete`` in it)."""
    path = Path(path)
    return path.is_file() and "incomplete" in read_json_object(path)


def browse(
    cd: PathLike,
    run: PathLike,
    output: PathLike,
    avalida: PathLike,
    emir: PathLike | None,
    run_name: str,
) -> list[Path]:
    """``harem browse`` of a campaign run: its pages in the folder ``output``, replaced whole;
    every file written (the manifest pins each page)."""
    alignment_pages.write_browse(cd, run, output, avalida, emir, run_name)
    return sorted(path for path in Path(output).rglob("*") if path.is_file())


def browse_pages_version() -> str:
    """The digest of the code that draws the alignment pages (``pipeline.browse``)."""
    return alignment_pages.pages_version()


def report(
    summary_json: PathLike, output: PathLike, grid_json: PathLike | None = None
) -> list[Path]:
    return [write_report_html(summary_json, output, grid_json)]
