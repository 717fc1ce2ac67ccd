"""Graph nodes for expressions, names and stores (the builder's value half).

`ExpressionBuilder.expr` returns the node of an expression, creating the SSA-temporary-like
node of a call, attribute, subscript or operator on the way; names resolve through
libcst's scopes to one variable node per (scope, name).  Stores (`bind`) and the control
dependence of definitions live here too, because expressions store (walrus,
comprehension variables) and statements store.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst
from libcst.metadata import Assignment, BuiltinAssignment, ImportAssignment, QualifiedNameSource

from . import type_table as T
from .graph import CONTROL, COPY, ELEMENT, FLOW, DependencyGraph, FunctionInfo, Node
from .sources import ParsedModule

MAX_GUARDS = 8  # enclosing conditions a definition depends on (innermost kept)


@dataclass(frozen=True, slots=True)
class BuildCtx:
    """Where the builder is: module, function, reachability key, enclosing conditions."""

    pm: ParsedModule
    fn: FunctionInfo | None
    caller: str  # reachability key: function qualname or "<module>:mod"
    guards: tuple[int, ...] = ()  # conditions of the enclosing if/while/case bodies

    def guarded(self, guard: int | None) -> BuildCtx:
        if guard is None:
            return self
        return replace(self, guards=(*self.guards, guard)[-MAX_GUARDS:])


class ExpressionBuilder:
    """Nodes, name resolution, expressions and stores; `CallBuilder` adds calls."""

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

    def name(self, node: cst.Name, ctx: BuildCtx) -> int | None:
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

    def reach(self, ctx: BuildCtx, sym: tuple[str, str]) -> None:
        kind, qual = sym
        callees = self.graph.calls.setdefault(ctx.caller, set())
        if kind == "function":
            callees.add(qual)
        elif kind == "class":
            callees.update(self.graph.classes.get(qual, ()))

    def store_target(self, target: cst.BaseExpression, ctx: BuildCtx) -> int | None:
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

    def _store_name(self, target: cst.Name, ctx: BuildCtx) -> int | None:
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
        ctx: BuildCtx,
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

    def control(self, node: int, ctx: BuildCtx) -> None:
        """`node` is defined under the enclosing conditions: depend on them (CONTROL)."""
        deps = self.graph.nodes[node].deps
        for guard in ctx.guards:
            if (guard, CONTROL) not in deps and guard != node:
                deps.append((guard, CONTROL))

    def _self_field(self, node: cst.Attribute, ctx: BuildCtx) -> int | None:
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
    def expr(self, e: cst.BaseExpression | None, ctx: BuildCtx) -> int | None:
        if e is None:
            return None
        memo = self.graph.expr_nodes
        if e in memo:
            return memo[e]
        node = self._expr(e, ctx)
        if node is not None:
            memo[e] = node
        return node

    def _expr(self, e: cst.BaseExpression, ctx: BuildCtx) -> int | None:
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

    def _attribute(self, e: cst.Attribute, ctx: BuildCtx) -> int | None:
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

    def _slice(self, el: cst.SubscriptElement, ctx: BuildCtx) -> str | None:
        """Analyse one subscript element; return its key (constant, "*" or None for a slice)."""
        s = el.slice
        if isinstance(s, cst.Index):
            self.expr(s.value, ctx)
            return const_key(s.value)
        for part in (s.lower, s.upper, s.step):
            self.expr(part, ctx)
        return None

    def _subscript(self, e: cst.Subscript, ctx: BuildCtx) -> int | None:
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

    def iter_node(self, iterable: cst.BaseExpression, ctx: BuildCtx) -> int:
        """An element of `iterable` (for targets, comprehension variables)."""
        source = self.expr(iterable, ctx)
        node = self.new("iter", "element", ctx.pm, iterable, recv=source)
        self.dep(node, source, FLOW)
        return node

    def _comprehension(self, e, ctx: BuildCtx) -> int:
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

    def _call(self, e: cst.Call, ctx: BuildCtx) -> int:
        raise NotImplementedError  # CallBuilder


# --- syntax helpers ----------------------------------------------------------------------
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


def const_key(expr: cst.BaseExpression) -> str:
    """A subscript key as the event path records it: the string, or "*" for anything else."""
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        value = expr.evaluated_value
        if isinstance(value, str):
            return value
    return "*"


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
