"""``harem simulate``: simulated system runs and the shipped default campaign."""

from __future__ import annotations

import collections
import gzip
import hashlib
import math
import random
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harem_pipeline.cli import main
from harem_pipeline.formats.harem_xml import parse_collection
from harem_pipeline.measures.identification import measures_from_counts as identification_measures
from harem_pipeline.model import AltBlock, Collection, Document, Entity, Morf
from harem_pipeline.pipeline.params import ReportParams, SubsetParams
from harem_pipeline.tools import simulate
from harem_pipeline.tools.simulate import (
    PROFILES,
    can_merge,
    extend_span,
    format_profile_table,
    morf_errors,
    overlap_test,
    render_run,
    resolve_alternative,
    seed_for,
    shrink_span,
    split_span,
    wrong_morf,
)
from tests.helpers.perfect import PerfectChain
from tests.helpers.shipped import shipped_collection

UNKNOWN = ReportParams(evaluation=None)
"""A report made outside a campaign: no evaluation veil named."""

ROOT = Path(__file__).resolve().parent.parent
CD_PATH = ROOT / "data" / "first-harem" / "ColeccaoDouradaHAREM.txt"
SECOND_CD_PATH = ROOT / "data" / "second-harem" / "SegundoHaremReRelEM_t1.xml.gz"
README = ROOT / "data" / "README.md"


@pytest.fixture(scope="module")
def cd(first_harem_cd: Collection) -> Collection:
    return first_harem_cd


@pytest.fixture(scope="module")
def small_cd(cd: Collection) -> Collection:
    """Documents with the hard cases: every OMITIDO region, every ALT block whose
    alternatives differ in white space, and three or more ALT blocks in one text."""

    def hard(doc: Document) -> bool:
        differ = any(
            t != b.alternative_texts[0] for b in doc.alt_blocks for t in b.alternative_texts
        )
        return bool(doc.omitted) or differ or len(doc.alt_blocks) >= 3

    chosen = [d for i, d in enumerate(cd.documents) if i < 2 or hard(d)]
    assert len(chosen) < 25  # (a small sample, so the properties run fast)
    return Collection(cd.path, cd.format, cd.encoding, tuple(chosen), cd.newline)


def _spans(doc: Document) -> list[tuple[int, int, str, tuple[tuple[str, str], ...]]]:
    return [(e.start, e.end, e.tag, e.attributes) for e in doc.entities]


# ---------------------------------------------------------------------------
# Pure span functions (hand-made cases)


def test_shrink_drops_one_whole_word_at_either_edge() -> None:
    text = "o Hotel Lisboa Plaza abre"
    # "Hotel Lisboa Plaza" is 2..20
    assert shrink_span(text, 2, 20, left=True) == (8, 20)  # "Lisboa Plaza"
    assert shrink_span(text, 2, 20, left=False) == (2, 14)  # "Hotel Lisboa"
    assert shrink_span(text, 8, 14, left=True) is None  # one word cannot shrink


def test_split_cuts_at_a_word_boundary_leaving_the_separator_untagged() -> None:
    text = "Ovarense-Amora"
    assert split_span(text, 0, 14, 0) == ((0, 8), (9, 14))
    # "Hotel Lisboa Plaza": cut number 1 (mod 2 gaps) is after "Lisboa"
    assert split_span("Hotel Lisboa Plaza", 0, 18, 1) == ((0, 12), (13, 18))
    assert split_span("Lisboa", 0, 6, 3) is None


def test_extend_takes_the_neighbouring_word_within_the_room() -> None:
    text = "em Junho de 1992, em Lisboa"
    # entity "Junho" 3..8; the room reaches the comma
    assert extend_span(text, 3, 8, 0, 16, left=False) == (3, 11)  # "Junho de"
    assert extend_span(text, 3, 8, 0, 16, left=True) == (0, 8)  # "em Junho"
    # a room ending where the entity ends allows nothing on that side
    assert extend_span(text, 3, 8, 3, 8, left=False) is None
    assert extend_span(text, 3, 8, 3, 8, left=True) is None
    # never across a line end
    assert extend_span("Lisboa\r\nPorto", 0, 6, 0, 13, left=False) is None


def test_extend_never_takes_a_piece_of_a_character_reference() -> None:
    text = "AT&amp;T e outros"
    # entity "AT" 0..2: "amp" belongs to a reference, the next whole word is "T"
    # but "&amp;" is not a joinable separator, so nothing is taken
    assert extend_span(text, 0, 2, 0, len(text), left=False) is None


def _entity(text: str, start: int, cat: str = "LOCAL") -> Entity:
    return Entity(None, (cat,), (), (), None, text, start, start + len(text), (), cat)


def test_merge_needs_a_short_separator_and_nothing_between() -> None:
    text = "Ovarense-Amora e Nacional contra Benfica"
    slots = simulate.build_view(
        Document(
            "D",
            text,
            (
                _entity("Ovarense", 0),
                _entity("Amora", 9),
                _entity("Nacional", 17),
                _entity("Benfica", 33),
            ),
        ),
        [],
    )
    assert can_merge(text, slots[0], slots[1])  # "-"
    assert can_merge(text, slots[1], slots[2])  # " e "
    assert not can_merge(text, slots[2], slots[3])  # " contra " is too long a separator


# ---------------------------------------------------------------------------
# Morphology errors


def test_morf_errors_offered_by_each_golden_value() -> None:
    assert morf_errors(Morf("M", "S")) == ("gender", "number", "underspecified", "absent")
    assert morf_errors(Morf("?", "S")) == ("number", "underspecified", "overspecified", "absent")
    assert morf_errors(Morf("?", "?")) == ("overspecified", "absent")


def test_wrong_morf_changes_exactly_what_its_kind_says() -> None:
    rng = random.Random(0)
    assert wrong_morf(Morf("M", "S"), "gender", rng) == Morf("F", "S")
    assert wrong_morf(Morf("F", "P"), "number", rng) == Morf("F", "S")
    assert wrong_morf(Morf("M", "S"), "absent", rng) is None
    assert wrong_morf(Morf("?", "S"), "underspecified", rng) == Morf("?", "?")
    assert wrong_morf(Morf("?", "P"), "overspecified", rng) in (Morf("M", "P"), Morf("F", "P"))
    for _ in range(20):
        under = wrong_morf(Morf("F", "S"), "underspecified", rng)
        assert under in (Morf("?", "S"), Morf("F", "?"))


# ---------------------------------------------------------------------------
# ALT resolution


def test_an_alternative_differing_in_white_space_is_placed_on_the_first_text() -> None:
    # First HAREM: <ALT>novembro/dezembro|novembro / dezembro</ALT>, the second
    # alternative tagging "novembro / dezembro" as one TEMPO.
    text = "em novembro/dezembro de"
    first = "novembro/dezembro"
    second = "novembro / dezembro"
    tempo = Entity(None, ("TEMPO",), (), (), None, second, 3, 3 + len(second), (), "TEMPO")
    block = AltBlock(3, 3 + len(first), ((), (tempo,)), (first, second))
    (placed,) = resolve_alternative(block, 1)
    assert (placed.start, placed.end, placed.text) == (3, 20, "novembro/dezembro")
    assert text[placed.start : placed.end] == placed.text


# ---------------------------------------------------------------------------
# Seeds and determinism


def test_seed_mixes_the_profile_name_through_sha256() -> None:
    expected = int.from_bytes(hashlib.sha256(b"harem-simulate\0strong\x001").digest()[:8], "big")
    assert seed_for("strong", 1) == expected
    assert seed_for("weak", 1) != seed_for("strong", 1)


def test_different_seeds_give_different_runs(small_cd: Collection) -> None:
    one, two = (render_run(small_cd, "strong", seed, CD_PATH.name) for seed in (1, 2))
    assert one != two


# ---------------------------------------------------------------------------
# perfect = the collection itself


def _golden_view(doc: Document) -> list[Entity]:
    """The CD's entities with ALT resolved to the first alternative, OMITIDO tags dropped."""
    entities = [*doc.entities, *doc.omitted_entities]
    entities += [e for b in doc.alt_blocks for e in b.alternatives[0]]
    return sorted(entities, key=lambda e: (e.start, e.end))


def test_perfect_run_reproduces_every_entity_with_its_morf(cd: Collection) -> None:
    text = render_run(cd, "perfect", 3, CD_PATH.name)
    run = parse_collection(text, "perfect", cd.encoding)
    assert run.docids == cd.docids
    compared = with_morf = 0
    for gold, ours in zip(cd.documents, run.documents, strict=True):
        expected = _golden_view(gold)
        assert _spans(ours) == [(e.start, e.end, e.tag, e.attributes) for e in expected]
        assert ours.alt_blocks == () and ours.omitted == () and ours.omitted_entities == ()
        compared += len(expected)
        with_morf += sum(e.morf is not None for e in ours.entities)
    # data/README.md: 5,132 EM tags in all, some of them in the other
    # alternatives of the 65 ALT blocks.
    plain = sum(len(d.entities) + len(d.omitted_entities) for d in cd.documents)
    assert plain < compared < 5132
    assert with_morf == sum(e.morf is not None for d in cd.documents for e in _golden_view(d))


# ---------------------------------------------------------------------------
# Measured error rates


def measure_rates(cd: Collection, run: Collection) -> tuple[dict[str, float], dict[str, int]]:
    """Error rates found by comparing the golden and the run's entity sets.

    Only entities outside ALT blocks and OMITIDO regions are compared (a run
    resolves each block to an alternative of its choice; OMITIDO entities
    are not in ``Document.entities``, and a run entity never straddles the
    edge of either).
    """
    counts: collections.Counter[str] = collections.Counter()
    for gold_doc, run_doc in zip(cd.documents, run.documents, strict=True):
        blocks = [(b.start, b.end) for b in gold_doc.alt_blocks] + list(gold_doc.omitted)
        ours = [
            r for r in run_doc.entities if not any(s <= r.start and r.end <= e for s, e in blocks)
        ]
        gold = list(gold_doc.entities)
        counts["gold"] += len(gold)
        for g in gold:
            over = [r for r in ours if r.start < g.end and g.start < r.end]
            if not over:
                counts["missed"] += 1
            elif len(over) > 1:
                counts["split"] += 1
            elif (over[0].start, over[0].end) == (g.start, g.end):
                r = over[0]
                counts["exact"] += 1
                if r.categories != g.categories:
                    counts["category"] += 1
                else:
                    counts["same category"] += 1
                    counts["type"] += r.types != g.types
                if g.morf is not None:
                    counts["with morf"] += 1
                    counts["morf"] += r.morf != g.morf
            elif g.start <= over[0].start and over[0].end <= g.end:
                counts["shrunk"] += 1
            elif sum(over[0].start < o.end and o.start < over[0].end for o in gold) == 1:
                counts["extended"] += 1
        for r in ours:
            touched = sum(r.start < g.end and g.start < r.end for g in gold)
            counts["spurious"] += touched == 0
            counts["merged"] += touched >= 2
    n = counts["gold"]
    rates = {k: counts[k] / n for k in ("missed", "spurious", "shrunk", "extended")}
    rates |= {k: counts[k] / n for k in ("split", "merged")}
    rates["category"] = counts["category"] / counts["exact"]
    rates["type"] = counts["type"] / counts["same category"]
    rates["morf"] = counts["morf"] / counts["with morf"]
    sizes = {k: n for k in ("missed", "spurious", "shrunk", "extended", "split", "merged")}
    sizes |= {
        "category": counts["exact"],
        "type": counts["same category"],
        "morf": counts["with morf"],
    }
    return rates, sizes


@pytest.mark.parametrize("name", ["strong", "average", "weak"])
def test_measured_error_rates_match_the_documented_ones(cd: Collection, name: str) -> None:
    # The shipped campaign runs are these profiles' seed-1 runs, byte for byte
    # (test_shipped_campaign_regenerates_byte_for_byte): measured there, not
    # simulated again.
    profile = PROFILES[name]
    shipped = shipped_collection(ROOT / "data" / "campaign" / f"sim-{name}.txt.gz")
    rates, sizes = measure_rates(cd, shipped)
    for kind, measured in rates.items():
        documented = getattr(profile, kind)
        # four binomial standard deviations, plus a little for the carry-over
        tolerance = 4 * math.sqrt(documented * (1 - documented) / sizes[kind]) + 0.005
        assert abs(measured - documented) <= tolerance, (kind, measured, documented, tolerance)


# ---------------------------------------------------------------------------
# Properties over seeds: text kept, no overlap, re-readable


# Each example simulates and re-reads up to 25 real documents: a few examples suffice.
@settings(derandomize=True, deadline=None, max_examples=5)
@given(seed=st.integers(min_value=0, max_value=2**40), name=st.sampled_from(list(PROFILES)))
def test_any_run_keeps_the_text_and_never_overlaps(
    small_cd: Collection, seed: int, name: str
) -> None:
    text = render_run(small_cd, name, seed, "cd.txt")
    assert text.startswith(
        f"<!-- simulated run, not a real system's output: harem simulate "
        f"with cd cd.txt, profile {name}, seed {seed} -->\r\n"
    )
    run = parse_collection(text, "run", small_cd.encoding)
    assert run.format == small_cd.format and run.newline == "\r\n"
    for gold, ours in zip(small_cd.documents, run.documents, strict=True):
        assert ours.text == gold.text
        assert (ours.docid, ours.variant, ours.genre) == (gold.docid, gold.variant, gold.genre)
        assert ours.alt_blocks == () and ours.omitted == ()
        spans = [(e.start, e.end) for e in ours.entities]
        assert spans == sorted(spans)
        assert all(
            a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False)
        )
        assert all(e.text for e in ours.entities)
        for entity in ours.entities:  # never across the edge of an ALT block or OMITIDO
            for s, e in [*gold.omitted, *((b.start, b.end) for b in gold.alt_blocks)]:
                inside = s <= entity.start and entity.end <= e
                outside = entity.end <= s or e <= entity.start
                assert inside or outside


def test_second_harem_run_keeps_text_and_declaration_first(second_harem_cd: Collection) -> None:
    cd = second_harem_cd
    text = render_run(cd, "weak", 1, SECOND_CD_PATH.name)
    first, second = text.split("\n", 2)[:2]
    assert first.startswith('<?xml version="1.0" encoding="ISO-8859-1"?>')
    assert second.startswith("<!-- simulated run, not a real system's output:")
    run = parse_collection(text, "run", cd.encoding)
    assert [d.text for d in run.documents] == [d.text for d in cd.documents]
    # every entity has an ID; a split's second piece and a spurious entity a new one
    ids = [e.id for d in run.documents for e in d.entities]
    assert None not in ids
    golden_ids = {e.id for d in cd.documents for e in d.all_entities}
    new_ids = [i for i in ids if i not in golden_ids]
    assert new_ids and all(re.fullmatch(r".+-sim\d+", i) for i in new_ids)
    assert len(ids) == len(set(ids))  # the golden IDs are unique, and so are the new ones


# Every Second HAREM XML collection shipped, as a strict XML parser (and so the
# official aligner) must read each simulated run of it.
XML_COLLECTIONS = (
    SECOND_CD_PATH,
    ROOT / "data" / "lampada2" / "CDPrimeiroHAREMMiniHAREM.xml.gz",
    ROOT / "data" / "lampada2" / "CDPrimeiroHAREMprimeiroevento.xml.gz",
    ROOT / "data" / "lampada2" / "exemplo0" / "cd.xml",
    ROOT / "data" / "lampada2" / "exemplo1" / "CDexemplo.xml",
)


def _with_references(cd: Collection) -> Collection:
    """The documents whose text holds a character reference (``&amp;``), the first two besides.

    Where a shrink or a split could cut a reference; a sample, so that every
    profile and several seeds stay fast.
    """
    chosen = [d for i, d in enumerate(cd.documents) if i < 2 or "&" in d.text]
    return Collection(
        cd.path, cd.format, cd.encoding, tuple(chosen), cd.newline, cd.root, cd.version
    )


@pytest.mark.parametrize("path", XML_COLLECTIONS, ids=lambda p: p.name)
def test_every_simulated_xml_run_is_well_formed(path: Path) -> None:
    from lxml import etree

    strict = etree.XMLParser(recover=False, load_dtd=False, no_network=True, huge_tree=True)
    cd = _with_references(shipped_collection(path))
    for name in PROFILES:
        for seed in (1, 2, 4) if name != "perfect" else (1,):
            text = render_run(cd, name, seed, "a--b-.xml")
            data = text.encode(cd.encoding)
            try:
                root = etree.fromstring(data, strict)
            except etree.XMLSyntaxError as error:
                raise AssertionError(f"{path.name} {name} seed {seed}: {error}") from None
            comment = root.getprevious()
            while comment is not None and not isinstance(comment, etree._Comment):
                comment = comment.getprevious()
            assert comment is not None and comment.text == (
                f" simulated run, not a real system's output: "
                f"harem simulate with cd a- -b-.xml, profile {name}, seed {seed} "
            )
            # the text the aligner pairs is the collection's, reference by reference
            run = parse_collection(text, "run", cd.encoding)
            assert [d.text for d in run.documents] == [d.text for d in cd.documents]


def test_second_harem_perfect_run_identifies_everything(
    second_harem_cd: Collection, tmp_path: Path
) -> None:
    """align → avalida → Véus total → AltinaID → Ida2ID on the Second HAREM
    collection (no MORF there, so no morphology chain): P = R = F = 1."""
    from harem_pipeline.pipeline.align import run_align
    from harem_pipeline.pipeline.ida2id import run_ida2id
    from harem_pipeline.pipeline.identification import run_altida, run_avalida, run_veus

    cd = second_harem_cd
    run = tmp_path / "perfect.xml"
    run.write_bytes(render_run(cd, "perfect", 1, SECOND_CD_PATH.name).encode(cd.encoding))
    aligned, result = run_align(SECOND_CD_PATH, run, tmp_path / "perfect.alinhado")
    assert result.warnings == ()
    evaluated = run_avalida(aligned, tmp_path / "perfect.alinhado.avalida")
    total = run_veus(evaluated, SubsetParams(), tmp_path / "perfect.alinhado.avalida.total")
    m = identification_measures(
        run_ida2id(
            run_altida(total, tmp_path / "t.altida"), UNKNOWN, "sig", tmp_path / "t.id"
        ).counts.total
    )
    assert (m.precision, m.recall, m.f_measure, m.combined_error) == (1.0, 1.0, 1.0, 0.0)


# ---------------------------------------------------------------------------
# The documented profile table and the command line


def test_docstring_table_states_the_profiles() -> None:
    rows = re.findall(r"^(\w+)((?:\s+\d\.\d\d){9})\s*$", simulate.__doc__ or "", re.M)
    table = {name: tuple(float(x) for x in values.split()) for name, values in rows}
    assert table == {name: tuple(p.rates().values()) for name, p in PROFILES.items()}


def test_help_says_simulated_and_shows_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "SIMULATED" in out
    assert format_profile_table() in out


def test_missing_collection_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.txt"
    assert main(["simulate", "--cd", str(missing), "--profile", "strong"]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"harem simulate: error: {missing}: expected an existing file, found no such file\n"
    )


def test_unknown_profile_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--cd", str(CD_PATH), "--profile", "brilliant"])
    assert exc.value.code == 2
    assert "invalid choice: 'brilliant'" in capsys.readouterr().err


def test_stdout_output_is_in_the_collections_encoding(
    cd: Collection, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["simulate", "--cd", str(CD_PATH), "--profile", "perfect", "--seed", "2"]) == 0
    out = capsysbinary.readouterr().out
    assert out == render_run(cd, "perfect", 2, CD_PATH.name).encode("iso8859-1")


# ---------------------------------------------------------------------------
# The shipped default campaign


def _documented_commands() -> list[list[str]]:
    """The ``harem simulate`` commands data/README.md gives for the campaign."""
    lines = README.read_text(encoding="utf-8").splitlines()
    return [
        shlex.split(line.strip())[1:] for line in lines if line.startswith("    harem simulate")
    ]


def test_readme_documents_three_campaign_runs() -> None:
    outputs = sorted(cmd[cmd.index("-o") + 1] for cmd in _documented_commands())
    assert outputs == [
        "data/campaign/sim-average.txt.gz",
        "data/campaign/sim-strong.txt.gz",
        "data/campaign/sim-weak.txt.gz",
    ]


@pytest.mark.parametrize("command", _documented_commands(), ids=lambda c: c[c.index("-o") + 1])
def test_shipped_campaign_regenerates_byte_for_byte(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    shipped = ROOT / command[command.index("-o") + 1]
    fresh = tmp_path / shipped.name
    argv = [*command]
    argv[argv.index("-o") + 1] = str(fresh)
    assert main(argv) == 0
    data = gzip.decompress(fresh.read_bytes())
    assert data == gzip.decompress(shipped.read_bytes())
    # same encoding and line ends as the CD: ISO-8859-1 text, every line CRLF
    assert data.count(b"\n") == data.count(b"\r\n")
    assert data.decode("iso8859-1").startswith("<!-- simulated run, not a real system's output")


# ---------------------------------------------------------------------------
# Self-consistency: the collection scored against a perfect run of itself


def test_perfect_run_scores_one_everywhere_through_the_whole_chain(
    perfect_first_harem: PerfectChain, tmp_path: Path
) -> None:
    """align → avalida → Véus total (harem) (the ``perfect_first_harem`` fixture)
    → AltinaID → Ida2ID, and → Vizir abs/rel → AltinaMor → Ida2Mor: P = R = F = 1
    in every field."""
    from harem_pipeline.measures.morphology import measures_from_counts
    from harem_pipeline.model import Scenario
    from harem_pipeline.pipeline.ida2id import run_ida2id
    from harem_pipeline.pipeline.ida2mor import run_ida2mor
    from harem_pipeline.pipeline.identification import run_altida
    from harem_pipeline.pipeline.morphology import run_altmor, run_vizir
    from harem_pipeline.stages.ida2mor import FIELD_KEYS

    # same text: no VERIFICACAO_MANUAL, no missing document
    assert perfect_first_harem.warnings == ()
    total = tmp_path / perfect_first_harem.total.name
    total.write_bytes(perfect_first_harem.total.read_bytes())

    identification = run_ida2id(
        run_altida(total, tmp_path / "t.altida"), UNKNOWN, "sig", tmp_path / "t.id"
    )
    m = identification_measures(identification.counts.total)
    assert (m.precision, m.recall, m.f_measure) == (1.0, 1.0, 1.0)
    assert (m.over_generation, m.under_generation, m.combined_error) == (0.0, 0.0, 0.0)

    for scenario in (Scenario.parse("absolute"), Scenario.parse("relative")):
        scored = run_vizir(total, scenario, tmp_path / f"t.{scenario.value}.vizir")
        assert scored.output is not None
        chosen = run_altmor(scored.output, tmp_path / f"t.{scenario.value}.altmor")
        params = ReportParams(scenario=scenario)
        report = run_ida2mor(chosen, params, "sig", tmp_path / f"t.{scenario.value}.ida2mor")
        for key in FIELD_KEYS:
            counts = report.counts.field(key)
            # every golden entity with MORF (4,189 tags, fewer after ALT resolution)
            assert 4000 < counts.total_cd == counts.total_system == counts.correct
            measures = measures_from_counts(counts)
            assert (measures.precisao, measures.abrangencia, measures.medida_f) == (1.0, 1.0, 1.0)


SPANS = st.lists(
    st.tuples(st.integers(0, 40), st.integers(0, 12)).map(lambda p: (p[0], p[0] + p[1])),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(spans=SPANS, word=st.tuples(st.integers(0, 50), st.integers(0, 10)))
def test_overlap_test_is_the_pass_over_every_span(spans: list, word: tuple) -> None:
    # what a word of the text may not overlap: entities, ALT blocks, OMITIDO, references
    start, end = word[0], word[0] + word[1]
    expected = any(s < end and start < e for s, e in spans)
    assert overlap_test(spans)(start, end) == expected


def rooms_by_a_pass_over_every_obstacle(doc: Document, choices: list[int]) -> list[tuple]:
    """``(start, end, lo, hi)`` of each slot of :func:`build_view`, its room found by a
    pass over every obstacle (the definition, which was quadratic in the entities)."""
    chosen = [(e, None) for e in (*doc.entities, *doc.omitted_entities)]
    for block, choice in zip(doc.alt_blocks, choices, strict=True):
        chosen += [(e, block) for e in resolve_alternative(block, choice)]
    chosen.sort(key=lambda pair: (pair[0].start, pair[0].end))
    rooms = []
    for entity, block in chosen:
        region = next((r for r in doc.omitted if r[0] <= entity.start and entity.end <= r[1]), None)
        if block is not None:
            container = (block.start, block.end)
        elif region is not None:
            container = region
        else:
            container = next(
                (p for p in doc.paragraphs if p[0] <= entity.start and entity.end <= p[1]),
                (0, len(doc.text)),
            )
        obstacles = [(s, e) for s, e in doc.omitted if (s, e) != region]
        obstacles += [(o.start, o.end) for o, _ in chosen if o is not entity]
        obstacles += [(b.start, b.end) for b in doc.alt_blocks if b is not block]
        lo = max([container[0]] + [e for s, e in obstacles if e <= entity.start])
        hi = min([container[1]] + [s for s, e in obstacles if s >= entity.end])
        rooms.append((entity.start, entity.end, lo, hi))
    return rooms


def rooms(doc: Document, choices: list[int]) -> list[tuple]:
    return [(s.entity.start, s.entity.end, s.lo, s.hi) for s in simulate.build_view(doc, choices)]


def test_every_room_of_the_shipped_collections_is_its_nearest_obstacles(
    cd: Collection, second_harem_cd: Collection
) -> None:
    rng = random.Random(7)
    for doc in (*cd.documents, *second_harem_cd.documents):
        picked = [rng.randrange(len(b.alternatives)) for b in doc.alt_blocks]
        for choices in ([0] * len(doc.alt_blocks), picked):
            assert rooms(doc, choices) == rooms_by_a_pass_over_every_obstacle(doc, choices)


SPAN = st.tuples(st.integers(0, 30), st.integers(0, 6)).map(lambda p: (p[0], p[0] + p[1]))


@settings(derandomize=True, max_examples=300, deadline=None)
@given(
    entities=st.lists(SPAN, max_size=10),
    hidden=st.lists(SPAN, max_size=3),
    omitted=st.lists(SPAN, max_size=3).map(lambda r: r + r[:1]),  # one region twice
    paragraphs=st.lists(SPAN, max_size=3),
)
# an empty entity at the end of its (repeated) region: the region is its room, not an obstacle
@example(entities=[(10, 10)], hidden=[], omitted=[(5, 10), (5, 10)], paragraphs=[])
def test_rooms_are_the_nearest_obstacles_however_spans_overlap_or_repeat(
    entities: list, hidden: list, omitted: list, paragraphs: list
) -> None:
    """Empty entities, entities of the same span, overlapping and repeated regions."""
    text = "abcdefghij" * 4
    doc = Document(
        "D",
        text,
        tuple(_entity(text[s:e], s) for s, e in entities),
        omitted=tuple(omitted),
        omitted_entities=tuple(_entity(text[s:e], s) for s, e in hidden),
        paragraphs=tuple(paragraphs),
    )
    assert rooms(doc, []) == rooms_by_a_pass_over_every_obstacle(doc, [])
