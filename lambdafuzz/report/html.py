"""`report.html`: one self-contained page about a campaign, readable offline and in CI
artifacts (no external URL is loaded; the plot is an inline PNG, or SVG without matplotlib).

Sections: summary, coverage over time, per-type targeting statistics (spoton), failures,
handled exceptions (raised and caught by the application),
(where, traceback, what the handler printed and logged, world, event, minimized reproducer)
and the application source with every branch arm marked covered or not.  Every piece of
campaign data is escaped: worlds, events and logs are fuzzer-made strings and routinely
contain markup.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lambdafuzz import __version__
from lambdafuzz.config.campaign import campaign_target, reproduce_command
from lambdafuzz.fuzzer.out_dir import (
    REPORT_FILE,
    CampaignDir,
    CoveredArm,
    FailureEntry,
    PlotRow,
    read_campaign_dir,
    read_coverage,
    read_plot_rows,
)
from lambdafuzz.fuzzer.replay import Replayer
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.model.target import Target
from lambdafuzz.report.html_style import CSS

if TYPE_CHECKING:
    from lambdafuzz.harness.measure.arm_catalog import ArmKey, ArmSite, FileArms
    from lambdafuzz.model.outcome import FailureInfo

REPORT_NAME = REPORT_FILE
#: Source files above this size are listed but not rendered (a vendored blob in scope).
MAX_SOURCE_BYTES = 400_000


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, default=repr)


# =========================================================================== plot
def plot_png(rows: Sequence[PlotRow]) -> bytes:
    """Branches and valid branches over time and over executions, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 3.4), dpi=100)
    for i, (axis, label) in enumerate((("time_s", "seconds"), ("execs", "executions"))):
        ax = fig.add_subplot(1, 2, i + 1)
        xs = [getattr(r, axis) for r in rows]
        ax.step(xs, [r.branches for r in rows], where="post", label="branches", color="#1f6feb")
        ax.step(
            xs,
            [r.valid_branches for r in rows],
            where="post",
            label="valid branches",
            color="#2da44e",
            linestyle="--",
        )
        ax.set_xlabel(label)
        ax.set_ylabel("branch arms covered")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least `top` (1, 2 or 5 times a power of ten apart, at
    least 1: the plotted quantities are counts)."""
    top = max(top, 1.0)
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = max(1.0, next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw))
    return [i * step for i in range(math.ceil(top / step) + 1)]


def plot_svg(rows: Sequence[PlotRow]) -> str:
    """Coverage over executions drawn by hand, with real axes: for installs without
    matplotlib.  Steps, like the PNG: coverage only changes when an input adds to it."""
    width, height, left, right, top_pad, bottom = 660, 260, 56, 16, 16, 44
    xs = nice_ticks(max([r.execs for r in rows] + [1]))
    ys = nice_ticks(max([r.branches for r in rows] + [1]))
    x_max, y_max = xs[-1], ys[-1]

    def px(x: float) -> float:
        return left + x / x_max * (width - left - right)

    def py(y: float) -> float:
        return height - bottom - y / y_max * (height - top_pad - bottom)

    def steps(values: list[tuple[int, int]], color: str, dash: str = "") -> str:
        points, last = [], None
        for x, y in values:
            if last is not None:
                points.append(f"{px(x):.1f},{py(last):.1f}")
            points.append(f"{px(x):.1f},{py(y):.1f}")
            last = y
        style = f' stroke-dasharray="{dash}"' if dash else ""
        return (
            f'<polyline fill="none" stroke="{color}" stroke-width="2"{style} '
            f'points="{" ".join(points)}"/>'
        )

    grid = []
    for x in xs:
        grid.append(
            f'<line x1="{px(x):.1f}" y1="{py(0):.1f}" x2="{px(x):.1f}" y2="{py(0) + 4:.1f}" '
            f'stroke="black"/><text x="{px(x):.1f}" y="{py(0) + 16:.1f}" '
            f'text-anchor="middle" font-size="11">{x:g}</text>'
        )
    for y in ys:
        grid.append(
            f'<line x1="{left}" y1="{py(y):.1f}" x2="{width - right}" y2="{py(y):.1f}" '
            f'stroke="#d0d7de"/><text x="{left - 6}" y="{py(y) + 4:.1f}" text-anchor="end" '
            f'font-size="11">{y:g}</text>'
        )
    ordered = sorted(rows, key=lambda r: r.execs)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif">'
        f'<rect width="100%" height="100%" fill="white"/>'
        + "".join(grid)
        + f'<line x1="{left}" y1="{py(0):.1f}" x2="{width - right}" y2="{py(0):.1f}" stroke="black"/>'
        f'<line x1="{left}" y1="{top_pad}" x2="{left}" y2="{py(0):.1f}" stroke="black"/>'
        + steps([(r.execs, r.branches) for r in ordered], "#1f6feb")
        + steps([(r.execs, r.valid_branches) for r in ordered], "#2da44e", "6 4")
        + f'<text x="{(left + width - right) / 2}" y="{height - 6}" text-anchor="middle" '
        f'font-size="12">executions</text>'
        f'<text x="14" y="{(top_pad + py(0)) / 2:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {(top_pad + py(0)) / 2:.1f})">branch arms covered</text>'
        "</svg>"
    )


def _plot_section(rows: Sequence[PlotRow]) -> str:
    if not rows:
        return (
            "<p class='note'>No plot_data.csv rows: the campaign ended before its first report.</p>"
        )
    try:
        src = "data:image/png;base64," + base64.b64encode(plot_png(rows)).decode()
    except ImportError:
        src = "data:image/svg+xml;base64," + base64.b64encode(plot_svg(rows).encode()).decode()
    return (
        f'<img id="coverage-plot" src="{src}" alt="branch coverage over time and executions">'
        "<p class='note'>Blue: branch arms covered by any input; green: by valid inputs.</p>"
    )


# =========================================================================== sections
def _summary_section(c: CampaignDir, target: Target | None) -> str:
    s = _stats(c)
    total, covered = s.app_branches_total, s.app_branches_covered
    pct = f" ({100.0 * covered / total:.1f}%)" if total else ""
    meta = c.meta
    rows = [
        ("handler", c.handler),
        ("config", meta.config_shown(c.path) if meta is not None else "?"),
        ("strategy", f"{s.strategy or (meta.strategy if meta else '?')} (seed {s.seed})"),
        ("executions", f"{s.execs} in {s.elapsed_s} s ({s.execs_per_sec}/s)"),
        ("valid executions", s.valid_execs),
        (
            "branch arms covered",
            f"{covered}/{total}{pct}; by valid inputs {s.valid_branches_covered}",
        ),
        (
            "corpus",
            f"{s.corpus_size}"
            + (f" ({s.failing_parents} failing, kept as parents)" if s.failing_parents else ""),
        ),
        ("failures", f"{_bug_count(c.failures)} ({s.failure_hits} hits)"),
        (
            "handled exceptions",
            f"{_bug_count(c.handled)} raised and caught by the application "
            f"({s.handled_hits} hits; "
            "saved in handled/, warnings)",
        ),
        (
            "flaky",
            f"{s.flaky_failures} signatures that did not reproduce on a re-run in a fresh "
            f"worker ({s.flaky_hits} hits; saved in flaky/, not counted as failures)",
        ),
        (
            "time",
            f"handler {s.time_in_handler_s} s, generation {s.time_in_generation_s} s, "
            f"reset+load {s.time_in_reset_load_s} s",
        ),
        ("stability", "-" if s.stability_pct is None else f"{s.stability_pct}%"),
        ("workers", f"{s.workers or 1} (restarts {s.worker_restarts})"),
    ]
    if target is not None:
        rows.append(("trigger", f"{target.trigger.kind} {target.trigger.source or ''}".strip()))
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    problems = "".join(f"<li>{esc(p)}</li>" for p in c.problems)
    return f"<table class='summary'>{body}</table>" + (
        f"<ul class='problems'>{problems}</ul>" if problems else ""
    )


def _bug_count(entries: tuple[FailureEntry, ...]) -> str:
    """ "9 bugs, 23 variants"."""
    variants = sum(max(1, len(e.variants)) for e in entries)
    text = f"{len(entries)} bug{'' if len(entries) == 1 else 's'}"
    return f"{text}, {variants} variants" if variants > len(entries) else text


def _variants(c: CampaignDir, entry: FailureEntry) -> str:
    """A bug's variants, folded: each signature with its hits, first execution and how to
    replay its smallest input."""
    if len(entry.variants) < 2:
        return ""
    primary = entry.record.signature
    rows = []
    for v in entry.variants:
        command = reproduce_command(c, entry.path) + f" --variant {v.name}"
        mark = " (replayed by default: the smallest input)" if v.signature == primary else ""
        rows.append(
            f"<tr><td>{esc(v.name)}</td><td><code>{esc(v.signature)}</code>{esc(mark)}</td>"
            f"<td>{esc(v.record.hits)}</td><td>{esc(v.record.first_exec)}</td>"
            f"<td><code>{esc(command)}</code></td></tr>"
        )
    table = (
        "<table class='variants'><tr><th>variant</th><th>signature</th><th>hits</th>"
        f"<th>first execution</th><th>replay</th></tr>{''.join(rows)}</table>"
    )
    return _details(f"{len(entry.variants)} variants of this bug", table)


def _stats(c: CampaignDir) -> Stats:
    """stats.json, or zeros for a campaign that never wrote one."""
    return c.stats if c.stats is not None else Stats.from_json({})


def _targeting_section(c: CampaignDir) -> str:
    targeting = _stats(c).targeting
    if not targeting:
        return (
            f"<p class='note'>No type-targeted mutation in this campaign "
            f"(strategy {esc(_stats(c).strategy or '?')}; only spoton targets types).</p>"
        )
    rows = []
    for label, counts in sorted(targeting.items(), key=lambda kv: -kv[1].get("children", 0)):
        children = int(counts.get("children", 0))
        saved = int(counts.get("saved", 0))
        rate = f"{100.0 * saved / children:.1f}%" if children else "-"
        rows.append(
            f"<tr><td><code>{esc(label)}</code></td><td>{children}</td><td>{saved}</td><td>{rate}</td></tr>"
        )
    return (
        "<table class='targeting'><tr><th>type</th><th>targeted children</th><th>saved</th>"
        f"<th>saved per child</th></tr>{''.join(rows)}</table>"
    )


def _details(title: str, body: str, *, open_: bool = False, css: str = "") -> str:
    attrs = " open" if open_ else ""
    return f"<details class='{css}'{attrs}><summary>{esc(title)}</summary>{body}</details>"


def _failure_section(c: CampaignDir, target: Target | None) -> str:
    if not c.failures:
        return "<p class='note ok'>No failures.</p>"
    parts = []
    for i, entry in enumerate(c.failures):
        parts.append(_one_failure(c, i, entry, target))
    return "".join(parts)


def _handled_section(c: CampaignDir, target: Target | None) -> str:
    """Exceptions the application raised and caught itself (`handled/`)."""
    if not c.handled:
        return "<p class='note ok'>No exception raised and caught by the application.</p>"
    return "".join(_one_failure(c, i, e, target, kind="handled") for i, e in enumerate(c.handled))


def _findings(
    c: CampaignDir, kind: str, found: tuple[FailureEntry, ...], target: Target | None
) -> str:
    """A deployment oracle's findings (`permissions/`, ...), each with its evidence."""
    return "".join(_one_failure(c, i, e, target, kind=kind) for i, e in enumerate(found))


def _one_failure(
    c: CampaignDir, i: int, entry: FailureEntry, target: Target | None, *, kind: str = "failure"
) -> str:
    record = entry.record
    event, origin = (
        Replayer.for_campaign(target, c.meta).offline_event(entry.saved)
        if target is not None
        else (entry.saved.event, "saved")
    )
    event_note = {
        "saved": "",
        "regenerated": " (regenerated from the choice sequence without an emulator: "
        "receipt handles and message ids are placeholders)",
    }.get(origin, f" ({origin})")
    meta = (
        f"<p>{esc(entry.hits)} hit(s); first at execution {esc(record.first_exec)} "
        f"({esc(round(record.first_time_s, 3))} s); status {esc(record.status)}; "
        f"provenance <code>{esc(entry.saved.provenance)}</code></p>"
        f"<p>Reproduce: <code>{esc(reproduce_command(c, entry.path))}</code></p>"
    )
    if record.world_inconsistency:
        meta += f"<p class='note'>{esc(record.world_inconsistency)}</p>"
    if record.evidence:
        meta += f"<h4>Evidence</h4><pre>{esc(record.evidence)}</pre>"
    if record.caught_at:
        meta += (
            f"<p>Caught by the application at <code>{esc(record.caught_at)}</code> "
            f"(raised in {esc(record.raised_in or 'application')} code); the test's outcome "
            f"stays {esc(record.status)}.</p>"
        )
    body = (
        meta
        + _variants(c, entry)
        + _where(record.info)
        + f"<h4>Traceback</h4><pre class='traceback'>{esc(entry.traceback or entry.message)}</pre>"
    )
    body += _log(entry.saved.log)
    body += _details(
        "World that triggers it", f"<pre>{esc(_pretty(entry.saved.world))}</pre>", open_=True
    )
    body += _details(f"Event{event_note}", f"<pre>{esc(_pretty(event))}</pre>", open_=True)
    if entry.minimized is not None:
        body += _minimized(entry.minimized)
    elif kind == "failure":
        body += (
            f"<p class='note'>No minimized reproducer yet: "
            f"<code>{esc(reproduce_command(c, entry.path, 'minimize'))}</code> writes one.</p>"
        )
    title = f"{entry.title}: {entry.message}"[:300]
    return f"<section class='failure' id='{kind}-{i}'><h3>{esc(title)}</h3>{body}</section>"


def _cost_section(c: CampaignDir, target: Target | None) -> str:
    """The cost maxima, then the worst input past each budget: its numbers, the world and
    the event that cause them."""
    from lambdafuzz.model.cost import Measure

    stats = c.stats
    parts = []
    if stats is not None and stats.cost_maxima:
        rows = []
        for name, value in stats.cost_maxima.items():
            try:
                shown = Measure(name).show(value)
            except ValueError:
                continue
            rows.append(f"<tr><td>{esc(name)}</td><td>{esc(shown)}</td></tr>")
        parts.append(
            f"<p>Campaign maxima (cost queue: {esc(stats.cost_queue)} inputs)</p>"
            f"<table class='summary'>{''.join(rows)}</table>"
        )
    if not c.cost:
        parts.append("<p class='note ok'>No input went past a cost budget.</p>")
    for i, entry in enumerate(c.cost):
        finding = entry.finding
        samples = ", ".join(finding.measure.show(v) for v in finding.samples)
        body = (
            f"<p>{esc(finding.measures.describe())}</p>"
            f"<p>Runs: {esc(samples)}; {esc(finding.hits)} input(s) past the budget; first "
            f"at execution {esc(finding.first_exec)}; provenance "
            f"<code>{esc(entry.saved.provenance)}</code></p>"
            f"<p>Reproduce: <code>{esc(reproduce_command(c, entry.path))}</code></p>"
        )
        body += _details(
            "World that causes it", f"<pre>{esc(_pretty(entry.saved.world))}</pre>", open_=True
        )
        body += _details("Event", f"<pre>{esc(_pretty(entry.saved.event))}</pre>", open_=True)
        parts.append(
            f"<section class='failure' id='cost-{i}'><h3>{esc(finding.headline())}</h3>"
            f"{body}</section>"
        )
    return "".join(parts)


def _where(info: FailureInfo) -> str:
    """Where it failed; an application frame links to its line in the source section."""
    where = info.where
    if info.in_app:
        file, _, line = where.rpartition(":")
        return f"<p>Where: <a href='#{esc(file)}-L{esc(line)}'><code>{esc(where)}</code></a></p>"
    return f"<p>Where: <code>{esc(where)}</code></p>"


def _log(log: str) -> str:
    """What the handler printed and logged in the saved run (its last 64 KB)."""
    title = "Log (stdout, stderr and log records of the saved run)"
    if not log:
        return _details(title, "<p class='note'>No output recorded for the saved run.</p>")
    return _details(title, f"<pre class='log'>{esc(log)}</pre>", open_=True, css="log")


def _minimized(path: Path) -> str:
    from lambdafuzz.errors import CorpusError
    from lambdafuzz.fuzzer.corpus import load_input

    try:
        saved = load_input(path)
    except CorpusError as exc:
        return f"<p class='note'>Minimized reproducer unreadable: {esc(exc)}</p>"
    body = (
        f"<p><code>{esc(path.name)}</code>: {len(saved.sequence.values())} choices "
        f"({esc(saved.provenance)})</p>"
        f"<pre>{esc(_pretty(saved.world))}</pre>"
    )
    if saved.event is not None:
        body += f"<h4>Event</h4><pre>{esc(_pretty(saved.event))}</pre>"
    return f"<div class='minimized'>{_details('Minimized reproducer', body, open_=True)}</div>"


# =========================================================================== source
def _crash_lines(c: CampaignDir) -> dict[tuple[str, int], list[tuple[int, str]]]:
    """(file key, line) -> [(failure index, signature)]: where saved failures raised."""
    found: dict[tuple[str, int], list[tuple[int, str]]] = defaultdict(list)
    for i, entry in enumerate(c.failures):
        file, sep, line = entry.location.rpartition(":")
        if sep and line.isdigit():
            found[(file, int(line))].append((i, entry.signature))
    return found


def _highlighted(lines: list[str]) -> list[str]:
    """Each source line as highlighted HTML (pygments), escaped plain text without it."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return [esc(text) for text in lines]
    # nowrap: bare spans; pygments closes and reopens them at every newline, so the
    # output splits into lines exactly like the source
    html_text = highlight("\n".join(lines) + "\n", PythonLexer(), HtmlFormatter(nowrap=True))
    out = html_text.split("\n")
    return out[: len(lines)] if len(out) >= len(lines) else [esc(text) for text in lines]


def _pygments_css() -> str:
    """The token colours of the highlighted source (none without pygments)."""
    try:
        from pygments.formatters import HtmlFormatter
    except ImportError:
        return ""
    return HtmlFormatter(style="default").get_style_defs("td.code pre")


def _source_section(c: CampaignDir, out_dir: Path, target: Target | None) -> str:
    if target is None:
        return "<p class='note'>Source unavailable: the campaign's config could not be loaded.</p>"
    from lambdafuzz.harness.measure.arm_catalog import ArmKey, Scope, scan_arms
    from lambdafuzz.model.target import app_dirs

    # coverage.json lists only the covered arms; the page marks the uncovered ones too, with
    # their lines and kinds, so it scans the catalog (once per report)
    catalog = scan_arms(Scope.of(app_dirs(target)))
    coverage = read_coverage(out_dir)
    covered: dict[ArmKey, CoveredArm] = {}
    for arm in coverage.covered:
        try:
            covered[ArmKey(*arm.arm)] = arm
        except TypeError:
            continue
    parts = [
        "<p class='legend'><span class='line full'>all arms covered</span> "
        "<span class='line partial'>some arms covered</span> "
        "<span class='line none'>no arm covered</span> "
        "<span class='arm arm-covered'>arm covered</span> "
        "<span class='arm arm-uncovered'>arm not covered</span> "
        "<span class='crash-mark'>&#9888;</span> a saved failure raises here "
        "(hover an arm for from_line &rarr; to_line)</p>"
    ]
    crashes = _crash_lines(c)
    for file_arms in catalog.files:
        parts.append(_source_file(file_arms, covered, crashes))
    if not catalog.files:
        parts.append("<p class='note'>No application source files in scope.</p>")
    return "".join(parts)


def _arm_label(site: ArmSite) -> str:
    to = "exit" if site.to_line < 0 else str(site.to_line)
    return f"{site.from_line}&rarr;{to}"


def _source_file(
    file_arms: FileArms,
    covered: dict[ArmKey, CoveredArm],
    crashes: dict[tuple[str, int], list[tuple[int, str]]],
) -> str:
    path = Path(file_arms.path)
    by_line: dict[int, list[Any]] = defaultdict(list)
    for site in file_arms.sites:
        by_line[site.from_line].append(site)
    hit = sum(1 for s in file_arms.sites if s.arm in covered)
    header = f"{esc(file_arms.key)} &mdash; {hit}/{len(file_arms.sites)} arms covered"
    if file_arms.error:
        return f"<h3>{header}</h3><p class='note'>{esc(file_arms.error)}</p>"
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return f"<h3>{header}</h3><p class='note'>Not rendered: larger than {MAX_SOURCE_BYTES} bytes.</p>"
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        return f"<h3>{header}</h3><p class='note'>Unreadable: {esc(exc)}</p>"
    rows = []
    for number, code in enumerate(_highlighted(lines), 1):
        sites = by_line.get(number, [])
        css, markers = "", ""
        raised = crashes.get((file_arms.key, number), [])
        if raised:
            markers += "".join(
                f"<a class='crash-mark' href='#failure-{i}' title='{esc(signature)}'>&#9888;</a>"
                for i, signature in raised
            )
        if sites:
            done = sum(1 for s in sites if s.arm in covered)
            css = "full" if done == len(sites) else "partial" if done else "none"
            markers += "".join(
                _marker(s, covered.get(s.arm)) for s in sorted(sites, key=lambda s: s.to_line)
            )
        if raised:
            css += " crash"
        rows.append(
            f"<tr class='line {css}' id='{esc(file_arms.key)}-L{number}'><td class='no'>{number}</td>"
            f"<td class='arms'>{markers}</td><td class='code'><pre>{code or ' '}</pre></td></tr>"
        )
    return f"<h3>{header}</h3><table class='source'>{''.join(rows)}</table>"


def _marker(site: ArmSite, hit: CoveredArm | None) -> str:
    if hit is None:
        title = f"line {_plain_label(site)}: never taken ({site.kind})"
        return f"<span class='arm arm-uncovered' title='{esc(title)}'>{_arm_label(site)}</span>"
    valid = "valid input" if hit.valid else "only invalid/failing inputs"
    title = (
        f"line {_plain_label(site)}: covered ({site.kind}); first at execution "
        f"{hit.first_exec} ({round(hit.first_s, 3)} s); {valid}"
    )
    return f"<span class='arm arm-covered' title='{esc(title)}'>{_arm_label(site)}</span>"


def _plain_label(site: ArmSite) -> str:
    return f"{site.from_line} -> {'exit' if site.to_line < 0 else site.to_line}"


# =========================================================================== page
def render_report(out_dir: Path | str, target: Target | None = None) -> str:
    """The report page of the campaign in `out_dir` as one HTML string."""
    out = Path(out_dir)
    c = read_campaign_dir(out)
    load_problem = ""
    if target is None:
        try:
            target = campaign_target(c)
        except Exception as exc:  # noqa: BLE001 - the rest of the report is still worth having
            load_problem = (
                f"<p class='note'>Config not loaded ({esc(exc)}); source and events omitted.</p>"
            )
    sections = [
        ("summary", "Summary", load_problem + _summary_section(c, target)),
        ("coverage", "Coverage over time", _plot_section(read_plot_rows(out))),
        ("targeting", "Targeting per type", _targeting_section(c)),
        ("failures", f"Failures ({len(c.failures)})", _failure_section(c, target)),
        ("handled", f"Handled exceptions ({len(c.handled)})", _handled_section(c, target)),
        ("cost", f"Cost findings ({len(c.cost)})", _cost_section(c, target)),
        *(
            (
                kind.value,
                f"{kind.title.capitalize()}s ({len(found)})",
                _findings(c, kind.value, found, target),
            )
            for kind, found in c.findings
        ),
        ("source", "Application source and branch arms", _source_section(c, out, target)),
    ]
    nav = " | ".join(f"<a href='#{key}'>{esc(title)}</a>" for key, title, _ in sections)
    body = "".join(
        f"<section id='{key}'><h2>{esc(title)}</h2>{content}</section>"
        for key, title, content in sections
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>lambdafuzz report: {esc(c.handler)}</title><style>{CSS}{_pygments_css()}</style></head>"
        f"<body><header><h1>lambdafuzz report: {esc(c.handler)}</h1><nav>{nav}</nav></header>"
        f"{body}<footer>lambdafuzz {esc(__version__)} &middot; {esc(out.resolve())}</footer></body></html>\n"
    )


def write_report(
    out_dir: Path | str, path: Path | str | None = None, target: Target | None = None
) -> Path:
    """Write `report.html` (into `out_dir` unless `path` is given); returns its path."""
    from lambdafuzz.atomic_files import write_text_atomic

    destination = Path(path) if path is not None else Path(out_dir) / REPORT_NAME
    write_text_atomic(destination, render_report(out_dir, target))
    os.chmod(destination, 0o644)  # a page to share (mkstemp creates 0600)
    return destination
