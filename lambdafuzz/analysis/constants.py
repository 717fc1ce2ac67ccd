"""Constant strings (and, behind a flag, numbers) a handler compares its input against.

SpotOn's constant-string lookup table: magic strings reachable from the entry point, which
the fuzzer may draw instead of fresh strings.  We collect the literals whose position says
they are matched against input: comparison operands, dict keys and subscript keys,
arguments of `startswith`/`split`/`replace`/..., environment-variable defaults, resource
names passed to boto3, extension-like literals, `case` values and UPPER_CASE module
constants.  `all_strings=True` takes every string literal instead (the paper's reading),
docstrings and log messages excepted.  Numbers compared in conditions are collected only
when `numeric=True`, so paper-faithful strategies can leave them out.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import GlobalScope

from .model import Constant
from .sources import ParsedModule

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


@dataclass(slots=True)
class ConstantTable:
    """Collected constants: value -> kinds and locations, kept in first-seen order."""

    strings: dict[str, tuple[set[str], list[str]]] = field(default_factory=dict)
    numbers: dict[int | float, tuple[set[str], list[str]]] = field(default_factory=dict)

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


def collect_constants(
    modules: list[ParsedModule],
    reachable: Collection[str] | None,
    *,
    numeric: bool = False,
    all_strings: bool = False,
) -> tuple[tuple[Constant, ...], tuple[Constant, ...]]:
    """(string constants, numeric constants) of module-level code and reachable functions,
    each sorted by value; numbers only with `numeric=True`.

    `reachable` holds module-qualified function names (as in the dependency graph); None
    means every function.
    """
    table = ConstantTable()
    for pm in modules:
        pm.tree.visit(_Collector(pm, table, reachable, numeric=numeric, all_strings=all_strings))
    strings, numbers = table.freeze()
    return strings, (numbers if numeric else ())


class _Collector(cst.CSTVisitor):
    def __init__(
        self,
        pm: ParsedModule,
        table: ConstantTable,
        reachable: Collection[str] | None,
        *,
        numeric: bool,
        all_strings: bool,
    ) -> None:
        self.pm = pm
        self.table = table
        self.reachable = reachable
        self.numeric = numeric
        self.all_strings = all_strings
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
        self._docstring(node.body)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.prefix.pop()

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
            operand = self._module_constant(operand)
            self._add_string(operand, "compare")
            self._add_number(operand, "compare")

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

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        qualnames = {q.name for q in self.pm.qualified_names(func)}
        if qualnames & ENV_GETTERS:
            if len(positional) > 1:
                self._add_string(positional[1], "env_default")
            return
        if method in STRING_METHODS:
            for arg in positional:
                self._add_string(arg, "method_arg")
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

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.prefix:
            return
        for t in node.targets:
            if isinstance(t.target, cst.Name) and t.target.value.isupper():
                self._add_string(node.value, "module_constant")

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


def _number(expr: cst.BaseExpression) -> int | float | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Float):
        return float(expr.evaluated_value)
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, (cst.Integer, cst.Float))
    ):
        inner = _number(expr.expression)
        return -inner if inner is not None else None
    return None
