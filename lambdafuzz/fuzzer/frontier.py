"""Frontier targeting: our improvement on SpotOn's type-targeted mutation (`targeting.py`).

SpotOn picks a type among those of *all* uncovered targets by its distance *unified over
all targets*, and rewards a type whenever the parent merely holds draws of it.  On real
handlers that picks the wrong parts of the input: on year_thumbnails `PIL.Image.Image` is
the nearest type of the 2008 branch because of the loops after it, and across fifteen real
handlers ~23,000 targeted children made 5 corpus entries (issue 16).  Here:

* the targets are the *frontier*: uncovered input-dependent arms whose sibling arm (the
  other side of the same branch) is covered — the campaign reaches that branch, the input
  only has to decide it the other way; arms of code never reached are not aimed at;
* a type's weight is the sum, over the frontier targets it influences, of 1/distance
  *for that target* (the analysis' per-target distance, not the unified one), times the
  type's credit;
* a type's credit grows only when a child targeting it brought new coverage, and decays a
  little with each one that did not;
* targeted children get a share of all children that follows their success against
  random children's (a two-armed bandit on discounted success rates, kept within bounds);
* *edge mutations*: one of the parent's edge-value selectors (`generators.edge_values`,
  `files.file_edges`) moved to another class, the rest of the parent kept.  Each parent
  first gets a plan: every class of every scalar selector once (`confused` three times,
  file-format selectors twice to a class of their own weighted pick); each field of a
  JSON record (`files.json_files`) put in when left out (three times), retyped to a
  string, an integer, a float, an array and an object, and made one of the code's
  constants twice (a constant field made an ordinary value once); every string draw that
  holds one of the code's strings given up to 12 others of them.  The event's draws come
  first, then files', then the rest of the world; the code's constants first within
  each, the draws of top-level record fields before those of nested records, then the
  code's constants, then shallow draws, shuffled within a rank.  Plan steps are taken at
  EDGE_PLAN_SHARE of the parent's children and replayed execution-indexed (every other
  draw of the parent keeps its value); then edge mutations of one or two selectors at
  EDGE_SHARE.  A step that opens a value (a field put in, retyped, made an ordinary value)
  and whose child is valid and keeps the parent's path is *followed up*: the child's new
  draws get every edge class of their own, before the parents' plans (`follow`).  A bug that needs
  an ordinary record with one bad value (a name of blanks once `contact_id` and `name` are
  valid) otherwise waits for havoc to pick that selector among hundreds of draws and land
  on a class of rate 0.005: on the bug benchmark's SQS/SNS apps that almost never
  happened in 1000 executions.  They are judged by bugs, not coverage, so their share
  does not adapt.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lambdafuzz.analysis.model import AnalysisResult
from lambdafuzz.fuzzer.mutation import Mutation, RandomMutator, overwrite, sample_geometric
from lambdafuzz.fuzzer.target_coverage import ArmLinesT, TargetCoverage
from lambdafuzz.generators.core import FRESH, ChoiceSequence, ReplayMode
from lambdafuzz.generators.edge_values import EDGE_SITE_PREFIX, EdgeClass, class_shares
from lambdafuzz.generators.files.json_files import (
    RECORD_CONSTANT_SITE,
    RECORD_FIELD_SITE,
    RECORD_KIND_SHARES,
    RECORD_LIST_SITE,
    RECORD_NUMBER_SITE,
    RECORD_VALUE_SITE,
    json_objects,
)
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, ArmKey
from lambdafuzz.labels import CSV_DIALECT, EVENT, FILE, FILE_EDGE

EI = ReplayMode.EXECUTION_INDEXED

#: Targeted children's share before any outcome, and the bounds it adapts within: never
#: so low that a newly useful type goes untried, never so high that havoc stops.
INITIAL_SHARE = 0.5
MIN_SHARE = 0.1
MAX_SHARE = 0.9
#: Each outcome of a kind of child discounts that kind's earlier counts by this factor
#: (an effective memory of ~200 children: the frontier moves as coverage grows).
DISCOUNT = 0.995
#: A type's credit: x CREDIT_GAIN when a child targeting it brought new coverage, x
#: CREDIT_DECAY when it did not, within [MIN_CREDIT, MAX_CREDIT].
CREDIT_GAIN = 2.0
CREDIT_DECAY = 0.97
MIN_CREDIT = 0.05
MAX_CREDIT = 16.0
#: Types tried per targeted child before it falls back to random mutation (the parent may
#: hold no draw of the type picked).
MAX_TRIES = 10
MEAN_TARGETED_MUTATIONS = 4.0
#: The share of a parent's children taken from its edge plan while it lasts, at most
#: MAX_PLAN_STEPS steps; afterwards the share of edge mutations (when the parent has edge
#: selectors) and how many selectors one moves (geometric, mean 1.5).
EDGE_PLAN_SHARE = 0.5
MAX_PLAN_STEPS = 240
EDGE_SHARE = 0.1
MEAN_EDGE_MUTATIONS = 1.5
#: File-format selectors are moved this many times in a plan (their options are not
#: recorded, so each move is a weighted pick of another class).
FILE_EDGE_STEPS = 2
#: A value of another type is tried this many times in a plan (each a fresh type).
CONFUSED_STEPS = 3
#: The types a record field is given in a plan (the others come with `confused`).
RETYPE_KINDS = frozenset({"string", "integer", "number", "array", "object"})
#: A record field left out is put in this many times (each with a fresh value).
PUT_IN_STEPS = 3
#: A record field holding one of the code's constants tries at most this many others.
OTHER_CONSTANTS = 12
#: A record field that is no code constant becomes one this many times in a plan; one
#: that is becomes an ordinary value (a fresh kind and value) this many times.
CONSTANT_STEPS = 2
ORDINARY_STEPS = 3
#: A valid child of an opening step (a field put in, retyped, made an ordinary value) that
#: kept its parent's path gets a follow-up plan over its new draws (their edge classes,
#: the file's dialect): at most FOLLOW_UP_STEPS steps, and at most FOLLOW_UPS_PER_KEY
#: plans for one record field whose new value is of one kind (a field put in as a number
#: three times, or in three parents, is followed once as a number, once as a string).
#: Why: a bug that needs a field holding one bad value (a price of 41 digits, a float
#: discount) where the parent had no such field, or held a constant, took two unlikely
#: steps in a row; with follow-ups the bug benchmark's eight weakest apps went from 2-5 of
#: 5 seeds to 5 of 5 (benchmarks/history/bugbench.md, "After follow-up plans").
FOLLOW_UP_STEPS = 48
FOLLOW_UPS_PER_KEY = 1
#: Follow-up plans kept waiting (the newest first; the oldest are dropped).
MAX_FOLLOW_UPS = 16
#: Plans kept (one per parent; the oldest are dropped).
MAX_PLANS = 1024
#: What an edge mutation's `Mutation.targeted` says (provenance and the status line).
EDGE_MUTATION = "edge-values"


@dataclass(frozen=True, slots=True)
class FrontierTarget:
    """One arm the mutator may aim at: its sibling arms and its types' distances to it."""

    id: str
    siblings: tuple[str, ...]
    distances: Mapping[str, float]  # label -> def-use distance to this target


@dataclass(slots=True)
class Rate:
    """Discounted successes and trials of one kind of child."""

    wins: float = 0.0
    tries: float = 0.0

    def add(self, success: bool) -> None:
        self.wins = self.wins * DISCOUNT + (1.0 if success else 0.0)
        self.tries = self.tries * DISCOUNT + 1.0

    @property
    def mean(self) -> float:
        return (self.wins + 1.0) / (self.tries + 2.0)  # Laplace: no evidence, 1/2

    def share_against(self, other: Rate) -> float:
        """This kind's share of the children: its success rate against `other`'s, within
        [MIN_SHARE, MAX_SHARE] (INITIAL_SHARE before any outcome: both means are 1/2)."""
        mine = self.mean
        return min(MAX_SHARE, max(MIN_SHARE, mine / (mine + other.mean)))


class FrontierMutator:
    """Random or frontier-targeted children, in a share that adapts to their success."""

    def __init__(
        self,
        targets: Iterable[FrontierTarget],
        arm_targets: Mapping[ArmLinesT, Iterable[str]],
        catalog: ArmCatalog,
        mode: ReplayMode = ReplayMode.LINEAR,
        *,
        change: bool = True,
        words: Iterable[str] = (),
    ) -> None:
        """`targets`: the input-dependent targets with types; `arm_targets`: (real file
        path, from line, to line) -> target ids (any target, typed or not: a sibling need
        not be input-dependent to count as covered); `words`: the code's string constants
        (in the campaign's dictionary), which edge plans try in record fields."""
        self.mode = mode
        self.change = change
        self.words = tuple(words)
        self.random = RandomMutator(mode, change=change)
        self.targets: dict[str, FrontierTarget] = {
            t.id: t for t in targets if t.distances and t.siblings
        }
        self.coverage = TargetCoverage(arm_targets, catalog)
        self.credit: dict[str, float] = {}
        self.targeted_rate = Rate()
        self.random_rate = Rate()
        self._weights: tuple[list[str], list[float]] | None = None
        self._frontier: set[str] = set()
        self._seen_size = 0
        self._plans: dict[int, _EdgePlan] = {}
        self._follow_ups: list[_EdgePlan] = []
        self._followed: dict[tuple[Any, ...], int] = {}
        self._rng = random.Random(0)  # the engine's, from the first `mutate` on

    @classmethod
    def from_analysis(
        cls,
        analysis: AnalysisResult,
        catalog: ArmCatalog,
        mode: ReplayMode = ReplayMode.LINEAR,
        *,
        change: bool = True,
    ) -> FrontierMutator:
        """From an `AnalysisResult`: each input-dependent target with its own influencing
        types' distances, and its siblings (the other arms of the same branch)."""
        groups: dict[str, list[str]] = {}
        for t in analysis.targets:
            groups.setdefault(_branch_of(t.id), []).append(t.id)
        targets = [
            FrontierTarget(
                t.id,
                tuple(i for i in groups[_branch_of(t.id)] if i != t.id),
                _nearest(t.types),
            )
            for t in analysis.targets
            if t.input_dependent and t.types
        ]
        return cls(
            targets,
            TargetCoverage.arm_index_of(analysis),
            catalog,
            mode,
            change=change,
            words=analysis.constants,
        )

    # ------------------------------------------------------------------ the frontier
    @property
    def frontier(self) -> set[str]:
        """Uncovered targets with a covered sibling."""
        return self._frontier

    def _refresh(self) -> None:
        covered = self.coverage.covered
        self._frontier = {
            tid
            for tid, t in self.targets.items()
            if tid not in covered and any(s in covered for s in t.siblings)
        }
        self._weights = None

    def type_weights(self) -> dict[str, float]:
        """Each type's weight: its credit x the sum of 1/distance over the frontier targets
        it influences."""
        weights: dict[str, float] = {}
        for tid in self._frontier:
            for label, distance in self.targets[tid].distances.items():
                weights[label] = weights.get(label, 0.0) + 1.0 / max(distance, 1.0)
        return {label: w * self.credit.get(label, 1.0) for label, w in weights.items()}

    def _choices(self) -> tuple[list[str], list[float]]:
        if self._weights is None:
            weights = self.type_weights()
            labels = sorted(weights)
            self._weights = (labels, [weights[label] for label in labels])
        return self._weights

    @property
    def targeted_share(self) -> float:
        """Targeted children's share: their discounted success rate against random ones'."""
        return self.targeted_rate.share_against(self.random_rate)

    # ------------------------------------------------------------------ feedback
    def observe(self, mutation: Mutation | None, saved: bool, seen: Mapping[ArmKey, int]) -> None:
        """Credit by new coverage (new arms seen, failing inputs' included), not by `saved`
        (a new hit-count bucket is no step towards an uncovered arm)."""
        new_coverage = len(seen) > self._seen_size
        self._seen_size = len(seen)
        if self.coverage.update(seen):
            self._refresh()
        if mutation is None:
            return
        label = mutation.targeted
        if label == EDGE_MUTATION:
            return
        if label is None:
            self.random_rate.add(new_coverage)
            return
        self.targeted_rate.add(new_coverage)
        old = self.credit.get(label, 1.0)
        factor = CREDIT_GAIN if new_coverage else CREDIT_DECAY
        self.credit[label] = min(MAX_CREDIT, max(MIN_CREDIT, old * factor))
        self._weights = None

    # ------------------------------------------------------------------ edge mutations
    def edge_plan(self, parent: ChoiceSequence, rng: random.Random) -> _EdgePlan:
        """The parent's plan, made on its first child."""
        plan = self._plans.get(id(parent))
        if plan is None or plan.parent is not parent:
            plan = _EdgePlan.of(parent, rng, self.words)
            self._plans[id(parent)] = plan
            if len(self._plans) > MAX_PLANS:
                del self._plans[next(iter(self._plans))]
        return plan

    @property
    def havoc(self) -> RandomMutator:
        """Plain havoc, for children that climb a cost maximum (`Engine._child`)."""
        return self.random

    def plan_pending(self, parent: ChoiceSequence) -> bool:
        """Whether the parent's plan has steps left (or is not made yet): the engine gives
        such a new entry every other child (`engine.FRESH_CHILDREN_MAX`)."""
        plan = self._plans.get(id(parent))
        return plan is None or plan.parent is not parent or bool(plan.steps)

    def follow(self, mutation: Mutation, child: ChoiceSequence) -> None:
        """A plan's opening step kept its parent's path: plan the child's new draws (those
        whose execution index the parent did not have) as a follow-up, taken before the
        rest of the plans (`edge_mutation`)."""
        prefix = mutation.prefix
        if not isinstance(prefix, dict):
            return
        opened = {i for i, c in enumerate(child.choices) if c.ei not in prefix}
        plan = _EdgePlan.of(child, self._rng, only=opened)
        if not plan.steps or not plan.selectors:
            return
        first = child.choices[plan.selectors[0]]
        key = (_field_path(first.ei), first.ei[-1][0])  # the field, and its new value's kind
        if self._followed.get(key, 0) >= FOLLOW_UPS_PER_KEY:
            return
        self._followed[key] = self._followed.get(key, 0) + 1
        del plan.steps[: max(0, len(plan.steps) - FOLLOW_UP_STEPS)]  # taken from the end
        self._follow_ups.append(plan)
        del self._follow_ups[: max(0, len(self._follow_ups) - MAX_FOLLOW_UPS)]

    def edge_mutation(self, parent: ChoiceSequence, rng: random.Random) -> Mutation | None:
        """The newest follow-up plan's next step, or the parent's next edge-plan step, or
        (plan done) an edge mutation at EDGE_SHARE; None: a child of another kind."""
        while self._follow_ups and not self._follow_ups[-1].steps:
            self._follow_ups.pop()
        if self._follow_ups and rng.random() < EDGE_PLAN_SHARE:
            return self._follow_ups[-1].step()
        plan = self.edge_plan(parent, rng)
        if plan.steps and rng.random() < EDGE_PLAN_SHARE:
            return plan.step()
        if plan.steps or not plan.selectors or rng.random() >= EDGE_SHARE:
            return None
        count = min(len(plan.selectors), sample_geometric(rng, MEAN_EDGE_MUTATIONS))
        chosen = rng.sample(plan.selectors, count)
        return Mutation(
            overwrite(parent, chosen, FRESH, EI, change=True),
            targeted=EDGE_MUTATION,
            positions=count,
            mode=EI,
        )

    # ------------------------------------------------------------------ mutation
    def mutate(self, parent: ChoiceSequence, rng: random.Random) -> Mutation:
        self._rng = rng  # follow-up plans shuffle with it: a seeded campaign stays seeded
        if len(parent):
            edge = self.edge_mutation(parent, rng)
            if edge is not None:
                return edge
        if len(parent) == 0 or rng.random() >= self.targeted_share:
            return self.random.mutate(parent, rng)
        labels, weights = self._choices()
        if not labels:
            return self.random.mutate(parent, rng)
        for _ in range(MAX_TRIES):
            label = rng.choices(labels, weights)[0]
            positions = parent.indices_with_label(label)
            if positions:
                count = min(len(positions), sample_geometric(rng, MEAN_TARGETED_MUTATIONS))
                chosen = rng.sample(positions, count)
                return Mutation(
                    overwrite(parent, chosen, FRESH, self.mode, change=self.change),
                    targeted=label,
                    positions=count,
                )
        return self.random.mutate(parent, rng)


#: The generator frame of a JSON object (a record or free keys) in an execution index.
_OBJECT_FRAME = json_objects.__name__


def _plan_rank(choice: Any, constant: bool) -> tuple[int, int, int, int]:
    """Where a draw's plan steps go: (event 0 / file 1 / other world draws 2, how many
    JSON objects it sits in, a code constant 0 / other steps 1, depth).  The objects
    count before constants: a document of records nested in records had 309 of its first
    1500 steps put fields in nested records and 8 retype the top-level fields the handler
    checks (`isinstance(lines, list)`)."""
    labels = choice.labels
    tier = 0 if EVENT in labels else 1 if FILE in labels else 2
    ei = choice.ei
    nesting = sum(1 for site, _ in ei if site == _OBJECT_FRAME)
    return tier, nesting, 0 if constant else 1, len(ei)


@dataclass(slots=True)
class _EdgePlan:
    """A parent's edge selectors and the steps still to take: (position, the fraction that
    picks a class of it, or None: a weighted pick of another class, whether the step opens
    a new value), taken from the end."""

    parent: ChoiceSequence
    selectors: list[int]
    steps: list[tuple[int, Any, bool]]

    def step(self) -> Mutation:
        """The next step as a child of the parent, replayed execution-indexed."""
        parent = self.parent
        position, value, opens = self.steps.pop()
        if value is None:
            prefix = overwrite(parent, [position], FRESH, EI, change=True)
        else:
            prefix = parent.by_ei()
            prefix[parent.choices[position].ei] = value
        return Mutation(prefix, targeted=EDGE_MUTATION, positions=1, mode=EI, opens=opens)

    @classmethod
    def of(
        cls,
        parent: ChoiceSequence,
        rng: random.Random,
        words: tuple[str, ...] = (),
        *,
        only: set[int] | None = None,
    ) -> _EdgePlan:
        """`words`: the code's string constants (a record field holding one tries others);
        `only`: the positions to plan (a follow-up's new draws: their edge classes and
        files' dialects only, so a follow-up opens nothing itself), else all."""
        selectors: list[int] = []
        ranked: list[tuple[tuple[int, int, int, int], int, Any, bool]] = []
        known = frozenset(words)

        def add(
            i: int, value: Any, repeat: int = 1, *, constant: bool = False, opens: bool = False
        ) -> None:
            rank = _plan_rank(parent.choices[i], constant)
            ranked.extend((rank, i, value, opens) for _ in range(repeat))

        for i, c in enumerate(parent.choices):
            site = c.ei[-1][0]
            if only is not None and (i not in only or site in _RECORD_SITES):
                continue
            if only is None and type(c.value) is str and c.value in known:
                # a string draw holding one of the code's strings (a record's constant or
                # a dictionary draw anywhere): others of them (`"eu"` passed, `"apac"` of
                # the same list is the bug)
                others = [w for w in words if w != c.value]
                for word in rng.sample(others, min(OTHER_CONSTANTS, len(others))):
                    add(i, word, constant=True)
                continue
            if site == RECORD_NUMBER_SITE:
                count = c.constraints.max_value + 1  # type: ignore[union-attr]
                others = [n for n in range(count) if n != c.value]
                for n in rng.sample(others, min(OTHER_CONSTANTS, len(others))):
                    add(i, n, constant=True)
                continue
            if site in (RECORD_FIELD_SITE, RECORD_LIST_SITE) and c.value is False:
                # a field the record left out: put it in, with a few fresh values; a
                # plural field of another value: a list of records (line items)
                add(i, True, PUT_IN_STEPS, constant=True, opens=True)
                continue
            if site == RECORD_CONSTANT_SITE:
                # a record field that is not one of the code's constants: make it one; one
                # that is: an ordinary value (with edge selectors of its own)
                if c.value:
                    add(i, False, ORDINARY_STEPS, opens=True)
                else:
                    add(i, True, CONSTANT_STEPS, constant=True)
                continue
            if site in RECORD_KIND_SHARES:
                # a record field of another type (`isinstance(lines, list)`)
                for kind, (low, high) in RECORD_KIND_SHARES[site].items():
                    if kind in RETYPE_KINDS and not low <= c.value < high:
                        add(i, (low + high) / 2, opens=True)
                continue
            if site.startswith(EDGE_SITE_PREFIX):
                selectors.append(i)
                for option, (low, high) in class_shares(site).items():
                    if option is not None and not low <= c.value < high:
                        repeat = CONFUSED_STEPS if option is EdgeClass.CONFUSED else 1
                        add(i, (low + high) / 2, repeat)
            elif c.labels and c.labels[-1] == FILE_EDGE:
                selectors.append(i)
                add(i, None, FILE_EDGE_STEPS)
            elif c.labels and c.labels[-1] == CSV_DIALECT:
                # another line ending, delimiter, quoting, BOM: the layout a handler that
                # splits lines itself trips on (`\r` left on the last field)
                add(i, None)
        # the event's draws first, then files' (S3 objects), then the rest of the world (a
        # table's items the handler may only write to: on a tags API 190 of 217 steps were
        # those, before the body's tag); within each, the code's constants first (another
        # member of the list a field was checked against, a field put in), then shallow
        # draws first (a top-level field of a body before the fields of an object nested
        # in it), in random order within a rank; steps are taken from the end
        rng.shuffle(ranked)
        ranked.sort(key=lambda step: step[0])
        steps = [(i, value, opens) for _, i, value, opens in ranked[:MAX_PLAN_STEPS]]
        steps.reverse()
        return cls(parent, selectors, steps)


#: The call sites of a record's own draws (presence, constant or not, which constant, a
#: list of records or not, kind).
_RECORD_SITES = frozenset(
    {
        RECORD_FIELD_SITE,
        RECORD_CONSTANT_SITE,
        RECORD_LIST_SITE,
        RECORD_NUMBER_SITE,
        *RECORD_KIND_SHARES,
    }
)


def _field_path(ei: tuple[Any, ...]) -> tuple[Any, ...]:
    """A draw's execution index up to the record field it sits in (`json_files`' keyed
    field frame), or the whole index when it sits in none."""
    for depth in range(len(ei) - 1, -1, -1):
        site = ei[depth][0]
        if isinstance(site, str) and site.startswith(RECORD_VALUE_SITE):
            return ei[: depth + 1]
    return ei


def _branch_of(target_id: str) -> str:
    """A target id without its arm: what the arms of one branch share."""
    return target_id.rpartition(":")[0]


def _nearest(types: Iterable[Any]) -> dict[str, float]:
    """label -> its smallest distance to the target (a label may reach it by several paths)."""
    found: dict[str, float] = {}
    for t in types:
        found[t.label] = min(found.get(t.label, float("inf")), float(t.distance))
    return found
