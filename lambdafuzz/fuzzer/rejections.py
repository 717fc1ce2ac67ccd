"""What stops a campaign's inputs: every test that did not end VALID, counted by its cause.

The status's low-valid warning (`report.rejections`) names the top few of these with their
share of the tests, and turns the ones the handler raises or returns on purpose into the
`outcomes.invalid` lines to add to the config.  The engine calls `Rejections.count` once per
test that did not end VALID (one dict update); the rest happens in `top`, once per site.

A failure is *raised* on purpose when its innermost application frame is a `raise`
statement naming its very type (`analysis.raises`): the handler refusing an input it
validates.  A returned 4xx status configured as a failure is a rejection too.  Anything
else that fails (an `int()` of a header cell, a division by zero, a hang) is a *crash*:
a finding to fix, which no outcome should hide.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdafuzz.analysis.raises import raised_names
from lambdafuzz.model.outcome import RETURNED, Status, is_app_location, is_status_failure

if TYPE_CHECKING:
    from lambdafuzz.harness.process.protocol import TestResult

#: Stops shown in `Stats.rejections`, most hits first.
MAX_STOPS = 5
#: Distinct keys tallied; past this, new ones are counted together (an assumption whose
#: message carries values must not grow the tally without bound).
MAX_KEYS = 1_000
#: The rejections whose status is INVALID, by the worker's reason.
CONFIGURED = "rejected by outcomes.invalid"
GENERATOR = "a generator raised (lambdafuzz's bug; see the generator-error notice)"
OTHERS = "other rejections"


class Cause(enum.StrEnum):
    """Why a test did not end VALID; the value is what stats.json holds."""

    REJECTED = "rejected"  # INVALID: outcomes.invalid, an assumption, the trigger's filters
    RAISED = "raised"  # a failure at an application `raise` of its own type
    STATUS = "status"  # a 4xx status the handler returned, configured as a failure
    CRASH = "crash"  # any other failure, or a hang


@dataclass(slots=True, frozen=True)
class Stop:
    """One thing that stopped tests, and how many."""

    cause: Cause
    label: str  # `ValueError at app/h.py:12`, `Status400 returned by the handler`, a reason
    name: str  # the exception type (RAISED) or status code (STATUS) to declare, else ""
    hits: int

    def to_json(self) -> dict[str, Any]:
        return {
            "cause": self.cause.value,
            "label": self.label,
            "name": self.name,
            "hits": self.hits,
        }

    @classmethod
    def from_json(cls, data: Any) -> Stop:
        """One entry of stats.json's `rejections`; `ValueError`/`TypeError` on a bad one."""
        item = dict(data)
        return cls(Cause(item["cause"]), str(item["label"]), str(item["name"]), int(item["hits"]))


class Rejections:
    """The tally of one campaign's tests that did not end VALID."""

    __slots__ = ("_dirs", "_hits", "_causes")

    def __init__(self, dirs: Sequence[str]) -> None:
        """`dirs`: the application's directories (`model.target.app_dirs`), which failure
        locations are relative to the parents of."""
        self._dirs = tuple(dirs)
        # (exception type, location) of a failure, ("", reason) of a rejection -> hits
        self._hits: dict[tuple[str, str], int] = {}
        self._causes: dict[tuple[str, str], Stop] = {}  # the key's cause and label, hits 0

    def count(self, result: TestResult) -> None:
        """One test whose status is not VALID."""
        failure = result.failure
        if result.status is Status.INVALID or failure is None:
            reason = result.invalid_reason or (GENERATOR if result.generator_error else CONFIGURED)
            key = ("", reason)
        else:
            key = (failure.exception_type, failure.location)
        hits = self._hits
        try:
            hits[key] += 1
        except KeyError:
            if len(hits) >= MAX_KEYS:
                key = ("", OTHERS)
            hits[key] = hits.get(key, 0) + 1

    def top(self, n: int = MAX_STOPS) -> tuple[Stop, ...]:
        """The `n` stops with the most hits (ties by label, so the order is the same on
        every run)."""
        stops = [self._stop(key, hits) for key, hits in self._hits.items()]
        stops.sort(key=lambda s: (-s.hits, s.label))
        return tuple(stops[:n])

    def _stop(self, key: tuple[str, str], hits: int) -> Stop:
        try:
            known = self._causes[key]
        except KeyError:
            known = self._causes[key] = self._classify(*key)
        return Stop(known.cause, known.label, known.name, hits)

    def _classify(self, exception_type: str, location: str) -> Stop:
        if not exception_type:
            return Stop(Cause.REJECTED, location, "", 0)
        if is_status_failure(exception_type) and not location:
            code = exception_type.removeprefix("Status")
            cause = Cause.STATUS if code.startswith("4") else Cause.CRASH
            return Stop(cause, f"{exception_type} {RETURNED}", code, 0)
        label = f"{exception_type} at {location}" if location else exception_type
        if exception_type != "Hang" and self._raised_here(exception_type, location):
            return Stop(Cause.RAISED, label, exception_type, 0)
        return Stop(Cause.CRASH, label, "", 0)

    def _raised_here(self, exception_type: str, location: str) -> bool:
        """Whether `location` (`app/h.py:12`) is a `raise` statement naming the exception's
        class."""
        if not is_app_location(location):
            return False
        rel, _, line = location.rpartition(":")
        short = exception_type.rpartition(".")[2]
        for base in self._dirs:
            path = Path(os.path.dirname(base)) / rel
            if path.is_file():
                return raised_names(path).get(int(line)) == short
        return False
