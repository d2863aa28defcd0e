"""A real model, end to end: train a CRF on the First HAREM, score it on the Mini-HAREM.

    pip install -e '.[crf]'
    python examples/crf_miniharem.py                 # the whole collections
    python examples/crf_miniharem.py --documents 10  # a slice (what the test runs)

1. ``harem export`` writes both golden collections as CoNLL (IOB2, categories
   only, the total scenario): tokens and sentences from the text alone.
2. A CRF (sklearn-crfsuite, word-shape features) learns the First HAREM.
3. It tags the Mini-HAREM's tokens; the predictions are written as CoNLL.
4. ``harem_pipeline.evaluate`` scores them with the campaign's chain and
   prints the figures beside the ceiling (the gold exported the same way).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import sklearn_crfsuite

import harem_pipeline
from harem_pipeline.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "lampada2"
TRAIN = DATA / "CDPrimeiroHAREMprimeiroevento.xml.gz"
TEST = DATA / "CDPrimeiroHAREMMiniHAREM.xml.gz"

Sentence = list[tuple[str, str]]


def read_conll(path: Path, documents: int | None) -> list[tuple[str, list[Sentence]]]:
    """(DOCID, sentences of (token, tag)) of an exported CoNLL file, the first ``documents``."""
    out: list[tuple[str, list[Sentence]]] = []
    sentence: Sentence = []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("-DOCSTART-"):
            if documents is not None and len(out) == documents:
                break
            out.append((line.split()[1], []))
        elif not line.strip():
            if sentence:
                out[-1][1].append(sentence)
            sentence = []
        else:
            token, tag = line.rsplit(" ", 1)
            sentence.append((token, tag))
    return out


def features(tokens: list[str], i: int) -> dict[str, object]:
    """The usual word-shape features of token ``i`` and its neighbours."""
    word = tokens[i]
    f: dict[str, object] = {
        "bias": 1.0,
        "lower": word.lower(),
        "suffix3": word[-3:].lower(),
        "prefix3": word[:3].lower(),
        "title": word.istitle(),
        "upper": word.isupper(),
        "digit": word.isdigit(),
        "punct": not word.isalnum(),
        "length": min(len(word), 8),
    }
    for offset in (-2, -1, 1, 2):
        j = i + offset
        if 0 <= j < len(tokens):
            f[f"{offset}:lower"] = tokens[j].lower()
            f[f"{offset}:title"] = tokens[j].istitle()
        else:
            f[f"{offset}:edge"] = True
    return f


def sentence_features(sentence: Sentence) -> list[dict[str, object]]:
    tokens = [token for token, _ in sentence]
    return [features(tokens, i) for i in range(len(tokens))]


def run(documents: int | None, iterations: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        train_file, test_file = Path(folder) / "train.conll", Path(folder) / "test.conll"
        assert main(["export", str(TRAIN), "--format", "conll", "-o", str(train_file)]) == 0
        assert main(["export", str(TEST), "--format", "conll", "-o", str(test_file)]) == 0
        train = [s for _, doc in read_conll(train_file, documents) for s in doc]
        test = read_conll(test_file, documents)

        started = time.perf_counter()
        crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=iterations)
        crf.fit([sentence_features(s) for s in train], [[t for _, t in s] for s in train])
        trained = time.perf_counter() - started

        lines = []
        for docid, sentences in test:
            lines.append(f"-DOCSTART- {docid} O\n\n")
            for sentence, tags in zip(
                sentences, crf.predict([sentence_features(s) for s in sentences]), strict=True
            ):
                lines += [
                    f"{token} {tag}\n" for (token, _), tag in zip(sentence, tags, strict=True)
                ]
                lines.append("\n")
        predictions = Path(folder) / "predictions.conll"
        predictions.write_text("".join(lines), encoding="utf-8")
        result = harem_pipeline.evaluate(predictions, TEST, bootstrap=200)
    result["train_seconds"] = trained
    result["train_sentences"] = len(train)
    return result


def table(result: dict) -> str:
    """The figures a paper would quote, beside the ceiling."""

    def cells(r: dict) -> list[str]:
        e = r["exact"]
        return [
            f"{e['precision']:.4f}",
            f"{e['recall']:.4f}",
            f"{e['f1']:.4f}",
            f"{r['classification']['strict']['medida_f']:.4f}",
            f"{r['identification']['medida_f']:.4f}",
        ]

    ci = result["ci95"]

    def interval(pair: list[float] | None) -> str:
        return "-" if pair is None else f"[{pair[0]:.4f}, {pair[1]:.4f}]"

    rows = [
        "| | exact P | exact R | exact F | HAREM class. F | Ida2ID id. F |",
        "|---|---|---|---|---|---|",
        "| CRF | " + " | ".join(cells(result)) + " |",
        "| ceiling | " + " | ".join(cells(result["ceiling"])) + " |",
        "",
        f"95 % intervals (200 document resamples): exact F {interval(ci['exact']['f1'])}, "
        f"class. F {interval(ci['classification']['strict']['classificacao']['medida_f'])}",
        f"trained on {result['train_sentences']} sentences in {result['train_seconds']:.0f} s",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, help="only the first N documents of each")
    parser.add_argument("--iterations", type=int, default=60, help="L-BFGS iterations")
    args = parser.parse_args()
    print(table(run(args.documents, args.iterations)))
