"""`report.md`: the study's answers, rendered from results.json alone.

The first section answers the questions the study exists for, with numbers, whichever
way they come out: does spoton cover more application branches than zest (per lambda,
and as a geometric mean), is the difference significant, how often each strategy reached
the 2008 branch of year_thumbnails, and how many executions per second each lambda runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from benchmarks.study.tables import (
    SIGNIFICANCE,
    fmt_ci,
    fmt_num,
    fmt_p,
    fmt_pct,
    fmt_share,
    markdown_table,
)

CHALLENGER = "spoton"


def verdict(vs: Mapping[str, Any] | None, a: str, b: str) -> str:
    if not vs or vs.get("p_value") is None:
        return "no data"
    diff, p = vs["mean_diff"], vs["p_value"]
    if diff == 0:
        return "same mean"
    winner = a if diff > 0 else b
    return f"{winner} higher" + (", significant" if p < SIGNIFICANCE else ", not significant")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _strategies(results: Mapping[str, Any]) -> list[str]:
    seen: list[str] = []
    for cell in results["lambdas"].values():
        for s in cell["strategies"]:
            if s not in seen:
                seen.append(s)
    return seen


def headline(results: Mapping[str, Any], challenger: str) -> list[str]:
    base = results["baseline"]
    rows, higher, lower, same, significant = [], [], [], [], []
    for name, cell in results["lambdas"].items():
        vs = cell["vs_baseline"].get(challenger)
        if vs is None:
            continue
        strat = cell["strategies"]
        rows.append(
            [
                name,
                fmt_num(strat[base]["branches"]["mean"], 2),
                fmt_num(strat[challenger]["branches"]["mean"], 2),
                f"{vs['mean_diff']:+.2f}",
                fmt_num(strat[base]["branches"]["median"]),
                fmt_num(strat[challenger]["branches"]["median"]),
                fmt_p(vs["p_value"]),
                fmt_num(vs["a12"], 2),
                verdict(vs, challenger, base),
            ]
        )
        (higher if vs["mean_diff"] > 0 else lower if vs["mean_diff"] < 0 else same).append(name)
        if vs["p_value"] is not None and vs["p_value"] < SIGNIFICANCE:
            significant.append(name)
    if not rows:
        return [f"No lambda has runs of both `{challenger}` and `{base}`.", ""]
    geo = results["geometric_mean_vs_baseline"].get(challenger)
    geo_text = (
        f"geometric mean of the per-lambda mean ratios {challenger}/{base} = {geo['ratio']:.3f} "
        f"({fmt_pct(geo['percent'])}, over {_count(len(geo['lambdas']), 'lambda')})"
        if geo
        else "no geometric mean (no lambda with positive means for both)"
    )
    out = [
        f"**{challenger} vs {base}:** the mean application branch coverage of {challenger} is "
        f"higher on {len(higher)} of {_count(len(rows), 'lambda')}"
        + (f" ({', '.join(higher)})" if higher else "")
        + f", lower on {len(lower)}"
        + (f" ({', '.join(lower)})" if lower else "")
        + f", equal on {len(same)}; the difference is significant (two-sided Mann-Whitney U, "
        f"p < {SIGNIFICANCE}) on {len(significant)}"
        + (f" ({', '.join(significant)})" if significant else "")
        + f"; {geo_text}.",
        "",
        markdown_table(
            [
                "lambda",
                f"{base} mean",
                f"{challenger} mean",
                "diff",
                f"{base} median",
                f"{challenger} median",
                "p (MWU)",
                f"A12 ({challenger}>{base})",
                "verdict",
            ],
            rows,
            "lrrrrrrrl",
        ),
        "",
    ]
    return out


def key_arm_section(results: Mapping[str, Any]) -> list[str]:
    out = []
    for key in results["key_arms"]:
        where = (
            f"`{key['file']}:{key['line']}`" if key["line"] else f"`{key['file']}` (line not found)"
        )
        parts = [
            f"{s} {v['covered_reps']}/{v['reps']}"
            + (
                f" (median first at exec {fmt_num(v['median_first_exec'])})"
                if v["median_first_exec"] is not None
                else ""
            )
            for s, v in key["by_strategy"].items()
        ]
        out.append(
            f"**{key['lambda']}, branch {key['title']}** ({where}, the arm into the `if` body): "
            f"repetitions that covered it: {'; '.join(parts)}."
        )
        out.append("")
    return out


def throughput_section(results: Mapping[str, Any]) -> list[str]:
    strategies = _strategies(results)
    rows = []
    for name, cell in results["lambdas"].items():
        steady = cell.get("steady_execs_per_sec")
        row = [
            name,
            fmt_num(cell["execs_per_sec"]["median"], 1),
            fmt_num(steady["median"], 1) if steady else "–",
        ]
        row += [
            fmt_num(cell["strategies"][s]["execs_per_sec"]["median"], 1)
            if s in cell["strategies"]
            else "–"
            for s in strategies
        ]
        split = cell["strategies"].get(
            results["baseline"], next(iter(cell["strategies"].values()))
        )["time_split"]
        row += [f"{100 * split[k]:.0f}%" for k in ("generation", "reset_load", "handler", "other")]
        rows.append(row)
    headers = [
        "lambda",
        "execs/s (median, all runs)",
        "second half only",
        *[f"{s}" for s in strategies],
    ]
    headers += ["generation", "reset+load", "handler+coverage", "other"]
    return [
        "Executions per second per campaign (1 worker; medians over repetitions; 'second half "
        "only' leaves out the warm-up of the first tests, which dominates short campaigns; the "
        "per-strategy columns are whole-campaign rates), and where the wall time of the "
        f"`{results['baseline']}` campaigns went (mean shares; 'other' is IPC, the engine's "
        "bookkeeping, saving inputs and the stability re-runs of new inputs).",
        "",
        markdown_table(headers, rows),
        "",
    ]


def coverage_section(results: Mapping[str, Any]) -> list[str]:
    rows = []
    for name, cell in results["lambdas"].items():
        for s, sc in cell["strategies"].items():
            b = sc["branches"]
            rows.append(
                [
                    name,
                    s,
                    sc["reps"],
                    fmt_num(b["median"]),
                    fmt_num(b["mean"], 2),
                    fmt_ci(b["ci95"], 2),
                    f"{fmt_num(b['min'])}–{fmt_num(b['max'])}",
                    cell["branches_total"],
                    fmt_num(sc["valid_branches"]["mean"], 2),
                ]
            )
    return [
        markdown_table(
            [
                "lambda",
                "strategy",
                "reps",
                "median",
                "mean",
                "95% CI of mean",
                "min–max",
                "arms in app",
                "valid-input arms (mean)",
            ],
            rows,
            "llrrrrrrr",
        ),
        "",
    ]


def pairs_section(results: Mapping[str, Any]) -> list[str]:
    out = []
    by_pair: dict[str, list[list[Any]]] = {}
    for name, cell in results["lambdas"].items():
        for key, row in cell["pairs"].items():
            by_pair.setdefault(key, []).append(
                [
                    name,
                    fmt_num(row["common"], 2),
                    fmt_num(row["only_a"], 2),
                    fmt_num(row["only_b"], 2),
                    row["pairs"],
                    fmt_p(row["p_value"]),
                ]
            )
    if not by_pair:
        return ["No pair of spoton, zest-strings and zest ran on the same lambda.", ""]
    for key, rows in by_pair.items():
        a, _, b = key.partition(" vs ")
        out += [
            f"**{a} vs {b}** (branch arms, averaged over repetition pairs with the same seed; "
            "* = coverage difference significant at p < 0.05)",
            "",
            markdown_table(["benchmark", "common", f"+{a}", f"+{b}", "pairs", "p (MWU)"], rows),
            "",
        ]
    return out


def arm_timing_section(results: Mapping[str, Any]) -> list[str]:
    """Arms some repetition of some strategy missed: who found them, how reliably, how fast."""
    out = []
    for name, cell in results["lambdas"].items():
        strategies = list(cell["strategies"])
        table: dict[str, dict[str, Any]] = {}
        for s in strategies:
            for t in cell["strategies"][s]["arm_timings"]:
                table.setdefault(t["label"], {})[s] = t
        rows = []
        for label, per in sorted(table.items()):
            reps = {s: cell["strategies"][s]["reps"] for s in strategies}
            if all(s in per and per[s]["covered_reps"] == reps[s] for s in strategies):
                continue
            row = [label]
            for s in strategies:
                t = per.get(s)
                row.append(
                    f"0/{reps[s]}"
                    if t is None
                    else f"{t['covered_reps']}/{reps[s]} @ {fmt_num(t['median_exec'])} ex, {t['median_s']:.1f} s"
                )
            rows.append(row)
        if rows:
            out += [
                f"**{name}**",
                "",
                markdown_table(
                    ["arm (file:from->to)", *strategies], rows, "l" + "r" * len(strategies)
                ),
                "",
            ]
    if not out:
        return [
            "Every arm covered by any run was covered by every repetition of every strategy.",
            "",
        ]
    return [
        "Arms not covered by every repetition of every strategy: repetitions that covered the "
        "arm, then the median execution and second of the first cover (over those repetitions). "
        "All arms, including the ones every run covers, are in results.json (`arm_timings`).",
        "",
        *out,
    ]


def failures_section(results: Mapping[str, Any]) -> list[str]:
    out = []
    for name, cell in results["lambdas"].items():
        strategies = list(cell["strategies"])
        table: dict[str, dict[str, Any]] = {}
        for s in strategies:
            for f in cell["strategies"][s]["failures"]:
                table.setdefault(f["signature"], {})[s] = f
        if not table:
            continue
        rows = []
        for signature, per in sorted(table.items()):
            row = [signature]
            for s in strategies:
                f = per.get(s)
                reps = cell["strategies"][s]["reps"]
                row.append(
                    f"0/{reps}"
                    if f is None
                    else f"{fmt_share(f['found_reps'], reps)} @ {f['mean_first_exec']:.0f} ex"
                )
            rows.append(row)
        out += [
            f"**{name}**",
            "",
            markdown_table(["failure signature", *strategies], rows, "l" + "r" * len(strategies)),
            "",
        ]
    if not out:
        return ["No run found a failure.", ""]
    return [
        "Unique failures (exception type + innermost application frame): repetitions that found "
        "each, and the mean executions until first found (over those repetitions).",
        "",
        *out,
    ]


def targeting_section(results: Mapping[str, Any]) -> list[str]:
    rows = []
    for name, cell in results["lambdas"].items():
        sc = cell["strategies"].get(CHALLENGER)
        if not sc or not sc["targeting"]:
            continue
        parts = sorted(sc["targeting"].items(), key=lambda kv: -kv[1]["children"])
        text = "; ".join(f"{label} {c['saved']}/{c['children']}" for label, c in parts[:6])
        children = sum(c["children"] for _, c in parts)
        saved = sum(c["saved"] for _, c in parts)
        rows.append([name, children, saved, text])
    if not rows:
        return []
    return [
        "### Type-targeted mutation at work (spoton, summed over repetitions)",
        "",
        "Children made by targeted mutation, how many were saved (new coverage), per type "
        "label (saved/children, the six most used types).",
        "",
        markdown_table(["lambda", "targeted children", "saved", "by type"], rows, "lrrl"),
        "",
    ]


def allcode_section(results: Mapping[str, Any]) -> list[str]:
    allcode = results.get("allcode")
    if not allcode or not allcode.get("cells"):
        return []
    rows = []
    for cell in allcode["cells"]:
        rows.append(
            [
                cell["lambda"],
                cell["strategy"],
                ", ".join(str(r) for r in cell["reps"]),
                cell["inputs"],
                cell.get("outcome_mismatches", 0),
                fmt_num(cell["branches"]["application"]),
                fmt_num(cell["branches"]["third_party"]),
                fmt_num(cell["branches"]["stdlib"]),
                fmt_num(cell["branches"]["total"]),
            ]
        )
    out = [
        "## All-code coverage (application + libraries, the paper's Table III)",
        "",
        allcode.get("method", ""),
        "",
        markdown_table(
            [
                "lambda",
                "strategy",
                "reps replayed",
                "inputs",
                "replayed differently",
                "app",
                "third-party",
                "stdlib",
                "total",
            ],
            rows,
            "llrrrrrrr",
        ),
        "",
    ]
    pairs = allcode.get("pairs") or []
    if pairs:
        out += [
            "Common / only-A / only-B branch arcs of all code (same repetitions as above, averaged):",
            "",
            markdown_table(
                ["lambda", "A vs B", "common", "+A", "+B"],
                [
                    [
                        p["lambda"],
                        f"{p['a']} vs {p['b']}",
                        fmt_num(p["common"]),
                        fmt_num(p["only_a"]),
                        fmt_num(p["only_b"]),
                    ]
                    for p in pairs
                ],
            ),
            "",
        ]
    return out


def render(results: Mapping[str, Any]) -> str:
    study = results["study"]
    machine = study.get("machine", {})
    strategies = _strategies(results)
    lines = [
        "# lambdafuzz study: SpotOn vs Zest on the bundled benchmark lambdas",
        "",
        f"Generated {study.get('date', '?')} by `{study.get('command', 'benchmarks/run.py')}`.",
        "",
        f"* Budget: {study.get('budget', '?')} per campaign, 1 worker each, "
        f"{study.get('jobs', '?')} campaigns in parallel; repetitions: {study.get('reps', '?')} "
        f"(seed = repetition index + {study.get('seed_base', 0)}); strategies: {', '.join(strategies)}.",
        f"* Machine: {machine.get('nproc', '?')} cores, {machine.get('cpu', '?')}, Python "
        f"{machine.get('python', '?')}; load average at start {machine.get('load_start', '?')}, "
        f"at end {machine.get('load_end', '?')}.",
        f"* Application branch arms are the engine's (`sys.monitoring` BRANCH events on application "
        f"code, import-time arms included); the baseline is `{results['baseline']}`.",
        "",
        "## Answers",
        "",
    ]
    lines += headline(results, CHALLENGER)
    # every other strategy that ran against the same baseline: the default (frontier) is
    # the one a user runs; zest-strings and random are the paper's other arms
    for other in ("frontier", "zest-strings", "random"):
        if other in strategies:
            lines += headline(results, other)
    lines += key_arm_section(results)
    lines += ["**Executions per second:**", ""]
    lines += throughput_section(results)
    lines += ["## The paper's Table II: common and exclusive application branch arms", ""]
    lines += pairs_section(results)
    lines += ["## Application branch coverage per lambda and strategy", ""]
    lines += coverage_section(results)
    lines += [
        "Plots (median and 95% bootstrap CI of the median, over executions and over time):",
        "",
    ]
    lines += [f"* [{name}](plots/{name}.png)" for name in results["lambdas"]] + [""]
    lines += ["## When each branch arm was first covered", ""]
    lines += arm_timing_section(results)
    lines += ["## Failures found", ""]
    lines += failures_section(results)
    lines += targeting_section(results)
    lines += allcode_section(results)
    notes = study.get("notes") or []
    if notes:
        lines += ["## Notes", "", *[f"* {n}" for n in notes], ""]
    return "\n".join(lines).rstrip() + "\n"
