"""``harem simulate`` keeps the ReRelEM relations and perturbs a share of them.

On the Second HAREM ReRelEM collection (``data/second-harem/
SegundoHaremReRelEM_t1.xml.gz``, 4,847 relations on 3,784 entities): a
perfect run keeps every relation of every entity it keeps whose target it
keeps (the others sit in ALT alternatives a run does not choose); a weaker
run drops, retypes or retargets about its documented share of them, the
same for the same seed, and what it writes the ReRelEM chain reads.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from harem_pipeline.formats.harem_xml import parse_collection, read_collection
from harem_pipeline.model import Collection, Entity
from harem_pipeline.stages.rerelem.entities import java_split_space
from harem_pipeline.stages.rerelem.relations import normalized_type
from harem_pipeline.tools.simulate import (
    RELATION_ERROR_RATES,
    Relation,
    golden_relations,
    perturb_relation,
    render_run,
)
from tests.helpers.paths import DATA

RERELEM_CD = DATA / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"


@pytest.fixture(scope="module")
def cd() -> Collection:
    return read_collection(RERELEM_CD)


def _by_id(collection: Collection) -> dict[str, Entity]:
    return {e.id: e for d in collection.documents for e in d.all_entities if e.id}


def _run(cd: Collection, profile: str, seed: int) -> tuple[str, Collection]:
    text = render_run(cd, profile, seed, RERELEM_CD.name)
    return text, parse_collection(text, "run.xml", cd.encoding)


def _expected(gold: dict[str, Entity], ours: dict[str, Entity]) -> dict[str, list[Relation]]:
    """The relations a perfect run must keep: those whose golden target it keeps."""
    return {
        key: [r for r in golden_relations(gold[key]) if r.target in ours or r.target not in gold]
        for key in ours
        if key in gold and golden_relations(gold[key])
    }


def test_the_collection_has_its_relations(cd: Collection) -> None:
    gold = _by_id(cd)
    assert sum(1 for e in gold.values() if golden_relations(e)) == 3784
    assert sum(len(golden_relations(e)) for e in gold.values()) == 4847


def test_a_perfect_run_keeps_every_relation(cd: Collection) -> None:
    _, run = _run(cd, "perfect", 1)
    gold, ours = _by_id(cd), _by_id(run)
    expected = _expected(gold, ours)
    assert sum(len(v) for v in expected.values()) > 4000
    assert all(golden_relations(ours[key]) == rels for key, rels in expected.items())
    # Entities the gold gives no relation get none; the four attributes as the gold's.
    for key, entity in ours.items():
        names = [k for k, _ in entity.attributes if k in ("COREL", "TIPOREL")]
        assert bool(names) == bool(expected.get(key)), key
        if expected.get(key) == golden_relations(gold[key]):
            assert [
                a for a in entity.attributes if a[0].startswith(("COREL", "TIPOREL", "FACS"))
            ] == [a for a in gold[key].attributes if a[0].startswith(("COREL", "TIPOREL", "FACS"))]


@pytest.mark.parametrize("profile", ["strong", "average", "weak"])
def test_a_run_keeps_some_and_changes_its_share(cd: Collection, profile: str) -> None:
    text, run = _run(cd, profile, 1)
    assert text == _run(cd, profile, 1)[0]  # the same seed, the same bytes
    gold, ours = _by_id(cd), _by_id(run)
    kinds: Counter[str] = Counter()
    for key, entity in ours.items():
        if key not in gold:
            assert not golden_relations(entity)  # spurious and split pieces: none
            continue
        before = [
            r for r in golden_relations(gold[key]) if r.target in ours or r.target not in gold
        ]
        after = golden_relations(entity)
        for relation in after:
            assert relation.target in ours or relation.target not in gold
        unchanged = [r for r in after if r in before]
        kinds["kept"] += len(unchanged)
        kinds["retyped"] += sum(
            1
            for r in after
            if r not in before
            and any(
                (b.target, b.source_facet, b.target_facet)
                == (r.target, r.source_facet, r.target_facet)
                and normalized_type(b.type) != normalized_type(r.type)
                for b in before
            )
        )
        kinds["changed"] += len(after) - len(unchanged)
        kinds["dropped"] += len(before) - len(after)
        kinds["total"] += len(before)
    rate = RELATION_ERROR_RATES[profile]
    errors = kinds["changed"] + kinds["dropped"]
    assert kinds["kept"] > 0 and kinds["retyped"] > 0 and kinds["dropped"] > 0
    assert kinds["changed"] > kinds["retyped"]  # some retargeted too
    assert 0.7 * rate < errors / kinds["total"] < 1.3 * rate, kinds


def test_another_seed_gives_other_changes(cd: Collection) -> None:
    assert _run(cd, "average", 1)[0] != _run(cd, "average", 2)[0]


def test_perturb_offers_each_error_and_retargets_to_a_kept_entity(cd: Collection) -> None:
    ours = _by_id(_run(cd, "perfect", 1)[1])
    doc = {k: v for k, v in ours.items() if k.startswith("H2-dftre765-")}
    relation = Relation("H2-dftre765-9", "natural_de", "PESSOA", "LOCAL")
    rng = random.Random(0)
    seen = [perturb_relation(relation, "H2-dftre765-10", doc, rng) for _ in range(60)]
    assert None in seen
    retyped = [r for r in seen if r is not None and r.target == relation.target]
    assert retyped and all(normalized_type(r.type) != "outra" for r in retyped)
    moved = [r for r in seen if r is not None and r.target != relation.target]
    assert moved and all(
        r.target in doc
        and r.target != "H2-dftre765-10"
        and r.target_facet == doc[r.target].categories[0]
        for r in moved
    )


def test_simulated_runs_of_the_rerelem_collection_are_well_formed(cd: Collection) -> None:
    text, run = _run(cd, "weak", 2)
    # It parses again and every list has one item per COREL (as the chain splits them).
    for entity in (e for d in run.documents for e in d.entities):
        values = dict(entity.attributes)
        lengths = {
            len(java_split_space(values.get(k, "")))
            for k in ("COREL", "TIPOREL", "FACS_ORIGEM", "FACS_ALVO")
        }
        assert len(lengths) == 1, entity
    assert text.count("<EM ") == sum(len(d.entities) for d in run.documents)
