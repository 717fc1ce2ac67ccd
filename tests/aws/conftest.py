"""Targets written to a temporary directory (with a handler module, so config loads)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lambdafuzz.config import Target, load_config

MakeTargetT = Callable[[str], Target]


def write_config(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text("def handler(event, context):\n    return None\n")
    path = directory / "lambdafuzz.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def make_target(tmp_path: Path) -> MakeTargetT:
    counter = iter(range(1_000))

    def make(text: str) -> Target:
        return load_config(write_config(tmp_path / f"t{next(counter)}", text))

    return make
