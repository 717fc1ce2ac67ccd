"""The campaign's records of its inputs: a queued entry, why a request was made (its tag),
how a saved input came to be (its provenance), and what came of a child (for observers)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from lambdafuzz.fuzzer.mutation import Mutation
from lambdafuzz.generators.core import ChoiceSequence
from lambdafuzz.harness.measure.arm_catalog import ArmKey
from lambdafuzz.harness.process.protocol import TestRequest, TestResult


@dataclass(slots=True)
class Entry:
    """A saved input in the queue."""

    id: int
    name: str
    sequence: ChoiceSequence
    seed: int
    arms: frozenset[ArmKey]
    valid: bool
    provenance: str
    digest: bytes = b""  # `input_digest` of its input: its children's zero-mutation check
    failing: bool = False  # a failing input kept as a parent for the arms it covered


class TagKind(enum.Enum):
    """Why a test was run."""

    FRESH = "fresh"  # straight from the generators
    CHILD = "child"  # a mutant of a queued parent
    SEED = "seed"  # a resumed or seed-corpus input
    RECHECK = "recheck"  # a saved input run again to measure stability
    COST = "cost"  # a mutant of a cost-queue parent


@dataclass(slots=True, frozen=True)
class Tag:
    """The campaign's bookkeeping for one request; it never leaves the campaign process."""

    kind: TagKind
    parent: int | None = None
    mutation: Mutation | None = None
    entry: int | None = None
    source: str = ""
    # a cost child of a count-holding parent under `--objective cost`: whether it was
    # grown (else havoc); its success tunes `CostObjective.growth`.  None for any other child.
    grown: bool | None = None


@dataclass(slots=True, frozen=True)
class Provenance:
    """How a saved input came to be; its text is what saved files and the status show,
    e.g. `src:12 targeted:csv.row +cov +valid`."""

    tag: Tag
    new_arms: bool = False
    new_valid: bool = False
    failure: bool = False
    failing: bool = False  # a failing input kept as a parent

    def __str__(self) -> str:
        tag = self.tag
        if tag.kind in (TagKind.CHILD, TagKind.COST):
            src = "cost-src" if tag.kind is TagKind.COST else "src"
            parts = [f"{src}:{tag.parent}"]
            if tag.mutation is not None and tag.mutation.targeted:
                parts.append(f"targeted:{tag.mutation.targeted}")
        elif tag.kind is TagKind.SEED:
            parts = [f"seed:{tag.source}"]
        else:
            parts = ["fresh"]
        if not self.failure:
            parts.append("+cov" if self.new_arms else "+hits")
        if self.new_valid:
            parts.append("+valid")
        if self.failing:
            parts.append("+failing")
        return " ".join(parts)


@dataclass(slots=True, frozen=True)
class ChildTested:
    """What came of one child, for `Engine.child_observer` (the study's probes)."""

    parent: Entry
    request: TestRequest
    result: TestResult
    mutation: Mutation | None
    saved: bool
    skipped: bool  # a zero mutation: identical to the parent, not run
