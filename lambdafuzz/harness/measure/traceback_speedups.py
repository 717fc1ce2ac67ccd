"""Formatting a traceback's frames once per source position, in the worker.

Handlers log the exceptions they catch (`logger.exception(...)`, Powertools' logger, a
`traceback.format_exc()` in an error reply), and the runtime's log handler formats every
one: on CPython 3.13 each frame's caret line parses the frame's source with `ast` (3.12:
its line segment), which made formatting a 6-frame traceback cost ~256 us. A campaign meets
the same few frames thousands of times, and a frame's formatted text depends only on its
file, position, name and source lines (and `colorize`), so it is memoized on exactly those:
the same 6-frame traceback then formats in ~51 us (5x; 2,000 tracebacks, same process and
run). On survey_upload, whose handler logs every rejected survey, `Logger.exception` was
8.6% of the worker's time (py-spy, 20 s of a campaign).

Frames that carry their locals (`capture_locals=True`) and subclasses that format frames
their own way are formatted as before; the text is the same either way
(`tests/harness/measure/test_traceback_speedups.py`).
"""

from __future__ import annotations

import traceback
from typing import Any

#: Past this many frames the memo starts over (a campaign's handler meets tens).
_MEMO_LIMIT = 4096

_installed = False


def speed_up_tracebacks() -> None:
    """Memoize `traceback.StackSummary.format_frame_summary` (idempotent)."""
    global _installed
    if _installed:
        return
    original = traceback.StackSummary.format_frame_summary
    # the source lines the formatted frame shows: all of them on 3.13, the first on 3.12
    lines_of = _lines_313 if hasattr(traceback.FrameSummary, "_original_lines") else _lines_312
    memo: dict[tuple[Any, ...], str] = {}

    def format_frame_summary(
        self: traceback.StackSummary, frame_summary: traceback.FrameSummary, **kwargs: Any
    ) -> str:
        if frame_summary.locals is not None or type(frame_summary) is not traceback.FrameSummary:
            return original(self, frame_summary, **kwargs)
        key = (
            frame_summary.filename,
            frame_summary.lineno,
            frame_summary.end_lineno,
            frame_summary.colno,
            frame_summary.end_colno,
            frame_summary.name,
            lines_of(frame_summary),
            tuple(sorted(kwargs.items())),
        )
        text = memo.get(key)
        if text is None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            text = memo[key] = original(self, frame_summary, **kwargs)
        return text

    format_frame_summary.__doc__ = original.__doc__
    format_frame_summary.__wrapped__ = original  # type: ignore[attr-defined]
    traceback.StackSummary.format_frame_summary = format_frame_summary  # type: ignore[method-assign]
    _installed = True


def _lines_313(frame_summary: traceback.FrameSummary) -> Any:
    return frame_summary._original_lines  # type: ignore[attr-defined]


def _lines_312(frame_summary: traceback.FrameSummary) -> Any:
    return frame_summary._original_line  # type: ignore[attr-defined]
