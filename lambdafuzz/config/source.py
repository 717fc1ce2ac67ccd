"""Where a value sits in a YAML file, and how to tell the user what is wrong with it.

`config.py` decides *what* is valid; this module turns a finding into one `ConfigError`
paragraph: `file:line: yaml.path is <repr>; expected <...>. Did you mean <...>?`.  Lines
come from PyYAML's composed node tree (loaded beside the data), so messages point at the
key the user typed, and pydantic's error records are rewritten into the same sentence.
"""

from __future__ import annotations

import codecs
import difflib
import math
import os
import re
import stat
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

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
    """A case-insensitive match ("s" -> "S", "statuscode" -> "statusCode"), else the
    closest option (difflib)."""
    lowered: dict[str, str] = {}
    for option in options:
        lowered.setdefault(option.lower(), option)
    if word.lower() in lowered:
        return lowered[word.lower()]
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.5)
    return found[0] if found else None


def dotpath(loc: Sequence[Any]) -> str:
    """`("resources", "tables", 0, "hash_key")` -> `resources.tables[0].hash_key`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


# --------------------------------------------------------------------------- reading
@dataclass(slots=True, frozen=True)
class Limits:
    """What a file may cost to read: a hostile or broken file is refused in milliseconds
    (a named pipe, a binary, 3000 nested brackets, a "billion laughs" of aliases)."""

    what: str  # "lambdafuzz.yaml" / "template", for messages
    max_bytes: int
    max_depth: int = 64  # nesting levels, counted through aliases
    max_values: int = 100_000  # nodes once every alias is expanded
    max_chars: int = 10_000_000  # characters of scalar text once every alias is expanded


CONFIG_LIMITS = Limits("lambdafuzz.yaml", max_bytes=1_000_000)
#: CloudFormation's own limit is 1 MB; SAM's pre-transform templates may be somewhat larger.
TEMPLATE_LIMITS = Limits("template", max_bytes=4_000_000, max_values=1_000_000)

#: Characters YAML 1.1 allows in a stream (everything else is a control character).
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),  # before UTF-16 LE, whose mark it starts with
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def file_kind(path: Path) -> str | None:
    """What `path` is when it is not a regular file ("a directory", "a named pipe (FIFO)"),
    None for a regular file or a path that does not exist."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    return next((kind for test, kind in _FILE_KINDS if test(mode)), None)


def read_text(file: Path, limits: Limits) -> str:
    """The text of `file`: a regular UTF-8 text file of at most `limits.max_bytes`.  Never
    blocks (a FIFO is refused before it is opened) and never reads more than the limit."""
    expected = f"expected a {limits.what} file"
    kind = file_kind(file)
    if kind is not None:
        raise ConfigError(f"{file}: is {kind}, not a regular file; {expected}.")
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ConfigError(f"{file}: cannot be read ({exc.strerror}); {expected}.") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since the check above
            raise ConfigError(f"{file}: is not a regular file; {expected}.")
        raw = b""
        while len(raw) <= limits.max_bytes:
            chunk = os.read(fd, limits.max_bytes + 1 - len(raw))
            if not chunk:
                break
            raw += chunk
    except OSError as exc:
        raise ConfigError(f"{file}: cannot be read ({exc.strerror}); {expected}.") from None
    finally:
        os.close(fd)
    if len(raw) > limits.max_bytes:
        raise ConfigError(
            f"{file}: is larger than {limits.max_bytes:,} bytes; expected a {limits.what} "
            f"of at most {limits.max_bytes:,} bytes."
        )
    return _decode(file, raw, limits)


def _decode(file: Path, raw: bytes, limits: Limits) -> str:
    for bom, encoding in _WIDE_BOMS:
        if raw.startswith(bom):
            raise ConfigError(
                f"{file}:1:1: starts with a {encoding} byte-order mark; expected a "
                f"{limits.what} in UTF-8 text (save it as UTF-8)."
            )
    nul = raw.find(b"\0")
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise ConfigError(
            f"{file}:{line}: holds a NUL byte (byte {nul}), so it is a binary file; "
            f"expected a {limits.what} in UTF-8 text."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(
            f"{file}:{line}:{column}: byte 0x{raw[exc.start]:02x} is not UTF-8; expected a "
            f"{limits.what} in UTF-8 text (save it as UTF-8)."
        ) from None
    bad = _NOT_PRINTABLE.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise ConfigError(
            f"{file}:{line}:{column}: control character U+{ord(bad.group()):04X} is not "
            f"allowed in YAML; expected printable text (tabs and newlines are fine)."
        )
    return text


def parse_yaml(
    file: Path, text: str, loader: type[BoundedLoader], limits: Limits
) -> tuple[Any, yaml.Node | None]:
    """(data, node tree) of the one YAML document in `text`, within `limits`; every
    problem (syntax, duplicate keys, nesting, alias expansion) -> ConfigError."""
    parser = loader(text, limits)
    try:
        node = parser.get_single_node()
        data = parser.construct_document(node) if node is not None else None
    except _Refused as exc:
        raise ConfigError(f"{file}:{exc.mark.line + 1}: {exc.message}.") from None
    except yaml.YAMLError as exc:
        if str(getattr(exc, "problem", "")).startswith(PYYAML_DEPTH):
            # PyYAML >= 6.0.4 stops at its own nesting limit before our composer counts
            # 64 levels: the same refusal, at the line where the parser gave up
            line = _yaml_where(file, exc).rsplit(":", 1)[0]
            raise ConfigError(
                f"{line}: nested more than {limits.max_depth} levels deep; "
                f"expected a {limits.what} nested a few levels."
            ) from None
        raise ConfigError(
            f"{_yaml_where(file, exc)}: not valid YAML: {_yaml_problem(exc, text)}."
        ) from None
    except RecursionError:  # limits.max_depth keeps this from happening; never a traceback
        raise ConfigError(
            f"{file}: nested too deeply to read; expected at most {limits.max_depth} levels."
        ) from None
    finally:
        parser.dispose()
    return data, node


def _yaml_where(file: Path, exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return f"{file}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(file)


#: How PyYAML (6.0.4 and later) words its own nesting limit.
PYYAML_DEPTH = "exceeded maximum nesting depth"
#: What was expected where PyYAML's problem does not say (matched on the problem's start).
_YAML_EXPECTED = (
    ("found character that cannot start any token", "a key, a value or a list item there"),
    ("found unhashable key", "a plain key (a name, not a list or a mapping)"),
    ("could not determine a constructor", "plain values (no tags)"),
    ("found undefined alias", "an anchor (&name) defined before its alias (*name)"),
    ("found duplicate anchor", "each anchor (&name) defined once"),
    ("mapping values are not allowed", "`key: value` pairs (quote a value that holds ': ')"),
    ("found unexpected end of stream", "the closing quote or bracket"),
    ("found unknown escape character", "a valid escape in a double-quoted string"),
)


def _yaml_problem(exc: yaml.YAMLError, text: str) -> str:
    problem = getattr(exc, "problem", None)
    if not problem:
        return " ".join(str(exc).split())
    context = getattr(exc, "context", None)
    problem = problem.rstrip(".")
    message = f"{problem} ({context})" if context else problem
    if "expected" not in message:
        hint = next((e for start, e in _YAML_EXPECTED if problem.startswith(start)), None)
        if _char_at(text, getattr(exc, "problem_mark", None)) == "\t":
            hint = "spaces, not a tab (YAML does not allow tabs for indentation)"
        message += f"; expected {hint or 'valid YAML syntax'}"
    return message


def _char_at(text: str, mark: Any) -> str:
    if mark is None:
        return ""
    lines = text.split("\n", mark.line + 1)
    line = lines[mark.line] if mark.line < len(lines) else ""
    return line[mark.column] if mark.column < len(line) else ""


def read_yaml(file: Path) -> tuple[dict[str, Any], Locator]:
    """The top-level mapping of a lambdafuzz.yaml and a locator for its lines."""
    text = read_text(file, CONFIG_LIMITS)
    data, node = parse_yaml(file, text, ConfigLoader, CONFIG_LIMITS)
    expected = "expected a mapping with at least `handler` and `trigger`"
    if data is None:
        raise ConfigError(f"{file}: the file is empty; {expected}.")
    if not isinstance(data, dict):
        shown = f" ({data!r:.60})" if isinstance(data, str | int | float | bool) else ""
        raise ConfigError(f"{file}:1: the top level is a {_kind_word(data)}{shown}; {expected}.")
    return data, Locator(file, node)


def _kind_word(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


class _Refused(Exception):
    """A document the bounded composer will not build, at `mark`."""

    def __init__(self, mark: Any, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.message = message


class _BoundedComposer(Composer):
    """PyYAML's composer with three checks while it builds the node tree: nesting depth,
    the size the document reaches once aliases are expanded, and duplicate keys."""

    limits: Limits

    def _bounded_init(self, limits: Limits) -> None:
        Composer.__init__(self)
        self.limits = limits
        # id(node) -> (values, characters, levels) of the node with its aliases expanded
        self._cost: dict[int, tuple[int, int, int]] = {}
        self._path: list[Any] = []

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None:
                cost = self._cost.get(id(target))
                if cost is None:
                    raise _Refused(
                        event.start_mark,
                        f"{self._where()}: alias *{event.anchor} refers to a node that "
                        f"contains it; expected no recursive aliases",
                    )
                self._check_depth(len(self._path) + cost[2], event.start_mark)
            return super().compose_node(parent, index)
        if isinstance(parent, yaml.MappingNode):
            self._path.append(index.value if isinstance(index, yaml.ScalarNode) else "?")
        elif isinstance(parent, yaml.SequenceNode):
            self._path.append(index)
        self._check_depth(len(self._path) + 1, self.peek_event().start_mark)
        node = super().compose_node(parent, index)
        self._measure(node)
        if parent is not None:
            self._path.pop()
        return node

    def compose_mapping_node(self, anchor: str | None) -> yaml.MappingNode:
        node = super().compose_mapping_node(anchor)
        seen: set[str] = set()
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen and key.value != "<<":
                    self.duplicate_key(key, (*self._path, key.value))
                seen.add(key.value)
        return node

    def duplicate_key(self, key: yaml.ScalarNode, path: tuple[Any, ...]) -> None:
        """A key a mapping holds twice: refused (a loader may record it instead)."""
        raise _Refused(key.start_mark, f"{dotpath(path)} appears twice; expected each key once")

    def _check_depth(self, depth: int, mark: Any) -> None:
        if depth > self.limits.max_depth:
            raise _Refused(
                mark,
                f"{self._where()}: nested more than {self.limits.max_depth} levels deep; "
                f"expected a {self.limits.what} nested a few levels",
            )

    def _measure(self, node: yaml.Node) -> None:
        if isinstance(node, yaml.ScalarNode):
            cost = (1, len(node.value), 1)
        else:
            children = (
                [part for pair in node.value for part in pair]
                if isinstance(node, yaml.MappingNode)
                else node.value
            )
            values, chars, levels = 1, 0, 0
            for child in children:
                c_values, c_chars, c_levels = self._cost[id(child)]
                values += c_values
                chars += c_chars
                levels = max(levels, c_levels)
            cost = (values, chars, levels + 1)
        self._cost[id(node)] = cost
        limits = self.limits
        if cost[0] > limits.max_values or cost[1] > limits.max_chars:
            raise _Refused(
                node.start_mark,
                f"{self._where()}: this value expands to more than {limits.max_values:,} "
                f"values or {limits.max_chars:,} characters once its aliases (*name) are "
                f"expanded; expected a {limits.what} that stays small with aliases expanded",
            )

    def _where(self) -> str:
        shown = dotpath(self._path)
        return shown if len(shown) <= 80 else shown[:77] + "..."


if yaml.__with_libyaml__:
    from yaml._yaml import CParser as _Parser  # libyaml: about ten times faster

    def _init_parser(loader: Any, text: str) -> None:
        _Parser.__init__(loader, text)

    _PARSER_BASES: tuple[type, ...] = (_Parser,)
else:  # pragma: no cover - PyYAML without libyaml

    def _init_parser(loader: Any, text: str) -> None:
        Reader.__init__(loader, text)
        Scanner.__init__(loader)
        Parser.__init__(loader)

    _PARSER_BASES = (Reader, Scanner, Parser)


class BoundedLoader(_BoundedComposer, *_PARSER_BASES, SafeConstructor, Resolver):  # type: ignore[misc]
    """A safe YAML loader (libyaml's parser where installed) within `Limits`."""

    def __init__(self, text: str, limits: Limits) -> None:
        _init_parser(self, text)
        self._bounded_init(limits)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)


class ConfigLoader(BoundedLoader):
    """lambdafuzz.yaml: plain YAML; a local tag (`!Ref`) is a mistake worth naming."""


def _no_local_tags(loader: Any, suffix: str, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"the tag !{suffix} means nothing in a lambdafuzz.yaml; expected plain values "
        f"(CloudFormation tags such as !Ref belong in a SAM template)",
        node.start_mark,
    )


ConfigLoader.add_multi_constructor("!", _no_local_tags)


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
    "finite_number": "a finite number",
}


@dataclass(slots=True, frozen=True)
class KeyHints:
    """What to say about a key the schema does not know, beyond the nearest valid key:
    `renamed` maps a name users write (lowercased, `-` as `_`; an older name, a SAM
    property) to the field that holds it now, `notes` maps a name to a sentence."""

    renamed: Mapping[str, str] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)


def from_validation_error(
    exc: ValidationError,
    where: Locator,
    root_model: type[BaseModel],
    descriptions: Mapping[str, str],
    hints: KeyHints | None = None,
) -> ConfigError:
    """The first problem (by line) as one paragraph, counting the others."""
    errors = _prefer_specific(exc.errors(include_url=False))
    # unknown keys first on a line: `typ: S` explains the missing `type` beside it
    errors.sort(key=lambda e: (where.line(_clean_loc(e["loc"])), e["type"] != "extra_forbidden"))
    error = _one_error(errors[0], where, root_model, descriptions, hints or KeyHints())
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
    e: Any,
    where: Locator,
    root_model: type[BaseModel],
    descriptions: Mapping[str, str],
    hints: KeyHints,
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
        return ConfigError(message + unknown_key_hint(str(loc[-1]), loc[:-1], root_model, hints))
    if kind == CUSTOM_ERROR:
        return where.error(loc, value, ctx["expected"], ctx.get("suggestion"))
    if kind in _TYPE_WORDS:
        return where.error(loc, value, f"{_TYPE_WORDS[kind]} ({described})", _unquoted(kind, value))
    expected = _BOUND_WORDS[kind].format(**ctx) if kind in _BOUND_WORDS else e["msg"]
    return where.error(loc, value, expected)


def _unquoted(kind: str, value: Any) -> Any:
    """`timeout_s: '5'` -> suggest 5 (not `'1e999'` -> inf)."""
    if kind in ("int_type", "float_type") and isinstance(value, str):
        try:
            number = int(value) if kind == "int_type" else float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
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
        model = model_in(field.annotation)
    return list(model.model_fields) if isinstance(model, type) else []


def unknown_key_hint(
    key: str, parent: Sequence[Any], root_model: type[BaseModel], hints: KeyHints
) -> str:
    """ " Did you mean ...?" for an unknown `key` under `parent`, from the keys valid there,
    the keys valid elsewhere (a misplaced key), `hints` (an old name) and compound names
    (`trigger_source` -> `trigger.source`); "" when nothing is close."""
    allowed = allowed_keys(root_model, parent)
    norm = key.lower().replace("-", "_")
    if norm in hints.notes:
        return f" {key}: {hints.notes[norm]}."
    name = hints.renamed.get(norm, norm)
    if name in allowed:
        return f" Did you mean {name!r}?"
    homes = key_homes(root_model).get(name, [])
    if homes:
        listed = " or ".join(homes[:3]) + (" (...)" if len(homes) > 3 else "")
        here = f"under {dotpath(parent)}" if parent else "at the top level"
        as_name = "" if name == key else f" (as {name})"
        return f" {key} is valid under {listed}{as_name}, not {here}."
    for i, char in enumerate(norm):
        if char != "_":
            continue
        head, tail = norm[:i], norm[i + 1 :]
        tail = hints.renamed.get(tail, tail)
        below = (*parent, head)
        if (
            head in allowed
            and not _is_list_field(root_model, below)
            and tail in allowed_keys(root_model, below)
        ):
            return f" Did you mean {dotpath((*below, tail))}? Write it nested: `{head}: {{{tail}: ...}}`."
    close = nearest(key, allowed)
    return f" Did you mean {close!r}?" if close else ""


def key_homes(root_model: type[BaseModel]) -> dict[str, list[str]]:
    """Field name -> the YAML paths of the mappings where it is valid
    (`source` -> [`trigger`], `formats` -> [`resources.buckets[i].objects`])."""
    homes: dict[str, list[str]] = {}

    def walk(model: Any, path: str) -> None:
        for name, info in model.model_fields.items():
            homes.setdefault(name, []).append(path or "the top level")
            inner = model_in(info.annotation)
            if inner is not None:
                below = f"{path}.{name}" if path else name
                walk(inner, below + ("[i]" if is_list(info.annotation) else ""))

    walk(root_model, "")
    return homes


def _is_list_field(root_model: type[BaseModel], loc: Sequence[Any]) -> bool:
    model: Any = root_model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        info = model.model_fields.get(part) if isinstance(model, type) else None
        if info is None:
            return False
        model = model_in(info.annotation)
    info = model.model_fields.get(loc[-1]) if isinstance(model, type) else None
    return info is not None and is_list(info.annotation)


def is_list(annotation: Any) -> bool:
    """Whether a field's annotation is a list (also inside `X | None`, `Annotated`)."""
    if typing.get_origin(annotation) is list:
        return True
    return any(is_list(arg) for arg in typing.get_args(annotation))


def model_in(annotation: Any) -> Any:
    """The BaseModel inside `X | None`, `list[X]`, `Annotated[X, ...]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = model_in(arg)
        if found is not None:
            return found
    return None
