"""Drawing what a trigger's event filter admits, so most generated events get delivered.

A record the filter drops never reaches the handler (see `delivery.py`), so a generator
that ignores the filter wastes its inputs: a pattern `{"body": {"type": ["order"]}}`
would pass one random body in millions.  Here a pattern steers the draws instead: every
leaf is given a value one of its rules admits (exact values, a prefix plus a random
tail, a number inside a numeric range, something else for `anything-but`, presence or
absence for `exists`, an address inside a `cidr`), each drawn through `Choices` under the
`event.filter.value` label, so mutation still moves it (and may move it out of the
filter, where the harness drops it, as Lambda would).  What a pattern cannot steer (a
field the renderer fixes, such as an ARN) is still enforced by the matcher.
"""

from __future__ import annotations

import ipaddress
import math
import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices
from lambdafuzz.model.event_pattern import (
    MISSING,
    NUMERIC_OPERATORS,
    OR_KEY,
    load_pattern,
    rule_matches,
)

PatternT = Mapping[str, Any]
#: Characters of the random parts of steered strings (a prefix's tail, a wildcard's run).
TAIL_ALPHABET: Final = string.ascii_letters + string.digits + "-_./:"
#: How far a numeric range open on one side reaches.
OPEN_SPAN: Final = 1000.0


def patterns_of(filters: Sequence[str]) -> tuple[PatternT, ...]:
    """The parsed patterns of a trigger's `filters`."""
    return tuple(load_pattern(text) for text in filters)


def choose_pattern(choices: Choices, patterns: Sequence[PatternT]) -> PatternT | None:
    """The pattern one record is drawn to pass (any one suffices for delivery)."""
    if not patterns:
        return None
    if len(patterns) == 1:
        return patterns[0]
    return patterns[choices.draw_integer(0, len(patterns) - 1, site="filter")]


def pattern_part(pattern: PatternT | None, *keys: str) -> Any:
    """`pattern[k1][k2]...` where each level is a mapping; None where one is missing."""
    value: Any = pattern
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def steer(
    choices: Choices,
    pattern: PatternT,
    document: Any,
    fresh: Callable[[], Any],
    fresh_object: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """A copy of `document` (a mapping; anything else starts empty) whose fields hold
    values `pattern` admits; `fresh()` draws a value for an `exists: true` field.  A
    nested object the pattern reaches into that `document` lacks starts as
    `fresh_object()` (when given) rather than empty: a filter on `body.data.type` let
    through only `{"data": {"type": "TEST"}}` to a handler that reads `data["id"]`."""
    result = dict(document) if isinstance(document, Mapping) else {}
    for key, rule in pattern.items():
        if key == OR_KEY:
            alternative = rule[choices.draw_integer(0, len(rule) - 1, site="alternative")]
            result = steer(choices, alternative, result, fresh, fresh_object)
        elif isinstance(rule, Mapping):
            with choices.scope(labels.JSON_OBJECT, site=f"filter:{key}"):
                inner = result.get(key)
                if not isinstance(inner, Mapping) and fresh_object is not None:
                    inner = fresh_object()
                result[key] = steer(choices, rule, inner, fresh, fresh_object)
        else:
            value = draw_admitted(choices, rule, result.get(key, MISSING), fresh, site=key)
            if value is MISSING:
                result.pop(key, None)
            else:
                result[key] = value
    return result


def draw_admitted(
    choices: Choices,
    rules: Sequence[Any],
    current: Any,
    fresh: Callable[[], Any],
    *,
    site: str = "value",
) -> Any:
    """A value one of `rules` admits (MISSING: the field must be absent); `current`, the
    value the field has now, is kept where the rule admits it already."""
    with choices.scope(labels.EVENT_FILTER_VALUE, site=f"filter:{site}"):
        rule = (
            rules[choices.draw_integer(0, len(rules) - 1, site="rule")]
            if len(rules) > 1
            else rules[0]
        )
        if not isinstance(rule, Mapping):
            return rule
        ((name, argument),) = rule.items()
        if name == "exists":
            if not argument:
                return MISSING
            value = current if current is not MISSING else fresh()
            return value if value != [] else "present"  # an empty array counts as absent
        if name == "anything-but" and current is not MISSING and rule_matches(rule, current):
            return current
        return _draw_for(choices, name, argument)


def _draw_for(choices: Choices, name: str, argument: Any) -> Any:
    if name in ("prefix", "suffix"):
        fixed = argument["equals-ignore-case"] if isinstance(argument, Mapping) else argument
        free = _free_text(choices, 0, 12)
        return fixed + free if name == "prefix" else free + fixed
    if name == "equals-ignore-case":
        casing = choices.draw_choice((str, str.upper, str.lower, str.title), site="casing")
        return casing(argument)
    if name == "wildcard":
        pieces = argument.replace("\\*", "\0").split("*")
        runs = [_free_text(choices, 0, 8) for _ in pieces[1:]]
        joined = pieces[0] + "".join(
            run + piece for run, piece in zip(runs, pieces[1:], strict=True)
        )
        return joined.replace("\0", "*")
    if name == "numeric":
        return draw_in_range(choices, argument)
    if name == "cidr":
        network = ipaddress.ip_network(argument, strict=False)
        offset = choices.draw_integer(0, min(network.num_addresses - 1, 2**32), site="host")
        return str(network.network_address + offset)
    return _draw_other(choices, argument)


def _free_text(choices: Choices, low: int, high: int) -> str:
    return choices.draw_string(TAIL_ALPHABET, low, high, site="text")


def draw_in_range(choices: Choices, argument: Sequence[Any]) -> int | float:
    """A number inside a `numeric` rule's range: an integer when one fits (mostly), the
    bound itself when inclusive (now and then: boundaries are where handlers break), or
    a decimal."""
    low, high = -math.inf, math.inf
    low_open = high_open = False
    for op, bound in zip(argument[::2], argument[1::2], strict=True):
        bound = float(bound)
        if op == "=":
            return int(bound) if bound.is_integer() else bound
        if op in (">", ">=") and bound >= low:
            low, low_open = bound, op == ">"
        if op in ("<", "<=") and bound <= high:
            high, high_open = bound, op == "<"
    if math.isinf(low):
        low, low_open = high - OPEN_SPAN, False
    if math.isinf(high):
        high, high_open = low + OPEN_SPAN, False
    kind = choices.draw_weighted(("integer", "edge", "decimal"), (0.6, 0.1, 0.3), site="number")
    first = math.floor(low) + 1 if low_open or not low.is_integer() else int(low)
    last = math.ceil(high) - 1 if high_open or not high.is_integer() else int(high)
    if kind == "edge" and not low_open:
        return int(low) if low.is_integer() else low
    if kind == "edge" and not high_open:
        return int(high) if high.is_integer() else high
    if kind != "decimal" and first <= last:
        return choices.draw_integer(first, min(last, first + 10**9), site="integer")
    fraction = choices.draw_integer(1, 999, site="fraction") / 1000
    value = round(low + (high - low) * fraction, 3)
    inside = NUMERIC_OPERATORS[">" if low_open else ">="](value, low) and NUMERIC_OPERATORS[
        "<" if high_open else "<="
    ](value, high)
    return value if inside else (low + high) / 2


def _draw_other(choices: Choices, argument: Any) -> Any:
    """A value `anything-but: argument` admits: a fresh string or number, changed until
    it is not one of the excluded."""
    rule = {"anything-but": argument}
    excluded = argument if isinstance(argument, list) else [argument]
    numbers = not isinstance(argument, Mapping) and all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in excluded
    )
    value: Any = (
        choices.draw_integer(-100, 1000, site="other-number")
        if numbers
        else _free_text(choices, 1, 12)
    )
    for _ in range(8):
        if rule_matches(rule, value):
            return value
        value = value + 1 if numbers else "x" + value + "x"
    return value
