"""Fixtures the tests of several folders share: a target loaded from a config text
(config/, generators/aws/) and one real campaign over the SAM test app (config/test_sam.py,
report/, test_pytest_plugin.py), run once per session.

lambdafuzz is imported inside the fixtures, so collecting a test loads only what it uses.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.fixtures.config_files import write_config
from tests.fixtures.sam_campaign import SamCampaign, run_sam_campaign

if TYPE_CHECKING:
    from lambdafuzz.model.target import Target

MakeTargetT = Callable[[str], "Target"]


@pytest.fixture
def make_target(tmp_path: Path) -> MakeTargetT:
    """Load a config text (written with an `app.py` handler) into a Target."""
    from lambdafuzz.config import load_config

    counter = iter(range(1_000))

    def make(text: str) -> Target:
        return load_config(write_config(tmp_path / f"t{next(counter)}", text))

    return make


@pytest.fixture(scope="session")
def sam_campaign(tmp_path_factory: pytest.TempPathFactory) -> SamCampaign:
    """`lambdafuzz fuzz template.yaml` without any lambdafuzz.yaml: both functions, in turn."""
    return run_sam_campaign(tmp_path_factory.mktemp("sam"))
