"""Influencing types of a branch: walk the def-use graph backward from its operands.

Shortest paths from the branch along `Node.deps`; every node reached contributes its
labels at its distance (SpotOn's type collection pass).  The distance counts edges from
the branch instruction, so the condition's operands are at 1 (the paper's Fig. 7 counts
the same way, and the fuzzer weighs types by 1/distance: a 0 would swamp every other
type).  A def-use edge counts 1, as in the paper; a control-dependence edge (our
addition) counts `CONTROL_WEIGHT`, so data flow stays the nearer explanation.  Generic labels and internal receiver kinds are dropped, as the paper
drops `String` and primitives.  The same walk decides whether the branch is
input-dependent: it is when it reaches the Lambda event or a read of generated data.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from lambdafuzz import labels as L

from . import type_table as T
from .graph import CONTROL, DependencyGraph
from .labelling import Labelling
from .model import InfluencingType

CONTROL_WEIGHT = 2
OPERAND_DISTANCE = 1


@dataclass(frozen=True, slots=True)
class Influence:
    """Influencing types of one condition, nearest first, and its input dependence."""

    types: tuple[InfluencingType, ...]
    input_dependent: bool


def reportable(label: str) -> bool:
    """A label worth reporting: not generic, not an internal receiver kind."""
    return label not in L.GENERIC and not T.is_kind(label)


class InfluenceWalker:
    """Runs the backward walk, memoised per operand set (both arms of a branch share it)."""

    def __init__(self, graph: DependencyGraph, labelling: Labelling) -> None:
        self.graph = graph
        self.labelling = labelling
        self._memo: dict[tuple[int, ...], Influence] = {}

    def walk(self, start: Iterable[int | None]) -> Influence:
        roots = tuple(sorted({s for s in start if s is not None}))
        found = self._memo.get(roots)
        if found is None:
            found = self._memo[roots] = self._walk(roots)
        return found

    def _walk(self, roots: tuple[int, ...]) -> Influence:
        nodes = self.graph.nodes
        labels = self.labelling.labels
        sources = self.labelling.sources
        best: dict[str, int] = {}
        dist = dict.fromkeys(roots, OPERAND_DISTANCE)
        heap = [(OPERAND_DISTANCE, r) for r in roots]
        done: set[int] = set()
        dependent = False
        while heap:
            d, i = heapq.heappop(heap)
            if i in done:
                continue
            done.add(i)
            if i in sources:
                dependent = True
            for label in labels[i]:
                if label not in best and reportable(label):
                    best[label] = d
            for m, mode in nodes[i].deps:
                nd = d + (CONTROL_WEIGHT if mode == CONTROL else 1)
                if nd < dist.get(m, nd + 1):
                    dist[m] = nd
                    heapq.heappush(heap, (nd, m))
        types = tuple(
            InfluencingType(label, d)
            for label, d in sorted(best.items(), key=lambda x: (x[1], x[0]))
        )
        return Influence(types, dependent)
