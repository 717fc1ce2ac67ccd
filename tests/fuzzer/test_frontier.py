"""Frontier targeting (`fuzzer/frontier.py`): which arms it aims at, how it weighs types,
when it credits them, and how the targeted share adapts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from lambdafuzz.fuzzer.frontier import (
    INITIAL_SHARE,
    MAX_SHARE,
    MIN_SHARE,
    FrontierMutator,
    FrontierTarget,
)
from lambdafuzz.fuzzer.mutation import Mutation
from lambdafuzz.generators.core import Changed, Choices, ChoiceSequence, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files.json_files import RECORD_KIND_SHARES
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, ArmKey, ArmSite, FileArms

ROOT = Path(__file__).resolve().parents[2]
FILE = "/app/handler.py"

# two branches: A on line 5 (arms to 6 and 8), B on line 10 (arms to 11 and 13)
ARMS = {
    "A:true": ArmKey("handler.py", "handler", 1, 10, 12),
    "A:false": ArmKey("handler.py", "handler", 1, 10, 20),
    "B:true": ArmKey("handler.py", "handler", 1, 30, 32),
    "B:false": ArmKey("handler.py", "handler", 1, 30, 40),
}
LINES = {"A:true": (5, 6), "A:false": (5, 8), "B:true": (10, 11), "B:false": (10, 13)}


def _catalog() -> ArmCatalog:
    sites = tuple(ArmSite(ARMS[n], *LINES[n], "if") for n in ARMS)
    return ArmCatalog((FileArms(FILE, "handler.py", sites),))


def _mutator(distances: dict[str, dict[str, float]]) -> FrontierMutator:
    """`distances`: target name -> label -> distance; siblings are the other arm."""
    targets = [
        FrontierTarget(name, (name.replace("true", "false") if "true" in name else
                              name.replace("false", "true"),), d)
        for name, d in distances.items()
    ]  # fmt: skip
    arm_targets = {(FILE, *LINES[n]): (n,) for n in ARMS}
    return FrontierMutator(targets, arm_targets, _catalog(), ReplayMode.LINEAR)


def _seen(*names: str) -> dict[ArmKey, int]:
    return {ARMS[n]: 1 for n in names}


def _parent() -> ChoiceSequence:
    choices = Choices(seed=1)
    with choices.scope("near"):
        for _ in range(3):
            choices.draw_integer(0, 100)
    with choices.scope("far"):
        for _ in range(3):
            choices.draw_integer(0, 100)
    return choices.recording()


EVERY_ARM = {n: {"near": 1.0, "far": 9.0} for n in ARMS}


def test_the_frontier_is_the_uncovered_arms_whose_sibling_is_covered():
    mutator = _mutator(EVERY_ARM)
    assert mutator.frontier == set()
    mutator.observe(None, True, _seen("A:true"))
    assert mutator.frontier == {"A:false"}  # B: neither arm reached, not aimed at
    mutator.observe(None, True, _seen("A:true", "B:false", "A:false"))
    assert mutator.frontier == {"B:true"}


def test_types_are_weighted_by_their_distance_to_the_frontier_targets_only():
    # `far` is 1 edge from B's arms but 8 from A:false; `near` the other way round.  With
    # A:false the only frontier target, `near` must outweigh `far` although a distance
    # unified over all targets would make both nearest (1).
    mutator = _mutator(
        {
            "A:true": {"near": 1.0, "far": 8.0},
            "A:false": {"near": 1.0, "far": 8.0},
            "B:true": {"near": 9.0, "far": 1.0},
            "B:false": {"near": 9.0, "far": 1.0},
        }
    )
    mutator.observe(None, True, _seen("A:true"))
    weights = mutator.type_weights()
    assert weights == pytest.approx({"near": 1.0, "far": 1 / 8})
    rng = random.Random(0)
    parent = _parent()
    aimed = [mutator.mutate(parent, rng).targeted for _ in range(400)]
    assert aimed.count("near") > 4 * aimed.count("far") > 0


def test_a_targeted_child_overwrites_only_draws_of_its_type():
    mutator = _mutator(EVERY_ARM)
    mutator.observe(None, True, _seen("A:true"))
    parent = _parent()
    rng = random.Random(3)
    for _ in range(50):
        child = mutator.mutate(parent, rng)
        if child.targeted is None:
            continue
        changed = [i for i, v in enumerate(child.prefix) if isinstance(v, Changed)]
        assert changed and all(child.targeted in parent.choices[i].labels for i in changed)


def test_credit_only_for_new_coverage():
    mutator = _mutator(EVERY_ARM)
    mutator.observe(None, True, _seen("A:true"))
    child = Mutation([], targeted="near", positions=1)
    mutator.observe(child, True, _seen("A:true"))  # saved (a new bucket), no new arm
    assert mutator.credit["near"] < 1.0
    mutator.observe(child, True, _seen("A:true", "B:true"))  # a new arm
    assert mutator.credit["near"] > 1.0
    assert "far" not in mutator.credit  # only the type that was targeted


def test_the_targeted_share_adapts_to_success_within_bounds():
    mutator = _mutator(EVERY_ARM)
    assert mutator.targeted_share == INITIAL_SHARE
    seen = _seen("A:true")
    mutator.observe(None, True, seen)
    targeted, plain = Mutation([], targeted="near"), Mutation([])
    for i in range(200):  # targeted children find new arms, random ones never do
        mutator.observe(plain, False, seen)
        seen = {**seen, ArmKey("handler.py", "other", 1, i, i): 1}
        mutator.observe(targeted, True, seen)
    assert mutator.targeted_share == MAX_SHARE
    for _ in range(2000):  # and then the other way round
        mutator.observe(targeted, False, seen)
        seen = {**seen, ArmKey("handler.py", "more", 1, len(seen), 0): 1}
        mutator.observe(plain, True, seen)
    assert mutator.targeted_share == MIN_SHARE


def test_no_frontier_means_random_children():
    mutator = _mutator(EVERY_ARM)
    rng = random.Random(0)
    assert all(mutator.mutate(_parent(), rng).targeted is None for _ in range(50))


def test_year_thumbnails_2008_arm_prefers_the_date_over_the_image():
    """The issue's example: unified, `PIL.Image.Image` is the nearest type of the 2008
    branch (distance 1, loops after it); for that arm the date is nearer."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.targeting import analyze_target
    from lambdafuzz.harness.measure.arm_catalog import Scope, scan_arms
    from lambdafuzz.model.target import app_dirs

    target = load_config(ROOT / "benchmarks" / "lambdas" / "year_thumbnails")
    analysis = analyze_target(target, rich=True)
    unified = analysis.distances()
    assert min(unified, key=unified.__getitem__) == "PIL.Image.Image"
    mutator = FrontierMutator.from_analysis(analysis, scan_arms(Scope.of(app_dirs(target))))
    arm = next(t for t in analysis.targets if t.condition == "year == YEAR" and t.arm == "true")
    distances = mutator.targets[arm.id].distances
    assert distances["datetime.datetime"] < distances["PIL.Image.Image"]


# --------------------------------------------------------------------------- edge plans
EDGE_FIELDS = ("name", "email", "age")


def _record_parent() -> tuple[ChoiceSequence, bytes]:
    from lambdafuzz.generators.files.json_files import json_documents

    for seed in range(200):
        choices = Choices(seed=seed, policy=DrawPolicy(fields=EDGE_FIELDS, edge_values=True))
        document = json_documents(choices)
        value = json.loads(document)
        if isinstance(value, dict) and set(value) == set(EDGE_FIELDS):
            return ChoiceSequence(tuple(choices.choices)), document
    raise AssertionError("no full record in 200 seeds")


def _child_document(mutation) -> bytes:
    from lambdafuzz.generators.files.json_files import json_documents

    choices = Choices(mutation.prefix, seed=5, mode=mutation.mode, policy=DrawPolicy(fields=EDGE_FIELDS, edge_values=True))  # fmt: skip
    return json_documents(choices)


def test_an_edge_plan_tries_every_class_of_every_selector_once_keeping_the_rest():
    from lambdafuzz.fuzzer import frontier
    from lambdafuzz.generators import edge_values

    parent, document = _record_parent()
    mutator = _mutator({"A:true": {"near": 1.0}})
    plan = mutator.edge_plan(parent, random.Random(0))
    scalar = [i for i in plan.selectors if parent.choices[i].ei[-1][0].startswith("edge:")]
    expected = sum(
        frontier.CONFUSED_STEPS if option is edge_values.EdgeClass.CONFUSED else 1
        for i in scalar
        for option, (low, high) in edge_values.class_shares(parent.choices[i].ei[-1][0]).items()
        if option is not None and not low <= parent.choices[i].value < high
    )
    constants = sum(c.ei[-1][0] == "constant?" and c.value is False for c in parent.choices)
    held = sum(c.ei[-1][0] == "constant?" and c.value is True for c in parent.choices)
    absent = sum(c.ei[-1][0] == "field?" and c.value is False for c in parent.choices)
    files = len(plan.selectors) - len(scalar)
    retypes = sum(
        kind in frontier.RETYPE_KINDS and not low <= c.value < high
        for c in parent.choices
        for kind, (low, high) in RECORD_KIND_SHARES.get(c.ei[-1][0], {}).items()
    )
    assert retypes >= 3  # at least one field of the record is retyped
    assert len(plan.steps) == min(
        frontier.MAX_PLAN_STEPS,
        expected
        + frontier.CONSTANT_STEPS * constants
        + frontier.ORDINARY_STEPS * held
        + frontier.PUT_IN_STEPS * absent
        + frontier.FILE_EDGE_STEPS * files
        + retypes,
    )
    original = json.loads(document)
    rng = random.Random(1)
    changed_one = 0
    for _ in range(len(plan.steps)):
        mutation = mutator.edge_plan(parent, rng) and mutator.edge_mutation(parent, rng)
        if mutation is None:
            continue
        assert mutation.targeted == frontier.EDGE_MUTATION
        assert mutation.mode is ReplayMode.EXECUTION_INDEXED
        child = _child_document(mutation)
        try:
            value = json.loads(child)
        except ValueError:
            continue  # a document edge (another encoding) replaces the whole text
        if isinstance(value, dict):
            changed_one += sum(value.get(k) != original.get(k) for k in EDGE_FIELDS) <= 1
    assert changed_one > 0.8 * (len(plan.steps) // 3)  # one field changed, the others kept


def test_after_its_plan_a_parent_gets_edge_mutations_at_the_edge_share():
    from lambdafuzz.fuzzer import frontier

    parent, _ = _record_parent()
    mutator = _mutator({"A:true": {"near": 1.0}})
    rng = random.Random(2)
    mutator.edge_plan(parent, rng).steps.clear()
    kinds = [mutator.mutate(parent, rng).targeted for _ in range(2000)]
    share = kinds.count(frontier.EDGE_MUTATION) / len(kinds)
    assert abs(share - frontier.EDGE_SHARE) < 0.03


def test_a_record_field_holding_a_code_constant_tries_the_others():
    from lambdafuzz.fuzzer import frontier
    from lambdafuzz.fuzzer.frontier import _EdgePlan
    from lambdafuzz.generators.files.json_files import RECORD_WORD_SITE, json_documents

    words = ("eu", "uk", "us", "apac")
    for seed in range(500):
        choices = Choices(
            seed=seed, policy=DrawPolicy(fields=("region",), dictionary=words, edge_values=True)
        )
        value = json.loads(json_documents(choices))
        if isinstance(value, dict) and value.get("region") in words:
            break
    else:
        raise AssertionError("no record with a constant region in 500 seeds")
    parent = ChoiceSequence(tuple(choices.choices))
    plan = _EdgePlan.of(parent, random.Random(0), words)
    tried = {v for i, v, _ in plan.steps if parent.choices[i].ei[-1][0] == RECORD_WORD_SITE}
    assert tried == set(words) - {value["region"]}  # fewer than OTHER_CONSTANTS: all of them
    assert len(words) - 1 <= frontier.OTHER_CONSTANTS
    for i, word, _ in plan.steps:
        if parent.choices[i].ei[-1][0] != RECORD_WORD_SITE:
            continue
        prefix = parent.by_ei()
        prefix[parent.choices[i].ei] = word
        child = Choices(prefix, mode=ReplayMode.EXECUTION_INDEXED, policy=DrawPolicy(fields=("region",), dictionary=words, edge_values=True))  # fmt: skip
        assert json.loads(json_documents(child)) == {**value, "region": word}


def _partial_record(missing: str) -> tuple[ChoiceSequence, dict]:
    """A record of EDGE_FIELDS without `missing`, every other field an ordinary value."""
    from lambdafuzz.generators.files.json_files import RECORD_FIELD_SITE, json_documents

    for seed in range(2000):
        choices = Choices(seed=seed, policy=DrawPolicy(fields=EDGE_FIELDS, edge_values=True))
        value = json.loads(json_documents(choices))
        if isinstance(value, dict) and set(value) == set(EDGE_FIELDS) - {missing}:
            parent = ChoiceSequence(tuple(choices.choices))
            assert any(c.ei[-1][0] == RECORD_FIELD_SITE for c in parent.choices)
            return parent, value
    raise AssertionError(f"no record without {missing} in 2000 seeds")


def test_putting_a_field_in_changes_that_field_only():
    """A record field's draws are keyed by its name (`Choices.keyed`): an EI child that puts
    the first field in keeps every later field (counted per record, the new field took
    the next field's draws and every later field shifted)."""
    from lambdafuzz.fuzzer.frontier import _EdgePlan

    parent, value = _partial_record(EDGE_FIELDS[0])
    plan = _EdgePlan.of(parent, random.Random(0))
    put_in = [step for step in plan.steps if step[2] and step[1] is True]
    assert put_in, "the absent field is put in, as an opening step"
    for _ in range(len(plan.steps)):
        step = plan.steps[-1]
        if step in put_in:
            break
        plan.steps.pop()
    child = json.loads(_child_document(plan.step()))
    assert EDGE_FIELDS[0] in child
    assert {k: v for k, v in child.items() if k != EDGE_FIELDS[0]} == value


def test_a_field_put_in_that_kept_the_path_gets_its_own_edge_classes_next():
    """`follow`: the child's new draws (the field put in) are planned, every class of its
    edge selector, and those steps come before the parent's own plan; one key is followed
    at most FOLLOW_UPS_PER_KEY times."""
    from lambdafuzz.fuzzer import frontier
    from lambdafuzz.fuzzer.frontier import _EdgePlan
    from lambdafuzz.generators.edge_values import EDGE_SITE_PREFIX
    from lambdafuzz.generators.files.json_files import json_documents

    parent, value = _partial_record(EDGE_FIELDS[0])
    mutator = _mutator({"A:true": {"near": 1.0}})
    rng = random.Random(3)
    mutator.mutate(parent, rng)  # the engine's RNG, as a campaign hands it over
    plan = _EdgePlan.of(parent, random.Random(0))
    opening = next(step for step in plan.steps if step[2] and step[1] is True)
    plan.steps[:] = [opening]
    mutation = plan.step()
    assert mutation.opens
    choices = Choices(mutation.prefix, seed=5, mode=mutation.mode, policy=DrawPolicy(fields=EDGE_FIELDS, edge_values=True))  # fmt: skip
    opened = json.loads(json_documents(choices))
    child = ChoiceSequence(tuple(choices.choices))
    new = [i for i, c in enumerate(child.choices) if c.ei not in mutation.prefix]
    selectors = [i for i in new if child.choices[i].ei[-1][0].startswith(EDGE_SITE_PREFIX)]
    assert selectors, "the field came in as an ordinary value, with its edge selector"
    mutator.follow(mutation, child)
    follow_up = mutator._follow_ups[-1]
    assert {i for i, _, _ in follow_up.steps} <= set(new)
    assert len(follow_up.steps) <= frontier.FOLLOW_UP_STEPS
    field = EDGE_FIELDS[0]
    changed = 0
    for _ in range(len(follow_up.steps)):
        step = follow_up.step()
        again = Choices(step.prefix, seed=7, mode=step.mode, policy=DrawPolicy(fields=EDGE_FIELDS, edge_values=True))  # fmt: skip
        grandchild = json.loads(json_documents(again))
        assert {k: v for k, v in grandchild.items() if k != field} == value
        changed += grandchild.get(field) != opened[field]
    assert changed >= len(follow_up.steps) // 2  # most classes give another value
    for _ in range(frontier.FOLLOW_UPS_PER_KEY + 2):
        mutator.follow(mutation, child)
    assert len(mutator._follow_ups) == frontier.FOLLOW_UPS_PER_KEY


def test_a_csv_parent_plan_flips_its_line_endings():
    """The file's dialect draws are plan steps: a handler splitting lines on `\\n` meets
    `\\r\\n` once its parent reached the line it parses (csv_crlf_ledger)."""
    from lambdafuzz.fuzzer.frontier import _EdgePlan
    from lambdafuzz.generators.files.csv_files import csv_files

    choices = Choices(seed=4, policy=DrawPolicy(edge_values=True))
    original = csv_files(choices)
    parent = ChoiceSequence(tuple(choices.choices))
    plan = _EdgePlan.of(parent, random.Random(0))
    sites = {parent.choices[i].ei[-1][0] for i, _, _ in plan.steps}
    assert {"lineterminator", "delimiter", "quoting"} <= sites
    step = next(s for s in plan.steps if parent.choices[s[0]].ei[-1][0] == "lineterminator")
    plan.steps[:] = [step]
    mutation = plan.step()
    child = csv_files(
        Choices(mutation.prefix, seed=9, mode=mutation.mode, policy=DrawPolicy(edge_values=True))
    )
    assert child.lineterminator != original.lineterminator
    assert child.rows == original.rows
