"""The def-use dependency graph (SpotOn's variable dependency pass): its data.

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

The graph is built by `dependency.build_graph` (statements), on `expressions.py` (values,
names, stores) and `calls.py` (call resolution).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .sources import ParsedModule

COPY, ELEMENT, FLOW, CONTROL = 0, 1, 2, 3


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
    rule: str = ""  # library call rule: preserve | container | next | parse
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
