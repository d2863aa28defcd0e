"""ReRelEM's steps file to file: each reads its input, calls its stage, writes atomically.

File names are the official chain's (docs/spec/rerelem.md): ``.expandido``,
``.selec``, ``.normalizado``, ``.triplas``, ``.filtrado``, ``.avaliado``,
``.resumo`` (+ ``.resumo.json``), each the input's name plus the suffix.
Outputs keep the input's encoding (ISO-8859-1 for the official files),
lines end in LF as the Java writes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path

from harem_pipeline.errors import InputError
from harem_pipeline.formats.alinhado import iter_lines
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.formats.veils import DEFAULT_GRID_PATH, read_grid
from harem_pipeline.measures.rerelem import RerelemFigures, rerelem_figures, rerelem_intervals
from harem_pipeline.measures.resampling import BOOTSTRAP, Resampling
from harem_pipeline.model import Grid
from harem_pipeline.reports.rerelem import format_summary, summary_json
from harem_pipeline.reports.rerelem_graph import format_graph_page, read_graphs
from harem_pipeline.reports.rerelem_official import (
    RelationsEntry,
    page_name,
    parse_relations_entry,
    render_relations_page,
)
from harem_pipeline.stages.rerelem import chain, scoring
from harem_pipeline.stages.rerelem.convert import convert_t2_to_t1
from harem_pipeline.stages.rerelem.relations import RelationTypes, parse_relation_types
from harem_pipeline.text import PathLike
from harem_pipeline.text.atomic import atomic_write
from harem_pipeline.text.textio import derived_path, read_bytes, read_text

EXPANDED = ".expandido"
SELECTED = ".selec"
NORMALIZED = ".normalizado"
TRIPLES = ".triplas"
FILTERED = ".filtrado"
EVALUATED = ".avaliado"
SUMMARY = ".resumo"
CONVERTED = "_t1.xml"
GRAPH = ".html"


@cache
def relation_types(path: PathLike | None = None) -> RelationTypes:
    """The ``R:`` types of ``harem.conf`` (the shipped one by default)."""
    target = DEFAULT_GRID_PATH if path is None else Path(path)
    return parse_relation_types(read_text(target).text.splitlines())


@cache
def _grid() -> Grid:
    return read_grid()


@dataclass(slots=True)
class StepResult:
    """What a step wrote and the warnings the official program prints on stderr."""

    output: Path
    warnings: list[str] = field(default_factory=list)


def _target(path: PathLike, output: PathLike | None, suffix: str) -> Path:
    return Path(output) if output is not None else derived_path(path, suffix)


def write_lines(target: Path, lines: Iterable[str], encoding: str) -> None:
    """Write ``lines`` (no line ends) each followed by LF, atomically; nothing left on error."""
    with atomic_write(target, "w", encoding=encoding, newline="") as handle:
        for line in lines:
            handle.write(line)
            handle.write("\n")


def _official(encoding: str) -> str:
    """ISO-8859-1, the official programs' encoding, for files whose labels are Portuguese.

    A triples file is plain ASCII (so it reads as UTF-8); its evaluation and
    summary are written as the Java writes them.
    """
    return "iso-8859-1" if encoding in ("utf-8", "ascii", "latin-1", "iso-8859-1") else encoding


_LINE_END = re.compile(r"\r\n|\r|\n")


def read_plain_lines(path: PathLike) -> tuple[str, list[str]]:
    """A text file's encoding and lines, split as Java's ``readLine`` splits them."""
    decoded = read_text(path)
    lines = _LINE_END.split(decoded.text)
    if lines and lines[-1] == "":
        lines.pop()
    encoding = "utf-8" if decoded.encoding == "utf-8-sig" else decoded.encoding
    return encoding, lines


def _documents(path: PathLike) -> tuple[str, chain.AltsDocuments]:
    encoding, lines = iter_lines(path)
    return encoding, chain.read_documents(lines, str(path), _grid())


def run_expand(
    path: PathLike, output: PathLike | None = None, expand_system: bool = True
) -> StepResult:
    """``RelationExpanderM2 -exptudo sim`` (``nao``: ``expand_system`` False): ``IN.expandido``."""
    target = _target(path, output, EXPANDED)
    encoding, source = _documents(path)
    warnings: list[str] = []
    lines = chain.expand_documents(source, relation_types(), warnings, expand_system, str(path))
    write_lines(target, lines, encoding)
    return StepResult(target, warnings)


def run_select(path: PathLike, output: PathLike | None = None) -> StepResult:
    """``AlignmentSelector``: ``IN.selec``."""
    target = _target(path, output, SELECTED)
    encoding, source = _documents(path)
    write_lines(target, chain.select_documents(source), encoding)
    return StepResult(target)


def run_normalize(path: PathLike, output: PathLike | None = None) -> StepResult:
    """``IDNormalizer``: ``IN.normalizado``."""
    target = _target(path, output, NORMALIZED)
    encoding, source = _documents(path)
    warnings: list[str] = []
    write_lines(target, chain.normalize_documents(source, warnings, str(path)), encoding)
    return StepResult(target, warnings)


def run_triples(
    path: PathLike, output: PathLike | None = None, normalize_types: bool = False
) -> StepResult:
    """``AlignmentsToTriples [-normaliza_tipos]``: ``IN.triplas``."""
    target = _target(path, output, TRIPLES)
    encoding, source = _documents(path)
    warnings: list[str] = []
    lines = chain.triples_documents(source, warnings, normalize_types, str(path))
    write_lines(target, lines, encoding)
    return StepResult(target, warnings)


def scenario_filter(scenario: str | None, filter_text: str | None) -> list[str] | None:
    """The filter's types: ``--filter 't1;t2'`` or a named scenario (``todas``, ``ident``…)."""
    if filter_text is not None:
        return scoring.parse_filter(filter_text, relation_types())
    if scenario is None:
        return None
    types = scoring.SCENARIOS[scenario]
    return None if types is None else list(types)


def run_filter(
    path: PathLike,
    output: PathLike | None = None,
    types: list[str] | None = None,
    strict: bool = False,
    keep_spurious: bool = False,
) -> StepResult:
    """``RelationsFilter [-filtro t1;t2]``: ``IN.filtrado``."""
    target = _target(path, output, FILTERED)
    encoding, lines = read_plain_lines(path)
    write_lines(target, scoring.filter_lines(lines, types, strict, keep_spurious), encoding)
    return StepResult(target)


def run_evaluate(
    path: PathLike,
    output: PathLike | None = None,
    fix_target_match: bool = False,
    unique_corels: bool = False,
) -> StepResult:
    """``RelationsEvaluatorM2``: ``IN.avaliado``."""
    target = _target(path, output, EVALUATED)
    encoding, lines = read_plain_lines(path)
    evaluated = scoring.evaluate_lines(lines, fix_target_match, unique_corels, str(path))
    write_lines(target, evaluated, _official(encoding))
    return StepResult(target)


def summary_figures(counts: scoring.SummaryCounts) -> RerelemFigures:
    """The three blocks of the summary from its counts."""
    return rerelem_figures(
        counts.total("corels_gold"),
        counts.total("corels_system"),
        counts.total("corels_correct"),
        counts.total("rels_gold"),
        counts.total("rels_system"),
        counts.label(scoring.RELATION_CORRECT),
        counts.label(scoring.COREL_CORRECT) + counts.label(scoring.SPURIOUS),
        counts.label(scoring.MISSING),
        counts.max_gold,
        counts.max_system,
        counts.score,
    )


def _document_rows(counts: scoring.SummaryCounts) -> dict[str, dict]:
    return {
        d.docid: {
            "rels_gold": d.rels_gold,
            "rels_system": d.rels_system,
            "corels_gold": d.corels_gold,
            "corels_system": d.corels_system,
            "corels_correct": d.corels_correct,
            "correct": d.labels[scoring.RELATION_CORRECT],
            "corel_correct": d.labels[scoring.COREL_CORRECT],
            "spurious": d.labels[scoring.SPURIOUS],
            "missing": d.labels[scoring.MISSING],
        }
        for d in counts.documents
    }


def run_summary(
    path: PathLike,
    output: PathLike | None = None,
    resampling: Resampling = BOOTSTRAP,
    graph: str | None = None,
) -> StepResult:
    """``GlobalRelationsEvaluatorM2``: ``IN.resumo`` and its JSON twin ``IN.resumo.json``,
    which adds the 95 % intervals of the ``resampling`` document bootstrap (0 draws: none)
    and ``graph``, the name of the relation-graph view beside it (a campaign's)."""
    target = _target(path, output, SUMMARY)
    encoding, lines = read_plain_lines(path)
    counts = scoring.summary_counts(lines, str(path))
    figures = summary_figures(counts)
    text = format_summary(counts.veil, counts.scenario, figures)
    documents = _document_rows(counts)
    ci95 = rerelem_intervals(documents, resampling)
    report = summary_json(counts.veil, counts.scenario, figures, documents, ci95, graph)
    json_target = target.with_name(target.name + ".json")
    write_lines(target, text, _official(encoding))
    with atomic_write(json_target, "w", encoding="utf-8") as handle:
        handle.write(format_report_json(report))
    return StepResult(target)


def run_graph(path: PathLike, output: PathLike | None = None) -> StepResult:
    """The relation-graph view of a triples file: ``IN.html``, one SVG per document."""
    target = _target(path, output, GRAPH)
    _, lines = read_plain_lines(path)
    page = format_graph_page(Path(path).name, read_graphs(lines))
    with atomic_write(target, "w", encoding="utf-8") as handle:
        handle.write(page)
    return StepResult(target)


def run_convert(path: PathLike, output: PathLike | None = None) -> StepResult:
    """``RerelemChangeNotationM2 -t2t1``: ``IN_t1.xml`` (``IN`` without ``.xml``)."""
    source = Path(path)
    if output is not None:
        target = Path(output)
    else:
        name = source.name[:-4] if source.name.endswith(".xml") else source.name
        target = source.with_name(name + CONVERTED)
    data = read_bytes(path)
    warnings: list[str] = []
    converted = convert_t2_to_t1(data, str(path), warnings)
    with atomic_write(target, "wb", encoding=None, newline=None) as handle:
        handle.write(converted)
    return StepResult(target, warnings)


REPORT = "resultados_ReRelEM.html"


def java_file_path(folder: str) -> str:
    """The path Java's ``new File(folder)`` keeps: repeated and trailing ``/`` removed."""
    path = re.sub("/+", "/", folder)
    return path if path == "/" else path.rstrip("/")


def java_run_name(path: str) -> str:
    """``GlobalRelationsReporter.removeExtensions``: the path up to its first ``.``
    (the whole path when it starts with one)."""
    index = path.find(".")
    return path if index < 1 else path[:index]


def find_summaries(folder: PathLike, filters: Iterable[str]) -> list[tuple[str, Path]]:
    """Every file under ``folder`` (sub-folders too) whose name ends with a suffix of
    ``filters``, with its run name as the Java names it when given ``-dir folder``;
    sorted by path (the Java's order is the file system's)."""
    root = Path(folder)
    if not root.is_dir():
        raise InputError(str(folder), "a folder of .resumo files", "no such folder")
    suffixes = tuple(filters)
    base = java_file_path(str(folder))
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name.endswith(suffixes):
            relative = path.relative_to(root).as_posix()
            found.append(
                (java_run_name(base + "/" + relative if base != "/" else "/" + relative), path)
            )
    if not found:
        raise InputError(
            str(folder), f"a file ending with {' or '.join(suffixes)} in the folder", "none"
        )
    return found


def read_relations_entry(name: str, path: PathLike, deprecated: bool = False) -> RelationsEntry:
    """One run's ``.resumo`` as the official table reads it."""
    _, lines = read_plain_lines(path)
    return parse_relations_entry(name, lines, str(path), deprecated)


def write_relations_page(
    target: PathLike,
    summaries: Iterable[tuple[str, PathLike]],
    filters: Sequence[str],
    deprecated: bool = False,
    generated: datetime | None = None,
) -> Path:
    """The official ReRelEM table of ``(run name, .resumo)`` pairs, ISO-8859-1, atomically."""
    entries = [read_relations_entry(name, path, deprecated) for name, path in summaries]
    page = render_relations_page(entries, filters, generated or datetime.now(), deprecated)
    with atomic_write(Path(target), "wb", encoding=None, newline=None) as handle:
        handle.write(page.encode("iso-8859-1", errors="replace"))  # Java prints '?' too
    return Path(target)


def run_report(
    folder: PathLike,
    output: PathLike | None = None,
    filters: Sequence[str] = (SUMMARY,),
    deprecated: bool = False,
) -> StepResult:
    """``GlobalRelationsReporter -depurar -filtro F -dir FOLDER``: ``FOLDER/`` + :data:`REPORT`."""
    target = Path(output) if output is not None else Path(folder) / REPORT
    write_relations_page(target, find_summaries(folder, filters), filters, deprecated)
    return StepResult(target)


@dataclass(slots=True)
class ChainResult:
    """The files of one chain run: the shared record stages, then one summary per scenario."""

    expanded: Path
    triples: Path
    summaries: dict[str, Path]
    warnings: list[str]


def run_chain(
    alts: PathLike,
    scenarios: Iterable[str] = tuple(scoring.SCENARIOS),
    folder: PathLike | None = None,
    fix_target_match: bool = False,
    strict_filter: bool = False,
    unique_corels: bool = False,
    resampling: Resampling = BOOTSTRAP,
) -> ChainResult:
    """The whole chain from an ``.alts``: expand … triples once, filter … summary per scenario.

    Scenario ``s`` writes ``TRIPLES.s.filtrado`` and what follows in ``folder``
    (default: beside the input); the triples' relation-graph view is
    ``TRIPLES.html``, which each summary's JSON names.
    """
    base = Path(folder) / Path(alts).name if folder is not None else Path(alts)
    expanded = run_expand(alts, str(base) + EXPANDED)
    selected = run_select(expanded.output)
    normalized = run_normalize(selected.output)
    triples = run_triples(normalized.output)
    graph = run_graph(triples.output).output
    summaries: dict[str, Path] = {}
    for scenario in scenarios:
        filtered = run_filter(
            triples.output,
            str(triples.output) + f".{scenario}{FILTERED}",
            scenario_filter(scenario, None),
            strict_filter,
        )
        evaluated = run_evaluate(filtered.output, None, fix_target_match, unique_corels)
        summary = run_summary(evaluated.output, None, resampling, graph.name)
        summaries[scenario] = summary.output
    warnings = expanded.warnings + normalized.warnings + triples.warnings
    return ChainResult(expanded.output, triples.output, summaries, warnings)


# ---------------------------------------------------------------------------
# The campaign's ReRelEM track

RERELEM_VEILS = ("total", "cenario5")
"""The NER veils a campaign runs the chain under by default (official grid names)."""
_RELATION_ATTRIBUTE = re.compile(rb"<EM [^>]*\bCOREL=")


@dataclass(frozen=True, slots=True)
class RerelemSetting:
    """``rerelem:`` of ``pipeline.yaml``: relation scenarios × NER veils (both empty: off)."""

    scenarios: tuple[str, ...]
    veils: tuple[str, ...]


RERELEM_OFF = RerelemSetting((), ())
RERELEM_DEFAULT = RerelemSetting(tuple(scoring.SCENARIOS), RERELEM_VEILS)


def rerelem_setting(value: object, known_veils: Iterable[str]) -> RerelemSetting | None:
    """``rerelem:``: ``{scenarios: [...], veils: [...]}`` (each defaulting to the official
    5 scenarios and ``[total, cenario5]``), ``false`` for off; None (left out or ``true``)
    is the default, on when the collection has relations.  ``known_veils`` are the
    names a veil may take.  A wrong value is a ValueError saying what was expected."""
    if value is None or value is True:
        return None
    if value is False:
        return RERELEM_OFF
    if not isinstance(value, dict) or set(value) - {"scenarios", "veils"}:
        raise ValueError("expected false or a mapping {scenarios: [...], veils: [...]}")
    known = list(known_veils)
    scenarios = _names(value, "scenarios", list(scoring.SCENARIOS), list(scoring.SCENARIOS))
    veils = _names(value, "veils", list(RERELEM_VEILS), known)
    return RerelemSetting(scenarios, veils)


def _names(value: dict, key: str, default: list[str], known: list[str]) -> tuple[str, ...]:
    items = value.get(key, default)
    if not isinstance(items, list) or not items:
        raise ValueError(f"{key}: expected a non-empty list of {', '.join(known)}")
    for item in items:
        if item not in known:
            raise ValueError(f"{key}: expected one of {', '.join(known)}, found {item!r}")
    return tuple(dict.fromkeys(items))


def collection_has_relations(path: PathLike) -> bool:
    """Whether a golden collection has ReRelEM relations (``COREL``) to score."""
    return _RELATION_ATTRIBUTE.search(read_bytes(path)) is not None


def campaign_rerelem(setting: RerelemSetting | None, collection: PathLike) -> RerelemSetting:
    """What a campaign runs: its setting, or the default when the collection has relations
    and nothing when it has not."""
    if setting is not None:
        return setting
    return RERELEM_DEFAULT if collection_has_relations(collection) else RERELEM_OFF


def chain_names(alts: PathLike, scenarios: Iterable[str]) -> tuple[list[Path], dict[str, Path]]:
    """Every file :func:`run_chain` writes beside ``alts`` (summaries' JSON twins included),
    and each scenario's ``.resumo.json``."""
    expanded = Path(str(alts) + EXPANDED)
    selected = derived_path(expanded, SELECTED)
    normalized = derived_path(selected, NORMALIZED)
    triples = derived_path(normalized, TRIPLES)
    names = [expanded, selected, normalized, triples, derived_path(triples, GRAPH)]
    summaries = {}
    for scenario in scenarios:
        filtered = Path(str(triples) + f".{scenario}{FILTERED}")
        evaluated = derived_path(filtered, EVALUATED)
        summary = derived_path(evaluated, SUMMARY)
        summaries[scenario] = summary.with_name(summary.name + ".json")
        names += [filtered, evaluated, summary, summaries[scenario]]
    return names, summaries


def rerelem_step(
    alts: PathLike, scenarios: Iterable[str], resampling: Resampling = BOOTSTRAP
) -> list[Path]:
    """The campaign's step: :func:`run_chain` beside ``alts`` (intervals from
    ``resampling``), every file it wrote."""
    scenarios = tuple(scenarios)
    run_chain(alts, scenarios, resampling=resampling)
    return chain_names(alts, scenarios)[0]


def rerelem_output_names(veus: str, plan: RerelemSetting) -> list[str]:
    """The names the ReRelEM track writes under ``plan`` for the first subset's Véus file
    name ``veus`` (for the campaign's checks of its names)."""
    names = []
    for veil in plan.veils if plan.scenarios else ():
        alts = f"{veus}.{veil}.alts"
        names += [f"{veus}.{veil}", alts]
        names += [path.name for path in chain_names(alts, plan.scenarios)[0]]
    return names


def summary_suffix(veil: str, scenario: str) -> str:
    """The end of every run's ``.resumo`` name under ``veil`` and ``scenario`` (the page's
    ``-filtro``): ``.VEIL.alts`` and the chain's suffixes."""
    chain_suffix = EXPANDED + SELECTED + NORMALIZED + TRIPLES
    return f".{veil}.alts{chain_suffix}.{scenario}{FILTERED}{EVALUATED}{SUMMARY}"


def write_campaign_pages(
    folder: PathLike,
    summaries: dict[tuple[str, str], list[tuple[str, Path]]],
    generated: datetime | None = None,
) -> list[Path]:
    """The campaign's official ReRelEM pages: for each ``(veil, scenario)``, the table of
    its ``(run, .resumo)`` pairs, rows named by run."""
    written = []
    for (veil, scenario), runs in summaries.items():
        target = Path(folder) / page_name(scenario, veil)
        filters = [summary_suffix(veil, scenario)]
        written.append(write_relations_page(target, runs, filters, generated=generated))
    return written
