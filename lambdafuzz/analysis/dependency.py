"""Build the def-use dependency graph over application code (SpotOn's variable dependency
pass; the graph itself and its edge modes are described in `graph.py`).

Registration first (every function and class of every module, with parameter and return
nodes), so calls resolve regardless of order; then module-level code and every function
body, statement by statement.  Flow-insensitive: one node per (scope, name), a documented
simplification of Wala's SSA form.
"""

from __future__ import annotations

import libcst as cst

from .calls import CallBuilder
from .expressions import BuildCtx
from .graph import COPY, ELEMENT, DependencyGraph, FunctionInfo
from .sources import ParsedModule


def build_graph(modules: list[ParsedModule]) -> DependencyGraph:
    """Build the dependency graph of all modules (registration first, so calls resolve)."""
    builder = _Builder(modules)
    builder.build()
    return builder.graph


class _Builder(CallBuilder):
    def build(self) -> None:
        for pm in self.modules:
            self.global_scopes[pm.source.module] = pm.scopes.get(pm.tree)
            self._register(pm, pm.tree.body, prefix="", cls=None)
        for pm in self.modules:
            ctx = BuildCtx(pm, None, f"<module>:{pm.source.module}")
            self.stmts(pm.tree.body, ctx)
        for fn in list(self.graph.functions.values()):
            ctx = BuildCtx(fn.pm, fn, fn.qualname)
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

    def _params(self, fn: FunctionInfo, ctx: BuildCtx) -> None:
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

    # --- statements ----------------------------------------------------------------------
    def stmts(self, body, ctx: BuildCtx) -> None:
        for stmt in body:
            self.stmt(stmt, ctx)

    def stmt(self, s: cst.CSTNode, ctx: BuildCtx) -> None:
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

    def _qual_of(self, fn: cst.FunctionDef, ctx: BuildCtx) -> str | None:
        for info in self.graph.functions.values():
            if info.node is fn:
                return info.qualname
        return None

    def small(self, s: cst.CSTNode, ctx: BuildCtx) -> None:
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


# --- syntax helpers ----------------------------------------------------------------------
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
