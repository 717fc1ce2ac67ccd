"""What a campaign reports: `Stats` (stats.json), plot_data.csv, and at its end every
finding's file again.

The engine counts its own tests in a `Tally`; its parts keep their own counts (failures and
re-runs: `confirmation`; handled exceptions, findings and redeliveries: `handled_findings`;
the cost queue: `cost_objective`; re-checks: `stability`; arms: `coverage_map`), and
`CampaignReports` reads them all.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from lambdafuzz.fuzzer.confirmation import Confirmation
from lambdafuzz.fuzzer.cost_objective import CostObjective
from lambdafuzz.fuzzer.coverage_map import CoverageMap
from lambdafuzz.fuzzer.entries import Entry
from lambdafuzz.fuzzer.handled_findings import HandledFindings
from lambdafuzz.fuzzer.mutation import Mutation
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import CoverageRecord, OutDir, PlotRow
from lambdafuzz.fuzzer.rejections import Rejections
from lambdafuzz.fuzzer.stability import Stability
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.harness.process.pool import Pool
from lambdafuzz.harness.process.protocol import Timings

#: Zero mutations skipped in a row that give their place in the budget to the next child;
#: past this many (a corpus whose every child repeats its parent) skips count as executions,
#: so an executions budget still ends.
MAX_ZERO_STREAK = 10_000


@dataclass(slots=True)
class TargetingCounts:
    """Children made by targeting one type label, and how many of them were saved."""

    children: int = 0
    saved: int = 0


@dataclass(slots=True)
class Tally:
    """Tests asked for and run, the time they took, and when the campaign started and last
    found something new."""

    execs: int = 0
    requested: int = 0  # tests asked for (the budget), less zero mutations given back
    valid_execs: int = 0
    time_handler: float = 0.0
    time_generate: float = 0.0
    time_reset_load: float = 0.0
    generator_errors: int = 0
    #: children identical to their parent, not run (`zero_mutation`), and how many of
    #: them in a row
    zero_mutations_skipped: int = 0
    zero_streak: int = 0
    children_made: int = 0  # children of either queue, for `cost_share`
    cost_children_made: int = 0  # ... of the cost queue
    targeting: dict[str, TargetingCounts] = field(default_factory=dict)
    #: emulator gaps met (`harness.blame`), by key: each said once, then counted
    emulator_gaps: dict[str, int] = field(default_factory=dict)
    start: float = 0.0  # time.monotonic() when the first test was asked for
    last_new: float = 0.0  # ... and when a test last covered something new

    def add_times(self, timings: Timings) -> None:
        """Where a test's time went (the worker's measurement)."""
        self.time_handler += timings.handler_s
        self.time_generate += timings.generate_s
        self.time_reset_load += timings.reset_load_s

    def zero_mutation(self, generate_s: float, mutation: Mutation | None) -> None:
        """A child that generated exactly its parent's input (`input_digest`: the same
        values, or other values that make the same world and event), so the worker stopped
        there: which is queued already and can cover nothing new (with a deterministic
        handler).  It is counted, not executed, and its place in the budget goes to the next
        child (up to MAX_ZERO_STREAK in a row).  Children and seeds come from the engine's
        RNG in the same order whether it runs or not, so a seeded campaign saves the same
        inputs, each as many executions sooner as zero mutations were skipped before it
        (tests/fuzzer/test_zero_mutations.py).

        Where the check happens: in the worker, after it generated the child, with the
        parent's digest sent in the request.  Measured on the 8 benchmark lambdas
        (benchmarks/zero_mutations.py, 2 cores, load ~1): a child the worker reports
        identical costs the campaign 0.6-4.9 ms, of which 0.3-3.6 ms is its generation there,
        so the pipe round trip adds 0.3-1.4 ms per zero mutation; generating every child in
        the campaign first instead would add its generation, 0.3-3.7 ms, to every child
        that does run (89-100% of them), and pays off only when zero mutations outnumber
        the others (they are 0-11% of children here; benchmarks/history/zero-mutations.md).

        With the mutators' `Changed` markers (the default) a child whose mutated draws all
        repeat the parent's values is not made in the first place: what still arrives here
        are children whose mutated draws can take only one value, and children whose changed
        values the generators turn into the same input (a string cleaned to the same text, a
        value read but not used: 0.3-3.3% of children in the havoc study); with
        `change_mutated_draws=False` (Zest's plain fresh draws, the study's comparison) this
        check is what skips them."""
        self.zero_mutations_skipped += 1
        self.time_generate += generate_s
        self.targeted_child(mutation)
        self.zero_streak += 1
        if self.zero_streak <= MAX_ZERO_STREAK:
            self.requested -= 1

    def targeted_child(self, mutation: Mutation | None) -> None:
        """Count a child made by targeting a type label."""
        targeted = mutation.targeted if mutation is not None else None
        if targeted:
            self.targeting.setdefault(targeted, TargetingCounts()).children += 1


class CampaignReports:
    """stats.json and plot_data.csv, rewritten as the campaign runs, and at its end every
    finding's file again, read from the engine's parts.  `start` gives it the pool (its
    worker restarts and lost tests) once it runs."""

    def __init__(
        self,
        options: CampaignOptions,
        out: OutDir,
        *,
        queue: list[Entry],
        tally: Tally,
        arms: CoverageMap,
        stability: Stability,
        rejections: Rejections,
        confirmation: Confirmation,
        handled_findings: HandledFindings,
        costs: CostObjective,
    ) -> None:
        self._options = options
        self._out = out
        self._queue = queue
        self._tally = tally
        self._arms = arms
        self._stability = stability
        self._rejections = rejections
        self._confirmation = confirmation
        self._handled_findings = handled_findings
        self._costs = costs
        self._plot_rows: list[PlotRow] = []
        self._pool: Pool | None = None

    def start(self, pool: Pool) -> None:
        self._pool = pool

    def stats(self) -> Stats:
        """A snapshot of the campaign now."""
        tally, arms, queue, costs = self._tally, self._arms, self._queue, self._costs
        failures, found, pool = self._confirmation, self._handled_findings, self._pool
        elapsed = max(1e-9, time.monotonic() - tally.start) if tally.start else 0.0
        return Stats(
            strategy=self._options.strategy.value,
            seed=self._options.seed,
            execs=tally.execs,
            valid_execs=tally.valid_execs,
            elapsed_s=round(elapsed, 3),
            execs_per_sec=round(tally.execs / elapsed, 2) if elapsed else 0.0,
            app_branches_total=arms.total,
            app_branches_covered=len(arms.seen),
            valid_branches_covered=len(arms.valid),
            corpus_branches_covered=len(arms.corpus | set(arms.imported)),
            corpus_size=len(queue),
            unique_failures=len(failures.bugs),
            failure_variants=failures.bugs.variants,
            failure_hits=failures.bugs.hits,
            failure_reruns=failures.reruns,
            flaky_failures=len(failures.flaky),
            flaky_hits=sum(r.hits for r in failures.flaky.values()),
            time_in_handler_s=round(tally.time_handler, 3),
            time_in_generation_s=round(tally.time_generate, 3),
            time_in_reset_load_s=round(tally.time_reset_load, 3),
            since_last_new_coverage_s=round(time.monotonic() - tally.last_new, 1)
            if tally.start
            else 0.0,
            stability_pct=self._stability.percent(),
            worker_restarts=pool.restarts if pool else 0,
            workers=self._options.workers,
            targeting={
                k: {"children": v.children, "saved": v.saved}
                for k, v in sorted(tally.targeting.items())
            },
            zero_mutations_skipped=tally.zero_mutations_skipped,
            cost_queue=len(costs.queue),
            cost_reruns=costs.reruns,
            cost_findings=len(costs.findings),
            cost_maxima=costs.feedback.maxima() if costs.feedback is not None else {},
            lost_tests=pool.lost if pool else 0,
            unique_handled=len(found.handled_bugs),
            handled_variants=found.handled_bugs.variants,
            handled_hits=found.handled_bugs.hits,
            redelivered=found.redelivered,
            findings={k.value: len(b) for k, b in found.finding_bugs.items() if len(b)},
            finding_hits={k.value: b.hits for k, b in found.finding_bugs.items() if len(b)},
            emulator_gaps=dict(tally.emulator_gaps),
            failing_parents=sum(1 for e in queue if e.failing),
            rejections=self._rejections.top(),
        )

    def plot_point(self) -> None:
        """A row of plot_data.csv for now (written with the next report)."""
        self._plot_rows.append(
            PlotRow(
                time_s=round(time.monotonic() - self._tally.start, 3),
                execs=self._tally.execs,
                branches=len(self._arms.seen),
                valid_branches=len(self._arms.valid),
                corpus=len(self._queue),
                failures=len(self._confirmation.bugs),
            )
        )

    def write(self, stats: Stats) -> None:
        """plot_data.csv and stats.json as of `stats`."""
        if not self._plot_rows or self._plot_rows[0].execs:
            # the origin: what importing the handler covered, before the first test
            self._plot_rows.insert(0, PlotRow(0.0, 0, len(self._arms.imported), 0, 0, 0))
        self._plot_rows.append(
            PlotRow(
                time_s=stats.elapsed_s,
                execs=stats.execs,
                branches=stats.app_branches_covered,
                valid_branches=stats.valid_branches_covered,
                corpus=stats.corpus_size,
                failures=stats.unique_failures,
            )
        )
        self._out.write_plot(self._plot_rows)
        self._out.write_stats(stats)

    def write_final(self, coverage: CoverageRecord) -> None:
        """At the campaign's end: every finding's file again (hit counts changed since
        each was first written), and coverage.json."""
        self._confirmation.save_all()
        self._handled_findings.save_all()
        self._costs.save_all()
        self._out.write_coverage(coverage)
