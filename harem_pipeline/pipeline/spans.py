"""Span-measure reports of files: count (stages), measure (measures), sign (here).

The shell over :mod:`harem_pipeline.stages.span_measures` (CoNLL, JSON
lines) and :mod:`harem_pipeline.stages.harem_spans` (a HAREM run against
its collection): each function reads its inputs, has them counted, and
returns the :class:`~harem_pipeline.measures.spans.MeasuresReport` with the
signature that pins its numbers to the inputs.  Rendering is
:mod:`harem_pipeline.reports.measures`'s.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from harem_pipeline.errors import InputError
from harem_pipeline.measures.resampling import BOOTSTRAP, Resampling
from harem_pipeline.measures.spans import MeasuresReport, span_report
from harem_pipeline.pipeline.parallel import apart, ordered_map
from harem_pipeline.pipeline.signature import Signature, short_digest
from harem_pipeline.stages.span_measures import (
    COUNT_DEFAULTS,
    CountOptions,
    count_file,
    format_name,
)
from harem_pipeline.stages.spans import LabelFilter
from harem_pipeline.text import PathLike

# The HAREM functions import the collection reader, the aligner and the
# chain's steps when called: scoring a CoNLL file loads none of them.
if TYPE_CHECKING:
    from harem_pipeline.model import Collection, Veil
    from harem_pipeline.pipeline.params import SubsetParams
    from harem_pipeline.stages.harem_spans import AltChoices

HAREM_FORMAT = "harem"
"""``harem_pipeline.stages.harem_spans.FORMAT`` (a test checks they agree)."""


def measure_file(
    path: PathLike,
    fmt: str,
    options: CountOptions = COUNT_DEFAULTS,
    resampling: Resampling = BOOTSTRAP,
    workers: int | None = None,
) -> MeasuresReport:
    """``harem measures FILE``: all span measures of a ``conll`` or ``tokens-jsonl`` file,
    counted as ``options`` say (:func:`harem_pipeline.stages.span_measures.count_file`).

    With ``options.documents`` the bootstrap units' counts are kept and give
    the intervals of the ``resampling`` bootstrap (none for 0 resamples).  The report's
    ``errors`` (when asked for) live in temporary files: close them
    (``report.errors.close()``) once written.  A CoNLL file's chunks are
    judged on ``workers`` processes (default: every core; the figures do not
    depend on it).
    """
    fmt = format_name(fmt)  # an old name signs as the current one: the same file, the same figures
    counted = count_file(path, fmt, options, partial(ordered_map, workers=workers))
    signature = Signature.build(
        measures="spans",
        file=short_digest(path),
        format=fmt,
        scheme=counted.scheme,
        **_restrictions(options.labels, options.min_overlap),
        **_bootstrap(resampling if options.documents else None),
    )
    return span_report(counted, signature.format(), resampling, partial(apart, workers=workers))


def _restrictions(labels: LabelFilter | None, min_overlap: float) -> dict[str, str | None]:
    """Signature fields of the label restriction and the overlap threshold (None: default)."""
    fields: dict[str, str | None] = (
        labels.signature() if labels is not None else {"labels": None, "ignore": None}
    )
    fields["overlap"] = f"{min_overlap:g}" if min_overlap else None
    return fields


def _bootstrap(resampling: Resampling | None) -> dict[str, str | None]:
    """Signature fields of the bootstrap (None: no units kept, so none drawn)."""
    if resampling is None:
        return {"boot": None, "seed": None}
    return {"boot": str(resampling.resamples), "seed": str(resampling.seed)}


def harem_signature(
    cd_path: PathLike,
    run_path: PathLike,
    veil: Veil | None = None,
    resampling: Resampling = BOOTSTRAP,
    labels: LabelFilter | None = None,
    min_overlap: float = 0.0,
    selective: bool = False,
) -> Signature:
    """``…|measures:spans|format:harem|cd:<sha12>|run:<sha12>|veil:…|alt:best|boot:N|seed:S``
    (``selective:yes``, ``labels:``, ``ignore:`` and ``overlap:`` when set)."""
    from harem_pipeline.formats.veils import format_veil

    return Signature.build(
        measures="spans",
        format=HAREM_FORMAT,
        cd=short_digest(cd_path),
        run=short_digest(run_path),
        veil=None if veil is None or veil.everything else format_veil(veil),
        selective="yes" if selective else None,
        **_restrictions(labels, min_overlap),
        alt="best",
        **_bootstrap(resampling),
    )


def measure_collections(
    cd: Collection,
    run: Collection,
    alt_choices: AltChoices | None = None,
    veil: Veil | None = None,
    signature: Signature | None = None,
    resampling: Resampling = BOOTSTRAP,
    *,
    min_overlap: float = 0.0,
    labels: LabelFilter | None = None,
    errors: bool = False,
) -> MeasuresReport:
    """The span measures of ``run`` against ``cd`` (already read), with per-document counts."""
    from harem_pipeline.stages.harem_spans import count_collections

    counted = count_collections(
        cd, run, alt_choices, veil, min_overlap=min_overlap, labels=labels, errors=errors
    )
    signature = signature or Signature.build(measures="spans", format=HAREM_FORMAT)
    return span_report(counted, signature.format(), resampling)


def measure_harem(
    cd_path: PathLike,
    run_path: PathLike,
    meta_path: PathLike | None = None,
    resampling: Resampling = BOOTSTRAP,
    *,
    evaluation: SubsetParams | None = None,
    min_overlap: float = 0.0,
    labels: LabelFilter | None = None,
    errors: bool = False,
) -> MeasuresReport:
    """``harem measures --cd CD --run RUN``: read both, let AltinaID choose, measure.

    ``evaluation`` gives the campaign's evaluation veil and selective
    scenario (:meth:`SubsetParams.evaluation_veil`: a selective run is
    scored on the categories it declared); None scores every category.
    """
    from harem_pipeline.formats.harem_xml import read_collection
    from harem_pipeline.formats.veils import parse_veil, read_grid
    from harem_pipeline.pipeline.align import check_collections_share_documents
    from harem_pipeline.stages.harem_spans import choose_alternatives

    veil = None
    if evaluation is not None:
        if evaluation.selective and not evaluation.system_veil:
            raise InputError(None, "--system-veil for --selective", "none")
        veil = parse_veil(evaluation.evaluation_veil(), read_grid(), "--veil")
    cd = read_collection(cd_path, meta_path)
    run = read_collection(run_path)
    check_collections_share_documents(cd, run)
    selective = evaluation is not None and evaluation.selective
    return measure_collections(
        cd,
        run,
        choose_alternatives(cd, run),
        veil,
        signature=harem_signature(
            cd_path, run_path, veil, resampling, labels, min_overlap, selective
        ),
        resampling=resampling,
        min_overlap=min_overlap,
        labels=labels,
        errors=errors,
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
    from harem_pipeline.formats.alinhado import iter_lines
    from harem_pipeline.formats.harem_xml import read_collection
    from harem_pipeline.stages.harem_spans import read_alt_choices

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
