"""Strings matching a regular expression, drawn through `Choices`.

JSON Schema `pattern`s (pydantic's `constr(pattern=...)`, `Field(pattern=...)`) decide
whether an order id or a SKU is admitted.  Libraries that generate from a regex (`rstr`,
`exrex`) draw from their own `random`, so their strings could not be replayed or mutated
choice by choice; this walks the parse tree of Python's own regex parser instead, one
draw per repeat count, alternative and character.  Anchors and look-arounds are skipped;
the caller checks the result with `re.search` and treats a miss as a near-valid value.
"""

from __future__ import annotations

import functools
import re
import string
from typing import Any, Final

from lambdafuzz.generators.core import Choices, generator

try:  # the parser `re` compiles with (a private module; `sre_parse` is its deprecated alias)
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: Unbounded repeats (`*`, `+`, `{2,}`) stop this many past their minimum at most.
MAX_EXTRA_REPEATS: Final = 8
_REPEATS: Final = tuple(
    op
    for op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", None))
    if op is not None
)
_ATOMIC_GROUP: Final = getattr(_sre, "ATOMIC_GROUP", None)
_PRINTABLE: Final = string.ascii_letters + string.digits + " -_.,:;/@#"
_CATEGORIES: Final = {
    _sre.CATEGORY_DIGIT: string.digits,
    _sre.CATEGORY_NOT_DIGIT: string.ascii_letters + " -_",
    _sre.CATEGORY_SPACE: " \t",
    _sre.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
    _sre.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    _sre.CATEGORY_NOT_WORD: " -.,:;/@#",
}


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> tuple[Any, ...] | None:
    """The pattern as a tree of plain tuples (character classes expanded once), or None
    when Python's `re` cannot read it (JSON Schema patterns are ECMA 262; pydantic's Rust
    engine reads a few Python does not)."""
    try:
        return _convert(_sre_parse.parse(pattern))
    except (re.error, RecursionError, ValueError, TypeError):
        return None


@generator(None)
def regex_strings(choices: Choices, tree: tuple[Any, ...]) -> str:
    """A string the compiled pattern `tree` (from `compile_pattern`) matches, usually."""
    out: list[str] = []
    _emit(choices, tree, out, {})
    return "".join(out)


def _convert(tree: Any) -> tuple[Any, ...]:
    nodes: list[tuple[Any, ...]] = []
    for op, arg in tree:
        if op is _sre.LITERAL:
            nodes.append(("lit", chr(arg)))
        elif op is _sre.NOT_LITERAL:
            nodes.append(("lit", "x" if chr(arg) != "x" else "y"))
        elif op is _sre.ANY:
            nodes.append(("set", _PRINTABLE))
        elif op is _sre.IN:
            nodes.append(("set", _class_chars(arg)))
        elif op in _REPEATS:
            low, high, sub = arg
            nodes.append(("rep", low, min(high, low + MAX_EXTRA_REPEATS), _convert(sub)))
        elif op is _sre.SUBPATTERN:
            nodes.append(("group", arg[0], _convert(arg[3])))
        elif op is _sre.BRANCH:
            nodes.append(("alt", tuple(_convert(b) for b in arg[1])))
        elif op is _sre.GROUPREF:
            nodes.append(("ref", arg))
        elif op is _ATOMIC_GROUP:
            nodes.append(("group", None, _convert(arg)))
        # AT (anchors), ASSERT / ASSERT_NOT (look-arounds): nothing to emit
    return tuple(nodes)


def _emit(choices: Choices, tree: tuple[Any, ...], out: list[str], groups: dict[int, str]) -> None:
    for node in tree:
        kind = node[0]
        if kind == "lit":
            out.append(node[1])
        elif kind == "set":
            out.append(choices.draw_choice(node[1], site="char"))
        elif kind == "rep":
            _, low, high, sub = node
            for _ in range(choices.draw_integer(low, max(low, high), site="repeat")):
                _emit(choices, sub, out, groups)
        elif kind == "group":
            start = len(out)
            _emit(choices, node[2], out, groups)
            if node[1] is not None:
                groups[node[1]] = "".join(out[start:])
        elif kind == "alt":
            _emit(choices, choices.draw_choice(node[1], site="branch"), out, groups)
        else:  # a back reference
            out.append(groups.get(node[1], ""))


def _class_chars(items: Any) -> str:
    """The characters of a class `[...]`; of a negated one, printable ones outside it."""
    allowed: list[str] = []
    negated = False
    for op, arg in items:
        if op is _sre.NEGATE:
            negated = True
        elif op is _sre.LITERAL:
            allowed.append(chr(arg))
        elif op is _sre.RANGE:
            low, high = arg
            allowed.extend(chr(c) for c in range(low, min(high, low + 255) + 1))
        elif op is _sre.CATEGORY:
            allowed.extend(_CATEGORIES.get(arg, string.ascii_letters))
    if negated:
        excluded = set(allowed)
        allowed = [ch for ch in _PRINTABLE if ch not in excluded]
    return "".join(dict.fromkeys(allowed)) or "x"
