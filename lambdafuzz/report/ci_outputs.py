"""A campaign's failures as the files CI systems read: JUnit XML and SARIF 2.1.0.

JUnit follows the Ant/Jenkins layout (testsuites > testsuite > properties, testcase*,
system-out, system-err), one testcase per bug (`fuzzer.bugs`: its variants, the message
shapes and types it was seen with, are listed in its text), so a CI test tab lists each bug
once however often and however differently it recurred; a campaign without failures is one passing testcase that
summarises it (a suite with no testcase reads as "no tests ran" in most CI systems).
SARIF places each failure at its innermost application frame, relative to the repository
root (the git top level above the handler, or `--sarif-root`), so code scanning annotates
the line that raised, one result per bug; JUnit testcases carry the same `file` and
`line`.  A failure's fingerprint hashes its bug's key (`model.bug`: the exception type, the
enclosing function and the text of the line, the chained cause; never a line number), so an
unrelated edit above it keeps the alert, and no two results of a log share one.

Cost findings (`cost/`: an input past a duration, AWS call or memory budget) are warnings,
not failures: a JUnit testcase that passes and says so on its `system-err`, a SARIF result
of level `warning` at the handler's definition.  Handled exceptions (`handled/`: raised and
caught by the application, see `harness.handled`) are warnings too, placed where they were
raised: a passing JUnit testcase with the exception on its `system-err`, a SARIF result of
level `warning` under the rule `handled/<type>`.

The deployment oracles' findings (`permissions/`, `idempotency/`, `batch/`: what production
would do differently from the test, `model.oracle`) are failures: a failing JUnit testcase
in the class `<suite>.<kind>` with the finding's evidence, a SARIF result of level `error`
under the rule `<kind>/<type>` (`permissions/AccessDenied`) at the application line that
made the call.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdafuzz import __version__
from lambdafuzz.config.campaign import reproduce_command
from lambdafuzz.fuzzer.out_dir import CampaignDir, CostEntry, FailureEntry, read_campaign_dir
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.model.bug import bug_fingerprint
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.outcome import is_app_location, shown_signature
from lambdafuzz.model.target import Target, definition_line, handler_path

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "SRCROOT"
#: XML 1.0 forbids most control characters even escaped; fuzzed messages contain them.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _XML_ILLEGAL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _stats(c: CampaignDir) -> Stats:
    """stats.json, or zeros for a campaign that never wrote one."""
    return c.stats if c.stats is not None else Stats.from_json({})


def _summary(c: CampaignDir) -> str:
    s = _stats(c)
    return (
        f"lambdafuzz {s.strategy or '?'} campaign (seed {s.seed}) on {c.handler}: "
        f"{s.execs} executions in {s.elapsed_s} s, "
        f"branches {s.app_branches_covered}/{s.app_branches_total}, "
        f"corpus {s.corpus_size}, failures: {_bugs(c.failures)}"
        + (f", handled exceptions: {_bugs(c.handled)}" if c.handled else "")
        + "".join(f", {kind.title}s: {len(found)}" for kind, found in c.findings)
    )


def _bugs(entries: tuple[FailureEntry, ...]) -> str:
    """ "9 bugs, 23 variants"."""
    variants = sum(max(1, len(e.variants)) for e in entries)
    text = f"{len(entries)} bug{'' if len(entries) == 1 else 's'}"
    return f"{text}, {variants} variants" if variants > len(entries) else text


def _variants_text(entry: FailureEntry) -> str:
    """The variants of a bug, one line each ("" for a bug seen one way only)."""
    if len(entry.variants) < 2:
        return ""
    lines = [f"{len(entry.variants)} variants:"]
    for v in entry.variants:
        lines.append(
            f"  {v.name}: {v.signature} ({v.record.hits} hit{'s' if v.record.hits != 1 else ''}, "
            f"first at execution {v.record.first_exec})"
        )
    return "\n".join(lines) + "\n"


def _reproduce(c: CampaignDir, entry: FailureEntry) -> str:
    repro = reproduce_command(c, entry.path)
    return f"Reproduce: {repro}\nMinimize:  {reproduce_command(c, entry.path, 'minimize')}"


def _cost_text(entry: CostEntry) -> str:
    finding = entry.finding
    return (
        f"cost finding {finding.headline()}; {finding.measures.describe()}; "
        f"{finding.hits} input(s) past the budget"
    )


def _reproduce_cost(c: CampaignDir, entry: CostEntry) -> str:
    return f"Reproduce: {reproduce_command(c, entry.path)}"


def _handled_text(entry: FailureEntry) -> str:
    """One line: what the application caught, where it was raised and caught."""
    record = entry.record
    text = f"{entry.exception_type}: {entry.message}" if entry.message else entry.exception_type
    return (
        f"handled exception {text} (raised at {record.info.where}, caught at "
        f"{record.caught_at}; {entry.hits} hit{'s' if entry.hits != 1 else ''})"
    )


def _finding_text(c: CampaignDir, kind: OracleKind, entry: FailureEntry) -> str:
    """A deployment oracle's finding: what, where, its evidence, the call's stack."""
    record = entry.record
    hits = f"{entry.hits} test{'s' if entry.hits != 1 else ''}"
    return (
        f"{kind.title}: {entry.message} (at {record.info.where}; {hits})\n"
        f"{record.evidence}\n\n{entry.traceback}\n"
        f"Reproduce: {reproduce_command(c, entry.path)}\n"
    )


# =========================================================================== JUnit
def junit_tree(
    out_dir: Path | str, target: Target | None = None, *, uri_base: Path | None = None
) -> ET.ElementTree:
    """The campaign as JUnit XML; with the `target`, each failure's testcase names its
    `file` (relative to the repository root, as in SARIF) and `line`."""
    c = read_campaign_dir(out_dir)
    base = uri_base_for(target, uri_base) if target is not None else None
    elapsed = f"{_stats(c).elapsed_s:.3f}"
    suite_name = f"lambdafuzz.{c.handler}"
    found = sum(len(entries) for _, entries in c.findings)
    tests = max(1, len(c.failures)) + len(c.cost) + len(c.handled) + found
    stamp_source = Path(out_dir) / "stats.json"
    mtime = stamp_source.stat().st_mtime if stamp_source.is_file() else time.time()
    root = ET.Element(
        "testsuites",
        name="lambdafuzz",
        tests=str(tests),
        failures=str(len(c.failures) + found),
        errors="0",
        time=elapsed,
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        package="lambdafuzz",
        id="0",
        name=suite_name,
        timestamp=time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(mtime)),
        hostname=socket.gethostname() or "localhost",
        tests=str(tests),
        failures=str(len(c.failures) + found),
        errors="0",
        skipped="0",
        time=elapsed,
    )
    properties = ET.SubElement(suite, "properties")
    for key in (
        "strategy",
        "seed",
        "execs",
        "app_branches_covered",
        "app_branches_total",
        "corpus_size",
    ):
        if c.stats is not None:
            ET.SubElement(properties, "property", name=key, value=str(getattr(c.stats, key)))
    if c.meta is not None and c.meta.config:
        ET.SubElement(properties, "property", name="config", value=c.meta.config_shown(c.path))
    for entry in c.failures:
        case = _case(suite, entry.title, suite_name, entry, target, base)
        failure = ET.SubElement(
            case,
            "failure",
            message=_xml_text(f"{entry.exception_type}: {entry.message}"[:1000]),
            type=_xml_text(entry.exception_type),
        )
        label = entry.record.world_inconsistency
        failure.text = _xml_text(
            f"{entry.title} ({entry.hits} hit{'s' if entry.hits != 1 else ''})\n"
            + _variants_text(entry)
            + (f"{label}\n" if label else "")
            + "\n"
            f"{entry.traceback}\n{_reproduce(c, entry)}\n"
        )
    if not c.failures:
        case = ET.SubElement(suite, "testcase", name="campaign", classname=suite_name, time=elapsed)
        ET.SubElement(case, "system-out").text = _xml_text(_summary(c))
    for cost in c.cost:  # warnings: passing testcases that say what they cost
        case = ET.SubElement(
            suite,
            "testcase",
            name=_xml_text(f"cost: {cost.finding.measure.value}"),
            classname=f"{suite_name}.cost",
            time=f"{cost.finding.measures.duration_ms / 1000.0:.3f}",
        )
        if target is not None and base is not None:
            where = _handler_location(target)
            case.set("file", where.uri(base))
            case.set("line", str(where.line))
        ET.SubElement(case, "system-err").text = _xml_text(
            f"warning: {_cost_text(cost)}\n{_reproduce_cost(c, cost)}\n"
        )
    for entry in c.handled:  # warnings: passing testcases that show the caught exception
        case = _case(suite, f"handled: {entry.title}", f"{suite_name}.handled", entry, target, base)
        ET.SubElement(case, "system-err").text = _xml_text(
            f"warning: {_handled_text(entry)}\n\n{entry.traceback}\n"
            f"Reproduce: {reproduce_command(c, entry.path)}\n"
        )
    for kind, entries in c.findings:  # failures: what production would do differently
        for entry in entries:
            name = f"{kind.value}: {entry.message}"[:300]
            case = _case(suite, name, f"{suite_name}.{kind.value}", entry, target, base)
            failure = ET.SubElement(
                case,
                "failure",
                message=_xml_text(f"{kind.title}: {entry.message}"[:1000]),
                type=_xml_text(f"{kind.value}/{entry.exception_type}"),
            )
            failure.text = _xml_text(_finding_text(c, kind, entry))
    ET.SubElement(suite, "system-out").text = _xml_text(_summary(c))
    ET.SubElement(suite, "system-err").text = _xml_text("\n".join(c.problems))
    ET.indent(root)
    return ET.ElementTree(root)


def _case(
    suite: ET.Element,
    name: str,
    classname: str,
    entry: FailureEntry,
    target: Target | None,
    base: Path | None,
) -> ET.Element:
    """A testcase for a saved bug or finding, with its `file` and `line` when the target
    is known."""
    case = ET.SubElement(suite, "testcase", name=_xml_text(name), classname=classname, time="0")
    if target is not None and base is not None:
        where = failure_location(entry, target)
        case.set("file", where.uri(base))
        case.set("line", str(where.line))
    return case


def write_junit(
    out_dir: Path | str,
    path: Path | str,
    target: Target | None = None,
    *,
    uri_base: Path | None = None,
) -> Path:
    """Write the campaign in `out_dir` as JUnit XML to `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    junit_tree(out_dir, target, uri_base=uri_base).write(
        path, encoding="utf-8", xml_declaration=True
    )
    return path


# =========================================================================== locations
@dataclass(slots=True, frozen=True)
class SourceLocation:
    """Where a failure is shown: a file (absolute), its line, and the enclosing function."""

    path: Path
    line: int
    function: str
    text: str  # the line's text, stripped: what the fingerprint hashes

    def uri(self, base: Path) -> str:
        return Path(os.path.relpath(self.path, base)).as_posix()


def repository_root(start: Path) -> Path | None:
    """The git top level holding `start` (a `.git` directory or file), if any."""
    for folder in [start.resolve(), *start.resolve().parents]:
        if (folder / ".git").exists():
            return folder
    return None


def uri_base_for(target: Target, uri_base: Path | None = None) -> Path:
    """What SARIF and JUnit paths are relative to: `uri_base` when given, else the
    repository root above the handler, else the handler's root."""
    if uri_base is not None:
        return Path(uri_base).resolve()
    return repository_root(target.root) or target.root.resolve()


def failure_location(entry: FailureEntry, target: Target) -> SourceLocation:
    """The innermost application frame of a failure; the handler's `def` line for failures
    without one (hangs, dead workers, failure status codes)."""
    found = _frame_location(entry.location, target) if is_app_location(entry.location) else None
    return found or _handler_location(target)


def _frame_location(location: str, target: Target) -> SourceLocation | None:
    """ "pkg/file.py:31" (relative to an app dir's parent) -> its SourceLocation."""
    from lambdafuzz.model.target import app_dirs

    file, sep, line = location.rpartition(":")
    if not sep or not line.isdigit():
        return None
    for app_dir in app_dirs(target):
        candidate = Path(os.path.dirname(app_dir)) / file
        if candidate.is_file():
            return _describe_line(candidate.resolve(), int(line))
    return None


def _handler_location(target: Target) -> SourceLocation:
    path = handler_path(target)
    line = definition_line(path, target.handler_function) or 1
    return _describe_line(path.resolve(), line)


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


_DEF = re.compile(r"(\s*)(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)")


def _describe_line(path: Path, line: int) -> SourceLocation:
    """The line's text and the innermost `def`/`class` enclosing it (by indentation)."""
    lines = _lines(path)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    indent = len(text) - len(text.lstrip())
    names = []
    for above in reversed(lines[: max(0, line - 1)]):
        found = _DEF.match(above)
        if found and len(found.group(1)) < indent and above.strip():
            names.append(found.group(2))
            indent = len(found.group(1))
            if indent == 0:
                break
    return SourceLocation(path, max(1, line), ".".join(reversed(names)) or "<module>", text.strip())


def fingerprint(entry: FailureEntry, where: SourceLocation, kind: str = "") -> str:
    """Stable under edits elsewhere in the file: the bug's key (what failed, in which
    function, on which code, from which cause; never a line number), or for a file without
    one, the type, function and text of the line shown."""
    if entry.key:
        return bug_fingerprint(f"{kind}{entry.key}")
    key = "\x1f".join((entry.exception_type, where.path.name, where.function, where.text))
    return hashlib.sha256(key.encode()).hexdigest()


def _unique(fingerprint: str, taken: set[str]) -> str:
    """`fingerprint`, told apart from one already in the log (two bugs whose keys cannot
    tell them apart) by the order they come in."""
    found, n = fingerprint, 1
    while found in taken:
        n += 1
        found = hashlib.sha256(f"{fingerprint}#{n}".encode()).hexdigest()
    taken.add(found)
    return found


def _kind(entry: FailureEntry) -> str:
    """The failure kind a SARIF rule describes."""
    name = entry.exception_type
    if name == "Hang":
        return "a hang (the handler ran past its timeout)"
    if name.startswith("WorkerDied") or name.startswith("Signal") or name.startswith("Exit"):
        return "a crash of the handler's process"
    if name.startswith("Status"):
        return f"a failure status code ({name.removeprefix('Status')})"
    return f"an uncaught {name}"


# =========================================================================== SARIF
def sarif_log(
    out_dir: Path | str, target: Target, *, uri_base: Path | None = None
) -> dict[str, Any]:
    """The SARIF log of a campaign; artifact URIs are relative to `uri_base` (the target's
    root by default), which `originalUriBaseIds.SRCROOT` records as an absolute URI."""
    c = read_campaign_dir(out_dir)
    base = uri_base_for(target, uri_base)
    rules: list[dict[str, Any]] = []
    rule_index: dict[str, int] = {}
    results = []
    taken: set[str] = set()  # fingerprints in the log
    for entry in c.failures:
        rule_id = entry.exception_type
        if rule_id not in rule_index:
            rule_index[rule_id] = len(rules)
            rules.append(
                {
                    "id": rule_id,
                    "name": re.sub(r"[^A-Za-z0-9]", "", rule_id.rpartition(".")[2]) or "Failure",
                    "shortDescription": {"text": f"The handler ends in {_kind(entry)}"},
                    "fullDescription": {
                        "text": f"lambdafuzz generated an AWS world and event on which the "
                        f"handler {c.handler} ends in {_kind(entry)}."
                    },
                    "defaultConfiguration": {"level": "error"},
                    "help": {
                        "text": "Replay the saved input with `lambdafuzz repro FILE` to debug it."
                    },
                    "properties": {"tags": ["fuzzing", "reliability"]},
                }
            )
        where = failure_location(entry, target)
        # a failure without an application frame says so, with its innermost frame's line
        # (the location is then the handler's definition)
        headline = shown_signature(entry.title, entry.exception_type, entry.location)
        message = f"{headline}: {entry.message}" if entry.message else headline
        if len(entry.variants) > 1:
            message += f" ({len(entry.variants)} variants: {entry.hits} hits in all)"
        if entry.record.world_inconsistency:
            message += f" ({entry.record.world_inconsistency})"
        results.append(
            {
                "ruleId": rule_id,
                "ruleIndex": rule_index[rule_id],
                "level": "error",
                "message": {"text": message[:2000]},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": where.uri(base), "uriBaseId": SRCROOT},
                            "region": {"startLine": where.line},
                        }
                    }
                ],
                "partialFingerprints": {
                    "lambdafuzzFailure/v3": _unique(fingerprint(entry, where), taken)
                },
                "properties": {
                    "bug": entry.title,
                    "signature": entry.signature,
                    "variants": [
                        {"name": v.name, "signature": v.signature, "hits": v.record.hits}
                        for v in entry.variants
                    ],
                    "function": where.function,
                    "hits": entry.hits,
                    "reproducer": str(entry.path),
                    "reproduce": reproduce_command(c, entry.path),
                },
            }
        )
    for cost in c.cost:
        finding = cost.finding
        rule_id = f"cost/{finding.measure.value}"
        if rule_id not in rule_index:
            rule_index[rule_id] = len(rules)
            rules.append(
                {
                    "id": rule_id,
                    "name": "Cost" + finding.measure.value.title().replace("_", ""),
                    "shortDescription": {
                        "text": f"An input makes the handler exceed its {finding.measure.value} "
                        "budget"
                    },
                    "fullDescription": {
                        "text": f"lambdafuzz generated an AWS world and event on which the "
                        f"handler {c.handler} goes past its {finding.measure.value} budget "
                        "(billed time, throttling, memory): a cost finding, not a failure."
                    },
                    "defaultConfiguration": {"level": "warning"},
                    "help": {
                        "text": "Replay the saved input with `lambdafuzz repro FILE` to see "
                        "its measures."
                    },
                    "properties": {"tags": ["fuzzing", "performance", "cost"]},
                }
            )
        where = _handler_location(target)
        key = "\x1f".join((rule_id, where.path.name, where.function))
        results.append(
            {
                "ruleId": rule_id,
                "ruleIndex": rule_index[rule_id],
                "level": "warning",
                "message": {"text": _cost_text(cost)[:2000]},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": where.uri(base), "uriBaseId": SRCROOT},
                            "region": {"startLine": where.line},
                        }
                    }
                ],
                "partialFingerprints": {
                    "lambdafuzzCost/v1": hashlib.sha256(key.encode()).hexdigest()
                },
                "properties": {
                    "measure": finding.measure.value,
                    "value": finding.value,
                    "budget": finding.budget,
                    "measures": finding.measures.to_json(),
                    "reproducer": str(cost.path),
                    "reproduce": reproduce_command(c, cost.path),
                },
            }
        )
    for entry in c.handled:
        rule_id = f"handled/{entry.exception_type}"
        if rule_id not in rule_index:
            rule_index[rule_id] = len(rules)
            rules.append(
                {
                    "id": rule_id,
                    "name": "Handled"
                    + (re.sub(r"[^A-Za-z0-9]", "", entry.exception_type.rpartition(".")[2])),
                    "shortDescription": {
                        "text": f"The handler catches a {entry.exception_type} its own code raised"
                    },
                    "fullDescription": {
                        "text": f"lambdafuzz generated an AWS world and event on which the "
                        f"handler {c.handler} raises {entry.exception_type} and catches it "
                        "itself (a swallowed exception: logged or ignored, not a failure)."
                    },
                    "defaultConfiguration": {"level": "warning"},
                    "help": {
                        "text": "Replay the saved input with `lambdafuzz repro FILE` to see "
                        "where the exception was raised and caught."
                    },
                    "properties": {"tags": ["fuzzing", "reliability", "handled-exception"]},
                }
            )
        where = failure_location(entry, target)
        results.append(
            {
                "ruleId": rule_id,
                "ruleIndex": rule_index[rule_id],
                "level": "warning",
                "message": {"text": _handled_text(entry)[:2000]},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": where.uri(base), "uriBaseId": SRCROOT},
                            "region": {"startLine": where.line},
                        }
                    }
                ],
                "partialFingerprints": {
                    "lambdafuzzHandled/v2": _unique(fingerprint(entry, where, "handled: "), taken)
                },
                "properties": {
                    "bug": entry.title,
                    "signature": entry.signature,
                    "caught_at": entry.record.caught_at,
                    "function": where.function,
                    "hits": entry.hits,
                    "reproducer": str(entry.path),
                    "reproduce": reproduce_command(c, entry.path),
                },
            }
        )
    for kind, entries in c.findings:
        for entry in entries:
            rule_id = f"{kind.value}/{entry.exception_type}"
            if rule_id not in rule_index:
                rule_index[rule_id] = len(rules)
                rules.append(_finding_rule(rule_id, kind, c.handler))
            where = failure_location(entry, target)
            results.append(
                {
                    "ruleId": rule_id,
                    "ruleIndex": rule_index[rule_id],
                    "level": "error",
                    "message": {
                        "text": f"{kind.title}: {entry.message}\n{entry.record.evidence}"[:2000]
                    },
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": where.uri(base), "uriBaseId": SRCROOT},
                                "region": {"startLine": where.line},
                            }
                        }
                    ],
                    "partialFingerprints": {
                        "lambdafuzzFinding/v1": _unique(
                            fingerprint(entry, where, f"{kind.value}: "), taken
                        )
                    },
                    "properties": {
                        "bug": entry.title,
                        "signature": entry.signature,
                        "evidence": entry.record.evidence,
                        "function": where.function,
                        "hits": entry.hits,
                        "reproducer": str(entry.path),
                        "reproduce": reproduce_command(c, entry.path),
                    },
                }
            )
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "lambdafuzz",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri() + "/"}},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": [
                            {"message": {"text": problem}, "level": "warning"}
                            for problem in c.problems
                        ],
                    }
                ],
                "results": results,
                "properties": {
                    "summary": _summary(c),
                    "stats": c.stats.to_json() if c.stats else {},
                },
            }
        ],
    }


def write_sarif(
    out_dir: Path | str, path: Path | str, target: Target, *, uri_base: Path | None = None
) -> Path:
    """Write the campaign in `out_dir` as a SARIF 2.1.0 log to `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = sarif_log(out_dir, target, uri_base=uri_base)
    path.write_text(json.dumps(data, indent=1, default=repr) + "\n", encoding="utf-8")
    return path


#: What each deployment oracle's SARIF rule says (`model.oracle.OracleKind`).
_FINDING_RULES = {
    OracleKind.PERMISSIONS: (
        "The handler makes an AWS call its function's role does not allow",
        "lambdafuzz generated an AWS world and event on which the handler {handler} makes "
        "an AWS call that no statement of its role allows: in production the call fails "
        "with AccessDenied. The finding names the call, the statement that would allow it, "
        "and the input that reaches it.",
        "Grant the permission (the finding shows a least-privilege statement) or remove the "
        "call; `lambdafuzz repro FILE` replays the input and shows the call again.",
    ),
    OracleKind.IDEMPOTENCY: (
        "A second delivery of the same event changes the AWS world again",
        "AWS delivers the events of the handler {handler} at least once; lambdafuzz "
        "delivered one twice and the second delivery changed the world in a way the first "
        "did not predict (a duplicate item, a second message).",
        "Make the handler idempotent (Powertools' @idempotent, a conditional write keyed "
        "by the event's id); `lambdafuzz repro FILE` shows both changes.",
    ),
    OracleKind.BATCH: (
        "The handler's partial batch response is wrong",
        "Lambda reads the batchItemFailures response of the handler {handler} to decide "
        "which records to retry; lambdafuzz found a response Lambda would read wrongly "
        "(an id not in the batch, a malformed response, a record's error swallowed).",
        "Report every failed record's id, and only those; `lambdafuzz repro FILE` shows "
        "the batch and the response.",
    ),
}


def _finding_rule(rule_id: str, kind: OracleKind, handler: str) -> dict[str, Any]:
    short, full, help_text = _FINDING_RULES[kind]
    return {
        "id": rule_id,
        "name": "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", rule_id)),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full.format(handler=handler)},
        "defaultConfiguration": {"level": "error"},
        "help": {"text": help_text},
        "properties": {"tags": ["fuzzing", "reliability", "deployment", kind.value]},
    }
