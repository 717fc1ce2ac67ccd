"""Targets written to a temporary directory (with a handler module, so config loads)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from aws_config_files import write_config

from lambdafuzz.config import load_config
from lambdafuzz.model.target import Target

MakeTargetT = Callable[[str], Target]


@pytest.fixture
def make_target(tmp_path: Path) -> MakeTargetT:
    """Load a config text (written with an `app.py` handler) into a Target."""
    counter = iter(range(1_000))

    def make(text: str) -> Target:
        return load_config(write_config(tmp_path / f"t{next(counter)}", text))

    return make
