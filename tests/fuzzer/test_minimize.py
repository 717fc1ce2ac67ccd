"""Minimization keeps the failure and shrinks the sequence."""

from __future__ import annotations

from lambdafuzz.fuzzer.minimize import minimize, size_of
from lambdafuzz.generators.core import Choices, ReplayMode
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
