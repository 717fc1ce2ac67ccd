"""Plain-text rendering of an analysis for `lambdafuzz analyze` (JSON is `to_json`)."""

from __future__ import annotations

import os

from .model import AnalysisResult, CodeTarget

MAX_TYPES_SHOWN = 6


def render_text(result: AnalysisResult, *, root: str | None = None, constants: bool = True) -> str:
    """Targets with types and distances, the unified table, constants, the match report.

    Both arms of a branch share their types, so a branch is printed once with its arms.
    Paths are shown relative to `root` (default: the common directory of the files).
    `constants=False` leaves the constants out (`lambdafuzz analyze` prints the strategy's
    whole harvest instead).
    """
    base = root or _common_dir(result.files)
    lines: list[str] = []
    dependent = sum(t.input_dependent for t in result.targets)
    cached = " (cached)" if result.from_cache else ""
    lines.append(
        f"lambdafuzz analysis: {len(result.files)} files, {len(result.targets)} code targets "
        f"({dependent} input-dependent), handler {result.handler or '?'}, "
        f"{result.elapsed_s:.2f} s{cached}"
    )
    lines.append("")
    lines.append("Code targets (arms; * = input-dependent; type@distance, nearest first)")
    for group in _branches(result.targets):
        t = group[0]
        arms = ",".join(x.arm for x in group)
        flag = "*" if t.input_dependent else " "
        where = f"{_rel(t.file, base)}:{t.line}"
        shown = ", ".join(f"{x.label}@{x.distance}" for x in t.types[:MAX_TYPES_SHOWN])
        if len(t.types) > MAX_TYPES_SHOWN:
            shown += f", +{len(t.types) - MAX_TYPES_SHOWN}"
        lines.append(f" {flag} {where:<28} {t.kind.value:<13} [{arms}] {t.condition}")
        lines.append(f"      {shown or '(no influencing types)'}")
    lines.append("")
    lines.append("Unified type distances (label, distance, targets influenced)")
    for u in result.unified:
        lines.append(f"  {u.label:<28} {u.distance:>4}  {u.targets:>4}")
    if not result.unified:
        lines.append("  (none)")
    if constants:
        lines.append("")
        strings = [repr(c) for c in result.constants]
        lines.append(f"Constant strings ({len(strings)}): " + (", ".join(strings) or "(none)"))
        if result.numeric_constants:
            numbers = ", ".join(repr(c) for c in result.numeric_constants)
            lines.append(f"Numeric constants ({len(result.numeric_constants)}): {numbers}")
    lines.append("")
    m = result.match
    lines.append(
        f"Match report: {m.matched}/{m.total} input-dependent targets "
        f"({m.percent:.1f}%) have an influencing type a generator produces"
    )
    for tid in m.unmatched:
        t = result.target(tid)
        lines.append(f"  unmatched: {_rel(t.file, base)}:{t.line} {t.kind.value} [{t.arm}]")
    return "\n".join(lines) + "\n"


def _branches(targets: tuple[CodeTarget, ...]) -> list[list[CodeTarget]]:
    groups: dict[tuple, list[CodeTarget]] = {}
    for t in targets:
        key = (t.file, t.line, t.id.rsplit(":", 1)[0])
        groups.setdefault(key, []).append(t)
    return list(groups.values())


def _common_dir(files: tuple[str, ...]) -> str:
    if not files:
        return ""
    try:
        return (
            os.path.dirname(os.path.commonpath(files))
            if len(files) == 1
            else os.path.commonpath(files)
        )
    except ValueError:
        return ""


def _rel(path: str, base: str) -> str:
    if base and path.startswith(base):
        return path[len(base) :].lstrip(os.sep)
    return path
