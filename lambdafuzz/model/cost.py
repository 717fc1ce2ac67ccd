"""What one invocation cost: the measures the cost objective maximises and budgets check.

On Lambda time is billed per millisecond and a timeout is an outage, so the inputs that
make a handler slow, chatty (AWS calls) or memory-hungry are findings of their own even
when nothing fails. The worker measures them around the handler call only (generation and
world loading are the fuzzer's work, not the handler's); the campaign keeps the maxima.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class Measure(enum.StrEnum):
    """A cost measure; the value is its name in saved files, reports and file names."""

    DURATION = "duration"  # wall-clock milliseconds in the handler
    AWS_CALLS = "aws_calls"  # AWS API calls the handler made
    BYTES_WRITTEN = "bytes_written"  # request payload bytes sent to the emulated services
    BYTES_READ = "bytes_read"  # streamed bodies (S3 objects) received from the services
    MEMORY = "memory"  # peak resident memory growth during the handler, KiB
    HIT_COUNT = "hit_count"  # the most often taken branch arm, times taken

    @property
    def unit(self) -> str:
        return _UNITS[self]

    def show(self, value: float) -> str:
        """`value` as a reader wants it: `812 ms`, `140 calls`, `12.5 MiB`."""
        if self is Measure.MEMORY:
            return f"{value / 1024:.1f} MiB"
        if self is Measure.BYTES_WRITTEN or self is Measure.BYTES_READ:
            return f"{value / 1024:.1f} KiB" if value >= 1024 else f"{value:.0f} bytes"
        if self is Measure.DURATION:
            return f"{value:.0f} ms"
        return f"{value:.0f} {self.unit}"


_UNITS = {
    Measure.DURATION: "ms",
    Measure.AWS_CALLS: "calls",
    Measure.BYTES_WRITTEN: "bytes",
    Measure.BYTES_READ: "bytes",
    Measure.MEMORY: "KiB",
    Measure.HIT_COUNT: "hits",
}


@dataclass(slots=True, frozen=True)
class CostMeasures:
    """What one handler invocation cost.

    `calls` counts AWS API calls per `service.Operation` (`dynamodb.PutItem`), sorted;
    `memory_kb` is the peak resident set size during the call minus the size before it
    (0 when it could not be measured); `max_hits` the count of the most often taken
    application branch arm. `bytes_read` counts the streamed bodies the services answered
    with (an S3 object's): an exact count that climbs with the size of what the handler
    processes, where only the noisy duration would otherwise show a longer row."""

    duration_ms: float = 0.0
    calls: tuple[tuple[str, int], ...] = ()
    bytes_written: int = 0
    memory_kb: int = 0
    max_hits: int = 0
    bytes_read: int = 0

    @property
    def aws_calls(self) -> int:
        return sum(n for _, n in self.calls)

    def value(self, measure: Measure) -> float:
        if measure is Measure.DURATION:
            return self.duration_ms
        if measure is Measure.AWS_CALLS:
            return float(self.aws_calls)
        if measure is Measure.BYTES_WRITTEN:
            return float(self.bytes_written)
        if measure is Measure.BYTES_READ:
            return float(self.bytes_read)
        if measure is Measure.MEMORY:
            return float(self.memory_kb)
        return float(self.max_hits)

    def top_calls(self, n: int = 3) -> str:
        """The most frequent operations: `dynamodb.PutItem x120, s3.GetObject x1`."""
        ranked = sorted(self.calls, key=lambda kv: (-kv[1], kv[0]))[:n]
        return ", ".join(f"{op} x{count}" for op, count in ranked)

    def describe(self) -> str:
        """One line with every measure, for repro and reports."""
        calls = f" ({self.top_calls()})" if self.calls else ""
        return (
            f"duration {Measure.DURATION.show(self.duration_ms)}, "
            f"AWS calls {self.aws_calls}{calls}, "
            f"written {Measure.BYTES_WRITTEN.show(self.bytes_written)}, "
            f"read {Measure.BYTES_READ.show(self.bytes_read)}, "
            f"memory +{Measure.MEMORY.show(self.memory_kb)}, "
            f"hottest branch arm {self.max_hits} hits"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "duration_ms": round(self.duration_ms, 3),
            "aws_calls": self.aws_calls,
            "calls": dict(self.calls),
            "bytes_written": self.bytes_written,
            "bytes_read": self.bytes_read,
            "memory_kb": self.memory_kb,
            "max_hits": self.max_hits,
        }

    @classmethod
    def from_json(cls, data: Any) -> CostMeasures | None:
        """None for anything that is not a recorded measure set (older files have none)."""
        if not isinstance(data, Mapping):
            return None
        raw_calls = data.get("calls")
        calls = (
            tuple(sorted((str(k), _int(v)) for k, v in raw_calls.items()))
            if isinstance(raw_calls, Mapping)
            else ()
        )
        return cls(
            duration_ms=_float(data.get("duration_ms")),
            calls=calls,
            bytes_written=_int(data.get("bytes_written")),
            memory_kb=_int(data.get("memory_kb")),
            max_hits=_int(data.get("max_hits")),
            bytes_read=_int(data.get("bytes_read")),
        )


def _int(raw: Any) -> int:
    try:
        return max(0, int(raw))
    except (TypeError, ValueError, OverflowError):
        return 0


def _float(raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return value if value == value and value >= 0 else 0.0  # NaN or negative: nothing
