"""What one test produced: its `Status` and, for a failure, the `FailureInfo` that
deduplicates it.  Shared by the worker that classifies, the engine that decides and the
reports that show it."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Status(enum.IntEnum):
    """What one test produced, ordered from best to worst."""

    VALID = 0
    INVALID = 1  # rejected on purpose: an assumption, or a configured exception/status
    FAILURE = 2  # uncaught exception, configured failure status, or a dead worker
    HANG = 3  # ran past its timeout and was killed


@dataclass(slots=True, frozen=True)
class FailureInfo:
    """Why a test failed; `signature` deduplicates failures across a campaign."""

    exception_type: str
    message: str
    traceback: str
    location: str  # innermost application frame as "file:line", or "" when unknown
    cause: str = ""  # type of the chained cause, for re-raised generic exceptions

    @property
    def signature(self) -> str:
        sig = f"{self.exception_type} at {self.location or '?'}"
        return f"{sig} (from {self.cause})" if self.cause else sig
