"""``harem export CD --format F``: a golden collection as training or gold files for models."""

from __future__ import annotations

import argparse
import sys

from harem_pipeline.formats.conll import SCHEMES
from harem_pipeline.tools.export import ALT_CHOICES, SCENARIOS, run_export
from harem_pipeline.tools.predictions import FORMATS

DESCRIPTION = """\
Write the golden collection in the formats NER models read, one flat layer
of entities per document, the collection's text with its character
references read (Net&amp;Tek is Net&Tek, as the published files have it; UTF-8):

  harem-json  [{"doc_id", "doc_text", "entities": [{"entity_id", "text",
              "label", "start_offset", "end_offset"}]}]
  jsonl       one {"id", "text", "spans": [{"start", "end", "label"}]} per line
  hf          one {"id", "tokens", "ner_tags"} per document (Hugging Face rows;
              the CoNLL tokens and tags of the whole document)
  spacy       a spaCy DocBin (.spacy, for spacy train): one Doc per document,
              its text exact, the CoNLL tokens, sentences and entities
              (needs the spacy extra: pip install 'harem-pipeline[spacy]')
  conll       -DOCSTART- DOCID O, then "token tag" lines, sentences apart;
              tokens and sentences from the text alone (an entity crossing a
              sentence end is left out, one inside a token widened: counted)

ALT blocks: --alt first (the running text's alternative) or best (the one
with most entities).  A vague category A|B is written A; entities inside
OMITIDO stay, as in a participant's run (the evaluation leaves them out).
White space at an entity's edges is trimmed.
--scenario selective keeps PESSOA, ORGANIZACAO, LOCAL, TEMPO and VALOR.
'harem import' reads every one of these back."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` subcommand."""
    parser = subparsers.add_parser(
        "export",
        help="write a golden collection as harem-json, conll, jsonl, hf or spacy (training files)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("cd", metavar="CD", help="the golden collection (.gz allowed)")
    parser.add_argument("--format", required=True, choices=FORMATS, help="output format")
    parser.add_argument("--scenario", default="total", choices=SCENARIOS, help="default total")
    parser.add_argument("--alt", default="first", choices=ALT_CHOICES, help="default first")
    parser.add_argument(
        "--scheme",
        default="iob2",
        choices=[s for s in SCHEMES if s != "lenient"],
        help="CoNLL tagging scheme (default iob2)",
    )
    parser.add_argument(
        "--types", action="store_true", help="labels CAT:TIPO instead of the category alone"
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write (default: beside CD, NAME.SCENARIO + the format's suffix)",
    )
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    """Export; print what was exported (quiet on success otherwise); return the exit status."""
    output, summary = run_export(
        args.cd, args.format, args.output, args.scenario, args.alt, args.scheme, args.types
    )
    sys.stderr.write(summary.format())
    return 0
