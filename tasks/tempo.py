"""The TEMPO track's tasks: AvalTEMPO on a subset's Emir files, then Ida on each ``.tempo``.

File names, for an Emir file ``X`` (the subset's ``….alts.emir`` and its
``.emir.altrel``) and the mode's name ``m`` (``estendido_completo``,
``estendido_semnorm``, ``estendido_sonorm``)::

    X.m.tempo  X.m.ERROS.txt (only when a value is wrong)  X.m.tempo.ida  X.m.tempo.ida.json

The modes are the campaign's ``tempo:`` setting (default: all three when the
collection has TEMPO attributes, none otherwise).

With ``veils:`` set, the same two tasks run on each official TEMPO veil's chain
(``X`` = ``….<subset>.<veil>.alts.emir``, the grid's files) and
:class:`OfficialTempoPages` writes ``official/resultados_TEMPO_<mode>_<veil>.html``
and its ``resultados_altrel_…`` twin (``docs/spec/tempo.md``, "Official order").
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import luigi

from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline import chain, official
from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.pipeline.semantic import semantic_report_params
from harem_pipeline.pipeline.tempo import (
    campaign_tempo_modes,
    tempo_names,
    tempo_page_prefix,
    tempo_page_veils,
    tempo_step,
)
from harem_pipeline.stages.tempo import MODE_NAMES
from tasks.base import CampaignTask, RunTask, StageTask, SubsetKeys
from tasks.pipeline import AltSem, Emir, OfficialPages

TEMPO_ALTS = (Alt.STRICT, Alt.RELAXED)
"""AvalTEMPO reads the strict ``.emir`` and the relaxed ``.emir.altrel`` (``Avaliacao.sh``)."""


class Tempo(RunTask, StageTask):
    """AvalTEMPO: the TEMPO attributes' credit added to an Emir file, in one mode."""

    stage = "tempo"
    subset: str = luigi.Parameter()
    mode: int = luigi.IntParameter()
    alt: Alt = luigi.EnumParameter(enum=Alt, default=Alt.STRICT)
    veil: str = luigi.Parameter(default="")
    """A named veil of ``veils:`` (the grid's chain); empty: the campaign's own chain."""

    def requires(self) -> Emir | AltSem:
        common = SubsetKeys(config=self.config, run_name=self.run_name, subset=self.subset)
        if self.alt is Alt.RELAXED:
            return AltSem(**common, veil=self.veil)
        return Emir(**common, veil=self.veil)

    def anchor(self) -> Path:
        return tempo_names(self.requires().anchor(), self.mode)[0]

    def output_names(self) -> list[Path]:
        return list(tempo_names(self.requires().anchor(), self.mode))

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def stage_params(self) -> dict[str, Any]:
        return {"mode": self.mode}

    def produce(self) -> list[Path]:
        return tempo_step(self.requires().anchor(), self.mode)


class TempoIda(RunTask, StageTask):
    """Ida on a ``.tempo`` file: the TEMPO track's figures, and its JSON twin."""

    stage = "ida"
    subset: str = luigi.Parameter()
    mode: int = luigi.IntParameter()
    alt: Alt = luigi.EnumParameter(enum=Alt, default=Alt.STRICT)
    veil: str = luigi.Parameter(default="")

    def requires(self) -> Tempo:
        return Tempo(
            config=self.config,
            run_name=self.run_name,
            subset=self.subset,
            mode=self.mode,
            alt=self.alt,
            veil=self.veil,
        )

    def params(self) -> ReportParams:
        veil = self.veil or None
        params = semantic_report_params(
            self.campaign, self.run_name, self.subset, Scenario.ABSOLUTE, self.alt, veil
        )
        return replace(params, tempo=MODE_NAMES[self.mode])

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


def tempo_modes(campaign: Campaign) -> tuple[int, ...]:
    """The modes the campaign runs (reads the collection when ``tempo:`` is left out)."""
    return campaign_tempo_modes(campaign.tempo, campaign.collection)


def tempo_reports(config: str, run: str, subset: str, modes: tuple[int, ...]) -> list[TempoIda]:
    """The TEMPO track's Ida reports of one run's subset: each mode, strict then relaxed."""
    return [
        TempoIda(config=config, run_name=run, subset=subset, mode=mode, alt=alt)
        for mode in modes
        for alt in TEMPO_ALTS
    ]


class OfficialTempoPages(CampaignTask, StageTask):
    """The official TEMPO pages: per mode and official TEMPO veil, the strict and relaxed
    page over every run's ``.tempo.ida`` (``resultados[_altrel]_TEMPO_<mode>_<veil>.html``).

    The veils are those of :data:`~harem_pipeline.pipeline.tempo.OFFICIAL_TEMPO_VEILS`
    that ``veils:`` lists (``veils: official`` lists all five); one it leaves out has no
    page.  The subset is the official pages' (``total`` when listed).
    """

    stage = "official_tempo"

    @property
    def subset(self) -> str:
        return OfficialPages(config=self.config).subset

    @property
    def veils(self) -> tuple[str, ...]:
        return tempo_page_veils(veil.name for veil in self.campaign.veils)

    def requires(self) -> list[TempoIda]:
        return [
            TempoIda(
                config=self.config,
                run_name=run.name,
                subset=self.subset,
                mode=mode,
                alt=alt,
                veil=veil,
            )
            for mode in tempo_modes(self.campaign)
            for veil in self.veils
            for run in self.campaign.runs
            for alt in TEMPO_ALTS
        ]

    def pages(self) -> dict[int, dict[str, list[official.OfficialRun]]]:
        """The ``.tempo.ida`` reports of every page: by mode, then by veil."""
        reports = {(t.mode, t.veil, t.run_name, t.alt): t.anchor() for t in self.requires()}
        return {
            mode: {
                veil: [
                    official.OfficialRun(
                        run.name,
                        reports[mode, veil, run.name, Alt.STRICT],
                        reports[mode, veil, run.name, Alt.RELAXED],
                    )
                    for run in self.campaign.runs
                ]
                for veil in self.veils
            }
            for mode in tempo_modes(self.campaign)
        }

    def anchor(self) -> Path:
        return self.output_names()[0]

    def output_names(self) -> list[Path]:
        folder = self.campaign.output / official.OFFICIAL_FOLDER
        return [
            folder / name
            for mode, veils in self.pages().items()
            for veil in sorted(veils)
            for name in official.page_names(veil, tempo_page_prefix(mode))
        ]

    def input_paths(self) -> list[Path]:
        return [task.anchor() for task in self.requires()]

    def produce(self) -> list[Path]:
        folder = self.campaign.output / official.OFFICIAL_FOLDER
        written: list[Path] = []
        for mode, veils in self.pages().items():
            prefix = tempo_page_prefix(mode)
            written += official.write_semantic_pages(folder, veils, prefix=prefix, tempo=True)
        return written


def official_tempo_pages(config: str, campaign: Campaign) -> list[OfficialTempoPages]:
    """The official TEMPO pages' task when the campaign has them: ``veils:`` lists an
    official TEMPO veil and the TEMPO track is on."""
    veils = tempo_page_veils(veil.name for veil in campaign.veils)
    return [OfficialTempoPages(config=config)] if veils and tempo_modes(campaign) else []
