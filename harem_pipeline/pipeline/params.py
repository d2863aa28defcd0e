"""Stage parameters: one object per stage, from which its call, manifest and signature derive.

Anything that can change a number is a field of a parameter object, and
the three uses read the same object: the stage is called with its fields,
the manifest records :meth:`~Params.manifest` (so a changed value reruns
the stage), and a report's signature carries :meth:`~Params.signature_fields`
(every field, in a fixed order) — so no setting that moves a figure can be
left out of the signature by accident.

Scoring policy that used to live in the task layer lives here too:
:meth:`SubsetParams.evaluation_veil` says which veil a subset is scored
with (a selective subset: the run's declared veil).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from harem_pipeline.errors import InputError
from harem_pipeline.measures.resampling import DEFAULT_RESAMPLES, DEFAULT_SEED, Resampling
from harem_pipeline.model import EVERYTHING, Alt, Scenario

if TYPE_CHECKING:  # only annotations: a report command need not load the campaign reader
    from harem_pipeline.pipeline.config import Campaign


@dataclass(frozen=True, slots=True)
class Params:
    """Base of every stage's parameters."""

    def manifest(self) -> dict[str, Any]:
        """The parameters a manifest records (every field, JSON-ready)."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SubsetParams(Params):
    """How Véus makes a subset: style, veils and the document filter.

    ``veil`` is the campaign's evaluation veil (Java syntax, ``*`` for all);
    ``system_veil`` the categories the run declared; a ``selective`` subset
    is evaluated with the declared veil only.
    """

    style: str = "harem"
    veil: str = EVERYTHING
    system_veil: str | None = None
    variant: str | None = None
    genre: str | None = None
    selective: bool = False

    def evaluation_veil(self) -> str:
        """The veil the subset's categories are scored with: the declared one when selective."""
        if not self.selective:
            return self.veil
        if not self.system_veil:
            raise InputError(None, "--system-veil for the selective scenario", "none")
        return self.system_veil


@dataclass(frozen=True, slots=True)
class ReportParams(Params):
    """Everything behind one report's numbers besides its input files.

    ``scenario`` is the morphology's or Emir's (None for identification);
    ``alt`` how ALT blocks were chosen; ``bootstrap`` and
    ``seed`` the document bootstrap of the intervals.
    """

    subset: str | None = None
    scenario: Scenario | None = None
    evaluation: SubsetParams | None = SubsetParams()
    alt: Alt = Alt.BEST
    weights: str | None = None
    penalties: bool | None = None
    grid: str | None = None
    bootstrap: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    tempo: str | None = None
    """The TEMPO track's mode of an Ida report of a ``.tempo`` file (``estendido_completo``…)."""
    documents: str | None = None
    """``predicted``: only the documents the predictions name were scored (None: all)."""

    @property
    def resampling(self) -> Resampling:
        """The document bootstrap of the report's intervals, whole."""
        return Resampling(self.bootstrap, self.seed)

    def manifest(self) -> dict[str, Any]:
        """Every field, the scenario and ALT spelled as the signature spells them."""
        values = Params.manifest(self)
        values["scenario"] = self.signature_fields()["scenario"]
        values["alt"] = self.alt.value
        return values

    def signature_fields(self) -> dict[str, str | None]:
        """Every field, in the signature's order (None values are left out when printed).

        ``evaluation`` is None for a report made outside a campaign from a
        file whose subset settings are not known (the file's digest pins it);
        ``weights``, ``penalties`` and ``grid`` are the semantic (Emir) ones.
        """
        e = self.evaluation
        penalties = None if self.penalties is None else ("yes" if self.penalties else "no")
        return {
            "subset": self.subset,
            "scenario": None if self.scenario is None else self.scenario.short,
            "style": None if e is None else e.style,
            "veil": None if e is None else e.evaluation_veil(),
            "sysveil": None if e is None else e.system_veil,
            "alt": self.alt.value,
            "weights": self.weights,
            "penalties": penalties,
            "grid": self.grid,
            "boot": str(self.bootstrap),
            "seed": str(self.seed),
            "tempo": self.tempo,
            "docs": self.documents,
        }


def subset_params(
    campaign: Campaign, run: str, subset: str, style: str, veil: str | None = None
) -> SubsetParams:
    """How the campaign makes ``subset`` of ``run`` in ``style`` (under the named veil
    ``veil`` of ``veils:``, else the campaign's one ``veil:``)."""
    chosen = campaign.subset(subset)
    return SubsetParams(
        style=style,
        veil=campaign.named_veil(veil).veil if veil else campaign.veil,
        system_veil=campaign.run(run).veil,
        variant=chosen.variant,
        genre=chosen.genre,
        selective=chosen.selective,
    )


def scored_documents(campaign: Campaign, run: str) -> str | None:
    """``predicted`` when the run scores only the documents its predictions name."""
    return "predicted" if campaign.run(run).only_predicted else None


def report_params(
    campaign: Campaign, run: str, subset: str, style: str, scenario: Scenario | None = None
) -> ReportParams:
    """The parameters of one report of the campaign (``scenario``: the morphology's, or None)."""
    return ReportParams(
        subset=subset,
        scenario=scenario,
        evaluation=subset_params(campaign, run, subset, style),
        bootstrap=campaign.bootstrap,
        documents=scored_documents(campaign, run),
    )
