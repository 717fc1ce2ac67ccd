"""A failing test's traceback text (`harness.invoke.formatted_traceback`): Python's own,
with position markers under the application's lines only."""

from __future__ import annotations

import importlib.util
import re
import traceback
from pathlib import Path

APP = """
import json


def parse(text):
    return json.loads(text)


def handler(text):
    try:
        return parse(text)
    except ValueError as err:
        raise KeyError("no document") from err
"""

_MARKERS = re.compile(r"^\s*[~^]+\s*$")


def _raised(tmp_path: Path) -> tuple[BaseException, str]:
    app = tmp_path / "app"
    app.mkdir()
    (app / "handler.py").write_text(APP)
    spec = importlib.util.spec_from_file_location("tb_app_handler", app / "handler.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        module.handler("{bad")
    except KeyError as exc:
        return exc, str(app)
    raise AssertionError("the handler did not raise")


def _without_markers(text: str) -> list[str]:
    return [line for line in text.splitlines() if not _MARKERS.match(line)]


def _marked(text: str) -> list[str]:
    """The lines that have position markers under them."""
    lines = text.splitlines()
    return [lines[i - 1].strip() for i, line in enumerate(lines) if _MARKERS.match(line)]


def test_markers_stay_under_application_lines_only(tmp_path: Path) -> None:
    from lambdafuzz.harness.invoke import formatted_traceback

    exc, app = _raised(tmp_path)
    ours = formatted_traceback(exc, [app])
    python = "".join(traceback.format_exception(exc))
    assert _without_markers(ours) == _without_markers(python)  # the same text otherwise
    library = [line for line in _marked(python) if line not in _marked(ours)]
    assert library, "Python marks library lines (json's) here: the test needs one"
    assert _marked(ours) == ["return json.loads(text)"]  # the app's line, in the cause
    assert "The above exception was the direct cause" in ours


def test_failure_info_carries_it(tmp_path: Path) -> None:
    from lambdafuzz.harness.invoke import failure_info, formatted_traceback

    exc, app = _raised(tmp_path)
    info = failure_info(exc, [app])
    assert info.traceback == formatted_traceback(exc, [app])
    assert info.location == "app/handler.py:13"
    assert info.cause == "JSONDecodeError"
