"""Document-level bootstrap: confidence intervals and paired significance.

Counts first: every report keeps its sufficient statistics per document, so
resampling documents only re-adds counts, never re-reads text (sacrebleu's
split of statistics and score).  A resample draws as many documents as
there are, with replacement, from a ``random.Random(seed)``: the same seed
gives the same intervals everywhere.

* ``confidence_intervals`` — percentile 95 % interval of each measure.
* ``paired_bootstrap`` — for "is B really better than A?": over the
  documents both were scored on, the share of resamples in which B's
  measure is not above A's (one-sided p-value, Koehn 2004).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Counts = Mapping[str, float]
MeasureFn = Callable[[Counts], Mapping[str, float | None]]

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 12345


def add_counts(documents: Sequence[Counts], picks: Sequence[int]) -> dict[str, float]:
    """The sum of the picked documents' counts (keys are the union of all keys)."""
    total: dict[str, float] = {}
    for index in picks:
        for key, value in documents[index].items():
            total[key] = total.get(key, 0) + value
    return total


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile of already sorted values (numpy's default rule)."""
    position = (len(sorted_values) - 1) * q
    low = math.floor(position)
    high = math.ceil(position)
    if low == high:
        return sorted_values[low]
    weight = position - low
    return sorted_values[low] * (1 - weight) + sorted_values[high] * weight


def confidence_intervals(
    documents: Sequence[Counts],
    measure: MeasureFn,
    keys: Sequence[str],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, list[float] | None]:
    """95 % percentile intervals ``[low, high]`` of ``keys`` of ``measure``.

    A measure undefined in some resamples is estimated from the resamples
    where it is defined; undefined in all (or no documents, or resamples=0)
    gives None.
    """
    if resamples <= 0 or not documents:
        return {key: None for key in keys}
    rng = random.Random(seed)
    n = len(documents)
    samples: dict[str, list[float]] = {key: [] for key in keys}
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        values = measure(add_counts(documents, picks))
        for key in keys:
            value = values.get(key)
            if value is not None:
                samples[key].append(value)
    result: dict[str, list[float] | None] = {}
    for key in keys:
        values = sorted(samples[key])
        result[key] = [_percentile(values, 0.025), _percentile(values, 0.975)] if values else None
    return result


@dataclass(frozen=True, slots=True)
class PairedResult:
    """Difference B − A of one measure, with its one-sided bootstrap p-value."""

    key: str
    a: float | None
    b: float | None
    difference: float | None
    p_value: float | None


def paired_bootstrap(
    a: Mapping[str, Counts],
    b: Mapping[str, Counts],
    measure: MeasureFn,
    keys: Sequence[str],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[list[PairedResult], int]:
    """Compare two systems over the documents both have; returns results and that count."""
    shared = sorted(set(a) & set(b))
    docs_a = [a[d] for d in shared]
    docs_b = [b[d] for d in shared]
    everything = list(range(len(shared)))
    full_a = measure(add_counts(docs_a, everything))
    full_b = measure(add_counts(docs_b, everything))
    not_better = dict.fromkeys(keys, 0)
    defined = dict.fromkeys(keys, 0)
    rng = random.Random(seed)
    n = len(shared)
    for _ in range(resamples if n else 0):
        picks = [rng.randrange(n) for _ in range(n)]
        values_a = measure(add_counts(docs_a, picks))
        values_b = measure(add_counts(docs_b, picks))
        for key in keys:
            va, vb = values_a.get(key), values_b.get(key)
            if va is None or vb is None:
                continue
            defined[key] += 1
            if vb <= va:
                not_better[key] += 1
    results = []
    for key in keys:
        va, vb = full_a.get(key), full_b.get(key)
        difference = None if va is None or vb is None else vb - va
        p_value = not_better[key] / defined[key] if defined[key] else None
        results.append(PairedResult(key, va, vb, difference, p_value))
    return results, n
