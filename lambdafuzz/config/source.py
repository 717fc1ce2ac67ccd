"""Where a value sits in a YAML file, and how to tell the user what is wrong with it.

`config.py` decides *what* is valid; this module turns a finding into one `ConfigError`
paragraph: `file:line: yaml.path is <repr>; expected <...>. Did you mean <...>?`.  Lines
come from PyYAML's composed node tree (loaded beside the data), so messages point at the
key the user typed, and pydantic's error records are rewritten into the same sentence.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from lambdafuzz.errors import ConfigError

MISSING: Any = object()
#: `error_type` of our own pydantic errors; their ctx carries `expected` and `suggestion`.
CUSTOM_ERROR = "lambdafuzz"


def custom_error(expected: str, suggestion: str | None = None) -> PydanticCustomError:
    """Raise from a pydantic validator; becomes `...; expected <expected>. Did you mean ...`."""
    return PydanticCustomError(
        CUSTOM_ERROR, "expected {expected}", {"expected": expected, "suggestion": suggestion}
    )


def nearest(word: str, options: Sequence[str]) -> str | None:
    """The closest option (difflib), or a case-insensitive match: "s" -> "S"."""
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.5)
    if not found:
        lowered = {o.lower(): o for o in options}
        found = [lowered[word.lower()]] if word.lower() in lowered else []
    return found[0] if found else None


def dotpath(loc: Sequence[Any]) -> str:
    """`("resources", "tables", 0, "hash_key")` -> `resources.tables[0].hash_key`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


# --------------------------------------------------------------------------- reading
def read_yaml(file: Path) -> tuple[dict[str, Any], Locator]:
    """The top-level mapping of `file` and a locator for its lines; syntax -> ConfigError."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the configuration: {exc}.") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{file}:{mark.line + 1}:{mark.column + 1}" if mark else str(file)
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        detail = f"{problem} ({context})" if context else problem
        raise ConfigError(f"{where}: not valid YAML: {detail}.") from None
    expected = "expected a mapping with at least `handler` and `trigger`"
    if data is None:
        raise ConfigError(f"{file}: the file is empty; {expected}.")
    if not isinstance(data, dict):
        raise ConfigError(
            f"{file}:1: the top level is a {type(data).__name__} ({data!r:.60}); {expected}."
        )
    _check_duplicates(file, node, ())
    return data, Locator(file, node)


def _check_duplicates(file: Path, node: yaml.Node | None, path: tuple[Any, ...]) -> None:
    """PyYAML keeps the last of two equal keys silently; a config should not."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name in seen:
                raise ConfigError(
                    f"{file}:{key.start_mark.line + 1}: {dotpath((*path, name))} "
                    f"appears twice; expected each key once."
                )
            if name is not None:
                seen.add(name)
            _check_duplicates(file, value, (*path, name))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _check_duplicates(file, item, (*path, i))


class Locator:
    """YAML path -> line number, through the composed node tree."""

    def __init__(self, file: Path, root: yaml.Node | None) -> None:
        self.file = file
        self.root = root

    def line(self, loc: Sequence[Any]) -> int:
        """The line of the deepest node of `loc` that exists (its key where it has one)."""
        node, line = self.root, 1
        for part in loc:
            child = _child(node, part)
            if child is None:
                break
            key_node, node = child
            line = (key_node or node).start_mark.line + 1
        return line

    def where(self, loc: Sequence[Any]) -> str:
        """`file:line`, or just the file for a mapping built in code (no YAML nodes)."""
        return str(self.file) if self.root is None else f"{self.file}:{self.line(loc)}"

    def error(
        self, loc: Sequence[Any], value: Any, expected: str, suggestion: Any = None
    ) -> ConfigError:
        shown = "is missing" if value is MISSING else f"is {value!r}"
        message = f"{self.where(loc)}: {dotpath(loc)} {shown}; expected {expected}."
        if suggestion is not None:
            message += f" Did you mean {suggestion!r}?"
        return ConfigError(message)


def _child(node: yaml.Node | None, part: Any) -> tuple[yaml.Node | None, yaml.Node] | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                return key, value
    elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return None, node.value[part]
    return None


# --------------------------------------------------------------------------- pydantic errors
_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
}
_BOUND_WORDS = {
    "greater_than_equal": "a number >= {ge}",
    "greater_than": "a number > {gt}",
    "less_than_equal": "a number <= {le}",
    "less_than": "a number < {lt}",
    "string_too_short": "a string of at least {min_length} character(s)",
    "string_too_long": "a string of at most {max_length} characters",
}


def from_validation_error(
    exc: ValidationError,
    where: Locator,
    root_model: type[BaseModel],
    descriptions: Mapping[str, str],
) -> ConfigError:
    """The first problem (by line) as one paragraph, counting the others."""
    errors = _prefer_specific(exc.errors(include_url=False))
    # unknown keys first on a line: `typ: S` explains the missing `type` beside it
    errors.sort(key=lambda e: (where.line(_clean_loc(e["loc"])), e["type"] != "extra_forbidden"))
    error = _one_error(errors[0], where, root_model, descriptions)
    if len(errors) > 1:
        more = len(errors) - 1
        error = ConfigError(f"{error} ({more} more problem{'s' if more > 1 else ''} after this.)")
    return error


def _clean_loc(loc: Sequence[Any]) -> tuple[Any, ...]:
    """Drop pydantic's union-branch markers (`str`, `int`, `_KeyModel`, ...) from a loc."""
    return tuple(p for p in loc if isinstance(p, int) or not _is_branch(p))


def _is_branch(part: str) -> bool:
    return part in {"str", "int", "float", "bool", "none"} or part.startswith(("_", "function-"))


def _prefer_specific(errors: list[Any]) -> list[Any]:
    """For `X | None` fields pydantic reports one error per branch; keep the useful one."""
    best: dict[tuple[Any, ...], Any] = {}
    for e in errors:
        loc = _clean_loc(e["loc"])
        if loc not in best or best[loc]["type"] in _TYPE_WORDS:
            best[loc] = e
    return list(best.values())


def _one_error(
    e: Any, where: Locator, root_model: type[BaseModel], descriptions: Mapping[str, str]
) -> ConfigError:
    loc = _clean_loc(e["loc"])
    kind, ctx, value = e["type"], e.get("ctx") or {}, e.get("input")
    last = next((p for p in reversed(loc) if isinstance(p, str)), "")
    described = descriptions.get(last, f"a value for {last}" if last else "a mapping")
    if kind == "missing":
        return where.error(loc, MISSING, f"{described} (required)")
    if kind == "extra_forbidden":
        allowed = allowed_keys(root_model, loc[:-1])
        message = (
            f"{where.where(loc)}: unknown key {dotpath(loc)} (with value {value!r:.60}); "
            f"expected one of: {', '.join(allowed)}."
        )
        suggestion = nearest(str(loc[-1]), allowed)
        return ConfigError(message + (f" Did you mean {suggestion!r}?" if suggestion else ""))
    if kind == CUSTOM_ERROR:
        return where.error(loc, value, ctx["expected"], ctx.get("suggestion"))
    if kind in _TYPE_WORDS:
        return where.error(loc, value, f"{_TYPE_WORDS[kind]} ({described})", _unquoted(kind, value))
    expected = _BOUND_WORDS[kind].format(**ctx) if kind in _BOUND_WORDS else e["msg"]
    return where.error(loc, value, expected)


def _unquoted(kind: str, value: Any) -> Any:
    """`timeout_s: '5'` -> suggest 5."""
    if kind in ("int_type", "float_type") and isinstance(value, str):
        try:
            return int(value) if kind == "int_type" else float(value)
        except ValueError:
            return None
    return None


def allowed_keys(root_model: type[BaseModel], loc: Sequence[Any]) -> list[str]:
    """The field names of the model that sits at `loc` below `root_model`."""
    model: Any = root_model
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) if isinstance(model, type) else None
        if field is None:
            return []
        model = _model_in(field.annotation)
    return list(model.model_fields) if isinstance(model, type) else []


def _model_in(annotation: Any) -> Any:
    """The BaseModel inside `X | None`, `list[X]`, `Annotated[X, ...]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None
