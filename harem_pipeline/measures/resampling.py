"""The document bootstrap's defaults and bound, apart from its numpy code.

Every command's options and every parameter object name them; keeping them
here lets a command that never resamples (AvalIDa, Véus, Vizir…) start
without loading numpy (about a tenth of a second of CPU a process).
:mod:`harem_pipeline.measures.bootstrap` gives the bound too.
"""

from __future__ import annotations

from typing import NamedTuple

DEFAULT_RESAMPLES = 1000
MAX_RESAMPLES = 100_000
"""The most resamples any report, command or ``pipeline.yaml`` may ask for.

The resampled totals take resamples × counts × 8 bytes (some 60 MB at this
bound for Ida2ID's 77 counts; 10^9 resamples would be 574 GiB), and the
intervals are steady long before: 1,000 is the default, 10,000 the most the
bootstrap literature asks for.
"""
DEFAULT_SEED = 12345


class Resampling(NamedTuple):
    """A document bootstrap: ``resamples`` draws of the documents with replacement (0:
    no intervals), from ``seed``.

    Passed whole from the command line, ``pipeline.yaml`` or the API down to the
    draws, so that its defaults are stated here only.
    """

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED


BOOTSTRAP = Resampling()
"""The default bootstrap: 1,000 resamples from seed 12345."""

NO_BOOTSTRAP = Resampling(0)
"""No resampling: figures without intervals."""
