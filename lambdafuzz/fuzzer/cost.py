"""The cost objective: keep the inputs that make a handler slower, chattier or hungrier.

Coverage-guided fuzzing walks past the inputs that make a handler slow: one more CSV row,
one more zip member, one more character for a backtracking regex covers nothing new.  The
cost feedback keeps an input when it raises a maximum instead (PerfFuzz's idea): per
application branch arm, the most times it was taken in one run; per campaign, the longest
handler run, the most AWS calls (in all and per operation), the most bytes sent to and
received from the emulated services and the largest peak memory growth.  Such inputs go
to a separate cost queue, mutated with the same machinery, so climbing one step at a time
towards the worst case is rewarded.

Counts (hit counts, AWS calls, bytes) are exact and compared as they are; durations and
memory are noisy, so they must beat the maximum by a margin (`DURATION_MARGIN`,
`MEMORY_MARGIN_KB`) to count, and a duration or memory finding is confirmed by running it
twice more and keeping the median (`CostObjective.observe`).

A cost *finding* is an input past a budget (`CostBudgets`): a run longer than a share of
the function's timeout, more AWS calls than allowed, more memory than allowed.  The worst
input per measure is saved in `cost/` (`CostFinding`), with its numbers.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from lambdafuzz.fuzzer.frontier import MAX_SHARE, MIN_SHARE, Rate
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.harness.measure.arm_catalog import ArmKey
from lambdafuzz.model.cost import CostMeasures, Measure

#: The exact campaign-wide counts: any increase raises the maximum. Bytes read climb with
#: the size of what the handler is given (longer CSV rows, more of them) where only the
#: noisy duration would otherwise notice.
COUNTED = (Measure.AWS_CALLS, Measure.BYTES_WRITTEN, Measure.BYTES_READ)
#: A duration raises the maximum only when this much longer (ratio) and ...
DURATION_MARGIN = 1.2
#: ... at least this many milliseconds longer: timer and scheduling noise on a busy box.
DURATION_MIN_STEP_MS = 2.0
#: Memory growth raises the maximum only when this many KiB larger (page and arena noise,
#: and what the heap keeps of blocks under the meter's 4 MiB mmap threshold).
MEMORY_MARGIN_KB = 1024
#: The measures a finding may be about, with budgets.
BUDGETED = (Measure.DURATION, Measure.AWS_CALLS, Measure.MEMORY)
#: The noisy ones: a finding is confirmed by the median of this many runs.
NOISY = frozenset({Measure.DURATION, Measure.MEMORY})
CONFIRM_RUNS = 3
#: A finding must be this much worse (ratio) than the saved one to replace it.
FINDING_MARGIN = 1.1


#: What a cost maximum is kept for: a branch arm's hit count, a `Measure`, or an AWS
#: operation's call count (its name).
MaximumT = ArmKey | Measure | str


@dataclass(slots=True, frozen=True)
class CostBudgets:
    """Past these an input is a cost finding; None: no budget for that measure."""

    duration_ms: float | None
    aws_calls: int | None
    memory_kb: float | None

    @classmethod
    def of(cls, options: CampaignOptions) -> CostBudgets:
        target = options.target
        memory_mb = (
            options.max_memory_mb if options.max_memory_mb is not None else target.memory_mb / 2
        )
        return cls(
            duration_ms=options.duration_share * target.timeout_s * 1000.0,
            aws_calls=options.max_aws_calls,
            memory_kb=memory_mb * 1024.0,
        )

    def limit(self, measure: Measure) -> float | None:
        if measure is Measure.DURATION:
            return self.duration_ms
        if measure is Measure.AWS_CALLS:
            return None if self.aws_calls is None else float(self.aws_calls)
        if measure is Measure.MEMORY:
            return self.memory_kb
        return None

    def exceeded(self, cost: CostMeasures) -> list[Measure]:
        """The budgeted measures `cost` is past."""
        out = []
        for measure in BUDGETED:
            limit = self.limit(measure)
            if limit is not None and cost.value(measure) > limit:
                out.append(measure)
        return out


class CostFeedback:
    """The campaign's cost maxima, and which cost-queue entry holds each."""

    def __init__(self) -> None:
        self.arm_max: dict[ArmKey, int] = {}
        self.measure_max: dict[Measure, float] = {}
        self.op_max: dict[str, int] = {}
        self.holder: dict[MaximumT, int] = {}  # maximum key -> id of the cost entry holding it

    def raises(self, cost: CostMeasures, hit_counts: Mapping[ArmKey, int]) -> list[MaximumT]:
        """The maxima `cost` raises (keys: an arm, a `Measure`, an `op` string)."""
        raised: list[MaximumT] = []
        arm_max = self.arm_max
        for arm, n in hit_counts.items():
            if n > arm_max.get(arm, 1):
                raised.append(arm)
        measure_max = self.measure_max
        for measure in COUNTED:
            if cost.value(measure) > measure_max.get(measure, 0.0):
                raised.append(measure)
        duration = cost.duration_ms
        old = measure_max.get(Measure.DURATION, 0.0)
        if duration > old * DURATION_MARGIN and duration > old + DURATION_MIN_STEP_MS:
            raised.append(Measure.DURATION)
        if cost.memory_kb > measure_max.get(Measure.MEMORY, 0.0) + MEMORY_MARGIN_KB:
            raised.append(Measure.MEMORY)
        op_max = self.op_max
        for op, n in cost.calls:
            if n > op_max.get(op, 0):
                raised.append(op)
        return raised

    def take(
        self,
        raised: Iterable[MaximumT],
        cost: CostMeasures,
        hit_counts: Mapping[ArmKey, int],
        entry: int | None,
    ) -> None:
        """Record the maxima `raised` as held by cost entry `entry` (None: by no entry, a
        maximum kept but choosing no parent)."""
        calls = dict(cost.calls)
        for key in raised:
            if isinstance(key, Measure):
                self.measure_max[key] = cost.value(key)
            elif isinstance(key, str):
                self.op_max[key] = calls[key]
            else:
                self.arm_max[key] = hit_counts[key]
            if entry is not None:
                self.holder[key] = entry

    def timed_only(self, entry: int) -> bool:
        """Whether every maximum cost entry `entry` holds is a noisy one (duration, memory):
        no hit count, call count or byte count climbs with it (the time goes to C code,
        such as a regex engine), so only the input's size is left to climb on."""
        held = [key for key, holder in self.holder.items() if holder == entry]
        return bool(held) and all(key in NOISY for key in held)

    def champions(self) -> list[int]:
        """Cost entries holding at least one maximum, oldest first: the cost parents."""
        return sorted(set(self.holder.values()))

    def maxima(self) -> dict[str, float]:
        """The campaign-wide maxima, for stats.json and the summary."""
        out = {m.value: round(v, 3) for m, v in sorted(self.measure_max.items())}
        out[Measure.HIT_COUNT.value] = float(max(self.arm_max.values(), default=0))
        return out


#: Bounds of `GrowthShare.share` (the frontier's): neither kind of child is ever given up.
MIN_GROW_SHARE = MIN_SHARE
MAX_GROW_SHARE = MAX_SHARE


class GrowthShare:
    """The share of a count-holding cost parent's children that grow (`mutation.grow`)
    rather than take havoc, from which kind raised a maximum more often lately (as the
    frontier mutator adapts its targeted share).  Which climbs better depends on the
    handler: grown row counts and cells climb csv_dedupe's quadratic rows, which havoc's
    fresh row counts rarely do; havoc climbs zip_fanout's members faster (90 s planted
    runs: 675 calls with half the children grown at a fixed share, 1927 with havoc alone,
    3075 with this share)."""

    def __init__(self) -> None:
        self.grown = Rate()
        self.havoc = Rate()

    def observe(self, grown: bool, raised: bool) -> None:
        (self.grown if grown else self.havoc).add(raised)

    @property
    def share(self) -> float:
        return self.grown.share_against(self.havoc)


def describe_raised(raised: Iterable[MaximumT]) -> str:
    """`+cost:duration,aws_calls,hits` for a provenance."""
    names: list[str] = []
    for key in raised:
        name = (
            key.value if isinstance(key, Measure) else "calls" if isinstance(key, str) else "hits"
        )
        if name not in names:
            names.append(name)
    return "+cost:" + ",".join(names)


def median_measures(samples: list[CostMeasures]) -> CostMeasures:
    """Counts from the first run (they are exact), duration and memory as medians."""
    first = samples[0]
    return replace(
        first,
        duration_ms=statistics.median(s.duration_ms for s in samples),
        memory_kb=int(statistics.median(s.memory_kb for s in samples)),
    )


@dataclass(slots=True)
class CostFinding:
    """The worst input seen past one measure's budget (the file `cost/<measure>.json`)."""

    measure: Measure
    value: float  # the measure's value (the median of the confirming runs when noisy)
    budget: float
    measures: CostMeasures  # every measure of that input (noisy ones as medians)
    samples: tuple[float, ...]  # the measure's value in each run (one for exact counts)
    first_exec: int
    first_time_s: float
    hits: int = 1  # inputs past this budget so far

    @property
    def file_name(self) -> str:
        return f"{self.measure.value}.json"

    def headline(self) -> str:
        """`aws_calls: 140 calls > budget 100 calls (dynamodb.PutItem x139, ...)`."""
        m = self.measure
        extra = f" ({self.measures.top_calls()})" if m is Measure.AWS_CALLS else ""
        return f"{m.value}: {m.show(self.value)} > budget {m.show(self.budget)}{extra}"

    def to_json(self) -> dict[str, Any]:
        return {
            "measure": self.measure.value,
            "value": round(self.value, 3),
            "budget": round(self.budget, 3),
            "unit": self.measure.unit,
            "headline": self.headline(),
            "measures": self.measures.to_json(),
            "samples": [round(s, 3) for s in self.samples],
            "first_exec": self.first_exec,
            "first_time_s": round(self.first_time_s, 3),
            "hits": self.hits,
        }

    @classmethod
    def from_json(cls, data: Any) -> CostFinding | None:
        """None for anything that is not a cost finding record."""
        if not isinstance(data, Mapping):
            return None
        try:
            measure = Measure(data.get("measure"))
            measures = CostMeasures.from_json(data.get("measures")) or CostMeasures()
            samples = tuple(float(s) for s in data.get("samples") or ())
            return cls(
                measure=measure,
                value=float(data.get("value") or 0.0),
                budget=float(data.get("budget") or 0.0),
                measures=measures,
                samples=samples,
                first_exec=max(0, int(data.get("first_exec") or 0)),
                first_time_s=max(0.0, float(data.get("first_time_s") or 0.0)),
                hits=max(1, int(data.get("hits") or 1)),
            )
        except (TypeError, ValueError, OverflowError):
            return None
