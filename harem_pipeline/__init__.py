"""harem-pipeline: the HAREM NER evaluation toolchain as a library.

The library holds every format, stage and measure; it imports neither Luigi
nor argparse.  The Luigi layer lives in ``tasks/`` and the command line in
``harem_pipeline.cli``.

``luigi --module harem_pipeline FullEvaluation`` imports this package with
Luigi already loaded; only then are the pipeline tasks imported (see the end
of this module), so importing the library alone never imports Luigi.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["SCORING_VERSION", "evaluate", "span_measures"]
__version__ = "0.1.0"

# Bumped whenever a change in the code may change any output (a number, a
# report's layout, a file name).  It is part of every manifest and signature,
# so a new value reruns what it affects and tells reports of the two versions
# apart.  2: reports carry 95 % intervals, span measures and per-document counts.
# 3: signatures carry every stage parameter (veils, bootstrap, seed).
# 3: .vizir/.altmor files open with a "# Cenário:" line; span counts no longer
# depend on the hash seed (a last digit may differ from version 2's).
# 4: from the .avalida on, system entity texts lose [ and ], and '' is ' (as the Java
# reads them back); a UTF-8 file under a stale ISO-8859-1 declaration is read as UTF-8;
# a spurious record in an ALT alternative lists its own entity only.
SCORING_VERSION = "4"


def __getattr__(name: str) -> Any:
    """``harem_pipeline.evaluate`` and ``harem_pipeline.span_measures``, imported on first use.

    They live in :mod:`harem_pipeline.api`, the one module above the pipeline
    layer that the package's top level exports; importing it lazily keeps
    ``import harem_pipeline`` (every command's first import) as light as before.
    """
    if name in ("evaluate", "span_measures"):
        from harem_pipeline import api

        return getattr(api, name)
    raise AttributeError(f"module 'harem_pipeline' has no attribute {name!r}")


if "luigi" in sys.modules and "tasks" not in sys.modules:  # pragma: no cover - `luigi --module`
    # Luigi is already running: register the pipeline tasks.  A plain library
    # import never gets here, so the library itself never imports Luigi.
    import tasks  # noqa: F401
    from tasks import FullEvaluation  # noqa: F401
