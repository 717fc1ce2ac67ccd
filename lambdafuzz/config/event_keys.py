"""The payload keys a handler reads, from its source: what a direct invocation must carry,
and the form fields it reads from an url-encoded request body.

A function invoked directly (by the SDK, Step Functions, another function) gets whatever
JSON its caller sends; nothing in the template says what.  The handler's own code does:
`event["order_id"]` (a key every payload has), `event.get("items")` or `"dry_run" in event`
(a key a payload may have: written `items?`).  Those top-level keys, in the order they first
appear in the handler function, are what lambdafuzz puts in the payloads it generates.

A handler that iterates its payload (`for item in event`, `[x["id"] for x in event]`,
`event[0]["id"]`) and reads no key of it is sent a JSON array: a Step Functions Map's
results, a batch its caller collects.  Its items' keys are read from the loop variable.

What a handler reads below a key (`detail = event["detail"]; item = detail["check"];
item["Bucket Name"]`, through local names) is a nested shape (`read_shape`): an
EventBridge event's producer sends every field its consumers read.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Handler modules larger than this are not parsed for keys (a handler module is ~10 KB).
MAX_SOURCE_BYTES = 2 * 1024 * 1024


def handler_file(root: Path, module: str) -> Path | None:
    """The file Lambda imports `module` from, below `root`."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _handler(source_file: Path, function: str) -> tuple[ast.AST, str] | None:
    """The handler function's node and the name of its first parameter."""
    tree = _parse(source_file)
    if tree is None:
        return None
    handler = next(
        (
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
        ),
        None,
    )
    if handler is None or not handler.args.args:
        return None
    return handler, handler.args.args[0].arg


def event_keys(source_file: Path, function: str) -> tuple[str, ...]:
    """Top-level keys the handler `function` in `source_file` reads from its first
    parameter, `key?` for one it only looks for (`get`, `in`) and never subscripts; ()
    when the file cannot be read or parsed, or reads none."""
    found = _handler(source_file, function)
    if found is None:
        return ()
    handler, event = found
    return _keys_read(handler, (event,))


def array_item_keys(source_file: Path, function: str) -> tuple[str, ...] | None:
    """When the handler iterates its first parameter (`for x in event`, a comprehension
    over it, `enumerate(event)`, `event[0]`) and reads no key of it: the keys its items are
    read by, as `event_keys` writes them (possibly none); None when it does not."""
    found = _handler(source_file, function)
    if found is None:
        return None
    handler, event = found
    if _keys_read(handler, (event,)):  # it reads keys of its payload: an object
        return None
    items: list[str] = []
    indexed = False
    for node in ast.walk(handler):
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            iterated = node.iter
            target = node.target
            if (
                isinstance(iterated, ast.Call)
                and _is_name(iterated.func, "enumerate")
                and iterated.args
                and isinstance(target, ast.Tuple)
                and len(target.elts) == 2
            ):
                iterated, target = iterated.args[0], target.elts[1]
            if _is_name(iterated, event):
                items += [target.id] if isinstance(target, ast.Name) else []
                indexed = indexed or isinstance(target, ast.Name)
        elif _is_item(node, event):
            indexed = True
    if not indexed:
        return None
    return _keys_read(handler, tuple(items), element_of=event)


def _keys_read(handler: ast.AST, names: tuple[str, ...], element_of: str = "") -> tuple[str, ...]:
    """The keys `handler` reads from any of `names` (and, given `element_of`, from its
    constant-indexed items: `event[0]["k"]`), `key?` for one only looked for."""
    found = []
    required = set()
    for node in ast.walk(handler):  # breadth first: sorted by position below
        key = None
        for name in names:
            key = key or _read_key(node, name)
        if key is None and element_of:
            if isinstance(node, ast.Subscript) and _is_item(node.value, element_of):
                key = _text(node.slice)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and _is_item(node.func.value, element_of)
                and node.args
            ):
                key = _text(node.args[0])
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


def _is_item(node: ast.AST, name: str) -> bool:
    """`name[0]`: an item of the array `name` at a constant index."""
    return (
        isinstance(node, ast.Subscript)
        and _is_name(node.value, name)
        and isinstance(node.slice, ast.Constant)
        and type(node.slice.value) is int
    )


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


#: Local names followed from the event to what is read through them (`x = event["a"]`).
_ALIAS_PASSES = 3


@dataclass(frozen=True, slots=True)
class ReadShape:
    """What a handler reads below one key of its event: the shape (`json_files` syntax,
    as JSON text) and the constants it compares fields with (path below the key ->
    values: `item["Status"] != "No"` gives `(("item", "Status"), ("No",))`)."""

    shape_json: str
    compared: tuple[tuple[tuple[str, ...], tuple[str | int | float, ...]], ...] = ()


def read_shape(source_file: Path, function: str, under: str) -> ReadShape | None:
    """The shape of what the handler `function` reads below its first parameter's `under`
    key, following local names assigned from it: `{"required": {"check": {"required":
    {"Bucket Name": "any"}}}, "optional": {...}}` (a key only looked for with `get` is
    optional), and the constants it compares those fields with.  None when it reads
    nothing below `under`."""
    found = _handler(source_file, function)
    if found is None:
        return None
    handler, event = found
    aliases: dict[str, tuple[str, ...]] = {event: ()}
    for _ in range(_ALIAS_PASSES):
        for node in ast.walk(handler):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                path = _path(node.value, aliases)
                if path is not None and node.targets[0].id not in aliases:
                    aliases[node.targets[0].id] = path
    tree: dict[str, Any] = {}
    compared: dict[tuple[str, ...], dict[str | int | float, None]] = {}
    for node in ast.walk(handler):
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                path = _path(side, aliases)
                values = _constants(other, node.ops[0])
                if path and values and path[0].rstrip("?") == under and len(path) > 1:
                    steps = tuple(step.removesuffix("?") for step in path[1:])
                    compared.setdefault(steps, {}).update(dict.fromkeys(values))
        path = _path(node, aliases)
        if path is None or len(path) < 2 or path[0].rstrip("?") != under:
            continue
        level = tree
        for step in path[1:]:
            level = level.setdefault(step, {})
    if not tree:
        return None
    return ReadShape(
        json.dumps(_shape(tree), ensure_ascii=False, sort_keys=True),
        tuple((steps, tuple(values)) for steps, values in compared.items()),
    )


def _constants(node: ast.AST, op: ast.cmpop) -> tuple[str | int | float, ...]:
    """The constants a field is compared with: `== "A"`, `!= 3`, `in ("A", "B")`."""
    if isinstance(op, ast.In | ast.NotIn) and isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = node.elts
    elif isinstance(op, ast.Eq | ast.NotEq):
        items = [node]
    else:
        return ()
    return tuple(
        item.value
        for item in items
        if isinstance(item, ast.Constant) and type(item.value) in (str, int, float)
    )


def _path(node: ast.AST, aliases: dict[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """The keys `node` reads from the event (`key?` when looked for with `get`), through
    `aliases`; None when it reads nothing of it."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Subscript):
        key = _text(node.slice)
        base = _path(node.value, aliases)
        return None if key is None or base is None else (*base, key)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    ):
        key = _text(node.args[0])
        base = _path(node.func.value, aliases)
        return None if key is None or base is None else (*base, f"{key}?")
    return None


def _shape(tree: dict[str, Any]) -> dict[str, Any]:
    """Nested keys -> a shape: a key read as `key` is required, one only as `key?`
    optional; a key with nothing read below it is any JSON value."""
    required: dict[str, Any] = {}
    optional: dict[str, Any] = {}
    for step, below in tree.items():
        name = step.removesuffix("?") if step.endswith("?") and len(step) > 1 else step
        value = _shape(below) if below else "any"
        if step == name:
            required[name] = _merge(required.get(name), value)
        elif name not in required:
            optional[name] = _merge(optional.get(name), value)
    for name in required:
        optional.pop(name, None)
    return {"required": required, "optional": optional}


def _merge(old: Any, new: Any) -> Any:
    """Two shapes of one key: the nested one wins over "any", nested ones merge."""
    if old is None or old == "any":
        return new
    if new == "any":
        return old
    merged = {"required": {**old["required"]}, "optional": {**old["optional"]}}
    for part in ("required", "optional"):
        for name, value in new[part].items():
            merged[part][name] = _merge(merged[part].get(name), value)
    for name in merged["required"]:
        merged["optional"].pop(name, None)
    return merged
