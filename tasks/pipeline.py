"""One Luigi task per HAREM stage, and ``FullEvaluation`` over a campaign.

Every task is thin: it names its inputs and outputs (the HAREM file names,
under ``<output>/<run>/``), calls one library function, and leaves
completion to ``StageTask`` (content digests, parameters, scoring version).

File names, for run ``r`` and subset ``s``::

    r.alinhado  r.aligner.stderr  r.alinhado.avalida
    r.alinhado.avalida.s                    Véus, style harem (the morphology chain reads it)
    r.alinhado.avalida.s.muc                Véus in the campaign's style, when it is not harem
    r.alinhado.avalida.s[.muc].altida  .ida2id  .ida2id.json
    r.alinhado.avalida.s.abs.vizir  .abs.altmor  .abs.ida2mor  .abs.ida2mor.json  (and .rel)
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import luigi

from harem_pipeline import __version__
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline import chain, official, preflight
from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.pipeline.manifest import (
    CAMPAIGN_MANIFEST,
    Places,
    campaign_manifest_matches,
    file_stamp,
    manifest_path,
    write_campaign_manifest,
)
from harem_pipeline.pipeline.params import ReportParams, SubsetParams, report_params, subset_params
from harem_pipeline.pipeline.semantic import emir_params, semantic_report_params
from harem_pipeline.stages.emir import EmirParams
from tasks.base import (
    CampaignTask,
    RunTask,
    StageTask,
    SubsetKeys,
    campaign_places,
    campaign_stamps,
    event_handler,
    replace_links,
    reread_campaign,
)

if TYPE_CHECKING:  # the tracks' modules import this one
    from harem_pipeline.pipeline.rerelem import RerelemSetting
    from tasks.rerelem import Rerelem
    from tasks.tempo import TempoIda


class ExportCeiling(RunTask, StageTask):
    """A ceiling run's predictions: the gold exported in its model run's label set
    (``chain.export_ceiling``), read back by the ceiling run's ``ImportRun``."""

    stage = "ceiling"

    @cached_property
    def model(self) -> ImportRun:
        """The import of the model run whose ceiling this is."""
        assert self.run_spec.ceiling_of is not None
        return ImportRun(config=self.config, run_name=self.run_spec.ceiling_of)

    def requires(self) -> ImportRun:
        return self.model

    def anchor(self) -> Path:
        return self.run_spec.path

    def output_names(self) -> list[Path]:
        return [self.anchor()]

    def input_paths(self) -> list[Path]:
        return [self.campaign.collection, self.model.anchor(), self.model.run_spec.path]

    def stage_params(self) -> dict[str, Any]:
        grid = None if self.campaign.grid is None else str(self.campaign.grid)
        return {"veil": self.run_spec.veil, "grid": grid, "only": self.run_spec.only_predicted}

    def produce(self) -> list[Path]:
        model = self.model.run_spec
        assert model.format is not None  # a ceiling is a model run's
        documents = None
        if model.only_predicted:
            documents = chain.predicted_documents(model.path, model.format)
        return chain.export_ceiling(
            self.campaign.collection,
            self.model.anchor(),
            self.anchor(),
            self.run_spec.veil,
            self.campaign.grid,
            documents,
        )


class ImportRun(RunTask, StageTask):
    """A model's predictions (``format:`` in pipeline.yaml) as a HAREM run over the CD."""

    stage = "import"

    def requires(self) -> list[ExportCeiling]:
        if self.run_spec.ceiling_of is None:
            return []
        return [ExportCeiling(config=self.config, run_name=self.run_name)]

    def anchor(self) -> Path:
        return self.harem_run

    def output_names(self) -> list[Path]:
        anchor = self.anchor()
        return [anchor, anchor.with_name(anchor.name + ".import.stderr")]

    def input_paths(self) -> list[Path]:
        return [self.run_spec.path, self.campaign.collection]

    def stage_params(self) -> dict[str, Any]:
        spec = self.run_spec
        params: dict[str, Any] = {
            "format": spec.format,
            "scheme": spec.scheme,
            "only": spec.only_predicted,
        }
        if spec.label_map:  # left out when empty: the runs without a map keep their manifests
            params["label_map"] = [list(pair) for pair in spec.label_map]
        return params

    def produce(self) -> list[Path]:
        spec = self.run_spec
        return chain.import_run(
            spec.path,
            str(spec.format),  # None (a HAREM run: nothing to import) is refused as a format
            self.campaign.collection,
            self.anchor(),
            spec.scheme,
            spec.only_predicted,
            dict(spec.label_map),
        )


class Align(RunTask, StageTask):
    """AlinhEM: the run (or the imported predictions) against the golden collection."""

    stage = "align"

    def requires(self) -> list[ImportRun]:
        if self.run_spec.format is None:
            return []
        return [ImportRun(config=self.config, run_name=self.run_name)]

    def anchor(self) -> Path:
        return self.folder / f"{self.run_name}.alinhado"

    def output_names(self) -> list[Path]:
        return [self.anchor(), chain.warnings_path(self.anchor())]

    def input_paths(self) -> list[Path]:
        return [
            self.campaign.collection,
            self.harem_run,
            *chain.existing([self.campaign.collection_meta]),
        ]

    def produce(self) -> list[Path]:
        return chain.align(
            self.campaign.collection,
            self.harem_run,
            self.anchor(),
            self.campaign.collection_meta,
        )


class Avalida(RunTask, StageTask):
    """AvalIDa: identification verdicts of the alignment."""

    stage = "avalida"

    def requires(self) -> Align:
        return Align(config=self.config, run_name=self.run_name)

    def anchor(self) -> Path:
        return self.folder / f"{self.run_name}.alinhado.avalida"

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def produce(self) -> list[Path]:
        return chain.avalida(self.input_paths()[0], self.anchor())


class Veus(RunTask, StageTask):
    """Véus: one subset of the evaluated alignment, in one style."""

    stage = "veus"
    subset: str = luigi.Parameter()
    style: str = luigi.Parameter(default="harem")
    veil: str = luigi.Parameter(default="")
    """A named veil of ``veils:`` (its name ends the file's); empty: the campaign's ``veil:``."""

    def requires(self) -> Avalida:
        return Avalida(config=self.config, run_name=self.run_name)

    def anchor(self) -> Path:
        if self.veil:  # the grid's chains: one per veil, sharing the run's AvalIDa
            return self.folder / f"{self.run_name}.alinhado.avalida.{self.subset}.{self.veil}"
        suffix = "" if self.style == "harem" else f".{self.style}"
        return self.folder / f"{self.run_name}.alinhado.avalida.{self.subset}{suffix}"

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor(), *chain.existing([self.campaign.collection_meta])]

    def params(self) -> SubsetParams:
        veil = self.veil or None
        return subset_params(self.campaign, self.run_name, self.subset, self.style, veil)

    def stage_params(self) -> dict[str, Any]:
        return self.params().manifest()

    def produce(self) -> list[Path]:
        return chain.veus(
            self.requires().anchor(), self.anchor(), self.campaign.collection_meta, self.params()
        )


class SubsetStep(RunTask, StageTask):
    """A step from a subset's Véus file in the campaign's style to ``<that file>.<suffix>``."""

    subset: str = luigi.Parameter()
    veil: str = luigi.Parameter(default="")
    suffix = ""

    def requires(self) -> Veus:
        style = self.campaign.veil_style if self.veil else self.campaign.style
        return Veus(
            config=self.config,
            run_name=self.run_name,
            subset=self.subset,
            style=style,
            veil=self.veil,
        )

    def anchor(self) -> Path:
        source = self.requires().anchor()
        return source.with_name(f"{source.name}.{self.suffix}")

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def step(self, source: Path, output: Path) -> list[Path]:
        raise NotImplementedError

    def produce(self) -> list[Path]:
        return self.step(self.input_paths()[0], self.anchor())


class AltinaID(SubsetStep):
    """AltinaID: the best alternative of every ALT block for identification."""

    stage = "altida"
    suffix = "altida"

    def step(self, source: Path, output: Path) -> list[Path]:
        return chain.altida(source, output)


class Ida2ID(RunTask, StageTask):
    """Ida2ID: the identification report and its JSON twin."""

    stage = "ida2id"
    subset: str = luigi.Parameter()

    def requires(self) -> AltinaID:
        return AltinaID(config=self.config, run_name=self.run_name, subset=self.subset)

    def anchor(self) -> Path:
        source = self.requires().requires().anchor()
        return source.with_name(source.name + ".ida2id")

    def input_paths(self) -> list[Path]:
        # The CD and the run: the span measures beside the identification ones read them.
        return [
            self.requires().anchor(),
            self.campaign.collection,
            self.harem_run,
            *chain.existing([self.campaign.collection_meta]),
        ]

    def params(self) -> ReportParams:
        return report_params(self.campaign, self.run_name, self.subset, self.campaign.style)

    def stage_params(self) -> dict[str, Any]:
        return self.params().manifest()

    def report_signature(self) -> str:
        return self.signature(self.params())

    def produce(self) -> list[Path]:
        return chain.ida2id(
            self.input_paths()[0],
            self.anchor(),
            self.report_signature(),
            self.params(),
            self.campaign.collection,
            self.harem_run,
            self.campaign.collection_meta,
        )


class Vizir(RunTask, StageTask):
    """Vizir: morphological scoring of one subset in one scenario.

    When the system classified nothing morphologically Vizir writes no file
    (the original's rule); the manifest then records no output and the rest
    of the morphology chain produces nothing for this subset.
    """

    stage = "vizir"
    subset: str = luigi.Parameter()
    scenario: Scenario = luigi.EnumParameter(enum=Scenario)

    def requires(self) -> Veus:
        return Veus(config=self.config, run_name=self.run_name, subset=self.subset, style="harem")

    def anchor(self) -> Path:
        source = self.requires().anchor()
        return source.with_name(f"{source.name}.{self.scenario.short}.vizir")

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def stage_params(self) -> dict[str, Any]:
        return {"scenario": self.scenario.value}

    def produce(self) -> list[Path]:
        return chain.vizir(self.input_paths()[0], self.anchor(), self.scenario)


class AltinaMor(RunTask, StageTask):
    """AltinaMor: the best alternative of every ALT block for morphology."""

    stage = "altmor"
    subset: str = luigi.Parameter()
    scenario: Scenario = luigi.EnumParameter(enum=Scenario)

    def requires(self) -> Vizir:
        return Vizir(
            config=self.config, run_name=self.run_name, subset=self.subset, scenario=self.scenario
        )

    def anchor(self) -> Path:
        return self.requires().anchor().with_suffix(".altmor")

    def input_paths(self) -> list[Path]:
        return chain.existing([self.requires().anchor()])

    def produce(self) -> list[Path]:
        return chain.altmor(self.input_paths(), self.anchor())


class Ida2Mor(RunTask, StageTask):
    """Ida2Mor: the morphology report and its JSON twin."""

    stage = "ida2mor"
    subset: str = luigi.Parameter()
    scenario: Scenario = luigi.EnumParameter(enum=Scenario)

    def requires(self) -> AltinaMor:
        return AltinaMor(
            config=self.config, run_name=self.run_name, subset=self.subset, scenario=self.scenario
        )

    def anchor(self) -> Path:
        return self.requires().anchor().with_suffix(".ida2mor")

    def input_paths(self) -> list[Path]:
        return chain.existing([self.requires().anchor()])

    def params(self) -> ReportParams:
        return report_params(self.campaign, self.run_name, self.subset, "harem", self.scenario)

    def stage_params(self) -> dict[str, Any]:
        return self.params().manifest()

    def report_signature(self) -> str:
        return self.signature(self.params())

    def produce(self) -> list[Path]:
        return chain.ida2mor(
            self.input_paths(), self.anchor(), self.report_signature(), self.run_name, self.params()
        )


class Alts(SubsetStep):
    """The ALT organiser: ALT weights on the Véus subset in the campaign's style."""

    stage = "alts"
    suffix = "alts"

    def step(self, source: Path, output: Path) -> list[Path]:
        return chain.alts(source, output)


class Emir(RunTask, StageTask):
    """Emir: the semantic classification (CSC) of every aligned pair, in one scenario."""

    stage = "emir"
    subset: str = luigi.Parameter()
    scenario: Scenario = luigi.EnumParameter(enum=Scenario, default=Scenario.ABSOLUTE)
    veil: str = luigi.Parameter(default="")

    def requires(self) -> Alts:
        return Alts(config=self.config, run_name=self.run_name, subset=self.subset, veil=self.veil)

    def params(self) -> EmirParams:
        return emir_params(self.campaign, self.scenario)

    def anchor(self) -> Path:
        source = self.requires().anchor()
        suffix = ".emir_relativo" if self.scenario is Scenario.RELATIVE else ".emir"
        return source.with_name(source.name + suffix)

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor(), *chain.existing([self.campaign.grid])]

    def stage_params(self) -> dict[str, Any]:
        params = asdict(self.params())
        if params["grid_path"] is not None:  # by its place in the campaign, as every input
            params["grid_path"] = self.places.key(params["grid_path"])
        return {"emir": params}

    def produce(self) -> list[Path]:
        return chain.emir(self.requires().anchor(), self.anchor(), self.params())


class AltSem(RunTask, StageTask):
    """ALTina: the relaxed ALT choice (the best alternative of every block) of the Emir file."""

    stage = "altsem"
    subset: str = luigi.Parameter()
    veil: str = luigi.Parameter(default="")

    def requires(self) -> Emir:
        return Emir(config=self.config, run_name=self.run_name, subset=self.subset, veil=self.veil)

    def anchor(self) -> Path:
        source = self.requires().anchor()
        return source.with_name(source.name + ".altrel")

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def produce(self) -> list[Path]:
        return chain.altsem(self.input_paths()[0], self.anchor())


class Ida(RunTask, StageTask):
    """Ida: the official global report (identification and classification) of an Emir file.

    A subset's reports: ``.emir.ida`` (absolute, strict), ``.emir.altrel.ida``
    (absolute, relaxed: ALTina reads the absolute Emir file) and
    ``.emir_relativo.ida`` (relative, strict).
    """

    stage = "ida"
    subset: str = luigi.Parameter()
    scenario: Scenario = luigi.EnumParameter(enum=Scenario, default=Scenario.ABSOLUTE)
    alt: Alt = luigi.EnumParameter(enum=Alt, default=Alt.STRICT)
    veil: str = luigi.Parameter(default="")

    @property
    def kind(self) -> str:
        """The report's label in the summary and the official pages: ``strict``,
        ``relaxed`` or ``relative``."""
        return "relative" if self.scenario is Scenario.RELATIVE else self.alt.value

    def requires(self) -> Emir | AltSem:
        common = SubsetKeys(config=self.config, run_name=self.run_name, subset=self.subset)
        if self.alt is Alt.RELAXED:
            return AltSem(**common, veil=self.veil)
        return Emir(**common, scenario=self.scenario, veil=self.veil)

    def params(self) -> ReportParams:
        return semantic_report_params(
            self.campaign, self.run_name, self.subset, self.scenario, self.alt, self.veil or None
        )

    def anchor(self) -> Path:
        source = self.requires().anchor()
        return source.with_name(source.name + ".ida")

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor(), *chain.existing([self.campaign.grid])]

    def stage_params(self) -> dict[str, Any]:
        return self.params().manifest()

    def report_signature(self) -> str:
        return self.signature(self.params())

    def produce(self) -> list[Path]:
        source = self.requires().anchor()
        params = self.params()
        return chain.ida(source, self.anchor(), self.report_signature(), params, self.campaign.grid)


def ida2id_scenario(ida2mor: Ida2Mor | None, strict: Ida) -> str:
    """The scenario a summary row is about: the morphology's, else the Ida's."""
    return (strict.scenario if ida2mor is None else ida2mor.scenario).value


class Browse(RunTask, StageTask):
    """``harem browse``: the run's alignments as static pages in ``<run>/browse/``, which
    the report links; the CSC from subset ``total``'s Emir file when the campaign has it.

    Its anchor is the folder (the manifest, ``browse.manifest.json``, beside
    it), and its manifest pins every page, so a page edited or deleted
    rebuilds the folder, whole.
    """

    stage = "browse"

    def emir(self) -> Emir | None:
        if not any(subset.name == "total" for subset in self.campaign.subsets):
            return None
        return Emir(config=self.config, run_name=self.run_name, subset="total")

    def requires(self) -> list[StageTask]:
        emir = self.emir()
        return [Avalida(config=self.config, run_name=self.run_name), *([emir] if emir else [])]

    def anchor(self) -> Path:
        return self.folder / "browse"

    def output_names(self) -> list[Path]:
        return [self.anchor()]

    def input_paths(self) -> list[Path]:
        return [self.campaign.collection, self.harem_run, *(t.anchor() for t in self.requires())]

    def stage_params(self) -> dict[str, Any]:
        return {"pages": chain.browse_pages_version()}

    def produce(self) -> list[Path]:
        emir = self.emir()
        return chain.browse(
            self.campaign.collection,
            self.harem_run,
            self.anchor(),
            self.requires()[0].anchor(),
            None if emir is None else emir.anchor(),
            self.run_name,
        )


class Summary(CampaignTask, StageTask):
    """The campaign summary (Markdown, CSV, JSON) over every run, subset and scenario."""

    stage = "summary"

    @cached_property
    def morphology(self) -> bool:
        """Whether the collection has MORF: without, no morphology chain is run at all."""
        return preflight.collection_has_morphology(
            self.campaign.collection, self.campaign.collection_meta
        )

    def reports(self) -> list[tuple[Ida2ID, Ida2Mor | None, Ida, Ida | None]]:
        """Every run × subset × scenario's reports: identification, morphology (none when
        the collection has no MORF), the strict Ida (the relative one for the relative
        scenario) and the relaxed Ida (absolute)."""
        rows = []
        for run in self.campaign.scored_runs:
            for subset in self.campaign.subsets:
                common = SubsetKeys(config=self.config, run_name=run.name, subset=subset.name)
                for scenario in map(Scenario, self.campaign.scenarios):
                    relative = scenario is Scenario.RELATIVE
                    rows.append(
                        (
                            Ida2ID(**common),
                            Ida2Mor(**common, scenario=scenario) if self.morphology else None,
                            Ida(**common, scenario=scenario),
                            None if relative else Ida(**common, alt=Alt.RELAXED),
                        )
                    )
        return rows

    @cached_property
    def tempo_modes(self) -> tuple[int, ...]:
        """The TEMPO track's modes (none unless the collection has TEMPO attributes)."""
        from tasks.tempo import tempo_modes

        return tempo_modes(self.campaign)

    def tempo_reports(self, run: str, subset: str) -> list[TempoIda]:
        """The TEMPO track's Ida reports of a run's subset (``tasks.tempo``)."""
        from tasks.tempo import tempo_reports

        return tempo_reports(self.config, run, subset, self.tempo_modes)

    @cached_property
    def rerelem_plan(self) -> RerelemSetting:
        """The ReRelEM track's scenarios × veils (none unless the collection has relations)."""
        from tasks.rerelem import rerelem_plan

        return rerelem_plan(self.campaign)

    def rerelem_tasks(self, run: str) -> list[Rerelem]:
        """The ReRelEM chains of a run, on the first subset (``tasks.rerelem``)."""
        from tasks.rerelem import rerelem_tasks

        subset = self.campaign.subsets[0].name
        return rerelem_tasks(self.config, run, subset, self.rerelem_plan)

    def veil_reports(self) -> list[Ida]:
        """The scenario grid's Ida reports (none without ``veils:``): one per run,
        subset, named veil and kind, those of the official pages."""
        if not self.campaign.veils:
            return []
        return [
            task for task in OfficialPages(config=self.config).requires() if isinstance(task, Ida)
        ]

    def veil_files(self, missing: frozenset[str] = frozenset()) -> list[chain.VeilReportFile]:
        """Where the scenario grid's reports are; none for the ``missing`` runs."""
        return [
            chain.VeilReportFile(t.run_name, t.subset, t.veil, t.kind, chain.json_twin(t.anchor()))
            for t in self.veil_reports()
            if t.run_name not in missing
        ]

    def requires(self) -> list[StageTask]:
        rows = self.reports()
        tasks: list[StageTask] = [task for row in rows for task in row if task is not None]
        for run in self.campaign.runs:
            for subset in self.campaign.subsets:
                tasks += self.tempo_reports(run.name, subset.name)
            tasks += self.rerelem_tasks(run.name)
        tasks += self.veil_reports()
        return [*dict.fromkeys(tasks), *self.browse()]

    def browse(self) -> list[Browse]:
        """Every run's alignment pages (none with ``browse: false``)."""
        if not self.campaign.browse:
            return []
        return [Browse(config=self.config, run_name=run.name) for run in self.campaign.runs]

    def stage_params(self) -> dict[str, Any]:
        return {
            "morphology": self.morphology,
            "charts": self.campaign.charts,
            "tempo": list(self.tempo_modes),
            "rerelem": [list(self.rerelem_plan.scenarios), list(self.rerelem_plan.veils)],
            "browse": self.campaign.browse,
        }

    def report_files(self, missing: frozenset[str] = frozenset()) -> list[chain.ReportFiles]:
        """Where every report is; none for the ``missing`` runs (what is there is stale)."""
        rows = self.reports()
        seen: set[Ida2ID] = set()
        files: list[chain.ReportFiles] = []
        for ida2id, ida2mor, strict, relaxed in rows:
            # The TEMPO reports go with a run's subset's first row, the ReRelEM ones with a
            # run's first row; a ceiling run has neither track.
            tracks = ida2id.run_spec.ceiling_of is None and ida2id.run_name not in missing
            first = ida2id not in seen
            seen.add(ida2id)
            ran = {f.run for f in files}
            files.append(
                chain.ReportFiles(
                    ida2id.run_name,
                    ida2id.run_spec.path,
                    ida2id.subset,
                    ida2id_scenario(ida2mor, strict),
                    None if ida2id.run_name in missing else chain.json_twin(ida2id.anchor()),
                    None
                    if ida2mor is None or ida2id.run_name in missing
                    else chain.json_twin(ida2mor.anchor()),
                    None if ida2id.run_name in missing else chain.json_twin(strict.anchor()),
                    None
                    if relaxed is None or ida2id.run_name in missing
                    else chain.json_twin(relaxed.anchor()),
                    tempo=self.tempo_files(ida2id) if tracks and first else (),
                    rerelem=self.rerelem_files(ida2id.run_name)
                    if tracks and ida2id.run_name not in ran
                    else (),
                    ceiling_of=ida2id.run_spec.ceiling_of,
                )
            )
        return files

    def tempo_files(self, ida2id: Ida2ID) -> tuple[tuple[int, str, Path], ...]:
        """The TEMPO reports ``(mode, ALT, JSON)`` of a run's subset (whatever the row's
        scenario: the track reads the absolute ``.emir`` and its ``.altrel``)."""
        return tuple(
            (task.mode, task.alt.value, chain.json_twin(task.anchor()))
            for task in self.tempo_reports(ida2id.run_name, ida2id.subset)
        )

    def rerelem_files(self, run: str) -> tuple[tuple[str, str, Path], ...]:
        """The ReRelEM summaries ``(veil, scenario, JSON)`` of a run."""
        return tuple(
            (task.veil, scenario, path)
            for task in self.rerelem_tasks(run)
            for scenario, path in task.summaries().items()
        )

    def missing_runs(self, runs: Iterable[str] | None = None) -> frozenset[str]:
        """The runs (of ``runs``; None: all) some report of which is not complete (a
        scenario grid's report included: a run is whole under every veil, or missing)."""
        wanted = None if runs is None else set(runs)
        missing = {
            ida2id.run_name
            for row in self.reports()
            for ida2id in row[:1]
            if not all(task.complete() for task in row if task is not None)
        }
        missing |= {task.run_name for task in self.veil_reports() if not task.complete()}
        return frozenset(run for run in missing if wanted is None or run in wanted)

    def produce_incomplete(self) -> None:
        """After a failure: the summary and report of the runs complete now, marked
        incomplete, with no manifest (so they never pass as complete)."""
        missing = self.missing_runs()
        folder = self.anchor().parent
        replace_links(folder, [*self.output_names(), folder / "report.html"])
        (folder / CAMPAIGN_MANIFEST).unlink(missing_ok=True)
        for name in (*self.output_names(), folder / "report.html"):
            manifest_path(name).unlink(missing_ok=True)
        incomplete = [run.name for run in self.campaign.scored_runs if run.name in missing]
        chain.summary(
            self.campaign,
            self.report_files(missing),
            folder,
            morphology=self.morphology,
            incomplete=incomplete,
            browsed=[
                t.run_name for t in self.browse() if t.run_name not in missing and t.complete()
            ],
            veil_files=self.veil_files(missing),
        )
        chain.report(self.anchor(), folder / "report.html")

    def anchor(self) -> Path:
        return self.campaign.output / "summary.json"

    def output_names(self) -> list[Path]:
        return [self.anchor().with_suffix(suffix) for suffix in (".json", ".md", ".csv")]

    def input_paths(self) -> list[Path]:
        return chain.existing(
            [
                *(
                    chain.json_twin(t.anchor())
                    for t in self.requires()
                    if not isinstance(t, Browse)
                ),
                *(run.path for run in self.campaign.runs),
            ]
        )

    def produce(self) -> list[Path]:
        return chain.summary(
            self.campaign,
            self.report_files(),
            self.anchor().parent,
            morphology=self.morphology,
            browsed=[task.run_name for task in self.browse()],
            veil_files=self.veil_files(),
        )


class OfficialPages(CampaignTask, StageTask):
    """The official result pages of ``veils:`` (``docs/spec/official-grid.md``).

    Two pages per veil (strict and relaxed ALT) and ``proprio`` (each run
    under the veil its ``veil:`` names, for the runs that name one), over
    the campaign's first subset (``total`` when listed); and the grid's
    summary, one row per run, subset, veil and ALT (``grid.csv``, ``grid.json``).
    """

    stage = "official"

    @property
    def subset(self) -> str:
        names = [subset.name for subset in self.campaign.subsets]
        return "total" if "total" in names else names[0]

    def requires(self) -> list[Ida2ID | Ida]:
        tasks: list[Ida2ID | Ida] = [
            Ida2ID(config=self.config, run_name=run.name, subset=self.subset)
            for run in self.campaign.runs
        ]
        for run in self.campaign.runs:
            for subset in self.campaign.subsets:
                common = SubsetKeys(config=self.config, run_name=run.name, subset=subset.name)
                for veil in self.campaign.veils:
                    for scenario, alt in self.kinds:
                        tasks.append(Ida(**common, scenario=scenario, alt=alt, veil=veil.name))
        return tasks

    @property
    def kinds(self) -> tuple[tuple[Scenario, Alt], ...]:
        """The Ida reports of every veil: strict and relaxed ALT, and the relative
        scenario's (``.emir_relativo.ida``) when the campaign scores it."""
        absolute = ((Scenario.ABSOLUTE, Alt.STRICT), (Scenario.ABSOLUTE, Alt.RELAXED))
        relative = Scenario.RELATIVE.value in self.campaign.scenarios
        return (*absolute, *([(Scenario.RELATIVE, Alt.STRICT)] if relative else []))

    def grid(self) -> list[official.GridReport]:
        """Every run, subset, veil and ALT's Ida report, for the grid's summary."""
        return [
            official.GridReport(t.run_name, t.subset, t.veil, t.kind, t.anchor())
            for t in self.requires()
            if isinstance(t, Ida)
        ]

    def pages(self) -> dict[str, list[official.OfficialRun]]:
        """The Ida reports of every page, by veil name (``proprio`` included)."""
        reports = {
            (t.run_name, t.veil, t.kind): t.anchor()
            for t in self.requires()
            if isinstance(t, Ida) and t.subset == self.subset
        }
        pages: dict[str, list[official.OfficialRun]] = {}
        for veil in self.campaign.veils:
            for run in self.campaign.runs:
                files = (
                    reports[run.name, veil.name, "strict"],
                    reports[run.name, veil.name, "relaxed"],
                )
                pages.setdefault(veil.name, []).append(official.OfficialRun(run.name, *files))
        for run in self.campaign.runs:
            if run.veil_name is not None:
                files = (
                    reports[run.name, run.veil_name, "strict"],
                    reports[run.name, run.veil_name, "relaxed"],
                )
                pages.setdefault("proprio", []).append(official.OfficialRun(run.name, *files))
        return pages

    def anchor(self) -> Path:
        return self.output_names()[0]

    def output_names(self) -> list[Path]:
        folder = self.campaign.output / official.OFFICIAL_FOLDER
        names = [name for veil in sorted(self.pages()) for name in official.page_names(veil)]
        identification = official.identification_page_name(self.subset)
        systems = official.system_report_names(list(self.systems()))
        return [folder / name for name in (*names, identification, *official.GRID_FILES, *systems)]

    def input_paths(self) -> list[Path]:
        return [task.anchor() for task in self.requires()]

    def produce(self) -> list[Path]:
        folder = self.campaign.output / official.OFFICIAL_FOLDER
        pages = official.write_semantic_pages(folder, self.pages())
        ida2id = {t.run_name: t.anchor() for t in self.requires() if isinstance(t, Ida2ID)}
        pages.append(official.write_identification_page(folder, ida2id, self.subset))
        pages += official.write_grid_summary(folder, self.grid())
        pages += official.write_system_reports(
            folder,
            self.grid(),
            self.systems(),
            self.subset,
            self.campaign.charts,
            own={run.name: run.veil_name for run in self.campaign.runs if run.veil_name},
            categories=official.category_veils((v.name, v.veil) for v in self.campaign.veils),
        )
        return pages

    def systems(self) -> dict[str, list[str]]:
        """The runs by system (``<system>_<n>`` names; README, "The scenario grid")."""
        return official.group_systems([run.name for run in self.campaign.runs])


class Report(CampaignTask, StageTask):
    """The self-contained HTML report, the campaign's last task."""

    stage = "report"

    def requires(self) -> list[StageTask]:
        summary: list[StageTask] = [Summary(config=self.config)]
        if self.campaign.veils:  # the official pages come with every build that has veils:
            summary.append(OfficialPages(config=self.config))
            from tasks.tempo import official_tempo_pages  # TEMPO veils × modes, when on

            summary += official_tempo_pages(self.config, self.campaign)
        from tasks.rerelem import rerelem_pages  # the ReRelEM track's official pages, when on

        summary += rerelem_pages(self.config, self.campaign)
        return summary

    def anchor(self) -> Path:
        return self.campaign.output / "report.html"

    def grid_json(self) -> Path | None:
        """The scenario grid's summary (``official/grid.json``) when ``veils:`` is set."""
        if not self.campaign.veils:
            return None
        return self.campaign.output / official.OFFICIAL_FOLDER / official.GRID_FILES[1]

    def input_paths(self) -> list[Path]:
        grid = self.grid_json()
        return [self.requires()[0].anchor(), *([grid] if grid is not None else [])]

    def produce(self) -> list[Path]:
        return chain.report(self.input_paths()[0], self.anchor(), self.grid_json())


def campaign_settings(campaign: Campaign) -> dict[str, Any]:
    """What decides every task of a campaign besides its files: the campaign's settings,
    the package's version, the stamps of the code that names tasks, inputs and
    parameters (this package and ``harem_pipeline.pipeline``) and the digest of the code
    that draws the alignment pages."""
    code = sorted(
        str(path)
        for folder in (Path(__file__).parent, Path(chain.__file__).parent)
        for path in folder.glob("*.py")
    )
    settings = {
        "campaign": _placed(asdict(campaign), campaign_places(campaign)),
        "version": __version__,
        "code": {path: file_stamp(path) for path in code},
    }
    if campaign.browse:  # the pages' own code lies outside those two folders
        settings["pages"] = chain.browse_pages_version()
    return settings


def _placed(value: Any, places: Places) -> Any:
    """``value`` with every path in it named by its place in the campaign (``Places.key``):
    the settings of a copied or moved campaign are those of the original."""
    if isinstance(value, Path):
        return places.key(value)
    if isinstance(value, dict):
        return {key: _placed(item, places) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_placed(item, places) for item in value]
    return value


class FullEvaluation(CampaignTask):
    """Everything ``pipeline.yaml`` asks for: every chain, the summary and the report.

    Made from the command line before anything is scheduled, so the campaign
    is read anew here (every task of the build shares what it read) and
    checked, whole, against its collection: a mistake stops the ``luigi``
    command with its one line before any task runs.

    Complete when the campaign manifest (``pipeline.manifest``) still
    matches: then no stage is checked at all (nor the collection read
    again; it passed these checks when the manifest was written).
    Otherwise every stage is checked, and when all are complete, or once
    they have run, the campaign manifest is written for the next build.
    """

    fresh: bool = luigi.BoolParameter(
        default=False,
        significant=False,
        description="the caller has just read pipeline.yaml for this build (harem run)",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.fresh:  # a build reads the campaign as it is when it starts
            reread_campaign(self.config)
        if not self.recorded:
            preflight.check_campaign(self.campaign)
            preflight.warn_campaign(self.campaign)

    @property
    def record(self) -> Path:
        return self.campaign.output / CAMPAIGN_MANIFEST

    @cached_property
    def recorded(self) -> bool:
        """Whether the campaign manifest said, when this build started, that every stage
        was complete."""
        return campaign_manifest_matches(self.record, campaign_settings(self.campaign), self.places)

    def requires(self) -> Report:
        return Report(config=self.config)

    def complete(self) -> bool:
        if self.recorded or self.write_record():
            return True
        # Tasks are about to run, each (with several workers) in a process forked
        # from this one: load what they import here once, and keep the collector
        # off the objects they share (it would copy every page it touches).
        chain.load_lazy_modules()
        gc.collect()
        gc.freeze()
        return False

    def run(self) -> None:
        self.write_record()

    def write_record(self) -> bool:
        """Check every stage; when all are complete, write the campaign manifest."""
        settings = campaign_settings(self.campaign)
        stamps = campaign_stamps(self.requires())
        if stamps is None:
            return False
        replace_links(self.campaign.output, [self.record])
        write_campaign_manifest(self.record, settings, stamps, self.places)
        return True


@event_handler(RunTask, luigi.Event.FAILURE)
def summarise_the_other_runs(task: RunTask, exception: BaseException) -> None:
    """A run's chain failed: the other runs still get a summary and report, marked
    incomplete (and no report of an earlier build stays as if it were current)."""
    Summary(config=task.config).produce_incomplete()


@event_handler(RunTask, luigi.Event.SUCCESS)
def refresh_an_incomplete_summary(task: RunTask) -> None:
    """A report that completes its run finished after a failure: the incomplete summary
    takes the run in.

    The incomplete summary shows the runs whose reports are all complete, so it
    changes only when a run's last report (identification, morphology or
    semantic, whichever finishes last) is written: it is refreshed then, once
    per run, not redrawn after every report of a campaign of many subsets
    (and once more when the run's alignment pages are, for the report's links).
    """
    if not isinstance(task, Ida2ID | Ida2Mor | Ida | Browse):
        return
    if not chain.is_incomplete_summary(task.campaign.output / "summary.json"):
        return
    summary = Summary(config=task.config)
    if not summary.missing_runs([task.run_name]):
        summary.produce_incomplete()
