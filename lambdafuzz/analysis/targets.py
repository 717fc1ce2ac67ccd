"""Code targets: both arms of every branch in application code (SpotOn's then/else sides).

Besides the condition, each arm gets the (from_line, to_line) pairs under which the
harness reports it (`lambdafuzz.harness.measure.coverage.ArmSite`), so the fuzzer can tell covered
targets from uncovered ones.  The harness's convention: `from_line` is the line of the
jump; `to_line` is the first *other* line the arm reaches along straight-line code, the
jump's own line when the arm runs into another conditional jump on that line first
(`a and b` on one line, a loop's back-jump to its header), or minus the first line of the
code object when it returns or raises first (coverage.py's convention).

Predicting that from source is best effort; the rules (checked against the harness's own
scan in tests/analysis/test_line_pairs.py):

* the jump sits on the line of the condition's *last* operand (`if a and\\n b:` jumps on
  b's line; `not x` on x's line); `for` jumps on the `for` line, `case`/`except` on theirs;
* entering an indented block reaches its first line; a one-line block (`if x: y = 1`)
  runs through to wherever the statement continues;
* leaving a block reaches the next statement or, at the end of a block, the loop header
  (back-jump), the `with` line (`__exit__`), the `else`/`finally` block of a `try`, or the
  code object's exit;
* a value-context `and`/`or`, ternary or comprehension continues with its statement.

Arms may share a pair (both arms of a one-line ternary continue with the next line), and
an arm may carry several candidate pairs; matching coverage to targets is a lookup of
candidate pairs, never an exact one-to-one mapping.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .model import TargetKind
from .sources import ParsedModule

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
_ELEMENTS = (cst.Element, cst.StarredElement, cst.DictElement, cst.StarredDictElement, cst.Arg)


@dataclass(frozen=True, slots=True)
class RawTarget:
    """A code target before typing: the arm plus the condition operands to walk back from."""

    id: str
    module: str
    function: str
    line: int
    end_line: int
    kind: TargetKind
    arm: str
    index: int
    condition: str
    line_pairs: tuple[tuple[int, int], ...]
    operands: tuple[cst.BaseExpression, ...]


def collect_targets(pm: ParsedModule) -> list[RawTarget]:
    """All code targets of one module, in source order."""
    collector = _TargetCollector(pm)
    pm.tree.visit(collector)
    collector.targets.sort(key=lambda t: (t.line, t.id.rpartition(":")[0], t.arm != "true"))
    return collector.targets


def condition_operands(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands a branch instruction reads: `not`, `and`/`or` and comparisons unwrapped."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return condition_operands(expr.expression)
    if isinstance(expr, cst.BooleanOperation):
        return condition_operands(expr.left) + condition_operands(expr.right)
    if isinstance(expr, cst.Comparison):
        return [expr.left, *(c.comparator for c in expr.comparisons)]
    return [expr]


class _TargetCollector(cst.CSTVisitor):
    def __init__(self, pm: ParsedModule) -> None:
        self.pm = pm
        self.targets: list[RawTarget] = []
        self._scope: list[str] = []
        self._firstlines: list[int] = [1]  # first line of each enclosing code object
        # Parents of every node visited so far (all ancestors of the current node are in
        # it); cheaper than libcst's ParentNodeProvider pass.
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.parents[node] = self._stack[-1]
        self._stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self._stack.pop()

    # --- enclosing function (libcst's `f.<locals>.g` naming) and code object ------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scope += [node.name.value, "<locals>"]
        self._firstlines.append(_code_first_line(self.pm, node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        del self._scope[-2:]
        self._firstlines.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scope.append(node.name.value)
        self._firstlines.append(_code_first_line(self.pm, node))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scope.pop()
        self._firstlines.pop()

    def _function(self) -> str:
        qual = ".".join(self._scope) if self._scope else "<module>"
        return qual.removesuffix(".<locals>")

    def _exit(self) -> int:
        return -self._firstlines[-1]

    # --- where control goes ----------------------------------------------------------------
    def after(self, stmt: cst.CSTNode) -> list[int]:
        """Lines control reaches when `stmt` completes normally."""
        pm, parents = self.pm, self.parents
        node = stmt
        while True:
            parent = parents.get(node)
            if parent is None:
                return [self._exit()]
            if isinstance(parent, cst.If) and parent.orelse is node:  # end of an elif chain
                node = parent
                continue
            if not isinstance(parent, (cst.IndentedBlock, cst.Module)):
                node = parent
                continue
            body = list(parent.body)
            i = _index(body, node)
            if i is not None and i + 1 < len(body):
                return entry_lines(pm, body[i + 1])
            owner = parents.get(parent) if isinstance(parent, cst.IndentedBlock) else None
            if owner is None or isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
                return [self._exit()]
            if isinstance(owner, cst.For) and owner.body is parent:
                return [pm.line(owner)]
            if isinstance(owner, cst.While) and owner.body is parent:
                return [branch_line(pm, owner.test)]
            if isinstance(owner, cst.With):
                # `__exit__` runs on the `with` line (3.12) or, for a parenthesised list
                # of items, on the last item's line (3.13)
                return _unique([pm.line(owner), *(pm.line(w.item) for w in owner.items)])
            if isinstance(owner, (cst.Try, cst.TryStar)) and owner.body is parent:
                if owner.orelse is not None:
                    return first_lines(pm, owner.orelse.body)
                if owner.finalbody is not None:
                    return first_lines(pm, owner.finalbody.body)
            elif isinstance(owner, (cst.ExceptHandler, cst.ExceptStarHandler, cst.Else)):
                grand = parents.get(owner)
                if isinstance(grand, (cst.Try, cst.TryStar)) and grand.finalbody is not None:
                    return first_lines(pm, grand.finalbody.body)
            node = owner

    def enter(
        self, body: cst.BaseSuite, stmt: cst.CSTNode, loop_line: int | None = None
    ) -> list[int]:
        """Lines an arm entering `body` reaches (a one-line body runs on through)."""
        if isinstance(body, cst.IndentedBlock) and body.body:
            return entry_lines(self.pm, body.body[0])
        if isinstance(body, cst.SimpleStatementSuite) and body.body:
            last = body.body[-1]
            if isinstance(last, (cst.Return, cst.Raise)):
                return [self._exit()]
        if loop_line is not None:
            return [loop_line]
        return self.after(stmt)

    def after_expr(self, expr: cst.CSTNode) -> list[int]:
        """Where a value-context branch continues: with its statement, or back at the
        innermost loop of the comprehension whose element it computes.  Inside a literal
        or call spread over lines it first reaches the next element's line (a ternary in
        one item of a multi-line `return {...}`), so that line is a candidate too."""
        node = expr
        following: list[int] = []
        while True:
            parent = self.parents.get(node)
            if parent is None:
                return [*following, self._exit()]
            if isinstance(node, (cst.Return, cst.Raise)):
                return [*following, self._exit()]
            if isinstance(parent, cst.SimpleStatementLine | cst.SimpleStatementSuite):
                return _unique([*following, *self.after(parent)])
            if isinstance(parent, cst.BaseCompoundStatement):
                return [*following, self.pm.line(parent)]
            if isinstance(parent, _COMPREHENSIONS) and node is not parent.for_in:
                return [*following, self.pm.line(_innermost_for(parent.for_in).iter)]
            if isinstance(parent, cst.Lambda):
                return [*following, -self.pm.line(parent)]
            if isinstance(parent, _ELEMENTS) and node is parent.value and not following:
                following = self._next_element(parent)
            node = parent

    def _next_element(self, element: cst.CSTNode) -> list[int]:
        """Candidate first lines of the element after `element` in its literal or call."""
        container = self.parents.get(element)
        siblings: list[cst.CSTNode] = list(
            getattr(container, "elements", None) or getattr(container, "args", None) or ()
        )
        i = _index(siblings, element)
        if i is None or i + 1 >= len(siblings):
            return []
        return entry_lines(self.pm, siblings[i + 1])

    def _if_false(self, owner: cst.If | cst.While) -> list[int]:
        orelse = owner.orelse
        if isinstance(orelse, cst.If):
            return entry_lines(self.pm, orelse)
        if isinstance(orelse, cst.Else):
            return self.enter(orelse.body, owner)
        return self.after(owner)

    def _if_true(self, owner: cst.If | cst.While) -> list[int]:
        if isinstance(owner, cst.While):
            return self.enter(owner.body, owner, loop_line=branch_line(self.pm, owner.test))
        return self.enter(owner.body, owner)

    # --- emitting --------------------------------------------------------------------------
    def _emit(
        self,
        node: cst.CSTNode,
        kind: TargetKind,
        condition_node: cst.CSTNode,
        operands: list[cst.BaseExpression],
        arms: list[tuple[str, list[int], list[int]]],
        *,
        index: int = 0,
        condition: str | None = None,
    ) -> None:
        """One RawTarget per arm; an arm is (name, from_lines, to_lines)."""
        pm = self.pm
        line = pm.line(node)
        col = pm.column(node)
        text = condition if condition is not None else pm.code(condition_node)
        for arm, sources, dests in arms:
            pairs = {(a, b) for a in sources for b in dests}
            self.targets.append(
                RawTarget(
                    id=f"{pm.source.module}:{line}:{col}:{kind.value}:{index}:{arm}",
                    module=pm.source.module,
                    function=self._function(),
                    line=line,
                    end_line=pm.end_line(condition_node),
                    kind=kind,
                    arm=arm,
                    index=index,
                    condition=text,
                    line_pairs=tuple(sorted(pairs)),
                    operands=tuple(operands),
                )
            )

    # --- constructs --------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        parent = self.parents.get(node)
        is_elif = isinstance(parent, cst.If) and parent.orelse is node
        src = [branch_line(self.pm, node.test)]
        self._emit(
            node,
            TargetKind.ELIF if is_elif else TargetKind.IF,
            node.test,
            condition_operands(node.test),
            [("true", src, self._if_true(node)), ("false", src, self._if_false(node))],
        )

    def visit_While(self, node: cst.While) -> None:
        if _is_constant_true(node.test):
            return
        src = [branch_line(self.pm, node.test)]
        self._emit(
            node,
            TargetKind.WHILE,
            node.test,
            condition_operands(node.test),
            [("true", src, self._if_true(node)), ("false", src, self._if_false(node))],
        )

    def visit_For(self, node: cst.For) -> None:
        pm = self.pm
        src = [pm.line(node)]
        body = self.enter(node.body, node, loop_line=pm.line(node))
        if node.orelse is not None:
            empty = self.enter(node.orelse.body, node)
        else:
            empty = self.after(node)
        self._emit(
            node,
            TargetKind.FOR,
            node.iter,
            [node.iter],
            [("true", src, body), ("false", src, empty)],
            condition=f"{pm.code(node.target)} in {pm.code(node.iter)}",
        )

    def visit_IfExp(self, node: cst.IfExp) -> None:
        pm = self.pm
        line = branch_line(pm, node.test)
        rest = self.after_expr(node)
        true = [pm.line(node.body)] if pm.line(node.body) != line else rest
        false = [pm.line(node.orelse)] if pm.line(node.orelse) != line else rest
        self._emit(
            node,
            TargetKind.IFEXP,
            node.test,
            condition_operands(node.test),
            [("true", [line], true), ("false", [line], false)],
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        pm = self.pm
        parent = self.parents.get(node)
        if (
            isinstance(parent, cst.BooleanOperation)
            and parent.left is node
            and type(parent.operator) is type(node.operator)
        ):
            return  # the top of the chain handles the flattened operands
        operands = _flatten(node)
        is_and = isinstance(node.operator, cst.And)
        owner = parent if isinstance(parent, (cst.If, cst.While)) and parent.test is node else None
        rest = self.after_expr(node) if owner is None else []
        for i, operand in enumerate(operands[:-1]):
            line = branch_line(pm, operand)
            nxt_line = pm.line(operands[i + 1])
            if owner is not None:
                short = self._if_false(owner) if is_and else self._if_true(owner)
                cont = [nxt_line]
            else:
                # value context: the result flows on with the statement (or into another
                # jump on this line, e.g. an enclosing `if`)
                short = [*rest, line]
                if nxt_line != line:
                    cont = [nxt_line]
                elif i + 1 < len(operands) - 1:
                    cont = [line]
                else:
                    cont = [*rest, line]
            arms = (
                [("true", cont), ("false", short)] if is_and else [("true", short), ("false", cont)]
            )
            self._emit(
                operand,
                TargetKind.BOOLOP,
                operand,
                condition_operands(operand),
                [(arm, [line], dests) for arm, dests in arms],
                index=i,
            )

    def visit_Match(self, node: cst.Match) -> None:
        pm = self.pm
        cases = list(node.cases)
        for i, case in enumerate(cases):
            if case.guard is None and _irrefutable(case.pattern):
                continue
            src = [pm.line(case)]
            true = self.enter(case.body, node)
            false = [pm.line(cases[i + 1])] if i + 1 < len(cases) else self.after(node)
            text = "case " + pm.code(case.pattern)
            operands: list[cst.BaseExpression] = [node.subject]
            if case.guard is not None:
                text += " if " + pm.code(case.guard)
                operands += condition_operands(case.guard)
            self._emit(
                case,
                TargetKind.MATCH,
                case.pattern,
                operands,
                [("true", src, true), ("false", src, false)],
                index=i,
                condition=text,
            )

    def visit_Try(self, node: cst.Try) -> None:
        pm = self.pm
        handlers = list(node.handlers)
        raising = _raising_expressions(node.body)
        for i, handler in enumerate(handlers):
            if handler.type is None:
                continue  # a bare `except:` always matches: no branch
            src = [pm.line(handler)]
            true = self.enter(handler.body, node)
            false = [pm.line(handlers[i + 1])] if i + 1 < len(handlers) else [self._exit()]
            self._emit(
                handler,
                TargetKind.EXCEPT,
                handler.type,
                raising,
                [("true", src, true), ("false", src, false)],
                index=i,
                condition="except " + pm.code(handler.type),
            )

    def visit_CompFor(self, node: cst.CompFor) -> None:
        pm = self.pm
        comp = self._comprehension(node)
        sources = sorted({pm.line(node), pm.line(node.iter)})
        # 3.12 places an outermost loop's FOR_ITER on the comprehension's own line and
        # reaches the `for` line (the target's store) first
        outermost = not isinstance(self.parents.get(node), cst.CompFor)
        comp_line = _comprehension_line(pm, comp, self.parents) if comp is not None else None
        extra_sources = [comp_line] if outermost and comp_line is not None else []
        if node.ifs:
            inner: cst.CSTNode | None = node.ifs[0].test
        elif node.inner_for_in is not None:
            inner = node.inner_for_in.iter
        else:
            inner = _element(comp)
        body = sources + ([pm.line(inner)] if inner is not None else [])
        if extra_sources:
            body.append(pm.line(node))
        # exhausted: an inner loop jumps back to the enclosing one, the outermost ends the
        # comprehension (its result is stored on the comprehension's first line)
        outer = self.parents.get(node)
        if isinstance(outer, cst.CompFor):
            done = [pm.line(outer.iter)]
            elt = _element(comp)
            if elt is not None:
                done.append(pm.line(elt))
        else:
            done = self.after_expr(comp) if comp is not None else [self._exit()]
            if comp is not None:
                done.append(pm.line(comp))
                if isinstance(comp, cst.GeneratorExp):
                    done.append(-pm.line(comp))
                    if comp_line is not None:
                        done.append(-comp_line)
        sources = _unique([*sources, *extra_sources])
        self._emit(
            node,
            TargetKind.FOR,
            node.iter,
            [node.iter],
            [("true", sources, _unique(body)), ("false", sources, _unique(done))],
            condition=f"{pm.code(node.target)} in {pm.code(node.iter)}",
        )

    def visit_CompIf(self, node: cst.CompIf) -> None:
        pm = self.pm
        line = branch_line(pm, node.test)
        elt = _element(self._comprehension(node))
        true = [line] + ([pm.line(elt)] if elt is not None else [])
        self._emit(
            node,
            TargetKind.COMPREHENSION,
            node.test,
            condition_operands(node.test),
            [("true", [line], true), ("false", [line], [line])],
        )

    def _comprehension(self, node: cst.CSTNode) -> cst.CSTNode | None:
        comp = self.parents.get(node)
        while comp is not None and not isinstance(comp, _COMPREHENSIONS):
            comp = self.parents.get(comp)
        return comp


# --- line helpers ---------------------------------------------------------------------------
def branch_line(pm: ParsedModule, test: cst.BaseExpression) -> int:
    """Line of the jump that decides `test`: its last operand's line, through `not`/`and`/`or`."""
    while True:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        elif isinstance(test, cst.BooleanOperation):
            test = test.right
        else:
            return pm.line(test)


def entry_line(pm: ParsedModule, stmt: cst.CSTNode) -> int:
    """First line a statement executes (its test / iterable / context expression)."""
    if isinstance(stmt, (cst.If, cst.While)):
        return pm.line(stmt.test)
    if isinstance(stmt, cst.For):
        return pm.line(stmt.iter)
    if isinstance(stmt, cst.With) and stmt.items:
        return pm.line(stmt.items[0].item)
    if isinstance(stmt, cst.Match):
        return pm.line(stmt.subject)
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return _code_first_line(pm, stmt)
    return pm.line(stmt)


def first_line(pm: ParsedModule, body: cst.BaseSuite) -> int:
    """First line of a block (the header line for a one-line suite)."""
    if isinstance(body, cst.IndentedBlock) and body.body:
        return entry_line(pm, body.body[0])
    return pm.line(body)


def first_lines(pm: ParsedModule, body: cst.BaseSuite) -> list[int]:
    """Candidate first lines of a block (see `entry_lines`)."""
    if isinstance(body, cst.IndentedBlock) and body.body:
        return entry_lines(pm, body.body[0])
    return [pm.line(body)]


def entry_lines(pm: ParsedModule, stmt: cst.CSTNode) -> list[int]:
    """Candidate lines of a statement's first instruction: `entry_line`, then the lines
    down the chain of sub-expressions evaluated first.  A statement spanning lines starts
    where its first evaluated operand is, not where it is written: `item = {` followed by
    `"a": x,` first loads on the element's line, `cents = [a for a in xs]` over three lines
    on the iterable's, while a literal folded to one constant loads on its own line."""
    lines = [entry_line(pm, stmt)]
    node: cst.CSTNode | None = _evaluated_first(stmt)
    while node is not None:
        lines.append(pm.line(node))
        node = _evaluated_first(node)
    return _unique(lines)


def _evaluated_first(node: cst.CSTNode) -> cst.CSTNode | None:
    """The sub-node CPython evaluates first within `node`, if one has its own line."""
    match node:
        case cst.SimpleStatementLine(body=[first, *_]):
            return first
        case cst.If(test=x) | cst.While(test=x) | cst.For(iter=x) | cst.Match(subject=x):
            return x
        case cst.With(items=[first, *_]):
            return first.item
        case (
            cst.Assign(value=x)
            | cst.AnnAssign(value=x)
            | cst.Expr(value=x)
            | cst.Await(expression=x)
            | cst.UnaryOperation(expression=x)
        ):
            return x
        case cst.Return(value=x) | cst.Raise(exc=x) if x is not None:
            return x
        case cst.AugAssign(target=x) | cst.Call(func=x) | cst.Attribute(value=x):
            return x
        case cst.Subscript(value=x) | cst.BinaryOperation(left=x) | cst.Comparison(left=x):
            return x
        case cst.BooleanOperation(left=x) | cst.IfExp(test=x):
            return x
        case cst.Dict(elements=[first, *_]):
            return first  # its key's line; constant keys load after the values, as a tuple
        case cst.DictElement(value=x) | cst.StarredDictElement(value=x):
            return x
        case (
            cst.List(elements=[first, *_])
            | cst.Tuple(elements=[first, *_])
            | cst.Set(elements=[first, *_])
        ):
            return first.value
        case cst.ListComp(for_in=f) | cst.SetComp(for_in=f) | cst.DictComp(for_in=f):
            return f.iter
        case cst.GeneratorExp(for_in=f):
            return f.iter
    return None


def _unique(lines: list[int]) -> list[int]:
    return list(dict.fromkeys(lines))


def _code_first_line(pm: ParsedModule, node: cst.FunctionDef | cst.ClassDef) -> int:
    """`co_firstlineno`: the first decorator's line, else the `def`/`class` line."""
    return pm.line(node.decorators[0]) if node.decorators else pm.line(node)


def _index(body: list[cst.CSTNode], node: cst.CSTNode) -> int | None:
    for i, item in enumerate(body):
        if item is node:
            return i
    return None


def _flatten(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BooleanOperation):
        op = type(node.operator)
        left = node.left
        if isinstance(left, cst.BooleanOperation) and type(left.operator) is op and not left.lpar:
            return [*_flatten(left), node.right]
        return [left, node.right]
    return [node]


def _is_constant_true(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.Name) and test.value == "True":
        return True
    return isinstance(test, cst.Integer) and test.value not in ("0",)


def _irrefutable(pattern: cst.MatchPattern) -> bool:
    if isinstance(pattern, cst.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if isinstance(pattern, cst.MatchOr):
        return any(_irrefutable(e.pattern) for e in pattern.patterns)
    return False


def _comprehension_line(
    pm: ParsedModule, comp: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]
) -> int:
    """The line CPython gives a comprehension: its bracket's, which for a generator
    expression that is a call's only argument (`sum(x for x in xs)`) is the call's `(`."""
    if isinstance(comp, cst.GeneratorExp) and not comp.lpar:
        arg = parents.get(comp)
        call = parents.get(arg) if isinstance(arg, cst.Arg) else None
        if isinstance(call, cst.Call):
            return pm.end_line(call.func)
    return pm.line(comp)


def _innermost_for(comp_for: cst.CompFor) -> cst.CompFor:
    while comp_for.inner_for_in is not None:
        comp_for = comp_for.inner_for_in
    return comp_for


def _element(comp: cst.CSTNode | None) -> cst.BaseExpression | None:
    if isinstance(comp, cst.DictComp):
        return comp.key
    if isinstance(comp, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return comp.elt
    return None


class _RaisingCollector(cst.CSTVisitor):
    """Calls and subscripts of a `try` body (what may raise), nested defs excluded."""

    def __init__(self) -> None:
        self.found: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.found.append(node)


def _raising_expressions(body: cst.BaseSuite) -> list[cst.BaseExpression]:
    collector = _RaisingCollector()
    body.visit(collector)
    return collector.found
