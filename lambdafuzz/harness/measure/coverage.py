"""Branch-arm coverage of application code through ``sys.monitoring`` (PEP 669): the collector.

This module only collects; ``fuzzer/`` decides what is new. A coverage point is one arm of
a conditional jump, named by an :class:`~lambdafuzz.harness.measure.arm_catalog.ArmKey` that is the
same in every process, so worker processes can send per-test results to the campaign
process and it can merge them. Which arms exist and on which lines they are is the static
catalog's business (:mod:`lambdafuzz.harness.measure.arm_catalog`).

Cost model: ``PY_START`` is the only global event and every code object returns ``DISABLE``
from it after one decision, so library code (boto3, botocore, moto, Pillow, the standard
library) runs unmonitored. Application code gets local branch events whose callback is one
dict update. Offsets are turned into lines lazily, once per code object, never in a callback.
"""

from __future__ import annotations

import os
import sys
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from types import CodeType

from lambdafuzz.compat import HAS_BRANCH_LEFT_RIGHT, HAS_SYS_MONITORING
from lambdafuzz.errors import LambdafuzzError
from lambdafuzz.harness.measure.arm_catalog import (
    ArmCatalog,
    ArmKey,
    ArmSite,
    Scope,
    code_sites,
    scan_arms,
)
from lambdafuzz.harness.measure.handled import HandledRecorder, make_handled_callback

# Ids CPython leaves unnamed first (3, 4), so coverage.py (COVERAGE_ID, 1) and profilers
# (PROFILER_ID, 2) keep theirs when they run beside us; debugger and optimizer ids never.
TOOL_IDS = (3, 4, 1, 2)
TOOL_NAME = "lambdafuzz"

# AFL hit-count classes: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ -> 0..7. A table for the
# counts below 128 makes end() one index per arm.
_BUCKET_EDGES = (2, 3, 4, 8, 16, 32, 128)
_BUCKET_OF = tuple(bisect_right(_BUCKET_EDGES, n) for n in range(128))
N_BUCKETS = 8


def bucket(count: int) -> int:
    """AFL bucket id (0..7) of a positive hit count."""
    return _BUCKET_OF[count] if count < 128 else 7


@dataclass(frozen=True, slots=True)
class BranchHits:
    """What one test covered: each arm hit, with its AFL hit-count bucket."""

    hits: frozenset[tuple[ArmKey, int]]
    #: exact counts of the arms taken more than once (only from a collector made with
    #: `exact_counts`): what the cost objective maximises per arm
    counts: dict[ArmKey, int] | None = None

    @property
    def arms(self) -> frozenset[ArmKey]:
        return frozenset(arm for arm, _ in self.hits)

    def __len__(self) -> int:
        return len(self.hits)


class ToolIdUnavailable(LambdafuzzError):
    """Every sys.monitoring tool id we may use is held by another tool."""

    slug = "coverage-tool-id"


if HAS_SYS_MONITORING:
    _MON = sys.monitoring
    _EV = _MON.events
    _BRANCH_EVENTS = (_EV.BRANCH_LEFT, _EV.BRANCH_RIGHT) if HAS_BRANCH_LEFT_RIGHT else (_EV.BRANCH,)
    _BRANCH_MASK = sum(_BRANCH_EVENTS)  # distinct bits
    _DISABLE = _MON.DISABLE

RawT = tuple[int, int, int]  # (id(code), src, dst) as recorded in the callback


#: Where counts stop without `exact_counts`: the last bucket starts at 128.
BUCKET_CAP = 128
#: Where counts stop with `exact_counts` (the cost objective): far past any real loop.
EXACT_CAP = (1 << 30) - 1  # still a one-digit int: compared as fast as 128


def _make_branch_callback(hits: dict[RawT, int], cap: int = BUCKET_CAP):
    """The BRANCH callback: one dict update, never DISABLE (on 3.12/3.13 that kills both arms).

    Measured on this project's 3.13 box, per branch event, against 225 ns for an empty
    callback: ``d[k] = get(k, 0) + 1`` with k = (id(code), src, dst) 958 ns; try/``+=``
    1054; defaultdict ``+=`` 1065; an int key ``id<<32|src<<16|dst`` 1166; appending to a
    list and counting at end() 1087; keying on the code object itself is worse still
    (hashing a code object costs 420 ns). Counts stop at 128 (the last bucket): a hot loop
    then pays the lookup but not the store, 765 vs 926 ns. Bound names are default
    arguments (fast locals). With `cap` = EXACT_CAP (the cost objective counts every
    iteration) a hot loop pays the store too: the cost benchmark measures it.
    """

    def on_branch(
        code: CodeType, src: int, dst: int, _hits=hits, _get=hits.get, _id=id, _cap=cap
    ) -> None:
        key = (_id(code), src, dst)
        n = _get(key, 0)
        if n < _cap:
            _hits[key] = n + 1

    return on_branch


class BranchCollector:
    """Per-test branch-arm coverage of the application scope.

    ``start()`` once per worker process, then ``begin()``/``end()`` around every test;
    ``stop()`` releases the tool id. Code objects are decided on their first ``PY_START``
    after ``start()``: application code gets local branch events, everything returns
    DISABLE, so later starts cost nothing. Module code of an application module imported
    while the collector runs is recorded too (into the test that is current then).
    """

    __slots__ = (
        "scope",
        "_tool",
        "_want_tool",
        "_hits",
        "_on_branch",
        "_app",
        "_files",
        "_records",
        "_live",
        "_live_sites",
        "_catalog",
        "_exact",
        "max_hits",
        "handled",
    )

    def __init__(
        self,
        scope: Scope | Iterable[str | os.PathLike[str]],
        *,
        root: str | os.PathLike[str] | None = None,
        tool_id: int | None = None,
        exact_counts: bool = False,
        handled: bool = False,
    ) -> None:
        """`exact_counts`: count every branch event (not only up to the last bucket) and
        report the counts of arms taken more than once (`BranchHits.counts`).
        `handled`: also record exceptions the application catches (`self.handled`, see
        `harness.handled`; read them with `self.handled.take()` after `end()`)."""
        self.scope = scope if isinstance(scope, Scope) else Scope.of(scope, root=root)
        self._want_tool = tool_id
        self._tool: int | None = None
        self._hits: dict[RawT, int] = {}
        self._exact = exact_counts
        self._on_branch = _make_branch_callback(
            self._hits, EXACT_CAP if exact_counts else BUCKET_CAP
        )
        self.max_hits = 0  # the last test's highest arm count (exact_counts only)
        # id(code) -> (code, file key), application code only; holding the code keeps the
        # id from being reused while raw keys name it. Library code is not held: its
        # decision sticks through DISABLE, and after a restart_events() it is re-decided
        # from _files (one dict lookup), so dynamically generated code (dataclass and
        # namedtuple methods, templates) is never pinned for the whole campaign.
        self._app: dict[int, tuple[CodeType, str]] = {}
        self._files: dict[str, str | None] = {}  # co_filename -> file key or None
        self._records: dict[RawT, tuple[tuple[ArmKey, int], ...]] = {}  # pooled per bucket
        self._live: dict[tuple[str, str, int], CodeType] = {}
        self._live_sites: dict[int, dict[ArmKey, ArmSite]] = {}
        self._catalog: ArmCatalog | None = None
        self.handled: HandledRecorder | None = None
        if handled:
            self.handled = HandledRecorder((*self.scope.dirs, *self.scope.files))

    # lifecycle

    @property
    def tool_id(self) -> int | None:
        """The sys.monitoring tool id held while started, else None."""
        return self._tool

    @property
    def active(self) -> bool:
        return self._tool is not None

    def start(self) -> None:
        """Take a tool id and start deciding code objects. Also starts an (empty) test."""
        if not HAS_SYS_MONITORING:
            raise ToolIdUnavailable("branch coverage needs sys.monitoring (Python 3.12+)")
        if self._tool is not None:
            return
        tool = self._claim_tool()
        _MON.register_callback(tool, _EV.PY_START, self._on_start)
        for ev in _BRANCH_EVENTS:
            _MON.register_callback(tool, ev, self._on_branch)
        for code, _ in self._app.values():  # a restarted collector keeps what it decided
            _MON.set_local_events(tool, code, _BRANCH_MASK)
        events = _EV.PY_START
        if self.handled is not None:  # global only (CPython refuses it per code object)
            callback = make_handled_callback(self._app, self.handled.events)
            _MON.register_callback(tool, _EV.EXCEPTION_HANDLED, callback)
            events |= _EV.EXCEPTION_HANDLED
        _MON.set_events(tool, events)
        # An earlier holder of this id may have DISABLEd PY_START of code objects and freed
        # the id with its events still set (3.12/3.13 free_tool_id clears nothing): that
        # DISABLE would hide those code objects from us. coverage.py restarts too.
        _MON.restart_events()
        self._hits.clear()

    def _claim_tool(self) -> int:
        candidates = (self._want_tool,) if self._want_tool is not None else TOOL_IDS
        for tool in candidates:
            try:
                _MON.use_tool_id(tool, TOOL_NAME)
            except ValueError:
                continue
            self._tool = tool
            return tool
        held = ", ".join(f"id {t} by {_MON.get_tool(t)!r}" for t in candidates)
        raise ToolIdUnavailable(
            f"[{ToolIdUnavailable.slug}] no sys.monitoring tool id is free for branch "
            f"coverage ({held}); stop that tool or pass another tool_id"
        )

    def stop(self) -> None:
        """Stop monitoring and release the tool id; the last test's hits stay readable."""
        tool = self._tool
        if tool is None:
            return
        _MON.set_events(tool, 0)
        for code, _ in self._app.values():
            _MON.set_local_events(tool, code, 0)
        for ev in (_EV.PY_START, _EV.EXCEPTION_HANDLED, *_BRANCH_EVENTS):
            _MON.register_callback(tool, ev, None)
        _MON.free_tool_id(tool)
        self._tool = None

    def __enter__(self) -> BranchCollector:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # per test

    def begin(self) -> None:
        """Start a test: forget the hits (and catches) recorded so far."""
        self._hits.clear()
        if self.handled is not None:
            self.handled.begin()

    def restart(self) -> dict[RawT, int]:
        """Count afresh within the same test (its event delivered a second time); the
        counts so far, to give back to `keep_max`.  Catches keep accumulating."""
        counts = self._hits.copy()
        self._hits.clear()
        return counts

    def keep_max(self, earlier: dict[RawT, int]) -> None:
        """Each arm's count the larger of `earlier`'s (`restart`) and the one since: two
        runs of one test covered as their union, each counted as if it ran alone, so a
        test delivered twice takes no hit-count bucket its first run alone would not."""
        hits = self._hits
        for raw, n in earlier.items():
            if hits.get(raw, 0) < n:
                hits[raw] = n

    def end(self) -> BranchHits:
        """Finish a test: the arms it hit with their hit-count buckets."""
        # copy() is one C call, so a thread the handler left running cannot change the dict
        # under our loop ("dictionary changed size during iteration")
        counts = self._hits.copy()
        self._hits.clear()
        records = self._records
        out = []
        for raw, n in counts.items():
            try:
                recs = records[raw]
            except KeyError:
                recs = records[raw] = self._pool(raw)
            out.append(recs[_BUCKET_OF[n] if n < 128 else 7])
        if not self._exact:
            return BranchHits(frozenset(out))
        # arms taken more than once, by their pooled key (records[raw][0][0] is the arm)
        exact = {records[raw][0][0]: n for raw, n in counts.items() if n > 1}
        self.max_hits = max(exact.values(), default=1 if counts else 0)
        return BranchHits(frozenset(out), exact)

    def _pool(self, raw: RawT) -> tuple[tuple[ArmKey, int], ...]:
        code, file_key = self._app[raw[0]]
        arm = ArmKey(file_key, code.co_qualname, code.co_firstlineno, raw[1], raw[2])
        self._live[arm[:3]] = code
        return tuple((arm, b) for b in range(N_BUCKETS))

    # monitoring callbacks

    def _on_start(self, code: CodeType, _offset: int) -> object:
        if id(code) in self._app:  # seen before restart_events(): already enabled
            return _DISABLE
        filename = code.co_filename
        try:
            key = self._files[filename]
        except KeyError:
            key = self._files[filename] = self.scope.key_for(filename)
        if key is not None:
            self._app[id(code)] = (code, key)
            _MON.set_local_events(self._tool, code, _BRANCH_MASK)
        return _DISABLE

    # reports

    def catalog(self) -> ArmCatalog:
        """All arms of the scope's source files (computed once)."""
        if self._catalog is None:
            self._catalog = scan_arms(self.scope)
        return self._catalog

    def total_arms(self) -> int:
        return self.catalog().total

    def site(self, arm: ArmKey) -> ArmSite | None:
        """Source lines of an arm: from the catalog, else from a code object seen running
        (code that was not compiled from a scope file on disk, e.g. ``exec``'d)."""
        found = self.catalog().site(arm)
        if found is not None:
            return found
        code = self._live.get(arm[:3])
        if code is None:
            return None
        try:
            sites = self._live_sites[id(code)]
        except KeyError:
            sites = self._live_sites[id(code)] = {s.arm: s for s in code_sites(code, arm.file)}
        return sites.get(arm)
