"""The TEMPO track's tasks: AvalTEMPO on a subset's Emir files, then Ida on each ``.tempo``.

File names, for an Emir file ``X`` (the subset's ``….alts.emir`` and its
``.emir.altrel``) and the mode's name ``m`` (``estendido_completo``,
``estendido_semnorm``, ``estendido_sonorm``)::

    X.m.tempo  X.m.ERROS.txt (only when a value is wrong)  X.m.tempo.ida  X.m.tempo.ida.json

The modes are the campaign's ``tempo:`` setting (default: all three when the
collection has TEMPO attributes, none otherwise).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import luigi

from harem_pipeline.pipeline import chain
from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.pipeline.params import ReportParams, semantic_report_params
from harem_pipeline.pipeline.tempo import campaign_tempo_modes, tempo_names, tempo_step
from harem_pipeline.stages.tempo import MODE_NAMES
from tasks.base import RunTask, StageTask
from tasks.pipeline import AltSem, Emir

TEMPO_KINDS = ("strict", "relaxed")
"""AvalTEMPO reads the strict ``.emir`` and the relaxed ``.emir.altrel`` (``Avaliacao.sh``)."""


class Tempo(RunTask, StageTask):
    """AvalTEMPO: the TEMPO attributes' credit added to an Emir file, in one mode."""

    stage = "tempo"
    subset = luigi.Parameter()
    mode = luigi.IntParameter()
    kind = luigi.ChoiceParameter(choices=TEMPO_KINDS, default="strict")

    def requires(self) -> Emir | AltSem:
        common = {"config": self.config, "run_name": self.run_name, "subset": self.subset}
        return AltSem(**common) if self.kind == "relaxed" else Emir(**common)

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
    subset = luigi.Parameter()
    mode = luigi.IntParameter()
    kind = luigi.ChoiceParameter(choices=TEMPO_KINDS, default="strict")

    def requires(self) -> Tempo:
        return Tempo(
            config=self.config,
            run_name=self.run_name,
            subset=self.subset,
            mode=self.mode,
            kind=self.kind,
        )

    def params(self) -> ReportParams:
        params = semantic_report_params(self.campaign, self.run_name, self.subset, "abs", self.kind)
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
        TempoIda(config=config, run_name=run, subset=subset, mode=mode, kind=kind)
        for mode in modes
        for kind in TEMPO_KINDS
    ]
