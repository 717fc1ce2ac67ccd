"""Markdown tables and the number formats the report uses."""

from __future__ import annotations

from collections.abc import Sequence

SIGNIFICANCE = 0.05


def markdown_table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], align: str = ""
) -> str:
    """A GitHub-flavoured table; `align` is one of l/r/c per column (default: l then r)."""
    align = align or ("l" + "r" * (len(headers) - 1))
    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = [
        "| " + " | ".join(str(h) for h in headers) + " |",
        "| " + " | ".join(marks[a] for a in align) + " |",
    ]
    for row in rows:
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def fmt_num(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if float(value).is_integer() and digits <= 1:
        return str(int(value))
    return f"{value:.{digits}f}"


def fmt_p(p: float | None) -> str:
    """A p-value, starred like the paper's tables when below 0.05."""
    if p is None:
        return "–"
    text = "<0.001" if p < 0.001 else f"{p:.3f}"
    return text + (" *" if p < SIGNIFICANCE else "")


def fmt_ci(ci: Sequence[float | None] | None, digits: int = 1) -> str:
    if not ci or ci[0] is None:
        return "–"
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def fmt_share(found: int, total: int) -> str:
    return f"{found}/{total}"


def fmt_pct(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:+.{digits}f}%"
