"""Random and type-targeted mutation: which draws a child overwrites, and how."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from lambdafuzz.fuzzer.mutation import (
    MINIMAL_CHILD_PROBABILITY,
    RandomMutator,
    overwrite,
    sample_geometric,
)
from lambdafuzz.fuzzer.targeting import MAX_DISTANCE, TargetedMutator
from lambdafuzz.generators.core import (
    FRESH,
    MINIMAL,
    Changed,
    Choices,
    ReplayMode,
)
from lambdafuzz.generators.file_attributes import file_attributes


def recording(seed: int = 1):
    choices = Choices(seed=seed)
    file_attributes(choices)
    return choices.recording()


def test_sample_geometric_has_the_requested_mean():
    rng = random.Random(0)
    samples = [sample_geometric(rng, 8.0) for _ in range(20_000)]
    assert min(samples) >= 1
    assert 7.6 < sum(samples) / len(samples) < 8.4


@pytest.mark.parametrize("mode", list(ReplayMode))
def test_random_mutation_only_writes_markers(mode):
    parent = recording()
    rng = random.Random(5)
    mutation = RandomMutator(mode).mutate(parent, rng)
    values = mutation.prefix if mode is ReplayMode.LINEAR else list(mutation.prefix.values())
    original = parent.values()
    changed = [(v, o) for v, o in zip(values, original, strict=True) if v is not o]
    assert changed
    for value, old in changed:  # a marker; a `Changed` one remembers the parent's value
        assert value is MINIMAL or (type(value) is Changed and value.old is old)
    assert mutation.positions >= len(changed)
    plain = RandomMutator(mode, change=False).mutate(parent, random.Random(5))
    markers = plain.prefix if mode is ReplayMode.LINEAR else plain.prefix.values()
    assert not any(type(v) is Changed for v in markers)  # Zest's: FRESH and MINIMAL only


def test_about_ten_percent_of_children_use_minimal_values():
    parent = recording()
    rng = random.Random(9)
    n = 3000
    minimal = 0
    for _ in range(n):
        prefix = RandomMutator(ReplayMode.LINEAR, change=False).mutate(parent, rng).prefix
        minimal += MINIMAL in prefix
    # binomial(3000, 0.1): sd ~ 16.4; allow 5 sd
    assert abs(minimal - n * MINIMAL_CHILD_PROBABILITY) < 5 * 16.4


def test_ei_overwrite_keys_by_execution_index():
    parent = recording()
    prefix = overwrite(parent, [0], FRESH, ReplayMode.EXECUTION_INDEXED)
    assert prefix[parent.choices[0].ei] is FRESH
    assert sum(v is FRESH for v in prefix.values()) == 1


def test_changed_draws_never_repeat_the_parents_value_when_another_exists():
    flips = rare_flips = 0
    for seed in range(400):
        choices = Choices(
            [Changed(True), Changed(False), Changed(2), Changed(b"a"), Changed(5), Changed("a")],
            seed=seed,
        )
        flips += choices.draw_boolean(0.5) is False
        rare_flips += choices.draw_boolean(0.02) is True
        assert choices.draw_integer(0, 2) != 2
        assert choices.draw_bytes(1, 1) != b"a"
        assert choices.draw_integer(5, 5) == 5  # the only value: taken after a few tries
        assert choices.draw_string("abcdef", 1, 1) != "a"
        assert choices.misaligned_at is None
    assert flips == 400
    for seed in range(100):  # a weighted draw changed lands on another option
        weighted = Choices([Changed(0.05), Changed(0.95)], seed=seed)
        assert weighted.draw_weighted("ab", (0.9, 0.1)) == "b"
        assert weighted.draw_weighted("abc", (0.5, 0.0, 0.5)) == "a"  # never weight 0
    assert rare_flips == 400  # a change of a boolean is its other value, however rare


def _zero_mutations(change: bool, mode: ReplayMode, n: int = 1000) -> int:
    """Children of a file-attributes recording that read exactly their parent's values."""
    parent = recording(3)
    mutator = RandomMutator(mode, change=change)
    rng = random.Random(11)
    same = 0
    for i in range(n):
        child = Choices(mutator.mutate(parent, rng).prefix, seed=i, mode=mode)
        file_attributes(child)
        same += repr(child.recording().values()) == repr(parent.values())
    return same


@pytest.mark.parametrize("mode", list(ReplayMode))
def test_changed_markers_make_no_zero_mutations_where_fresh_ones_make_many(mode):
    assert _zero_mutations(change=False, mode=mode) >= 5  # Zest's plain fresh draws: 8 of 1000
    assert _zero_mutations(change=True, mode=mode) == 0


def test_a_minimal_run_over_minimal_draws_is_drawn_again_as_a_change():
    minimal = Choices([MINIMAL] * 3, seed=0)
    minimal.draw_integer(0, 5), minimal.draw_boolean(), minimal.draw_string("ab", 1, 4)
    parent = minimal.recording()
    mutator = RandomMutator(ReplayMode.LINEAR)
    rng = random.Random(0)
    prefixes = [mutator.mutate(parent, rng).prefix for _ in range(300)]
    assert not any(MINIMAL in p for p in prefixes)  # every draw minimal: MINIMAL is a no-op
    assert all(any(type(v) is Changed for v in p) for p in prefixes)


def _targeted(distances: dict[str, int]) -> TargetedMutator:
    """A TargetedMutator without running the analysis: one target all types influence."""
    from lambdafuzz.harness.measure.arm_catalog import ArmCatalog

    return TargetedMutator(
        distances={k: float(v) for k, v in distances.items()},
        target_types={"t1": tuple(distances)},
        arm_targets={},
        catalog=ArmCatalog(files=()),
    )


def test_targeted_mutation_only_touches_draws_of_the_chosen_type():
    parent = recording(3)
    mutator = _targeted({"datetime.date": 2})
    rng = random.Random(1)
    seen_targeted = 0
    for _ in range(200):
        mutation = mutator.mutate(parent, rng)
        if mutation.targeted is None:
            continue
        seen_targeted += 1
        assert mutation.targeted == "datetime.date"
        for choice in parent.choices:
            if type(mutation.prefix[choice.ei]) is Changed:
                assert "datetime.date" in choice.labels
    assert 70 < seen_targeted < 130  # half of the children are targeted
    assert mutator.distance["datetime.date"] == 2  # matches never go below the static distance


def test_a_missing_type_is_penalised_and_falls_back_to_random_mutation():
    parent = recording(3)
    mutator = _targeted({"image.exif": 4})
    rng = random.Random(2)
    mutations = [mutator.mutate(parent, rng) for _ in range(50)]
    assert all(m.targeted is None for m in mutations)  # never found: random mutation
    assert mutator.misses > 0
    assert mutator.distance["image.exif"] == MAX_DISTANCE  # x4/3 per miss, capped


def test_covered_targets_stop_steering():
    mutator = _targeted({"datetime.date": 2})
    mutator.uncovered.clear()
    assert mutator.candidate_types() == []
    parent = recording(3)
    assert mutator.mutate(parent, random.Random(0)).targeted is None


def test_targeted_mutator_maps_runtime_arms_to_analysis_targets(tmp_path):
    from pathlib import Path

    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.targeting import analyze_target
    from lambdafuzz.harness.measure.arm_catalog import Scope, scan_arms
    from lambdafuzz.model.target import app_dirs

    target = load_config(Path(__file__).parent / "planted")
    analysis = analyze_target(target, cache_dir=tmp_path)
    catalog = scan_arms(Scope.of(app_dirs(target)))
    mutator = TargetedMutator.from_analysis(analysis, catalog)
    before = set(mutator.uncovered)
    assert before, "the planted handler has input-dependent targets"
    every_arm = {site.arm: 1 for f in catalog.files for site in f.sites}
    mutator.observe(SimpleNamespace(), True, every_arm)
    assert len(mutator.uncovered) < len(before)  # covering every arm covers targets
