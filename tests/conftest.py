"""Shared test fixtures: where the shipped data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
