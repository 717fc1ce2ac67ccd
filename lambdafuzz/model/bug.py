"""The bug a failure belongs to: the unit of a finding.

A failure's `signature` (`model.outcome`) tells apart everything that differs between the
inputs reaching one line: the shape of the message, the types in it.  Saved one file each,
one line's `TypeError` on `x + y + z` made eleven findings (one per pair of operand types).
A *bug* is coarser, as libFuzzer's crash state and Hypothesis' (type, location) are: the
exception type, the innermost application frame — its file, its function and the text of
its line, never the line's number, so the key survives code moving above it — and the
chained cause's type.  Deaths, hangs and failure statuses keep the key their signature
has (their detail, exit status or response shape, names what failed).  The signatures
inside one bug are its *variants*.

The function and the line's text come from the failure's formatted traceback (`File
"...", line N, in f` and the source line under it), which every saved failure carries, so
failure files written before bugs existed are grouped by the same key.
"""

from __future__ import annotations

import hashlib
import io
import re
import tokenize
from dataclasses import dataclass

from lambdafuzz.model.outcome import FailureInfo, is_app_location

#: A traceback's frame line: `  File "/abs/app/h.py", line 12, in handler`.
_FRAME = re.compile(r'^  File "(?P<path>.+)", line (?P<line>\d+), in (?P<function>.+)$')
#: The source line Python prints under a frame (four spaces in).
_SOURCE = re.compile(r"^    (?P<code>\S.*)$")


@dataclass(slots=True, frozen=True)
class AppFrame:
    """The innermost application frame of a failure, as its traceback shows it."""

    file: str  # relative, as `FailureInfo.location` names it: `app/h.py`
    line: int
    function: str
    code: str  # the line's text without its comment ("" when Python could not show it)


def app_frame(info: FailureInfo) -> AppFrame | None:
    """The frame `info.location` names, with its function and source line read from
    `info.traceback` (its last mention: a chained cause's traceback is printed first);
    None without an application frame or a traceback that shows it."""
    location = info.location
    if not is_app_location(location) or not info.traceback:
        return None
    file, _, number = location.rpartition(":")
    suffix = "/" + file.replace("\\", "/")
    lines = info.traceback.splitlines()
    found = None
    for i, text in enumerate(lines):
        match = _FRAME.match(text)
        if match is None or match["line"] != number:
            continue
        path = match["path"].replace("\\", "/")
        if path != file and not path.endswith(suffix):
            continue
        source = _SOURCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        code = _without_comment(source["code"].strip()) if source is not None else ""
        found = AppFrame(file, int(number), match["function"], code)
    return found


def _without_comment(code: str) -> str:
    """A source line without its trailing comment: editing a comment is no new bug."""
    if "#" not in code:
        return code
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                return code[: token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):  # an open bracket continued below: as is
        pass
    return code


def bug_key(info: FailureInfo) -> str:
    """What a bug is keyed by: `TypeError at app/h.py in total: return x + y + z`,
    `RuntimeError at app/h.py in save: raise RuntimeError("no") (from KeyError)`;
    deaths, hangs, statuses and failures outside the application as their signature keys
    them, without a message shape (`model.outcome`).  Without a traceback that shows the
    frame's line, the frame is keyed by its number, as a signature does."""
    kind = f"{info.exception_type} {info.detail}" if info.detail else info.exception_type
    frame = app_frame(info) if not info.function else None
    if frame is not None and frame.code:
        where = f" at {frame.file} in {frame.function}: {frame.code}"
    else:
        where = info.where_key()
    key = f"{kind}{where}"
    return f"{key} (from {info.cause})" if info.cause else key


def bug_fingerprint(key: str) -> str:
    """A stable id of a bug (SARIF's partial fingerprint): its key holds no line number."""
    return hashlib.sha256(key.encode()).hexdigest()
