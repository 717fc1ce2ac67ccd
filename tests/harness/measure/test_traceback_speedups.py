"""The memoized frame formatting gives the text stock `traceback` gives, hit or miss."""

from __future__ import annotations

import importlib
import linecache
import sys
import traceback
from pathlib import Path

import pytest

from lambdafuzz.harness.measure.traceback_speedups import speed_up_tracebacks

MODULE = """
import json


def parse(text):
    return json.loads(text)


def total(rows):
    return sum(
        row["n"]
        for row in rows
    )


def divide(a, b):
    value = a / b
    return value


def chained(text):
    try:
        return parse(text)
    except ValueError as e:
        raise KeyError("wrapped") from e


def grouped():
    raise ExceptionGroup("two", [ValueError("a"), TypeError("b")])


def with_locals(x):
    y = x * 2
    return divide(y, 0)
"""


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "tb_app.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("tb_app", None)
    module = importlib.import_module("tb_app")
    yield module
    sys.modules.pop("tb_app", None)


def _caught(call) -> BaseException:
    try:
        call()
    except BaseException as e:  # noqa: BLE001 - every kind is formatted below
        return e
    raise AssertionError("the call did not raise")


def _stock(exc: BaseException, monkeypatch: pytest.MonkeyPatch, **kwargs) -> list[str]:
    """The text with the stock frame formatting (undone when the block ends)."""
    patched = traceback.StackSummary.format_frame_summary
    with monkeypatch.context() as m:
        m.setattr(traceback.StackSummary, "format_frame_summary", patched.__wrapped__)
        return _formatted(exc, **kwargs)


def _formatted(exc: BaseException, *, capture_locals: bool = False, **kwargs) -> list[str]:
    te = traceback.TracebackException.from_exception(exc, capture_locals=capture_locals)
    return list(te.format(**kwargs))


def test_every_shape_formats_as_stock_traceback_does(app, monkeypatch: pytest.MonkeyPatch) -> None:
    speed_up_tracebacks()
    speed_up_tracebacks()  # idempotent: one layer of memo
    assert not hasattr(traceback.StackSummary.format_frame_summary.__wrapped__, "__wrapped__")
    calls = [
        lambda: app.parse("{bad"),
        lambda: app.total([{"n": 1}, {}]),  # a statement over several lines
        lambda: app.divide(1, 0),
        lambda: app.chained("[1,"),
        app.grouped,
    ]
    for call in calls:
        exc = _caught(call)
        expected = _stock(exc, monkeypatch)
        assert _formatted(exc) == expected  # a miss
        assert _formatted(exc) == expected  # a hit
        assert "".join(traceback.format_exception(exc)) == "".join(expected)
    if sys.version_info >= (3, 13):
        exc = _caught(calls[0])
        assert _formatted(exc, colorize=True) == _stock(exc, monkeypatch, colorize=True)
        assert _formatted(exc, colorize=True) != _formatted(exc)


def test_frames_with_locals_show_their_own_values(app, monkeypatch: pytest.MonkeyPatch) -> None:
    speed_up_tracebacks()
    one, two = _caught(lambda: app.with_locals(3)), _caught(lambda: app.with_locals(5))
    text_one = "".join(_formatted(one, capture_locals=True))
    text_two = "".join(_formatted(two, capture_locals=True))
    assert "y = 6" in text_one and "y = 10" in text_two
    assert text_two == "".join(_stock(two, monkeypatch, capture_locals=True))


def test_a_changed_source_line_is_formatted_anew(app, tmp_path: Path) -> None:
    speed_up_tracebacks()
    before = "".join(traceback.format_exception(_caught(lambda: app.divide(1, 0))))
    assert "value = a / b" in before
    source = tmp_path / "tb_app.py"
    source.write_text(MODULE.replace("value = a / b", "value = a // b"))
    linecache.checkcache(str(source))
    after = "".join(traceback.format_exception(_caught(lambda: app.divide(1, 0))))
    # the code that ran is the old one; the text shows the file as it now reads, as stock
    assert "value = a // b" in after and "value = a / b" not in after
