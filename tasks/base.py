"""The one Luigi base class every stage task derives from.

A stage task is complete when the manifest beside its output matches the
content of its inputs, its parameters and the scoring version now
(``harem_pipeline.pipeline.manifest``).  Its Luigi target is that manifest, which is
written last: the outputs first, atomically, then the manifest.  ``run()``
calls one library function; no scoring happens here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property, wraps
from pathlib import Path
from typing import Any, TypedDict, TypeVar, cast

import luigi
import luigi.rpc
import luigi.scheduler
import luigi.worker

from harem_pipeline.pipeline.config import Campaign, RunSpec, load_campaign
from harem_pipeline.pipeline.manifest import (
    Places,
    Stamp,
    add_stamps,
    check_complete,
    file_stamp,
    manifest_path,
    snapshot_inputs,
    write_manifest,
)
from harem_pipeline.pipeline.params import ReportParams
from harem_pipeline.pipeline.signature import report_signature, short_digest
from harem_pipeline.text.atomic import remove_stale_temporaries

_CAMPAIGNS: dict[str, Campaign] = {}
"""The campaign of each ``config`` as this build read it (see ``campaign_of``)."""


def campaign_of(config: str) -> Campaign:
    """``config``'s campaign, read and validated once per build, shared by every task.

    A campaign of twenty runs has some two thousand task instances; reading
    and validating ``pipeline.yaml`` for each (globs, every output name
    against every run pattern) cost more than the tasks' own completeness
    checks.  A build starts with ``FullEvaluation``, which reads the file
    anew (``reread_campaign``), so a process that builds twice sees the
    campaign as it is at the start of each build.
    """
    campaign = _CAMPAIGNS.get(config)
    if campaign is None:
        campaign = _CAMPAIGNS[config] = load_campaign(config)
    return campaign


def reread_campaign(config: str) -> Campaign:
    """Forget what an earlier build read of ``config`` and read it now."""
    _CAMPAIGNS.pop(config, None)
    return campaign_of(config)


class CampaignTask(luigi.Task):
    """A task that belongs to the campaign described by ``config``."""

    config: str = luigi.Parameter(default="pipeline.yaml", description="path of pipeline.yaml")

    @cached_property
    def campaign(self) -> Campaign:
        return campaign_of(self.config)

    @cached_property
    def places(self) -> Places:
        """Where this campaign's manifests name their files from (so a copied or moved
        campaign is still complete)."""
        return campaign_places(self.campaign)


def campaign_places(campaign: Campaign) -> Places:
    """The folders of ``campaign``'s ``pipeline.yaml`` and of its outputs."""
    return Places(campaign.source.parent, campaign.output)


class SubsetKeys(TypedDict):
    """The parameters that name a run's subset in a campaign, shared by most stage tasks."""

    config: str
    run_name: str
    subset: str


class RunTask(CampaignTask):
    """A task about one system run of the campaign."""

    run_name: str = luigi.Parameter(description="name of the run in pipeline.yaml")

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


def replace_links(root: Path, paths: Iterable[Path]) -> None:
    """Remove every symbolic link on the way from the output folder ``root`` to ``paths``
    (the links themselves, never what they lead to), so what a stage then writes there is
    a real file of the campaign's own.

    The writer follows a link at a target's name (a user's ``-o`` through a
    link writes where it leads), so a link planted in a campaign's output
    folder, ``out/a/a.alinhado -> ../../victim.txt``, would have the build
    overwrite a file outside it.  The output folder is the campaign's: the
    link is replaced by the real file (a run folder that is a link, by a real
    folder).  ``root`` itself may be a link (the configuration resolves it).
    """
    for path in paths:
        try:
            parts = Path(os.path.abspath(path)).relative_to(root).parts
        except ValueError:
            continue  # not in the output folder
        current = root
        for part in parts:
            current = current / part
            if current.is_symlink():
                current.unlink(missing_ok=True)
            if not current.is_dir():
                break  # nothing further down exists yet (or it is the file itself)


Required = TypeVar("Required")


def remembered(requires: Callable[[Any], Required]) -> Callable[[Any], Required]:
    """``requires`` made once per task instance.

    A task's requirements follow from its parameters and the build's
    campaign alone, and every anchor, input list and completeness check asks
    for them again: through Luigi's task registry each ask cost more than the
    manifest checks themselves.
    """

    @wraps(requires)
    def once(task: Any) -> Required:
        try:
            return task.__dict__["_requirements"]
        except KeyError:
            made = task.__dict__["_requirements"] = requires(task)
            return made

    return once


class StageTask(luigi.Task):
    """Mixin: completion by manifest; subclasses say what they read, write and do."""

    stage: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "requires" in cls.__dict__:
            once = remembered(cls.__dict__["requires"])
            cls.requires = once  # type: ignore[method-assign, assignment]  # made once a task

    @property
    def places(self) -> Places | None:
        """Where the manifests name files from (a campaign's task says; None: as given)."""
        return None

    def requires(self) -> StageTask | Sequence[StageTask]:
        """The stages this one reads the outputs of (as Luigi's default: none)."""
        return []

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
        done = self.own_stamps() is not None
        # A task found complete stays complete for the rest of this build (nothing
        # upstream of it will run), so the many downstream checks that reach it
        # need not read its manifest again.  An incomplete answer is never
        # remembered.  Luigi caches task instances per process: a process that
        # builds twice clears that cache first (as ``harem run`` does).
        self._known_complete = done
        return done

    def own_stamps(self) -> dict[str, Stamp] | None:
        """This stage's own check (not upstream's): the stamps of the files it read, or
        None when the stage must run.

        The names it may write are stamped first, present or not: a later
        stage's inputs can depend on whether one exists (Vizir writes nothing
        for a run without morphology).
        """
        stamps = {str(name): file_stamp(name) for name in self.output_names()}
        checked = check_complete(
            self.anchor(), self.stage, self.stage_params(), self.input_paths(), self.places
        )
        if checked is None:
            return None
        add_stamps(stamps, checked)
        return stamps

    def run(self) -> None:
        if self.places is not None:
            replace_links(self.places.output, [*self.output_names(), manifest_path(self.anchor())])
        for name in self.output_names():
            remove_stale_temporaries(name)
        inputs = snapshot_inputs(self.anchor(), self.input_paths(), self.places)
        outputs = self.produce()
        write_manifest(
            self.anchor(),
            self.stage,
            self.stage_params(),
            inputs,
            outputs,
            signature=self.report_signature(),
            places=self.places,
        )


def campaign_stamps(root: luigi.Task) -> dict[str, Stamp] | None:
    """Check every stage ``root`` needs, as ``complete()`` does but anew, and return the
    stamps of every file those checks read; None when a stage must run.

    Each stage is checked once, after everything upstream of it, and every
    stamp is taken by the check it stands for, never after it.
    """
    stamps: dict[str, Stamp] = {}
    seen: dict[luigi.Task, bool] = {}

    def is_complete(task: luigi.Task) -> bool:
        if task not in seen:
            own = None
            if isinstance(task, StageTask) and all(
                is_complete(t) for t in luigi.task.flatten(task.requires())
            ):
                own = task.own_stamps()
            if own is not None:
                add_stamps(stamps, own)
            seen[task] = own is not None
        return seen[task]

    return stamps if is_complete(root) else None


class BuildSchedulerFactory:
    """Luigi's scheduler and worker for one build, with a local scheduler that does
    not prune before handing out each task.

    Pruning drops finished tasks after a delay and the tasks of workers gone
    silent: what a long-lived ``luigid`` needs.  In a build with its own local
    scheduler it finds nothing to drop, yet Luigi's default local scheduler
    does it on every request for work, a walk over every task: quadratic in
    the tasks over a build (seconds for the 1,600 tasks of 20 runs), in the
    one process that hands out the work while a worker waits for it.
    """

    def create_local_scheduler(self) -> luigi.scheduler.Scheduler:
        return luigi.scheduler.Scheduler(prune_on_get_work=False, record_task_history=False)

    def create_remote_scheduler(self, url: str) -> luigi.rpc.RemoteScheduler:
        return luigi.rpc.RemoteScheduler(url)

    def create_worker(
        self, scheduler: luigi.scheduler.Scheduler, worker_processes: int, assistant: bool = False
    ) -> luigi.worker.Worker:
        return luigi.worker.Worker(
            scheduler=scheduler, worker_processes=worker_processes, assistant=assistant
        )


Handler = TypeVar("Handler", bound=Callable[..., None])


def event_handler(cls: type[luigi.Task], event: str) -> Callable[[Handler], Handler]:
    """``cls.event_handler(event)`` with its type (Luigi's is untyped): the decorator that
    calls the function it decorates on ``event`` of any task of ``cls``."""
    register = cast(Callable[[str], Callable[[Handler], Handler]], cls.event_handler)
    return register(event)
