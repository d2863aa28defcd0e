"""Ida2Mor: counts and measures of the morphological classification.

The rules are docs/spec/vizir-altinamor-ida2mor.md §5.

Counts first: ``count_morphology`` reads a stream of ``.altmor`` lines once
and keeps only sufficient statistics, per field and per document, so a
document bootstrap or a campaign summary can re-add them without reading a
file again.  ``measures_from_counts`` is a pure function of one field's
counts.  Writing the reports is ``reports/ida2mor.py``'s job.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from harem_pipeline.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    harmonic_array,
    interval_table,
    ratio_array,
)
from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import (
    AltClose,
    AltOpen,
    Blank,
    DocEnd,
    DocStart,
    DocumentLine,
    Header,
    Line,
    Record,
)
from harem_pipeline.formats.vizir import MorphScore, Outcome, record_morph_score
from harem_pipeline.stages.vizir import (
    Alignment,
    Scenario,
    alignment_from_scored_record,
    counts_for_system,
)

FIELD_KEYS = ("genero", "numero", "combinada")
FIELD_LABELS = {"genero": "Género", "numero": "Número", "combinada": "Combinada"}


@dataclass(frozen=True, slots=True)
class FieldCounts:
    """Sufficient statistics of one field: outcome counts and the two totals."""

    correcto: int = 0
    parcialmente_correcto: int = 0
    incorrecto: int = 0
    em_falta: int = 0
    espurio: int = 0
    sobre_especificado: int = 0
    parcialmente_sobre_especificado: int = 0
    total_cd: int = 0
    total_sistema: int = 0

    def __add__(self, other: FieldCounts) -> FieldCounts:
        return FieldCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def count(self, outcome: Outcome) -> int:
        """How many records got ``outcome`` in this field."""
        return getattr(self, outcome.key)

    @property
    def pontuacao(self) -> Fraction:
        """Σ score: 1 per Correcto, 1/2 per Parcialmente Correcto (exact)."""
        return self.correcto + Fraction(self.parcialmente_correcto, 2)

    @property
    def records(self) -> int:
        """Scored records (each has exactly one outcome per field)."""
        return sum(self.count(o) for o in Outcome)


def count_outcome(outcome: Outcome, in_cd: bool, in_system: bool) -> FieldCounts:
    """One record's contribution to one field."""
    return FieldCounts(**{outcome.key: 1}, total_cd=int(in_cd), total_sistema=int(in_system))


@dataclass(frozen=True, slots=True)
class MorphologyTotals:
    """The three fields' counts of a set of records."""

    genero: FieldCounts = FieldCounts()
    numero: FieldCounts = FieldCounts()
    combinada: FieldCounts = FieldCounts()

    def __add__(self, other: MorphologyTotals) -> MorphologyTotals:
        return MorphologyTotals(
            self.genero + other.genero, self.numero + other.numero, self.combinada + other.combinada
        )

    def field(self, key: str) -> FieldCounts:
        """Counts of ``genero``, ``numero`` or ``combinada``."""
        return getattr(self, key)


def count_record(alignment: Alignment, score: MorphScore) -> MorphologyTotals:
    """One scored record's contribution to the totals (docs/spec/vizir-altinamor-ida2mor.md §5).

    *Total na CD* takes every record whose gold side is not spurious;
    *Total classificadas pelo sistema* takes the record when its evaluated
    system entity carries MORF (``counts_for_system``).
    """
    in_cd = not alignment.spurious
    in_system = counts_for_system(alignment)
    return MorphologyTotals(
        count_outcome(score.gender, in_cd, in_system),
        count_outcome(score.number, in_cd, in_system),
        count_outcome(score.combined, in_cd, in_system),
    )


@dataclass(frozen=True, slots=True)
class DocumentCounts:
    """The counts of one document (``docid`` empty for records before any document line)."""

    docid: str
    totals: MorphologyTotals


@dataclass(frozen=True, slots=True)
class MorphologyCounts:
    """Counts of a whole file, with the per-document breakdown they are the sum of."""

    totals: MorphologyTotals
    documents: tuple[DocumentCounts, ...]

    def field(self, key: str) -> FieldCounts:
        return self.totals.field(key)

    @classmethod
    def from_documents(cls, documents: Iterable[DocumentCounts]) -> MorphologyCounts:
        """Re-add document counts (e.g. a bootstrap sample of documents)."""
        docs = tuple(documents)
        total = MorphologyTotals()
        for doc in docs:
            total = total + doc.totals
        return cls(total, docs)


_ACCEPTED = (Header, Blank, DocEnd)


def count_morphology(lines: Iterable[Line], path: str | None = None) -> MorphologyCounts:
    """Count the scored records of an ``.altmor`` stream, in one pass.

    ALT blocks must already be resolved (AltinaMor): counting every
    alternative would count the same entities twice, so an ``<ALT>`` line
    is an input error here.
    """
    documents: list[DocumentCounts] = []
    docid = ""
    current = MorphologyTotals()
    started = False
    for item in lines:
        if isinstance(item, Record):
            score = record_morph_score(item, path)
            current = current + count_record(alignment_from_scored_record(item, path), score)
            started = True
        elif isinstance(item, (DocStart, DocumentLine)):
            if started or docid:
                documents.append(DocumentCounts(docid, current))
            docid, current, started = item.docid, MorphologyTotals(), True
        elif isinstance(item, (AltOpen, AltClose)):
            raise InputError(
                path,
                "an .altmor file (ALT blocks resolved by AltinaMor)",
                "an <ALT> line",
                line=item.line or None,
            )
        elif not isinstance(item, _ACCEPTED):
            raise InputError(
                path, "a .vizir record line", type(item).__name__, line=item.line or None
            )
    if started:
        documents.append(DocumentCounts(docid, current))
    return MorphologyCounts.from_documents(documents)


@dataclass(frozen=True, slots=True)
class FieldMeasures:
    """The ratios of one field (docs/spec/vizir-altinamor-ida2mor.md §5).

    ``None`` is undefined (zero denominator).
    """

    precisao: float | None
    abrangencia: float | None
    medida_f: float | None
    sobre_especificacao: float | None
    sobre_geracao: float | None
    sub_geracao: float | None


def ratio(numerator: Fraction | int, denominator: int) -> float | None:
    """``numerator / denominator``, undefined (``None``) when the denominator is 0."""
    return None if denominator == 0 else float(Fraction(numerator) / denominator)


def measures_from_counts(counts: FieldCounts) -> FieldMeasures:
    """Precisão, Abrangência, Medida F and the error rates of one field.

    Medida F is undefined when P or R is; it is 0 (not undefined) when both
    are defined and P + R = 0, as the spec says.
    """
    system, cd = counts.total_sistema, counts.total_cd
    score = counts.pontuacao
    precision = None if system == 0 else score / system
    recall = None if cd == 0 else score / cd
    if precision is None or recall is None:
        f_measure = None
    elif precision + recall == 0:
        f_measure = 0.0
    else:
        f_measure = float(2 * precision * recall / (precision + recall))
    over = counts.sobre_especificado + counts.parcialmente_sobre_especificado
    return FieldMeasures(
        precisao=None if precision is None else float(precision),
        abrangencia=None if recall is None else float(recall),
        medida_f=f_measure,
        sobre_especificacao=ratio(over, system),
        sobre_geracao=ratio(counts.espurio, system),
        sub_geracao=ratio(counts.em_falta, cd),
    )


# ---------------------------------------------------------------------------
# Per-document counts and the document bootstrap

INTERVAL_KEYS = ("precisao", "abrangencia", "medida_f")
"""The measures of each field given a 95 % interval."""


def document_mappings(counts: MorphologyCounts) -> dict[str, dict[str, int]]:
    """Each document's counts by DOCID as ``{"<field>.<count>": n}``, zeros left out.

    Blocks of one DOCID are added up: a document is the unit the bootstrap
    draws, and what the report's JSON keeps under ``documents``.
    """
    merged: dict[str, MorphologyTotals] = {}
    for doc in counts.documents:
        earlier = merged.get(doc.docid)
        merged[doc.docid] = doc.totals if earlier is None else earlier + doc.totals
    return {
        docid: {
            f"{key}.{name}": value
            for key in FIELD_KEYS
            for name, value in asdict(totals.field(key)).items()
            if value
        }
        for docid, totals in merged.items()
    }


LOWER_IS_BETTER = tuple(
    f"{key}.{name}"
    for key in FIELD_KEYS
    for name in ("sobre_especificacao", "sobre_geracao", "sub_geracao")
)
"""The error rates: a system is better with less of them."""


def morphology_measure_arrays(columns: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``<field>.<measure>`` (the six of :class:`FieldMeasures`) over count columns.

    The formulas of :func:`measures_from_counts` in floating point (F is 0
    when P + R = 0; NaN where undefined), for every resample at once.
    """
    out: dict[str, np.ndarray] = {}
    for key in FIELD_KEYS:

        def c(name: str, key: str = key) -> np.ndarray:
            return columns[f"{key}.{name}"]

        score = c("correcto") + c("parcialmente_correcto") / 2
        system, cd = c("total_sistema"), c("total_cd")
        precision = ratio_array(score, system)
        recall = ratio_array(score, cd)
        over = c("sobre_especificado") + c("parcialmente_sobre_especificado")
        out[f"{key}.precisao"] = precision
        out[f"{key}.abrangencia"] = recall
        out[f"{key}.medida_f"] = harmonic_array(precision, recall, 0.0)
        out[f"{key}.sobre_especificacao"] = ratio_array(over, system)
        out[f"{key}.sobre_geracao"] = ratio_array(c("espurio"), system)
        out[f"{key}.sub_geracao"] = ratio_array(c("em_falta"), cd)
    return out


def morphology_intervals(
    documents: Mapping[str, Mapping[str, float]],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, dict[str, Any]] | None:
    """``{field: {"precisao": [lo, hi], "abrangencia": …, "medida_f": …}}`` by document bootstrap.

    ``documents`` as :func:`document_mappings` gives them; None when
    ``resamples`` is 0; an interval is None when undefined in every resample.
    """
    table = interval_table(list(documents.values()), morphology_measure_arrays, resamples, seed)
    if table is None:
        return None
    return {key: {name: table[f"{key}.{name}"] for name in INTERVAL_KEYS} for key in FIELD_KEYS}


# ---------------------------------------------------------------------------
# What a file name tells (the pipeline's HAREM names)


def scenario_from_name(path: str | os.PathLike[str]) -> Scenario | None:
    """``abs``/``rel`` (or ``absolute``/``relative``) as a dot-separated part of the name."""
    found = None
    for part in Path(path).name.split("."):
        try:
            found = Scenario.parse(part)
        except ValueError:
            continue
    return found


def subset_from_name(path: str | os.PathLike[str]) -> str | None:
    """The part after ``avalida`` in ``run.alinhado.avalida.<subset>.…`` (``pt.jornalistico``)."""
    parts = Path(path).name.split(".")
    if "avalida" not in parts:
        return None
    rest = parts[parts.index("avalida") + 1 :]
    stop = {"abs", "rel", "absolute", "relative", "vizir", "altmor", "ida2mor", "gz"}
    kept = list(itertools.takewhile(lambda p: p not in stop, rest))
    return ".".join(kept) or None


def run_from_name(path: str | os.PathLike[str]) -> str:
    """The run's name: what precedes ``.alinhado`` (else the name up to its first dot)."""
    name = Path(path).name
    return name.split(".alinhado", 1)[0] if ".alinhado" in name else name.split(".", 1)[0]
