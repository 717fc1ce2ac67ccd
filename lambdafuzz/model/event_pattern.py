"""Event patterns: the filter language of Lambda `FilterCriteria` and EventBridge rules.

A deployment that filters decides which events (or records of a batch) ever reach the
handler; the fuzzer must apply the same decision, or it reports failures on inputs the
deployment never delivers.  Pure Python on purpose: the config validates patterns with
`pattern_problem`, generators steer by them and the harness drops what they refuse, and
neither the generators nor the model may import moto (whose matcher is internal and does
not descend into arrays of objects anyway).

Semantics (as AWS documents them): a pattern is a mapping; a mapping value descends into
the event, a list value is a leaf that matches when ANY of its rules matches the event's
value there (for an array value: any element).  Rules are scalars (exact match; numbers
by value; `null` matches a null value) or one-key operator objects: `prefix`, `suffix`
(a string or `{"equals-ignore-case": s}`), `equals-ignore-case`, `wildcard` (`*` any
run, `\\*` a star), `anything-but` (a scalar, a list of them, or `{prefix|suffix|
equals-ignore-case|wildcard: ...}`), `numeric` (`[op, n]` or `[op, n, op, n]`), `exists`
(bool; the only rule a missing field can satisfy) and `cidr`.  `"$or": [pattern, ...]`
inside a mapping matches when one alternative does.  Every key of a mapping must match.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

#: Leaf operators the matcher implements.
OPERATORS: Final = (
    "prefix",
    "suffix",
    "anything-but",
    "numeric",
    "exists",
    "equals-ignore-case",
    "wildcard",
    "cidr",
)
OR_KEY: Final = "$or"
NUMERIC_OPERATORS: Final[Mapping[str, Callable[[float, float], bool]]] = {
    "<": operator.lt,
    "<=": operator.le,
    "=": operator.eq,
    ">=": operator.ge,
    ">": operator.gt,
}


class _Missing:
    """A field the event does not have (distinct from a null value)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class PatternError(ValueError):
    """A malformed pattern: `path` leads to the offending part, `expected` says what
    should have been there."""

    def __init__(self, path: tuple[str | int, ...], expected: str) -> None:
        super().__init__(f"{'.'.join(str(p) for p in path) or '(pattern)'}: {expected}")
        self.path = path
        self.expected = expected


# =========================================================================== validating
def check_pattern(pattern: Any, path: tuple[str | int, ...] = ()) -> None:
    """Raise `PatternError` unless `pattern` is a well-formed, non-empty pattern mapping."""
    if not isinstance(pattern, Mapping) or not pattern:
        raise PatternError(path, "a non-empty mapping of field -> [rules] or nested pattern")
    for key, value in pattern.items():
        here = (*path, key)
        if not isinstance(key, str):
            raise PatternError(here, "field names are strings")
        if key == OR_KEY:
            if not isinstance(value, list) or not value:
                raise PatternError(here, "a non-empty list of alternative patterns")
            for i, alternative in enumerate(value):
                check_pattern(alternative, (*here, i))
        elif isinstance(value, Mapping):
            check_pattern(value, here)
        elif isinstance(value, list):
            if not value:
                raise PatternError(here, "a non-empty list of rules (an empty one matches nothing)")
            for i, rule in enumerate(value):
                _check_rule(rule, (*here, i))
        else:
            raise PatternError(
                here,
                f"a list of rules or a nested pattern, not {type(value).__name__}: "
                f"write [{json.dumps(value)}] to match the value exactly",
            )


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _check_rule(rule: Any, path: tuple[str | int, ...]) -> None:
    if _is_scalar(rule):
        return
    if not isinstance(rule, Mapping) or len(rule) != 1:
        raise PatternError(
            path, "a scalar or an operator object with one of: " + ", ".join(OPERATORS)
        )
    ((name, argument),) = rule.items()
    here = (*path, name)
    if name not in OPERATORS:
        raise PatternError(here, "an operator: one of " + ", ".join(OPERATORS))
    if name in ("prefix", "suffix"):
        if not (isinstance(argument, str) or _ignore_case_string(argument)):
            raise PatternError(here, 'a string or {"equals-ignore-case": "..."}')
    elif name in ("equals-ignore-case", "wildcard", "cidr"):
        if not isinstance(argument, str):
            raise PatternError(here, "a string")
        if name == "cidr":
            try:
                ipaddress.ip_network(argument, strict=False)
            except ValueError:
                raise PatternError(here, "an IP network such as 10.0.0.0/24") from None
    elif name == "exists":
        if not isinstance(argument, bool):
            raise PatternError(here, "true or false")
    elif name == "numeric":
        _check_numeric(argument, here)
    else:
        _check_anything_but(argument, here)


def _ignore_case_string(argument: Any) -> bool:
    return (
        isinstance(argument, Mapping)
        and list(argument) == ["equals-ignore-case"]
        and isinstance(argument["equals-ignore-case"], str)
    )


def _check_numeric(argument: Any, path: tuple[str | int, ...]) -> None:
    expected = "a list [op, number] or [op, number, op, number] with op one of < <= = >= >"
    if not isinstance(argument, list) or len(argument) not in (2, 4):
        raise PatternError(path, expected)
    for op, number in zip(argument[::2], argument[1::2], strict=True):
        if op not in NUMERIC_OPERATORS or not _is_number(number):
            raise PatternError(path, expected)


def _check_anything_but(argument: Any, path: tuple[str | int, ...]) -> None:
    if isinstance(argument, str | int | float) and not isinstance(argument, bool):
        return
    if isinstance(argument, list) and argument and all(_is_scalar(a) for a in argument):
        return
    if isinstance(argument, Mapping) and len(argument) == 1:
        ((name, inner),) = argument.items()
        strings = isinstance(inner, str) or (
            isinstance(inner, list) and inner and all(isinstance(s, str) for s in inner)
        )
        if name in ("prefix", "suffix", "equals-ignore-case", "wildcard") and strings:
            return
    raise PatternError(
        path,
        'a scalar, a non-empty list of scalars, or {"prefix"|"suffix"|"equals-ignore-case"|'
        '"wildcard": string}',
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@functools.lru_cache(maxsize=256)
def load_pattern(text: str) -> Mapping[str, Any]:
    """A pattern from its JSON text (as `Trigger.filters` holds it), checked; shared and
    cached, so callers must not change it."""
    pattern = json.loads(text)
    check_pattern(pattern)
    return pattern


def dump_pattern(pattern: Mapping[str, Any]) -> str:
    """The canonical JSON text of a pattern (compact; key order kept)."""
    return json.dumps(pattern, separators=(",", ":"), ensure_ascii=False)


# =========================================================================== matching
def matches_any(patterns: Sequence[Mapping[str, Any]], document: Any) -> bool:
    """Whether one of `patterns` matches (what Lambda and EventBridge deliver)."""
    return any(matches(p, document) for p in patterns)


def matches(pattern: Mapping[str, Any], document: Any) -> bool:
    """Whether `document` (an event, or one record as Lambda filters it) matches."""
    fields = document if isinstance(document, Mapping) else {}
    for key, rule in pattern.items():
        if key == OR_KEY:
            if not any(matches(alternative, document) for alternative in rule):
                return False
            continue
        value = fields.get(key, MISSING)
        if isinstance(rule, Mapping):
            if isinstance(value, list) and value:
                if not any(matches(rule, element) for element in value):
                    return False
            elif not matches(rule, value):
                return False
        elif not leaf_matches(rule, value):
            return False
    return True


def leaf_matches(rules: Sequence[Any], value: Any) -> bool:
    """Whether one of a leaf's `rules` admits `value` (MISSING for an absent field)."""
    return any(rule_matches(rule, value) for rule in rules)


def rule_matches(rule: Any, value: Any) -> bool:
    if isinstance(rule, Mapping) and "exists" in rule:
        present = value is not MISSING and value != []
        return present == rule["exists"]
    if value is MISSING:
        return False
    if isinstance(value, list):
        return any(rule_matches(rule, element) for element in value)
    if not isinstance(rule, Mapping):
        return scalar_equal(rule, value)
    ((name, argument),) = rule.items()
    return _operator_matches(name, argument, value)


def scalar_equal(expected: Any, value: Any) -> bool:
    """Exact matching: numbers by value (5 == 5.0), everything else by type and value."""
    if _is_number(expected) and _is_number(value):
        return float(expected) == float(value)
    if isinstance(expected, bool) or isinstance(value, bool):
        return type(expected) is type(value) and expected == value
    return type(expected) is type(value) and expected == value


def _operator_matches(name: str, argument: Any, value: Any) -> bool:
    if name == "numeric":
        return _is_number(value) and numeric_matches(argument, float(value))
    if name == "anything-but":
        return _anything_but(argument, value)
    if not isinstance(value, str):
        return False
    if name in ("prefix", "suffix"):
        if isinstance(argument, Mapping):
            argument, value = argument["equals-ignore-case"].casefold(), value.casefold()
        return value.startswith(argument) if name == "prefix" else value.endswith(argument)
    if name == "equals-ignore-case":
        return value.casefold() == argument.casefold()
    if name == "wildcard":
        return wildcard_regex(argument).fullmatch(value) is not None
    return _in_network(argument, value)


def numeric_matches(argument: Sequence[Any], value: float) -> bool:
    return all(
        NUMERIC_OPERATORS[op](value, float(bound))
        for op, bound in zip(argument[::2], argument[1::2], strict=True)
    )


def _anything_but(argument: Any, value: Any) -> bool:
    if isinstance(argument, Mapping):
        ((name, inner),) = argument.items()
        options = inner if isinstance(inner, list) else [inner]
        if not isinstance(value, str):
            return True
        return not any(_operator_matches(name, option, value) for option in options)
    excluded = argument if isinstance(argument, list) else [argument]
    return not any(scalar_equal(option, value) for option in excluded)


@functools.lru_cache(maxsize=256)
def wildcard_regex(text: str) -> re.Pattern[str]:
    """`*` is any run of characters, `\\*` a literal star."""
    parts = re.split(r"(\\\*|\*)", text)
    pieces = [".*" if part == "*" else re.escape("*" if part == "\\*" else part) for part in parts]
    return re.compile("".join(pieces), re.DOTALL)


def _in_network(network: str, value: str) -> bool:
    try:
        return ipaddress.ip_address(value) in ipaddress.ip_network(network, strict=False)
    except ValueError:
        return False
