"""Blame: whether an exception that escaped the handler was raised by the emulator or by
lambdafuzz itself rather than by the application or the libraries it calls.

The in-process emulator runs inside the handler's AWS calls, so an exception raised in it
— a moto extra that is not installed (`openapi_spec_validator` for API Gateway), an
operation moto does not implement (`NotImplementedError`), a crash in moto's code — reaches
the handler through its own call and would be keyed at the application line that made it.
It is no bug of the application: AWS answers that call.  Such a test is an *emulator gap*:
invalid (the world it ran in was not AWS), never a failure, and the campaign says once what
to do about it (`EmulatorGap.advice`).

Which frames decide: those below the innermost application frame (what the handler
called).  A moto frame among them means the exception rose while moto served the call — in
moto's code or in a library moto called (`xmltodict` parsing a body moto sent it) — since
an AWS error moto answers properly is raised by botocore after moto returned, with no moto
frame left on the stack.  lambdafuzz's own code counts when it raised the exception itself
(the raising frame is lambdafuzz's): its wrappers around client creation also sit below the
handler's calls, and an error botocore raises under them (an unknown service name) is the
application's.  An exception raised by lambdafuzz *above* the application (calling a
handler with the wrong signature) is the application's too: nothing of it ran.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

from lambdafuzz.errors import LambdafuzzError
from lambdafuzz.harness.emulator.unemulated import unemulated_cause
from lambdafuzz.model.outcome import EmulatorGap, FailureInfo
from lambdafuzz.model.target import Target

#: moto's optional-dependency markers: `openapi-spec-validator>=0.5; extra == "apigateway"`.
_EXTRA = re.compile(r"""^\s*([A-Za-z0-9_.\-]+)[^;]*;.*extra\s*==\s*["']([^"']+)["']""")
#: Extras that bundle everything, or the server: never the one to suggest.
_BUNDLES = frozenset({"all", "proxy", "server"})
_NOT_IMPLEMENTED = re.compile(r"The (\w+) action has not been implemented")


@functools.cache
def _package_dir(name: str) -> str | None:
    """The real path of an installed package's folder (moto, lambdafuzz), or None."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.realpath(next(iter(spec.submodule_search_locations)))


@functools.lru_cache(maxsize=4096)
def _owner(filename: str) -> str | None:
    """ "moto" or "lambdafuzz" when `filename` is in that package, else None.  Once per
    file: `realpath` stats every component (~22 us), and every failing test's traceback
    is walked frame by frame (as `invoke._real_path` measured)."""
    if not filename or filename.startswith("<"):
        return None
    path = os.path.realpath(filename)
    for name in ("moto", "lambdafuzz"):
        root = _package_dir(name)
        if root is not None and path.startswith(root + os.sep):
            return name
    return None


@dataclass(slots=True, frozen=True)
class _Frame:
    filename: str
    line: int
    function: str
    owner: str | None  # "moto", "lambdafuzz" or None (`_owner`)
    aws_call: str  # "dynamodb DescribeContributorInsights" on botocore's call frame, else ""


def _frames(tb: TracebackType | None) -> list[_Frame]:
    found = []
    while tb is not None:
        code = tb.tb_frame.f_code
        found.append(
            _Frame(
                code.co_filename,
                tb.tb_lineno,
                code.co_name,
                _owner(code.co_filename),
                _aws_call(tb) if code.co_name == "_make_api_call" else "",
            )
        )
        tb = tb.tb_next
    return found


def _aws_call(tb: TracebackType) -> str:
    """The service and operation of botocore's `BaseClient._make_api_call` frame."""
    try:
        local = tb.tb_frame.f_locals
        service = local["self"].meta.service_model.service_name
        return f"{service} {local['operation_name']}"
    except Exception:  # noqa: BLE001 - another function of that name: no call known
        return ""


def emulator_gap(exc: BaseException, app_dirs: Sequence[str]) -> EmulatorGap | None:
    """The emulator gap `exc` shows, or None when it is the application's (see the module's
    docstring)."""
    from lambdafuzz.harness.invoke import app_relative
    from lambdafuzz.harness.sandbox.safety import sandbox_violation

    if isinstance(exc, LambdafuzzError) or sandbox_violation(exc) is not None:
        return None  # the sandbox refusing on purpose: a failure of its own kind
    frames = _frames(exc.__traceback__)
    below = None  # index of the innermost application frame
    for i, frame in enumerate(frames):
        if app_relative(frame.filename, app_dirs) is not None:
            below = i
    if below is None or below == len(frames) - 1:
        return None
    called = frames[below + 1 :]
    call = next((f.aws_call for f in called if f.aws_call), "")
    moto = [f for f in called if f.owner == "moto"]
    if moto:
        if isinstance(exc, ImportError):
            return _missing_module(exc, moto[-1].filename)
        return _moto_gap(exc, moto[-1], call)
    last = called[-1]
    if last.owner != "lambdafuzz":
        return None
    return EmulatorGap(
        key=f"lambdafuzz: {type(exc).__name__} in {_shown(last)}",
        advice=(
            f"lambdafuzz itself raised {type(exc).__name__} while serving the handler's call"
            f"{f' to {call}' if call else ''} ({_shown(last)}:{last.line}: {_short(exc)}); "
            "not a bug of the application: tests that reach it are counted invalid. Please "
            "report it with the saved input."
        ),
    )


def _moto_gap(exc: BaseException, frame: _Frame, call: str) -> EmulatorGap:
    """An operation moto does not implement, or an exception raised while moto served a
    call (in its code or in a library it called)."""
    where = f"{_shown(frame)}:{frame.line}"
    if isinstance(exc, NotImplementedError):
        match = _NOT_IMPLEMENTED.search(str(exc))
        what = call or (match.group(1) if match else frame.function)
        return EmulatorGap(
            key=f"not implemented: {what}",
            advice=(
                f"the emulator (moto) does not implement {what}; tests that call it are "
                "counted invalid, not failures. Fuzz this path with --backend localstack, "
                "or keep the handler off it."
            ),
        )
    what = call or f"its {_moto_service(frame.filename)} service"
    return EmulatorGap(
        key=f"moto crash: {type(exc).__name__} in {_shown(frame)} in {frame.function}",
        advice=(
            f"the emulator (moto) raised {type(exc).__name__} while answering {what} "
            f"({where} in {frame.function}: {_short(exc)}); AWS would have answered the "
            "call, so this is not a bug of the application: tests that reach it are counted "
            "invalid."
        ),
    )


def unemulated_gap(
    failure: FailureInfo, target: Target, mounted: Sequence[str]
) -> EmulatorGap | None:
    """A failure only a service lambdafuzz does not emulate explains (`harness.unemulated`:
    a file system that could not be mounted, an endpoint of a service not emulated)."""
    label = unemulated_cause(failure, target, mounted)
    if not label:
        return None
    return EmulatorGap(
        key=label.split(", which")[0],
        advice=f"{label}; tests that reach it are counted invalid, not failures.",
    )


def _missing_module(exc: ImportError, moto_file: str) -> EmulatorGap:
    """A module moto imports for a service, not installed: the moto extra that brings it."""
    module = (exc.name or "").split(".")[0] or _module_named(str(exc))
    service = _moto_service(moto_file)
    extras = _extras_providing(module)
    if service in extras:
        extras = (service,)
    if extras:
        install = f"pip install 'moto[{extras[0]}]'"
    else:
        install = f"install the module {module!r} (moto needs it)"
    return EmulatorGap(
        key=f"missing module: {module}",
        advice=(
            f"the emulator (moto) needs the module {module!r} for {service}, which is not "
            f"installed: {install} in the environment lambdafuzz runs in; until then the "
            "tests that reach it are counted invalid, not failures."
        ),
    )


def _module_named(message: str) -> str:
    match = re.search(r"named '([^']+)'", message)
    return match.group(1).split(".")[0] if match else "?"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _extras_providing(module: str) -> tuple[str, ...]:
    """moto's extras whose requirements name the distribution of `module`, narrowest
    first (a service's extra before the bundles)."""
    try:
        requires = importlib.metadata.requires("moto") or []
    except importlib.metadata.PackageNotFoundError:
        return ()
    wanted = _normal(module)
    found = []
    for requirement in requires:
        match = _EXTRA.match(requirement)
        if match and _normal(match.group(1)) == wanted and match.group(2) not in _BUNDLES:
            found.append(match.group(2))
    return tuple(dict.fromkeys(found))


def _moto_service(filename: str) -> str:
    """`moto/apigateway/models.py` -> "apigateway"."""
    root = _package_dir("moto")
    if root is None:
        return "?"
    rel = os.path.relpath(os.path.realpath(filename), root).split(os.sep)
    return rel[0] if len(rel) > 1 else "core"


def _shown(frame: _Frame) -> str:
    """A moto or lambdafuzz file as people know it: `moto/dynamodb/responses.py`."""
    root = _package_dir(frame.owner) if frame.owner else None
    if root is None:
        return frame.filename
    return f"{frame.owner}/{os.path.relpath(os.path.realpath(frame.filename), root)}"


def _short(exc: BaseException) -> str:
    from lambdafuzz.harness.invoke import safe_str

    text = safe_str(exc).replace("\n", " ")
    return text if len(text) <= 200 else text[:197] + "..."
