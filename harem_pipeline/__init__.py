"""harem-pipeline: the HAREM NER evaluation toolchain as a library.

The library holds every format, stage and measure; it imports neither Luigi
nor argparse.  The Luigi layer lives in ``tasks/`` and the command line in
``harem_pipeline.cli``.

``luigi --module harem_pipeline FullEvaluation`` needs the task to be
reachable from this package, so the name is resolved lazily: importing the
library alone never imports Luigi.
"""

from __future__ import annotations

__version__ = "0.1.0"

# Bumped whenever a change in scoring code may change any number.  It is part
# of every manifest and signature, so a new value reruns what it affects.
SCORING_VERSION = "1"


def __getattr__(name: str):  # pragma: no cover - exercised through luigi
    if name in {"FullEvaluation"}:
        import tasks

        return getattr(tasks, name)
    raise AttributeError(name)
