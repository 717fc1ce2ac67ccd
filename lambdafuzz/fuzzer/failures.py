"""Deduplicated failures: one record per failure signature (see `model.outcome`).

A new signature is run once more in a fresh worker before it counts (`Confirmation.failure`);
one that does not fail the same way again is a *flaky* record: its `rerun` holds the second
outcome next to the first, and it is saved in `flaky/`, never in `failures/`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lambdafuzz.model.outcome import FailureInfo

#: Characters of the readable part of a failure file name (before the digest).
SLUG_READABLE = 100


def failure_slug(signature: str) -> str:
    """A short, file-name-safe, stable name for a failure signature.

    The exception's short name (a long module path dropped), its detail and the location
    come first and survive; a long message shape is what is cut.  A digest of the whole
    signature keeps names of different signatures apart."""
    kind, _, where = signature.partition(" at ")
    head, _, detail = kind.partition(" ")
    short = head.rsplit(".", 1)[-1][:40]
    readable = " ".join(p for p in (short, detail, "at", where) if p)
    readable = re.sub(r"[^A-Za-z0-9]+", "-", readable).strip("-")
    readable = readable[:SLUG_READABLE].strip("-")
    digest = hashlib.sha1(signature.encode()).hexdigest()[:8]  # noqa: S324 - a name, not security
    return f"{readable}-{digest}"


@dataclass(slots=True, frozen=True)
class RerunOutcome:
    """What the re-run of a new failure in a fresh worker produced."""

    status: str  # VALID, INVALID, FAILURE or HANG
    signature: str = ""  # of its failure, if it failed
    message: str = ""
    return_value: str = ""

    def to_json(self) -> dict[str, str]:
        return {
            "status": self.status,
            "signature": self.signature,
            "message": self.message,
            "return_value": self.return_value,
        }

    @classmethod
    def from_json(cls, data: Any) -> RerunOutcome | None:
        if not isinstance(data, Mapping):
            return None
        return cls(
            status=str(data.get("status") or ""),
            signature=str(data.get("signature") or ""),
            message=str(data.get("message") or ""),
            return_value=str(data.get("return_value") or ""),
        )


@dataclass(slots=True)
class FailureRecord:
    """The first input that produced a failure, and how often it recurred."""

    signature: str
    info: FailureInfo
    status: str
    file_name: str
    first_exec: int
    first_time_s: float
    # the campaign's executions that failed this way: 0 when only a cost re-run did
    hits: int = 1
    flaky: bool = False  # did not fail the same way when re-run in a fresh worker
    reruns: int = 0  # re-runs in a fresh worker (a flaky signature may be re-run again)
    rerun: RerunOutcome | None = None  # the last re-run's outcome
    # "world inconsistency: the event names s3://..." when the first input that failed this
    # way named an object its bucket did not hold (`trigger.missing_objects`), else ""
    world_inconsistency: str = ""
    # a handled finding's (`handled/`): the line of the `except` that caught it, and
    # whether the exception was raised by the "application" or inside a "library"
    caught_at: str = ""
    raised_in: str = ""
    # a deployment oracle's finding (`model.oracle`): its kind's name (`permissions`) and
    # the evidence a reader acts on (the statement that would allow the call, ...)
    oracle: str = ""
    evidence: str = ""

    @property
    def handled(self) -> bool:
        """Whether this records an exception the application caught (not a failure)."""
        return bool(self.caught_at)

    def to_json(self) -> dict[str, object]:
        handled = (
            {"caught_at": self.caught_at, "raised_in": self.raised_in} if self.caught_at else {}
        )
        oracle = {"oracle": self.oracle, "evidence": self.evidence} if self.oracle else {}
        return {
            **handled,
            **oracle,
            "signature": self.signature,
            "status": self.status,
            "exception_type": self.info.exception_type,
            "message": self.info.message,
            "location": self.info.location,
            "cause": self.info.cause,
            "detail": self.info.detail,
            "shape": self.info.shape,
            "function": self.info.function,
            "traceback": self.info.traceback,
            "first_exec": self.first_exec,
            "first_time_s": round(self.first_time_s, 3),
            "hits": self.hits,
            "flaky": self.flaky,
            "reruns": self.reruns,
            "rerun": self.rerun.to_json() if self.rerun is not None else None,
            "world_inconsistency": self.world_inconsistency,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], file_name: str, outcome: str) -> FailureRecord:
        """The record a failure file carries (its `failure` field); missing fields of an
        older file get neutral values, never an exception."""
        return cls(
            signature=str(data.get("signature") or file_name.removesuffix(".json")),
            info=FailureInfo(
                exception_type=str(data.get("exception_type") or ""),
                message=str(data.get("message") or ""),
                traceback=str(data.get("traceback") or ""),
                location=str(data.get("location") or ""),
                cause=str(data.get("cause") or ""),
                detail=str(data.get("detail") or ""),
                shape=str(data.get("shape") or ""),
                function=str(data.get("function") or ""),
            ),
            status=str(data.get("status") or outcome or "FAILURE"),
            file_name=file_name,
            first_exec=_int(data.get("first_exec"), 0),
            first_time_s=_float(data.get("first_time_s")),
            hits=max(0, _int(data.get("hits"), 1)),
            flaky=data.get("flaky") is True,
            reruns=max(0, _int(data.get("reruns"), 0)),
            rerun=RerunOutcome.from_json(data.get("rerun")),
            world_inconsistency=str(data.get("world_inconsistency") or ""),
            caught_at=str(data.get("caught_at") or ""),
            raised_in=str(data.get("raised_in") or ""),
            oracle=str(data.get("oracle") or ""),
            evidence=str(data.get("evidence") or ""),
        )


def _int(raw: Any, default: int) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError, OverflowError):
        return default


def _float(raw: Any) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError, OverflowError):
        return 0.0
