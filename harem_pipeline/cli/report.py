"""``harem report OUTPUT_DIR``: the self-contained HTML campaign report."""

from __future__ import annotations

import argparse
from pathlib import Path

from harem_pipeline.errors import HaremError
from harem_pipeline.reports.html import write_report_html


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write OUTPUT_DIR/report.html from a campaign's summary",
        description=(
            "Write OUTPUT_DIR/report.html: leaderboard, every measure per run, subset and "
            "scenario, inline SVG charts (unless the campaign says charts: false); one file "
            "with no network resources. Reads OUTPUT_DIR/summary.json, which `harem run` writes."
        ),
    )
    parser.add_argument(
        "output_dir",
        metavar="OUTPUT_DIR",
        help="the campaign's output folder (output: in pipeline.yaml), holding summary.json",
    )
    official = parser.add_argument_group(
        "official pages",
        "the Second HAREM result pages of GlobalSemanticReporter (docs/spec/official-grid.md)",
    )
    official.add_argument(
        "--official",
        action="store_true",
        help=(
            "write OUTPUT_DIR/official/resultados_HAREM_Classico_<veil>.html and "
            "resultados_altrel_HAREM_Classico_<veil>.html from the runs' .alts.emir.ida and "
            ".alts.emir.altrel.ida reports (a campaign of one veil is reported as total)"
        ),
    )
    official.add_argument(
        "--anonymise",
        action="store_true",
        help="code names instead of run names (the official 32); the key in "
        "official/chave_anonimizacao.txt",
    )
    official.add_argument(
        "--seed", type=int, default=0, help="the seed of the code names (default 0)"
    )
    official.add_argument(
        "--info",
        metavar="LISTA_PARTICIPANTES",
        help="the participant table (Path, Veu, Descrição, Sistema, tab-separated): runs "
        "named as a Path shown as Sistema_<run number>",
    )
    official.add_argument(
        "--subset", default="total", help="the Véus subset the pages show (default total)"
    )
    parser.set_defaults(func=run_report)


def run_report(args: argparse.Namespace) -> int:
    folder = Path(args.output_dir)
    if args.official:
        return run_official(args, folder)
    if args.anonymise or args.info:
        raise HaremError("--anonymise and --info go with --official")
    grid = folder / "official" / "grid.json"  # a campaign with veils: (harem run writes it)
    target = write_report_html(
        folder / "summary.json", folder / "report.html", grid if grid.is_file() else None
    )
    print(target)
    return 0


def run_official(args: argparse.Namespace, folder: Path) -> int:
    """``--official``: the official pages of the campaign in ``folder``."""
    from harem_pipeline.pipeline.official import (
        OFFICIAL_FOLDER,
        find_identification_reports,
        find_official_runs,
        write_identification_page,
        write_semantic_pages,
    )

    veils = find_official_runs(folder, args.subset)
    seed = args.seed if args.anonymise else None
    written = write_semantic_pages(
        folder / OFFICIAL_FOLDER,
        veils,
        seed=seed,
        participants=Path(args.info) if args.info else None,
    )
    identification = find_identification_reports(folder, args.subset)
    if identification:
        target = folder / OFFICIAL_FOLDER
        written.append(write_identification_page(target, identification, args.subset, seed=seed))
    for path in written:
        print(path)
    return 0
