"""End to end, under `frontier` and `zest`: a handler that uses the event's key without
`unquote_plus` (found only through a key S3 encodes) and a `.png` thumbnailer that reads a
palette image wrongly (found only through a PNG in mode P), each within a few hundred
executions.  Key shapes (`generators/aws/key_shapes.py`) and content named by the key
filter's suffix (`generators/files/named_formats.py`) are what make them found."""

from __future__ import annotations

from pathlib import Path

import pytest
from campaign_findings import found_signatures

HERE = Path(__file__).parent
EXECS = 300

pytestmark = pytest.mark.timeout(60)


def _found(app: str, strategy: str, out: Path) -> set[str]:
    return found_signatures(HERE / app, out, strategy=strategy, execs=EXECS)


@pytest.mark.parametrize("strategy", ["frontier", "zest"])
def test_a_key_used_without_unquote_plus_is_found(strategy: str, tmp_path: Path) -> None:
    found = _found("encoded_keys", strategy, tmp_path)
    assert any("NoSuchKey" in s for s in found), found


@pytest.mark.parametrize("strategy", ["frontier", "zest"])
def test_a_palette_png_read_as_rgb_is_found(strategy: str, tmp_path: Path) -> None:
    found = _found("palette_png", strategy, tmp_path)
    assert any("not enough image data" in s for s in found), found
