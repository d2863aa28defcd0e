"""``python -m harem_pipeline`` is the ``harem`` command."""

from harem_pipeline.cli import run

run()
