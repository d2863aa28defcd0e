"""The CRF example runs end to end on a slice (so it cannot rot): export, train, evaluate."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "crf_miniharem.py"


def test_the_crf_example_trains_predicts_and_evaluates_a_slice() -> None:
    pytest.importorskip("sklearn_crfsuite")
    spec = importlib.util.spec_from_file_location("crf_miniharem", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    sys.modules["crf_miniharem"] = example
    spec.loader.exec_module(example)
    result = example.run(documents=10, iterations=20)
    json.dumps({k: v for k, v in result.items()})  # plain JSON
    # a model that learnt something, scored against the whole Mini-HAREM (the slice
    # predicts 10 of its 128 documents; the others count as missed)
    assert 0 < result["exact"]["precision"] <= 1
    assert 0 < result["exact"]["recall"] < 0.2
    assert result["ceiling"]["exact"]["f1"] == 1.0
    assert "| CRF |" in example.table(result)
