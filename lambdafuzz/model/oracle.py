"""Findings that are not exceptions: what production would do differently from a test.

A handler can pass every test and still fail once deployed: its role does not allow a
call its rare path makes (`AccessDenied`), a retried delivery charges twice, a batch
response loses records. The deployment oracles check each test for these; what they find
is a finding of its own kind, saved apart from failures (one folder per kind), keyed and
grouped as failures are (`FailureInfo.signature`), and shown with its evidence.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from lambdafuzz.model.outcome import FailureInfo


class OracleKind(enum.StrEnum):
    """A deployment oracle; the value names its folder in the out dir and its switch."""

    PERMISSIONS = "permissions"  # a call the function's role would not allow
    IDEMPOTENCY = "idempotency"  # a second delivery of the same event changed the world again
    BATCH = "batch"  # a partial batch response Lambda would read wrongly

    @property
    def title(self) -> str:
        """The finding as a reader names it: `permission finding`."""
        return _TITLES[self]


_TITLES = {
    OracleKind.PERMISSIONS: "permission finding",
    OracleKind.IDEMPOTENCY: "idempotency finding",
    OracleKind.BATCH: "batch finding",
}


@dataclass(slots=True, frozen=True)
class OracleFinding:
    """One finding of one test. `info` keys and locates it as a failure's would
    (`exception_type` says what production answers: `AccessDenied`); `evidence` is what a
    reader needs to act on it: the statement that would allow the call, both changes side
    by side, the response and the batch."""

    kind: OracleKind
    info: FailureInfo
    evidence: str = ""
