"""Tests of the sys.monitoring branch-arm collector (lambdafuzz.harness.measure.coverage) and the
static arm catalog it reports against (lambdafuzz.harness.measure.arm_catalog)."""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import os
import pickle
import subprocess
import sys
import textwrap
from dataclasses import FrozenInstanceError
from pathlib import Path
from types import ModuleType

import pytest

from lambdafuzz.compat import HAS_BRANCH_LEFT_RIGHT
from lambdafuzz.harness.measure.arm_catalog import ArmKey, Scope, scan_file
from lambdafuzz.harness.measure.coverage import (
    TOOL_IDS,
    BranchCollector,
    BranchHits,
    ToolIdUnavailable,
    bucket,
)

TARGETS = Path(__file__).parent / "covtargets"
BRANCHY = TARGETS / "branchy.py"
BRANCHY_KEY = "covtargets/branchy.py"
REPO = Path(__file__).parents[3]
MON = sys.monitoring
BRANCH_EVENTS = (
    MON.events.BRANCH_LEFT | MON.events.BRANCH_RIGHT if HAS_BRANCH_LEFT_RIGHT else MON.events.BRANCH
)

_fresh = itertools.count()


def load(stem: str, *, strict: bool = True) -> ModuleType:
    """Execute a covtargets module afresh (new code objects, module code runs again).

    branchy's module code branches on whether ``__name__`` ends with "branchy"."""
    name = f"covtargets_{next(_fresh)}_{stem if strict else 'other'}"
    spec = importlib.util.spec_from_file_location(name, TARGETS / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Boom:
    """int() of it raises neither ValueError nor TypeError: catcher's last arm."""

    def __int__(self) -> int:
        raise KeyError("boom")


# Inputs that together take every arm of every function in branchy.py.
CALLS: list[tuple[str, list[tuple]]] = [
    ("if_elif_else", [(20,), (5,), (-1,)]),
    ("while_loop", [(3,), (0,)]),
    ("for_loop", [([1, 2],), ([],)]),
    ("for_loop_last", [([1],), ([],)]),
    ("ternary", [(1,), (0,)]),
    ("short_circuit", [(1, 1), (1, 0), (0, 1), (0, 0)]),
    ("matcher", [("go",), ([1, 2],), ([1, 2, 3],), ({"k": 5},), ({"j": 1},), ({},), (None,)]),
    ("catcher", [("1",), ("x",), (None,)]),
    ("comprehension", [([1, 2, 3],), ([],)]),
    ("generator_expr", [([1, 5],), ([],)]),
    ("nested", [(1,), (0,)]),
    ("is_none", [(None,), (1,)]),
    ("long_jump", [(1,), (0,)]),
    ("with_block", [(None,), (ValueError("swallowed"),)]),
    ("checked", [(1,)]),
    ("search", [([None, 1, 2], 2), ([], 1), ([3], 1)]),
    ("spin", [(3,), (0,)]),
]


def run_all(module: ModuleType) -> None:
    for name, arg_lists in CALLS:
        for args in arg_lists:
            getattr(module, name)(*args)
    with pytest.raises(KeyError):
        module.catcher(Boom())
    with pytest.raises(KeyError):
        module.with_block(KeyError("not swallowed"))
    with pytest.raises(AssertionError):
        module.checked(0)


@pytest.fixture
def collector():
    col = BranchCollector([TARGETS])
    col.start()
    try:
        yield col
    finally:
        col.stop()


# --- hit counts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "expected"),
    [(1, 0), (2, 1), (3, 2), (4, 3), (7, 3), (8, 4), (15, 4), (16, 5), (31, 5), (32, 6)]
    + [(127, 6), (128, 7), (10**6, 7)],
)
def test_bucket_boundaries_follow_afl(count, expected):
    assert bucket(count) == expected


@pytest.mark.parametrize(("times", "expected"), [(5, 3), (1, 0), (200, 7)])
def test_loop_body_hit_counts_land_in_their_bucket(collector, times, expected):
    m = load("branchy")
    collector.begin()
    m.for_loop([1] * times)
    hits = collector.end()
    by_line = {}
    for arm, b in hits.hits:
        site = collector.site(arm)
        by_line[(site.from_line, site.to_line)] = b
    line = _line_of(m.for_loop, "for item in items:")
    assert by_line[(line, line + 1)] == expected  # loop body entered `times` times
    assert by_line[(line, line + 2)] == 0  # loop left once


def _line_of(func, text: str) -> int:
    first = func.__code__.co_firstlineno
    lines = BRANCHY.read_text().splitlines()
    return next(i for i in range(first, len(lines) + 1) if lines[i - 1].strip() == text)


def test_begin_forgets_the_previous_test(collector):
    m = load("branchy")
    collector.begin()
    m.is_none(None)
    first = collector.end().arms
    collector.begin()
    m.is_none(1)
    second = collector.end().arms
    assert len(first) == len(second) == 1
    assert first.isdisjoint(second)
    collector.begin()
    assert len(collector.end()) == 0


def test_result_is_immutable_and_round_trips(collector):
    m = load("branchy")
    collector.begin()
    m.search([None, 1, 2], 2)
    hits = collector.end()
    assert isinstance(hits.hits, frozenset)
    with pytest.raises(FrozenInstanceError):
        hits.hits = frozenset()  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(hits)) == hits
    as_json = json.loads(json.dumps(sorted(hits.hits)))
    assert {(ArmKey(*arm), b) for arm, b in as_json} == hits.hits


def test_records_are_pooled_across_tests(collector):
    m = load("branchy")
    collector.begin()
    m.is_none(None)
    (first,) = collector.end().hits
    collector.begin()
    m.is_none(None)
    (again,) = collector.end().hits
    assert again is first


# --- what is recorded: every arm, app code only -------------------------------------------


def test_every_arm_is_seen_and_the_catalog_lists_exactly_those(collector):
    """Static enumeration (dis) must name exactly the (src, dst) pairs BRANCH reports."""
    collector.begin()
    run_all(load("branchy", strict=True))
    run_all(load("branchy", strict=False))  # the other arm of the module-level `if`
    seen = collector.end().arms
    catalog = collector.catalog()
    (branchy,) = [f for f in catalog.files if f.key == BRANCHY_KEY]
    static = {site.arm for site in branchy.sites}
    assert branchy.error is None
    assert seen == static
    assert catalog.total == sum(len(f.sites) for f in catalog.files) == collector.total_arms()
    assert len(static) == 2 * len({(a.qualname, a.firstline, a.src) for a in static})
    kinds = {site.kind for site in branchy.sites}
    assert kinds == {"if", "for", "except", "with", "assert"}
    # nested code objects were decided on their own PY_START: lambda, inner def, genexpr
    qualnames = {arm.qualname for arm in seen}
    assert {"<module>", "nested.<locals>.inner", "nested.<locals>.<lambda>"} <= qualnames
    assert "generator_expr.<locals>.<genexpr>" in qualnames


def test_module_code_of_an_app_module_is_recorded(collector):
    collector.begin()
    load("branchy", strict=True)
    arms = collector.end().arms
    assert arms and {arm.qualname for arm in arms} == {"<module>"}


def test_moto_s3_round_trip_records_only_app_arms(monkeypatch):
    """boto3, botocore, moto and the standard library run unmonitored."""
    for var, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(var, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    import boto3
    import botocore.client
    from moto import mock_aws
    from moto.s3.models import S3Backend

    app = load("s3app")
    with mock_aws(), BranchCollector([TARGETS]) as col:
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="uploads")
        col.begin()
        assert (
            app.handler({"bucket": "uploads", "key": "a/", "body": b"x,y\n"})["statusCode"] == 200
        )
        assert app.handler({"bucket": "uploads", "key": "b.txt"})["statusCode"] == 200
        hits = col.end()
        library = [botocore.client.BaseClient._make_api_call, S3Backend.put_object, json.loads]
        assert [MON.get_local_events(col.tool_id, f.__code__) for f in library] == [0, 0, 0]
    scope_dir = os.path.realpath(TARGETS)
    # both arms of `... or b"empty"` and of `key.endswith("/")`, one of `got == body`
    assert len(hits.arms) == 5
    for arm in hits.arms:
        assert arm.file == "covtargets/s3app.py"
        site = col.site(arm)
        assert site is not None
    (s3app,) = [f for f in col.catalog().files if f.key == "covtargets/s3app.py"]
    assert s3app.path.startswith(scope_dir + os.sep)


# --- cross-check against coverage.py -------------------------------------------------------


def _statement_starts(path: Path) -> dict[int, int]:
    """line -> first line of the statement (or match case) it belongs to: coverage.py
    reports a multi-line statement under its first line."""
    starts: dict[int, int] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.stmt):
            continue
        inner: set[int] = set()
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()):
                if isinstance(child, ast.match_case):
                    start = child.pattern.lineno
                    starts.setdefault(start, start)
                    inner.update(range(start, child.body[-1].end_lineno + 1))
                else:
                    inner.update(range(child.lineno, child.end_lineno + 1))
        for line in range(node.lineno, node.end_lineno + 1):
            if line not in inner:
                starts.setdefault(line, node.lineno)
    return starts


# Jumps coverage.py models as a line with a single exit: the exception type test of
# `except E:`, whether `with` swallowed an exception, and `assert`. They are real arms for
# the fuzzer (and in our totals) but have no counterpart in coverage.py's branch arcs.
NOT_IN_COVERAGEPY = {"except", "with", "assert"}


def _line_arcs(col: BranchCollector, arms, starts: dict[int, int]):
    """Our arms as coverage.py-style branch arcs.

    coverage.py measures arcs between statement lines and calls a line a branch when it has
    more than one possible exit. Bytecode also branches inside one statement (ternary,
    `a and b`, comprehension filters, lambda bodies, the genexpr's FOR_ITER): those arms stay
    on the statement or leave it for one and the same line, so at line granularity they
    are invisible. We apply the same definition to our static arms: map lines to statement
    starts, drop arms staying on their statement, and keep lines whose arms lead to more
    than one place. Exits keep coverage.py's negative first-line convention.
    """

    def norm(line: int) -> int:
        return line if line < 0 else starts.get(line, line)

    exits: dict[int, set[int]] = {}
    for f in col.catalog().files:
        for site in f.sites if f.key == BRANCHY_KEY else ():
            a, b = norm(site.from_line), norm(site.to_line)
            if site.kind not in NOT_IN_COVERAGEPY and a != b:
                exits.setdefault(a, set()).add(b)
    branch_lines = {line for line, dests in exits.items() if len(dests) > 1}
    out = set()
    for arm in arms:
        site = col.site(arm)
        a, b = norm(site.from_line), norm(site.to_line)
        if site.kind not in NOT_IN_COVERAGEPY and a in branch_lines and a != b:
            out.add((a, b))
    return out, branch_lines


def test_arms_match_coveragepy_branch_arcs(collector):
    coverage = pytest.importorskip("coverage")
    starts = _statement_starts(BRANCHY)
    for inputs in (CALLS[:4], CALLS):  # a partial run, then every arm
        collector.begin()
        module = load("branchy")
        for name, arg_lists in inputs:
            for args in arg_lists:
                getattr(module, name)(*args)
        ours, our_branch_lines = _line_arcs(collector, collector.end().arms, starts)

        cov = coverage.Coverage(branch=True, data_file=None, include=[str(BRANCHY)])
        cov.start()
        try:
            module = load("branchy")
            for name, arg_lists in inputs:
                for args in arg_lists:
                    getattr(module, name)(*args)
        finally:
            cov.stop()
        analysis = cov._analyze(str(BRANCHY))
        theirs = {(a, b) for a, dests in analysis.executed_branch_arcs().items() for b in dests}
        assert ours == theirs
    # the static side agrees as well: same branch lines, same possible arcs
    their_lines = {line for line, n in analysis.exit_counts.items() if n > 1}
    assert our_branch_lines == their_lines
    possible = {(a, b) for a, b in analysis.arc_possibilities_set if a in their_lines}
    catalog_arms = [
        s.arm for f in collector.catalog().files for s in f.sites if f.key == BRANCHY_KEY
    ]
    assert _line_arcs(collector, catalog_arms, starts)[0] == possible


# --- the decision per code object -----------------------------------------------------------


def test_each_code_object_is_decided_once(monkeypatch):
    starts: list[object] = []
    keyed: list[str] = []
    real_start, real_key_for = BranchCollector._on_start, Scope.key_for

    def spy_start(self, code, offset):
        starts.append(code)
        return real_start(self, code, offset)

    def spy_key_for(self, filename):
        keyed.append(filename)
        return real_key_for(self, filename)

    monkeypatch.setattr(BranchCollector, "_on_start", spy_start)
    monkeypatch.setattr(Scope, "key_for", spy_key_for)
    m = load("branchy")
    with BranchCollector([TARGETS]) as col:
        for x in (1, 2, 3):
            m.if_elif_else(x)
            m.is_none(x)
        assert [c for c in starts if c.co_filename == str(BRANCHY)] == [
            m.if_elif_else.__code__,
            m.is_none.__code__,
        ]
        assert keyed.count(str(BRANCHY)) == 1
        # another tool re-enabling DISABLEd events must not make us decide again
        MON.restart_events()
        m.if_elif_else(4)
        assert starts.count(m.if_elif_else.__code__) == 2  # PY_START came again ...
        assert keyed.count(str(BRANCHY)) == 1  # ... and was answered from the cache
        assert len(col.end()) == 3  # still recording: x=1, 2, 3, 4 took 3 distinct arms
        assert MON.get_local_events(col.tool_id, m.is_none.__code__) == BRANCH_EVENTS


def test_stop_releases_tool_id_and_events():
    m = load("branchy")
    col = BranchCollector([TARGETS])
    col.start()
    tool = col.tool_id
    m.is_none(None)
    assert MON.get_tool(tool) == "lambdafuzz"
    col.stop()
    assert col.tool_id is None and not col.active
    assert MON.get_tool(tool) is None
    assert MON.get_events(tool) == 0
    assert MON.get_local_events(tool, m.is_none.__code__) == 0
    m.is_none(1)
    assert {col.site(a).to_line for a in col.end().arms} == {_line_of(m.is_none, "r = 0")}


def test_restarted_collector_keeps_recording_decided_code():
    m = load("branchy")
    col = BranchCollector([TARGETS])
    with col:
        tool = col.tool_id
        m.is_none(None)
        col.end()
    with col:  # PY_START of is_none stays DISABLEd: its decision must survive the restart
        m.is_none(1)
        assert len(col.end()) == 1
    other = BranchCollector([TARGETS])
    with other:  # a new collector on the same tool id sees code DISABLEd by the old one
        assert other.tool_id == tool
        m.is_none(1)
        assert len(other.end()) == 1


def test_start_revives_starts_a_previous_holder_of_the_id_disabled():
    m = load("branchy")
    tool = next(t for t in TOOL_IDS if MON.get_tool(t) is None)
    MON.use_tool_id(tool, "sloppy")
    MON.register_callback(tool, MON.events.PY_START, lambda code, offset: MON.DISABLE)
    MON.set_events(tool, MON.events.PY_START)
    m.is_none(1)  # is_none's PY_START is now DISABLEd for this tool id
    MON.register_callback(tool, MON.events.PY_START, None)
    MON.free_tool_id(tool)  # leaves the events set: 3.12/3.13 free_tool_id does not clear
    with BranchCollector([TARGETS], tool_id=tool) as col:
        m.is_none(1)
        assert len(col.end()) == 1


def test_taken_tool_id_moves_on_to_the_next():
    free = [t for t in TOOL_IDS if MON.get_tool(t) is None]
    if len(free) < 2:
        pytest.skip(f"needs two free tool ids of {TOOL_IDS}")
    MON.use_tool_id(free[0], "someone-else")
    try:
        with BranchCollector([TARGETS]) as col:
            assert col.tool_id == free[1]
    finally:
        MON.free_tool_id(free[0])


def test_no_free_tool_id_names_the_holders():
    taken = [t for t in TOOL_IDS if MON.get_tool(t) is None]
    for t in taken:
        MON.use_tool_id(t, f"holder-{t}")
    try:
        with pytest.raises(ToolIdUnavailable) as info:
            BranchCollector([TARGETS]).start()
    finally:
        for t in taken:
            MON.free_tool_id(t)
    message = str(info.value)
    assert "coverage-tool-id" in message
    for t in taken:
        assert f"id {t} by 'holder-{t}'" in message


# --- keys, scope and reports ----------------------------------------------------------------

_SUBPROCESS = """
import importlib.util, json, sys
from lambdafuzz.harness.measure.coverage import BranchCollector
col = BranchCollector([sys.argv[1]])
col.start()
spec = importlib.util.spec_from_file_location("elsewhere_branchy", sys.argv[2])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
m.search([None, 1, 2], 2)
m.matcher([1, 2])
print(json.dumps(sorted(col.end().hits)))
"""


def test_arm_keys_are_the_same_in_another_process(collector):
    collector.begin()
    m = load("branchy")
    m.search([None, 1, 2], 2)
    m.matcher([1, 2])
    here = collector.end().hits
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SUBPROCESS), str(TARGETS), str(BRANCHY)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    ).stdout
    there = {(ArmKey(*arm), b) for arm, b in json.loads(out)}
    assert there == here


def test_scope_keys_files_by_path(tmp_path):
    app = tmp_path / "app"
    (app / "pkg").mkdir(parents=True)
    (app / "pkg" / "mod.py").write_text("x = 1\n")
    (app / "single.py").write_text("y = 2\n")
    (tmp_path / "outside.py").write_text("z = 3\n")
    (tmp_path / "link").symlink_to(app / "pkg")

    scope = Scope.of([app / "pkg", app / "single.py"])
    assert scope.key_for(str(app / "pkg" / "mod.py")) == "pkg/mod.py"
    assert scope.key_for(str(tmp_path / "link" / "mod.py")) == "pkg/mod.py"  # realpath
    assert scope.key_for(str(app / "single.py")) == "single.py"
    assert scope.key_for(str(tmp_path / "outside.py")) is None
    assert scope.key_for("<string>") is None
    assert scope.source_files() == sorted(
        [os.path.realpath(app / "pkg" / "mod.py"), os.path.realpath(app / "single.py")]
    )

    rooted = Scope.of([app / "pkg", tmp_path / "outside.py"], root=app)
    assert rooted.key_for(str(app / "pkg" / "mod.py")) == "pkg/mod.py"
    assert rooted.key_for(str(tmp_path / "outside.py")) == os.path.realpath(tmp_path / "outside.py")


def test_unparsable_file_is_reported_not_raised(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n")
    found = scan_file(str(bad), "bad.py")
    assert found.sites == () and found.error is not None and "SyntaxError" in found.error
    assert scan_file(str(tmp_path / "missing.py"), "missing.py").error.startswith(
        "FileNotFoundError"
    )


def test_site_falls_back_to_running_code_when_the_file_changed(tmp_path):
    pkg = tmp_path / "gone"
    pkg.mkdir()
    src = pkg / "mod.py"
    src.write_text("def f(x):\n    if x:\n        return 1\n    return 2\n")
    spec = importlib.util.spec_from_file_location("gone_mod", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with BranchCollector([pkg]) as col:
        module.f(1)
        src.write_text("")  # the source on disk no longer has the function
        (arm,) = col.end().arms
        assert col.catalog().site(arm) is None
        site = col.site(arm)
    assert (site.from_line, site.to_line, site.kind) == (2, 3, "if")


def test_hits_expose_arms(collector):
    m = load("branchy")
    collector.begin()
    m.if_elif_else(20)
    hits = collector.end()
    assert isinstance(hits, BranchHits)
    assert hits.arms == {arm for arm, _ in hits.hits}
    assert {arm.file for arm in hits.arms} == {BRANCHY_KEY}
    assert {arm.qualname for arm in hits.arms} == {"if_elif_else"}
