"""Where a line of a fixture handler is, so end-to-end tests name failure sites by their
code, not by numbers that an edit to the fixture would shift."""

from __future__ import annotations

from pathlib import Path


def line_of(handler: Path, text: str) -> int:
    """The number of the first line of `handler` that contains `text`."""
    for number, line in enumerate(handler.read_text().splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} is not in {handler}")
