"""Shared test fixtures: where the shipped data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.paths import DATA


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA
