"""Shared test fixtures: where the shipped data lives, and results several modules reuse.

The session-scoped results are computed once and are read-only: collections
are frozen dataclasses, and a test that needs to write next to a shared file
copies it into its own ``tmp_path`` first.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from harem_pipeline.cli import COLLECTOR_THRESHOLDS
from harem_pipeline.model import Collection
from tests.helpers.paths import DATA
from tests.helpers.perfect import PerfectChain, perfect_chain
from tests.helpers.shipped import shipped_collection

FIRST_HAREM_CD = DATA / "first-harem" / "ColeccaoDouradaHAREM.txt"
SECOND_HAREM_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"


def pytest_configure(config: pytest.Config) -> None:
    """Each test process collects cyclic garbage as a ``harem`` process does.

    At Python's default the collector walks every object the tests keep (the
    imported modules, the collections and readings shared between tests)
    again and again: about a twelfth of the suite's time.  Collections still
    run, less often; no test sees anything else.
    """
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def first_harem_cd() -> Collection:
    """The First HAREM golden collection (129 documents, with MORF)."""
    return shipped_collection(FIRST_HAREM_CD)


@pytest.fixture(scope="session")
def second_harem_cd() -> Collection:
    """The Second HAREM golden collection as used for the reference run."""
    return shipped_collection(SECOND_HAREM_CD)


@pytest.fixture(scope="session")
def perfect_first_harem(
    first_harem_cd: Collection, tmp_path_factory: pytest.TempPathFactory
) -> PerfectChain:
    """A perfect run on the First HAREM CD through AlinhEM, AvalIDa and Véus (total, harem)."""
    return perfect_chain(first_harem_cd, FIRST_HAREM_CD, tmp_path_factory.mktemp("perfect"))
