"""``harem measures``: span measures of a CoNLL or JSON-lines file, or of a HAREM run."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from harem_pipeline.cli import say
from harem_pipeline.cli.options import resamples, whole_number
from harem_pipeline.errors import InputError
from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.formats.jsontext import write_report_json
from harem_pipeline.measures.resampling import DEFAULT_RESAMPLES, Resampling
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.reports.measures import (
    format_errors_tsv,
    format_measures_text,
    measures_json,
    measures_lines,
    measures_streams,
)
from harem_pipeline.stages.span_measures import ALIASES, FORMATS, CountOptions, alias_warning
from harem_pipeline.stages.spans import LabelFilter, check_min_overlap
from harem_pipeline.text.atomic import atomic_write

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
ci95 units: -DOCSTART- documents (2+) else sentences, lines, DOCIDs; blocks past 2,000

Also reported: macro averages (mean over labels of the per-label P/R/F),
token accuracy (tokens whose two tags are equal, conlleval's 'accuracy'),
the confusion of labels over same-boundary pairs (with (missing), (spurious)
and (boundary) rows/columns), and every span that is not correct: its kind,
side, label, tokens, text, place and the spans it was compared with (the
text report shows the first ones; --json and --errors all of them).
--json also has per_document: every measure of each ci95 unit."""


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
        "--labels",
        type=label_list("--labels"),
        metavar="A,B",
        help="score only these labels (spans of other labels are left out on both sides)",
    )
    parser.add_argument(
        "--ignore",
        type=label_list("--ignore"),
        metavar="C,D",
        help="leave these labels out on both sides",
    )
    parser.add_argument(
        "--min-overlap",
        type=share("--min-overlap"),
        default=0.0,
        metavar="F",
        help="overlap measure: a pair counts when it covers this share of the gold span's "
        "tokens (0 to 1; default: any token)",
    )
    parser.add_argument(
        "--errors",
        metavar="FILE.tsv",
        help="also write every error entry as a tab-separated table",
    )
    parser.add_argument(
        "--veil",
        help="HAREM mode: the evaluation veil (Java syntax, e.g. PESSOA:LOCAL; default '*')",
    )
    parser.add_argument(
        "--system-veil",
        help="HAREM mode: the veil the run declared it handles (for --selective)",
    )
    parser.add_argument(
        "--selective",
        action="store_true",
        help="HAREM mode: score only the categories of --system-veil (the 'selectivo' scenario)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON instead of a table: each P/R/F triple has a ci95 object (95%% "
        "document-bootstrap intervals), and documents holds the per-document counts",
    )
    parser.add_argument(
        "--bootstrap",
        type=resamples(),
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"resamples of the document bootstrap (default {DEFAULT_RESAMPLES}; "
        "0: none, ci95 is null)",
    )
    parser.add_argument(
        "--workers",
        type=whole_number("--workers", 1),
        metavar="N",
        help="processes that read and judge a CoNLL file's chunks (default: every core; "
        "the report is the same on any number)",
    )
    parser.add_argument("-o", "--output", help="write the report to this file (default stdout)")
    parser.set_defaults(func=run_measures)


def run_measures(args: argparse.Namespace) -> int:
    resampling = Resampling(args.bootstrap if args.json else 0)  # the table shows no intervals
    harem = args.cd is not None or args.run is not None
    if harem and (args.cd is None or args.run is None or args.file or args.format):
        raise InputError(None, "--cd CD --run RUN (and no FILE or --format)", _given(args))
    if not harem and (args.file is None or args.format is None):
        raise InputError(None, "FILE --format FORMAT, or --cd CD --run RUN", _given(args))
    warning = alias_warning(args.format) if args.format else None
    if warning:
        say(warning)
    if not harem and (args.veil or args.system_veil or args.selective):
        raise InputError(None, "--veil/--system-veil/--selective only with --cd and --run", "FILE")
    if args.selective and args.veil:
        raise InputError(None, "either --veil or --selective", "both")
    _check_errors_path(args)
    labels = None
    if args.labels is not None or args.ignore:
        labels = LabelFilter(args.labels, args.ignore or ())
    options = CountOptions(args.scheme, args.min_overlap, labels, errors=True, documents=args.json)
    if harem:  # the collection reader and the aligner load only for a HAREM run
        from harem_pipeline.model import EVERYTHING
        from harem_pipeline.pipeline.harem_spans import measure_harem
        from harem_pipeline.pipeline.params import SubsetParams

        evaluation = SubsetParams(
            veil=args.veil or EVERYTHING, system_veil=args.system_veil, selective=args.selective
        )
        report = measure_harem(
            args.cd, args.run, args.meta, resampling, evaluation=evaluation, options=options
        )
    else:
        report = measure_file(args.file, args.format, options, resampling, workers=args.workers)
    try:
        if args.errors:
            with atomic_write(args.errors) as handle:
                handle.writelines(format_errors_tsv(report.errors.records()))
        with atomic_write(args.output or "-") as handle:
            if args.json:
                # the per-unit objects first: the bootstrap may be running apart meanwhile
                lines = {key: list(entries) for key, entries in measures_lines(report).items()}
                write_report_json(
                    handle, measures_json(report, tails=False), measures_streams(report), lines
                )
            else:
                handle.write(format_measures_text(report))
    finally:
        report.errors.close()
    return 0


def label_list(option: str) -> Callable[[str], frozenset[str]]:
    """An argparse ``type``: labels separated by commas, none empty."""

    def convert(text: str) -> frozenset[str]:
        names = text.split(",")
        if not all(name.strip() for name in names):
            raise InputError(option, "labels separated by commas (A,B)", repr(text))
        return frozenset(name.strip() for name in names)

    convert.__name__ = "labels"
    return convert


def share(option: str) -> Callable[[str], float]:
    """An argparse ``type``: a number from 0 to 1."""

    def convert(text: str) -> float:
        try:
            return check_min_overlap(float(text))
        except ValueError:
            raise InputError(option, "a number from 0 to 1", repr(text)) from None

    convert.__name__ = "float"
    return convert


def _check_errors_path(args: argparse.Namespace) -> None:
    """``--errors`` must not name an input or the report itself."""
    path = args.errors
    if not path or not os.path.exists(path):
        return
    for other in (args.file, args.cd, args.run, args.meta, args.output):
        if other and os.path.exists(other) and os.path.samefile(other, path):
            raise InputError("--errors", "a file other than the inputs and the report", repr(path))


def _given(args: argparse.Namespace) -> str:
    names = [f"--{n}" for n in ("cd", "run", "format") if getattr(args, n) is not None]
    return " ".join(([args.file] if args.file else []) + names) or "no input"
