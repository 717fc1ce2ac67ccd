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
* `Status500 {error,message} at ?` — a failure status with the shape of the response;
* `WorkerDied SIGSEGV at app/h.py:7`, `WorkerDied exit 3 at app/h.py:20` — a dead worker
  by signal or exit status, located by the dump taken in the worker;
* `Hang at app/h.py:15` — a test past its timeout, located by the stack dumped before the
  worker was killed.
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
    location: str  # innermost application frame as "file:line", or "" when unknown
    cause: str = ""  # type of the chained cause, for re-raised generic exceptions
    detail: str = ""  # exit code, signal or response shape: shown after the type
    shape: str = ""  # the message with its values masked (`message_shape`), or ""

    @property
    def site(self) -> str:
        """Type, location and cause: what every shape of one failure shares."""
        sig = f"{self.exception_type} at {self.location or '?'}"
        return f"{sig} (from {self.cause})" if self.cause else sig

    @property
    def signature(self) -> str:
        kind = f"{self.exception_type} {self.detail}" if self.detail else self.exception_type
        sig = f"{kind} at {self.location or '?'}"
        if self.cause:
            sig += f" (from {self.cause})"
        return f"{sig}: {self.shape}" if self.shape else sig

    def generalized(self) -> FailureInfo:
        """The same failure with its detail and shape replaced by `OTHER`: what a campaign
        keys failures by once one site has produced too many shapes (values in a message
        that masking cannot recognise must not make every input a new failure)."""
        return replace(self, detail=OTHER if self.detail else "", shape=OTHER if self.shape else "")


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
_QUOTED = re.compile(r"""(?<![\w'"])(?:'([^'\n]{0,400})'|"([^"\n]{0,400})")(?![\w'"])""")
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
