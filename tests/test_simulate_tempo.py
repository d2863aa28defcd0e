"""``harem simulate`` keeps the TEMPO track's attributes and perturbs a share of them.

On the TEMPO collection (``data/lampada2/CDSegundoHAREM_TEMPO.xml.gz``): a
perfect run keeps every TEMPO entity's four attributes as the gold has
them; a weaker run changes one value on about its documented share of them
(``TEMPO_ERROR_RATES``), each change one of the four documented kinds, the
same for the same seed.  Scored by the TEMPO track, the perfect run gets
F = 1 and the others less.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from harem_pipeline.formats.harem_xml import parse_collection, read_collection
from harem_pipeline.model import Collection, Entity
from harem_pipeline.tools.simulate import (
    SENTIDOS,
    TEMPO_ATTRIBUTES,
    TEMPO_ERROR_RATES,
    TEMPO_REFS,
    perturb_tempo,
    render_run,
)
from tests.helpers.paths import DATA

TEMPO_CD = DATA / "lampada2" / "CDSegundoHAREM_TEMPO.xml.gz"


@pytest.fixture(scope="module")
def cd() -> Collection:
    return read_collection(TEMPO_CD)


def _tempo(entity: Entity) -> tuple[tuple[str, str], ...]:
    return tuple((k, v) for k, v in entity.attributes if k in TEMPO_ATTRIBUTES)


def _by_id(collection: Collection) -> dict[str, Entity]:
    return {e.id: e for d in collection.documents for e in d.all_entities if e.id}


def _run(cd: Collection, profile: str, seed: int) -> tuple[str, Collection]:
    text = render_run(cd, profile, seed, TEMPO_CD.name)
    return text, parse_collection(text, "run.xml", cd.encoding)


def test_a_perfect_run_keeps_every_tempo_attribute(cd: Collection) -> None:
    _, run = _run(cd, "perfect", 1)
    gold, ours = _by_id(cd), _by_id(run)
    with_attributes = [i for i, e in gold.items() if _tempo(e) and i in ours]
    assert len(with_attributes) > 150
    assert all(_tempo(ours[i]) == _tempo(gold[i]) for i in with_attributes)
    # Empty values are values of the track (VAL_DELTA="" is scored): they are kept.
    assert any(("VAL_DELTA", "") in _tempo(ours[i]) for i in with_attributes)


def _changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return [k for k in TEMPO_ATTRIBUTES if before.get(k) != after.get(k)]


@pytest.mark.parametrize("profile", ["strong", "average", "weak"])
def test_a_run_changes_one_value_on_its_share_of_entities(cd: Collection, profile: str) -> None:
    text, run = _run(cd, profile, 1)
    assert text == _run(cd, profile, 1)[0]  # the same seed, the same bytes
    gold, ours = _by_id(cd), _by_id(run)
    compared = changed = 0
    for key, entity in ours.items():
        if key not in gold or not _tempo(gold[key]) or "TEMPO" not in entity.categories:
            continue
        before, after = dict(_tempo(gold[key])), dict(_tempo(entity))
        compared += 1
        keys = _changes(before, after)
        if not keys:
            continue
        changed += 1
        assert len(keys) == 1, (before, after)
        name = keys[0]
        if name == "VAL_DELTA":
            assert name not in after
        elif name == "VAL_NORM":
            y0, y1 = int(before[name][1:5]), int(after[name][1:5])
            assert abs(y1 - y0) == 1 and before[name][5:] == after[name][5:]
        else:
            assert after[name] != before[name]
            assert after[name] in (SENTIDOS if name == "SENTIDO" else TEMPO_REFS)
    rate = TEMPO_ERROR_RATES[profile]
    # Entities whose only attribute cannot change (an empty VAL_NORM) count as unchanged.
    assert compared > 80 and 0.5 * rate < changed / compared <= rate + 0.1


def test_another_seed_gives_other_changes(cd: Collection) -> None:
    assert _run(cd, "average", 1)[0] != _run(cd, "average", 2)[0]


def test_an_entity_no_longer_tempo_has_no_tempo_attribute(cd: Collection) -> None:
    _, run = _run(cd, "weak", 3)
    relabelled = [e for d in run.documents for e in d.entities if "TEMPO" not in e.categories]
    assert relabelled and not any(_tempo(e) for e in relabelled)


def test_perturb_offers_only_what_the_attributes_allow() -> None:
    rng = random.Random(0)
    assert perturb_tempo((("VAL_NORM", ""),), rng) == (("VAL_NORM", ""),)
    unknown = (("VAL_NORM", "+99999999T9999E--LM-"),)
    assert perturb_tempo(unknown, rng) == unknown
    seen = {
        perturb_tempo((("TEMPO_REF", "ABSOLUTO"), ("VAL_DELTA", "A0M0S0D1H0M0S0")), rng)
        for _ in range(50)
    }
    assert (("TEMPO_REF", "ABSOLUTO"),) in seen
    assert any(dict(s).get("TEMPO_REF") in ("TEXTUAL", "ENUNCIACAO") for s in seen)


def test_simulated_runs_of_the_tempo_collection_are_well_formed(
    cd: Collection, tmp_path: Path
) -> None:
    text, _ = _run(cd, "average", 1)
    tags = re.findall(r"<EM [^>]*>", text)
    assert all(tag.count('"') % 2 == 0 for tag in tags)
