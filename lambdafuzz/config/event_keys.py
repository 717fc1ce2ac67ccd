"""The payload keys a handler reads, from its source: what a direct invocation must carry,
and the form fields it reads from an url-encoded request body.

A function invoked directly (by the SDK, Step Functions, another function) gets whatever
JSON its caller sends; nothing in the template says what.  The handler's own code does:
`event["order_id"]` (a key every payload has), `event.get("items")` or `"dry_run" in event`
(a key a payload may have: written `items?`).  Those top-level keys, in the order they first
appear in the handler function, are what lambdafuzz puts in the payloads it generates.
"""

from __future__ import annotations

import ast
from pathlib import Path

#: Handler modules larger than this are not parsed for keys (a handler module is ~10 KB).
MAX_SOURCE_BYTES = 2 * 1024 * 1024


def handler_file(root: Path, module: str) -> Path | None:
    """The file Lambda imports `module` from, below `root`."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def event_keys(source_file: Path, function: str) -> tuple[str, ...]:
    """Top-level keys the handler `function` in `source_file` reads from its first
    parameter, `key?` for one it only looks for (`get`, `in`) and never subscripts; ()
    when the file cannot be read or parsed, or reads none."""
    tree = _parse(source_file)
    if tree is None:
        return ()
    handler = next(
        (
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
        ),
        None,
    )
    if handler is None or not handler.args.args:
        return ()
    event = handler.args.args[0].arg
    found = []
    required = set()
    for node in ast.walk(handler):  # breadth first: sorted by position below
        key = _read_key(node, event)
        if key is not None:
            found.append((node.lineno, node.col_offset, key))  # type: ignore[attr-defined]
            if isinstance(node, ast.Subscript):
                required.add(key)
    ordered = dict.fromkeys(key for _, _, key in sorted(found))
    return tuple(key if key in required else f"{key}?" for key in ordered)


#: Functions that parse an url-encoded form (`urllib.parse.parse_qs`, ...).
_FORM_PARSERS = frozenset({"parse_qs", "parse_qsl"})


def form_fields(source_file: Path) -> tuple[str, ...]:
    """Names of the form fields the handler's module reads from what `parse_qs` /
    `parse_qsl` return (`form["qty"]`, `form.get("note")`, `dict(parse_qsl(body))["a"]`),
    in source order; () when the file cannot be parsed or reads none.  The whole module
    is read: handlers often parse the form in a helper."""
    tree = _parse(source_file)
    if tree is None:
        return ()
    forms: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_form(node.value):
            forms.update(t.id for t in node.targets if isinstance(t, ast.Name))
    found = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Subscript) and _is_form(node.value):
            key = _text(node.slice)
        for name in forms:
            key = key or _read_key(node, name)
        if key is not None:
            found.append((node.lineno, node.col_offset, key))  # type: ignore[attr-defined]
    return tuple(dict.fromkeys(key for _, _, key in sorted(found)))


def _is_form(node: ast.AST) -> bool:
    """`parse_qs(...)`, `urllib.parse.parse_qsl(...)`, `dict(parse_qsl(...))`."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name in _FORM_PARSERS:
        return True
    return name == "dict" and len(node.args) == 1 and _is_form(node.args[0])


def _parse(source_file: Path) -> ast.Module | None:
    try:
        if source_file.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return ast.parse(source_file.read_bytes(), str(source_file))
    except (OSError, SyntaxError, ValueError):
        return None


def _read_key(node: ast.AST, event: str) -> str | None:
    """`event["k"]`, `event.get("k")`, `"k" in event` -> "k"."""
    if isinstance(node, ast.Subscript) and _is_name(node.value, event):
        return _text(node.slice)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "pop", "setdefault")
        and _is_name(node.func.value, event)
        and node.args
    ):
        return _text(node.args[0])
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.In | ast.NotIn)
        and _is_name(node.comparators[0], event)
    ):
        return _text(node.left)
    return None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
