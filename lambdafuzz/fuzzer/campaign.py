"""Assembling an engine for a strategy: which dictionary, which mutator.

Strategies differ only here, so an ablation compares exactly one change at a time:
`zest-strings` adds the analysis' constant strings to Zest, `spoton` adds type-targeted
mutation on top of that.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lambdafuzz.fuzzer.engine import CampaignOptions, Engine, Strategy
from lambdafuzz.fuzzer.mutation import Mutator, RandomMutator
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.arm_catalog import Scope, scan_arms
from lambdafuzz.model.target import Target, app_dirs

#: Probability that a fresh string draw takes a dictionary constant (when there are any).
DICTIONARY_P = 0.1


def build_engine(
    target: Target,
    *,
    out_dir: Path,
    strategy: str | Strategy = Strategy.ZEST,
    seed: int = 0,
    max_execs: int | None = None,
    max_seconds: float | None = None,
    workers: int = 1,
    backend: str = "moto",
    endpoint: str | None = None,
    mode: ReplayMode = ReplayMode.EXECUTION_INDEXED,
    seed_corpora: Sequence[Path] = (),
    memory_limit_mb: int | None = 1024,
    stability_check: bool = True,
    function: str | None = None,
) -> Engine:
    strategy = Strategy(strategy)
    # the application's arms, scanned once for the whole campaign: the targeted mutator maps
    # arms to lines with it, the engine reports coverage against it and tells workers its total
    catalog = scan_arms(Scope.of(app_dirs(target)))
    dictionary = list(target.dictionary)
    mutator: Mutator = RandomMutator(mode)
    if strategy.uses_analysis_constants:
        from lambdafuzz.fuzzer.targeting import analyze_target

        analysis = analyze_target(target)  # cached by source hash in ~/.cache/lambdafuzz
        dictionary += [c for c in analysis.constants if c not in dictionary]
        if strategy is Strategy.SPOTON:
            from lambdafuzz.fuzzer.targeting import TargetedMutator

            mutator = TargetedMutator(analysis, catalog, mode)
    options = CampaignOptions(
        target=target,
        out_dir=out_dir,
        strategy=strategy,
        seed=seed,
        max_execs=max_execs,
        max_seconds=max_seconds,
        workers=workers,
        backend=backend,
        endpoint=endpoint,
        mode=mode,
        seed_corpora=tuple(seed_corpora),
        dictionary=tuple(dictionary),
        dictionary_p=DICTIONARY_P,
        stability_check=stability_check,
        memory_limit_mb=memory_limit_mb,
        function=function,
    )
    return Engine(options, mutator, catalog)
