"""What one test produced: its `Status` and, for a failure, the `FailureInfo` that
deduplicates it.  Shared by the worker that classifies, the engine that decides and the
reports that show it.

A failure's `signature` names what differs between bugs and nothing that differs between
inputs, in words a person reads:

* `KeyError at app/h.py:12` — an exception at the innermost application frame;
* `ValueError at app/h.py:30: invalid literal for int() with base #: '…'` — followed by
  the *shape* of its message (numbers, hex, ids and quoted values masked) when the shape
  says more than a masked value, so two messages of the same line stay apart;
* `RuntimeError at app/h.py:40 (from KeyError)` — the chained cause;
* `SystemExit 4 at app/h.py:9` — the exit code;
* `Status500 {error,message} returned by the handler` — a failure status with the shape of
  the response;
* `WorkerDied SIGSEGV at app/h.py:7`, `WorkerDied exit 3 at app/h.py:20` — a dead worker
  by signal or exit status, located by the dump taken in the worker;
* `Hang at app/h.py in poll` — a test past its timeout, located by the stack dumped before
  the worker was killed, and keyed by the function of that frame, not its line: the dump
  catches a loop on whichever of its lines it is at, and one hang is one failure (the line
  is in `where`);
* `TypeError at no application frame; innermost frame botocore/validate.py in validate` —
  no frame of the application on the stack (a library thread, the handler called with the
  wrong arguments, a crash in library code): keyed by the innermost frame's file and
  function, not its line, so the signature stays the same across library releases and
  lambdafuzz's own edits while still telling two library sites apart; the line is in
  `where` (`...validate.py:123 in validate`), which repro, the report and SARIF show.
"""

from __future__ import annotations

import enum
import hashlib
import re
from dataclasses import dataclass, replace


class Status(enum.IntEnum):
    """What one test produced, ordered from best to worst."""

    VALID = 0
    INVALID = 1  # rejected on purpose: an assumption, or a configured exception/status
    FAILURE = 2  # uncaught exception, configured failure status, or a dead worker
    HANG = 3  # ran past its timeout and was killed


#: What replaces the detail and shape of failures past the per-site limit (see `generalized`).
OTHER = "…"


@dataclass(slots=True, frozen=True)
class FailureInfo:
    """Why a test failed; `signature` deduplicates failures across a campaign."""

    exception_type: str
    message: str
    traceback: str
    # The innermost application frame as "file:line"; without one, the innermost frame of
    # any code as "file:line in function" (`frame_location`); "" when no stack is known.
    location: str
    cause: str = ""  # type of the chained cause, for re-raised generic exceptions
    detail: str = ""  # exit code, signal or response shape: shown after the type
    shape: str = ""  # the message with its values masked (`message_shape`), or ""
    # a hang's: the function of its application frame `location`, which keys its signature
    function: str = ""

    @property
    def in_app(self) -> bool:
        """Whether `location` is a frame of the application."""
        return is_app_location(self.location)

    @property
    def where(self) -> str:
        """Where it failed, as shown to people: `app/h.py:12`, `no application frame;
        innermost frame botocore/validate.py:123 in validate`, `returned by the handler`."""
        return where_shown(self.exception_type, self.location)

    @property
    def site(self) -> str:
        """Type, location and cause: what every shape of one failure shares."""
        sig = f"{self.exception_type}{self.where_key()}"
        return f"{sig} (from {self.cause})" if self.cause else sig

    @property
    def signature(self) -> str:
        kind = f"{self.exception_type} {self.detail}" if self.detail else self.exception_type
        sig = f"{kind}{self.where_key()}"
        if self.cause:
            sig += f" (from {self.cause})"
        return f"{sig}: {self.shape}" if self.shape else sig

    def where_key(self) -> str:
        """The ` at <where>` part of a signature: a frame outside the application without
        its line, a hang by its function (see the module's docstring)."""
        if is_status_failure(self.exception_type) and not self.location:
            return f" {RETURNED}"
        if self.function and is_app_location(self.location):
            return f" at {self.location.rpartition(':')[0]} in {self.function}"
        return f" at {where_keyed(self.location)}"

    def generalized(self) -> FailureInfo:
        """The same failure with its detail and shape replaced by `OTHER`: what a campaign
        keys failures by once one site has produced too many shapes (values in a message
        that masking cannot recognise must not make every input a new failure)."""
        return replace(self, detail=OTHER if self.detail else "", shape=OTHER if self.shape else "")


@dataclass(slots=True, frozen=True)
class EmulatorGap:
    """An exception raised inside the emulator or lambdafuzz while serving the handler's
    call (`harness.blame`): not a failure of the application, and the test is invalid."""

    key: str  # what deduplicates the campaign's notices: "missing module: openapi_spec_validator"
    advice: str  # what happened and what to do, in one sentence or two


#: How a failure without an application frame is labelled wherever it is shown.
NO_APP_FRAME = "no application frame"
#: The location of a failure status (the handler returned it: there is no stack).
RETURNED = "returned by the handler"
_APP_LOCATION = re.compile(r".+:\d+")
_FRAME_LOCATION = re.compile(r"(?P<file>.+):(?P<line>\d+) in (?P<function>.+)")
_STATUS_TYPE = re.compile(r"Status\d+")


def frame_location(file: str, line: int, function: str) -> str:
    """The location of a failure whose stack holds no application frame: its innermost
    frame, `botocore/validate.py:123 in validate`."""
    return f"{file}:{line} in {function}"


def is_app_location(location: str) -> bool:
    """`app/h.py:12` (an application frame), not `lib/x.py:3 in f` nor ""."""
    return bool(_APP_LOCATION.fullmatch(location)) and not _FRAME_LOCATION.fullmatch(location)


def is_status_failure(exception_type: str) -> bool:
    return bool(_STATUS_TYPE.fullmatch(exception_type))


def where_keyed(location: str) -> str:
    """The location as a signature keys it: an application frame as is, a frame outside the
    application by file and function (its line dropped), or that no stack is known."""
    if is_app_location(location):
        return location
    frame = _FRAME_LOCATION.fullmatch(location)
    if frame is not None:
        return f"{NO_APP_FRAME}; innermost frame {frame['file']} in {frame['function']}"
    return f"{NO_APP_FRAME}; no stack dumped" if not location else f"{NO_APP_FRAME}; {location}"


def shown_signature(signature: str, exception_type: str, location: str) -> str:
    """`signature` with its location as people read it (a frame outside the application
    with its line): for one-line messages such as SARIF's."""
    keyed, shown = where_keyed(location), where_shown(exception_type, location)
    if keyed == shown or f" at {keyed}" not in signature:
        return signature
    return signature.replace(f" at {keyed}", f" at {shown}", 1)


def where_shown(exception_type: str, location: str) -> str:
    """The location as people read it (the line of a frame outside the application kept)."""
    if is_app_location(location):
        return location
    if not location and is_status_failure(exception_type):
        return RETURNED
    if _FRAME_LOCATION.fullmatch(location):
        return f"{NO_APP_FRAME}; innermost frame {location}"
    return where_keyed(location)


# ----------------------------------------------------------------------- message shapes
#: Longest shape kept in a signature; a longer one is cut and ends in a digest of the whole.
MAX_SHAPE = 80
#: Quoted values that name a type stay: `'NoneType' object is not subscriptable`.
_TYPE_NAMES = frozenset(
    [
        "NoneType",
        "bool",
        "int",
        "float",
        "complex",
        "str",
        "bytes",
        "bytearray",
        "list",
        "tuple",
        "dict",
        "set",
        "frozenset",
        "object",
        "type",
        "function",
        "method",
        "module",
        "Decimal",
        "datetime",
        "date",
        "time",
        "timedelta",
    ]
)
#: A quoted value as `repr` writes it: escaped quotes and backslashes stay inside it, so a
#: generated string holding quotes masks as one value, not as several fragments.
_QUOTED = re.compile(
    r"""(?<![\w'"])(?:'((?:[^'\\\n]|\\.){0,400})'|"((?:[^"\\\n]|\\.){0,400})")(?![\w'"])"""
)
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_ID = re.compile(
    r"\b(?=[0-9a-fA-F-]*[0-9])(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F]{6,}(?:-[0-9a-fA-F]{2,})*\b"
)
_NUMBER = re.compile(r"(?<![A-Za-z_#\d])[-+]?\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?(?!x#)")
#: botocore's parameter errors print the value unquoted: `value: abc, type: <class 'str'>`.
_BOTO_VALUE = re.compile(r"(\bvalue: ).*?(, type: )")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _quoted(match: re.Match[str]) -> str:
    text = match.group(1) if match.group(1) is not None else match.group(2)
    if text in _TYPE_NAMES or match.string[max(0, match.start() - 7) : match.start()] == "<class ":
        return match.group(0)
    return "'…'"


def message_shape(message: str) -> str:
    """`message` with what varies between inputs masked: quoted values (except type names),
    hex, ids and numbers; whitespace collapsed.  A longer shape than `MAX_SHAPE` is cut and
    ends in a digest of the whole, so two long messages that differ late stay apart.  ""
    when nothing but masked values is left (`KeyError('id')`): such signatures stay short."""
    text = _QUOTED.sub(_quoted, message[:2000])
    text = _BOTO_VALUE.sub(r"\1…\2", text)
    text = _HEX.sub("0x#", text)
    text = _ID.sub("#", text)
    text = _NUMBER.sub("#", text)
    text = _SPACE.sub(" ", text).strip()
    if not _WORD.search(text.replace("'…'", "")):
        return ""
    if len(text) <= MAX_SHAPE:
        return text
    digest = hashlib.sha1(text.encode()).hexdigest()[:6]  # noqa: S324 - a name, not security
    return f"{text[: MAX_SHAPE - 8].rstrip()}…{digest}"
