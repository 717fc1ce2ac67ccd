"""Score one campaign's out dir against a handler's known bugs (issue 42).

Every file of `failures/` and `handled/` is one bug lambdafuzz found (`lambdafuzz.fuzzer.bugs`):
its `failure` record names the exception (`exception_type`, a botocore error's code in its
message), the innermost application frame (`location` `dir/file.py:LINE`, with the
function and the line's text read from the `traceback` under that frame, as
`lambdafuzz.model.bug.app_frame` reads them; else parsed from the `bug` key `EXC at FILE
in FUNC: CODE`), and, in `variants`, every signature with its `first_exec` and
`first_time_s` (the minimum is when the bug was first found).  A known bug is FOUND when a
finding of its kind (`failure` / `handled`) matches its exception and frame
(`KnownBug.matches`); findings that match no known bug are looked up in the judgements
(`{"handlers": {id: {bug key: {"verdict", "bug", "evidence"}}}}`).

A handler that catches an error and raises another (`raise Exception(...) from e`, or a
new exception inside `except`) fails with one bug key whatever it caught; the caught
exceptions are the chained blocks of each variant's traceback.  Each such block's exception
at its innermost application frame is a *cause* of the finding, and a known bug of kind
`handled` (raised in the handler's code and caught there) matches a cause too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from realworld_apps import Handler, KnownBug
from realworld_invoke import without_comment

FRAME = re.compile(r'^  File "(?P<path>.+)", line (?P<line>\d+), in (?P<function>.+)$')
BUG_KEY = re.compile(r"^(?P<exception>\S+) at (?P<file>.+?) in (?P<function>\S+): (?P<code>.*)$")
CAUSE = re.compile(r" \(from [\w.]+\)$")
#: The line under a traceback's frames: `KeyError: 'x'`, `botocore.errorfactory.NoSuchKey: ...`.
RAISED = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::|$)")
#: What separates the blocks of a chained exception's traceback.
CHAINED = re.compile(
    r"\n\n(?:The above exception was the direct cause of the following exception|"
    r"During handling of the above exception, another exception occurred):\n\n"
)


@dataclass(slots=True, frozen=True)
class Cause:
    """A caught exception chained under a finding: its type, AWS error code and frame."""

    exception: str
    error_code: str
    file: str
    function: str
    code: str
    first_exec: int
    first_time_s: float


ERROR_CODE = re.compile(r"An error occurred \((?P<code>[^)]+)\) when calling")


@dataclass(slots=True)
class Finding:
    kind: str  # failure | handled
    file: str  # the out dir's file name
    key: str  # the bug key lambdafuzz gave it
    exception: str
    error_code: str
    frame_file: str
    function: str
    code: str
    first_exec: int
    first_time_s: float
    hits: int
    causes: list[Cause] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)  # known bug ids
    verdict: str = ""  # real | artefact | UNJUDGED, for findings matching no known bug
    judged_bug: str = ""
    evidence: str = ""


@dataclass(slots=True)
class BugScore:
    bug: str
    bug_class: str
    kind: str
    found: bool
    first_exec: int | None
    first_time_s: float | None


@dataclass(slots=True)
class Score:
    handler: str
    stats: dict[str, Any]
    bugs: list[BugScore]
    findings: list[Finding]

    def found(self) -> int:
        return sum(b.found for b in self.bugs)

    def unmatched(self) -> list[Finding]:
        return [f for f in self.findings if not f.matches]


def _frame(record: dict[str, Any]) -> tuple[str, str, str]:
    """(file, function, code) of the innermost application frame, "" where unknown."""
    location = str(record.get("location") or "")
    file, _, number = location.rpartition(":")
    lines = str(record.get("traceback") or "").splitlines()
    found = None
    if file and number.isdigit():
        suffix = "/" + file
        for index, text in enumerate(lines):
            match = FRAME.match(text)
            if not match or match["line"] != number:
                continue
            path = match["path"].replace("\\", "/")
            if path != file and not path.endswith(suffix):
                continue
            source = lines[index + 1] if index + 1 < len(lines) else ""
            code = without_comment(source.strip()) if source.startswith("    ") else ""
            found = (file, match["function"], code)
    if found and found[2]:
        return found
    parsed = BUG_KEY.match(CAUSE.sub("", str(record.get("bug") or "")))
    if parsed:
        return parsed["file"], parsed["function"], parsed["code"]
    return found or (file, "", "")


def causes_of(record: dict[str, Any], app_file: str) -> list[Cause]:
    """The chained blocks of `record`'s traceback before its last: each block's exception
    at its innermost frame under the application's root (found from `app_file`, the
    outer failure's relative file, as its traceback names it absolutely)."""
    blocks = CHAINED.split(str(record.get("traceback") or ""))
    if len(blocks) < 2 or not app_file:
        return []
    root = ""
    for text in blocks[-1].splitlines():
        match = FRAME.match(text)
        if match and match["path"].replace("\\", "/").endswith("/" + app_file):
            root = match["path"].replace("\\", "/")[: -len(app_file)]
    if not root:
        return []
    found = []
    for block in blocks[:-1]:
        lines = block.splitlines()
        frame = None
        for index, text in enumerate(lines):
            match = FRAME.match(text)
            path = match["path"].replace("\\", "/") if match else ""
            if match and path.startswith(root) and "/site-packages/" not in path:
                source = lines[index + 1] if index + 1 < len(lines) else ""
                code = without_comment(source.strip()) if source.startswith("    ") else ""
                frame = (path[len(root) :], match["function"], code)
        raised = next((RAISED.match(t) for t in reversed(lines) if RAISED.match(t)), None)
        if frame is None or raised is None:
            continue
        error = ERROR_CODE.search(block)
        found.append(
            Cause(
                raised["type"],
                error["code"] if error else "",
                *frame,
                int(record.get("first_exec") or 0),
                float(record.get("first_time_s") or 0.0),
            )
        )
    return found


def read_finding(path: Path, kind: str) -> Finding:
    data = json.loads(path.read_text(encoding="utf-8"))
    record = data.get("failure") or data.get("handled") or {}
    variants = [v.get("record") or {} for v in record.get("variants") or []] or [record]
    file, function, code = _frame(record)
    error = ERROR_CODE.search(str(record.get("message") or ""))
    return Finding(
        kind=kind,
        file=path.name,
        key=str(record.get("bug") or record.get("signature") or path.stem),
        exception=str(record.get("exception_type") or record.get("status") or ""),
        error_code=error["code"] if error else "",
        frame_file=file,
        function=function,
        code=code,
        first_exec=min(int(v.get("first_exec") or 0) for v in variants),
        first_time_s=min(float(v.get("first_time_s") or 0.0) for v in variants),
        hits=int(record.get("bug_hits") or record.get("hits") or 0),
        causes=[c for v in variants for c in causes_of(v, _frame(v)[0] or file)],
    )


def read_findings(out_dir: Path) -> list[Finding]:
    found = []
    for kind, folder in (("failure", "failures"), ("handled", "handled")):
        for path in sorted((out_dir / folder).glob("*.json")):
            if path.name.endswith(".min.json"):
                continue
            found.append(read_finding(path, kind))
    return found


def _is(bug: KnownBug, finding: Finding) -> bool:
    return finding.kind == bug.kind and bug.matches(
        finding.exception, finding.error_code, finding.frame_file, finding.function, finding.code
    )


def _first_cause(bug: KnownBug, finding: Finding) -> Cause | None:
    """The earliest cause of `finding` that is `bug` (a `handled` bug only)."""
    if bug.kind != "handled":
        return None
    hits = [
        c
        for c in finding.causes
        if bug.matches(c.exception, c.error_code, c.file, c.function, c.code)
    ]
    return min(hits, key=lambda c: c.first_exec) if hits else None


def score(handler: Handler, out_dir: Path, judgements: dict[str, Any]) -> Score:
    stats_path = out_dir / "stats.json"
    stats = json.loads(stats_path.read_text("utf-8")) if stats_path.is_file() else {}
    findings = read_findings(out_dir) if out_dir.is_dir() else []
    bugs = []
    for bug in handler.bugs:
        firsts: list[tuple[int, float]] = []
        for finding in findings:
            cause = None if _is(bug, finding) else _first_cause(bug, finding)
            if cause is None and not _is(bug, finding):
                continue
            finding.matches.append(bug.id)
            source = cause or finding
            firsts.append((source.first_exec, source.first_time_s))
        first = min(firsts) if firsts else None
        bugs.append(
            BugScore(
                bug=bug.id,
                bug_class=bug.bug_class,
                kind=bug.kind,
                found=first is not None,
                first_exec=first[0] if first else None,
                first_time_s=first[1] if first else None,
            )
        )
    verdicts = (judgements.get("handlers") or {}).get(handler.id) or {}
    for finding in findings:
        if finding.matches:
            continue
        entry = verdicts.get(finding.key)
        finding.verdict = entry["verdict"] if entry else "UNJUDGED"
        if entry:
            finding.judged_bug = entry.get("bug", "")
            finding.evidence = entry.get("evidence", "")
    return Score(handler.id, stats, bugs, findings)
