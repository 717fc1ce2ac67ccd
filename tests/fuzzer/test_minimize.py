"""Minimization keeps the failure and shrinks the sequence toward the simplest values."""

from __future__ import annotations

import pytest

from lambdafuzz.fuzzer.minimize import minimize, size_of
from lambdafuzz.generators.core import MINIMAL, Choices, ReplayMode
from lambdafuzz.generators.file_attributes import file_attributes


def test_minimize_shrinks_while_the_failure_reproduces():
    # "fails" whenever the file is a csv created in a leap year: a property of few draws
    def run(prefix):
        choices = Choices(prefix, seed=0, mode=ReplayMode.EXECUTION_INDEXED)
        value = file_attributes(choices)
        fails = value.name.endswith(".csv") and value.created.year % 4 == 0
        return ("LeapCsv" if fails else None), choices.recording()

    seed = next(
        s
        for s in range(500)
        if run(_fresh(s))[0] == "LeapCsv" and size_of(run(_fresh(s))[1])[1] > 50
    )
    original = run(_fresh(seed))[1]
    result = minimize(original, "LeapCsv", run, ReplayMode.EXECUTION_INDEXED, max_attempts=300)
    assert result.after < result.before
    assert run(result.sequence.by_ei())[0] == "LeapCsv"
    assert result.accepted >= 1


def _fresh(seed: int):
    choices = Choices(seed=seed)
    file_attributes(choices)
    return choices.recording().by_ei()


# --------------------------------------------------------------------------- fake runs
def _runner(generate, fails, mode):
    """A `run` callable over a pure generator: no AWS, no worker."""

    def run(prefix):
        choices = Choices(prefix, seed=0, mode=mode)
        value = generate(choices)
        return ("Fails" if fails(value) else None), choices.recording()

    return run


def _recording(generate, prefix):
    choices = Choices(prefix, seed=0)
    generate(choices)
    return choices.recording()


def _count_then_items(choices):
    n = choices.draw_integer(0, 20, site="n")
    return n, [choices.draw_integer(0, 1000, site="item") for _ in range(n)]


@pytest.mark.parametrize("mode", list(ReplayMode))
def test_integer_pass_survives_the_sequence_shrinking_under_it(mode):
    # Halving the count shortens the recording while the pass walks it (an IndexError once).
    run = _runner(_count_then_items, lambda value: value[0] >= 4, mode)
    original = _recording(_count_then_items, [17, *range(500, 517)])
    assert len(original) == 18
    result = minimize(original, "Fails", run, mode)
    assert run(result.sequence.prefix(mode))[0] == "Fails"
    assert result.sequence.values() == [4, 0, 0, 0, 0]
    assert result.after == (5, 4) < result.before


@pytest.mark.parametrize("mode", list(ReplayMode))
@pytest.mark.parametrize(
    ("lo", "hi", "start", "simplest", "threshold"),
    [
        (-100, 100, -73, 0, 10),  # toward 0 from below, not toward the lower bound -100
        (-100, 100, 73, 0, 10),  # toward 0 from above
        (5, 50, 47, 5, 15),  # toward the lower bound when 0 is out of range
        (-50, -5, -47, -5, 15),  # toward the upper bound when it is the one nearest 0
    ],
)
def test_integer_shrinks_toward_its_simplest_value(mode, lo, hi, start, simplest, threshold):
    def draw(choices):
        return choices.draw_integer(lo, hi, site="x")

    # "fails" while the value stays `threshold` or more away from the simplest value
    run = _runner(draw, lambda x: abs(x - simplest) >= threshold, mode)
    original = _recording(draw, [start])
    result = minimize(original, "Fails", run, mode)
    (shrunk,) = result.sequence.values()
    assert run(result.sequence.prefix(mode))[0] == "Fails"
    assert (shrunk - simplest) * (start - simplest) > 0  # same side of the simplest value
    assert threshold <= abs(shrunk - simplest) < 2 * threshold  # halved as far as it fails
    assert result.after < result.before


def test_size_is_the_distance_from_the_simplest_values():
    choices = Choices([-3, 7, True, "xyzz", b"\0\0\0", 0.0], seed=0)
    choices.draw_integer(-10, 10)  # 3 from 0
    choices.draw_integer(5, 9)  # 2 from 5
    choices.draw_boolean()  # 1 from False
    choices.draw_string("xyz", 2, 5)  # 2 longer than the shortest
    choices.draw_bytes(3, 4)  # the shortest
    choices.draw_float(-1.0, 1.0)  # at 0.0
    assert size_of(choices.recording()) == (6, 3 + 2 + 1 + 2)
    minimal = Choices([MINIMAL] * 6, seed=0)
    minimal.draw_integer(-10, 10)
    minimal.draw_integer(5, 9)
    minimal.draw_boolean()
    minimal.draw_string("xyz", 2, 5)
    minimal.draw_bytes(3, 4)
    minimal.draw_float(-1.0, 1.0)
    assert size_of(minimal.recording()) == (6, 0)
