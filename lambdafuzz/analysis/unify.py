"""SpotOn's type unification pass, and the report of how many targets the generators can reach.

Unification: a label influencing several targets keeps the distance it has in the target
with the most influencing types (paper §III-B: that target is the likeliest to be covered
by tweaking its types).  Ties go to the smaller distance, then to the smaller target id,
so the result is deterministic.

`except` targets (not branches in the paper's Java bytecode) only decide a label's
distance when no other target has it: their operands are every call of the `try` body, so
they have the most types, all at distance 0, and would flatten the whole map.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lambdafuzz import labels as L

from .model import CodeTarget, MatchReport, TargetKind, UnifiedType


def vocabulary() -> frozenset[str]:
    """Every label `lambdafuzz.labels` defines, minus the generic ones."""
    found = {
        value
        for name, value in vars(L).items()
        if name.isupper() and isinstance(value, str) and not name.startswith("_")
    }
    return frozenset(found - L.GENERIC)


def unify(targets: Sequence[CodeTarget]) -> tuple[UnifiedType, ...]:
    """The unified map D as a sorted table (nearest first)."""
    chosen: dict[str, tuple[bool, int, int, str]] = {}
    counts: dict[str, int] = {}
    for t in targets:
        size = len(t.types)
        secondary = t.kind is TargetKind.EXCEPT
        for it in t.types:
            counts[it.label] = counts.get(it.label, 0) + 1
            candidate = (secondary, -size, it.distance, t.id)
            if it.label not in chosen or candidate < chosen[it.label]:
                chosen[it.label] = candidate
    table = [UnifiedType(label, d, tid, counts[label]) for label, (_, _, d, tid) in chosen.items()]
    table.sort(key=lambda u: (u.distance, u.label))
    return tuple(table)


def match_report(targets: Sequence[CodeTarget], produced: Iterable[str] | None) -> MatchReport:
    """Input-dependent targets with at least one influencing type in `produced`."""
    produced_set = vocabulary() if produced is None else frozenset(produced)
    dependent = [t for t in targets if t.input_dependent]
    unmatched = tuple(t.id for t in dependent if not any(x.label in produced_set for x in t.types))
    return MatchReport(
        total=len(dependent),
        matched=len(dependent) - len(unmatched),
        produced=tuple(sorted(produced_set)),
        unmatched=unmatched,
    )
