"""Synthetic runs for the statistics and table tests (no campaign needed)."""

from __future__ import annotations


def make_run(
    lambda_name: str,
    strategy: str,
    rep: int,
    arms: dict[tuple, tuple[int, float]] | list[tuple],
    *,
    failures: dict[str, tuple[int, float]] | None = None,
    execs: int = 100,
    elapsed_s: float = 10.0,
    lines: dict[tuple, tuple[int, int]] | None = None,
    targeting: dict[str, dict[str, int]] | None = None,
):
    """A RunData without files: `arms` maps an arm id to (first_exec, first_s); a list of
    arm ids means all first covered at execution 1, second 0.1."""
    from benchmarks.study.layout import RunSpec
    from benchmarks.study.loading import ArmHit, FailureHit, RunData

    if isinstance(arms, list):
        arms = {a: (1, 0.1) for a in arms}
    lines = lines or {}
    hits = {
        arm: ArmHit(
            file=str(arm[0]),
            from_line=lines.get(arm, (None, None))[0],
            to_line=lines.get(arm, (None, None))[1],
            first_exec=e,
            first_s=s,
            valid=True,
        )
        for arm, (e, s) in arms.items()
    }
    found = {sig: FailureHit(sig, e, s, 1) for sig, (e, s) in (failures or {}).items()}
    return RunData(
        spec=RunSpec(lambda_name, strategy, rep, rep),
        execs=execs,
        elapsed_s=elapsed_s,
        execs_per_sec=execs / elapsed_s,
        branches=len(hits),
        branches_total=40,
        valid_branches=len(hits),
        corpus_size=3,
        time_in_handler_s=elapsed_s * 0.5,
        time_in_generation_s=elapsed_s * 0.1,
        time_in_reset_load_s=elapsed_s * 0.1,
        arms=hits,
        failures=found,
        targeting=targeting or {},
    )


def arm(n: int, file: str = "app/handler.py") -> tuple:
    return (file, "lambda_handler", 1, 2 * n, 2 * n + 2)
