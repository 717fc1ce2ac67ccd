"""Call nodes: application calls (parameter and return edges), library calls (typed).

A call is resolved, in order, to an application function or class (by qualified name, or
`self.m()` in a class, or a method name only one application class defines), else to a
method on a value (typed by the receiver's labels), else to a library function (typed by
its qualified name).  Application bodies are linked context-insensitively; library bodies
are never entered.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameSource

from . import type_table as T
from .expressions import BuildCtx, ExpressionBuilder, const_key
from .graph import COPY, ELEMENT, FLOW, FunctionInfo, Node
from .sources import ParsedModule


class CallBuilder(ExpressionBuilder):
    """Adds call resolution to the expression builder."""

    def _call(self, e: cst.Call, ctx: BuildCtx) -> int:
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
            node_obj.key = const_key(e.args[0].value) if e.args else None
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
            elif qual in T.PATH_CALLS:
                node_obj.rule = "parse"
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
        ctx: BuildCtx,
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

    def _app_callee(self, func: cst.BaseExpression, ctx: BuildCtx) -> FunctionInfo | str | None:
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

    def _app_method(self, func: cst.Attribute, ctx: BuildCtx) -> FunctionInfo | None:
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
        ctx: BuildCtx,
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
