"""Deduplicated failures: one record per exception type + innermost application frame."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lambdafuzz.model.outcome import FailureInfo


def failure_slug(signature: str) -> str:
    """A short, file-name-safe, stable name for a failure signature.

    The exception's short name and the whole location survive; only a long module path
    is dropped, so `...handler.py:59` never turns into `...handler-py-5`."""
    kind, _, where = signature.partition(" at ")
    short = kind.rsplit(".", 1)[-1][:40]
    readable = re.sub(r"[^A-Za-z0-9]+", "-", f"{short} at {where}").strip("-")
    if len(readable) > 100:
        readable = readable[-100:].strip("-")
    digest = hashlib.sha1(signature.encode()).hexdigest()[:8]  # noqa: S324 - a name, not security
    return f"{readable}-{digest}"


@dataclass(slots=True)
class FailureRecord:
    """The first input that produced a failure, and how often it recurred."""

    signature: str
    info: FailureInfo
    status: str
    file_name: str
    first_exec: int
    first_time_s: float
    hits: int = 1

    def to_json(self) -> dict[str, object]:
        return {
            "signature": self.signature,
            "status": self.status,
            "exception_type": self.info.exception_type,
            "message": self.info.message,
            "location": self.info.location,
            "cause": self.info.cause,
            "traceback": self.info.traceback,
            "first_exec": self.first_exec,
            "first_time_s": round(self.first_time_s, 3),
            "hits": self.hits,
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
            ),
            status=str(data.get("status") or outcome or "FAILURE"),
            file_name=file_name,
            first_exec=_int(data.get("first_exec"), 0),
            first_time_s=_float(data.get("first_time_s")),
            hits=max(1, _int(data.get("hits"), 1)),
        )


def _int(raw: Any, default: int) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return default


def _float(raw: Any) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError):
        return 0.0
