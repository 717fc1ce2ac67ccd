"""The real-world set's report, in markdown (issue 42).

Columns are strategy-seed pairs (`frontier-s1`, `zest-s2`, ...) in the order asked for.
Printed: each campaign (found/known, executions, executions/second, its exit); the
execution at which each known bug was first found (`-`: missed); found/known per bug class;
the totals per column with the percentage; executions/second per handler and strategy
(the mean over seeds); and the findings that match no known bug, with their judgement
(`real`, `artefact`, or UNJUDGED).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Protocol

from realworld_apps import Handler
from realworld_score import Score


class CampaignLike(Protocol):
    handler: str
    strategy: str
    seed: int
    exit_code: int | None
    error: str
    score: Score | None

    @property
    def column(self) -> str: ...


def _columns(campaigns: list[CampaignLike]) -> list[str]:
    return list(dict.fromkeys(c.column for c in campaigns))


def _pct(found: int, known: int) -> str:
    return f"{100 * found / known:.0f}%" if known else "-"


def _row(cells: list[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def totals(handlers: list[Handler], campaigns: list[CampaignLike]) -> dict[str, Any]:
    """Found / known per column, over the handlers that column ran."""
    out: dict[str, Any] = {}
    for column in _columns(campaigns):
        scores = [c.score for c in campaigns if c.column == column and c.score]
        found = sum(s.found() for s in scores)
        known = sum(len(s.bugs) for s in scores)
        out[column] = {
            "found": found,
            "known": known,
            "percent": round(100 * found / known, 1) if known else None,
            "unmatched": sum(len(s.unmatched()) for s in scores),
        }
    return out


def _campaign_table(handlers: list[Handler], campaigns: list[CampaignLike]) -> None:
    trigger = {h.id: h.trigger for h in handlers}
    print("## Campaigns\n")
    print(
        _row(
            [
                "handler",
                "trigger",
                "strategy",
                "seed",
                "found/known",
                "execs",
                "exec/s",
                "elapsed s",
                "exit",
            ]
        )
    )
    print("| :-- | :-- | :-- | --: | --: | --: | --: | --: | :-- |")
    for c in campaigns:
        s = c.score
        stats = s.stats if s else {}
        exit_text = c.error or ("-" if c.exit_code is None else str(c.exit_code))
        print(
            _row(
                [
                    c.handler,
                    trigger.get(c.handler, ""),
                    c.strategy,
                    c.seed,
                    f"{s.found() if s else 0}/{len(s.bugs) if s else 0}",
                    stats.get("execs", "-"),
                    stats.get("execs_per_sec", "-"),
                    stats.get("elapsed_s", "-"),
                    exit_text,
                ]
            )
        )


def _first_find_table(handlers: list[Handler], campaigns: list[CampaignLike]) -> None:
    columns = _columns(campaigns)
    cell: dict[tuple[str, str], str] = {}
    for c in campaigns:
        for b in c.score.bugs if c.score else []:
            cell[(b.bug, c.column)] = str(b.first_exec) if b.found else "-"
    print("\n## Executions to first find\n")
    print(_row(["bug", "class", "kind", *columns]))
    print("| :-- | :-- | :-- |" + " --: |" * len(columns))
    for h in handlers:
        for bug in h.bugs:
            cells = [cell.get((bug.id, col), "") for col in columns]
            print(_row([bug.id, bug.bug_class, bug.kind, *cells]))


def _class_table(handlers: list[Handler], campaigns: list[CampaignLike]) -> None:
    columns = _columns(campaigns)
    found: dict[tuple[str, str], int] = defaultdict(int)
    known: dict[tuple[str, str], int] = defaultdict(int)
    for c in campaigns:
        for b in c.score.bugs if c.score else []:
            known[(b.bug_class, c.column)] += 1
            found[(b.bug_class, c.column)] += b.found
    classes = sorted({b.bug_class for h in handlers for b in h.bugs})
    print("\n## Found / known per class\n")
    print(_row(["class", *columns]))
    print("| :-- |" + " --: |" * len(columns))
    for name in classes:
        cells = [
            f"{found[(name, col)]}/{known[(name, col)]}" if known[(name, col)] else ""
            for col in columns
        ]
        print(_row([name, *cells]))


def _totals_table(handlers: list[Handler], campaigns: list[CampaignLike]) -> None:
    print("\n## Totals\n")
    print(_row(["strategy-seed", "found/known", "%", "failed campaigns", "unmatched findings"]))
    print("| :-- | --: | --: | --: | --: |")
    for column, t in totals(handlers, campaigns).items():
        failed = sum(  # a campaign scored from disk (`--no-run`) has no exit code
            1
            for c in campaigns
            if c.column == column and (c.error or c.exit_code not in (0, 1, None))
        )
        print(
            _row(
                [
                    column,
                    f"{t['found']}/{t['known']}",
                    _pct(t["found"], t["known"]),
                    failed,
                    t["unmatched"],
                ]
            )
        )


def _speed_table(handlers: list[Handler], campaigns: list[CampaignLike]) -> None:
    strategies = list(dict.fromkeys(c.strategy for c in campaigns))
    speeds: dict[tuple[str, str], list[float]] = defaultdict(list)
    for c in campaigns:
        value = (c.score.stats if c.score else {}).get("execs_per_sec")
        if isinstance(value, (int, float)):
            speeds[(c.handler, c.strategy)].append(float(value))
    print("\n## Executions per second (mean over seeds)\n")
    print(_row(["handler", *strategies]))
    print("| :-- |" + " --: |" * len(strategies))
    for h in handlers:
        cells = []
        for strategy in strategies:
            values = speeds.get((h.id, strategy))
            cells.append(f"{sum(values) / len(values):.1f}" if values else "-")
        print(_row([h.id, *cells]))


def _unmatched(campaigns: list[CampaignLike]) -> None:
    seen: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    info: dict[tuple[str, str, str], Any] = {}
    for c in campaigns:
        for f in c.score.unmatched() if c.score else []:
            key = (c.handler, f.kind, f.key)
            seen[key].append(f"{c.column}@{f.first_exec}")
            info[key] = f
    if not seen:
        print("\nNo findings outside the known bugs.")
        return
    print("\n## Findings matching no known bug\n")
    for key in sorted(seen, key=lambda k: (info[k].verdict != "UNJUDGED", k)):
        handler, kind, bug_key = key
        f = info[key]
        label = f.verdict + (f" [{f.judged_bug}]" if f.judged_bug else "")
        print(f"- {label} {handler} ({kind}): `{bug_key}` in {', '.join(seen[key])}")
        if f.evidence:
            print(f"  {f.evidence}")


def print_report(handlers: list[Handler], campaigns: list[CampaignLike]) -> None:
    _campaign_table(handlers, campaigns)
    _first_find_table(handlers, campaigns)
    _class_table(handlers, campaigns)
    _totals_table(handlers, campaigns)
    _speed_table(handlers, campaigns)
    _unmatched(campaigns)
