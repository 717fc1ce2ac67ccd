"""Assembling an engine for a strategy: which dictionary, which mutator.

Strategies differ only here, so an ablation compares exactly one change at a time:
`zest-strings` adds the analysis' constant strings to Zest, `spoton` adds type-targeted
mutation on top of that; `frontier` takes the full harvest (strings and numbers), edge
values and frontier targeting instead.  What each strategy's draws take from the code
is assembled in `harvest.py`, which `lambdafuzz analyze` shows.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.harvest import analysis_for, build_harvest
from lambdafuzz.fuzzer.mutation import Mutator, RandomMutator
from lambdafuzz.fuzzer.options import CampaignOptions, Objective, Strategy
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.measure.arm_catalog import Scope, scan_arms
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.target import Target, app_dirs


def build_engine(target: Target, *, out_dir: Path, **options: Any) -> Engine:
    """An engine for `target`; `options` are `CampaignOptions` fields by name (strings
    are accepted for `strategy`, `mode` and `objective`), so a new option needs no edit here."""
    if "strategy" in options:
        options["strategy"] = Strategy(options["strategy"])
    if "mode" in options:
        options["mode"] = ReplayMode(options["mode"])
    if "objective" in options:
        options["objective"] = Objective(options["objective"])
    if "seed_corpora" in options:
        options["seed_corpora"] = tuple(Path(p) for p in options["seed_corpora"])
    if "oracles_off" in options:
        options["oracles_off"] = frozenset(OracleKind(k) for k in options["oracles_off"])
    campaign = CampaignOptions(target=target, out_dir=Path(out_dir), **options)
    # the application's arms, scanned once for the whole campaign: the targeted mutator maps
    # arms to lines with it, the engine reports coverage against it and tells workers its total
    catalog = scan_arms(Scope.of(app_dirs(target)))
    change = campaign.change_mutated_draws
    mutator: Mutator = RandomMutator(campaign.mode, change=change)
    # one assembly with `lambdafuzz analyze` (`harvest.py`): it shows what is drawn here
    analysis = analysis_for(target, campaign.strategy)
    harvest = build_harvest(target, campaign.strategy, analysis)
    if campaign.strategy is Strategy.SPOTON:
        from lambdafuzz.fuzzer.targeting import TargetedMutator

        mutator = TargetedMutator.from_analysis(analysis, catalog, campaign.mode, change=change)
    elif campaign.strategy is Strategy.FRONTIER:
        from lambdafuzz.fuzzer.frontier import FrontierMutator

        mutator = FrontierMutator.from_analysis(analysis, catalog, campaign.mode, change=change)
    # the draw policy, made once here: every process generating for the campaign takes it
    policy = campaign.policy
    policy = replace(
        policy,
        dictionary=harvest.strings,
        numbers=harvest.numbers or policy.numbers,
        fields=harvest.fields or policy.fields,
        key_values=harvest.key_values or policy.key_values,
        edge_values=policy.edge_values or campaign.strategy.rich_harvest,
    )
    campaign = replace(campaign, policy=policy)
    if campaign.ray is not None:  # the CLI (or the caller) connected to the cluster
        from lambdafuzz.harness.process.ray_pool import RayWorkerPool

        return Engine(campaign, mutator, catalog, pool_factory=RayWorkerPool)
    return Engine(campaign, mutator, catalog)
