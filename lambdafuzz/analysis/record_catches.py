"""Which `except` clauses of an SQS, Kinesis or DynamoDB-stream handler swallow a record's
error: the evidence the partial batch response oracle (`fuzzer.batch_response`) asks for
before it calls a caught exception a lost record.

A caught exception (`harness.handled`) is a *record catch* when the clause that caught it
is a catch-all (bare `except`, `except Exception` / `BaseException`, or a tuple holding
one: it cannot tell a poison message from a throttled write) that runs once per record:

* its innermost enclosing loop (in its function) iterates the event's records: the loop's
  iterable is `event["Records"]`, `event.get("Records", [])`, an attribute `records`
  (Powertools' `SQSEvent(event).records`), the name `records`, a name assigned one of
  these earlier in the function, or one of them in `enumerate(...)`, `sorted(...)` or a
  comprehension;
* or it is in no loop of its function, and a record loop of its module or of the
  handler's module calls that function by name (`process(record)`, `self.process(r)`);

and its body does not hand the record on: no call of `HAND_OFF_CALLS` (a DLQ's
`send_message`, a failure table's `put_item`, a `delete_message`) nor of a function whose
name says DLQ.  Not record catches: a specific clause (`except json.JSONDecodeError:`,
skipping a poison message on purpose), a catch before or after the loop (reading
configuration), one in a loop nested in the record loop (over one record's fields), one
in a function a Powertools `BatchProcessor` calls (no loop of the application calls it).
The loop is recognised by name, not by data flow: a loop over `event["Records"]` passed
through two helpers under other names is not seen (no finding: the oracle stays quiet).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lambdafuzz.model.target import Target, app_dirs, handler_path

#: Clause classes that catch (nearly) everything (as `harness.handled.BROAD`).
BROAD = frozenset({"Exception", "BaseException"})
#: Calls in an `except` body that hand the record on (a DLQ, a failure table, a delete):
#: the record is dealt with on purpose, not lost.
HAND_OFF_CALLS = frozenset(
    {
        "send_message",
        "send_message_batch",
        "delete_message",
        "delete_message_batch",
        "publish",
        "publish_batch",
        "put_record",
        "put_records",
        "put_record_batch",
        "put_events",
        "put_item",
        "update_item",
        "start_execution",
    }
)
_DLQ_WORDS = ("dlq", "dead_letter", "deadletter")
#: Calls that keep one item per record of what they wrap (`enumerate(event["Records"])`).
_WRAPPERS = frozenset({"enumerate", "list", "tuple", "reversed", "sorted", "iter", "zip"})
#: Source files larger than this are not parsed (a generated module, a vendored bundle).
MAX_SOURCE_BYTES = 2_000_000


class RecordCatches:
    """The catch sites (`caught_at`: `"orders/intake.py:40"`) that are record catches (the
    module's docstring): what `fuzzer.batch_response` counts as a swallowed record.  Read
    from the application's source, each file once; a file that cannot be read or parsed
    has none (no finding rather than a guess).

    `app_dirs`: the application's directories or module files (`model.target.app_dirs`),
    which `caught_at` paths are relative to the parents of; `handler_file`: the handler's
    module, whose record loops may call a function of another module that catches."""

    def __init__(self, app_dirs: Sequence[str], handler_file: str | Path | None = None) -> None:
        self.app_dirs = tuple(app_dirs)
        self.handler_file = str(handler_file) if handler_file is not None else None
        self._files: dict[str, _FileFacts | None] = {}
        self._sites: dict[str, bool] = {}

    @classmethod
    def for_target(cls, target: Target) -> RecordCatches:
        module = handler_path(target)
        return cls(app_dirs(target), module if module.is_file() else None)

    def __contains__(self, caught_at: object) -> bool:
        if not isinstance(caught_at, str):
            return False
        try:
            return self._sites[caught_at]
        except KeyError:
            counted = self._sites[caught_at] = self._counts(caught_at)
            return counted

    def _counts(self, caught_at: str) -> bool:
        rel, _, line_text = caught_at.rpartition(":")
        if not rel or not line_text.isdigit():
            return False
        path = self._path(rel)
        facts = self._facts(path) if path is not None else None
        if facts is None:
            return False
        line = int(line_text)
        catch = next((c for c in facts.catches if c.first <= line <= c.last), None)
        if catch is None or not catch.broad or catch.hands_off:
            return False
        if catch.record_loop:
            return True
        if catch.in_loop or catch.function is None:
            return False
        handler = self._facts(self.handler_file) if self.handler_file else None
        calls = facts.loop_calls | (handler.loop_calls if handler is not None else frozenset())
        return catch.function in calls

    def _path(self, rel: str) -> str | None:
        for root in self.app_dirs:
            candidate = os.path.join(os.path.dirname(root), rel)
            if os.path.isfile(candidate):
                return candidate
        return None

    def _facts(self, path: str) -> _FileFacts | None:
        key = os.path.realpath(path)
        try:
            return self._files[key]
        except KeyError:
            pass
        try:
            if os.path.getsize(key) > MAX_SOURCE_BYTES:
                raise ValueError(key)
            facts: _FileFacts | None = file_facts(Path(key).read_bytes())
        except (OSError, SyntaxError, ValueError, RecursionError):
            facts = None
        self._files[key] = facts
        return facts


@dataclass(frozen=True, slots=True)
class Catch:
    """One `except` clause: its header's lines (what `caught_at` names), and where it is."""

    first: int
    last: int
    broad: bool  # bare, Exception or BaseException (or a tuple holding one)
    hands_off: bool  # its body hands the record on (HAND_OFF_CALLS, a DLQ)
    record_loop: bool  # its innermost enclosing loop (in its function) is a record loop
    in_loop: bool  # inside any loop of its function
    function: str | None  # the function it is in; None at module level


@dataclass(frozen=True, slots=True)
class _FileFacts:
    catches: tuple[Catch, ...]
    # names of the functions called directly in a record loop's body (or comprehension)
    loop_calls: frozenset[str]


def file_facts(source: str | bytes) -> _FileFacts:
    """The `except` clauses of a module and the functions its record loops call."""
    reader = _Reader()
    reader.visit(ast.parse(source))
    return _FileFacts(tuple(reader.catches), frozenset(reader.loop_calls))


class _Reader(ast.NodeVisitor):
    """One pass over a module: per function, its loops (record loop or not, innermost
    last) and the names bound to the event's records."""

    def __init__(self) -> None:
        self.function: str | None = None
        self.loops: list[bool] = []
        self.aliases: set[str] = set()
        self.catches: list[Catch] = []
        self.loop_calls: set[str] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        saved = self.function, self.loops, self.aliases
        self.function, self.loops, self.aliases = node.name, [], set()
        self.generic_visit(node)
        self.function, self.loops, self.aliases = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        if self._records(node.value):
            self.aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if (
            node.value is not None
            and self._records(node.value)
            and isinstance(node.target, ast.Name)
        ):
            self.aliases.add(node.target.id)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        self._loop(self._records(node.iter), node.body)
        for stmt in node.orelse:
            self.visit(stmt)

    visit_AsyncFor = visit_For

    def visit_While(self, node: ast.While) -> None:
        self.visit(node.test)
        self._loop(False, node.body)
        for stmt in node.orelse:
            self.visit(stmt)

    def _loop(self, record: bool, body: list[ast.stmt]) -> None:
        self.loops.append(record)
        for stmt in body:
            self.visit(stmt)
        self.loops.pop()

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        for generator in node.generators:
            self.visit(generator)
        self.loops.append(any(self._records(g.iter) for g in node.generators))
        for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            self.visit(part)
        self.loops.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Call(self, node: ast.Call) -> None:
        if self.loops and self.loops[-1]:
            name = _called_name(node.func)
            if name is not None:
                self.loop_calls.add(name)
        self.generic_visit(node)

    def visit_Try(self, node: ast.Try | ast.TryStar) -> None:
        for stmt in node.body:
            self.visit(stmt)
        for handler in node.handlers:
            last = handler.type.end_lineno if handler.type is not None else None
            self.catches.append(
                Catch(
                    first=handler.lineno,
                    last=last or handler.lineno,
                    broad=_broad(handler.type),
                    hands_off=_hands_off(handler.body),
                    record_loop=bool(self.loops) and self.loops[-1],
                    in_loop=bool(self.loops),
                    function=self.function,
                )
            )
            self.visit(handler)
        for stmt in (*node.orelse, *node.finalbody):
            self.visit(stmt)

    visit_TryStar = visit_Try

    def _records(self, expr: ast.expr) -> bool:
        """Whether `expr` is the event's records: `event["Records"]`,
        `event.get("Records", [])`, an attribute `records` (Powertools' data classes), the
        name `records` or a name bound to one of these; or one of them wrapped in
        `enumerate`, `list`, ... or a comprehension over one (one item per record).  Not
        `event["Records"][0]["body"]`: one record's parts."""
        match expr:
            case ast.Subscript(slice=ast.Constant(value="Records")):
                return True
            case ast.Call(func=ast.Attribute(attr="get"), args=[ast.Constant(value="Records"), *_]):
                return True
            case ast.Attribute(attr="records"):
                return True
            case ast.Name(id=name):
                return name == "records" or name in self.aliases
            case ast.Call(func=ast.Name(id=wrapper), args=args) if wrapper in _WRAPPERS:
                return any(self._records(a) for a in args)
            case ast.ListComp() | ast.SetComp() | ast.GeneratorExp():
                return any(self._records(g.iter) for g in expr.generators)
        return False


def _broad(clause: ast.expr | None) -> bool:
    if clause is None:
        return True
    if isinstance(clause, ast.Tuple):
        return any(_broad(e) for e in clause.elts)
    name = _called_name(clause)
    return name in BROAD


def _hands_off(body: list[ast.stmt]) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call):
                name = (_called_name(node.func) or "").lower()
                if name in HAND_OFF_CALLS or any(w in name for w in _DLQ_WORDS):
                    return True
    return False


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
