"""The static side of branch coverage: every branch arm of the application's source files.

Nothing here runs application code. Each source file in the :class:`Scope` is compiled as
import compiles it and its bytecode is read for the conditional jumps that emit
``sys.monitoring`` branch events; each arm of each jump gets the :class:`ArmKey` the
collector (:mod:`lambdafuzz.harness.measure.coverage`) reports at run time and an :class:`ArmSite`
with its source lines. The :class:`ArmCatalog` of a scope is the denominator of branch
coverage and the line lookup of reports; a campaign scans it once and passes it along.
"""

from __future__ import annotations

import dis
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import CodeType
from typing import NamedTuple

from lambdafuzz.compat import FOR_ITER_EXIT_SKIP, HAS_CO_BRANCHES


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


# --- arms and lines from bytecode ---------------------------------------------------------


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


def code_sites(code: CodeType, file_key: str) -> list[ArmSite]:
    """Every arm of one code object (not its nested ones), with lines; the collector also
    uses it for code objects that were not compiled from a scope file on disk."""
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
    sites = [s for code in _code_objects(module) for s in code_sites(code, key)]
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
