"""The library in two calls, for a notebook: ``evaluate`` and ``span_measures``.

``evaluate`` scores a model's predictions with the official HAREM chain:
it writes a one-run campaign (``pipeline.yaml``) in a temporary folder,
reads it with the campaign reader ``harem run`` uses, and calls the
pipeline's own steps (:mod:`harem_pipeline.pipeline.chain`) in the order
and with the file names, parameters and signatures of ``harem run``'s
tasks.  So its figures are those of the report files of a campaign on the
same predictions, figure for figure; nothing is scored here.

``span_measures`` gives the span measures of tag sequences (seqeval's
calling convention) through the CoNLL reader and the measures of ``harem
measures``.

This module sits above ``pipeline`` (see docs/ARCHITECTURE.md); the
package's ``__init__`` exports both functions lazily, so ``import
harem_pipeline`` stays as light as before.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from harem_pipeline.errors import InputError
from harem_pipeline.measures.resampling import DEFAULT_SEED, NO_BOOTSTRAP
from harem_pipeline.model import Alt, Scenario
from harem_pipeline.pipeline import chain
from harem_pipeline.pipeline.config import Campaign, load_campaign
from harem_pipeline.pipeline.naming import json_twin
from harem_pipeline.pipeline.params import ReportParams, report_params, subset_params
from harem_pipeline.pipeline.preflight import check_campaign
from harem_pipeline.pipeline.semantic import emir_params, semantic_report_params
from harem_pipeline.pipeline.signature import report_signature, short_digest
from harem_pipeline.pipeline.spans import measure_file
from harem_pipeline.reports.measures import measures_json
from harem_pipeline.stages.span_measures import CountOptions
from harem_pipeline.text import PathLike
from harem_pipeline.text.textio import read_head
from harem_pipeline.tools.export import SCENARIOS, SELECTIVE
from harem_pipeline.tools.predictions import FORMATS

RUN = "model"
"""The run's name in the temporary campaign (its files are ``model.*``)."""
SPAN_FAMILIES = ("exact", "overlap", "intersection")
SELECTIVE_VEIL = ":".join(sorted(SELECTIVE))
"""The veil a selective model declares (the run's ``veil``, and its ceiling's)."""
_SUFFIX_FORMATS = {".json": "harem-json", ".jsonl": "jsonl", ".conll": "conll", ".spacy": "spacy"}


def guess_format(path: PathLike) -> str:
    """The predictions format of ``path``: ``hf`` when its first JSON line has
    ``"ner_tags"``; else by its name (``.json``, ``.jsonl``, ``.conll``, ``.gz`` allowed,
    ``.spacy`` a spaCy DocBin), else by its first character (``[`` harem-json, ``{``
    JSON lines, anything else CoNLL)."""
    name = str(path).removesuffix(".gz")
    suffix = Path(name).suffix.lower()
    if suffix in _SUFFIX_FORMATS and suffix != ".jsonl":
        return _SUFFIX_FORMATS[suffix]
    head = read_head(path, 4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    rows = suffix == ".jsonl" or head[:1] == b"{"
    if rows and b'"ner_tags"' in head.split(b"\n", 1)[0]:
        return "hf"
    if suffix in _SUFFIX_FORMATS:
        return _SUFFIX_FORMATS[suffix]
    return {b"[": "harem-json", b"{": "jsonl"}.get(head[:1], "conll")


def _write_documents(documents: Sequence[Mapping[str, Any]], folder: Path) -> tuple[Path, str]:
    """In-memory documents as a file in ``folder`` and its format: Hugging Face rows
    (``{"id", "tokens", "ner_tags"}``) as ``hf`` JSON lines, else the harem-json shape."""
    if isinstance(documents, str | bytes) or not all(isinstance(d, Mapping) for d in documents):
        raise InputError(
            None,
            'a path or a list of {"doc_id", "doc_text", "entities": [...]} documents',
            type(documents).__name__,
        )
    if documents and all("ner_tags" in d for d in documents):
        path = folder / "predictions.hf.jsonl"
        text = "".join(json.dumps(dict(d), ensure_ascii=False) + "\n" for d in documents)
        path.write_text(text, encoding="utf-8")
        return path, "hf"
    path = folder / "predictions.json"
    path.write_text(json.dumps(list(documents), ensure_ascii=False), encoding="utf-8")
    return path, "harem-json"


def _campaign_yaml(
    collection: Path, predictions: Path, fmt: str, scheme: str, options: Mapping[str, Any]
) -> str:
    """The one-run campaign, as ``pipeline.yaml`` text (JSON is YAML)."""
    run: dict[str, Any] = {"path": str(predictions), "name": RUN, "format": fmt, "scheme": scheme}
    if options["only_predicted"]:
        run["only_predicted"] = True
    if options.get("label_map"):
        run["label_map"] = dict(options["label_map"])
    if options["selective"]:
        run["veil"] = SELECTIVE_VEIL
    data: dict[str, Any] = {
        "collection": str(collection),
        "runs": [run],
        "output": "out",
        "subsets": ["selectivo" if options["selective"] else "total"],
        "scenarios": ["absolute", "relative"],
        "style": options["style"],
        "bootstrap": options["bootstrap"],
        "charts": False,
        "workers": 1,
    }
    if options["veil"] is not None:
        data["veil"] = options["veil"]
    return json.dumps(data, ensure_ascii=False) + "\n"


class _OneRun:
    """The file names and parameters of ``harem run``'s tasks for the campaign's one run
    (``tasks/pipeline.py``: ``r.alinhado``, ``r.alinhado.avalida.s``, …)."""

    def __init__(self, campaign: Campaign, seed: int) -> None:
        self.campaign = campaign
        self.spec = campaign.runs[0]
        self.subset = campaign.subsets[0].name
        self.folder = campaign.output / self.spec.name
        self.run = self.folder / f"{self.spec.name}.run"
        self.seed = seed
        self.digests = short_digest(campaign.collection), short_digest(self.spec.path)

    def name(self, suffix: str) -> Path:
        return self.folder / f"{self.spec.name}{suffix}"

    def signed(self, params: ReportParams) -> tuple[ReportParams, str]:
        """``params`` with the seed, and the report's signature (as the tasks sign)."""
        if params.seed != self.seed:
            params = replace(params, seed=self.seed)
        cd, run = self.digests
        return params, report_signature(params, cd=cd, run=run).format()


def _run_chain(one: _OneRun, morphology: bool) -> dict[str, Path]:
    """Every step of the run's chain, in ``harem run``'s order; the reports' JSON paths."""
    c, spec, subset = one.campaign, one.spec, one.subset
    meta = c.collection_meta
    assert spec.format is not None  # the one run is an import: ``_campaign_yaml`` names its format
    chain.import_run(
        spec.path,
        spec.format,
        c.collection,
        one.run,
        spec.scheme,
        spec.only_predicted,
        dict(spec.label_map),
    )
    alinhado = one.name(".alinhado")
    chain.align(c.collection, one.run, alinhado, meta)
    avalida = one.name(".alinhado.avalida")
    chain.avalida(alinhado, avalida)
    harem_veu = one.name(f".alinhado.avalida.{subset}")
    chain.veus(avalida, harem_veu, meta, subset_params(c, spec.name, subset, "harem"))
    veu = harem_veu
    if c.style != "harem":
        veu = one.name(f".alinhado.avalida.{subset}.{c.style}")
        chain.veus(avalida, veu, meta, subset_params(c, spec.name, subset, c.style))
    altida = veu.with_name(veu.name + ".altida")
    chain.altida(veu, altida)
    ida2id = veu.with_name(veu.name + ".ida2id")
    params, signature = one.signed(report_params(c, spec.name, subset, c.style))
    chain.ida2id(altida, ida2id, signature, params, c.collection, one.run, meta)
    reports = {"identification": json_twin(ida2id)}
    if morphology:
        for name in c.scenarios:
            scenario = Scenario(name)
            vizir = harem_veu.with_name(f"{harem_veu.name}.{scenario.short}.vizir")
            chain.vizir(harem_veu, vizir, scenario)
            altmor = vizir.with_suffix(".altmor")
            chain.altmor(chain.existing([vizir]), altmor)
            ida2mor = vizir.with_suffix(".ida2mor")
            params, signature = one.signed(report_params(c, spec.name, subset, "harem", scenario))
            chain.ida2mor(chain.existing([altmor]), ida2mor, signature, spec.name, params)
            reports[f"morphology.{name}"] = json_twin(ida2mor)
    alts = veu.with_name(veu.name + ".alts")
    chain.alts(veu, alts)
    emir = alts.with_name(alts.name + ".emir")
    chain.emir(alts, emir, emir_params(c, Scenario.ABSOLUTE))
    relativo = alts.with_name(alts.name + ".emir_relativo")
    chain.emir(alts, relativo, emir_params(c, Scenario.RELATIVE))
    altrel = emir.with_name(emir.name + ".altrel")
    chain.altsem(emir, altrel)
    for kind, source, scenario, alt in (
        ("strict", emir, Scenario.ABSOLUTE, Alt.STRICT),
        ("relaxed", altrel, Scenario.ABSOLUTE, Alt.RELAXED),
        ("relative", relativo, Scenario.RELATIVE, Alt.STRICT),
    ):
        ida = source.with_name(source.name + ".ida")
        params = semantic_report_params(c, spec.name, subset, scenario, alt)
        params, signature = one.signed(params)
        chain.ida(source, ida, signature, params, c.grid)
        reports[kind] = json_twin(ida)
    return reports


def _report(path: Path) -> dict[str, Any]:
    """A report's JSON without its per-document counts."""
    report = chain.load_report(path)
    if report is None:
        raise InputError(str(path), "a report written by the chain", "no file")
    return report


def _span_family(measures: Mapping[str, Any], family: str) -> dict[str, Any]:
    """One span family: the labelled P/R/F, and per label."""
    block = dict(measures["labelled"][family])
    block["per_label"] = {
        label: figures[family] for label, figures in measures.get("per_label", {}).items()
    }
    return block


def _figures(reports: Mapping[str, Path]) -> dict[str, Any]:
    """The result dict of one chain's reports."""
    identification = _report(reports["identification"])
    measures = identification.pop("measures", {})
    strict, relaxed, relative = (_report(reports[k]) for k in ("strict", "relaxed", "relative"))
    result: dict[str, Any] = {
        "signature": identification["signature"],
        "identification": identification,
        "classification": {
            "strict": strict["classificacao"],
            "relaxed": relaxed["classificacao"],
            "relative": relative["classificacao"],
        },
        "official": {"strict": strict, "relaxed": relaxed, "relative": relative},
        "measures": measures,
    }
    for family in SPAN_FAMILIES:
        result[family] = _span_family(measures, family)
    morphology = {
        key.split(".", 1)[1]: chain.load_report(path)
        for key, path in reports.items()
        if key.startswith("morphology.")
    }
    if morphology:  # the collection has MORF (None: the model classified none, no report)
        result["morphology"] = morphology
    intervals = {
        "identification": identification.get("ci95"),
        "classification": {
            k: r.get("ci95")
            for k, r in zip(
                ("strict", "relaxed", "relative"), (strict, relaxed, relative), strict=True
            )
        },
        **{family: measures["labelled"][family].get("ci95") for family in SPAN_FAMILIES},
    }
    result["ci95"] = intervals
    return result


def _score(
    collection: Path,
    predictions: Path,
    fmt: str,
    scheme: str,
    folder: Path,
    options: Mapping[str, Any],
) -> tuple[dict[str, Any], Path]:
    """Write the campaign in ``folder``, run its chain, return the figures and the run."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "pipeline.yaml"
    config.write_text(
        _campaign_yaml(collection, predictions, fmt, scheme, options), encoding="utf-8"
    )
    campaign = load_campaign(config)
    facts = check_campaign(campaign)  # what ``harem run`` checks before any task
    one = _OneRun(campaign, options["seed"])
    one.folder.mkdir(parents=True, exist_ok=True)
    result = _figures(_run_chain(one, facts.has_morphology))
    return result, one.run


_CEILINGS: dict[tuple[Any, ...], dict[str, Any]] = {}
"""The ceilings computed in this process, by collection digest, label set and options:
a notebook scoring several models on one collection exports and scores the gold once."""


def _ceiling(
    collection: Path,
    run: Path,
    options: Mapping[str, Any],
    folder: Path,
    documents: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The figures of the gold itself, exported in the label set of the model's imported
    ``run`` and its scenario's categories, then imported back as predictions (only the
    ``documents`` named, when given: the predictions' own with ``only_predicted``)."""
    typed = chain.run_is_typed(run)
    kept = None if documents is None else tuple(sorted(documents))
    key = (short_digest(collection), typed, kept, *sorted(options.items()))
    if key not in _CEILINGS:
        gold = folder / "gold.json"
        veil = SELECTIVE_VEIL if options["selective"] else None
        chain.export_ceiling(collection, run, gold, veil, None, documents)
        figures, _ = _score(collection, gold, "harem-json", "lenient", folder / "ceiling", options)
        _CEILINGS[key] = figures
    return json.loads(json.dumps(_CEILINGS[key]))  # a copy the caller may change


def evaluate(
    predictions: PathLike | Sequence[Mapping[str, Any]],
    collection: PathLike,
    *,
    format: str | None = None,
    scenario: str = "total",
    veil: str | None = None,
    style: str = "harem",
    bootstrap: int = 0,
    seed: int = DEFAULT_SEED,
    scheme: str = "lenient",
    ceiling: bool = True,
    only_predicted: bool = False,
    label_map: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A model's official HAREM figures: the chain of ``harem run`` on one run.

    ``predictions`` is a file (``harem-json``, ``jsonl``, ``conll`` or ``hf``, the
    formats of ``harem import``; ``format`` is guessed from its name or
    first character when not given) or a list of documents in the
    harem-json shape (``{"doc_id", "doc_text", "entities": [{"start_offset",
    "end_offset", "label"}]}``) or Hugging Face rows (``{"id", "tokens",
    "ner_tags"}``).  ``collection`` is the golden collection.
    ``scenario`` is ``total`` or ``selective`` (the subset ``selectivo``,
    scored with the five selective categories as the run's declared veil);
    ``veil``, ``style`` and ``bootstrap`` are the campaign keys of the same
    names (``veil`` None: the campaign's default, every category and type).
    ``seed`` seeds the bootstrap (a campaign always uses the default).
    ``only_predicted`` scores only the documents the predictions name (the
    run key ``only_predicted``; the signature says ``docs:predicted``), the
    ceiling too; ``scheme`` is the CoNLL tagging scheme; ``label_map`` renames the
    model's labels on import (``{"PER": "PESSOA"}``, the run key ``label_map``).

    Returns a plain JSON-ready dict: ``signature``; ``identification`` (the
    ``.ida2id.json`` report, without its per-document counts and span
    measures); ``classification`` ``strict``/``relaxed``/``relative`` (the
    ``classificacao`` of ``.emir.ida.json``, ``.emir.altrel.ida.json`` and
    ``.emir_relativo.ida.json``) and ``official`` (those three reports
    whole); ``exact``, ``overlap``, ``intersection`` (labelled P/R/F and
    ``per_label``) and ``measures`` (the whole span-measure block);
    ``morphology`` (the ``.ida2mor.json`` reports per scenario) when the
    collection has MORF; ``ci95`` (the intervals, None without
    ``bootstrap``); and, with ``ceiling``, ``ceiling``: the same figures for
    the gold itself exported in the predictions' label set (categories, or
    ``CAT:TIPO`` when the predictions carry types) and imported back — the
    best a model predicting that label set can get.

    Bad input raises :class:`~harem_pipeline.errors.InputError` or
    :class:`~harem_pipeline.errors.ConfigError`, as ``harem run`` would.
    """
    if scenario not in SCENARIOS:
        raise InputError(None, f"a scenario among {', '.join(SCENARIOS)}", scenario)
    options = {
        "selective": scenario == "selective",
        "veil": veil,
        "style": style,
        "bootstrap": bootstrap,
        "seed": seed,
        "only_predicted": only_predicted,
    }
    collection = Path(collection).resolve()
    with tempfile.TemporaryDirectory(prefix="harem-evaluate-") as temporary:
        folder = Path(temporary)
        if isinstance(predictions, str | os.PathLike):
            path = Path(predictions).resolve()
            fmt = format or guess_format(path)
        else:
            path, fmt = _write_documents(predictions, folder)
        if fmt not in FORMATS:
            raise InputError(str(path), f"a predictions format among {', '.join(FORMATS)}", fmt)
        model = {**options, "label_map": label_map}  # the ceiling's gold has HAREM labels
        result, run = _score(collection, path, fmt, scheme, folder / "model", model)
        if ceiling:
            documents = chain.predicted_documents(path, fmt) if only_predicted else None
            result["ceiling"] = _ceiling(collection, run, options, folder, documents)
        if not bootstrap:
            del result["ci95"]
            if ceiling:
                del result["ceiling"]["ci95"]
    return result


def span_measures(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str]],
    *,
    scheme: str = "lenient",
) -> dict[str, Any]:
    """Span measures of tag sequences, seqeval's calling convention: one list of tags
    per sentence (``["B-PER", "I-PER", "O"]``), gold first.

    Returns the ``labelled`` block of ``harem measures --json`` on the CoNLL
    file of those sentences (exact = seqeval's and conlleval's P/R/F;
    overlap, intersection, SemEval, error categories), with ``per_label``
    (exact, overlap, intersection per label).  ``scheme`` is the tagging
    scheme (``lenient`` reads tags as conlleval does).
    """
    if len(gold) != len(predicted):
        raise InputError(None, "as many predicted sentences as gold ones", str(len(predicted)))
    lines = []
    for n, (g, p) in enumerate(zip(gold, predicted, strict=True)):
        if len(g) != len(p):
            raise InputError(
                None, f"sentence {n}: {len(g)} predicted tags (as many as gold)", str(len(p))
            )
        lines += [f"t {a} {b}\n" for a, b in zip(g, p, strict=True)]
        lines.append("\n")
    with tempfile.TemporaryDirectory(prefix="harem-spans-") as temporary:
        path = Path(temporary) / "tags.conll"
        path.write_text("".join(lines), encoding="utf-8")
        report = measure_file(path, "conll", CountOptions(scheme, documents=False), NO_BOOTSTRAP)
    data = measures_json(report)
    block = dict(data["labelled"])
    block["per_label"] = data.get("per_label", {})
    return block
