"""Code targets: both arms of every branch in application code (SpotOn's then/else sides).

Besides the condition, each arm gets the (from_line, to_line) pairs under which CPython
3.12/3.13 `sys.monitoring` BRANCH events report it, so the fuzzer can tell covered targets
from uncovered ones.  Those pairs were read off real BRANCH events (see
tests/analysis/test_line_pairs.py); the rules, best effort:

* the jump sits on the line of the condition's *last* operand (`if a and\\n b:` jumps
  on b's line; `not x` on x's line); `for` jumps on the `for` line, `case`/`except` on
  their own lines;
* a taken arm lands on the first line of the block it enters; falling out of a block lands
  on the next statement, or, at the end of a block, on the loop header (jump back), the
  `with` line (`__exit__`), the `finally` block, or the branch's own line (3.13 attributes
  the implicit `return None` and back-jumps to it; `EXIT_LINE` is offered as well);
* `for` bodies and matched `case`/`except` arms usually land on the header line itself
  (the store of the loop target / the match binding), so that pair is offered too.

Several arms can therefore share a pair (a one-line ternary reports (L, L) for both arms);
coverage matching is a superset test, never an exact one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst

from .model import EXIT_LINE, TargetKind
from .sources import ParsedModule

ParentsT = Mapping[cst.CSTNode, cst.CSTNode]
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


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

    # --- enclosing function name (libcst's `f.<locals>.g` convention) -------------------
    def _qualname(self) -> str:
        return ".".join(self._scope) if self._scope else "<module>"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scope.append(node.name.value)
        self._scope.append("<locals>")

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        del self._scope[-2:]

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scope.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scope.pop()

    def _function(self) -> str:
        qual = self._qualname()
        if qual.endswith(".<locals>"):
            qual = qual[: -len(".<locals>")]
        return qual

    # --- emitting --------------------------------------------------------------------------
    def _emit(
        self,
        node: cst.CSTNode,
        kind: TargetKind,
        condition_node: cst.CSTNode,
        operands: list[cst.BaseExpression],
        arms: list[tuple[str, list[tuple[int, int]]]],
        *,
        index: int = 0,
        condition: str | None = None,
        line: int | None = None,
    ) -> None:
        pm = self.pm
        line = pm.line(node) if line is None else line
        col = pm.column(node)
        text = condition if condition is not None else pm.code(condition_node)
        for arm, pairs in arms:
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
                    line_pairs=tuple(sorted(set(pairs))),
                    operands=tuple(operands),
                )
            )

    # --- constructs --------------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        pm = self.pm
        parent = self.parents.get(node)
        is_elif = isinstance(parent, cst.If) and parent.orelse is node
        src = branch_line(pm, node.test)
        true = [(src, first_line(pm, node.body))]
        if isinstance(node.orelse, cst.If):
            false = [(src, branch_entry_line(pm, node.orelse.test))]
        elif isinstance(node.orelse, cst.Else):
            false = [(src, first_line(pm, node.orelse.body))]
        else:
            false = [(src, s) for s in successor_lines(pm, self.parents, node, src)]
        self._emit(
            node,
            TargetKind.ELIF if is_elif else TargetKind.IF,
            node.test,
            condition_operands(node.test),
            [("true", true), ("false", false)],
        )

    def visit_While(self, node: cst.While) -> None:
        pm = self.pm
        if _is_constant_true(node.test):
            return
        src = branch_line(pm, node.test)
        true = [(src, first_line(pm, node.body)), (src, src)]
        if node.orelse is not None:
            false = [(src, first_line(pm, node.orelse.body))]
        else:
            false = [(src, s) for s in successor_lines(pm, self.parents, node, src)]
        self._emit(
            node,
            TargetKind.WHILE,
            node.test,
            condition_operands(node.test),
            [("true", true), ("false", false)],
        )

    def visit_For(self, node: cst.For) -> None:
        pm = self.pm
        src = pm.line(node)
        body = [(src, src), (src, first_line(pm, node.body))]
        if node.orelse is not None:
            empty = [(src, first_line(pm, node.orelse.body)), (src, src)]
        else:
            empty = [(src, s) for s in successor_lines(pm, self.parents, node, src)]
        self._emit(
            node,
            TargetKind.FOR,
            node.iter,
            [node.iter],
            [("true", body), ("false", empty)],
            condition=f"{pm.code(node.target)} in {pm.code(node.iter)}",
        )

    def visit_IfExp(self, node: cst.IfExp) -> None:
        pm = self.pm
        src = branch_line(pm, node.test)
        self._emit(
            node,
            TargetKind.IFEXP,
            node.test,
            condition_operands(node.test),
            [
                ("true", [(src, pm.line(node.body))]),
                ("false", [(src, pm.line(node.orelse))]),
            ],
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
        # Short-circuit destination: in an if/while test it is that statement's arm.
        owner = parent if isinstance(parent, (cst.If, cst.While)) and parent.test is node else None
        for i, operand in enumerate(operands[:-1]):
            src = branch_line(pm, operand)
            nxt = branch_entry_line(pm, operands[i + 1])
            if owner is not None:
                stmt_true = [first_line(pm, owner.body)]
                stmt_false = _false_lines(pm, self.parents, owner, src)
                short = stmt_false if is_and else stmt_true
            else:
                short = [src, pm.end_line(node)]
            cont = [(src, nxt)]
            cut = [(src, s) for s in short]
            arms = [("true", cont), ("false", cut)] if is_and else [("true", cut), ("false", cont)]
            self._emit(
                operand,
                TargetKind.BOOLOP,
                operand,
                condition_operands(operand),
                arms,
                index=i,
            )

    def visit_Match(self, node: cst.Match) -> None:
        pm = self.pm
        cases = list(node.cases)
        for i, case in enumerate(cases):
            if case.guard is None and _irrefutable(case.pattern):
                continue
            src = pm.line(case)
            true = [(src, first_line(pm, case.body)), (src, src)]
            if i + 1 < len(cases):
                false = [(src, pm.line(cases[i + 1])), (src, src)]
            else:
                false = [(src, s) for s in successor_lines(pm, self.parents, node, src)]
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
                [("true", true), ("false", false)],
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
            src = pm.line(handler)
            true = [(src, src), (src, first_line(pm, handler.body))]
            nxt = pm.line(handlers[i + 1]) if i + 1 < len(handlers) else src
            self._emit(
                handler,
                TargetKind.EXCEPT,
                handler.type,
                raising,
                [("true", true), ("false", [(src, nxt)])],
                index=i,
                condition="except " + pm.code(handler.type),
            )

    def visit_CompIf(self, node: cst.CompIf) -> None:
        pm = self.pm
        src = branch_line(pm, node.test)
        comp = self.parents.get(node)
        while comp is not None and not isinstance(comp, _COMPREHENSIONS):
            comp = self.parents.get(comp)
        elt = _comprehension_element(comp)
        true = [(src, src)] + ([(src, pm.line(elt))] if elt is not None else [])
        self._emit(
            node,
            TargetKind.COMPREHENSION,
            node.test,
            condition_operands(node.test),
            [("true", true), ("false", [(src, src)])],
        )


# --- line helpers (shared with tests) ----------------------------------------------------
def branch_line(pm: ParsedModule, test: cst.BaseExpression) -> int:
    """Line of the jump that decides `test`: its last operand's line, through `not`/`and`/`or`."""
    while True:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        elif isinstance(test, cst.BooleanOperation):
            test = test.right
        else:
            return pm.line(test)


def branch_entry_line(pm: ParsedModule, test: cst.BaseExpression) -> int:
    """Line where evaluating `test` starts (where a jump *to* the test lands)."""
    return pm.line(test)


def first_line(pm: ParsedModule, body: cst.BaseSuite) -> int:
    """First line of a block (the header line for a one-line `if x: y` suite)."""
    if isinstance(body, cst.IndentedBlock) and body.body:
        return pm.line(body.body[0])
    return pm.line(body)


def successor_lines(pm: ParsedModule, parents: ParentsT, stmt: cst.CSTNode, src: int) -> list[int]:
    """Where control goes after `stmt` completes normally (candidates, see module doc)."""
    lines, direct = _successors(pm, parents, stmt)
    return lines if direct else [*lines, src]


def _successors(pm: ParsedModule, parents: ParentsT, stmt: cst.CSTNode) -> tuple[list[int], bool]:
    """Candidate lines, and whether they are a plain next statement (no back-jump or exit)."""
    node = stmt
    direct = True  # false once we leave a block through its end
    while True:
        parent = parents.get(node)
        if parent is None:
            return [EXIT_LINE], False
        if isinstance(parent, cst.If) and parent.orelse is node:  # elif: the chain's end
            node = parent
            continue
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            body = list(parent.body)
            i = _index(body, node)
            if i is not None and i + 1 < len(body):
                return [pm.line(body[i + 1])], direct
            direct = False
            owner = parents.get(parent) if isinstance(parent, cst.IndentedBlock) else None
            if owner is None or isinstance(owner, (cst.FunctionDef, cst.ClassDef)):
                return [EXIT_LINE], False
            if isinstance(owner, (cst.For, cst.While)) and owner.body is parent:
                return [pm.line(owner)], False
            if isinstance(owner, cst.With):
                return [pm.line(owner), *_successors(pm, parents, owner)[0]], False
            if isinstance(owner, cst.Try) and owner.body is parent:
                if owner.orelse is not None:
                    return [first_line(pm, owner.orelse.body)], False
                if owner.finalbody is not None:
                    return [first_line(pm, owner.finalbody.body)], False
                node = owner
                continue
            if isinstance(owner, (cst.ExceptHandler, cst.Else)):
                grand = parents.get(owner)
                if isinstance(grand, cst.Try) and grand.finalbody is not None:
                    return [first_line(pm, grand.finalbody.body)], False
                node = owner
                continue
            node = owner
            continue
        node = parent


def _false_lines(
    pm: ParsedModule, parents: ParentsT, owner: cst.If | cst.While, src: int
) -> list[int]:
    orelse = owner.orelse
    if isinstance(orelse, cst.If):
        return [branch_entry_line(pm, orelse.test)]
    if isinstance(orelse, cst.Else):
        return [first_line(pm, orelse.body)]
    return successor_lines(pm, parents, owner, src)


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


def _comprehension_element(comp: cst.CSTNode | None) -> cst.BaseExpression | None:
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
