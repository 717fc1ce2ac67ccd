"""What a name or expression the code compares its input with stands for, across modules.

A handler rarely spells the value it checks next to the check: it compares with a constant
imported from another of its modules (`from .consts import STATUS_OK`), an Enum member's
value (`Kind.ORDER.value`, `Kind(kind)`), a class attribute (`self.MODES`), or a string
built from constants (`PREFIX + "-x"`, `f"{PREFIX}/in"`).  `Symbols` is built once over
all of the application's modules and folds such an expression back to its literal value(s),
so the constant harvest (`constants.py`) can take them like a literal in the comparison.

Only names bound exactly once are followed (a name assigned twice has no one value), and
folding stops after `MAX_DEPTH` hops (`A = B; B = A` must not loop).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import GlobalScope

from .sources import ParsedModule

Value = str | int | float
#: Base classes whose subclasses are enumerations (`class Kind(str, Enum)` too).
ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum", "Flag", "IntFlag"})
#: Names of the instance / class inside a method: `self.MODES` is the class attribute.
OWNER_NAMES = frozenset({"self", "cls"})
MAX_DEPTH = 8


@dataclass(frozen=True, slots=True)
class ClassInfo:
    """A class of the application: its body's once-assigned names, and whether it is an
    enumeration (then those names are its members)."""

    pm: ParsedModule
    attributes: dict[str, cst.BaseExpression]
    enum: bool


@dataclass(slots=True)
class Symbols:
    """Module-level constants and classes of every module, by fully qualified name."""

    modules: dict[str, ParsedModule] = field(default_factory=dict)
    globals: dict[str, tuple[ParsedModule, cst.BaseExpression]] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    # a Name target of an assignment -> the value assigned (every scope)
    bindings: dict[cst.Name, cst.BaseExpression] = field(default_factory=dict)

    @classmethod
    def of(cls, modules: list[ParsedModule]) -> Symbols:
        symbols = cls()
        for pm in modules:
            symbols.modules[pm.source.module] = pm
            symbols._add_module(pm)
        return symbols

    def _add_module(self, pm: ParsedModule) -> None:
        module = pm.source.module
        seen: dict[str, int] = {}
        for stmt in pm.tree.body:
            if isinstance(stmt, cst.ClassDef):
                attributes = _once_assigned(stmt.body.body)
                self.classes[f"{module}.{stmt.name.value}"] = ClassInfo(
                    pm, attributes, any(_base_name(b.value) in ENUM_BASES for b in stmt.bases)
                )
            for name in _assigned_names(stmt):
                seen[name] = seen.get(name, 0) + 1
        for name, value in _once_assigned(pm.tree.body).items():
            if seen.get(name) == 1:
                self.globals[f"{module}.{name}"] = (pm, value)
        binder = _Binder(self.bindings)
        pm.tree.visit(binder)

    # --- folding ---------------------------------------------------------------------------
    def value(
        self,
        pm: ParsedModule,
        expr: cst.BaseExpression,
        owner: str | None = None,
        *,
        fold: bool = True,
        depth: int = 0,
    ) -> Value | None:
        """The one literal value `expr` stands for: a literal, a name bound once to one (in
        this module or imported), an Enum member (its value), a class attribute (`owner`:
        the enclosing class, for `self.X`); with `fold`, also `+`/`-`/`*` of two such
        values and an f-string of them.  None otherwise."""
        if depth > MAX_DEPTH:
            return None
        literal = _literal(expr)
        if literal is not None:
            return literal
        if isinstance(expr, (cst.Name, cst.Attribute)):
            found = self._lookup(pm, expr, owner)
            if found is None:
                return None
            where, bound = found
            return self.value(where, bound, None, fold=fold, depth=depth + 1)
        if fold and isinstance(expr, cst.BinaryOperation):
            return self._binary(pm, expr, owner, depth)
        if fold and isinstance(expr, cst.FormattedString):
            return self._formatted(pm, expr, owner, depth)
        return None

    def members(
        self,
        pm: ParsedModule,
        expr: cst.BaseExpression,
        owner: str | None = None,
        *,
        keywords: bool = True,
    ) -> tuple[Value, ...]:
        """The values of the collection a name or attribute is bound to (`Config.MODES`,
        `self.MODES`, a dict's keys, `{k: ... for k in ("a", "b")}`, and with `keywords`
        the keys of `dict(a=...)`, identifiers rather than string literals)."""
        found = (
            self._lookup(pm, expr, owner) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        )
        if found is None:
            return ()
        where, bound = found
        return self.literal_members(where, bound, keywords=keywords)

    def literal_members(
        self, pm: ParsedModule, expr: cst.BaseExpression, *, keywords: bool = True
    ) -> tuple[Value, ...]:
        """The values of a collection expression: elements of a list/tuple/set (also in
        `frozenset(...)`), keys of a dict, of `dict(a=...)` and of a comprehension over one."""
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
            if expr.func.value == "dict" and keywords:
                return tuple(a.keyword.value for a in expr.args if a.keyword is not None)
            if expr.func.value in ("frozenset", "set", "tuple", "list") and len(expr.args) == 1:
                return self.literal_members(pm, expr.args[0].value, keywords=keywords)
            return ()
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            elements = [e.value for e in expr.elements if isinstance(e, cst.Element)]
        elif isinstance(expr, cst.Dict):
            elements = [e.key for e in expr.elements if isinstance(e, cst.DictElement)]
        elif isinstance(expr, cst.DictComp):
            return self.comprehended_keys(pm, expr)
        else:
            return ()
        values = (self.value(pm, e) for e in elements)
        return tuple(v for v in values if v is not None)

    def comprehended_keys(self, pm: ParsedModule, expr: cst.DictComp) -> tuple[Value, ...]:
        """`{k: f for k in ("a", "b")}`: the keys, when the key is the loop's own name."""
        loop = expr.for_in
        if (
            isinstance(expr.key, cst.Name)
            and isinstance(loop.target, cst.Name)
            and loop.target.value == expr.key.value
            and loop.inner_for_in is None
        ):
            return self.literal_members(pm, loop.iter) or self.members(pm, loop.iter)
        return ()

    def enum_members(self, pm: ParsedModule, expr: cst.BaseExpression) -> dict[str, Value] | None:
        """Member name -> value of the application's Enum `expr` names, else None."""
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        info = self.classes.get(self._dotted(pm, expr) or "")
        if info is None or not info.enum:
            return None
        members: dict[str, Value] = {}
        for name, bound in info.attributes.items():
            value = self.value(info.pm, bound)
            if value is not None and not name.startswith("_"):
                members[name] = value
        return members

    # --- names -----------------------------------------------------------------------------
    def _lookup(
        self, pm: ParsedModule, expr: cst.Name | cst.Attribute, owner: str | None
    ) -> tuple[ParsedModule, cst.BaseExpression] | None:
        """The (module, expression) a name, dotted name or `self.X` is bound to."""
        if isinstance(expr, cst.Name):
            local = self._local(pm, expr)
            if local is not None:
                return pm, local
        elif (
            owner is not None
            and isinstance(expr.value, cst.Name)
            and expr.value.value in OWNER_NAMES
        ):
            info = self.classes.get(owner)
            bound = info.attributes.get(expr.attr.value) if info is not None else None
            return (info.pm, bound) if info is not None and bound is not None else None
        dotted = self._dotted(pm, expr)
        if dotted is None:
            return None
        if dotted in self.globals:
            return self.globals[dotted]
        head, _, attr = dotted.rpartition(".")
        if attr == "value" and self._member(head) is not None:  # Kind.ORDER.value
            return self._member(head)
        return self._member(dotted)  # Kind.ORDER (equal to its value for a str Enum), Cls.X

    def _member(self, dotted: str) -> tuple[ParsedModule, cst.BaseExpression] | None:
        owner, _, name = dotted.rpartition(".")
        info = self.classes.get(owner)
        bound = info.attributes.get(name) if info is not None else None
        return (info.pm, bound) if info is not None and bound is not None else None

    def _local(self, pm: ParsedModule, name: cst.Name) -> cst.BaseExpression | None:
        """What a name assigned exactly once by `name = value` (any scope) is bound to."""
        assignment = _single_assignment(pm, name)
        node = getattr(assignment, "node", None)
        return self.bindings.get(node) if isinstance(node, cst.Name) else None

    def _dotted(self, pm: ParsedModule, expr: cst.BaseExpression) -> str | None:
        """The fully qualified name of `kinds.Kind.ORDER`, `Kind`, `consts.MAX`: its head
        resolved through the module's imports or its own module-level definitions."""
        attrs: list[str] = []
        while isinstance(expr, cst.Attribute):
            attrs.insert(0, expr.attr.value)
            expr = expr.value
        if not isinstance(expr, cst.Name):
            return None
        assignment = _single_assignment(pm, expr)
        if assignment is None:
            return None
        if isinstance(getattr(assignment, "node", None), (cst.Import, cst.ImportFrom)):
            names = sorted(q.name for q in pm.qualified_names(expr))
            if not names:
                return None
            head = _absolute(names[0], pm.source.package)
        elif isinstance(assignment.scope, GlobalScope):  # type: ignore[attr-defined]
            head = f"{pm.source.module}.{expr.value}"
        else:
            return None
        return ".".join([head, *attrs])

    def _binary(
        self, pm: ParsedModule, expr: cst.BinaryOperation, owner: str | None, depth: int
    ) -> Value | None:
        left = self.value(pm, expr.left, owner, depth=depth + 1)
        right = self.value(pm, expr.right, owner, depth=depth + 1)
        if left is None or right is None or isinstance(left, str) != isinstance(right, str):
            return None
        if isinstance(expr.operator, cst.Add):
            return left + right  # type: ignore[operator]
        if isinstance(left, str) or isinstance(right, str):
            return None
        if isinstance(expr.operator, cst.Subtract):
            return left - right
        if isinstance(expr.operator, cst.Multiply):
            return left * right
        return None

    def _formatted(
        self, pm: ParsedModule, expr: cst.FormattedString, owner: str | None, depth: int
    ) -> str | None:
        pieces: list[str] = []
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                pieces.append(part.value)
                continue
            if not isinstance(part, cst.FormattedStringExpression):
                return None
            if part.conversion is not None or part.format_spec is not None:
                return None
            value = self.value(pm, part.expression, owner, depth=depth + 1)
            if value is None:
                return None
            pieces.append(str(value))
        return "".join(pieces)


class _Binder(cst.CSTVisitor):
    """Every `name = value` (one Name target) of a module: target node -> value."""

    def __init__(self, found: dict[cst.Name, cst.BaseExpression]) -> None:
        self.found = found

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.found[node.targets[0].target] = node.value

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, cst.Name):
            self.found[node.target] = node.value


def _single_assignment(pm: ParsedModule, name: cst.Name) -> object | None:
    scope = pm.scopes.get(name)
    try:
        assigns = list(scope[name.value]) if scope is not None else []  # type: ignore[index]
    except Exception:
        return None
    return assigns[0] if len(assigns) == 1 else None


def _once_assigned(body: object) -> dict[str, cst.BaseExpression]:
    """`NAME = value` statements of a body (module or class), names assigned once only."""
    found: dict[str, cst.BaseExpression] = {}
    twice: set[str] = set()
    for stmt in body:  # type: ignore[attr-defined]
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            target: cst.BaseExpression | None = None
            value: cst.BaseExpression | None = None
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign):
                target, value = small.target, small.value
            if isinstance(target, cst.Name) and value is not None:
                if target.value in found:
                    twice.add(target.value)
                found[target.value] = value
    return {k: v for k, v in found.items() if k not in twice}


def _assigned_names(stmt: cst.CSTNode) -> list[str]:
    """Names a module-level statement binds by assignment (to spot rebinding)."""
    if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)):
        return [stmt.name.value]
    names: list[str] = []
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            targets = []
            if isinstance(small, cst.Assign):
                targets = [t.target for t in small.targets]
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                targets = [small.target]
            names += [t.value for t in targets if isinstance(t, cst.Name)]
    return names


def _base_name(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _absolute(name: str, package: str) -> str:
    """`.consts.A` imported in package `app` is `app.consts.A`."""
    level = len(name) - len(name.lstrip("."))
    if not level:
        return name
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, name[level:]])


def _literal(expr: cst.BaseExpression) -> Value | None:
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = expr.evaluated_value
        except Exception:  # f-string pieces inside a concatenation
            return None
        return value if isinstance(value, str) else None
    return number_literal(expr)


def number_literal(expr: cst.BaseExpression) -> int | float | None:
    """The value of a number literal (`3`, `2.5`, `-1`), else None."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Float):
        return float(expr.evaluated_value)
    if (
        isinstance(expr, cst.UnaryOperation)
        and isinstance(expr.operator, cst.Minus)
        and isinstance(expr.expression, (cst.Integer, cst.Float))
    ):
        inner = number_literal(expr.expression)
        return -inner if inner is not None else None
    return None
