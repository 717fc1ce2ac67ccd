"""Which lines of a source file are `raise` statements, and which exception each names.

A failure located at `raise BadRequest(...)` in the application, of that very type, was
raised on purpose: most often the handler refusing an input it validates.  The campaign's
tally of what stops its inputs (`fuzzer.rejections`) asks this once per failure site.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

#: Source files larger than this are not parsed (a generated module, a vendored bundle).
MAX_SOURCE_BYTES = 2_000_000


def raised_names(path: Path) -> Mapping[int, str]:
    """Line -> the exception class a `raise` statement on that line names (its last
    dotted part: `raise errors.BadRequest(...)` -> `BadRequest`), for every line the
    statement spans.  A bare `raise` (re-raising what was caught) names nothing.  Empty
    when the file cannot be read or parsed."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return {}
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return {}
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        name = _class_name(node.exc)
        if name:
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                found[line] = name
    return found


def _class_name(exc: ast.expr) -> str:
    """`BadRequest` of `BadRequest`, `BadRequest("x")`, `errors.BadRequest(...)`; "" for
    anything else (`raise make_error()` names a function, not a class we can tell)."""
    target = exc.func if isinstance(exc, ast.Call) else exc
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""
