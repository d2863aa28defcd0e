"""``harem rerelem STEP INPUT [-o OUTPUT]``: the ReRelEM relation evaluation, step by step.

Steps and files as the official chain (docs/spec/rerelem.md): ``convert``
(t2→t1, ``_t1.xml``), ``expand`` (``.expandido``), ``select`` (``.selec``),
``normalize`` (``.normalizado``), ``triples`` (``.triplas``), ``filter``
(``.filtrado``), ``evaluate`` (``.avaliado``), ``summary`` (``.resumo`` and
``.resumo.json``); ``report`` writes the official table of a folder's
summaries; ``graph`` draws a triples file's relations (``.html``).
"""

from __future__ import annotations

import argparse
import sys

from harem_pipeline.cli.options import add_bootstrap
from harem_pipeline.measures.resampling import Resampling
from harem_pipeline.pipeline import rerelem as steps
from harem_pipeline.stages.rerelem.scoring import SCENARIOS

STEPS = {
    "convert": "t2→t1 relation notation of a collection or run (INPUT_t1.xml)",
    "expand": "inverse and transitive relations of an .alts file (INPUT.expandido)",
    "select": "aligned records whose categories meet (INPUT.selec)",
    "normalize": "system IDs and CORELs as the golden IDs (INPUT.normalizado)",
    "triples": "golden and system relations of each document (INPUT.triplas)",
    "filter": "the relations of a scenario's types (INPUT.filtrado)",
    "evaluate": "each system relation scored against the golden ones (INPUT.avaliado)",
    "summary": "CORELs, relations and the ReRelEM score (INPUT.resumo, INPUT.resumo.json)",
    "graph": "relation-graph view of a triples file, one SVG per document (INPUT.html)",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``rerelem`` and its steps."""
    parser = subparsers.add_parser(
        "rerelem",
        help="ReRelEM: evaluate relations between entities (Second HAREM)",
        description=(
            "The Second HAREM's relation evaluation, one official program per step, each "
            "writing the official file (equal to it line for line)."
        ),
    )
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    for name, text in STEPS.items():
        step = sub.add_parser(name, help=text, description=text)
        step.add_argument("input", help="the input file (.gz allowed)")
        step.add_argument("-o", "--output", help="output file (default: INPUT + the suffix)")
        step.add_argument(
            "--warnings",
            action="store_true",
            help="print the warnings the official program prints on stderr",
        )
        step.set_defaults(func=run_command)
    sub.choices["expand"].add_argument(
        "--gold-only",
        action="store_true",
        help="expand the golden relations only (the official -exptudo nao)",
    )
    sub.choices["triples"].add_argument(
        "--normalize-types",
        action="store_true",
        help="write non-basic types as outra (the official -normaliza_tipos)",
    )
    relation_filter = sub.choices["filter"]
    chosen = relation_filter.add_mutually_exclusive_group()
    chosen.add_argument(
        "--filter", metavar="'t1;t2'", help="relation types to keep (the official -filtro)"
    )
    chosen.add_argument(
        "--scenario",
        choices=tuple(SCENARIOS),
        help="a named relation scenario (todas keeps everything)",
    )
    relation_filter.add_argument(
        "--strict-filter",
        action="store_true",
        help="keep only the listed types (officially every non-basic relation passes)",
    )
    relation_filter.add_argument(
        "--keep-spurious",
        action="store_true",
        help="keep relations with an ESPURIO argument (the official -espurios sim)",
    )
    add_bootstrap(
        sub.choices["summary"],
        " of the document bootstrap for the JSON's ci95",
        "none, ci95 is null",
    )
    evaluate = sub.choices["evaluate"]
    evaluate.add_argument(
        "--fix-target-match",
        action="store_true",
        help="require the target ID to match too (the official evaluator never compares it)",
    )
    evaluate.add_argument(
        "--unique-corels",
        action="store_true",
        help="count CORELs as distinct keys (officially one per relation)",
    )
    report = sub.add_parser(
        "report",
        help="the official table of a folder's .resumo files (resultados_ReRelEM.html)",
        description=(
            "The official GlobalRelationsReporter -depurar table of every file under DIR "
            "whose name ends with the filter: one row per file, named as the official "
            "program names it (the path up to its first '.')."
        ),
    )
    report.add_argument("input", metavar="DIR", help="the folder of .resumo files")
    report.add_argument("-o", "--output", help="output file (default: DIR/resultados_ReRelEM.html)")
    report.add_argument(
        "--filter",
        default=steps.SUMMARY,
        metavar="SUFFIX[:SUFFIX]",
        help="read the files ending with one of these (the official -filtro; default .resumo)",
    )
    report.add_argument(
        "--deprecated",
        action="store_true",
        help="add the CORELs and ReRelEM score tables (the official -desaconselhadas)",
    )
    report.set_defaults(func=run_report_command)
    parser.set_defaults(func=lambda args: _no_step(parser))


def run_report_command(args: argparse.Namespace) -> int:
    """``harem rerelem report DIR``; return the exit status."""
    filters = args.filter.split(":")
    steps.run_report(args.input, args.output, filters, args.deprecated)
    return 0


def _no_step(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def run_command(args: argparse.Namespace) -> int:
    """Run one step; return the exit status."""
    step = args.step
    if step == "convert":
        result = steps.run_convert(args.input, args.output)
    elif step == "expand":
        result = steps.run_expand(args.input, args.output, not args.gold_only)
    elif step == "select":
        result = steps.run_select(args.input, args.output)
    elif step == "normalize":
        result = steps.run_normalize(args.input, args.output)
    elif step == "triples":
        result = steps.run_triples(args.input, args.output, args.normalize_types)
    elif step == "filter":
        types = steps.scenario_filter(args.scenario, args.filter)
        result = steps.run_filter(
            args.input, args.output, types, args.strict_filter, args.keep_spurious
        )
    elif step == "evaluate":
        result = steps.run_evaluate(
            args.input, args.output, args.fix_target_match, args.unique_corels
        )
    elif step == "summary":
        result = steps.run_summary(args.input, args.output, Resampling(args.bootstrap))
    else:
        result = steps.run_graph(args.input, args.output)
    if args.warnings:
        for line in result.warnings:
            print(line, file=sys.stderr)
    return 0
