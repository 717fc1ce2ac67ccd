"""Constant strings (and, behind a flag, numbers) a handler compares its input against.

SpotOn's constant-string lookup table: magic strings reachable from the entry point, which
the fuzzer may draw instead of fresh strings.  We collect the literals whose position says
they are matched against input: comparison operands, dict keys and subscript keys,
arguments of `startswith`/`split`/`replace`/..., environment-variable defaults, resource
names passed to boto3, extension-like literals, `case` values and UPPER_CASE module
constants.  `all_strings=True` takes every string literal instead (the paper's reading),
docstrings and log messages excepted.  Numbers compared in conditions are collected only
when `numeric=True`, so paper-faithful strategies can leave them out.

`rich=True` (the `frontier` strategy's harvest; implies `numeric`) adds what the paper's
table leaves out but real handlers test their input against: attribute names read off
parsed models (`request.region`), CSV field names (`fieldnames=[...]`), route strings of
decorators (`@app.get("/orders")`), the elements of list/tuple/set/frozenset literals bound
to a name and used in a comparison (`if line in VALID_LINES`, module-level or local),
dates rendered in every `strptime`/`strftime` format the code uses (`DATE_FORMAT_DATES`
plus the first and last second of every year-like number the code compares with), the
near misses of each such format that producers really send (`date_variants`: fractional
seconds, a `+00:00` offset for a literal `Z`, a time after an ISO date), the +-1
neighbours of the numbers compared in conditions, and strings that the regular expressions
the code uses match (`re.compile`, `re.search`, `re.findall`, ...: `REGEX_CALLS`), a few
drawn per pattern (`REGEX_SAMPLES`), so that a log line or a cell holds `user=42` where the
code looks for `([a-z_]+)=([0-9]+)`.
"""

from __future__ import annotations

import datetime as dt
import re
import zlib
from collections.abc import Collection
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import GlobalScope, QualifiedNameSource

from .model import KEY_VALUE_KIND, Constant
from .sources import ParsedModule
from .symbols import Symbols, Value
from .symbols import number_literal as _number

STRING_METHODS = frozenset(
    [
        "startswith",
        "endswith",
        "split",
        "rsplit",
        "replace",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "partition",
        "rpartition",
        "removeprefix",
        "removesuffix",
        "strip",
        "lstrip",
        "rstrip",
    ]
)
MAPPING_METHODS = frozenset({"get", "pop", "setdefault"})
RESOURCE_KEYWORDS = frozenset(
    {"Bucket", "TableName", "Key", "Prefix", "QueueUrl", "QueueName", "TopicArn", "IndexName"}
)
RESOURCE_METHODS = frozenset({"Table", "Bucket", "Object", "Queue", "get_queue_by_name"})
ENV_GETTERS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical"})
EXTENSION = re.compile(r"^\.[A-Za-z0-9]{1,8}$")
MAX_LEN = 200
MAX_LOCATIONS = 5
#: Keyword arguments holding a DynamoDB item's key (`get_item(Key=...)`, a page's start).
KEY_KEYWORDS = frozenset({"Key", "ExclusiveStartKey"})
#: Calls that store a DynamoDB item given as `Item=` (a table's, a batch writer's, a client's).
STORE_METHODS = frozenset({"put_item"})
#: Methods of boto3's `Key("SK")` whose arguments are values of that key attribute.
KEY_CONDITIONS = frozenset({"eq", "begins_with", "between", "lt", "lte", "gt", "gte"})
#: Calls whose format argument is a date format: name -> positional index of the format.
DATE_FORMAT_CALLS = {"strptime": 1, "strftime": 0}
#: The `re` functions whose first argument is a pattern the code matches its input with.
REGEX_CALLS = frozenset(
    f"re.{name}"
    for name in (
        "compile",
        "match",
        "search",
        "fullmatch",
        "findall",
        "finditer",
        "sub",
        "subn",
        "split",
    )
)
#: Strings drawn per harvested pattern (distinct ones that it matches are kept), and the
#: patterns rendered at most: a handler's few parsing patterns, not a vendored library's.
REGEX_SAMPLES = 4
MAX_PATTERNS = 32
#: Dates every harvested date format is rendered with: ordinary, leap day, ends of a month,
#: a year and a century, the epoch and the 32-bit time limit (UTC, so %z/%Z render).
DATE_FORMAT_DATES = tuple(
    dt.datetime(*fields, tzinfo=dt.UTC)
    for fields in (
        (2026, 6, 15, 8, 30, 45),
        (2024, 2, 29, 12, 0, 0),
        (2023, 2, 28, 23, 59, 59),
        (1999, 12, 31, 23, 59, 59),
        (2000, 1, 1, 0, 0, 0),
        (1970, 1, 1, 0, 0, 0),
        (2038, 1, 19, 3, 14, 7),
    )
)
#: Near misses of a date format, as (what to find, what to put instead): a producer
#: that writes milliseconds (JavaScript's `toISOString`) or microseconds (Python's
#: `isoformat`) where the code parses whole seconds, whole seconds where it parses a
#: fraction, an offset where it expects a literal `Z`, a full timestamp where it parses an
#: ISO date.  Each replaces the first occurrence in the format (fractions only where the
#: format has none, a timestamp only where it has no time); only renderings the code's
#: format then refuses are kept.
DATE_VARIANTS = (
    ("%S", "%S.120"),  # milliseconds
    ("%S", "%S.120000"),  # microseconds
    (".%f", ""),  # whole seconds
    ("Z", "+00:00"),  # an offset
    ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S.120Z"),  # a timestamp
)
#: Numbers in this range compared with by the code are taken for years to render dates in.
YEAR_RANGE = (1900, 2100)
#: A collection literal wrapped in one of these calls is still a literal (`frozenset({...})`).
COLLECTION_CALLS = frozenset({"frozenset", "set", "tuple", "list"})
#: Names whose attributes are the program's own state, not fields of a parsed input.
SELF_NAMES = frozenset({"self", "cls"})


@dataclass(slots=True)
class ConstantTable:
    """Collected constants: value -> kinds and locations, kept in first-seen order."""

    strings: dict[str, tuple[set[str], list[str]]] = field(default_factory=dict)
    numbers: dict[int | float, tuple[set[str], list[str]]] = field(default_factory=dict)
    # date format -> where it is used, rendered at `freeze` (years come from `numbers`)
    date_formats: dict[str, str] = field(default_factory=dict)
    # regular expression -> where it is used, rendered by `render_patterns`
    patterns: dict[str, str] = field(default_factory=dict)
    # the code stores an item it did not spell out (`table.put_item(Item=payload)`)
    stores_items: bool = False

    def add(self, value: str | int | float, kind: str, where: str) -> None:
        if isinstance(value, bool):
            return
        table = self.strings if isinstance(value, str) else self.numbers
        if isinstance(value, str) and not (0 < len(value) <= MAX_LEN):
            return
        kinds, locations = table.setdefault(value, (set(), []))  # type: ignore[arg-type]
        kinds.add(kind)
        if where not in locations and len(locations) < MAX_LOCATIONS:
            locations.append(where)

    def render_dates(self) -> None:
        """Each date format rendered with `DATE_FORMAT_DATES` and the first and last second
        of every year-like number collected; only renderings that parse back with the format
        are kept (a `%c` or `%-d` may not)."""
        years = sorted(
            {
                int(n)
                for n in self.numbers
                if isinstance(n, int) and YEAR_RANGE[0] <= n <= YEAR_RANGE[1]
            }
        )
        moments = list(DATE_FORMAT_DATES)
        for year in years:
            moments.append(dt.datetime(year, 1, 1, 0, 0, 0, tzinfo=dt.UTC))
            moments.append(dt.datetime(year, 12, 31, 23, 59, 59, tzinfo=dt.UTC))
        for fmt, where in self.date_formats.items():
            for moment in moments:
                text = render_date(moment, fmt)
                if text is not None:
                    self.add(text, "date", where)
            for text in date_variants(DATE_FORMAT_DATES[0], fmt):
                self.add(text, "date-variant", where)

    def render_patterns(self) -> None:
        """`REGEX_SAMPLES` strings drawn for each pattern (`regex_strings`, seeded by the
        pattern, so the same code gives the same table). They are not checked with `re`:
        a pattern that backtracks (the bugs the cost objective looks for) would stall the
        analysis on the rare string that misses it (look-arounds and anchors are skipped
        when drawing), and a miss costs only a dictionary entry."""
        from lambdafuzz.generators.core import Choices
        from lambdafuzz.generators.regex_strings import compile_pattern, regex_strings

        for pattern, where in list(self.patterns.items())[:MAX_PATTERNS]:
            tree = compile_pattern(pattern)
            if tree is None:
                continue
            for k in range(REGEX_SAMPLES):
                seed = zlib.crc32(f"{k}:{pattern}".encode("utf-8", "surrogatepass"))
                text = regex_strings(Choices(seed=seed), tree)
                if text:
                    self.add(text, "regex-match", where)

    def add_neighbours(self) -> None:
        """n-1 and n+1 of every collected number (an off-by-one boundary is a branch)."""
        for value in list(self.numbers):
            kinds, locations = self.numbers[value]
            for near in (value - 1, value + 1):
                if near not in self.numbers:
                    self.numbers[near] = ({"neighbour"}, list(locations[:1]))

    def freeze(self) -> tuple[tuple[Constant, ...], tuple[Constant, ...]]:
        strings = tuple(
            Constant(v, tuple(sorted(k)), tuple(loc))
            for v, (k, loc) in sorted(self.strings.items())
        )
        numbers = tuple(
            Constant(v, tuple(sorted(k)), tuple(loc))
            for v, (k, loc) in sorted(self.numbers.items())
        )
        return strings, numbers


@dataclass(frozen=True, slots=True)
class Harvest:
    """What `collect_constants` found: string and numeric constants, each sorted by value,
    and whether the code stores DynamoDB items it did not spell out (`rich` only)."""

    strings: tuple[Constant, ...]
    numbers: tuple[Constant, ...]
    stores_items: bool = False


def collect_constants(
    modules: list[ParsedModule],
    reachable: Collection[str] | None,
    *,
    numeric: bool = False,
    all_strings: bool = False,
    rich: bool = False,
) -> Harvest:
    """String and numeric constants of module-level code and reachable functions, each
    sorted by value; numbers only with `numeric=True` (or `rich=True`).

    `reachable` holds module-qualified function names (as in the dependency graph); None
    means every function.  `rich` adds the sources listed in the module docstring.
    """
    numeric = numeric or rich
    table = ConstantTable()
    symbols = Symbols.of(modules)
    for pm in modules:
        pm.tree.visit(
            _Collector(
                pm,
                table,
                reachable,
                symbols,
                numeric=numeric,
                all_strings=all_strings,
                rich=rich,
            )
        )
    if rich:
        table.render_dates()
        table.render_patterns()
        table.add_neighbours()
    strings, numbers = table.freeze()
    return Harvest(strings, numbers if numeric else (), table.stores_items)


def render_date(moment: dt.datetime, fmt: str) -> str | None:
    """`moment` in `fmt` if that text parses back with `fmt`, else None."""
    try:
        text = moment.strftime(fmt)
        dt.datetime.strptime(text, fmt)
    except (ValueError, TypeError, re.error):  # re.error: a directive given twice
        return None
    return text if 0 < len(text) <= MAX_LEN else None


def date_variants(moment: dt.datetime, fmt: str) -> list[str]:
    """`moment` written in the near misses of `fmt` (`DATE_VARIANTS`) that `strptime` with
    `fmt` refuses: the inputs that break a handler parsing exactly `fmt`."""
    found: list[str] = []
    for old, new in DATE_VARIANTS:
        if (
            old not in fmt
            or (old == "%S" and "%f" in fmt)
            or (old == "%Y-%m-%d" and "%H" in fmt)
            or (old == "Z" and "%Z" in fmt)
        ):
            continue
        try:
            text = moment.strftime(fmt.replace(old, new, 1))
        except ValueError:
            continue
        if 0 < len(text) <= MAX_LEN and text not in found and not _parses(text, fmt):
            found.append(text)
    return found


def _parses(text: str, fmt: str) -> bool:
    try:
        dt.datetime.strptime(text, fmt)
    except (ValueError, TypeError, re.error):
        return False
    return True


class _Collector(cst.CSTVisitor):
    def __init__(
        self,
        pm: ParsedModule,
        table: ConstantTable,
        reachable: Collection[str] | None,
        symbols: Symbols,
        *,
        numeric: bool,
        all_strings: bool,
        rich: bool = False,
    ) -> None:
        self.pm = pm
        self.table = table
        self.reachable = reachable
        self.symbols = symbols
        self.numeric = numeric
        self.all_strings = all_strings
        self.rich = rich
        # a bound name -> the value it is bound to, for names assigned exactly once
        self.bindings: dict[cst.Name, cst.BaseExpression] = symbols.bindings
        self.classes: list[str] = []  # qualified names of the enclosing classes
        self.calls_of: set[cst.CSTNode] = set()  # attributes that are called (methods)
        self.prefix: list[str] = []
        self.quiet: set[cst.CSTNode] = set()  # docstrings and log-message literals
        self.concat_depth = 0
        self.module_literals = _module_literals(pm.tree)

    # --- reachability --------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        qual = ".".join([self.pm.source.module, *self.prefix, node.name.value])
        self.prefix += [node.name.value, "<locals>"]
        if self.reachable is not None and qual not in self.reachable:
            return False  # unreachable: not even walked (leave_FunctionDef still runs)
        self._docstring(node.body)
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        del self.prefix[-2:]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.prefix.append(node.name.value)
        self.classes.append(".".join([self.pm.source.module, *self.prefix]))
        self._docstring(node.body)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.prefix.pop()
        self.classes.pop()

    def visit_Module(self, node: cst.Module) -> None:
        if node.body:
            self._docstring_stmt(node.body[0])

    def _docstring(self, body: cst.BaseSuite) -> None:
        if isinstance(body, cst.IndentedBlock) and body.body:
            self._docstring_stmt(body.body[0])

    def _docstring_stmt(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            value = stmt.body[0].value
            if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                self.quiet.add(value)

    # --- helpers -----------------------------------------------------------------------------
    def _where(self, node: cst.CSTNode) -> str:
        return f"{self.pm.source.module}:{self.pm.line(node)}"

    def _add_string(self, expr: cst.BaseExpression, kind: str) -> None:
        value = _string(expr)
        if value is not None:
            self.table.add(value, kind, self._where(expr))
        elif isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            for el in expr.elements:
                self._add_string(el.value, kind)

    def _add_number(self, expr: cst.BaseExpression, kind: str) -> None:
        if not self.numeric:
            return
        value = _number(expr)
        if value is not None:
            self.table.add(value, kind, self._where(expr))
        elif isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            for el in expr.elements:
                self._add_number(el.value, kind)

    # --- the positions that make a literal interesting ---------------------------------------
    def visit_Comparison(self, node: cst.Comparison) -> None:
        for operand in [node.left, *(c.comparator for c in node.comparisons)]:
            bound = self._bound_collection(operand)
            if bound is not None:
                self._add_string(bound, "membership")
                self._add_number(bound, "membership")
                continue
            operand = self._module_constant(operand)
            self._add_string(operand, "compare")
            self._add_number(operand, "compare")
            self._add_folded(operand, "compare")

    # --- what a compared expression stands for (`symbols.py`) --------------------------------
    def _add_folded(self, expr: cst.BaseExpression, kind: str) -> None:
        """What the literal-only positions miss: the literal a name stands for (an imported
        constant, an Enum member's value, a local), the members of a collection reached by
        name (`self.MODES`, `Config.MODES`) and the ends of a `range(...)` (numbers).  A
        value the code computes (`PREFIX + "-x"`, `f"{PREFIX}/in"`) is in no literal the
        paper's table takes: the `rich` harvest only."""
        if _string(expr) is not None or _number(expr) is not None:
            return
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                self._add_folded(element.value, kind)
            return
        if isinstance(expr, cst.Call) and _callee(expr.func) == "range":
            self._add_range(expr)
            return
        owner = self.classes[-1] if self.classes else None
        value = self.symbols.value(self.pm, expr, owner, fold=self.rich)
        if value is not None:
            self._add_value(value, kind, expr)
        elif isinstance(expr, (cst.Name, cst.Attribute)):
            members = self.symbols.members(self.pm, expr, owner, keywords=self.rich)
            for member in members:
                self._add_value(member, "membership" if kind == "compare" else kind, expr)

    def _add_value(self, value: Value, kind: str, node: cst.CSTNode) -> None:
        if isinstance(value, str) or self.numeric:
            self.table.add(value, kind, self._where(node))

    def _add_range(self, node: cst.Call) -> None:
        """`int(x) in range(1, 5)`: its first and last members (1 and 4)."""
        bounds = [self.symbols.value(self.pm, a.value) for a in node.args if a.keyword is None]
        if not bounds or len(bounds) > 3 or not all(isinstance(b, int) for b in bounds):
            return
        start, stop = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
        step = bounds[2] if len(bounds) == 3 else 1
        if not step or not (start < stop if step > 0 else start > stop):  # type: ignore[operator]
            return
        last = start + (stop - start - (1 if step > 0 else -1)) // step * step  # type: ignore[operator]
        for end in (start, last):
            self._add_value(end, "range", node)  # type: ignore[arg-type]

    def _add_enum(self, func: cst.BaseExpression, *, names: bool) -> None:
        """`Kind(kind)` checks its input against the Enum's values, `Kind[kind]` against
        its members' names (identifiers, not literals: the `rich` harvest)."""
        if not _class_like(func) or (names and not self.rich):
            return
        members = self.symbols.enum_members(self.pm, func)
        for name, value in (members or {}).items():
            self._add_value(name if names else value, "enum", func)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        """`{name: handle for name in ("a", "b")}`: a dispatch table's keys."""
        for key in self.symbols.comprehended_keys(self.pm, node):
            self._add_value(key, "dict_key", node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._add_enum(node.value, names=True)

    def visit_MatchMappingElement(self, node: cst.MatchMappingElement) -> None:
        self._add_string(node.key, "dict_key")  # `case {"type": "order"}`

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        """`case Order(kind="x")`: the attribute names read (the `rich` harvest)."""
        if self.rich:
            for keyword in node.kwds:
                self.table.add(keyword.key.value, "attribute", self._where(keyword))

    def _bound_value(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """What a name assigned exactly once (module-level or local) is bound to."""
        if not isinstance(expr, cst.Name):
            return None
        scope = self.pm.scopes.get(expr)
        try:
            assigns = list(scope[expr.value]) if scope is not None else []  # type: ignore[index]
        except Exception:
            return None
        if len(assigns) != 1:
            return None
        node = getattr(assigns[0], "node", None)  # a builtin's assignment has none
        return self.bindings.get(node) if isinstance(node, cst.Name) else None

    def _bound_collection(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The list/tuple/set literal a name is bound to (`frozenset({...})` unwrapped)."""
        value = _collection(self._bound_value(expr))
        return value

    def _resolved_string(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """A string literal itself, or the one a name is bound to."""
        if _string(expr) is not None:
            return expr
        bound = self._bound_value(expr)
        return bound if bound is not None else self._module_constant(expr)

    def _module_constant(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """`year == TARGET_YEAR` compares with the literal `TARGET_YEAR` is bound to."""
        if not isinstance(expr, cst.Name) or expr.value not in self.module_literals:
            return expr
        scope = self.pm.scopes.get(expr)
        try:
            assigns = scope[expr.value] if scope is not None else ()  # type: ignore[index]
        except Exception:
            return expr
        if assigns and all(isinstance(a.scope, GlobalScope) for a in assigns):
            return self.module_literals[expr.value]
        return expr

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self._add_string(node.key, "dict_key")

    def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
        if isinstance(node.slice, cst.Index):
            self._add_string(node.slice.value, "subscript_key")

    def visit_MatchValue(self, node: cst.MatchValue) -> None:
        self._add_string(node.value, "case")
        self._add_number(node.value, "case")
        self._add_folded(node.value, "case")  # `case Kind.ORDER.value:`, `case consts.OK:`

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        qualnames = {q.name for q in self.pm.qualified_names(func)}
        if self.rich:
            self.calls_of.add(func)
            self._rich_call(node, func, method, positional)
            if qualnames & REGEX_CALLS:
                self._add_pattern(node, positional)
        if qualnames & ENV_GETTERS:
            if len(positional) > 1:
                self._add_string(positional[1], "env_default")
            return
        if self.rich and isinstance(func, cst.Name) and func.value == "dict":
            for a in node.args:  # `dict(order=..., refund=...)`: a dispatch table's keys
                if a.keyword is not None:
                    self.table.add(a.keyword.value, "dict_key", self._where(a.keyword))
        self._add_enum(func, names=False)
        if method in STRING_METHODS:
            for arg in positional:
                self._add_string(arg, "method_arg")
                self._add_folded(arg, "method_arg")
        elif method in MAPPING_METHODS and positional:
            self._add_string(positional[0], "dict_key")
        elif method in RESOURCE_METHODS:
            for arg in positional:
                self._add_string(arg, "resource")
        elif method == "join" and isinstance(func, cst.Attribute):
            self._add_string(func.value, "method_arg")
        for a in node.args:
            if a.keyword is not None and a.keyword.value in RESOURCE_KEYWORDS:
                self._add_string(a.value, "resource")
        if method in LOG_METHODS or (isinstance(func, cst.Name) and func.value == "print"):
            for a in node.args:
                if isinstance(a.value, (cst.SimpleString, cst.ConcatenatedString)):
                    self.quiet.add(a.value)

    def _rich_call(
        self,
        node: cst.Call,
        func: cst.BaseExpression,
        method: str | None,
        positional: list[cst.BaseExpression],
    ) -> None:
        """CSV field names, date formats and DynamoDB key values (the `rich` harvest)."""
        for a in node.args:
            if a.keyword is not None and a.keyword.value == "fieldnames":
                value = _collection(self._bound_value(a.value)) or a.value
                self._add_string(value, "field_name")
            elif a.keyword is not None and a.keyword.value in KEY_KEYWORDS:
                self._add_key_values(a.value)
            elif (
                a.keyword is not None
                and a.keyword.value == "Item"
                and method in STORE_METHODS
                and _passed_through(a.value)
            ):
                self.table.stores_items = True
        if method in KEY_CONDITIONS and isinstance(func, cst.Attribute):
            attribute = _key_attribute(func.value)
            if attribute is not None:
                for arg in positional:
                    self._add_key_value(attribute, arg)
        name = _callee(func)
        if name in DATE_FORMAT_CALLS:
            index = DATE_FORMAT_CALLS[name]
            fmt_expr = next(
                (a.value for a in node.args if a.keyword and a.keyword.value == "format"),
                positional[index] if len(positional) > index else None,
            )
            if fmt_expr is None:
                return
            fmt = _string(self._resolved_string(fmt_expr))
            if fmt and "%" in fmt:
                self.table.date_formats.setdefault(fmt, self._where(node))

    def _add_key_values(self, expr: cst.BaseExpression) -> None:
        """`Key={"PK": order_id, "SK": "PROFILE"}` (a resource's) or `{"SK": {"S": ...}}`
        (a client's): each string value under its attribute's name."""
        expr = self._bound_value(expr) or expr
        if not isinstance(expr, cst.Dict):
            return
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                attribute = _string(element.key)
                if attribute is not None:
                    self._add_key_value(attribute, element.value)

    def _add_key_value(self, attribute: str, expr: cst.BaseExpression) -> None:
        if isinstance(expr, cst.Dict) and len(expr.elements) == 1:  # {"S": "PROFILE"}
            (element,) = expr.elements
            if isinstance(element, cst.DictElement) and _string(element.key) == "S":
                expr = element.value
        value = _string(self._resolved_string(expr)) or self._key_head(expr)
        if value:
            self.table.add(value, f"{KEY_VALUE_KIND}{attribute}", self._where(expr))

    def _key_head(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """The constant text a key built from the input starts with: "C#" of
        `f"C#{customer_id}"`, of `"C#" + customer_id` and `PREFIX + customer_id`, also
        through a local name bound once (`user_key = "USER#" + sub; Key("PK").eq(user_key)`)."""
        if depth > 3:
            return None
        bound = self._bound_value(expr)
        if bound is not None:
            return _string(self._resolved_string(bound)) or self._key_head(bound, depth + 1)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            head = _string(self._resolved_string(expr.left))
            return head or self._key_head(expr.left, depth + 1)
        return _literal_head(expr)

    def _add_pattern(self, node: cst.Call, positional: list[cst.BaseExpression]) -> None:
        """The pattern of an `re` call (`REGEX_CALLS`), a literal or a module constant."""
        expr = next(
            (a.value for a in node.args if a.keyword and a.keyword.value == "pattern"),
            positional[0] if positional else None,
        )
        if expr is None:
            return
        pattern = _string(self._resolved_string(expr))
        if pattern:
            self.table.patterns.setdefault(pattern, self._where(node))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """`request.region`: a field a parsed model is read for (the `rich` harvest).
        Methods, `self.x` and attributes of imported modules are not fields."""
        if not self.rich or node in self.calls_of:
            return
        value = node.value
        if isinstance(value, cst.Name):
            if value.value in SELF_NAMES or _is_import(self.pm, value):
                return
        elif not isinstance(value, (cst.Attribute, cst.Subscript, cst.Call)):
            return
        attr = node.attr.value
        if not attr.startswith("_") and not attr.isupper():
            self.table.add(attr, "attribute", self._where(node))

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # `import urllib.parse` reads no attribute

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Decorator(self, node: cst.Decorator) -> None:
        """`@app.get("/orders/<id>")`: route strings of a resolver (the `rich` harvest)."""
        if self.rich and isinstance(node.decorator, cst.Call):
            for a in node.decorator.args:
                if a.keyword is None or a.keyword.value in ("rule", "path", "route"):
                    value = _string(a.value)
                    if value is not None and value.startswith("/"):
                        self.table.add(value, "route", self._where(a.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.prefix:
            return
        for t in node.targets:
            if isinstance(t.target, cst.Name) and t.target.value.isupper():
                value = _collection(node.value)
                self._add_string(value or node.value, "module_constant")

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = _string(node)
        if value is None:
            return
        if EXTENSION.match(value):
            self.table.add(value, "extension", self._where(node))
        elif self.all_strings and node not in self.quiet and not self.concat_depth:
            self.table.add(value, "literal", self._where(node))

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        if self.all_strings and not self.concat_depth and node not in self.quiet:
            value = _string(node)
            if value is not None:
                self.table.add(value, "literal", self._where(node))
        self.concat_depth += 1

    def leave_ConcatenatedString(self, original_node: cst.ConcatenatedString) -> None:
        self.concat_depth -= 1


def _module_literals(tree: cst.Module) -> dict[str, cst.BaseExpression]:
    """Module-level `NAME = <literal>` bindings (assigned exactly once)."""
    found: dict[str, cst.BaseExpression] = {}
    seen: set[str] = set()
    for stmt in tree.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    name = target.value
                    if name in seen:
                        found.pop(name, None)
                    elif _string(small.value) is not None or _number(small.value) is not None:
                        found[name] = small.value
                    seen.add(name)
    return found


def _collection(expr: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """A list/tuple/set literal, also inside `frozenset(...)`/`set(...)`/... ; else None."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return expr
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value in COLLECTION_CALLS
        and len(expr.args) == 1
    ):
        return _collection(expr.args[0].value)
    return None


def _is_import(pm: ParsedModule, name: cst.Name) -> bool:
    """Whether `name` is bound by an import (a module or something imported from one)."""
    scope = pm.scopes.get(name)
    try:
        assigns = list(scope[name.value]) if scope is not None else []  # type: ignore[index]
    except Exception:
        return False
    if any(isinstance(getattr(a, "node", None), (cst.Import, cst.ImportFrom)) for a in assigns):
        return True
    # `import urllib.parse` binds `urllib.parse`, not `urllib`: ask for its qualified name
    return any(q.source is QualifiedNameSource.IMPORT for q in pm.qualified_names(name))


def _literal_head(expr: cst.BaseExpression) -> str | None:
    """ "C#" of `f"C#{customer_id}"`: the literal text an f-string starts with, if any."""
    if isinstance(expr, cst.FormattedString) and expr.parts:
        head = expr.parts[0]
        if isinstance(head, cst.FormattedStringText) and head.value and "{" not in head.value:
            return head.value
    return None


def _class_like(expr: cst.BaseExpression) -> bool:
    """`Kind`, `kinds.Kind`: a name that may be a class (capitalised), the only callees
    and subscripted values worth resolving as an Enum."""
    name = _callee(expr)
    return name is not None and name[:1].isupper()


def _callee(func: cst.BaseExpression) -> str | None:
    """ "loads" of `json.loads(...)` and of `loads(...)`: the name a call is made by."""
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _passed_through(expr: cst.BaseExpression) -> bool:
    """An item stored as it came: a name, a subscript (`record["item"]`) or what `json.loads`
    made, not a literal dict nor what the code's own function built (`to_item(survey)`)."""
    if isinstance(expr, (cst.Name, cst.Subscript)):
        return True
    return isinstance(expr, cst.Call) and _callee(expr.func) == "loads"


def _key_attribute(expr: cst.BaseExpression) -> str | None:
    """ "SK" of `Key("SK")` (boto3's key condition builder), else None."""
    if (
        isinstance(expr, cst.Call)
        and _callee(expr.func) == "Key"
        and expr.args
        and expr.args[0].keyword is None
    ):
        return _string(expr.args[0].value)
    return None


def _string(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = expr.evaluated_value
        except Exception:  # f-string pieces inside a concatenation
            return None
        if isinstance(value, bytes):
            try:
                return value.decode("ascii")
            except UnicodeDecodeError:
                return None
        return value
    return None
