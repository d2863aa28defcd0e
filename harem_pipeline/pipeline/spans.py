"""Span-measure reports of files: count (stages), measure (measures), sign (here).

The shell over :mod:`harem_pipeline.stages.span_measures` (CoNLL, JSON
lines) and :mod:`harem_pipeline.stages.harem_spans` (a HAREM run against
its collection): each function reads its inputs, has them counted, and
returns the :class:`~harem_pipeline.measures.spans.MeasuresReport` with the
signature that pins its numbers to the inputs.  Rendering is
:mod:`harem_pipeline.reports.measures`'s.
"""

from __future__ import annotations

import os

from harem_pipeline.formats.alinhado import iter_lines
from harem_pipeline.formats.harem_xml import read_collection
from harem_pipeline.formats.veils import Veil, format_veil
from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from harem_pipeline.measures.spans import MeasuresReport, span_report
from harem_pipeline.model import Collection
from harem_pipeline.pipeline.signature import Signature, short_digest
from harem_pipeline.pipeline.steps import check_collections_share_documents
from harem_pipeline.stages.harem_spans import (
    FORMAT,
    AltChoices,
    choose_alternatives,
    count_collections,
    read_alt_choices,
)
from harem_pipeline.stages.span_measures import count_file, format_name
from harem_pipeline.stages.span_units import UNIT_LIMIT

PathLike = str | os.PathLike[str]


def measure_file(
    path: PathLike,
    fmt: str,
    scheme: str = "lenient",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    documents: bool = True,
    unit_limit: int = UNIT_LIMIT,
) -> MeasuresReport:
    """``harem measures FILE``: all span measures of a ``conll`` or ``tokens-jsonl`` file.

    With ``documents`` the bootstrap units' counts are kept and give the
    intervals of a ``resamples``-draw bootstrap (0: none); see
    :func:`harem_pipeline.stages.span_measures.count_file`.
    """
    fmt = format_name(fmt)  # an old name signs as the current one: the same file, the same figures
    counted = count_file(path, fmt, scheme, documents, unit_limit)
    signature = Signature.build(
        measures="spans",
        file=short_digest(path),
        format=fmt,
        scheme=counted.scheme,
        boot=str(resamples) if documents else None,
        seed=str(seed) if documents else None,
    )
    return span_report(counted, signature.format(), resamples, seed)


def harem_signature(
    cd_path: PathLike,
    run_path: PathLike,
    veil: Veil | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> Signature:
    """``…|measures:spans|format:harem|cd:<sha12>|run:<sha12>|veil:…|alt:best|boot:N|seed:S``."""
    return Signature.build(
        measures="spans",
        format=FORMAT,
        cd=short_digest(cd_path),
        run=short_digest(run_path),
        veil=None if veil is None or veil.everything else format_veil(veil),
        alt="best",
        boot=str(resamples),
        seed=str(seed),
    )


def measure_collections(
    cd: Collection,
    run: Collection,
    alt_choices: AltChoices | None = None,
    veil: Veil | None = None,
    signature: Signature | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MeasuresReport:
    """The span measures of ``run`` against ``cd`` (already read), with per-document counts."""
    counted = count_collections(cd, run, alt_choices, veil)
    signature = signature or Signature.build(measures="spans", format=FORMAT)
    return span_report(counted, signature.format(), resamples, seed)


def measure_harem(
    cd_path: PathLike,
    run_path: PathLike,
    meta_path: PathLike | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MeasuresReport:
    """``harem measures --cd CD --run RUN``: read both, let AltinaID choose, measure."""
    cd = read_collection(cd_path, meta_path)
    run = read_collection(run_path)
    check_collections_share_documents(cd, run)
    return measure_collections(
        cd,
        run,
        choose_alternatives(cd, run),
        signature=harem_signature(cd_path, run_path, None, resamples, seed),
        resamples=resamples,
        seed=seed,
    )


def measure_evaluated(
    cd_path: PathLike,
    run_path: PathLike,
    evaluated_path: PathLike,
    meta_path: PathLike | None = None,
    veil: Veil | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> MeasuresReport:
    """The span measures beside an Ida2ID report of ``evaluated_path`` (an ``.altida``).

    Its documents (a Véus subset's) and its ALT choices are the ones
    measured; ``veil`` is the subset's category veil.
    """
    _, lines = iter_lines(evaluated_path)
    choices = read_alt_choices(lines)
    signature = harem_signature(cd_path, run_path, veil, resamples, seed)
    return measure_collections(
        read_collection(cd_path, meta_path),
        read_collection(run_path),
        choices,
        veil,
        signature,
        resamples,
        seed,
    )
