"""Swallowed exceptions: exceptions the application catches, found through ``sys.monitoring``.

Handlers that wrap their work in ``try/except`` and log hide their bugs from a fuzzer that
only sees uncaught exceptions.  The coverage collector's tool also listens to
``EXCEPTION_HANDLED`` (CPython allows it only as a global event, never per code object);
the callback keeps an event only when the catching code object is application code (one
dict lookup in the collector's table of application code objects), so library code that
handles exceptions pays that lookup and nothing else.  Everything else happens once per
test, in `HandledRecorder.take`, for the few events that were kept.

What counts as a *handled finding*, and why:

* the exception is caught in application code by an ``except`` clause that matches it
  (the clause is read from the bytecode at the handler: its class expressions are resolved
  in the frame's globals, or compared by name when they are locals).  Cleanup handlers
  (``finally``, ``with`` exits, ``contextlib.suppress``) and clauses that do not match
  (the exception goes on unwinding) do not count: nothing was swallowed there;
* it does not escape the handler call: an exception that ends the test is a failure
  already (and one re-raised and caught again by the application is still kept);
* it was raised by the application's own line: an operation or a C builtin called there
  (``d["k"]``, ``int(s)``, ``float(x)``, ``x.attr``), which is how data-dependent bugs
  surface.  Not counted: exceptions the application raises itself with ``raise`` or
  ``assert`` (validation it wrote on purpose, answered by its own ``except``: counting
  them would report every rejected input);
* an exception raised inside a library (its innermost frame is library code: botocore's
  ``ClientError``, ``json.JSONDecodeError``, boto3's "Float types are not supported")
  counts only when the clause that caught it is broad (bare ``except``, ``except
  Exception``/``BaseException``).  A specific clause (``except s3.exceptions.NoSuchKey``,
  ``except json.JSONDecodeError``) is the application's documented control flow, and
  counting it would flood the findings with every missing object; a broad clause is the
  log-and-continue pattern that hides a wrong parameter type or a rejected write.  One
  exception: an AWS error whose code says the service refused the request as malformed
  (`ValidationException`, `InvalidParameterValue`, ... : `REJECTED_REQUEST_CODES`) counts
  whatever clause caught it — `except ClientError:` is the AWS form of the broad clause,
  and a sort key over 1024 bytes or an empty attribute value is the handler's bug, never
  control flow (a missing key, a failed condition or throttling still are);
* ``StopIteration``, ``StopAsyncIteration``, ``GeneratorExit``, ``KeyboardInterrupt`` and
  ``SystemExit`` never count: they are iteration and shutdown protocol, not errors; nor
  does a sandbox refusal the application swallowed (the guard makes that test a failure).

A finding is located like a failure (`model.outcome`): the innermost application frame of
its traceback (`location`) and the line of the ``except`` that caught it (`caught_at`).
Its signature is the type and `location` only, without the message shape a failure's
signature carries: what a swallowed exception says varies with the input (`'list' object
has no attribute 'get'`, `'str' object ...`; `Expecting value`, `Extra data`, ... from one
``json.loads``), and a reviewer wants one finding per place the application swallows an
error (a 500-execution campaign on an SQS consumer went from 14 findings to 3 this way).  At most `MAX_EVENTS_PER_TEST` catches are kept
per test (a loop that catches on every item cannot grow a test's result without bound).
"""

from __future__ import annotations

import builtins
import dis
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from types import CodeType, TracebackType
from typing import Any

from lambdafuzz.model.outcome import FailureInfo

#: Catches kept per test before classification; the rest of a test's catches are dropped.
MAX_EVENTS_PER_TEST = 32
#: Distinct findings whose formatted traceback a worker keeps for reuse.
MAX_KNOWN = 1000
#: Exception types that are protocol, never findings.
PROTOCOL = (StopIteration, StopAsyncIteration, GeneratorExit, KeyboardInterrupt, SystemExit)
#: Clause classes that catch (nearly) everything: the log-and-continue pattern.
BROAD = frozenset({"Exception", "BaseException"})
#: AWS error codes (botocore `ClientError.response["Error"]["Code"]`) of a request the
#: service refused as malformed: the input made the handler send a bad request.
REJECTED_REQUEST_CODES = frozenset(
    {
        "ValidationException",
        "ValidationError",
        "SerializationException",
        "InvalidParameterValue",
        "InvalidParameterValueException",
        "InvalidParameterException",
        "InvalidParameterCombination",
        "InvalidAttributeValue",
        "InvalidMessageContents",
        "InvalidArgument",
        "InvalidRequest",
        "MalformedXML",
        "KeyTooLongError",
        "EntityTooLarge",
        "BatchEntryIdsNotDistinct",
    }
)

_PUSH_EXC_INFO = dis.opmap["PUSH_EXC_INFO"]
_EXPLICIT_RAISE = frozenset({dis.opmap["RAISE_VARARGS"], dis.opmap["RERAISE"]})
_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "LOAD_DEREF", "LOAD_FAST_CHECK"})


@dataclass(slots=True, frozen=True)
class HandledException:
    """One exception the application caught: what it was, where it was raised and caught."""

    info: FailureInfo  # type, message, traceback up to the catch, location (the signature)
    caught_at: str  # "app/h.py:40": the line of the `except` clause
    raised_in: str  # "application" or "library"


#: A kept event: catching code, handler offset, exception, its traceback then, the globals.
RawCatch = tuple[CodeType, int, BaseException, TracebackType | None, dict[str, Any]]


def make_handled_callback(app: dict[int, Any], events: list[RawCatch]):
    """The EXCEPTION_HANDLED callback: keep the catch when `app` holds the code object.

    Measured on this box (3.13, 2 shared cores): a json error caught in library code (3
    events) takes 15.4 us without the callback and 15.2 us with it (below the noise); an
    application catch costs +0.6-0.75 us (its frame's globals and traceback are kept).
    benchmarks/handled_cost.py, per test under moto: the s3 workload within its noise
    (+0.1 ms and -1.1 ms in two runs of ~12-16 ms/test); 60 application catches a test
    +1.2 ms (+6%), of which `take` is ~0.1 ms."""

    def on_handled(
        code: CodeType,
        offset: int,
        exc: BaseException,
        _app=app,
        _events=events,
        _getframe=sys._getframe,
        _cap=MAX_EVENTS_PER_TEST,
    ) -> None:
        if id(code) in _app and len(_events) < _cap:
            _events.append((code, offset, exc, exc.__traceback__, _getframe(1).f_globals))

    return on_handled


class HandledRecorder:
    """Turns one test's kept catches into `HandledException` findings."""

    def __init__(self, app_dirs: Sequence[str]) -> None:
        self.app_dirs = tuple(app_dirs)
        self.events: list[RawCatch] = []
        self._clauses: dict[tuple[int, int], tuple[_Clause, ...] | None] = {}
        self._codes: dict[int, CodeType] = {}  # keeps ids in `_clauses` from being reused
        self._files: dict[str, str | None] = {}  # co_filename -> app-relative path or None
        # (type, location, shape, caught at) -> the finding first made for it here
        self._known: dict[tuple[str, str, str, str], HandledException] = {}

    def begin(self) -> None:
        self.events.clear()

    def take(self, escaped: BaseException | None = None) -> tuple[HandledException, ...]:
        """The findings of the test that just ended; `escaped`: the exception that ended it
        (it and its chain are failures, not handled findings)."""
        if not self.events:
            return ()
        events = self.events.copy()  # the callback holds this very list: cleared in place
        self.events.clear()
        gone = _chain(escaped)
        found: dict[str, HandledException] = {}
        sites: set[tuple[int, int, type, int, int]] = set()
        for code, offset, exc, tb, glb in events:
            if id(exc) in gone or isinstance(exc, PROTOCOL):
                continue
            # one catch per (catch site, type, raising line) per test is classified: a loop
            # that catches on every item costs one classification, not one per item
            # (~40 us each, mostly the message shape; benchmarks/handled_cost.py)
            inner = tb
            while inner is not None and inner.tb_next is not None:
                inner = inner.tb_next
            site = (
                id(code),
                offset,
                type(exc),
                id(inner.tb_frame.f_code) if inner is not None else 0,
                inner.tb_lineno or 0 if inner is not None else 0,
            )
            if site in sites:
                continue
            sites.add(site)
            try:
                item = self._classify(code, offset, exc, tb, glb)
            except Exception:  # noqa: BLE001, S112 - a hostile exception must not break the worker
                continue
            if item is not None:
                found.setdefault(item.info.signature, item)
        return tuple(found.values())

    def _classify(
        self,
        code: CodeType,
        offset: int,
        exc: BaseException,
        tb: TracebackType | None,
        glb: dict[str, Any],
    ) -> HandledException | None:
        from lambdafuzz.harness.invoke import safe_str
        from lambdafuzz.harness.sandbox.safety import sandbox_violation

        clause = self._matching_clause(code, offset, exc, glb)
        if clause is None or sandbox_violation(exc) is not None:
            return None  # a swallowed sandbox refusal is a failure already (the guard's)
        frames = _frames(tb)
        if not frames:
            return None
        inner_code, inner_lasti, _ = frames[-1]
        in_app = self._relative(inner_code.co_filename) is not None
        if in_app and _opcode_at(inner_code, inner_lasti) in _EXPLICIT_RAISE:
            return None  # the application's own `raise`/`assert`
        if not in_app and not clause.broad and not _rejected_request(exc):
            return None  # a library's exception, caught by name: control flow
        location = ""
        for frame_code, _, line in frames:
            rel = self._relative(frame_code.co_filename)
            if rel is not None:
                location = f"{rel}:{line}"
        message = safe_str(exc)[:2000]
        cls = type(exc)
        name = (
            cls.__qualname__
            if cls.__module__ == "builtins"
            else f"{cls.__module__}.{cls.__qualname__}"
        )
        shape = ""  # keyed by site, not by message: see the module's docstring
        caught_file = self._relative(code.co_filename) or code.co_filename
        caught_at = f"{caught_file}:{_line_of(code, clause.offset)}"
        # The traceback is formatted once per signature and catch site in this worker:
        # formatting it (source lines, carets) costs ~0.7 ms, which a handler that catches
        # the same error in every test would otherwise pay every test (benchmarks/
        # handled_cost.py, s3-catch: +21 ms/test with 32 catches formatted, see its notes).
        key = (name, location, shape, caught_at)
        known = self._known.get(key)
        if known is not None:
            return known
        try:
            tb_text = "".join(traceback.format_exception(cls, exc, tb))
        except Exception as err:  # noqa: BLE001 - e.g. a hostile __notes__
            tb_text = f"{cls.__name__}: {message}\n(no traceback: {err!r})"
        info = FailureInfo(
            exception_type=name,
            message=message,
            traceback=tb_text[-20_000:],
            location=location,
            shape=shape,
        )
        found = HandledException(
            info=info,
            caught_at=caught_at,
            raised_in="application" if in_app else "library",
        )
        if len(self._known) < MAX_KNOWN:
            self._known[key] = found
        return found

    def _relative(self, filename: str) -> str | None:
        """`app_relative` of a file, remembered (it resolves the path: ~5 us a call)."""
        try:
            return self._files[filename]
        except KeyError:
            from lambdafuzz.harness.invoke import app_relative

            rel = self._files[filename] = app_relative(filename, self.app_dirs)
            return rel

    def _matching_clause(
        self, code: CodeType, offset: int, exc: BaseException, glb: dict[str, Any]
    ) -> _Clause | None:
        key = (id(code), offset)
        try:
            clauses = self._clauses[key]
        except KeyError:
            clauses = self._clauses[key] = _parse_clauses(code, offset)
            self._codes[id(code)] = code
        for clause in clauses or ():
            if clause.matches(exc, glb):
                return clause
        return None


# ------------------------------------------------------------------ reading except clauses
@dataclass(slots=True, frozen=True)
class _Clause:
    """One `except` clause: the class expressions it tests (dotted names; () for a bare
    `except:`) and the offset of its first instruction."""

    names: tuple[tuple[str, ...], ...]
    offset: int
    resolvable: tuple[bool, ...]  # per name: starts with a global (else a local: by name)

    @property
    def broad(self) -> bool:
        return not self.names or any(n[-1] in BROAD for n in self.names)

    def matches(self, exc: BaseException, glb: dict[str, Any]) -> bool:
        if not self.names:
            return True
        mro = None
        for dotted, resolvable in zip(self.names, self.resolvable, strict=True):
            cls = _resolve(dotted, glb) if resolvable else None
            if isinstance(cls, type):
                if isinstance(exc, cls):
                    return True
                continue
            if mro is None:
                mro = {c.__name__ for c in type(exc).__mro__}
            if dotted[-1] in mro:
                return True
        return False


def _resolve(dotted: tuple[str, ...], glb: dict[str, Any]) -> Any:
    head, *rest = dotted
    value = glb.get(head, _MISSING)
    if value is _MISSING:
        value = getattr(glb.get("__builtins__", builtins), head, None)
        if isinstance(glb.get("__builtins__"), dict):
            value = glb["__builtins__"].get(head)
    for attr in rest:
        value = getattr(value, attr, None)
    return value


_MISSING = object()


def _rejected_request(exc: BaseException) -> bool:
    """Whether `exc` is an AWS error refusing a malformed request (botocore's
    `ClientError`, read by shape: the harness does not import botocore for this)."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return False
    error = response.get("Error")
    return isinstance(error, dict) and error.get("Code") in REJECTED_REQUEST_CODES


def _parse_clauses(code: CodeType, offset: int) -> tuple[_Clause, ...] | None:
    """The `except` clauses of the handler at `offset`; None when the handler is no
    `except` (a `finally`, a `with` exit, a cleanup block: the exception goes on)."""
    instructions = {ins.offset: ins for ins in dis.get_instructions(code)}
    first = instructions.get(offset)
    if first is None or first.opcode != _PUSH_EXC_INFO:
        return None
    order = sorted(instructions)
    index = {off: i for i, off in enumerate(order)}
    clauses: list[_Clause] = []
    pos = index[offset] + 1
    while pos < len(order):
        start = order[pos]
        if instructions[start].opname == "POP_TOP":  # a bare `except:`
            clauses.append(_Clause((), start, ()))
            break
        # each stack item: the class expressions it stands for (a tuple builds several)
        stack: list[list[tuple[tuple[str, ...], bool]]] = []
        matched = False
        while pos < len(order):
            ins = instructions[order[pos]]
            pos += 1
            if ins.opname in _LOADS:
                stack.append([((str(ins.argval),), ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"))])
            elif ins.opname == "LOAD_ATTR" and stack and len(stack[-1]) == 1:
                (dotted, resolvable) = stack.pop()[0]
                stack.append([((*dotted, str(ins.argval)), resolvable)])
            elif ins.opname == "BUILD_TUPLE":
                count = int(ins.arg or 0)
                items = [item for part in stack[len(stack) - count :] for item in part]
                del stack[len(stack) - count :]
                stack.append(items)
            elif ins.opname == "CHECK_EXC_MATCH":
                matched = True
                break
            else:
                return tuple(clauses) or None  # not an `except` clause test
        if not matched or not stack:
            break
        top = stack[-1]
        clauses.append(_Clause(tuple(n for n, _ in top), start, tuple(r for _, r in top)))
        jump = instructions[order[pos]] if pos < len(order) else None
        if jump is None or not jump.opname.startswith("POP_JUMP_IF_FALSE"):
            break
        target = jump.argval
        if target not in index or instructions[target].opname == "RERAISE":
            break  # no more clauses: an unmatched exception goes on
        pos = index[target]
    return tuple(clauses) or None


def _frames(tb: TracebackType | None) -> list[tuple[CodeType, int, int]]:
    """(code, lasti, line) of each traceback entry, outermost first."""
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code, tb.tb_lasti, tb.tb_lineno or 0))
        tb = tb.tb_next
    return out


def _opcode_at(code: CodeType, lasti: int) -> int:
    raw = code.co_code
    return raw[lasti] if 0 <= lasti < len(raw) else -1


def _line_of(code: CodeType, offset: int) -> int:
    for start, end, line in code.co_lines():
        if start <= offset < end and line is not None:
            return line
    return code.co_firstlineno


def _chain(exc: BaseException | None) -> set[int]:
    """Ids of `exc` and every exception in its cause/context chain."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return seen
