"""Signatures: order, omission of unknown fields, digests."""

from __future__ import annotations

import hashlib
from pathlib import Path

from harem_pipeline.pipeline.signature import (
    Signature,
    file_signature,
    run_signature,
    short_digest,
    tool_version,
)


def test_run_signature_shape_as_in_the_spec() -> None:
    # docs/spec/pipeline.md, Reproducibility signature:
    # harem:<version>|cd:<sha12>|run:<sha12>|subset:…|scenario:abs|style:harem|alt:best
    sig = run_signature(
        cd="aaaaaaaaaaaa", run="bbbbbbbbbbbb", subset="total", scenario="abs", style="harem"
    )
    assert sig.format() == (
        f"harem:{tool_version()}|cd:aaaaaaaaaaaa|run:bbbbbbbbbbbb"
        "|subset:total|scenario:abs|style:harem|alt:best"
    )


def test_none_fields_are_left_out_and_order_is_kept() -> None:
    sig = Signature.build(b="2", a=None, c="3")
    assert sig.format() == f"harem:{tool_version()}|b:2|c:3"
    assert sig.with_fields(d="4").format().endswith("|b:2|c:3|d:4")
    assert sig.with_fields(a="1").format() == f"harem:{tool_version()}|b:2|a:1|c:3"
    assert sig.with_fields(b="9").format() == f"harem:{tool_version()}|b:9|c:3"


def test_short_digest_is_sha256_prefix(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"HAREM")
    assert short_digest(path) == hashlib.sha256(b"HAREM").hexdigest()[:12]


def test_file_signature_pins_the_evaluated_file_under_its_own_key(tmp_path: Path) -> None:
    path = tmp_path / "r.alinhado.avalida.total.altida"
    path.write_bytes(b"x")
    digest = hashlib.sha256(b"x").hexdigest()[:12]
    assert file_signature(path, subset="total", style="harem").format() == (
        f"harem:{tool_version()}|input:{digest}|subset:total|style:harem|alt:best"
    )
