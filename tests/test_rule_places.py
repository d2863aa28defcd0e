"""Each rule of docs/ARCHITECTURE.md's "Where each rule lives" is one function.

For every row, the function it names is replaced (in a fresh process, so no
cache of an earlier call hides the replacement) and the stage that depends
on it is run on real input: its output must move.  A second copy of a rule,
a fast path that restates it or a value bound at import would leave the
output as it was and fail here.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harem_pipeline.cli import main
from tests.helpers.campaign import campaign_files
from tests.helpers.paths import DATA

PATCHED_MAIN = """
import importlib, sys
module, name, replacement, *argv = sys.argv[1:]
target = importlib.import_module(module)
owner, _, attribute = name.rpartition(".")
holder = getattr(target, owner) if owner else target
setattr(holder, attribute, eval(replacement, vars(target)))
from harem_pipeline.cli import main
sys.exit(main(argv))
"""
"""``harem ARGV`` with ``module.name`` replaced by ``replacement`` (evaluated in the module,
so it may wrap the rule it replaces)."""


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every stage's input on 12 First HAREM documents and a weak simulated run."""
    folder = tmp_path_factory.mktemp("rules")
    files = dict(campaign_files(12))
    (folder / "cd.txt").write_bytes(files["cd.txt"])
    weak = next(name for name in files if name.startswith("runs/") and "weak" in name)
    (folder / "run.txt").write_bytes(files[weak])
    x = str(folder / "x")
    steps = [
        ["align", "--cd", str(folder / "cd.txt"), "--run", str(folder / "run.txt"), "-o", x],
        ["avalida", x, "-o", f"{x}.avalida"],
        ["veus", f"{x}.avalida", "--style", "harem", "-o", f"{x}.veu"],
        ["alts", f"{x}.veu", "-o", f"{x}.alts"],
        ["emir", f"{x}.alts", "-o", f"{x}.emir"],
        ["vizir", f"{x}.veu", "-abs", "-o", f"{x}.vizir"],
        ["altmor", f"{x}.vizir", "-o", f"{x}.altmor"],
    ]
    for argv in steps:
        assert main(["-q", *argv]) == 0, argv
    for name in ("brackets/total_harem.alinhado", "tempo/edit1.veu.alts.emir"):
        target = folder / Path(name).name
        with gzip.open(DATA / "reference" / f"{name}.gz") as source, open(target, "wb") as out:
            shutil.copyfileobj(source, out)
    shutil.copy(DATA / "conll2000" / "sample.txt", folder / "sample.conll")
    sample = (DATA / "conll2000" / "sample.txt").read_text("utf-8")
    (folder / "chunks.conll").write_text(sample * 40, "utf-8")  # two chunks or more: workers
    documents = "".join(f"-DOCSTART- -X- O O\n\n{sample}" for _ in range(30))
    (folder / "documents.conll").write_text(documents, "utf-8")  # 30 documents, in chunks
    return folder


def run_stage(folder: Path, argv: list[str], patch: tuple[str, str, str] | None) -> bytes:
    """The output (``-o``) of ``harem ARGV`` run in ``folder``, the rule replaced or not."""
    output = folder / "out"
    output.unlink(missing_ok=True)
    command = [sys.executable, "-c", PATCHED_MAIN, *(patch or ("harem_pipeline", "_", "0"))]
    done = subprocess.run(
        [*command, "-q", *argv, "-o", str(output)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return output.read_bytes()


# (the ARCHITECTURE row, module, function, replacement, harem command on the chain's files)
RULES = [
    (
        "atom intersection",
        "harem_pipeline.stages.avalida",
        "intersection_size",
        "lambda gold, system: 1",
        ["avalida", "x"],
    ),
    (
        "partial-credit weight",
        "harem_pipeline.stages.avalida",
        "partial_weight",
        "lambda gold, system: 0.37",
        ["avalida", "x"],
    ),
    (
        "entity texts as the Java reads them back",
        "harem_pipeline.formats.alinhado",
        "java_entity_text",
        "lambda text, system: text.upper()",
        ["avalida", "total_harem.alinhado"],
    ),
    (
        "Vizir's first-atom rule",
        "harem_pipeline.stages.vizir",
        "evaluated_index",
        "lambda gold, texts: None",
        ["vizir", "x.veu", "-abs"],
    ),
    (
        "Vizir's special records",
        "harem_pipeline.stages.vizir",
        "judge_evaluated",
        "(lambda rule: lambda alignment, scenario, index: rule(alignment, scenario, None))"
        "(judge_evaluated)",
        ["vizir", "x.veu", "-abs"],
    ),
    (
        "which alignments a Véus style keeps",
        "harem_pipeline.stages.veus",
        "unchanged_by_style",
        "lambda style, kinds: True",
        ["veus", "x.avalida", "--style", "muc"],
    ),
    (
        "Total na CD, identified, partial sums",
        "harem_pipeline.stages.ida2id",
        "record_rows",
        "(lambda rule: lambda *a, **k: list(rule(*a, **k))[:1])(record_rows)",
        ["ida2id", "x.veu"],
    ),
    (
        "identification measures",
        "harem_pipeline.measures.identification",
        "identification_figures",
        "(lambda rule: lambda c: {k: v * 0.5 for k, v in rule(c).items()})(identification_figures)",
        ["ida2id", "x.veu"],
    ),
    (
        "ALT choice for identification",
        "harem_pipeline.stages.altida",
        "choose_alternative",
        "lambda scores: len(scores) - 1",
        ["altida", "x.avalida"],
    ),
    (
        "ALT choice for morphology",
        "harem_pipeline.stages.altmor",
        "choose_alternative",
        "lambda tallies: len(tallies) - 1",
        ["altmor", "x.vizir"],
    ),
    (
        "morphology outcomes: one field",
        "harem_pipeline.stages.vizir",
        "score_field",
        "(lambda rule: lambda gold, system, partial: rule(gold, gold, partial))(score_field)",
        ["vizir", "x.veu", "-abs"],
    ),
    (
        "morphology outcomes: Combinada",
        "harem_pipeline.stages.vizir",
        "combine_outcomes",
        "lambda gender, number: gender",
        ["vizir", "x.veu", "-abs"],
    ),
    (
        "morphology half credit",
        "harem_pipeline.formats.vizir",
        "morph_credit",
        "lambda correct, partial: correct + partial / 4",
        ["vizir", "x.veu", "-abs"],
    ),
    (
        "CSC of an aligned pair",
        "harem_pipeline.stages.emir",
        "_csc",
        "lambda levels, filt, weights: 0.5",
        ["emir", "x.alts"],
    ),
    (
        "ALT weights",
        "harem_pipeline.stages.alts",
        "_weighted",
        "(lambda rule: lambda record, weight: rule(record, weight / 2))(_weighted)",
        ["alts", "x.veu"],
    ),
    (
        "relaxed ALT (ALTina)",
        "harem_pipeline.stages.altsem",
        "choose_alternative",
        "lambda ranks: len(ranks) - 1",
        ["altsem", "x.emir"],
    ),
    (
        "global semantic counts (Ida)",
        "harem_pipeline.stages.ida",
        "record_rows",
        "(lambda rule: lambda *a: list(rule(*a))[:1])(record_rows)",
        ["ida", "x.emir"],
    ),
    (
        "global semantic figures (Ida)",
        "harem_pipeline.measures.semantic",
        "semantic_figures",
        "(lambda rule: lambda counts: {k: 0 for k in rule(counts)})(semantic_figures)",
        ["ida", "x.emir"],
    ),
    (
        "span categories, overlap and coverage (the judge)",
        "harem_pipeline.stages.spans",
        "judge",
        "(lambda rule: lambda *a: (lambda j: j._replace(category=j.category * 0 + 4))(rule(*a)))"
        "(judge)",
        ["measures", "chunks.conll", "--format", "conll", "--json", "--bootstrap", "0"],
    ),
    (
        "a CoNLL file's document lines",
        "harem_pipeline.formats.conll",
        "document_starts",
        "lambda text: []",
        ["measures", "documents.conll", "--format", "conll", "--json", "--bootstrap", "0"],
    ),
    (
        "span measures: figures",
        "harem_pipeline.measures.spans",
        "span_figures",
        "(lambda rule: lambda c: {k: v * 0.5 for k, v in rule(c).items()})(span_figures)",
        ["measures", "sample.conll", "--format", "conll", "--json", "--bootstrap", "0"],
    ),
    (
        "veil syntax",
        "harem_pipeline.formats.veils",
        "parse_veil",
        "(lambda rule: lambda text, grid, source='veil': rule(None, grid, source))(parse_veil)",
        ["veus", "x.avalida", "--style", "harem", "--veil", "PESSOA"],
    ),
    (
        "which veil a selective subset is scored with: Véus",
        "harem_pipeline.pipeline.params",
        "SubsetParams.evaluation_veil",
        "lambda self: 'LOCAL'",
        ["veus", "x.avalida", "--style", "harem", "--selective", "--system-veil", "PESSOA"],
    ),
    (
        "which veil a selective subset is scored with: span measures",
        "harem_pipeline.pipeline.params",
        "SubsetParams.evaluation_veil",
        "lambda self: 'LOCAL'",
        ["measures", "--cd", "cd.txt", "--run", "run.txt", "--selective", "--system-veil"]
        + ["PESSOA", "--json", "--bootstrap", "0"],
    ),
    (
        "AvalTEMPO's rules",
        "harem_pipeline.stages.tempo",
        "score_line",
        "lambda text, mode, state: None",
        ["tempo", "edit1.veu.alts.emir", "--mode", "1"],
    ),
    (
        "the signature's keys",
        "harem_pipeline.pipeline.params",
        "ReportParams.signature_fields",
        "(lambda rule: lambda self: {**rule(self), 'style': 'other'})"
        "(ReportParams.signature_fields)",
        ["ida2id", "x.veu"],
    ),
]


@pytest.mark.parametrize(
    ("module", "name", "replacement", "argv"),
    [pytest.param(*row[1:], id=row[0]) for row in RULES],
)
def test_replacing_a_rule_moves_the_output(
    chain: Path, module: str, name: str, replacement: str, argv: list[str]
) -> None:
    ours = run_stage(chain, argv, None)
    replaced = run_stage(chain, argv, (module, name, replacement))
    assert ours, "the stage wrote nothing: the test could not fail"
    assert replaced != ours


def test_every_rule_row_is_tested() -> None:
    """The table of docs/ARCHITECTURE.md names each function tested here."""
    text = (Path(__file__).parents[1] / "docs" / "ARCHITECTURE.md").read_text("utf-8")
    section = text.split("## Where each rule lives", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    for _, module, name, _, _ in RULES:
        path = module.removeprefix("harem_pipeline.").replace(".", "/") + ".py"
        line = next((r for r in rows if f"`{path}`" in r and name in r), None)
        assert line is not None, f"no row names {path} ({name})"


def test_replacing_the_ceiling_export_moves_evaluate_s_ceiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evaluate()``'s ceiling is ``chain.export_ceiling``'s file, scored (the campaign's
    ``NAME-ceiling`` run is the same file: ``tests/test_api.py``)."""
    import json

    import harem_pipeline
    from harem_pipeline.api import _CEILINGS
    from harem_pipeline.pipeline import chain

    files = dict(campaign_files(2))
    cd = tmp_path / "cd.txt"
    cd.write_bytes(files["cd.txt"])
    gold = tmp_path / "gold.json"
    assert main(["-q", "export", str(cd), "--format", "harem-json", "-o", str(gold)]) == 0
    _CEILINGS.clear()
    ours = harem_pipeline.evaluate(gold, cd)["ceiling"]["exact"]["f1"]
    rule = chain.export_ceiling

    def halved(cd: Any, run: Any, output: Any, veil: Any, grid: Any, documents: Any) -> Any:
        written = rule(cd, run, output, veil, grid, documents)
        docs = json.loads(Path(output).read_text("utf-8"))
        for doc in docs:
            doc["entities"] = doc["entities"][::2]
        Path(output).write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
        return written

    monkeypatch.setattr(chain, "export_ceiling", halved)
    _CEILINGS.clear()
    try:
        replaced = harem_pipeline.evaluate(gold, cd)["ceiling"]["exact"]["f1"]
    finally:
        _CEILINGS.clear()
    assert ours == 1.0 > replaced
