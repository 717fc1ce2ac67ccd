"""What a plain `pip install .` pulls in: no web-server stack unless asked for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _project() -> dict:
    return tomllib.loads(PYPROJECT.read_text())["project"]


def _extras(requirement: str) -> set[str]:
    found = re.match(r"^[A-Za-z0-9_.-]+\[([^\]]*)\]", requirement)
    return {e.strip() for e in found.group(1).split(",")} if found else set()


def test_the_base_install_has_no_moto_server_and_no_unproven_moto_cap():
    base = _project()["dependencies"]
    (moto,) = [r for r in base if r.startswith("moto")]
    assert "server" not in _extras(moto) and "all" not in _extras(moto)
    assert "<" not in moto  # an upper bound only where a test proves it necessary
    assert not [r for r in base if r.lower().startswith(("flask", "werkzeug"))]


def test_the_server_extra_and_the_dev_install_bring_moto_server():
    extras = _project()["optional-dependencies"]
    assert any("server" in _extras(r) for r in extras["server"] if r.startswith("moto"))
    assert any("server" in _extras(r) for r in extras["dev"] if r.startswith("moto"))


def test_moto_server_without_its_extra_says_which_extra_to_install(monkeypatch):
    import sys

    import pytest

    from lambdafuzz.errors import BackendError
    from lambdafuzz.harness.emulator.backends import MotoServerBackend

    monkeypatch.setitem(sys.modules, "moto.server", None)  # as if Flask & co. were missing
    with pytest.raises(BackendError, match=r"lambdafuzz\[server\]"):
        MotoServerBackend().start()
