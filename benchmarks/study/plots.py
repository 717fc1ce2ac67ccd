"""Coverage plots: one PNG per lambda, branches over executions and over time, strategies
overlaid (median line, 95% band).  matplotlib is imported here only, with the Agg backend,
so nothing else in the study needs a display or pays for the import."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmarks.study.curves import band_over
from benchmarks.study.layout import STRATEGIES
from benchmarks.study.loading import RunData

COLORS = {
    "random": "tab:gray",
    "zest": "tab:orange",
    "zest-strings": "tab:green",
    "spoton": "tab:blue",
    "frontier": "tab:red",
}


def plot_lambda(
    lambda_name: str,
    runs_by_strategy: Mapping[str, Sequence[RunData]],
    path: Path,
    *,
    branches_total: int | None = None,
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    order = [s for s in STRATEGIES if s in runs_by_strategy] + [
        s for s in runs_by_strategy if s not in STRATEGIES
    ]
    for ax, axis, xlabel in (
        (axes[0], "execs", "executions"),
        (axes[1], "seconds", "seconds (campaign wall time)"),
    ):
        for strategy in order:
            runs = runs_by_strategy[strategy]
            if not runs:
                continue
            band = band_over(runs, axis)
            color = COLORS.get(strategy)
            ax.step(
                band.x, band.median, where="post", color=color, label=f"{strategy} (n={band.reps})"
            )
            ax.fill_between(band.x, band.low, band.high, step="post", color=color, alpha=0.2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("application branch arms covered")
        if branches_total:
            ax.set_title(f"of {branches_total} arms", fontsize=9, loc="right")
        ax.grid(alpha=0.3)
    axes[0].legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{lambda_name}: median and 95% CI of the median over repetitions")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
