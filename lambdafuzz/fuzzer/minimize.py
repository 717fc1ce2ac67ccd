"""Shrinking a failing input while the same failure reproduces.

Shrinking works on the choice sequence, not on the world: setting a run of draws to their
minimal values turns geometric sizes into their minimum (fewer objects, rows, entries),
integers into their lower bound and strings/bytes into the shortest legal value; the
generator then reads fewer draws, so the recorded sequence itself gets shorter.  A
candidate is kept only if it reproduces the same failure signature and is smaller.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from lambdafuzz.fuzzer.mutation import overwrite
from lambdafuzz.generators.core import (
    MINIMAL,
    ChoiceKind,
    ChoiceSequence,
    PrefixT,
    ReplayMode,
)

#: Run a prefix, return (failure signature or None, recording actually read).
RunT = Callable[[PrefixT], tuple[str | None, ChoiceSequence]]


def size_of(sequence: ChoiceSequence) -> tuple[int, int]:
    """Shortlex-like measure: number of draws, then total magnitude of the values."""
    total = 0
    for c in sequence.choices:
        if c.kind in (ChoiceKind.BYTES, ChoiceKind.STRING):
            total += len(c.value)
        elif c.kind is ChoiceKind.INTEGER:
            total += abs(c.value - c.constraints[0])
        elif c.kind is ChoiceKind.BOOLEAN:
            total += int(c.value)
    return len(sequence), total


@dataclass(slots=True, frozen=True)
class MinimizeResult:
    sequence: ChoiceSequence
    attempts: int
    accepted: int
    before: tuple[int, int]
    after: tuple[int, int]


def minimize(
    sequence: ChoiceSequence,
    signature: str,
    run: RunT,
    mode: ReplayMode,
    *,
    max_attempts: int = 400,
    max_seconds: float = 120.0,
) -> MinimizeResult:
    """Greedy delta-debugging over runs of draws, then single draws, from large to small."""
    best = sequence
    before = size_of(sequence)
    attempts = accepted = 0
    deadline = time.monotonic() + max_seconds

    def budget() -> bool:
        return attempts < max_attempts and time.monotonic() < deadline

    def try_candidate(prefix: PrefixT) -> bool:
        nonlocal best, attempts, accepted
        attempts += 1
        got, recording = run(prefix)
        if got == signature and size_of(recording) < size_of(best):
            best = recording
            accepted += 1
            return True
        return False

    improved = True
    while improved and budget():
        improved = False
        chunk = max(1, len(best) // 2)
        while chunk >= 1 and budget():
            start = 0
            while start < len(best) and budget():
                positions = [
                    i
                    for i in range(start, min(len(best), start + chunk))
                    if not _is_minimal(best, i)
                ]
                if positions and try_candidate(overwrite(best, positions, MINIMAL, mode)):
                    improved = True
                    continue  # same start, the sequence changed under it
                start += chunk
            chunk //= 2
        # halve integers that are not yet minimal
        for i in range(len(best)):
            if not budget():
                break
            c = best.choices[i]
            if c.kind is ChoiceKind.INTEGER and c.value != c.constraints[0]:
                lo = c.constraints[0]
                half = lo + (c.value - lo) // 2
                if try_candidate(_with_value(best, i, half, mode)):
                    improved = True
    return MinimizeResult(best, attempts, accepted, before, size_of(best))


def _is_minimal(sequence: ChoiceSequence, i: int) -> bool:
    c = sequence.choices[i]
    if c.kind in (ChoiceKind.BYTES, ChoiceKind.STRING):
        return len(c.value) == c.constraints[1 if c.kind is ChoiceKind.STRING else 0]
    if c.kind is ChoiceKind.INTEGER:
        lo, hi = c.constraints
        return c.value == (0 if lo <= 0 <= hi else lo)
    if c.kind is ChoiceKind.BOOLEAN:
        return c.value is False
    return False


def _with_value(sequence: ChoiceSequence, i: int, value: object, mode: ReplayMode) -> PrefixT:
    if mode is ReplayMode.LINEAR:
        values = sequence.values()
        values[i] = value
        return values
    by_ei = sequence.by_ei()
    by_ei[sequence.choices[i].ei] = value
    return by_ei
