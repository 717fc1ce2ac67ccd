"""Growing mutation for the cost objective: values made larger one step at a time."""

from __future__ import annotations

import random

import pytest

from lambdafuzz.fuzzer.mutation import grow, growable
from lambdafuzz.generators.aws.s3 import MAX_STEM_CHARS, STEM_CHARS, draw_object_key
from lambdafuzz.generators.core import Choices, Grown, ReplayMode


def test_a_grown_string_is_its_parent_with_a_piece_of_itself_appended():
    for seed in range(200):
        choices = Choices([Grown("ab12"), Grown(b"xyz")], seed=seed)
        text = choices.draw_string("abc12", 1, 10)
        data = choices.draw_bytes(0, 5)
        assert text.startswith("ab12") and 4 < len(text) <= 8
        assert set(text) <= set("ab12")  # a run of letters and digits stays one
        assert data.startswith(b"xyz") and 3 < len(data) <= 5
        assert choices.misaligned_at is None


def test_a_value_that_cannot_grow_is_changed_instead():
    for seed in range(100):
        at_bound = Choices([Grown("abc"), Grown(9), Grown(-3), Grown(True)], seed=seed)
        assert at_bound.draw_string("abc", 1, 3) != "abc"  # already as long as allowed
        assert at_bound.draw_integer(0, 9) != 9  # a count at its bound
        assert at_bound.draw_integer(-5, 5) != -3  # not a count: it may be negative
        assert at_bound.draw_boolean() is False  # not a count either


def test_a_grown_value_replayed_into_a_draw_of_another_kind_is_drawn_fresh():
    # the structure changed under the mutation: the grown string or count now meets a
    # boolean, a float, bytes or a string (found fuzzing a log summariser: an
    # AttributeError from the generator, one test lost)
    for seed in range(50):
        choices = Choices([Grown("abc"), Grown(b"xy"), Grown(7), Grown("q")], seed=seed)
        assert choices.draw_boolean() in (True, False)
        assert isinstance(choices.draw_string("ab", 1, 9), str)
        assert isinstance(choices.draw_float(0.0, 1.0), float)
        assert isinstance(choices.draw_bytes(0, 4), bytes)


def test_a_grown_count_is_larger_by_at_most_itself_and_within_its_bound():
    seen = set()
    for seed in range(200):
        choices = Choices([Grown(23), Grown(0), Grown(90)], seed=seed)
        rows = choices.draw_geometric(5.0, max_value=100)
        assert 23 < rows <= 46
        seen.add(rows)
        assert choices.draw_integer(0, 100) == 1  # from nothing: one
        assert 90 < choices.draw_integer(0, 100) <= 100  # capped at the bound
    assert len(seen) > 10  # anywhere up to twice as many, not one fixed step


def test_a_grown_value_replays_from_its_recording():
    choices = Choices([Grown("k3y")], seed=4)
    grown = choices.draw_string("k3y", 1, 40)
    again = Choices(choices.recording().values(), seed=99)
    assert again.draw_string("k3y", 1, 40) == grown and len(grown) > 3


def test_fresh_values_stay_under_the_fresh_bound_and_misfits_are_cut_to_it():
    lengths = {len(Choices(seed=s).draw_string("ab", 1, 200, fresh_max_size=5)) for s in range(300)}
    assert max(lengths) == 5
    misfit = Choices(["\u00e9" * 50], seed=0)  # another draw's value, outside the alphabet
    assert len(misfit.draw_string("ab", 1, 200, fresh_max_size=5)) == 5
    assert misfit.misaligned_at == 0
    kept = Choices(["ab" * 40], seed=0)  # a grown value of this draw replays whole
    assert kept.draw_string("ab", 1, 200, fresh_max_size=5) == "ab" * 40


def test_an_s3_key_stem_is_ordinary_fresh_and_may_grow_long():
    for seed in range(100):
        key = draw_object_key(Choices(seed=seed), extension="txt")
        assert len(key.rsplit("/", 1)[-1]) <= STEM_CHARS + len(".txt")
    stem = "a1" * 60
    choices = Choices(seed=0)
    draw_object_key(choices, extension="txt")
    recording = choices.recording()
    at = next(i for i, c in enumerate(recording.choices) if c.ei[-1][0] == "stem")
    assert recording.choices[at].constraints.max_size == MAX_STEM_CHARS
    values = recording.values()
    values[at] = stem
    key = draw_object_key(Choices(values, seed=0), extension="txt")
    assert stem in key and key.endswith(".txt")


@pytest.mark.parametrize("mode", list(ReplayMode))
def test_grow_marks_only_strings_that_can_grow_and_keeps_the_rest(mode):
    choices = Choices(seed=3)
    draw_object_key(choices, extension="csv")
    choices.draw_integer(0, 100)
    parent = choices.recording()
    positions = growable(parent)
    assert positions and all(type(parent.choices[i].value) in (str, bytes) for i in positions)
    rng = random.Random(5)
    for _ in range(50):
        mutation = grow(parent, rng, mode)
        assert mutation is not None and mutation.mode is mode
        prefix = mutation.prefix
        items = (
            list(enumerate(prefix))
            if mode is ReplayMode.LINEAR
            else [(next(i for i, c in enumerate(parent.choices) if c.ei == ei), v)
                  for ei, v in prefix.items()]
        )  # fmt: skip
        grown = [i for i, v in items if type(v) is Grown]
        assert 1 <= len(grown) == mutation.positions and set(grown) <= set(positions)
        assert all(v == parent.choices[i].value for i, v in items if type(v) is not Grown)


def test_nothing_to_grow_gives_no_mutation():
    choices = Choices(seed=0)
    choices.draw_integer(0, 10)
    choices.draw_boolean()
    assert grow(choices.recording(), random.Random(0), ReplayMode.EXECUTION_INDEXED) is None


def test_growing_counts_marks_integers_too_chosen_by_site():
    choices = Choices(seed=1)
    rows = choices.draw_integer(0, 100, site="rows")
    for _ in range(rows + 40):  # many cells, one row count
        choices.draw_string("abc", 1, 30, site="text")
    choices.draw_integer(-10, 10, site="offset")  # not a count
    parent = choices.recording()
    assert 0 not in growable(parent)  # strings only unless counts are asked for
    assert 0 in growable(parent, counts=True)
    assert len(parent) - 1 not in growable(parent, counts=True)
    rng = random.Random(2)
    marked = 0
    for _ in range(400):
        mutation = grow(parent, rng, ReplayMode.LINEAR, counts=True)
        assert mutation is not None
        marked += type(mutation.prefix[0]) is Grown
    # by site first: about half of the children (with a geometric number of draws) grow
    # the one row count, not one in the draws' number
    assert marked > 400 * 0.4
