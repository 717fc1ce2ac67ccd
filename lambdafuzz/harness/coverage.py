"""Branch-arm coverage of application code through ``sys.monitoring`` (PEP 669).

This module only collects; ``fuzzer/`` decides what is new. A coverage point is one arm of
a conditional jump, named by an :class:`ArmKey` that is the same in every process, so worker
processes can send per-test results to the campaign process and it can merge them.

Cost model: ``PY_START`` is the only global event and every code object returns ``DISABLE``
from it after one decision, so library code (boto3, botocore, moto, Pillow, the standard
library) runs unmonitored. Application code gets local branch events whose callback is one
dict update. Offsets are turned into lines lazily, once per code object, never in a callback.
"""

from __future__ import annotations

import dis
import os
import sys
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import NamedTuple

from lambdafuzz.compat import (
    FOR_ITER_EXIT_SKIP,
    HAS_BRANCH_LEFT_RIGHT,
    HAS_CO_BRANCHES,
    HAS_SYS_MONITORING,
)
from lambdafuzz.errors import LambdafuzzError

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


class ArmKey(NamedTuple):
    """One arm of one conditional jump, the same in every process that runs the same source.

    A tuple (hashable, cheap, JSON as a list, equal to a plain tuple) rather than a
    dataclass because it is a dict key on the fuzzer's hottest merge path. ``src``/``dst``
    are bytecode offsets of the jump and of where that arm lands. Two code objects with the
    same qualname and first line (two lambdas on one line) share their arms' keys.
    """

    file: str  # path relative to the scope root, "/"-separated (absolute outside it)
    qualname: str  # code object's qualified name, "<module>" for module code
    firstline: int  # code object's first line, telling apart same-named code objects
    src: int
    dst: int


@dataclass(frozen=True, slots=True)
class BranchHits:
    """What one test covered: each arm hit, with its AFL hit-count bucket."""

    hits: frozenset[tuple[ArmKey, int]]

    @property
    def arms(self) -> frozenset[ArmKey]:
        return frozenset(arm for arm, _ in self.hits)

    def __len__(self) -> int:
        return len(self.hits)


@dataclass(frozen=True, slots=True)
class ArmSite:
    """Where an arm is in the source, for reports."""

    arm: ArmKey
    from_line: int  # line of the jump
    # first other line the arm leads to; from_line when it meets another jump on its own
    # line first (``a and b``); -firstline (coverage.py's convention) when it leaves the
    # code object (return or raise) first
    to_line: int
    kind: str  # "if" (other POP_JUMP_IF_*), "for" (FOR_ITER), "except", "with", "assert"


@dataclass(frozen=True, slots=True)
class FileArms:
    """Every arm of one application file; ``error`` says why a file yielded none."""

    path: str  # realpath
    key: str  # as in ArmKey.file
    sites: tuple[ArmSite, ...]
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ArmCatalog:
    """All arms of the application scope: the denominator of branch coverage."""

    files: tuple[FileArms, ...]
    _index: dict[ArmKey, ArmSite] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {site.arm: site for f in self.files for site in f.sites}
        object.__setattr__(self, "_index", index)

    @property
    def total(self) -> int:
        return len(self._index)

    def site(self, arm: ArmKey) -> ArmSite | None:
        return self._index.get(arm)

    def __contains__(self, arm: object) -> bool:
        return arm in self._index


class ToolIdUnavailable(LambdafuzzError):
    """Every sys.monitoring tool id we may use is held by another tool."""

    slug = "coverage-tool-id"


@dataclass(frozen=True, slots=True)
class Scope:
    """Which files are application code, and the stable name each gets in arm keys."""

    dirs: tuple[str, ...]
    files: tuple[str, ...]
    root: str | None = None

    @classmethod
    def of(
        cls, paths: Iterable[str | os.PathLike[str]], *, root: str | os.PathLike[str] | None = None
    ) -> Scope:
        """Directories and/or module files; a file is keyed relative to ``root`` when given,
        else relative to the parent of the scope entry holding it (``pkg/mod.py``)."""
        dirs: list[str] = []
        files: list[str] = []
        for p in paths:
            real = os.path.realpath(p)
            (dirs if os.path.isdir(real) else files).append(real)
        return cls(tuple(dirs), tuple(files), os.path.realpath(root) if root is not None else None)

    def key_for(self, filename: str) -> str | None:
        """The arm-key name of ``filename`` if it is application code, else None."""
        if not filename or filename[0] == "<":  # "<string>", "<frozen ...>"
            return None
        real = os.path.realpath(filename)
        for base in self.files:
            if real == base:
                return self._key(real, os.path.dirname(base))
        for base in self.dirs:
            if real.startswith(base + os.sep):
                return self._key(real, os.path.dirname(base))
        return None

    def _key(self, real: str, parent: str) -> str:
        base = self.root if self.root is not None else parent
        if real.startswith(base + os.sep):
            return os.path.relpath(real, base).replace(os.sep, "/")
        return real

    def source_files(self) -> list[str]:
        """Realpaths of every ``.py`` file in scope, sorted."""
        found = set(self.files)
        for base in self.dirs:
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and d[0] != ".")
                found.update(os.path.join(dirpath, f) for f in filenames if f.endswith(".py"))
        return sorted(found)


# --- static side: arms and lines from bytecode -------------------------------------------


def _code_objects(code: CodeType) -> Iterator[CodeType]:
    stack = [code]
    while stack:
        code = stack.pop()
        yield code
        stack.extend(c for c in reversed(code.co_consts) if isinstance(c, CodeType))


_ALWAYS_JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP"})
_RETURNS = frozenset({"RETURN_VALUE", "RETURN_CONST"})
_RAISES = frozenset({"RERAISE", "RAISE_VARARGS"})
_JUMP_OPS = frozenset(dis.opname[op] for op in (*dis.hasjrel, *dis.hasjabs))


def _kind(instrs: list[dis.Instruction], i: int) -> str:
    """What source construct a jump implements, as far as reports and tests care: coverage.py
    counts "if" and "for" arms; "except" (exception type test), "with" (did ``__exit__``
    swallow the exception) and "assert" are jumps it models as one-exit lines."""
    if instrs[i].opname == "FOR_ITER":
        return "for"
    before = {ins.opname for ins in instrs[max(0, i - 2) : i]}
    if before & {"CHECK_EXC_MATCH", "CHECK_EG_MATCH"}:
        return "except"
    if "WITH_EXCEPT_START" in before:
        return "with"
    if any(ins.opname == "LOAD_ASSERTION_ERROR" for ins in instrs[i + 1 : i + 3]):
        return "assert"
    return "if"


def _jumps(code: CodeType, instrs: list[dis.Instruction]) -> list[tuple[int, int, int, str]]:
    """(src, not-taken dst, taken dst, kind) of every jump that emits branch events.

    On 3.12/3.13 that is POP_JUMP_IF_* and FOR_ITER, with the destinations the BRANCH
    event reports: the next instruction, and the jump target (for FOR_ITER: past the
    END_FOR sequence). 3.14 lists them itself in ``co_branches()``.
    """
    if HAS_CO_BRANCHES:
        at = {ins.offset: i for i, ins in enumerate(instrs)}
        return [
            (src, left, right, _kind(instrs, at[src]) if src in at else "if")
            for src, left, right in code.co_branches()
        ]
    out = []
    for i, ins in enumerate(instrs):
        if ins.opname.startswith("POP_JUMP_IF_"):
            out.append((ins.offset, instrs[i + 1].offset, ins.argval, _kind(instrs, i)))
        elif ins.opname == "FOR_ITER":
            out.append((ins.offset, instrs[i + 1].offset, ins.argval + FOR_ITER_EXIT_SKIP, "for"))
    return out


def _line_map(code: CodeType) -> dict[int, int]:
    lines: dict[int, int] = {}
    for start, end, line in code.co_lines():
        if line is not None:
            for off in range(start, end, 2):
                lines[off] = line
    return lines


def _sites(code: CodeType, file_key: str) -> list[ArmSite]:
    """Every arm of one code object (not its nested ones), with lines."""
    instrs = list(dis.get_instructions(code))
    at = {ins.offset: i for i, ins in enumerate(instrs)}
    lines = _line_map(code)
    qual, first = code.co_qualname, code.co_firstlineno

    def to_line(from_line: int, dst: int) -> int:
        """Follow the straight-line path from ``dst`` (through unconditional jumps) to the
        first instruction on another line; a return or raise first means -first (leaves the
        code object); another conditional jump first, still on from_line, means from_line."""
        i = at.get(dst)
        seen = set()
        while i is not None and i < len(instrs) and i not in seen:
            seen.add(i)
            ins = instrs[i]
            line = lines.get(ins.offset)
            if line is not None and line != from_line:
                return line
            op = ins.opname
            if op in _ALWAYS_JUMPS:
                i = at.get(ins.argval)
            elif op in _RETURNS or op in _RAISES:
                return -first
            elif op in _JUMP_OPS:
                return from_line
            else:
                i += 1
        return from_line

    sites = []
    for src, left, right, kind in _jumps(code, instrs):
        from_line = lines.get(src, first)
        for dst in (left, right):
            arm = ArmKey(file_key, qual, first, src, dst)
            sites.append(ArmSite(arm, from_line, to_line(from_line, dst), kind))
    return sites


def scan_file(path: str, key: str) -> FileArms:
    """Compile one source file as import does and list the arms of all its code objects."""
    try:
        with open(path, "rb") as f:
            source = f.read()
        module = compile(source, path, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError) as e:
        return FileArms(path, key, (), error=f"{type(e).__name__}: {e}")
    sites = [s for code in _code_objects(module) for s in _sites(code, key)]
    sites.sort(key=lambda s: (s.from_line, s.arm.firstline, s.arm.src, s.arm.dst))
    return FileArms(path, key, tuple(sites))


def scan_arms(scope: Scope) -> ArmCatalog:
    """Arms of every application source file; ``total`` is the coverage denominator."""
    files = []
    for path in scope.source_files():
        key = scope.key_for(path)
        if key is not None:
            files.append(scan_file(path, key))
    return ArmCatalog(tuple(files))


# --- dynamic side: the collector --------------------------------------------------------

if HAS_SYS_MONITORING:
    _MON = sys.monitoring
    _EV = _MON.events
    _BRANCH_EVENTS = (_EV.BRANCH_LEFT, _EV.BRANCH_RIGHT) if HAS_BRANCH_LEFT_RIGHT else (_EV.BRANCH,)
    _BRANCH_MASK = sum(_BRANCH_EVENTS)  # distinct bits
    _DISABLE = _MON.DISABLE

RawT = tuple[int, int, int]  # (id(code), src, dst) as recorded in the callback


def _make_branch_callback(hits: dict[RawT, int]):  # -> Callable[[CodeType, int, int], None]
    """The BRANCH callback: one dict update, never DISABLE (on 3.12/3.13 that kills both arms).

    Measured on this project's 3.13 box, per branch event, against 225 ns for an empty
    callback: ``d[k] = get(k, 0) + 1`` with k = (id(code), src, dst) 958 ns; try/``+=``
    1054; defaultdict ``+=`` 1065; an int key ``id<<32|src<<16|dst`` 1166; appending to a
    list and counting at end() 1087; keying on the code object itself is worse still
    (hashing a code object costs 420 ns). Counts stop at 128 (the last bucket): a hot loop
    then pays the lookup but not the store, 765 vs 926 ns. Bound names are default
    arguments (fast locals).
    """

    def on_branch(code: CodeType, src: int, dst: int, _hits=hits, _get=hits.get, _id=id) -> None:
        key = (_id(code), src, dst)
        n = _get(key, 0)
        if n < 128:
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
    )

    def __init__(
        self,
        scope: Scope | Iterable[str | os.PathLike[str]],
        *,
        root: str | os.PathLike[str] | None = None,
        tool_id: int | None = None,
    ) -> None:
        self.scope = scope if isinstance(scope, Scope) else Scope.of(scope, root=root)
        self._want_tool = tool_id
        self._tool: int | None = None
        self._hits: dict[RawT, int] = {}
        self._on_branch = _make_branch_callback(self._hits)
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
        _MON.set_events(tool, _EV.PY_START)
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
        for ev in (_EV.PY_START, *_BRANCH_EVENTS):
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
        """Start a test: forget the hits recorded so far."""
        self._hits.clear()

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
            out.append(recs[_BUCKET_OF[n] if n < 128 else 7])  # n <= 128
        return BranchHits(frozenset(out))

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
            sites = self._live_sites[id(code)] = {s.arm: s for s in _sites(code, arm.file)}
        return sites.get(arm)
