"""How stable the campaign's tests are: how often a test run again does what it did.

Two kinds of test run again: a saved input, once, when `stability_check` is on (does it
cover the same arms?), and a new failure in a fresh worker (`confirmation`: does it fail
the same way?).  Together they are `stats.json`'s `stability_pct`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from lambdafuzz.fuzzer.entries import Entry


class Stability:
    """Saved inputs waiting for their re-check, and the re-runs that did the same again."""

    def __init__(self) -> None:
        self.rechecks = 0  # tests run again
        self.stable = 0  # ... that did the same again
        self._pending: deque[Entry] = deque()

    def schedule(self, entry: Entry) -> None:
        """Re-check a saved input with the next requests."""
        self._pending.append(entry)

    def due(self) -> Iterator[Entry]:
        """The saved inputs to re-check now, oldest first (also those scheduled while this
        is being iterated)."""
        while self._pending:
            yield self._pending.popleft()

    def observe(self, same: bool) -> None:
        """A test ran again; `same`: it did what it did the first time."""
        self.rechecks += 1
        if same:
            self.stable += 1

    def percent(self) -> float | None:
        """The share of re-runs that did the same again (None before any)."""
        return round(100.0 * self.stable / self.rechecks, 1) if self.rechecks else None
