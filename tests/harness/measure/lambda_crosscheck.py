"""Run in a subprocess by test_coverage_lambdas.py: replay seeded inputs of one benchmark
lambda under our collector and under coverage.py, print both as line arcs (JSON).

A subprocess because the worker runtime replaces os.environ and starts an emulator."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import coverage

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.runtime import WorkerRuntime

# coverage.py models these jumps as a line with a single exit (see test_coverage.py)
NOT_IN_COVERAGEPY = {"except", "with", "assert"}


def statement_starts(path: Path) -> dict[int, int]:
    starts: dict[int, int] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.stmt):
            continue
        inner: set[int] = set()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()):
                if isinstance(child, ast.match_case):
                    inner.update(range(child.pattern.lineno, child.body[-1].end_lineno + 1))
                    starts.setdefault(child.pattern.lineno, child.pattern.lineno)
                else:
                    inner.update(range(child.lineno, child.end_lineno + 1))
        for line in range(node.lineno, node.end_lineno + 1):
            if line not in inner:
                starts.setdefault(line, node.lineno)
    return starts


def with_exits(path: Path) -> dict[tuple[int, int], int]:
    """(inner line, with line) -> where coverage.py says control goes after the `with`.

    A systematic difference: when a loop inside a `with` block is exhausted, the bytecode
    jumps to the with-statement's cleanup, which CPython attributes to the `with` line, so
    our arm reads `loop -> with`. coverage.py skips the cleanup and reports the arc to
    whatever follows the `with` statement (the next statement, the enclosing loop's header,
    or leaving the function, as `-first line`)."""
    tree = ast.parse(path.read_text())
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    def after(node: ast.AST) -> int:
        parent = parents[node]
        for field in ("body", "orelse", "finalbody"):
            siblings = getattr(parent, field, None)
            if isinstance(siblings, list) and node in siblings:
                i = siblings.index(node)
                if i + 1 < len(siblings):
                    return siblings[i + 1].lineno
                break
        if isinstance(parent, ast.For | ast.AsyncFor | ast.While):
            return parent.lineno
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([parent.lineno, *(d.lineno for d in parent.decorator_list)])
            return -first
        return after(parent)

    out: dict[tuple[int, int], int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith):
            target = after(node)
            for line in range(node.body[0].lineno, node.end_lineno + 1):
                out[(line, node.lineno)] = target
    return out


def main(lambda_dir: str, count: int) -> None:
    target = load_config(lambda_dir)
    runtime = WorkerRuntime(WorkerSpec(target=target))
    collector = runtime.collector
    files = {f.key: f for f in collector.catalog().files}
    starts = {key: statement_starts(Path(f.path)) for key, f in files.items()}
    withs = {key: with_exits(Path(f.path)) for key, f in files.items()}

    def norm(key: str, line: int) -> int:
        return line if line < 0 else starts[key].get(line, line)

    branch_lines: dict[str, set[int]] = {}
    for key, f in files.items():
        exits: dict[int, set[int]] = {}
        for site in f.sites:
            a, b = norm(key, site.from_line), norm(key, site.to_line)
            if site.kind not in NOT_IN_COVERAGEPY and a != b:
                exits.setdefault(a, set()).add(b)
        branch_lines[key] = {line for line, dests in exits.items() if len(dests) > 1}

    ours: dict[str, set[tuple[int, int]]] = {key: set() for key in files}
    theirs: dict[str, set[tuple[int, int]]] = {key: set() for key in files}
    cov = coverage.Coverage(branch=True, data_file=None, include=[f.path for f in files.values()])
    for seed in range(count):
        request = TestRequest({}, seed, ReplayMode.EXECUTION_INDEXED)
        result = runtime.run(request)
        for arm in result.coverage:
            site = collector.site(arm)
            key = arm[0]
            a, b = norm(key, site.from_line), norm(key, site.to_line)
            b = withs[key].get((a, b), b)
            if site.kind not in NOT_IN_COVERAGEPY and a in branch_lines[key] and a != b:
                ours[key].add((a, b))
        cov.start()
        try:
            runtime.run(request)  # the same input again, now under coverage.py
        finally:
            cov.stop()
    for key, f in files.items():
        analysis = cov._analyze(f.path)
        theirs[key] = {
            (a, b) for a, dests in analysis.executed_branch_arcs().items() for b in dests
        }
    print(json.dumps({k: [sorted(ours[k]), sorted(theirs[k])] for k in files}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
