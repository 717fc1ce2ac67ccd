"""Two runs of the ports study (`benchmarks/run.py`) side by side: did anything fall?

    .venv/bin/python benchmarks/study_compare.py BEFORE/results.json AFTER/results.json

For each lambda and strategy both runs hold: the mean application branch arms of each run,
the difference, and the two-sided Mann-Whitney U p-value of the repetitions (the same seeds
in both runs, so a deterministic campaign whose code did not change gives the same arms);
then each strategy's geometric mean of the per-lambda mean ratios (after / before), and the
study's key arm (the 2008 branch) in each run.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from scipy.stats import mannwhitneyu


def arms(results: dict, lam: str, strategy: str) -> list[int]:
    reps = results["lambdas"].get(lam, {}).get("strategies", {}).get(strategy, {})
    return [int(r["branches"]) for r in reps.get("per_rep", [])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    before = json.loads(args.before.read_text())
    after = json.loads(args.after.read_text())
    strategies = [s for s in before["study"]["strategies"] if s in after["study"]["strategies"]]
    lambdas = [lam for lam in before["lambdas"] if lam in after["lambdas"]]
    print("| lambda | strategy | before mean | after mean | diff | p (MWU) |")
    print("| :-- | :-- | --: | --: | --: | --: |")
    ratios: dict[str, list[float]] = {s: [] for s in strategies}
    fell: list[str] = []
    for lam in lambdas:
        for strategy in strategies:
            a, b = arms(before, lam, strategy), arms(after, lam, strategy)
            if not a or not b:
                continue
            mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
            p = 1.0 if a == b else mannwhitneyu(a, b, alternative="two-sided").pvalue
            ratios[strategy].append(mean_b / mean_a if mean_a else 1.0)
            mark = " *" if p < 0.05 else ""
            if mean_b < mean_a and p < 0.05:
                fell.append(f"{lam}/{strategy}")
            print(
                f"| {lam} | {strategy} | {mean_a:.2f} | {mean_b:.2f} | {mean_b - mean_a:+.2f} "
                f"| {p:.3f}{mark} |"
            )
    print()
    for strategy, values in ratios.items():
        if values:
            gmean = math.exp(sum(math.log(v) for v in values) / len(values))
            print(f"{strategy}: geometric mean of after/before mean ratios {gmean:.3f}")
    pairs = zip(before.get("key_arms", []), after.get("key_arms", []), strict=False)
    for key_before, key_after in pairs:
        shown = []
        for strategy in strategies:
            was = key_before["by_strategy"].get(strategy, {})
            now = key_after["by_strategy"].get(strategy, {})
            shown.append(
                f"{strategy} {was.get('covered_reps', '?')}/{was.get('reps', '?')} -> "
                f"{now.get('covered_reps', '?')}/{now.get('reps', '?')}"
            )
        print(f"{key_before.get('title', 'key arm')}: repetitions covering it: " + ", ".join(shown))
    print("significantly lower after: " + (", ".join(fell) if fell else "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
