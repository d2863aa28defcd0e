"""``harem import PRED --format F --cd CD [-o RUN]``: a model's predictions as a HAREM run."""

from __future__ import annotations

import argparse
import sys

from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.tools.predictions import DEFAULT_SCHEME, FORMATS, parse_label_map, run_import

DESCRIPTION = """\
Turn a model's predictions into a system run over the golden collection: the
collection's documents in its format (Second HAREM <EM> XML or First HAREM
tags), encoding and order, with the collection's exact text and the
predicted entities tagged, so align, avalida, veus, altida and ida2id score
it as a participant's run.

  harem-json  [{"doc_id", "doc_text", "entities": [{"start_offset",
              "end_offset", "label"}]}] (the BERT-era HAREM files)
  jsonl       one {"id", "text", "spans": [{"start", "end", "label"}]} per line
  hf          one {"id", "tokens", "ner_tags"} per line (Hugging Face rows; tags as
              names, or integer ids with their names in "tag_names")
  spacy       a spaCy DocBin (.spacy): each Doc's ents; DOCIDs from
              user_data["doc_id"], else the collection's order (nlp.pipe
              over its texts); needs the spacy extra
  conll       token per line, prediction in the last column; documents named
              by -DOCSTART- DOCID or # doc_id = DOCID lines, else taken in the
              collection's order

Offsets are characters, end exclusive, mapped onto the collection's text by
an alignment when the texts differ (an entity on text the collection does not
have is dropped with a warning).  Labels: CAT, CAT:TIPO (CAT-TIPO, CAT_TIPO).
A collection document absent from the predictions has no entities.  The
summary goes to standard error."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``import`` subcommand."""
    parser = subparsers.add_parser(
        "import",
        help="turn a model's predictions (harem-json, conll, jsonl, hf, spacy) into a HAREM run",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("predictions", metavar="PRED", help="the predictions file (.gz allowed)")
    parser.add_argument("--format", required=True, choices=FORMATS, help="format of PRED")
    parser.add_argument("--cd", required=True, metavar="CD", help="the golden collection")
    parser.add_argument(
        "--scheme",
        default=DEFAULT_SCHEME,
        choices=SCHEMES,
        help="CoNLL tagging scheme; every scheme decodes the same way (conlleval's), the "
        "scheme only counts the sequences that break it (default: lenient)",
    )
    parser.add_argument(
        "--label-map",
        metavar="FILE|A=B,...",
        help="rename the model's labels first: a file of A=B lines or a JSON object, or "
        "inline PER=PESSOA,ORG=ORGANIZACAO (a whole label, or the type of a CoNLL tag)",
    )
    parser.add_argument(
        "--only-predicted",
        action="store_true",
        help="score only the documents the predictions name: the others are written empty, "
        "which the aligner leaves out (default: written without entities, all missed)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="RUN",
        help="where to write the run (default: beside PRED, NAME.run.xml or NAME.run.txt)",
    )
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    """Import, write the run, print the summary; return the exit status."""
    label_map = parse_label_map(args.label_map) if args.label_map else None
    output, summary = run_import(
        args.predictions,
        args.format,
        args.cd,
        args.output,
        args.scheme,
        label_map,
        args.only_predicted,
    )
    sys.stderr.write(summary.format())
    return 0
