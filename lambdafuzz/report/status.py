"""Showing a campaign's progress: a live rich panel on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TextIO

from lambdafuzz.fuzzer.events import (
    CampaignFinished,
    CampaignStarted,
    EventT,
    NewCostFinding,
    NewCoverage,
    NewFailure,
    NewFinding,
    NewHandled,
    Notice,
    Progress,
)
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.target import Target
from lambdafuzz.report.rejections import low_valid_flag, low_valid_warning, valid_share

PLAIN_INTERVAL_S = 5.0
#: Notices that go to stderr, even with --quiet (which shows errors and the summary only):
#: a skipped saved file, a config that changed under a resumed campaign, a lock taken over
#: from a killed one say the out dir is not what it was, and must not go unseen.
STDERR_NOTICES = frozenset({"corpus-corrupt", "config-changed", "lock-taken-over", "batch-ignored"})
#: Notices that are news, not warnings: shown as they are (not with --quiet).
INFO_NOTICES = frozenset({"resumed"})


def _coverage(stats: Stats) -> str:
    total = stats.app_branches_total
    pct = f" ({100.0 * stats.app_branches_covered / total:.1f}%)" if total else ""
    return f"{stats.app_branches_covered}/{total}{pct}"


def status_line(stats: Stats) -> str:
    handled = f"  handled {stats.unique_handled}" if stats.unique_handled else ""
    handled += "".join(f"  {kind} {n}" for kind, n in stats.findings.items())
    line = (
        f"[{stats.elapsed_s:7.1f}s] execs {stats.execs} ({stats.execs_per_sec:.0f}/s)  "
        f"branches {_coverage(stats)}  valid {valid_share(stats)}  corpus {stats.corpus_size}  "
        f"failures {stats.unique_failures}{handled}  "
        f"last new {stats.since_last_new_coverage_s:.0f}s ago"
    )
    return line  # the low-valid warning is said once, in the summary


def bugs_and_variants(bugs: int, variants: int) -> str:
    """ "9 bugs, 23 variants": a bug is one file in failures/, its variants the message
    shapes and types it was seen with (`fuzzer.bugs`)."""
    text = f"{bugs} bug{'' if bugs == 1 else 's'}"
    if variants > bugs:
        text += f", {variants} variants"
    return text


def gap_lines(stats: Stats) -> list[str]:
    """Emulator gaps (`harness.blame`): tests the emulator or lambdafuzz could not serve."""
    if not stats.emulator_gaps:
        return []
    tests = sum(stats.emulator_gaps.values())
    kinds = "; ".join(f"{key} ({n})" for key, n in stats.emulator_gaps.items())
    return [f"  emulator gaps   {tests} tests counted invalid, not failures: {kinds}"]


def summary(
    finished: CampaignFinished,
    *,
    target: Target | None = None,
    function: str | None = None,
    warnings: bool = True,
) -> str:
    """The campaign's last words.  `target` and `function` (a template's) say where the
    low-valid warning's `outcomes` line goes; `warnings=False` (--quiet) leaves it out."""
    s = finished.stats
    lines = [
        f"lambdafuzz: {finished.stop_reason} after {s.execs} executions in {s.elapsed_s:.1f} s "
        f"({s.execs_per_sec:.0f}/s, {s.workers} worker{'s' if s.workers != 1 else ''})",
        f"  strategy        {s.strategy} (seed {s.seed})",
        f"  branches        {_coverage(s)}; among valid inputs {s.valid_branches_covered}",
        f"  valid inputs    {valid_share(s)}",
        f"  corpus          {s.corpus_size} inputs"
        + (
            f" ({s.failing_parents} failing, kept as parents: +failing)"
            if s.failing_parents
            else ""
        ),
        f"  failures        {bugs_and_variants(s.unique_failures, s.failure_variants)} "
        f"({s.failure_hits} hits)"
        + (
            f"; {s.flaky_failures} flaky (did not reproduce on a re-run, in flaky/)"
            if s.flaky_failures
            else ""
        ),
        *handled_lines(finished),
        *finding_lines(finished),
        *gap_lines(s),
        f"  time in handler {s.time_in_handler_s:.1f} s; generation {s.time_in_generation_s:.1f} s; "
        f"reset+load {s.time_in_reset_load_s:.1f} s",
    ]
    if s.zero_mutations_skipped:
        made = s.execs + s.zero_mutations_skipped
        lines.append(
            f"  zero mutations  {s.zero_mutations_skipped} children identical to their parent "
            f"skipped, not run ({100.0 * s.zero_mutations_skipped / made:.1f}% of the tests made)"
        )
    if s.lost_tests:
        lines.append(
            f"  lost tests      {s.lost_tests} (their Ray actor was lost twice; not run, "
            "not failures)"
        )
    if s.stability_pct is not None:
        lines.append(
            f"  stability       {s.stability_pct:.1f}% of re-runs (new-coverage inputs, "
            f"{s.failure_reruns} new failures) behaved identically"
        )
    if s.targeting:
        parts = ", ".join(f"{k}: {v['saved']}/{v['children']}" for k, v in s.targeting.items())
        lines.append(f"  targeting       saved/children per type: {parts}")
    lines += cost_lines(finished)
    if finished.isolation:
        lines.append(f"  isolation       {finished.isolation}")
    lines.append(
        f"  outputs         {finished.out_dir}/ (corpus/, failures/, handled/, cost/, "
        + "".join(f"{kind}/, " for kind in s.findings)
        + "stats.json, plot_data.csv)"
    )
    if warnings:
        lines += low_valid_warning(s, target, function)
    return "\n".join(lines)


def finding_lines(finished: CampaignFinished) -> list[str]:
    """The deployment oracles' findings: one line per kind, then each finding with where
    the call was made and its saved input; then the least-privilege report."""
    from lambdafuzz.fuzzer.least_privilege import report_lines
    from lambdafuzz.fuzzer.out_dir import OutDir

    s = finished.stats
    lines: list[str] = []
    campaign = OutDir(finished.out_dir)
    for kind in OracleKind:
        count = s.findings.get(kind.value, 0)
        if not count:
            continue
        hits = s.finding_hits.get(kind.value, 0)
        lines.append(
            f"  {kind.value:<15} {count} {kind.title}{'' if count == 1 else 's'} "
            f"({hits} tests; in {kind.value}/)"
        )
        found = campaign.iter_failures(finished.out_dir / kind.value)
        shown = [e for e in found if not isinstance(e, Exception)]
        for entry in shown[:MAX_HANDLED_SHOWN]:
            message = " ".join(entry.record.info.message.split())
            said = f"{message[:110]}{'…' if len(message) > 110 else ''}"
            lines.append(f"    {said} at {entry.record.info.where}  [{entry.path}]")
        if len(shown) > MAX_HANDLED_SHOWN:
            lines.append(f"    ... and {len(shown) - MAX_HANDLED_SHOWN} more in {kind.value}/")
    if s.redelivered and not s.findings.get(OracleKind.IDEMPOTENCY.value):
        lines.append(
            f"  idempotency     {s.redelivered} tests delivered twice; no second delivery "
            "changed the world again"
        )
    report = campaign.read_permissions([])
    if report is not None:
        lines += [
            f"  least privilege {line}" if not i else f"                  {line}"
            for i, line in enumerate(report_lines(report))
        ]
    return lines


#: Handled exceptions listed one by one in the summary; the rest are counted.
MAX_HANDLED_SHOWN = 10


def handled_lines(finished: CampaignFinished) -> list[str]:
    """Exceptions the application caught: how many, then each with where it was caught and
    its saved input (they do not change the exit status without --fail-on-handled)."""
    from lambdafuzz.fuzzer.out_dir import HANDLED_DIR, OutDir

    s = finished.stats
    if not s.unique_handled:
        return []
    lines = [
        f"  handled         {bugs_and_variants(s.unique_handled, s.handled_variants)} "
        f"caught by the application ({s.handled_hits} hits; warnings, in {HANDLED_DIR}/)"
    ]
    entries = [e for e in OutDir(finished.out_dir).iter_failures(finished.out_dir / HANDLED_DIR)]
    shown = [e for e in entries if not isinstance(e, Exception)]
    for entry in shown[:MAX_HANDLED_SHOWN]:
        record = entry.record
        message = " ".join(record.info.message.split())
        said = f" ({message[:80]}{'…' if len(message) > 80 else ''})" if message else ""
        lines.append(f"    {entry.title}{said}; caught at {record.caught_at}  [{entry.path}]")
    if len(shown) > MAX_HANDLED_SHOWN:
        lines.append(f"    ... and {len(shown) - MAX_HANDLED_SHOWN} more in {HANDLED_DIR}/")
    return lines


def cost_lines(finished: CampaignFinished) -> list[str]:
    """The cost objective's part of the summary: its maxima, then the worst input past
    each budget with its numbers and where it is saved."""
    from lambdafuzz.fuzzer.out_dir import OutDir
    from lambdafuzz.model.cost import Measure

    s = finished.stats
    if not s.cost_maxima and not s.cost_findings:
        return []
    shown = []
    for name, value in s.cost_maxima.items():
        try:
            shown.append(f"{name} {Measure(name).show(value)}")
        except ValueError:
            continue
    lines = [
        f"  cost            {s.cost_findings} finding{'s' if s.cost_findings != 1 else ''} "
        f"(cost queue {s.cost_queue}); maxima: " + ", ".join(shown)
    ]
    for entry in OutDir(finished.out_dir).iter_cost():
        if isinstance(entry, Exception):
            continue
        finding = entry.finding
        lines.append(f"    {finding.headline()}  [{entry.path}]")
        lines.append(f"      {finding.measures.describe()}")
    return lines


def follow(
    events: Iterable[EventT], *, quiet: bool = False, stream: TextIO | None = None
) -> Iterator[EventT]:
    """Pass events through while displaying them."""
    out = stream or sys.stdout
    if quiet:
        for event in events:
            if isinstance(event, Notice) and event.slug in STDERR_NOTICES:
                _warn(event)
            yield event
        return
    if out.isatty():
        yield from _follow_live(events, out)
    else:
        yield from _follow_plain(events, out)


def _follow_plain(events: Iterable[EventT], out: TextIO) -> Iterator[EventT]:
    last = 0.0
    for event in events:
        if isinstance(event, CampaignStarted):
            o = event.options
            print(
                f"lambdafuzz: fuzzing {o.target.handler_module}.{o.target.handler_function} "
                f"with {o.strategy.value}, seed {o.seed}, {o.workers} worker(s); "
                f"{event.app_branches_total} application branch arms",
                file=out,
                flush=True,
            )
            if event.isolation:
                print(f"  isolation: {event.isolation}", file=out, flush=True)
        elif isinstance(event, NewFailure):
            print(f"  new bug: {event.bug or event.record.signature}", file=out, flush=True)
            if event.bug and event.bug != event.record.signature:
                print(f"    first seen as: {event.record.signature}", file=out, flush=True)
            if event.record.world_inconsistency:
                print(f"    ({event.record.world_inconsistency})", file=out, flush=True)
        elif isinstance(event, NewCostFinding):
            print(f"  cost finding: {event.finding.headline()}", file=out, flush=True)
        elif isinstance(event, NewFinding):
            record = event.record
            print(
                f"  new {event.kind.title}: {record.info.message} (at {record.info.where})",
                file=out,
                flush=True,
            )
        elif isinstance(event, NewHandled):
            record = event.record
            print(
                f"  new handled exception: {event.bug or record.signature} "
                f"(caught at {record.caught_at})",
                file=out,
                flush=True,
            )
        elif isinstance(event, Notice) and event.slug in STDERR_NOTICES:
            _warn(event)
        elif isinstance(event, Notice) and event.slug in INFO_NOTICES:
            print(f"  {event.message}", file=out, flush=True)
        elif isinstance(event, Notice):
            print(f"  warning [{event.slug}]: {event.message}", file=out, flush=True)
        elif isinstance(event, Progress) and time.monotonic() - last >= PLAIN_INTERVAL_S:
            last = time.monotonic()
            print(status_line(event.stats), file=out, flush=True)
        yield event


def _follow_live(events: Iterable[EventT], out: TextIO) -> Iterator[EventT]:
    from rich.console import Console
    from rich.live import Live
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=out)
    recent: list[str] = []
    news: list[str] = []

    def render(stats: Stats | None, title: str) -> Table:
        table = Table(title=title, show_header=False, expand=False)
        table.add_column(style="bold")
        table.add_column()
        if stats is not None:
            table.add_row("elapsed", f"{stats.elapsed_s:.1f} s")
            table.add_row("executions", f"{stats.execs} ({stats.execs_per_sec:.0f}/s)")
            table.add_row("branches", _coverage(stats))
            table.add_row("valid inputs", valid_share(stats))
            table.add_row("corpus", str(stats.corpus_size))
            table.add_row(
                "failures", bugs_and_variants(stats.unique_failures, stats.failure_variants)
            )
            if stats.unique_handled:
                table.add_row("handled exceptions", str(stats.unique_handled))
            for kind, count in stats.findings.items():
                table.add_row(f"{kind} findings", str(count))
            warning = low_valid_flag(stats)
            if warning:
                table.add_row("[yellow]warning[/yellow]", escape(warning))
            table.add_row("last new coverage", f"{stats.since_last_new_coverage_s:.0f} s ago")
        if isolation:
            table.add_row("isolation", isolation)
        for line in news:  # what a resume loaded stays in view
            table.add_row("", line)
        for line in recent[-5:]:
            table.add_row("", line)
        return table

    title = "lambdafuzz"
    isolation = ""
    with Live(render(None, title), console=console, refresh_per_second=4, transient=False) as live:
        for event in events:
            if isinstance(event, CampaignStarted):
                o = event.options
                title = f"lambdafuzz: {o.target.handler_module}.{o.target.handler_function} [{o.strategy.value}]"
                isolation = event.isolation
            elif isinstance(event, NewFailure):
                inconsistent = " [world inconsistency]" if event.record.world_inconsistency else ""
                shown = escape(event.bug or event.record.signature)
                recent.append(f"[red]bug[/red] {shown}{inconsistent}")
            elif isinstance(event, NewCoverage):
                recent.append(f"{event.name} {event.provenance}")
            elif isinstance(event, NewCostFinding):
                recent.append(f"[magenta]cost[/magenta] {escape(event.finding.headline())}")
            elif isinstance(event, NewHandled):
                recent.append(f"[yellow]handled[/yellow] {escape(event.record.signature)}")
            elif isinstance(event, NewFinding):
                said = escape(event.record.info.message)
                recent.append(f"[red]{event.kind.value}[/red] {said}")
            elif isinstance(event, Notice) and event.slug in STDERR_NOTICES:
                _warn(event)  # Live shows stderr above the panel
            elif isinstance(event, Notice) and event.slug in INFO_NOTICES:
                news.append(escape(event.message))
            elif isinstance(event, Notice):
                recent.append(f"[yellow]{event.slug}[/yellow] {event.message}")
            if isinstance(event, Progress | CampaignFinished):
                live.update(render(event.stats, title))
            yield event


def _warn(notice: Notice) -> None:
    print(f"lambdafuzz: warning [{notice.slug}]: {notice.message}", file=sys.stderr, flush=True)
