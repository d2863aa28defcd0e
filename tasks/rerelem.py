"""The ReRelEM track's task: the relation chain on a run's ``.alts`` under one NER veil.

For the Alts file ``X.alts`` of the campaign's first subset under the named
veil ``v`` (``total``, ``cenario5``, in the named veils' style), the chain
writes ``X.alts.expandido`` … ``.triplas`` once and, per relation scenario
``s``, ``….triplas.s.filtrado``, ``.avaliado``, ``.resumo`` and
``.resumo.json`` (``harem_pipeline.pipeline.rerelem.run_chain``).  The
scenarios and veils are the campaign's ``rerelem:`` setting (default: the
official 5 × {total, cenario5} when the collection has relations, none
otherwise).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import luigi

from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.pipeline.rerelem import (
    RerelemSetting,
    campaign_rerelem,
    chain_names,
    rerelem_step,
)
from tasks.base import RunTask, StageTask
from tasks.pipeline import Alts


class Rerelem(RunTask, StageTask):
    """The ReRelEM chain on one run's ``.alts`` under one NER veil, every scenario."""

    stage = "rerelem"
    subset = luigi.Parameter()
    veil = luigi.Parameter()
    scenarios = luigi.TupleParameter()

    def requires(self) -> Alts:
        return Alts(config=self.config, run_name=self.run_name, subset=self.subset, veil=self.veil)

    def summaries(self) -> dict[str, Path]:
        """Each scenario's ``.resumo.json``."""
        return chain_names(self.requires().anchor(), self.scenarios)[1]

    def anchor(self) -> Path:
        """The last scenario's ``.resumo`` (its JSON twin is what the summary reads)."""
        last = list(self.summaries().values())[-1]
        return last.with_name(last.name.removesuffix(".json"))

    def output_names(self) -> list[Path]:
        return chain_names(self.requires().anchor(), self.scenarios)[0]

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def stage_params(self) -> dict[str, Any]:
        return {"scenarios": list(self.scenarios), "veil": self.veil}

    def produce(self) -> list[Path]:
        return rerelem_step(self.requires().anchor(), self.scenarios)


def rerelem_plan(campaign: Campaign) -> RerelemSetting:
    """What the campaign runs (reads the collection when ``rerelem:`` is left out)."""
    return campaign_rerelem(campaign.rerelem, campaign.collection)


def rerelem_tasks(config: str, run: str, subset: str, plan: RerelemSetting) -> list[Rerelem]:
    """The ReRelEM chains of one run: one per NER veil of ``plan``."""
    if not plan.scenarios:
        return []
    return [
        Rerelem(config=config, run_name=run, subset=subset, veil=veil, scenarios=plan.scenarios)
        for veil in plan.veils
    ]
