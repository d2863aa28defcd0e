"""The one Luigi base class every stage task derives from.

A stage task is complete when the manifest beside its output matches the
content of its inputs, its parameters and the scoring version now
(``harem_pipeline.pipeline.manifest``).  Its Luigi target is that manifest, which is
written last: the outputs first, atomically, then the manifest.  ``run()``
calls one library function; no scoring happens here.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

import luigi

from harem_pipeline.pipeline.config import Campaign, RunSpec, load_campaign
from harem_pipeline.pipeline.manifest import (
    is_complete,
    manifest_path,
    snapshot_inputs,
    write_manifest,
)
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.pipeline.signature import report_signature, short_digest
from harem_pipeline.text.atomic import remove_stale_temporaries


class CampaignTask(luigi.Task):
    """A task that belongs to the campaign described by ``config``."""

    config = luigi.Parameter(default="pipeline.yaml", description="path of pipeline.yaml")

    @cached_property
    def campaign(self) -> Campaign:
        return load_campaign(self.config)


class RunTask(CampaignTask):
    """A task about one system run of the campaign."""

    run_name = luigi.Parameter(description="name of the run in pipeline.yaml")

    @cached_property
    def run_spec(self) -> RunSpec:
        return self.campaign.run(self.run_name)

    @cached_property
    def digests(self) -> tuple[str, str]:
        """Short digests of the collection and of this run, for the signatures."""
        return short_digest(self.campaign.collection), short_digest(self.run_spec.path)

    @property
    def folder(self) -> Path:
        return self.campaign.output / self.run_name

    @property
    def harem_run(self) -> Path:
        """The HAREM run the chain scores: the run file, or a model's predictions imported."""
        if self.run_spec.format is None:
            return self.run_spec.path
        return self.folder / f"{self.run_name}.run"

    def signature(self, params: ReportParams) -> str:
        """The reproducibility signature of one of this run's reports."""
        cd, run = self.digests
        return report_signature(params, cd=cd, run=run).format()


class StageTask(luigi.Task):
    """Mixin: completion by manifest; subclasses say what they read, write and do."""

    stage: str = ""

    def anchor(self) -> Path:
        """The main output; its manifest is the task's Luigi target."""
        raise NotImplementedError

    def input_paths(self) -> list[Path]:
        """Every file whose content determines the outputs."""
        raise NotImplementedError

    def stage_params(self) -> dict[str, Any]:
        """Parameters that change the outputs (recorded in the manifest)."""
        return {}

    def produce(self) -> list[Path]:
        """Write the outputs (atomically) and return their paths."""
        raise NotImplementedError

    def report_signature(self) -> str | None:
        return None

    def output_names(self) -> list[Path]:
        """Every file this task may write (for sweeping a killed run's temporaries)."""
        anchor = self.anchor()
        return [anchor, anchor.with_name(anchor.name + ".json")]

    def output(self) -> luigi.LocalTarget:
        return luigi.LocalTarget(str(manifest_path(self.anchor())))

    def complete(self) -> bool:
        """Complete when this stage's manifest matches now *and* every upstream stage is.

        Upstream first: a changed source file must rerun the whole chain below
        it, although the next stage's own input has not changed yet.
        """
        if getattr(self, "_known_complete", False):
            return True
        upstream = luigi.task.flatten(self.requires())
        if not all(task.complete() for task in upstream):
            return False
        done = is_complete(self.anchor(), self.stage, self.stage_params(), self.input_paths())
        # A task found complete stays complete for the rest of this build (nothing
        # upstream of it will run), so the many downstream checks that reach it
        # need not read its manifest again.  An incomplete answer is never
        # remembered.  Luigi caches task instances per process: a process that
        # builds twice clears that cache first (as ``harem run`` does).
        self._known_complete = done
        return done

    def run(self) -> None:
        for name in self.output_names():
            remove_stale_temporaries(name)
        inputs = snapshot_inputs(self.anchor(), self.input_paths())
        outputs = self.produce()
        write_manifest(
            self.anchor(),
            self.stage,
            self.stage_params(),
            inputs,
            outputs,
            signature=self.report_signature(),
        )
