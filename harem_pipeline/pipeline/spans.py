"""Span-measure reports of CoNLL and JSON-lines files: count (stages), measure (measures),
sign (here).

The shell over :mod:`harem_pipeline.stages.span_measures`: it reads the file,
has it counted, and returns the
:class:`~harem_pipeline.measures.spans.MeasuresReport` with the signature that
pins its numbers to the input.  A HAREM run against its collection is
:mod:`harem_pipeline.pipeline.harem_spans`'s; rendering is
:mod:`harem_pipeline.reports.measures`'s.
"""

from __future__ import annotations

from functools import partial

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
from harem_pipeline.text import PathLike


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
        **restriction_fields(options),
        **bootstrap_fields(resampling if options.documents else None),
    )
    return span_report(counted, signature.format(), resampling, partial(apart, workers=workers))


def restriction_fields(options: CountOptions) -> dict[str, str | None]:
    """Signature fields of the label restriction and the overlap threshold (None: default)."""
    labels, min_overlap = options.labels, options.min_overlap
    fields: dict[str, str | None] = (
        labels.signature() if labels is not None else {"labels": None, "ignore": None}
    )
    fields["overlap"] = f"{min_overlap:g}" if min_overlap else None
    return fields


def bootstrap_fields(resampling: Resampling | None) -> dict[str, str | None]:
    """Signature fields of the bootstrap (None: no units kept, so none drawn)."""
    if resampling is None:
        return {"boot": None, "seed": None}
    return {"boot": str(resampling.resamples), "seed": str(resampling.seed)}
