"""SpotOn's type-targeted mutation (the SpotOn paper, §III-C).

Half of the children, while some input-dependent branch target is still uncovered, are
made by picking a type label with probability proportional to 1/distance among the types
of the uncovered targets, finding the draws built under that label in the parent's
type-annotated sequence, and overwriting only (a geometric number, mean 4, of) those.  A
hit makes the type more attractive (distance x3/4, never below its static distance), a
miss less (x4/3, capped at 1000); after 10 misses in a row a child falls back to random
mutation.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

from lambdafuzz.analysis.model import AnalysisResult
from lambdafuzz.fuzzer.mutation import Mutation, RandomMutator, overwrite, sample_geometric
from lambdafuzz.fuzzer.target_coverage import TargetCoverage
from lambdafuzz.generators.core import FRESH, ChoiceSequence, ReplayMode
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, ArmKey
from lambdafuzz.model.target import Target

TARGETED_SHARE = 0.5
MAX_TRIES = 10
MEAN_TARGETED_MUTATIONS = 4.0
HIT_FACTOR = 3 / 4
MISS_FACTOR = 4 / 3
MAX_DISTANCE = 1000.0


def analyze_target(
    target: Target, cache_dir: Path | None = None, *, use_cache: bool = True, rich: bool = False
):  # -> AnalysisResult
    """Static analysis of the target's application packages (cached by source hash);
    `rich`: the full constant harvest of the `frontier` strategy."""
    from lambdafuzz.analysis.analyze import analyze_sources
    from lambdafuzz.model.target import app_dirs

    return analyze_sources(
        [Path(p) for p in app_dirs(target)],
        f"{target.handler_module}.{target.handler_function}",
        trigger=str(target.trigger.kind),
        cache_dir=cache_dir,
        use_cache=use_cache,
        rich=rich,
    )


class TargetedMutator:
    """Random mutation half of the time, type-targeted mutation the other half."""

    def __init__(
        self,
        distances: Mapping[str, float],
        target_types: Mapping[str, tuple[str, ...]],
        arm_targets: Mapping[tuple[str, int, int], tuple[str, ...]],
        catalog: ArmCatalog,
        mode: ReplayMode = ReplayMode.EXECUTION_INDEXED,
        *,
        change: bool = True,
    ) -> None:
        """`distances`: type label -> static distance to the nearest target it influences;
        `target_types`: uncovered-able target id -> the labels that influence it;
        `arm_targets`: runtime arm (real file path, from line, to line) -> target ids;
        `catalog`: the application's arms, scanned once by the campaign and shared;
        `change`: mutated draws differ from the parent's (see `mutation.py`)."""
        self.mode = mode
        self.change = change
        self.random = RandomMutator(mode, change=change)
        self.static: dict[str, float] = {k: float(v) for k, v in distances.items()}
        self.distance: dict[str, float] = dict(self.static)
        self.target_types: dict[str, tuple[str, ...]] = {
            tid: tuple(t for t in types if t in self.static) for tid, types in target_types.items()
        }
        self.uncovered: set[str] = {tid for tid, types in self.target_types.items() if types}
        self._coverage = TargetCoverage(arm_targets, catalog)
        self.hits = 0
        self.misses = 0
        self._candidates: tuple[int, list[str]] | None = None

    @classmethod
    def from_analysis(
        cls,
        analysis: AnalysisResult,
        catalog: ArmCatalog,
        mode: ReplayMode = ReplayMode.EXECUTION_INDEXED,
        *,
        change: bool = True,
    ) -> TargetedMutator:
        """From an `AnalysisResult`: its distances, the input-dependent targets with their
        influencing types, and its arm index (files compared by real path, so the analysis'
        and the collector's path conventions do not matter)."""
        return cls(
            distances=analysis.distances(),
            target_types={
                t.id: tuple(x.label for x in t.types)
                for t in analysis.targets
                if t.input_dependent and t.types
            },
            arm_targets=TargetCoverage.arm_index_of(analysis),
            catalog=catalog,
            mode=mode,
            change=change,
        )

    # ------------------------------------------------------------------ feedback
    def observe(self, mutation: Mutation | None, saved: bool, seen: Mapping[ArmKey, int]) -> None:
        """After every test: note which targets the campaign has covered by now."""
        for tid in self._coverage.update(seen):
            self.uncovered.discard(tid)

    def follow(self, mutation: Mutation, child: ChoiceSequence) -> None:
        """SpotOn makes no opening mutations."""

    def candidate_types(self) -> list[str]:
        """Types of the uncovered targets; recomputed only when that set shrank."""
        if self._candidates is None or self._candidates[0] != len(self.uncovered):
            labels: set[str] = set()
            for tid in self.uncovered:
                labels.update(self.target_types[tid])
            self._candidates = (len(self.uncovered), sorted(labels))
        return self._candidates[1]

    # ------------------------------------------------------------------ mutation
    def mutate(self, parent: ChoiceSequence, rng: random.Random) -> Mutation:
        if len(parent) == 0 or rng.random() >= TARGETED_SHARE:
            return self.random.mutate(parent, rng)
        labels = self.candidate_types()
        if not labels:
            return self.random.mutate(parent, rng)
        for _ in range(MAX_TRIES):
            weights = [1.0 / max(self.distance[label], 1e-9) for label in labels]
            label = rng.choices(labels, weights)[0]
            positions = parent.indices_with_label(label)
            if positions:
                self.hits += 1
                self.distance[label] = max(self.static[label], self.distance[label] * HIT_FACTOR)
                count = min(len(positions), sample_geometric(rng, MEAN_TARGETED_MUTATIONS))
                chosen = rng.sample(positions, count)
                return Mutation(
                    overwrite(parent, chosen, FRESH, self.mode, change=self.change),
                    targeted=label,
                    positions=count,
                )
            self.misses += 1
            self.distance[label] = min(MAX_DISTANCE, self.distance[label] * MISS_FACTOR)
        return self.random.mutate(parent, rng)
