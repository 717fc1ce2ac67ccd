"""JSON values from a JSON Schema: valid most of the time, near-valid often.

A handler behind a Powertools parser or validator only runs on bodies its model admits;
random JSON fails validation on every input.  This draws instances of the schema pydantic
v2 emits (`model_json_schema()`) or a validator's hand-written schema: `type`,
`properties` / `required`, `additionalProperties`, `enum` / `const`, `anyOf` / `oneOf`
(Optional), `allOf`, `$ref` / `$defs`, `items` / `prefixItems` / `minItems` /
`maxItems` / `uniqueItems`, string `minLength` / `maxLength` / `pattern` / `format`
(date-time, date, time, email, uuid, uri, ipv4, ipv6, duration), numeric `minimum` /
`maximum` / `exclusive*` / `multipleOf`, and `contentSchema` (pydantic's `Json[...]`).

A `near_p` share of the values carries exactly one defect at one drawn place (a required
field missing, a wrong type, a bound crossed, an extra field where none are allowed, a
value outside an enum): the validation error paths, and the inputs one edit away from
valid that mutation turns into valid ones.  Every decision is a labelled draw: an object
built for `$defs/Order` draws under the label `<module>.Order`, each property under the
site `property:<name>`, so mutation and SpotOn targeting address them.
"""

from __future__ import annotations

import functools
import json
import math
import re
import string
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import dates, datetimes
from lambdafuzz.generators.files.alphabets import FREE_TEXT, NAME
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.generators.files.json_files import json_values
from lambdafuzz.generators.regex_strings import compile_pattern, regex_strings

SchemaT = Mapping[str, Any] | bool

#: The share of values with one defect (the rest validate).
NEAR_VALID_P: Final = 0.2
#: Nesting depth past which optional parts are left out (recursive models terminate).
MAX_DEPTH: Final = 6
#: Unbounded strings and arrays stay this much longer than their minimum at most.
MAX_EXTRA_LENGTH: Final = 24
MAX_EXTRA_ITEMS: Final = 4
OPTIONAL_P: Final = 0.6
#: Draws of a pattern's string before one that does not match is kept (as near-valid).
PATTERN_TRIES: Final = 3
_TEXT: Final = FREE_TEXT
_TYPES: Final = ("string", "integer", "number", "boolean", "null", "array", "object")
#: Values of another JSON type than the schema asks for (pydantic's lax mode converts
#: numeric strings to numbers and "true"/"yes" to booleans, so none of those).
_WRONG: Final[Mapping[str, tuple[Any, ...]]] = {
    "string": (12345, None, ["text"], {"value": "text"}),
    "integer": ("not-a-number", 1.5, None, [1]),
    "number": ("not-a-number", None, "twelve", [1.5]),
    "boolean": ("maybe", 2, None, []),
    "null": ("text", 0, {}),
    "array": ("text", 7, {"item": 1}),
    "object": ("text", 7, ["item"]),
}


@functools.lru_cache(maxsize=32)
def parse_schema(schema_json: str) -> SchemaT:
    """The schema of a `BodyModel`'s text, parsed once per process (treated as read-only)."""
    try:
        schema = json.loads(schema_json)
    except ValueError as exc:
        raise InvalidArgument(f"not a JSON Schema (invalid JSON): {exc}") from None
    if not isinstance(schema, dict | bool):
        raise InvalidArgument(f"not a JSON Schema: a {type(schema).__name__}, not an object")
    return schema


@generator(labels.JSON_DOCUMENT)
def json_schema_documents(
    choices: Choices, schema_json: str, *, name: str = "", near_p: float = NEAR_VALID_P
) -> str:
    """The JSON text of one instance of the schema (compact, non-ASCII kept)."""
    value = json_schema_values(choices, parse_schema(schema_json), name=name, near_p=near_p)
    return json.dumps(value, ensure_ascii=False)


def json_schema_values(
    choices: Choices, schema: SchemaT, *, name: str = "", near_p: float = NEAR_VALID_P
) -> Any:
    """One instance of `schema`; `name` ("orders.models.Order") labels the top object and,
    by its module, the `$defs` objects.  With probability `near_p` one defect is placed."""
    # a percentile, not a boolean: mutation changes a draw to another value, which would
    # turn every mutated boolean's valid body into a near-valid one; the simplest value
    # (0, what minimization tries) keeps the body valid
    cut = 100 - round(near_p * 100)
    near = near_p > 0 and choices.draw_integer(0, 99, site="near-valid?") >= cut
    drawer = _Drawer(choices, schema, name, near)
    with choices.scope(name or labels.JSON_OBJECT, site="body"):
        return drawer.value(schema, 0)


class _Drawer:
    """One draw's state: the root (for `$ref`), the label prefix, the pending defect."""

    def __init__(self, choices: Choices, root: SchemaT, name: str, near: bool) -> None:
        self.choices = choices
        self.root = root
        module, dot, _ = name.rpartition(".")  # "orders.models.Order", not "order.json"
        self.prefix = (
            f"{module}." if dot and _DOTTED.fullmatch(name) and not name.endswith(".json") else ""
        )
        self.pending = near

    # ------------------------------------------------------------------ dispatch
    def value(self, schema: SchemaT, depth: int) -> Any:
        c = self.choices
        if schema is True or schema == {}:
            return json_values(c, max_depth=max(0, 2 - depth))
        if schema is False or not isinstance(schema, Mapping) or depth > 3 * MAX_DEPTH:
            return None  # (a model that requires itself: no finite instance exists)
        if "$ref" in schema:
            target = self.resolve(schema["$ref"])
            title = target.get("title") if isinstance(target, Mapping) else None
            label = f"{self.prefix}{title}" if isinstance(title, str) and title else None
            if label is None:
                return self.value(target, depth + 1)
            with c.scope(label, site=_site("ref", schema["$ref"].rpartition("/")[2])):
                return self.value(target, depth + 1)
        if "allOf" in schema:
            return self.value(self.merged(schema), depth)
        if "const" in schema:
            return self.const(schema)
        if "enum" in schema:
            return self.enum(schema)
        for key in ("anyOf", "oneOf"):
            if key in schema and schema[key]:
                branch = self.branch(schema[key], depth)
                rest = {k: v for k, v in schema.items() if k != key}
                return self.value(
                    {**rest, **branch} if isinstance(branch, Mapping) else branch, depth
                )
        kind = self.kind(schema)
        if kind is None:
            return json_values(c, max_depth=max(0, 2 - depth))
        if self.pending and c.draw_boolean(0.6 if kind in _SCALARS else 0.25, site="defect?"):
            return self.defect(schema, kind, depth)
        return getattr(self, f"draw_{kind}")(schema, depth)

    def resolve(self, ref: str) -> SchemaT:
        if not ref.startswith("#"):
            raise InvalidArgument(f"$ref {ref!r}: only references inside the schema are drawn")
        node: Any = self.root
        for part in ref[1:].lstrip("/").split("/") if ref != "#" else ():
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, Mapping) or part not in node:
                raise InvalidArgument(f"$ref {ref!r} names nothing in the schema")
            node = node[part]
        return node

    def merged(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """`allOf` as one schema: properties and `required` united, other keys overlaid."""
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            if isinstance(part, Mapping) and "$ref" in part:
                part = self.resolve(part["$ref"])
            if not isinstance(part, Mapping):
                continue
            for key, value in part.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required":
                    merged["required"] = [*merged.get("required", []), *value]
                else:
                    merged.setdefault(key, value)
        return merged

    def branch(self, options: Sequence[SchemaT], depth: int) -> SchemaT:
        """An alternative: a null one (Optional) a quarter as often, and only one past
        `MAX_DEPTH` (recursion ends)."""
        nulls = [isinstance(o, Mapping) and o.get("type") == "null" for o in options]
        if depth >= MAX_DEPTH and any(nulls):
            return options[nulls.index(True)]
        weights = [1.0 if is_null else 3.0 for is_null in nulls]
        return self.choices.draw_weighted(list(options), weights, site="branch")

    def kind(self, schema: Mapping[str, Any]) -> str | None:
        declared = schema.get("type")
        if isinstance(declared, str) and declared in _TYPES:
            return declared
        if isinstance(declared, list):  # `["string", "null"]`: null a quarter as often
            known = [t for t in declared if t in _TYPES]
            if len(known) < 2:
                return known[0] if known else None
            weights = [1.0 if t == "null" else 3.0 for t in known]
            return self.choices.draw_weighted(known, weights, site="type")
        if "properties" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        if {"minLength", "maxLength", "pattern", "format"} & set(schema):
            return "string"
        if {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} & set(schema):
            return "number"
        return None

    # ------------------------------------------------------------------ valid values
    def const(self, schema: Mapping[str, Any]) -> Any:
        if self.pending and self.choices.draw_boolean(0.6, site="defect?"):
            self.pending = False
            return _other_than([schema["const"]])
        return schema["const"]

    def enum(self, schema: Mapping[str, Any]) -> Any:
        options = list(schema["enum"]) or [None]
        if self.pending and self.choices.draw_boolean(0.6, site="defect?"):
            self.pending = False
            return _other_than(options)
        return self.choices.draw_choice(options, site="enum")

    def draw_object(self, schema: Mapping[str, Any], depth: int, *, drop: str = "") -> Any:
        c = self.choices
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        result: dict[str, Any] = {}
        for key, sub in properties.items():
            if key == drop:
                continue
            if key not in required:
                keep = depth < MAX_DEPTH and fits(c, 64)
                if not (keep and c.draw_boolean(OPTIONAL_P, site=_site("has", key))):
                    continue
            result[key] = self.field(sub, depth + 1, site=_site("property", key))
        extra = schema.get("additionalProperties", True)
        patterns = schema.get("patternProperties")
        if isinstance(patterns, Mapping) and patterns:  # `dict[constr(pattern=...), V]`
            low = int(schema.get("minProperties", 0))
            count = c.draw_integer(low, low + 3 if depth < MAX_DEPTH else low, site="entries")
            for _ in range(count):
                pattern, sub = c.draw_choice(list(patterns.items()), site="entry-pattern")
                key = self.field(
                    {"type": "string", "pattern": pattern}, depth + 1, site="entry-key"
                )
                result.setdefault(str(key), self.field(sub, depth + 1, site="entry"))
            return result
        if not properties and extra is True:
            return json_values_object(c, depth)
        if isinstance(extra, Mapping) and extra:
            low = int(schema.get("minProperties", 0))
            count = c.draw_integer(low, low + 3 if depth < MAX_DEPTH else low, site="entries")
            names = schema.get("propertyNames")
            for i in range(count):
                if isinstance(names, Mapping) and names:  # `dict[Annotated[str, ...], V]`
                    key = str(self.field(names, depth + 1, site="entry-key"))
                else:
                    key = c.draw_string(NAME, 1, 12, site="entry-key") or f"k{i}"
                if key not in result:
                    result[key] = self.field(extra, depth + 1, site="entry")
        return result

    def field(self, schema: SchemaT, depth: int, *, site: str) -> Any:
        return _field(self.choices, self, schema, depth, site=site)

    def draw_array(self, schema: Mapping[str, Any], depth: int, *, count: int | None = None) -> Any:
        c = self.choices
        prefix = list(schema.get("prefixItems") or ())
        items = schema.get("items", {} if not prefix else False)
        low = int(schema.get("minItems", len(prefix) if items is False else 0))
        high = int(schema.get("maxItems", low + MAX_EXTRA_ITEMS))
        high = min(high, low + MAX_EXTRA_ITEMS) if depth < MAX_DEPTH else low
        if items is False:
            high = min(high, len(prefix))
        if count is None:
            count = c.draw_integer(low, max(low, high), site="items")
        result = []
        for i in range(count):
            sub = prefix[i] if i < len(prefix) else items
            result.append(self.field(sub if sub is not False else {}, depth + 1, site="item"))
        if schema.get("uniqueItems"):
            seen: dict[str, Any] = {}
            for item in result:
                seen.setdefault(json.dumps(item, sort_keys=True, default=str), item)
            result = list(seen.values())
        return result

    def draw_string(self, schema: Mapping[str, Any], depth: int) -> Any:
        c = self.choices
        if isinstance(schema.get("contentSchema"), Mapping | bool):  # pydantic Json[...]
            inner = self.field(schema["contentSchema"], depth + 1, site="content")
            return json.dumps(inner, ensure_ascii=False)
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", low + MAX_EXTRA_LENGTH))
        high = max(low, min(high, low + MAX_EXTRA_LENGTH * 4))
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            text = _FORMATS[fmt](c)
            if low <= len(text) <= max(high, int(schema.get("maxLength", 10**9))):
                return text
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            tree = compile_pattern(pattern)
            if tree is not None:  # look-arounds are not generated: a miss draws again
                text = regex_strings(c, tree, site="pattern")
                for _ in range(PATTERN_TRIES - 1):
                    if _matches(pattern, text):
                        break
                    text = regex_strings(c, tree, site="pattern")
                return text
        return c.draw_from_dictionary(
            lambda: c.draw_string(_TEXT, low, min(high, low + MAX_EXTRA_LENGTH), site="text")
        )

    def draw_integer(self, schema: Mapping[str, Any], depth: int) -> Any:
        low, high = _integer_bounds(schema)
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            k_low = math.ceil(low / step) if low is not None else None
            k_high = math.floor(high / step) if high is not None else None
            return self.scaled_integer(k_low, k_high) * step
        return self.scaled_integer(low, high)

    def scaled_integer(self, low: int | None, high: int | None) -> int:
        c = self.choices
        if low is not None and high is not None:
            if high - low <= 1_000 or c.draw_boolean(0.5, site="near-bound?"):
                return c.draw_integer(low, min(high, low + 1_000), site="int")
            return c.draw_integer(low, high, site="int")
        if low is not None:
            return low + c.draw_geometric(20.0, max_value=10**9, site="above")
        if high is not None:
            return high - c.draw_geometric(20.0, max_value=10**9, site="below")
        if c.draw_boolean(0.8, site="small?"):
            return c.draw_integer(-10, 1_000, site="int")
        return c.draw_integer(-(2**53), 2**53, site="int")

    def draw_number(self, schema: Mapping[str, Any], depth: int) -> Any:
        c = self.choices
        step = schema.get("multipleOf")
        if isinstance(step, int | float) and step > 0:
            low, high = _number_bounds(schema)
            k_low = math.ceil(low / step) if low is not None else None
            k_high = math.floor(high / step) if high is not None else None
            if k_low is not None and "exclusiveMinimum" in schema and k_low * step <= low:
                k_low += 1
            if k_high is not None and "exclusiveMaximum" in schema and k_high * step >= high:
                k_high -= 1
            decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
            return round(self.scaled_integer(k_low, k_high) * step, decimals)
        if c.draw_boolean(0.3, site="whole?"):
            low, high = _integer_bounds(schema)
            return self.scaled_integer(low, high)
        low, high = _number_bounds(schema)
        lo = low if low is not None else (high - 1_000.0 if high is not None else -1_000.0)
        hi = high if high is not None else lo + 1_000.0
        value = round(c.draw_float(lo, hi, site="float"), 2)
        return min(max(value, lo), hi) if _number_fits(schema, value) else (lo + hi) / 2

    def draw_boolean(self, schema: Mapping[str, Any], depth: int) -> Any:
        return self.choices.draw_boolean(0.5, site="bool")

    def draw_null(self, schema: Mapping[str, Any], depth: int) -> Any:
        return None

    # ------------------------------------------------------------------ near-valid values
    def defect(self, schema: Mapping[str, Any], kind: str, depth: int) -> Any:
        """The value with this node's one defect (and no other: `pending` is cleared)."""
        c = self.choices
        self.pending = False
        options = ["wrong-type"]
        required = list(schema.get("required") or ())
        if kind == "object":
            options += ["missing"] * bool(required)
            options += ["extra"] * (schema.get("additionalProperties") is False)
        elif kind == "array":
            options += ["too-short"] * (int(schema.get("minItems", 0)) > 0)
            options += ["too-long"] * ("maxItems" in schema)
        elif kind == "string":
            options += ["too-short"] * (int(schema.get("minLength", 0)) > 0)
            options += ["too-long"] * ("maxLength" in schema)
        elif kind in ("integer", "number"):
            options += ["too-low"] * ("minimum" in schema or "exclusiveMinimum" in schema)
            options += ["too-high"] * ("maximum" in schema or "exclusiveMaximum" in schema)
        which = c.draw_choice(options, site="defect")
        if which == "wrong-type":
            return c.draw_choice(_WRONG[kind], site="wrong")
        if which == "missing":
            return self.draw_object(schema, depth, drop=c.draw_choice(required, site="missing"))
        if which == "extra":
            value = self.draw_object(schema, depth)
            key = "unexpected_" + c.draw_string(NAME, 1, 8, site="extra-key")
            return {**value, key: c.draw_choice(("x", 1, None), site="extra-value")}
        if which == "too-short" and kind == "array":
            return self.draw_array(schema, depth, count=int(schema["minItems"]) - 1)
        if which == "too-long" and kind == "array":
            return self.draw_array(schema, depth, count=int(schema["maxItems"]) + 1)
        if which == "too-short":
            return "x" * (int(schema["minLength"]) - 1)
        if which == "too-long":
            return "x" * (int(schema["maxLength"]) + 1)
        low, high = _number_bounds(schema)
        if which == "too-low" and low is not None:
            return math.floor(low) - 1 if kind == "integer" else low - 0.5
        if high is not None:
            return math.ceil(high) + 1 if kind == "integer" else high + 0.5
        return c.draw_choice(_WRONG[kind], site="wrong")


_DOTTED: Final = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")
_SCALARS: Final = frozenset({"string", "integer", "number", "boolean", "null"})


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except (re.error, RecursionError, ValueError):
        return None


def _matches(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    return compiled is None or compiled.search(text) is not None


def _site(kind: str, name: str) -> str:
    """A call site naming a property or definition: execution indices are written
    `site#n/site#n`, so a name's `/` and `#` are replaced."""
    return f"{kind}:{name.replace('/', '_').replace('#', '_')}"


@generator(None)
def _field(choices: Choices, drawer: _Drawer, schema: SchemaT, depth: int) -> Any:
    """One property or item, under its own call site (`property:sku`, `item`)."""
    return drawer.value(schema, depth)


def json_values_object(choices: Choices, depth: int) -> dict[str, Any]:
    """A free-form object (`dict[str, Any]`, `additionalProperties: true`)."""
    value = json_values(choices, max_depth=max(1, 3 - depth))
    return value if isinstance(value, dict) else {"value": value}


def _other_than(options: Sequence[Any]) -> Any:
    """A value equal to none of `options` (a const or enum crossed)."""
    for candidate in ("not-a-listed-value", -987654321, None, True):
        if all(candidate != option or type(candidate) is not type(option) for option in options):
            return candidate
    return {"unlisted": True}


def _integer_bounds(schema: Mapping[str, Any]) -> tuple[int | None, int | None]:
    low, high = _number_bounds(schema)
    ilow = None if low is None else math.ceil(low)
    ihigh = None if high is None else math.floor(high)
    if "exclusiveMinimum" in schema and ilow is not None and ilow == low:
        ilow += 1
    if "exclusiveMaximum" in schema and ihigh is not None and ihigh == high:
        ihigh -= 1
    if ilow is not None and ihigh is not None and ilow > ihigh:
        ihigh = ilow
    return ilow, ihigh


def _number_bounds(schema: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """The inclusive/exclusive bounds as given (draws keep off the exclusive ends)."""

    def pick(*keys: str) -> float | None:
        found = [schema[k] for k in keys if isinstance(schema.get(k), int | float)]
        return found[0] if found else None

    return pick("minimum", "exclusiveMinimum"), pick("maximum", "exclusiveMaximum")


def _number_fits(schema: Mapping[str, Any], value: float) -> bool:
    checks = (
        ("minimum", lambda b: value >= b),
        ("maximum", lambda b: value <= b),
        ("exclusiveMinimum", lambda b: value > b),
        ("exclusiveMaximum", lambda b: value < b),
    )
    return all(not isinstance(schema.get(k), int | float) or ok(schema[k]) for k, ok in checks)


# ---------------------------------------------------------------------------- formats
def _date_time(choices: Choices) -> str:
    moment = datetimes(choices)
    zone = choices.draw_choice(("Z", "+00:00", "+02:00", "-05:00"), site="zone")
    return moment.isoformat() + zone


def _date(choices: Choices) -> str:
    return dates(choices).isoformat()


def _time(choices: Choices) -> str:
    hour = choices.draw_integer(0, 23, site="hour")
    minute = choices.draw_integer(0, 59, site="minute")
    return f"{hour:02d}:{minute:02d}:{choices.draw_integer(0, 59, site='second'):02d}"


def _email(choices: Choices) -> str:
    local = choices.draw_string(string.ascii_lowercase + string.digits + "._", 1, 12, site="local")
    local = local.strip(".").replace("..", ".") or "user"
    domain = choices.draw_choice(
        ("example.com", "mail.example.org", "corp.example.net"), site="domain"
    )
    return f"{local}@{domain}"


def _uuid(choices: Choices) -> str:
    return str(uuid.UUID(bytes=choices.draw_bytes(16, 16, site="uuid"), version=4))


def _uri(choices: Choices) -> str:
    host = choices.draw_choice(("example.com", "api.example.org", "localhost:8080"), site="host")
    path = choices.draw_string(string.ascii_lowercase + string.digits + "/-", 0, 16, site="path")
    return f"https://{host}/{path.lstrip('/')}"


def _ipv4(choices: Choices) -> str:
    return ".".join(str(b) for b in choices.draw_bytes(4, 4, site="ipv4"))


def _ipv6(choices: Choices) -> str:
    data = choices.draw_bytes(16, 16, site="ipv6")
    return ":".join(data[i : i + 2].hex() for i in range(0, 16, 2))


def _duration(choices: Choices) -> str:
    return f"PT{choices.draw_geometric(300.0, max_value=86_400, site='seconds')}S"


_FORMATS: Final = {
    "date-time": _date_time,
    "date": _date,
    "time": _time,
    "email": _email,
    "idn-email": _email,
    "uuid": _uuid,
    "uuid4": _uuid,
    "uri": _uri,
    "iri": _uri,
    "uri-reference": _uri,
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "ipvanyaddress": _ipv4,
    "duration": _duration,
}
