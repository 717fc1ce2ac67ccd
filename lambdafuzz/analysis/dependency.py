"""The def-use dependency graph over application code (SpotOn's variable dependency pass).

Nodes are variables (one per scope and name: flow-insensitive, a documented simplification
of Wala's SSA form), function parameters and return values, `self.x` fields, and one node
per call, attribute, subscript or operator expression, which plays the role of an SSA
temporary.  An edge `n -> m` in `Node.deps` means "n is computed from m"; walking edges
from a condition's operands therefore walks backward along def-use chains, and the number
of edges walked is SpotOn's type distance.

Edges carry a mode that says what the label propagation (`labelling.py`) may carry along:

* COPY: the value itself (assignment, parameter passing, return): labels, event paths and
  receiver kinds;
* ELEMENT: a part of it (unpacking, `rows.append(row)`, container displays): labels and
  event paths, not receiver kinds;
* FLOW: only influence (operands, receivers, indexes): nothing, the walk still follows it.

Control dependence is added on top of the paper's def-use edges, as CONTROL edges (carry
nothing, and count double in distances: a weaker influence than data flow): a variable
assigned, a value returned or a container appended to inside an `if`/`while`/`case` body
also depends on that statement's condition.  Without it, `return DailySurvey` under
`if "Daily_Survey" in key:` would make the caller's branch on the result look independent
of the input.

Calls into application functions add argument -> parameter and return -> call-site edges
(context-insensitive); library calls are not entered: their node depends on the receiver
and the arguments, and the type table says what they return.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import Assignment, BuiltinAssignment, ImportAssignment, QualifiedNameSource

from . import type_table as T
from .sources import ParsedModule

COPY, ELEMENT, FLOW, CONTROL = 0, 1, 2, 3
MAX_GUARDS = 8  # enclosing conditions a definition depends on (innermost kept)
_SELF_NAMES = ("self", "cls")


@dataclass(slots=True)
class Node:
    """One value of the program (see module doc); `op` selects the typing rule."""

    op: str  # var | ret | field | call | method | attr | subscript | iter | op
    desc: str
    module: str
    line: int
    deps: list[tuple[int, int]] = field(default_factory=list)
    recv: int | None = None
    name: str = ""  # method / attribute / qualified callee name
    key: str | None = None  # subscript or `.get` key: constant, "*" (unknown), None (slice)
    args: tuple[int, ...] = ()
    keywords: frozenset[str] = frozenset()
    fixed: set[str] = field(default_factory=set)
    rule: str = ""  # library call rule: preserve | container | next
    root: bool = False  # the Lambda event: event paths start here


@dataclass(slots=True)
class FunctionInfo:
    """An application function or method."""

    qualname: str  # module-qualified: pkg.mod.f, pkg.mod.C.m, pkg.mod.f.<locals>.g
    module: str
    node: cst.FunctionDef
    pm: ParsedModule
    params: list[str]
    param_nodes: list[int]
    ret: int
    class_qualname: str | None
    bound: bool  # first parameter is self/cls (not a staticmethod)


@dataclass(slots=True)
class DependencyGraph:
    """The graph plus what later passes look up in it."""

    nodes: list[Node] = field(default_factory=list)
    expr_nodes: dict[cst.CSTNode, int] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, list[str]] = field(default_factory=dict)  # class -> method qualnames
    calls: dict[str, set[str]] = field(default_factory=dict)  # caller -> app callees
    roots: list[int] = field(default_factory=list)

    def node_of(self, expr: cst.CSTNode) -> int | None:
        """Graph node of an analysed expression (None for literals and library names)."""
        return self.expr_nodes.get(expr)

    def mark_event_root(self, fn: FunctionInfo) -> int | None:
        """Make `fn`'s first parameter the Lambda event (paths and the EVENT label start here)."""
        if not fn.param_nodes:
            return None
        node_id = fn.param_nodes[1 if fn.bound and len(fn.param_nodes) > 1 else 0]
        node = self.nodes[node_id]
        node.root = True
        if node_id not in self.roots:
            self.roots.append(node_id)
        return node_id


@dataclass(frozen=True, slots=True)
class _Ctx:
    pm: ParsedModule
    fn: FunctionInfo | None
    caller: str  # reachability key: function qualname or "<module>:mod"
    guards: tuple[int, ...] = ()  # conditions of the enclosing if/while/for/case bodies

    def guarded(self, guard: int | None) -> _Ctx:
        if guard is None:
            return self
        return replace(self, guards=(*self.guards, guard)[-MAX_GUARDS:])


def build_graph(modules: list[ParsedModule]) -> DependencyGraph:
    """Build the dependency graph of all modules (registration first, so calls resolve)."""
    builder = _Builder(modules)
    builder.build()
    return builder.graph


class _Builder:
    def __init__(self, modules: list[ParsedModule]) -> None:
        self.modules = modules
        self.graph = DependencyGraph()
        self.by_module = {pm.source.module: pm for pm in modules}
        self.vars: dict[tuple[int, str], int] = {}
        self.fields: dict[tuple[str, str], int] = {}
        self.keep_alive: list[object] = []
        self.method_names: dict[str, list[str]] = {}
        self.global_scopes: dict[str, object] = {}
        self.attr_reads: list[tuple[int, str]] = []

    # --- nodes ---------------------------------------------------------------------------
    def new(self, op: str, desc: str, pm: ParsedModule, at: cst.CSTNode | None, **kw) -> int:
        line = pm.line(at) if at is not None and at in pm.positions else 0
        self.graph.nodes.append(Node(op, desc, pm.source.module, line, **kw))
        return len(self.graph.nodes) - 1

    def dep(self, node: int, on: int | None, mode: int) -> None:
        if on is not None and on != node:
            self.graph.nodes[node].deps.append((on, mode))

    def var(self, scope: object, name: str, pm: ParsedModule, at: cst.CSTNode | None) -> int:
        key = (id(scope), name)
        found = self.vars.get(key)
        if found is None:
            self.keep_alive.append(scope)
            found = self.new("var", name, pm, at)
            self.vars[key] = found
        return found

    def field_node(self, cls: str, attr: str, pm: ParsedModule, at: cst.CSTNode) -> int:
        found = self.fields.get((cls, attr))
        if found is None:
            found = self.new("field", f"{cls}.{attr}", pm, at)
            self.fields[(cls, attr)] = found
        return found

    # --- registration --------------------------------------------------------------------
    def build(self) -> None:
        for pm in self.modules:
            self.global_scopes[pm.source.module] = pm.scopes.get(pm.tree)
            self._register(pm, pm.tree.body, prefix="", cls=None)
        for pm in self.modules:
            ctx = _Ctx(pm, None, f"<module>:{pm.source.module}")
            self.stmts(pm.tree.body, ctx)
        for fn in list(self.graph.functions.values()):
            ctx = _Ctx(fn.pm, fn, fn.qualname)
            self._params(fn, ctx)
            self.stmts(_body_statements(fn.node.body), ctx)
        self._link_fields()

    def _link_fields(self) -> None:
        """`obj.x` outside the class reads the field `x` when one app class defines it."""
        by_attr: dict[str, list[int]] = {}
        for (_, attr), node in self.fields.items():
            by_attr.setdefault(attr, []).append(node)
        for node_id, attr in self.attr_reads:
            found = by_attr.get(attr, [])
            if len(found) == 1:
                self.dep(node_id, found[0], COPY)

    def _register(self, pm: ParsedModule, body, prefix: str, cls: str | None) -> None:
        module = pm.source.module
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                qual = f"{module}.{prefix}{stmt.name.value}"
                self._add_function(pm, stmt, qual, cls)
                self._register(
                    pm, _body_statements(stmt.body), f"{prefix}{stmt.name.value}.<locals>.", None
                )
            elif isinstance(stmt, cst.ClassDef):
                cqual = f"{module}.{prefix}{stmt.name.value}"
                self.graph.classes.setdefault(cqual, [])
                self._register(
                    pm, _body_statements(stmt.body), f"{prefix}{stmt.name.value}.", cqual
                )
            elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
                # conditional definitions (`if TYPE_CHECKING:`, try/except ImportError)
                for block in _blocks(stmt):
                    self._register(pm, block, prefix, cls)

    def _add_function(
        self, pm: ParsedModule, fn: cst.FunctionDef, qual: str, cls: str | None
    ) -> None:
        params = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        names = [p.name.value for p in params]
        nodes = []
        for p in params:
            scope = pm.scopes.get(p.name)
            nodes.append(self.var(scope, p.name.value, pm, p))
        ret = self.new("ret", f"return of {qual}", pm, fn)
        if fn.returns is not None:
            self.graph.nodes[ret].fixed |= self.annotation_labels(pm, fn.returns.annotation)
        static = any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
            for d in fn.decorators
        )
        bound = cls is not None and not static and bool(names)
        info = FunctionInfo(qual, pm.source.module, fn, pm, names, nodes, ret, cls, bound)
        self.graph.functions[qual] = info
        if cls is not None:
            self.graph.classes[cls].append(qual)
            self.method_names.setdefault(fn.name.value, []).append(qual)

    def _params(self, fn: FunctionInfo, ctx: _Ctx) -> None:
        pm = fn.pm
        params = [
            *fn.node.params.posonly_params,
            *fn.node.params.params,
            *fn.node.params.kwonly_params,
        ]
        for p, node in zip(params, fn.param_nodes, strict=True):
            if p.annotation is not None:
                self.graph.nodes[node].fixed |= self.annotation_labels(pm, p.annotation.annotation)
            if p.default is not None:
                self.dep(node, self.expr(p.default, ctx), COPY)

    def annotation_labels(self, pm: ParsedModule, ann: cst.BaseExpression) -> set[str]:
        found: set[str] = set()
        for node in _names_in(ann):
            for q in pm.qualified_names(node):
                if q.source is QualifiedNameSource.IMPORT:
                    found.update(T.ANNOTATIONS.get(q.name, ()))
        return found

    # --- name resolution -------------------------------------------------------------------
    def resolve_qualname(self, pm: ParsedModule, name: str) -> str:
        """Absolute dotted name for an (app-)relative qualified name."""
        if not name.startswith("."):
            return name
        dots = len(name) - len(name.lstrip("."))
        base = pm.source.package.split(".") if pm.source.package else []
        if dots > 1:
            base = base[: len(base) - (dots - 1)]
        rest = name[dots:]
        return ".".join([*base, rest] if rest else base)

    def app_symbol(self, pm: ParsedModule, node: cst.CSTNode) -> tuple[str, str] | None:
        """("function"|"class"|"global", qualname) for a name imported from the app."""
        for q in pm.qualified_names(node):
            if q.source is not QualifiedNameSource.IMPORT:
                continue
            name = self.resolve_qualname(pm, q.name)
            found = self.lookup(name)
            if found is not None:
                return found
        return None

    def lookup(self, name: str) -> tuple[str, str] | None:
        if name in self.graph.functions:
            return ("function", name)
        if name in self.graph.classes:
            return ("class", name)
        module, _, attr = name.rpartition(".")
        if module in self.global_scopes and attr:
            return ("global", name)
        return None

    def global_var(self, qualname: str, at: cst.CSTNode) -> int | None:
        module, _, attr = qualname.rpartition(".")
        scope = self.global_scopes.get(module)
        if scope is None:
            return None
        try:
            assigns = scope[attr]  # type: ignore[index]
        except Exception:
            return None
        for a in assigns:
            if isinstance(a, Assignment) and not isinstance(
                a.node, (cst.FunctionDef, cst.ClassDef)
            ):
                return self.var(a.scope, attr, self.by_module[module], at)
        return None

    def local_callable(self, pm: ParsedModule, node: cst.CSTNode) -> tuple[str, str] | None:
        """A function or class defined in this module (LOCAL qualified name)."""
        for q in pm.qualified_names(node):
            if q.source is QualifiedNameSource.LOCAL:
                found = self.lookup(f"{pm.source.module}.{q.name}")
                if found is not None and found[0] in ("function", "class"):
                    return found
        return None

    def name(self, node: cst.Name, ctx: _Ctx) -> int | None:
        pm = ctx.pm
        scope = pm.scopes.get(node)
        if scope is None:
            return None
        try:
            assigns = scope[node.value]  # type: ignore[index]
        except Exception:
            return None
        found: list[int] = []
        for a in assigns:
            if isinstance(a, BuiltinAssignment):
                continue
            if isinstance(a, ImportAssignment):
                sym = self.app_symbol(pm, node)
                if sym is not None and sym[0] == "global":
                    gv = self.global_var(sym[1], node)
                    if gv is not None:
                        found.append(gv)
                elif sym is not None:
                    self.reach(ctx, sym)
                continue
            if isinstance(a, Assignment):
                if isinstance(a.node, (cst.FunctionDef, cst.ClassDef)):
                    sym = self.local_callable(pm, node)
                    if sym is not None:
                        self.reach(ctx, sym)
                    continue
                found.append(self.var(a.scope, node.value, pm, node))
        if not found:
            return None
        if len(set(found)) == 1:
            return found[0]
        merged = self.new("op", node.value, pm, node)
        for f in sorted(set(found)):
            self.dep(merged, f, COPY)
        return merged

    def reach(self, ctx: _Ctx, sym: tuple[str, str]) -> None:
        kind, qual = sym
        callees = self.graph.calls.setdefault(ctx.caller, set())
        if kind == "function":
            callees.add(qual)
        elif kind == "class":
            callees.update(self.graph.classes.get(qual, ()))

    # --- statements ----------------------------------------------------------------------
    def stmts(self, body, ctx: _Ctx) -> None:
        for stmt in body:
            self.stmt(stmt, ctx)

    def stmt(self, s: cst.CSTNode, ctx: _Ctx) -> None:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                self.small(small, ctx)
        elif isinstance(s, (cst.If, cst.While)):
            inner = ctx.guarded(self.expr(s.test, ctx))
            self.stmts(_body_statements(s.body), inner)
            if s.orelse is not None:
                self.stmt(s.orelse, inner)
        elif isinstance(s, cst.Else):
            self.stmts(_body_statements(s.body), ctx)
        elif isinstance(s, cst.For):
            it = self.iter_node(s.iter, ctx)
            self.bind(s.target, it, None, ctx)
            # not a guard: "the body ran because the collection was not empty" would tie
            # every variable of a loop body to the iterable, drowning the data flow
            self.stmts(_body_statements(s.body), ctx)
            if s.orelse is not None:
                self.stmt(s.orelse, ctx)
        elif isinstance(s, cst.With):
            for item in s.items:
                value = self.expr(item.item, ctx)
                if item.asname is not None:
                    self.bind(item.asname.name, value, item.item, ctx)
            self.stmts(_body_statements(s.body), ctx)
        elif isinstance(s, (cst.Try, cst.TryStar)):
            self.stmts(_body_statements(s.body), ctx)
            for h in s.handlers:
                if h.type is not None:
                    self.expr(h.type, ctx)
                self.stmts(_body_statements(h.body), ctx)
            if s.orelse is not None:
                self.stmts(_body_statements(s.orelse.body), ctx)
            if s.finalbody is not None:
                self.stmts(_body_statements(s.finalbody.body), ctx)
        elif isinstance(s, cst.Match):
            subject = self.expr(s.subject, ctx)
            inner = ctx.guarded(subject)
            for case in s.cases:
                for capture in _pattern_captures(case.pattern):
                    self.bind(capture, subject, None, ctx, mode=ELEMENT)
                for value in _pattern_values(case.pattern):
                    self.expr(value, ctx)
                body_ctx = inner
                if case.guard is not None:
                    body_ctx = inner.guarded(self.expr(case.guard, ctx))
                self.stmts(_body_statements(case.body), body_ctx)
        elif isinstance(s, cst.ClassDef):
            self.stmts(
                [b for b in _body_statements(s.body) if not isinstance(b, cst.FunctionDef)], ctx
            )
        elif isinstance(s, cst.FunctionDef) and ctx.fn is not None:
            qual = self._qual_of(s, ctx)
            if qual is not None:  # a nested def is reachable when its parent is
                self.graph.calls.setdefault(ctx.caller, set()).add(qual)

    def _qual_of(self, fn: cst.FunctionDef, ctx: _Ctx) -> str | None:
        for info in self.graph.functions.values():
            if info.node is fn:
                return info.qualname
        return None

    def small(self, s: cst.CSTNode, ctx: _Ctx) -> None:
        if isinstance(s, cst.Expr):
            self.expr(s.value, ctx)
        elif isinstance(s, cst.Assign):
            value = self.expr(s.value, ctx)
            for t in s.targets:
                self.bind(t.target, value, s.value, ctx)
        elif isinstance(s, cst.AnnAssign):
            value = self.expr(s.value, ctx) if s.value is not None else None
            target = self.bind(s.target, value, s.value, ctx)
            labels = self.annotation_labels(ctx.pm, s.annotation.annotation)
            if target is not None and labels:
                self.graph.nodes[target].fixed |= labels
        elif isinstance(s, cst.AugAssign):
            value = self.expr(s.value, ctx)
            target = self.store_target(s.target, ctx)
            if target is not None:
                self.dep(target, value, ELEMENT)
                self.control(target, ctx)
        elif isinstance(s, cst.Return):
            if ctx.fn is not None:
                if s.value is not None:
                    self.dep(ctx.fn.ret, self.expr(s.value, ctx), COPY)
                self.control(ctx.fn.ret, ctx)
        elif isinstance(s, cst.Raise):
            if s.exc is not None:
                self.expr(s.exc, ctx)
        elif isinstance(s, cst.Assert):
            self.expr(s.test, ctx)
        elif isinstance(s, cst.Del):
            pass

    def store_target(self, target: cst.BaseExpression, ctx: _Ctx) -> int | None:
        """The node a store into `target` updates (a variable, a field, or a container)."""
        if isinstance(target, cst.Name):
            return self._store_name(target, ctx)
        if isinstance(target, cst.Attribute):
            fld = self._self_field(target, ctx)
            if fld is not None:
                return fld
            return self.expr(target.value, ctx)
        if isinstance(target, cst.Subscript):
            for el in target.slice:
                self._slice(el, ctx)
            return self.store_target(target.value, ctx)
        return None

    def _store_name(self, target: cst.Name, ctx: _Ctx) -> int | None:
        scope = ctx.pm.scopes.get(target)
        if scope is None:
            return None
        try:
            assigns = scope[target.value]  # type: ignore[index]
        except Exception:
            return None
        for a in assigns:
            if isinstance(a, Assignment):
                return self.var(a.scope, target.value, ctx.pm, target)
        return None

    def bind(
        self,
        target: cst.BaseExpression,
        value: int | None,
        value_expr: cst.BaseExpression | None,
        ctx: _Ctx,
        mode: int = COPY,
    ) -> int | None:
        """Assign `value` to `target` (names, fields, unpacking, subscript/attribute stores)."""
        if isinstance(target, cst.Name):
            node = self._store_name(target, ctx)
            if node is not None:
                self.dep(node, value, mode)
                self.control(node, ctx)
                self.graph.expr_nodes[target] = node
            return node
        if isinstance(target, (cst.Tuple, cst.List)):
            elts = [e.value for e in target.elements]
            if (
                isinstance(value_expr, (cst.Tuple, cst.List))
                and len(value_expr.elements) == len(elts)
                and not any(isinstance(e, cst.StarredElement) for e in target.elements)
                and not any(isinstance(e, cst.StarredElement) for e in value_expr.elements)
            ):
                for t, v in zip(elts, value_expr.elements, strict=True):
                    self.bind(t, self.expr(v.value, ctx), v.value, ctx, mode)
            else:
                for t in elts:
                    self.bind(t, value, None, ctx, ELEMENT)
            return None
        if isinstance(target, cst.StarredElement):
            return self.bind(target.value, value, None, ctx, ELEMENT)
        if isinstance(target, cst.Attribute):
            fld = self._self_field(target, ctx)
            if fld is not None:
                self.dep(fld, value, mode)
                return fld
            owner = self.expr(target.value, ctx)
            if owner is not None and self.graph.nodes[owner].op in ("var", "field"):
                self.dep(owner, value, FLOW)
            return None
        if isinstance(target, cst.Subscript):
            owner = self.store_target(target, ctx)
            if owner is not None and self.graph.nodes[owner].op in ("var", "field"):
                self.dep(owner, value, ELEMENT)
            return None
        return None

    def control(self, node: int, ctx: _Ctx) -> None:
        """`node` is defined under the enclosing conditions: depend on them (CONTROL)."""
        deps = self.graph.nodes[node].deps
        for guard in ctx.guards:
            if (guard, CONTROL) not in deps and guard != node:
                deps.append((guard, CONTROL))

    def _self_field(self, node: cst.Attribute, ctx: _Ctx) -> int | None:
        fn = ctx.fn
        if (
            fn is not None
            and fn.bound
            and fn.class_qualname is not None
            and isinstance(node.value, cst.Name)
            and node.value.value == fn.params[0]
        ):
            return self.field_node(fn.class_qualname, node.attr.value, ctx.pm, node)
        return None

    # --- expressions -----------------------------------------------------------------------
    def expr(self, e: cst.BaseExpression | None, ctx: _Ctx) -> int | None:
        if e is None:
            return None
        memo = self.graph.expr_nodes
        if e in memo:
            return memo[e]
        node = self._expr(e, ctx)
        if node is not None:
            memo[e] = node
        return node

    def _expr(self, e: cst.BaseExpression, ctx: _Ctx) -> int | None:
        pm = ctx.pm
        if isinstance(e, cst.Name):
            return self.name(e, ctx)
        if isinstance(e, (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.Ellipsis)):
            return None
        if isinstance(e, cst.Attribute):
            return self._attribute(e, ctx)
        if isinstance(e, cst.Subscript):
            return self._subscript(e, ctx)
        if isinstance(e, cst.Call):
            return self._call(e, ctx)
        if isinstance(e, cst.Await):
            return self.expr(e.expression, ctx)
        if isinstance(e, cst.NamedExpr):
            value = self.expr(e.value, ctx)
            return self.bind(e.target, value, e.value, ctx)
        if isinstance(e, cst.IfExp):
            node = self.new("op", "ifexp", pm, e)
            self.dep(node, self.expr(e.test, ctx), FLOW)
            self.dep(node, self.expr(e.body, ctx), COPY)
            self.dep(node, self.expr(e.orelse, ctx), COPY)
            return node
        if isinstance(e, cst.BooleanOperation):
            node = self.new("op", "boolop", pm, e)
            self.dep(node, self.expr(e.left, ctx), COPY)
            self.dep(node, self.expr(e.right, ctx), COPY)
            return node
        if isinstance(e, (cst.List, cst.Tuple, cst.Set)):
            node = self.new("op", "display", pm, e)
            for el in e.elements:
                self.dep(node, self.expr(el.value, ctx), ELEMENT)
            return node
        if isinstance(e, cst.Dict):
            node = self.new("op", "dict", pm, e)
            for el in e.elements:
                if isinstance(el, cst.DictElement):
                    self.dep(node, self.expr(el.key, ctx), FLOW)
                self.dep(node, self.expr(el.value, ctx), ELEMENT)
            return node
        if isinstance(e, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self._comprehension(e, ctx)
        if isinstance(e, cst.Yield):
            value = e.value.item if isinstance(e.value, cst.From) else e.value
            if value is not None and ctx.fn is not None:
                self.dep(ctx.fn.ret, self.expr(value, ctx), COPY)
            return None
        if isinstance(e, cst.Lambda):
            return None
        # operators, comparisons, f-strings, concatenations, starred: depend on the parts
        node = self.new("op", type(e).__name__, pm, e)
        for child in _sub_expressions(e):
            self.dep(node, self.expr(child, ctx), FLOW)
        return node

    def _attribute(self, e: cst.Attribute, ctx: _Ctx) -> int | None:
        pm = ctx.pm
        fld = self._self_field(e, ctx)
        if fld is not None:
            return fld
        recv = self.expr(e.value, ctx)
        if recv is None:
            # a module attribute: an app global (`config.TABLE`) or a library name
            sym = self.app_symbol(pm, e)
            if sym is not None and sym[0] == "global":
                return self.global_var(sym[1], e)
            if sym is not None:
                self.reach(ctx, sym)
            return None
        node = self.new("attr", f".{e.attr.value}", pm, e, recv=recv, name=e.attr.value)
        self.dep(node, recv, FLOW)
        self.attr_reads.append((node, e.attr.value))
        return node

    def _slice(self, el: cst.SubscriptElement, ctx: _Ctx) -> str | None:
        """Analyse one subscript element; return its key (constant, "*" or None for a slice)."""
        s = el.slice
        if isinstance(s, cst.Index):
            self.expr(s.value, ctx)
            return _const_key(s.value)
        for part in (s.lower, s.upper, s.step):
            self.expr(part, ctx)
        return None

    def _subscript(self, e: cst.Subscript, ctx: _Ctx) -> int | None:
        recv = self.expr(e.value, ctx)
        keys = [self._slice(el, ctx) for el in e.slice]
        key = keys[0] if len(keys) == 1 else "*"
        if recv is None:
            sym = None
            if isinstance(e.value, (cst.Name, cst.Attribute)):
                sym = self.app_symbol(ctx.pm, e.value)
            if sym is None:  # `os.environ["X"]`, `typing.Optional[...]`: not app data
                node = self.new("op", "subscript", ctx.pm, e)
                for el in e.slice:
                    if isinstance(el.slice, cst.Index):
                        self.dep(node, self.expr(el.slice.value, ctx), FLOW)
                return node
        node = self.new("subscript", f"[{key}]", ctx.pm, e, recv=recv, key=key)
        self.dep(node, recv, FLOW)
        for el in e.slice:
            if isinstance(el.slice, cst.Index):
                self.dep(node, self.expr(el.slice.value, ctx), FLOW)
        return node

    def iter_node(self, iterable: cst.BaseExpression, ctx: _Ctx) -> int:
        """An element of `iterable` (for targets, comprehension variables)."""
        source = self.expr(iterable, ctx)
        node = self.new("iter", "element", ctx.pm, iterable, recv=source)
        self.dep(node, source, FLOW)
        return node

    def _comprehension(self, e, ctx: _Ctx) -> int:
        node = self.new("op", "comprehension", ctx.pm, e)
        comp = e.for_in
        while comp is not None:
            it = self.iter_node(comp.iter, ctx)
            self.bind(comp.target, it, None, ctx)
            for cond in comp.ifs:
                self.expr(cond.test, ctx)
            comp = comp.inner_for_in
        if isinstance(e, cst.DictComp):
            self.dep(node, self.expr(e.key, ctx), FLOW)
            self.dep(node, self.expr(e.value, ctx), ELEMENT)
        else:
            self.dep(node, self.expr(e.elt, ctx), ELEMENT)
        return node

    # --- calls ---------------------------------------------------------------------------
    def _call(self, e: cst.Call, ctx: _Ctx) -> int:
        pm = ctx.pm
        func = e.func
        args = [(a, self.expr(a.value, ctx)) for a in e.args]
        positional = [n for a, n in args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: n for a, n in args if a.keyword is not None}
        kwnames = frozenset(keywords)

        recv: int | None = None
        method: str | None = None
        if isinstance(func, cst.Attribute):
            recv = self.expr(func.value, ctx)
            if recv is not None:
                method = func.attr.value
        callee = None
        if method is None:
            callee = self._app_callee(func, ctx)
        elif recv is not None and isinstance(func, cst.Attribute):
            callee = self._app_method(func, ctx)

        if callee is not None:
            return self._app_call(e, callee, recv, method is not None, positional, keywords, ctx)

        if method is not None:
            node = self.new(
                "method", f".{method}()", pm, e, recv=recv, name=method, keywords=kwnames
            )
            node_obj = self.graph.nodes[node]
            node_obj.args = tuple(n for _, n in args if n is not None)
            node_obj.key = _const_key(e.args[0].value) if e.args else None
            self.dep(node, recv, FLOW)
            for _, n in args:
                self.dep(node, n, FLOW)
            if method in ("client", "resource") and e.args:
                self._factory(node_obj, method, e)
            self._side_effects(node, method, recv, positional, keywords, ctx)
            return node

        qual = self._library_name(func, pm)
        node = self.new("call", f"{qual or '?'}()", pm, e, name=qual or "", keywords=kwnames)
        node_obj = self.graph.nodes[node]
        node_obj.args = tuple(n for _, n in args if n is not None)
        if qual is not None:
            node_obj.fixed.update(T.CALLS.get(qual, ()))
            if qual in T.FACTORIES:
                service = _string_arg(e, 0, "service_name")
                kind = T.FACTORIES[qual].get(service or "")
                if kind:
                    node_obj.fixed.add(kind)
            if qual in T.PRESERVING_CALLS:
                node_obj.rule = "preserve"
            elif qual in T.CONTAINER_CALLS:
                node_obj.rule = "container"
            elif qual == "next":
                node_obj.rule = "next"
        if not isinstance(func, (cst.Name, cst.Attribute)):
            self.dep(node, self.expr(func, ctx), FLOW)
        for _, n in args:
            self.dep(node, n, FLOW)
        return node

    def _factory(self, node: Node, method: str, e: cst.Call) -> None:
        service = _string_arg(e, 0, "service_name")
        table = T.CLIENT_KINDS if method == "client" else T.RESOURCE_KINDS
        if service in table:
            node.fixed.add(table[service])

    def _side_effects(
        self,
        node: int,
        method: str,
        recv: int | None,
        positional: list[int | None],
        keywords: dict[str, int | None],
        ctx: _Ctx,
    ) -> None:
        nodes = self.graph.nodes
        if method in T.MUTATING_METHODS and recv is not None and nodes[recv].op in ("var", "field"):
            for n in [*positional, *keywords.values()]:
                self.dep(recv, n, ELEMENT)
            self.control(recv, ctx)
        for table in (T.DOWNLOAD_METHODS, T.DOWNLOAD_METHODS_RESOURCE):
            if method in table:
                index, kw = table[method]
                sink = keywords.get(kw)
                if sink is None and len(positional) > index:
                    sink = positional[index]
                if sink is not None and nodes[sink].op in ("var", "field"):
                    self.dep(sink, node, ELEMENT)
                break

    def _library_name(self, func: cst.BaseExpression, pm: ParsedModule) -> str | None:
        best = None
        for q in pm.qualified_names(func):
            if q.source is QualifiedNameSource.IMPORT:
                return self.resolve_qualname(pm, q.name)
            if q.source is QualifiedNameSource.BUILTIN:
                best = q.name.removeprefix("builtins.")
        return best

    def _app_callee(self, func: cst.BaseExpression, ctx: _Ctx) -> FunctionInfo | str | None:
        """The application function (or class) a plain call invokes, if any."""
        pm = ctx.pm
        sym = None
        if isinstance(func, (cst.Name, cst.Attribute)):
            sym = self.local_callable(pm, func) or self.app_symbol(pm, func)
        if sym is None:
            return None
        kind, qual = sym
        self.reach(ctx, sym)
        if kind == "function":
            return self.graph.functions[qual]
        if kind == "class":
            init = self.graph.functions.get(f"{qual}.__init__")
            return init if init is not None else qual
        return None

    def _app_method(self, func: cst.Attribute, ctx: _Ctx) -> FunctionInfo | None:
        """`self.m(...)` in a class, or a method name defined by exactly one app class."""
        name = func.attr.value
        fn = ctx.fn
        if (
            fn is not None
            and fn.bound
            and fn.class_qualname is not None
            and isinstance(func.value, cst.Name)
            and func.value.value == fn.params[0]
        ):
            found = self.graph.functions.get(f"{fn.class_qualname}.{name}")
            if found is not None:
                self.reach(ctx, ("function", found.qualname))
                return found
        candidates = self.method_names.get(name, [])
        if (
            len(candidates) == 1
            and not name.startswith("__")
            and not T.method_rules(name)
            and name not in T.PRESERVING_METHODS
            and name not in T.MUTATING_METHODS
        ):
            self.reach(ctx, ("function", candidates[0]))
            return self.graph.functions[candidates[0]]
        return None

    def _app_call(
        self,
        e: cst.Call,
        callee: FunctionInfo | str,
        recv: int | None,
        is_method: bool,
        positional: list[int | None],
        keywords: dict[str, int | None],
        ctx: _Ctx,
    ) -> int:
        pm = ctx.pm
        if isinstance(callee, str):  # a class without __init__: the instance depends on args
            node = self.new("op", f"{callee}()", pm, e)
            for n in [*positional, *keywords.values()]:
                self.dep(node, n, FLOW)
            return node
        node = self.new("call", f"{callee.qualname}()", pm, e, name=callee.qualname)
        self.dep(node, callee.ret, COPY)
        params = list(zip(callee.params, callee.param_nodes, strict=True))
        is_init = callee.node.name.value == "__init__"
        if callee.bound:
            if is_method and recv is not None and params:
                self.dep(params[0][1], recv, COPY)
            if is_method or is_init:
                params = params[1:]
            if is_init:  # the new instance depends on what __init__ received
                for n in [*positional, *keywords.values()]:
                    self.dep(node, n, FLOW)
        for (_, pnode), arg in zip(params, positional, strict=False):
            self.dep(pnode, arg, COPY)
        by_name = dict(params)
        for kw, arg in keywords.items():
            if kw in by_name:
                self.dep(by_name[kw], arg, COPY)
        return node


# --- small syntax helpers ------------------------------------------------------------------
def _body_statements(body: cst.BaseSuite) -> list[cst.CSTNode]:
    return list(body.body)


def _blocks(stmt: cst.CSTNode) -> list[list[cst.CSTNode]]:
    blocks: list[list[cst.CSTNode]] = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite):
        blocks.append(_body_statements(body))
    for attr in ("orelse", "finalbody"):
        part = getattr(stmt, attr, None)
        if isinstance(part, cst.If):
            blocks.extend(_blocks(part))
        elif part is not None and isinstance(getattr(part, "body", None), cst.BaseSuite):
            blocks.append(_body_statements(part.body))
    for h in getattr(stmt, "handlers", ()):
        blocks.append(_body_statements(h.body))
    return blocks


def _names_in(expr: cst.CSTNode) -> list[cst.CSTNode]:
    """Outermost Name/Attribute nodes of an annotation (`Optional[datetime]` -> datetime)."""
    found: list[cst.CSTNode] = []

    class _V(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            found.append(node)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

    expr.visit(_V())
    return found


def _const_key(expr: cst.BaseExpression) -> str:
    """A subscript key as the event path records it: the string, or "*" for anything else."""
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        value = expr.evaluated_value
        if isinstance(value, str):
            return value
    return "*"


def _string_arg(e: cst.Call, index: int, keyword: str) -> str | None:
    positional = [a for a in e.args if a.keyword is None and not a.star]
    for a in e.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return _literal(a.value)
    if len(positional) > index:
        return _literal(positional[index].value)
    return None


def _literal(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


_WRAPPERS = (
    cst.ComparisonTarget,
    cst.BaseElement,
    cst.BaseDictElement,
    cst.FormattedStringExpression,
    cst.Arg,
    cst.Index,
    cst.Slice,
    cst.SubscriptElement,
)


def _sub_expressions(e: cst.CSTNode) -> list[cst.BaseExpression]:
    """Direct sub-expressions of an expression (through Arg/Element/comparison wrappers)."""
    out: list[cst.BaseExpression] = []
    for child in e.children:
        if isinstance(child, cst.BaseExpression):
            out.append(child)
        elif isinstance(child, _WRAPPERS):
            out.extend(_sub_expressions(child))
    return out


def _pattern_captures(pattern: cst.CSTNode) -> list[cst.Name]:
    names: list[cst.Name] = []

    class _V(cst.CSTVisitor):
        def visit_MatchAs(self, node: cst.MatchAs) -> None:
            if node.name is not None:
                names.append(node.name)

        def visit_MatchStar(self, node: cst.MatchStar) -> None:
            if node.name is not None:
                names.append(node.name)

        def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
            if node.rest is not None:
                names.append(node.rest)

    pattern.visit(_V())
    return names


def _pattern_values(pattern: cst.CSTNode) -> list[cst.BaseExpression]:
    values: list[cst.BaseExpression] = []

    class _V(cst.CSTVisitor):
        def visit_MatchValue(self, node: cst.MatchValue) -> None:
            values.append(node.value)

    pattern.visit(_V())
    return values
