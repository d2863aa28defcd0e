"""The ReRelEM track's task: the relation chain on a run's ``.alts`` under one NER veil.

For the Alts file ``X.alts`` of the campaign's first subset under the named
veil ``v`` (``total``, ``cenario5``, in the named veils' style), the chain
writes ``X.alts.expandido`` … ``.triplas`` (and its relation-graph view
``.triplas.html``) once and, per relation scenario
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

from harem_pipeline.measures.resampling import Resampling
from harem_pipeline.pipeline.config import Campaign
from harem_pipeline.pipeline.official import OFFICIAL_FOLDER
from harem_pipeline.pipeline.rerelem import (
    RerelemSetting,
    campaign_rerelem,
    chain_names,
    page_name,
    rerelem_step,
    write_campaign_pages,
)
from tasks.base import CampaignTask, RunTask, StageTask
from tasks.pipeline import Alts


class Rerelem(RunTask, StageTask):
    """The ReRelEM chain on one run's ``.alts`` under one NER veil, every scenario."""

    stage = "rerelem"
    subset: str = luigi.Parameter()
    veil: str = luigi.Parameter()
    scenarios: tuple[str, ...] = luigi.TupleParameter()

    def requires(self) -> Alts:
        return Alts(config=self.config, run_name=self.run_name, subset=self.subset, veil=self.veil)

    def summaries(self) -> dict[str, Path]:
        """Each scenario's ``.resumo.json``."""
        return chain_names(self.requires().anchor(), self.scenarios)[1]

    def summary_texts(self) -> dict[str, Path]:
        """Each scenario's ``.resumo`` (what the official table reads)."""
        return {s: p.with_name(p.name.removesuffix(".json")) for s, p in self.summaries().items()}

    def anchor(self) -> Path:
        """The last scenario's ``.resumo`` (its JSON twin is what the summary reads)."""
        last = list(self.summaries().values())[-1]
        return last.with_name(last.name.removesuffix(".json"))

    def output_names(self) -> list[Path]:
        return chain_names(self.requires().anchor(), self.scenarios)[0]

    def input_paths(self) -> list[Path]:
        return [self.requires().anchor()]

    def stage_params(self) -> dict[str, Any]:
        return {
            "scenarios": list(self.scenarios),
            "veil": self.veil,
            "bootstrap": self.campaign.bootstrap,
        }

    def produce(self) -> list[Path]:
        resampling = Resampling(self.campaign.bootstrap)
        return rerelem_step(self.requires().anchor(), self.scenarios, resampling)


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


class RerelemPages(CampaignTask, StageTask):
    """The official ReRelEM pages (``GlobalRelationsReporter -depurar``): one per relation
    scenario and NER veil, a row per run, in ``official/`` as
    ``resultados_ReRelEM_<scenario>_<veil>.html``."""

    stage = "rerelem_pages"

    def requires(self) -> list[Rerelem]:
        plan = rerelem_plan(self.campaign)
        subset = self.campaign.subsets[0].name
        return [
            task
            for run in self.campaign.runs
            for task in rerelem_tasks(self.config, run.name, subset, plan)
        ]

    def pages(self) -> dict[tuple[str, str], list[tuple[str, Path]]]:
        """Each page's ``(run, .resumo)`` rows, by ``(veil, scenario)``."""
        pages: dict[tuple[str, str], list[tuple[str, Path]]] = {}
        for task in self.requires():
            for scenario, path in task.summary_texts().items():
                pages.setdefault((task.veil, scenario), []).append((task.run_name, path))
        return pages

    def anchor(self) -> Path:
        return self.output_names()[0]

    def output_names(self) -> list[Path]:
        folder = self.campaign.output / OFFICIAL_FOLDER
        return [folder / page_name(scenario, veil) for veil, scenario in self.pages()]

    def input_paths(self) -> list[Path]:
        return [path for rows in self.pages().values() for _, path in rows]

    def produce(self) -> list[Path]:
        return write_campaign_pages(self.campaign.output / OFFICIAL_FOLDER, self.pages())


def rerelem_pages(config: str, campaign: Campaign) -> list[RerelemPages]:
    """The official ReRelEM pages' task when the campaign runs the ReRelEM track."""
    return [RerelemPages(config=config)] if rerelem_plan(campaign).scenarios else []
