"""Span-measure reports of a HAREM run against its golden collection: read both, let
AltinaID choose the alternatives (or take a campaign's choices), count
(:mod:`harem_pipeline.stages.harem_spans`), measure and sign.

The CoNLL and JSON-lines files' reports are :mod:`harem_pipeline.pipeline.spans`'s.
"""

from __future__ import annotations

from harem_pipeline.formats.alinhado import iter_lines
from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.formats.veils import format_veil, parse_veil, read_grid
from harem_pipeline.measures.resampling import BOOTSTRAP, Resampling
from harem_pipeline.measures.spans import MeasuresReport, span_report
from harem_pipeline.model import Collection, Veil
from harem_pipeline.pipeline.align import check_collections_share_documents
from harem_pipeline.pipeline.params import SubsetParams
from harem_pipeline.pipeline.signature import Signature, short_digest
from harem_pipeline.pipeline.spans import bootstrap_fields, restriction_fields
from harem_pipeline.stages.harem_spans import (
    FORMAT,
    AltChoices,
    choose_alternatives,
    count_collections,
    read_alt_choices,
)
from harem_pipeline.stages.span_measures import COUNT_DEFAULTS, CountOptions
from harem_pipeline.text import PathLike


def harem_signature(
    cd_path: PathLike,
    run_path: PathLike,
    veil: Veil | None = None,
    resampling: Resampling = BOOTSTRAP,
    options: CountOptions = COUNT_DEFAULTS,
    selective: bool = False,
) -> Signature:
    """``…|measures:spans|format:harem|cd:<sha12>|run:<sha12>|veil:…|alt:best|boot:N|seed:S``
    (``selective:yes``, ``labels:``, ``ignore:`` and ``overlap:`` when set)."""
    return Signature.build(
        measures="spans",
        format=FORMAT,
        cd=short_digest(cd_path),
        run=short_digest(run_path),
        veil=None if veil is None or veil.everything else format_veil(veil),
        selective="yes" if selective else None,
        **restriction_fields(options),
        alt="best",
        **bootstrap_fields(resampling),
    )


def measure_collections(
    cd: Collection,
    run: Collection,
    alt_choices: AltChoices | None = None,
    veil: Veil | None = None,
    signature: Signature | None = None,
    resampling: Resampling = BOOTSTRAP,
    options: CountOptions = COUNT_DEFAULTS,
) -> MeasuresReport:
    """The span measures of ``run`` against ``cd`` (already read), with per-document counts
    (``options`` as :func:`~harem_pipeline.stages.harem_spans.count_collections` reads them)."""
    counted = count_collections(cd, run, alt_choices, veil, options)
    signature = signature or Signature.build(measures="spans", format=FORMAT)
    return span_report(counted, signature.format(), resampling)


def measure_harem(
    cd_path: PathLike,
    run_path: PathLike,
    meta_path: PathLike | None = None,
    resampling: Resampling = BOOTSTRAP,
    *,
    evaluation: SubsetParams | None = None,
    options: CountOptions = COUNT_DEFAULTS,
) -> MeasuresReport:
    """``harem measures --cd CD --run RUN``: read both, let AltinaID choose, measure.

    ``evaluation`` gives the campaign's evaluation veil and selective
    scenario (:meth:`SubsetParams.evaluation_veil`: a selective run is
    scored on the categories it declared); None scores every category.
    ``options`` as :func:`~harem_pipeline.stages.harem_spans.count_collections`
    reads them.
    """
    veil = None
    if evaluation is not None:
        veil = parse_veil(evaluation.evaluation_veil(), read_grid(), "--veil")
    cd = read_collection(cd_path, meta_path)
    run = read_collection(run_path)
    check_collections_share_documents(cd, run)
    selective = evaluation is not None and evaluation.selective
    signature = harem_signature(cd_path, run_path, veil, resampling, options, selective)
    return measure_collections(
        cd, run, choose_alternatives(cd, run), veil, signature, resampling, options
    )


def measure_evaluated(
    cd_path: PathLike,
    run_path: PathLike,
    evaluated_path: PathLike,
    meta_path: PathLike | None = None,
    veil: Veil | None = None,
    resampling: Resampling = BOOTSTRAP,
) -> MeasuresReport:
    """The span measures beside an Ida2ID report of ``evaluated_path`` (an ``.altida``).

    Its documents (a Véus subset's) and its ALT choices are the ones
    measured; ``veil`` is the subset's category veil.
    """
    _, lines = iter_lines(evaluated_path)
    choices = read_alt_choices(lines)
    signature = harem_signature(cd_path, run_path, veil, resampling)
    return measure_collections(
        read_collection(cd_path, meta_path),
        read_collection(run_path),
        choices,
        veil,
        signature,
        resampling,
    )
