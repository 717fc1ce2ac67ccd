"""From the runs of a study to one JSON-ready document of numbers (`results.json`).

The Markdown report is rendered from this document alone (see `report.py`), so every
number in the report is in results.json too and can be checked or re-plotted.
"""

from __future__ import annotations

import statistics as stdstats
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from benchmarks.study.compare import (
    KEY_ARMS,
    arm_label,
    arm_timings,
    failure_findings,
    pair_table,
)
from benchmarks.study.layout import BASELINE, LAMBDAS_DIR, STRATEGIES
from benchmarks.study.loading import RunData
from benchmarks.study.statistics import a12, geometric_improvement, mann_whitney, summarize

#: (A, B) pairs of the common/only-A/only-B table; the paper's Table II is spoton vs zest.
PAIRS = (("spoton", "zest"), ("zest-strings", "zest"), ("spoton", "zest-strings"))

GroupedT = dict[str, dict[str, list[RunData]]]  # lambda -> strategy -> runs (by rep)


def group(runs: Iterable[RunData]) -> GroupedT:
    grouped: GroupedT = {}
    for run in sorted(runs, key=lambda r: r.spec):
        grouped.setdefault(run.spec.lambda_name, {}).setdefault(run.spec.strategy, []).append(run)
    return grouped


def strategy_order(names: Iterable[str]) -> list[str]:
    names = set(names)
    return [s for s in STRATEGIES if s in names] + sorted(names - set(STRATEGIES))


def time_split(runs: Sequence[RunData]) -> dict[str, float]:
    """Mean share of campaign wall time in generation, reset+load, the handler (coverage
    collection included) and everything else (IPC, engine, saving, stability re-runs)."""
    shares: dict[str, list[float]] = {
        "generation": [],
        "reset_load": [],
        "handler": [],
        "other": [],
    }
    for r in runs:
        if r.elapsed_s <= 0:
            continue
        gen = r.time_in_generation_s / r.elapsed_s
        load = r.time_in_reset_load_s / r.elapsed_s
        handler = r.time_in_handler_s / r.elapsed_s
        shares["generation"].append(gen)
        shares["reset_load"].append(load)
        shares["handler"].append(handler)
        shares["other"].append(max(0.0, 1.0 - gen - load - handler))
    return {k: round(stdstats.fmean(v), 4) if v else 0.0 for k, v in shares.items()}


def _targeting(runs: Sequence[RunData]) -> dict[str, dict[str, int]]:
    total: dict[str, dict[str, int]] = {}
    for r in runs:
        for label, counts in r.targeting.items():
            into = total.setdefault(label, {"children": 0, "saved": 0})
            for key in ("children", "saved"):
                into[key] += int(counts.get(key, 0))
    return dict(sorted(total.items()))


def _maybe_summary(values: Sequence[float | None]) -> dict[str, Any] | None:
    known = [v for v in values if v is not None]
    return summarize(known).to_json() if known else None


def strategy_cell(runs: Sequence[RunData]) -> dict[str, Any]:
    timings = arm_timings(runs)
    return {
        "reps": len(runs),
        "branches": summarize([r.branches for r in runs]).to_json(),
        "valid_branches": summarize([r.valid_branches for r in runs]).to_json(),
        "execs": summarize([r.execs for r in runs]).to_json(),
        "elapsed_s": summarize([r.elapsed_s for r in runs]).to_json(),
        "execs_per_sec": summarize([r.execs_per_sec for r in runs]).to_json(),
        "steady_execs_per_sec": _maybe_summary([r.steady_execs_per_sec for r in runs]),
        "time_split": time_split(runs),
        "per_rep": [
            {
                "rep": r.spec.rep,
                "seed": r.spec.seed,
                "branches": r.branches,
                "valid_branches": r.valid_branches,
                "execs": r.execs,
                "elapsed_s": r.elapsed_s,
                "execs_per_sec": r.execs_per_sec,
                "corpus": r.corpus_size,
                "failures": sorted(r.failures),
            }
            for r in runs
        ],
        "failures": [f.to_json() for f in failure_findings(runs)],
        "arm_timings": [
            {"arm": list(arm), "label": arm_label(arm, t), **t.to_json()}
            for arm, t in sorted(timings.items(), key=lambda kv: (kv[1].from_line or 0, kv[0]))
        ],
        "targeting": _targeting(runs),
    }


def versus(runs_a: Sequence[RunData], runs_b: Sequence[RunData]) -> dict[str, Any]:
    a = [r.branches for r in runs_a]
    b = [r.branches for r in runs_b]
    return {
        "mean_a": round(stdstats.fmean(a), 4),
        "mean_b": round(stdstats.fmean(b), 4),
        "mean_diff": round(stdstats.fmean(a) - stdstats.fmean(b), 4),
        "median_diff": round(stdstats.median(a) - stdstats.median(b), 4),
        "p_value": mann_whitney(a, b),
        "a12": a12(a, b),
    }


def key_arms(grouped: GroupedT) -> list[dict[str, Any]]:
    out = []
    for key in KEY_ARMS:
        by_strategy = grouped.get(key.lambda_name)
        if not by_strategy:
            continue
        line = key.line(LAMBDAS_DIR / key.lambda_name)
        entry: dict[str, Any] = {
            "lambda": key.lambda_name,
            "title": key.title,
            "file": key.file,
            "line": line,
            "by_strategy": {},
        }
        for strategy in strategy_order(by_strategy):
            runs = by_strategy[strategy]
            hits = [r for r in runs if line is not None and key.covered_in(r, line)]
            first = [
                h.first_exec
                for r in hits
                for h in r.arms.values()
                if h.from_line == line and h.to_line == line + 1
            ]
            entry["by_strategy"][strategy] = {
                "covered_reps": len(hits),
                "reps": len(runs),
                "covered_in": [r.spec.rep for r in hits],
                "median_first_exec": stdstats.median(first) if first else None,
            }
        out.append(entry)
    return out


def build_results(
    runs: Iterable[RunData],
    *,
    meta: Mapping[str, Any],
    allcode: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    grouped = group(runs)
    lambdas: dict[str, Any] = {}
    means: dict[str, dict[str, float]] = {}
    for name, by_strategy in sorted(grouped.items()):
        order = strategy_order(by_strategy)
        cell: dict[str, Any] = {
            "branches_total": max(r.branches_total for runs in by_strategy.values() for r in runs),
            "execs_per_sec": summarize(
                [r.execs_per_sec for runs in by_strategy.values() for r in runs]
            ).to_json(),
            "steady_execs_per_sec": _maybe_summary(
                [r.steady_execs_per_sec for runs in by_strategy.values() for r in runs]
            ),
            "strategies": {s: strategy_cell(by_strategy[s]) for s in order},
            "vs_baseline": {},
            "pairs": {},
        }
        means[name] = {s: stdstats.fmean(r.branches for r in by_strategy[s]) for s in order}
        if BASELINE in by_strategy:
            for s in order:
                if s != BASELINE:
                    cell["vs_baseline"][s] = versus(by_strategy[s], by_strategy[BASELINE])
        for a, b in PAIRS:
            row = pair_table(by_strategy.get(a, []), by_strategy.get(b, []))
            if row is not None:
                row_json = row.to_json()
                row_json["p_value"] = mann_whitney(
                    [r.branches for r in by_strategy[a]], [r.branches for r in by_strategy[b]]
                )
                cell["pairs"][f"{a} vs {b}"] = row_json
        lambdas[name] = cell
    geo = {}
    for s in strategy_order({s for by in grouped.values() for s in by}):
        if s == BASELINE:
            continue
        imp = geometric_improvement(means, s, BASELINE)
        if imp is not None:
            geo[s] = {
                "ratio": round(imp.ratio, 4),
                "percent": round(imp.percent, 2),
                "lambdas": list(imp.lambdas),
                "ratios": {k: round(v, 4) for k, v in imp.ratios.items()},
            }
    return {
        "study": dict(meta),
        "baseline": BASELINE,
        "lambdas": lambdas,
        "geometric_mean_vs_baseline": geo,
        "key_arms": key_arms(grouped),
        "allcode": dict(allcode) if allcode else None,
    }
