"""Relation veils, the evaluator and the summary's counts (docs/spec/rerelem.md, stages 6–8).

``RelationsFilter`` keeps a triples file's relations of some types,
``RelationsEvaluatorM2`` scores each document's system triples against
the golden ones, ``GlobalRelationsEvaluatorM2`` sums the evaluations.  The
official quirks are the default; each has a documented correction:

* ``fix_target_match`` — the evaluator's argument test compares only the
  source ID (``_b.equals(_b)``); corrected, the target ID must match too;
* ``strict`` (filter) — a non-basic relation passes every filter;
  corrected, only the listed types pass (``outra`` listed lets every
  non-basic type through);
* ``unique_corels`` — COREL counts are relation counts (each key a new
  object); corrected, a document's CORELs are its distinct keys
  (source ID, target ID, source and target categories).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from harem_pipeline.errors import InputError
from harem_pipeline.stages.rerelem.entities import compatible_categories
from harem_pipeline.stages.rerelem.relations import OUTRA, RelationTypes, is_basic, normalized_type
from harem_pipeline.text.java import java_trim

CD_MARK = "[CD]"
PART_MARK = "[Part]"
ALL_TYPES = "Todas"
SPURIOUS_ID = "ESPURIO"
EVALUATION_MARKER = "::"

RELATION_CORRECT = "Relação Correcta"
COREL_CORRECT = "COREL e categorias Correctos"
SPURIOUS = "Espuria"
MISSING = "Em Falta"
LABELS = (RELATION_CORRECT, COREL_CORRECT, SPURIOUS, MISSING)
SCORES = {RELATION_CORRECT: 1.0, COREL_CORRECT: 0.5, SPURIOUS: -0.2, MISSING: 0.0}
"""Each evaluation's points (``RelationEvaluation.getScore``)."""

SCENARIOS: dict[str, tuple[str, ...] | None] = {
    "todas": None,
    "soutra": ("ident", "inclui", "incluido", "sede_de", "ocorre_em"),
    "ident": ("ident",),
    "inclusao": ("inclui", "incluido"),
    "localizacao": ("sede_de", "ocorre_em"),
}
"""The official relation scenarios (``Avaliacao.sh``): name → ``-filtro`` types, None for all."""


@dataclass(frozen=True, slots=True)
class Triple:
    """A relation line ``A SRC type B TGT`` (``RelationM2``)."""

    a: str
    source: str
    type: str
    b: str
    target: str

    def __str__(self) -> str:
        return f"{self.a} {self.source} {self.type} {self.b} {self.target}"

    @property
    def key(self) -> tuple[str, str, str, str]:
        """The COREL key: both IDs and both categories."""
        return (self.a, self.b, self.source, self.target)


def parse_triple(line: str) -> Triple | None:
    """``RelationProcessor.getRelationM2``: five space-separated fields, each trimmed; else None."""
    parts = line.split(" ")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) != 5:
        return None
    a, source, kind, b, target = (java_trim(part) for part in parts)
    return Triple(a, source, kind, b, target)


def parse_filter(
    text: str | None, types: RelationTypes, source: str = "--filter"
) -> list[str] | None:
    """The ``-filtro t1;t2`` types (Java ``split(";")``); None or empty is no filter.

    An unknown type is refused: the official filter would silently keep nothing of it.
    """
    if text is None or text == "":
        return None
    parts = text.split(";")
    while parts and parts[-1] == "":
        parts.pop()
    for part in parts:
        if not types.known(part):
            raise InputError(
                source, "relation types of harem.conf separated by ;", f"unknown type {part!r}"
            )
    return parts


def filter_lines(
    lines: Iterable[str],
    types: Sequence[str] | None,
    strict: bool = False,
    keep_spurious: bool = False,
) -> Iterator[str]:
    """``RelationsFilter``: the triples of the listed types (all when ``types`` is None)."""
    iterator = iter(lines)
    first = next(iterator, "")
    if first.startswith("#"):
        yield first
    yield "#" + (", ".join(types) if types is not None else ALL_TYPES)
    state = -1
    for line in iterator:
        if line.startswith("DOC"):
            yield ""
            yield line
            state = 0
            continue
        if line.startswith("EOD"):
            yield line
            state = -1
            continue
        if state in (0, 1) and line.startswith(CD_MARK):
            yield line
            state = 1
            continue
        if state in (0, 1) and line.startswith(PART_MARK):
            yield line
            state = 2
            continue
        if line.strip() == "" or state not in (1, 2):
            continue
        triple = parse_triple(line)
        if triple is None:
            continue
        if not keep_spurious and (
            triple.a.startswith(SPURIOUS_ID) or triple.b.startswith(SPURIOUS_ID)
        ):
            continue
        if types is None:
            yield line
        elif triple.type in types:
            yield str(triple)
        elif strict:
            if OUTRA in types and not is_basic(triple.type):
                yield str(triple)
        elif OUTRA in types or not is_basic(triple.type):
            yield str(triple)


# ---------------------------------------------------------------------------
# Evaluator


@dataclass(slots=True)
class DocumentEvaluation:
    """One document's evaluated relations and its five counts."""

    docid: str
    rels_gold: int
    rels_system: int
    corels_gold: int
    corels_system: int
    corels_correct: int
    evaluations: list[tuple[Triple, str]] = field(default_factory=list)

    def header(self) -> str:
        return (
            f"[Rels_CD({self.rels_gold}) Rels_Part({self.rels_system}) "
            f"Corels_CD({self.corels_gold}) Corels_Part({self.corels_system}) "
            f"CorelsCorrectos({self.corels_correct})]"
        )


def _normalized(triple: Triple) -> Triple:
    kind = normalized_type(triple.type)
    if kind == triple.type:
        return triple
    return Triple(triple.a, triple.source, kind, triple.b, triple.target)


def _compatible(part: Triple, gold: Triple, fix_target_match: bool) -> bool:
    """``RelationM2.compatibleWith``: same source ID (target ID when fixed), categories, type."""
    return (
        part.a == gold.a
        and (not fix_target_match or part.b == gold.b)
        and compatible_categories(part.source, gold.source)
        and compatible_categories(part.target, gold.target)
        and part.type == gold.type
    )


def _keys_compatible(first: tuple[str, str, str, str], second: tuple[str, str, str, str]) -> bool:
    """``CorelKey.isCompatible``: both IDs equal, both categories compatible."""
    return (
        first[0] == second[0]
        and first[1] == second[1]
        and compatible_categories(first[2], second[2])
        and compatible_categories(first[3], second[3])
    )


def _equal_but_target(first: Triple, second: Triple) -> bool:
    """``RelationM2.equals``: IDs, type and source category (the target is never compared)."""
    return (
        first.a == second.a
        and first.b == second.b
        and first.type == second.type
        and first.source == second.source
    )


def evaluate_document(
    docid: str,
    gold: list[Triple],
    part: list[Triple],
    fix_target_match: bool = False,
    unique_corels: bool = False,
) -> DocumentEvaluation:
    """``RelationsEvaluatorM2.evaluate`` of one document (docs/spec/rerelem.md, stage 7)."""
    rels_gold, rels_part = len(gold), len(part)
    remaining = [_normalized(t) for t in gold]
    system = [_normalized(t) for t in part]
    result = DocumentEvaluation(docid, rels_gold, rels_part, 0, 0, 0)
    correct_keys: list[tuple[str, str, str, str]] = []
    gold_keys: list[tuple[str, str, str, str]] = []
    evaluated: set[Triple] = set()
    for triple in system:
        for candidate in remaining:
            if _compatible(triple, candidate, fix_target_match):
                result.evaluations.append((triple, RELATION_CORRECT))
                evaluated.add(triple)
                correct_keys.append(triple.key)
                gold_keys.append(triple.key)
                index = next(i for i, g in enumerate(remaining) if _equal_but_target(candidate, g))
                del remaining[index]
                break
    gold_keys.extend(t.key for t in remaining)
    for triple in system:
        if triple in evaluated:
            continue
        key = triple.key
        if any(_keys_compatible(k, key) for k in correct_keys):
            label = COREL_CORRECT
        elif any(_keys_compatible(k, key) for k in gold_keys):
            label = COREL_CORRECT
            correct_keys.append(key)
        else:
            label = SPURIOUS
        result.evaluations.append((triple, label))
        evaluated.add(triple)
    result.evaluations.extend((t, MISSING) for t in remaining)
    if unique_corels:
        result.corels_gold = len(set(gold_keys))
        result.corels_system = len({t.key for t in system})
        result.corels_correct = len(set(correct_keys))
    else:
        result.corels_gold = len(gold_keys)
        result.corels_system = len(system)
        result.corels_correct = len(correct_keys)
    return result


def evaluate_lines(
    lines: Iterable[str],
    fix_target_match: bool = False,
    unique_corels: bool = False,
    path: str | None = None,
) -> Iterator[str]:
    """``RelationsEvaluatorM2``: each document's counts and evaluated relations."""
    state = -1
    docid: str | None = None
    gold: list[Triple] = []
    part: list[Triple] = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            yield line
            continue
        if line.startswith("DOC"):
            yield ""
            yield line
            docid, state, gold, part = line[4:], 0, [], []
            continue
        if line.startswith("EOD"):
            if docid is None:
                raise InputError(path, "DOC before EOD", "EOD", line=number)
            result = evaluate_document(docid, gold, part, fix_target_match, unique_corels)
            yield result.header()
            for evaluated, label in result.evaluations:
                yield f"{evaluated} {EVALUATION_MARKER} Aval({label})"
            yield line
            state, docid = -1, None
            continue
        if state in (0, 1) and line.startswith(CD_MARK):
            state = 1
            continue
        if state in (0, 1) and line.startswith(PART_MARK):
            state = 2
            continue
        if line.strip() == "":
            continue
        triple = parse_triple(line)
        if triple is None:
            continue
        if state == 1:
            gold.append(triple)
        elif state == 2:
            part.append(triple)


# ---------------------------------------------------------------------------
# Summary counts

_COUNT_RE = re.compile(r"(\w+)\((-?\d+)\)")
_EVALUATION_RE = re.compile(r"Aval\(([^)]*)\)")


@dataclass(slots=True)
class DocumentCounts:
    """One document's counts as the summary reads them from an ``.avaliado``."""

    docid: str
    rels_gold: int = 0
    rels_system: int = 0
    corels_gold: int = 0
    corels_system: int = 0
    corels_correct: int = 0
    labels: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))


@dataclass(slots=True)
class SummaryCounts:
    """The summary's totals, summed in the Java's order (its doubles depend on it)."""

    veil: str
    scenario: str
    documents: list[DocumentCounts] = field(default_factory=list)
    max_gold: float = 0.0
    max_system: float = 0.0
    score: float = 0.0

    def total(self, name: str) -> int:
        return sum(getattr(d, name) for d in self.documents)

    def label(self, name: str) -> int:
        return sum(d.labels[name] for d in self.documents)


def summary_counts(lines: Iterable[str], path: str | None = None) -> SummaryCounts:
    """``GlobalRelationsEvaluatorM2`` reading an ``.avaliado`` (first two lines: the scenarios)."""
    iterator = iter(lines)
    counts = SummaryCounts(next(iterator, "null"), next(iterator, "null"))
    state = -1
    current: DocumentCounts | None = None
    for number, line in enumerate(iterator, start=3):
        if line.startswith("DOC"):
            state = 0
            current = DocumentCounts(line[4:])
            counts.documents.append(current)
            continue
        if line.startswith("EOD"):
            state = -1
            continue
        if line.strip() == "":
            continue
        if state == 0 and line.startswith("[") and current is not None:
            values = dict(_COUNT_RE.findall(line))
            try:
                current.rels_gold = int(values["Rels_CD"])
                current.rels_system = int(values["Rels_Part"])
                current.corels_gold = int(values["Corels_CD"])
                current.corels_system = int(values["Corels_Part"])
                current.corels_correct = int(values["CorelsCorrectos"])
            except KeyError as missing:
                raise InputError(
                    path,
                    "[Rels_CD(n) Rels_Part(n) Corels_CD(n) Corels_Part(n) CorelsCorrectos(n)]",
                    line,
                    line=number,
                ) from missing
            counts.max_gold += 1.0 * current.rels_gold
            counts.max_system += 1.0 * current.rels_system + 0.5 * (
                current.corels_system - current.rels_system
            )
            state = 1
            continue
        if state == 1 and current is not None:
            parts = line.split(EVALUATION_MARKER)
            match = _EVALUATION_RE.search(parts[1]) if len(parts) > 1 else None
            if match is None:
                raise InputError(path, "a relation A SRC type B TGT :: Aval(…)", line, line=number)
            label = match.group(1)
            counts.score += SCORES.get(label, 0.0)
            if label in current.labels:
                current.labels[label] += 1
    return counts
