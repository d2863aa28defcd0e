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

from functools import cached_property
from pathlib import Path
from typing import Any

import luigi

from harem_pipeline.errors import ConfigError
from harem_pipeline.pipeline import chain, preflight
from harem_pipeline.pipeline.config import SCENARIO_SUFFIX, Subset
from harem_pipeline.pipeline.manifest import manifest_path
from tasks.base import CampaignTask, RunTask, StageTask


def _subset(task: RunTask, name: str) -> Subset:
    for subset in task.campaign.subsets:
        if subset.name == name:
            return subset
    known = ", ".join(s.name for s in task.campaign.subsets)
    raise ConfigError(str(task.config), "subsets", f"no subset named {name!r}", known)


class Align(RunTask, StageTask):
    """AlinhEM: the run against the golden collection."""

    stage = "align"

    def anchor(self) -> Path:
        return self.folder / f"{self.run_name}.alinhado"

    def output_names(self) -> list[Path]:
        return [self.anchor(), chain.warnings_path(self.anchor())]

    def input_paths(self) -> list[Path]:
        return [
            self.campaign.collection,
            self.run_spec.path,
            *chain.existing([self.campaign.collection_meta]),
        ]

    def produce(self) -> list[Path]:
        return chain.align(
            self.campaign.collection,
            self.run_spec.path,
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
    subset = luigi.Parameter()
    style = luigi.Parameter(default="harem")

    def requires(self) -> Avalida:
        return Avalida(config=self.config, run_name=self.run_name)

    def anchor(self) -> Path:
        suffix = "" if self.style == "harem" else f".{self.style}"
        return self.folder / f"{self.run_name}.alinhado.avalida.{self.subset}{suffix}"

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor(), *chain.existing([self.campaign.collection_meta])]

    def stage_params(self) -> dict[str, Any]:
        subset = _subset(self, self.subset)
        return {
            "style": self.style,
            "veil": self.campaign.veil,
            "system_veil": self.run_spec.veil,
            "variant": subset.variant,
            "genre": subset.genre,
            "selective": subset.selective,
        }

    def produce(self) -> list[Path]:
        return chain.veus(
            self.requires().anchor(),
            self.anchor(),
            self.campaign.collection_meta,
            **self.stage_params(),
        )


class AltinaID(RunTask, StageTask):
    """AltinaID: the best alternative of every ALT block for identification."""

    stage = "altida"
    subset = luigi.Parameter()

    def requires(self) -> Veus:
        return Veus(
            config=self.config,
            run_name=self.run_name,
            subset=self.subset,
            style=self.campaign.style,
        )

    def anchor(self) -> Path:
        source = self.requires().anchor()
        return source.with_name(source.name + ".altida")

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def produce(self) -> list[Path]:
        return chain.altida(self.input_paths()[0], self.anchor())


class Ida2ID(RunTask, StageTask):
    """Ida2ID: the identification report and its JSON twin."""

    stage = "ida2id"
    subset = luigi.Parameter()

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
            self.run_spec.path,
            *chain.existing([self.campaign.collection_meta]),
        ]

    def span_veil(self) -> str:
        """The categories the subset looks at: the run's declared veil if selective."""
        selective = _subset(self, self.subset).selective
        return (self.run_spec.veil if selective else None) or self.campaign.veil

    def stage_params(self) -> dict[str, Any]:
        return {"bootstrap": self.campaign.bootstrap, "veil": self.span_veil()}

    def report_signature(self) -> str:
        return self.signature(subset=self.subset, style=self.campaign.style)

    def produce(self) -> list[Path]:
        return chain.ida2id(
            self.input_paths()[0],
            self.anchor(),
            self.report_signature(),
            self.campaign.bootstrap,
            self.campaign.collection,
            self.run_spec.path,
            self.campaign.collection_meta,
            self.span_veil(),
        )


class Vizir(RunTask, StageTask):
    """Vizir: morphological scoring of one subset in one scenario.

    When the system classified nothing morphologically Vizir writes no file
    (the original's rule); the manifest then records no output and the rest
    of the morphology chain produces nothing for this subset.
    """

    stage = "vizir"
    subset = luigi.Parameter()
    scenario = luigi.Parameter()

    def requires(self) -> Veus:
        return Veus(config=self.config, run_name=self.run_name, subset=self.subset, style="harem")

    @cached_property
    def suffix(self) -> str:
        return SCENARIO_SUFFIX[self.scenario]

    def anchor(self) -> Path:
        source = self.requires().anchor()
        return source.with_name(f"{source.name}.{self.suffix}.vizir")

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def stage_params(self) -> dict[str, Any]:
        return {"scenario": self.scenario}

    def produce(self) -> list[Path]:
        return chain.vizir(self.input_paths()[0], self.anchor(), self.scenario)


class AltinaMor(RunTask, StageTask):
    """AltinaMor: the best alternative of every ALT block for morphology."""

    stage = "altmor"
    subset = luigi.Parameter()
    scenario = luigi.Parameter()

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
    subset = luigi.Parameter()
    scenario = luigi.Parameter()

    def requires(self) -> AltinaMor:
        return AltinaMor(
            config=self.config, run_name=self.run_name, subset=self.subset, scenario=self.scenario
        )

    def anchor(self) -> Path:
        return self.requires().anchor().with_suffix(".ida2mor")

    def input_paths(self) -> list[Path]:
        return chain.existing([self.requires().anchor()])

    def stage_params(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "bootstrap": self.campaign.bootstrap}

    def report_signature(self) -> str:
        return self.signature(
            subset=self.subset, scenario=SCENARIO_SUFFIX[self.scenario], style="harem"
        )

    def produce(self) -> list[Path]:
        return chain.ida2mor(
            self.input_paths(),
            self.anchor(),
            self.scenario,
            self.report_signature(),
            self.run_name,
            self.subset,
            self.campaign.bootstrap,
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

    def reports(self) -> list[tuple[Ida2ID, Ida2Mor | None]]:
        """The identification and morphology report of every run × subset × scenario."""
        scenarios = self.campaign.scenarios if self.morphology else (None,)
        return [
            (
                Ida2ID(config=self.config, run_name=run.name, subset=subset.name),
                Ida2Mor(
                    config=self.config, run_name=run.name, subset=subset.name, scenario=scenario
                )
                if scenario
                else None,
            )
            for run in self.campaign.runs
            for subset in self.campaign.subsets
            for scenario in scenarios
        ]

    def requires(self) -> list[luigi.Task]:
        tasks = (task for pair in self.reports() for task in pair if task is not None)
        return list(dict.fromkeys(tasks))

    def stage_params(self) -> dict[str, Any]:
        return {"morphology": self.morphology}

    def report_files(self, missing: frozenset[str] = frozenset()) -> list[chain.ReportFiles]:
        """Where every report is; none for the ``missing`` runs (what is there is stale)."""
        return [
            chain.ReportFiles(
                ida2id.run_name,
                ida2id.run_spec.path,
                ida2id.subset,
                ida2mor.scenario if ida2mor else None,
                None if ida2id.run_name in missing else chain.json_twin(ida2id.anchor()),
                None
                if ida2mor is None or ida2id.run_name in missing
                else chain.json_twin(ida2mor.anchor()),
            )
            for ida2id, ida2mor in self.reports()
        ]

    def produce_incomplete(self) -> None:
        """After a failure: the summary and report of the runs complete now, marked
        incomplete, with no manifest (so they never pass as complete)."""
        missing = frozenset(
            ida2id.run_name
            for pair in self.reports()
            for ida2id in pair[:1]
            if not all(task.complete() for task in pair if task is not None)
        )
        folder = self.anchor().parent
        for name in (*self.output_names(), folder / "report.html"):
            manifest_path(name).unlink(missing_ok=True)
        incomplete = [run.name for run in self.campaign.runs if run.name in missing]
        chain.summary(
            self.campaign,
            self.report_files(missing),
            folder,
            morphology=self.morphology,
            incomplete=incomplete,
        )
        chain.report(self.anchor(), folder / "report.html")

    def anchor(self) -> Path:
        return self.campaign.output / "summary.json"

    def output_names(self) -> list[Path]:
        return [self.anchor().with_suffix(suffix) for suffix in (".json", ".md", ".csv")]

    def input_paths(self) -> list[Path]:
        return chain.existing(
            [
                *(chain.json_twin(t.anchor()) for t in self.requires()),
                *(run.path for run in self.campaign.runs),
            ]
        )

    def produce(self) -> list[Path]:
        return chain.summary(
            self.campaign, self.report_files(), self.anchor().parent, morphology=self.morphology
        )


class Report(CampaignTask, StageTask):
    """The self-contained HTML report, the campaign's last task."""

    stage = "report"

    def requires(self) -> Summary:
        return Summary(config=self.config)

    def anchor(self) -> Path:
        return self.campaign.output / "report.html"

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def produce(self) -> list[Path]:
        return chain.report(self.input_paths()[0], self.anchor())


class FullEvaluation(CampaignTask):
    """Everything ``pipeline.yaml`` asks for: every chain, the summary and the report.

    Made from the command line before anything is scheduled, so the campaign
    is checked here, whole, against its collection: a mistake stops the
    ``luigi`` command with its one line before any task runs.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        preflight.check_campaign(self.campaign)

    def requires(self) -> Report:
        return Report(config=self.config)

    def complete(self) -> bool:
        return self.requires().complete()


@RunTask.event_handler(luigi.Event.FAILURE)
def summarise_the_other_runs(task: RunTask, exception: BaseException) -> None:
    """A run's chain failed: the other runs still get a summary and report, marked
    incomplete (and no report of an earlier build stays as if it were current)."""
    Summary(config=task.config).produce_incomplete()


@RunTask.event_handler(luigi.Event.SUCCESS)
def refresh_an_incomplete_summary(task: RunTask) -> None:
    """A report finished after a failure: the incomplete summary takes it in."""
    if isinstance(task, Ida2ID | Ida2Mor) and chain.is_incomplete_summary(
        task.campaign.output / "summary.json"
    ):
        Summary(config=task.config).produce_incomplete()
