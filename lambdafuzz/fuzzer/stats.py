"""`Stats`: a snapshot of a campaign, the content of `stats.json`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from lambdafuzz.fuzzer.rejections import Stop


@dataclass(slots=True, frozen=True)
class Stats:
    """A snapshot of a campaign; `stats.json` is this, serialised."""

    strategy: str
    seed: int
    execs: int
    valid_execs: int
    elapsed_s: float
    execs_per_sec: float
    app_branches_total: int
    app_branches_covered: int
    valid_branches_covered: int
    corpus_branches_covered: int
    corpus_size: int
    unique_failures: int  # bugs (`fuzzer.bugs`): one file each in failures/
    failure_hits: int
    time_in_handler_s: float
    time_in_generation_s: float
    time_in_reset_load_s: float
    since_last_new_coverage_s: float
    stability_pct: float | None
    worker_restarts: int
    workers: int
    targeting: dict[str, dict[str, int]] = field(default_factory=dict)
    #: new failures re-run in a fresh worker, and those that did not fail the same way
    #: again (unique flaky signatures, saved in flaky/; their hits are not failure_hits)
    failure_reruns: int = 0
    flaky_failures: int = 0
    flaky_hits: int = 0
    #: children identical to their parent (same values read): generated, not run, and not
    #: counted in `execs` (the engine's `_zero_mutation`)
    zero_mutations_skipped: int = 0
    #: the cost objective (fuzzer/cost.py): its queue's size, the measures past a budget
    #: (one finding each, in cost/), and the campaign's maxima by measure name
    cost_queue: int = 0
    cost_reruns: int = 0  # tests run again to confirm a duration or memory maximum/finding
    cost_findings: int = 0
    cost_maxima: dict[str, float] = field(default_factory=dict)
    #: tests never run because their Ray actor (or its node) was lost on the first run and
    #: on the retry: not executions, not failures
    lost_tests: int = 0
    #: exceptions the application caught (`harness.handled`): unique signatures (saved in
    #: handled/) and how often they were caught in all
    unique_handled: int = 0
    handled_hits: int = 0
    #: the signatures inside those bugs (message shapes, types): `failure_variants` of the
    #: `unique_failures` bugs, `handled_variants` of the `unique_handled` ones
    failure_variants: int = 0
    handled_variants: int = 0
    #: tests that met an exception of the emulator or lambdafuzz (`harness.blame`), by the
    #: gap's key: counted invalid, never failures
    emulator_gaps: dict[str, int] = field(default_factory=dict)
    #: the deployment oracles' findings (`model.oracle`), by kind (`permissions`): unique
    #: findings (one file each in that kind's folder) and how many tests found them
    findings: dict[str, int] = field(default_factory=dict)
    #: tests whose event was delivered twice (the idempotency oracle; a first delivery that
    #: failed is not delivered again, as Lambda retries it whole)
    redelivered: int = 0
    finding_hits: dict[str, int] = field(default_factory=dict)
    #: saved corpus inputs that failed (kept as parents because they covered new arms)
    failing_parents: int = 0
    #: what stopped the tests that did not end VALID, most hits first (`fuzzer.rejections`)
    rejections: tuple[Stop, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Stats:
        """Read `stats.json`; a field missing from an older or interrupted file gets its
        zero value, a field of the wrong type raises `ValueError`/`TypeError`."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = data.get(f.name)
            if f.name == "targeting":
                values[f.name] = {
                    str(k): {str(a): int(b) for a, b in dict(v).items()}
                    for k, v in dict(raw or {}).items()
                }
            elif f.name in ("emulator_gaps", "findings", "finding_hits"):
                values[f.name] = {str(k): int(v) for k, v in dict(raw or {}).items()}
            elif f.name == "cost_maxima":
                values[f.name] = {str(k): float(v) for k, v in dict(raw or {}).items()}
            elif f.name == "rejections":
                values[f.name] = tuple(Stop.from_json(item) for item in raw or ())
            elif f.name == "strategy":
                values[f.name] = str(raw or "")
            elif f.name == "stability_pct":
                values[f.name] = None if raw is None else float(raw)
            elif f.type in ("int",):
                values[f.name] = int(raw or 0)
            else:
                values[f.name] = float(raw or 0.0)
        return cls(**values)
