"""New queue entries whose mutator plan is still pending get children now, not a queue
cycle later.

With a mutator that plans per parent (`frontier`'s edge plans: `plan_pending`), every other
child of the coverage queue goes to the newest entry whose plan is not done, at most
FRESH_CHILDREN_MAX of them.
"""

from __future__ import annotations

from lambdafuzz.fuzzer.entries import Entry
from lambdafuzz.fuzzer.mutation import Mutator

#: Children of one new entry made out of the queue's turn: a new input's plan runs now and
#: not a queue cycle (hundreds of children per parent) later: on a quotes API the first
#: valid body, saved at execution 1520, had made 15 valid children by execution 3000, and
#: its plan's fatal step was never reached.
FRESH_CHILDREN_MAX = 400


class FreshEntries:
    """The new entries whose plan is pending (newest last), their children so far, and
    whether the next coverage child is theirs."""

    def __init__(self, mutator: Mutator) -> None:
        self._mutator = mutator
        self._entries: list[Entry] = []
        self._children: dict[int, int] = {}
        self._turn = False

    def add(self, entry: Entry) -> None:
        """A new queue entry: its plan gets children first (with a planning mutator)."""
        if hasattr(self._mutator, "plan_pending"):
            self._entries.append(entry)

    def parent_or(self, parent: Entry) -> Entry:
        """Every other child: the newest entry whose plan is pending (FRESH_CHILDREN_MAX),
        else `parent`."""
        pending = getattr(self._mutator, "plan_pending", None)
        while self._entries and pending is not None:
            entry = self._entries[-1]
            made = self._children.get(entry.id, 0)
            if made >= FRESH_CHILDREN_MAX or not pending(entry.sequence):
                self._entries.pop()
                continue
            self._turn = not self._turn
            if not self._turn:
                return parent
            self._children[entry.id] = made + 1
            return entry
        return parent
