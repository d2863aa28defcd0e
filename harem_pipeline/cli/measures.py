"""``harem measures``: span measures of a CoNLL or JSON-lines file, or of a HAREM run."""

from __future__ import annotations

import argparse
import sys

from harem_pipeline.cli.options import whole_number
from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.formats.jsontext import format_report_json
from harem_pipeline.measures.bootstrap import DEFAULT_RESAMPLES
from harem_pipeline.pipeline.spans import measure_file, measure_harem
from harem_pipeline.reports.measures import format_measures_text, measures_json
from harem_pipeline.stages.span_measures import ALIASES, FORMATS, alias_warning
from harem_pipeline.text.atomic import write_text_atomic

DESCRIPTION = """\
Span measures of gold against system spans, labelled and unlabelled, overall
and per label. P is over system spans, R over gold spans, F their harmonic
mean; an undefined ratio (0/0) prints as '-' (null in JSON).

  exact          same boundaries and same label (CoNLL's measure; equals conlleval
                 for IOB1/IOB2 tags: conlleval merges adjacent same-type IOBES
                 singletons (S-X S-X) into one chunk, which we do not)
  overlap        shares at least one token with a span of the same label
  intersection   share of the span's tokens covered by same-label spans (J&M)
  semeval        SemEval-2013 strict, exact, partial (half credit), type P/R/F
  categories     correct, label/boundary/label+boundary error, missing, spurious

CoNLL files: token per line, gold and system tags in the last two columns,
blank or -DOCSTART- lines between sentences.  tokens-jsonl (old name jsonl):
{"id", "tokens", "gold": [[start, end, label], ...], "system": [...]}, token
offsets, end exclusive.
HAREM: --cd CD --run RUN, aligner's tokens, A|B = label set, ALT as AltinaID
ci95 units: -DOCSTART- documents (2+) else sentences, lines, DOCIDs; blocks past 2,000"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "measures",
        help="span measures (exact, categories, overlap, intersection) of a CoNLL/JSONL "
        "file or of a HAREM run against its CD",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file", metavar="FILE", nargs="?", help="the input file (.gz allowed), with --format"
    )
    parser.add_argument(
        "--format",
        choices=(*FORMATS, *ALIASES),
        help="input format of FILE (jsonl: the old name of tokens-jsonl)",
    )
    parser.add_argument(
        "--cd",
        help="HAREM mode: the golden collection; with --run, measures the run's entities "
        "against it (AltinaID's ALT choice, OMITIDO left out)",
    )
    parser.add_argument("--run", help="HAREM mode: the system run (same format as --cd)")
    parser.add_argument("--meta", help="HAREM mode: Second HAREM document metadata (optional)")
    parser.add_argument(
        "--scheme",
        default="lenient",
        choices=SCHEMES,
        help="CoNLL tagging scheme; invalid sequences under it are repaired the conlleval "
        "way and counted (default: lenient, read like conlleval, nothing counted)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON instead of a table: each P/R/F triple has a ci95 object (95%% "
        "document-bootstrap intervals), and documents holds the per-document counts",
    )
    parser.add_argument(
        "--bootstrap",
        type=whole_number("--bootstrap", 0),
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"resamples of the document bootstrap (default {DEFAULT_RESAMPLES}; "
        "0: none, ci95 is null)",
    )
    parser.add_argument("-o", "--output", help="write the report to this file (default stdout)")
    parser.set_defaults(func=run_measures)


def run_measures(args: argparse.Namespace) -> int:
    resamples = args.bootstrap if args.json else 0  # the table shows no intervals
    harem = args.cd is not None or args.run is not None
    if harem and (args.cd is None or args.run is None or args.file or args.format):
        raise InputError(None, "--cd CD --run RUN (and no FILE or --format)", _given(args))
    if not harem and (args.file is None or args.format is None):
        raise InputError(None, "FILE --format FORMAT, or --cd CD --run RUN", _given(args))
    warning = alias_warning(args.format) if args.format else None
    if warning:
        print(warning, file=sys.stderr)
    if harem:
        report = measure_harem(args.cd, args.run, args.meta, resamples)
    else:
        report = measure_file(args.file, args.format, args.scheme, resamples, documents=args.json)
    if args.json:
        text = format_report_json(measures_json(report))
    else:
        text = format_measures_text(report)
    if args.output:
        write_text_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _given(args: argparse.Namespace) -> str:
    names = [f"--{n}" for n in ("cd", "run", "format") if getattr(args, n) is not None]
    return " ".join(([args.file] if args.file else []) + names) or "no input"
