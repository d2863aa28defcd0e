"""Reproducibility signatures: one line that pins everything behind a report.

In the spirit of sacrebleu's signature, e.g.
``harem:0.1.0+s3|cd:1a2b3c4d5e6f|run:0f9e8d7c6b5a|subset:total|scenario:abs|style:harem|veil:*|alt:best|boot:1000|seed:12345``.
Two reports with the same signature must carry the same numbers, so every
input that changes a score appears here: the scoring code (``harem`` version
plus scoring version), the content digests of the collection and the run, and
every parameter of the stage's parameter object
(:mod:`harem_pipeline.pipeline.params`).  Reports render a signature; they
never compute one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harem_pipeline import SCORING_VERSION, __version__
from harem_pipeline.text import PathLike

if TYPE_CHECKING:  # an annotation only: signing a file report need not load the stages
    from harem_pipeline.pipeline.params import ReportParams

DIGEST_LENGTH = 12


def sha256_file(path: PathLike) -> str:
    """The SHA-256 hex digest of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def short_digest(path: PathLike) -> str:
    """The first 12 hex digits of a file's SHA-256 (enough to tell files apart)."""
    return sha256_file(path)[:DIGEST_LENGTH]


def tool_version() -> str:
    """The version written after ``harem:``: package version and scoring version."""
    return f"{__version__}+s{SCORING_VERSION}"


@dataclass(frozen=True, slots=True)
class Signature:
    """An ordered set of ``key:value`` pairs; ``None`` values are left out.

    ``fields`` keeps the order given, which is the order printed, so a
    signature reads the same everywhere.
    """

    fields: tuple[tuple[str, str | None], ...] = field(default_factory=tuple)

    @classmethod
    def build(cls, **values: str | None) -> Signature:
        """A signature led by ``harem:<version>``, then ``values`` in the order given."""
        return cls((("harem", tool_version()), *values.items()))

    def format(self) -> str:
        """The one-line form, ``key:value`` joined by ``|``."""
        return "|".join(f"{key}:{value}" for key, value in self.fields if value is not None)

    def __str__(self) -> str:
        return self.format()


def report_signature(
    params: ReportParams,
    *,
    cd: str | None = None,
    run: str | None = None,
    input: str | None = None,
) -> Signature:
    """The signature of one report: the inputs' digests, then every parameter.

    ``cd`` and ``run`` (12-hex-digit digests) pin a campaign's collection and
    system run; ``input`` pins the one evaluated file a report made outside
    a campaign was computed from, so the keys never mean two things.  The
    parameters are :meth:`ReportParams.signature_fields`, all of them.
    """
    return Signature.build(cd=cd, run=run, input=input, **params.signature_fields())


def file_signature(path: PathLike, params: ReportParams) -> Signature:
    """The signature of a report made from one evaluated file, outside a campaign."""
    return report_signature(params, input=short_digest(path))
