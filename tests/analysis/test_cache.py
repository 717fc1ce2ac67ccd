"""Result caching by source hash, JSON round trips, and the fallbacks of the cache."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from analysis_support import fixture_root

from lambdafuzz.analysis import AnalysisResult, analyze_sources, cache
from lambdafuzz.analysis import analyze as analyze_mod

HANDLER = "yearthumbs.handler.lambda_handler"


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count runs of the real analysis behind `analyze_sources`."""
    calls: list[int] = []
    real = analyze_mod._analyze

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(analyze_mod, "_analyze", counting)
    return calls


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """A copy of a fixture package, free to edit."""
    target = tmp_path / "src" / "yearthumbs"
    target.mkdir(parents=True)
    for f in fixture_root("yearthumbs").glob("*.py"):
        (target / f.name).write_text(f.read_text())
    return target


def test_json_round_trip_is_lossless():
    result = analyze_sources([fixture_root("yearthumbs")], HANDLER, numeric=True, use_cache=False)
    again = AnalysisResult.from_json(result.to_json())
    assert again == result
    assert again.to_json() == result.to_json()
    assert json.loads(result.to_json())["version"] == result.version


def test_second_run_is_served_from_the_cache(app: Path, tmp_path: Path, spy: list[int]):
    cache_dir = tmp_path / "cache"
    first = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    second = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    assert len(spy) == 1
    assert not first.from_cache and second.from_cache
    assert second == first
    assert [p.name for p in cache_dir.iterdir()] == [f"{first.digest}.json"]  # no temp files


def test_editing_a_source_file_invalidates(app: Path, tmp_path: Path, spy: list[int]):
    cache_dir = tmp_path / "cache"
    first = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    handler = app / "handler.py"
    handler.write_text(handler.read_text().replace("TARGET_YEAR = 2008", "TARGET_YEAR = 2009"))
    second = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    assert len(spy) == 2
    assert second.digest != first.digest


def test_options_are_part_of_the_key(app: Path, tmp_path: Path, spy: list[int]):
    cache_dir = tmp_path / "cache"
    plain = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    numeric = analyze_sources([app], HANDLER, cache_dir=cache_dir, numeric=True)
    assert len(spy) == 2
    assert plain.numeric_constants == () and numeric.numeric_constants == (2008,)


def test_produced_labels_do_not_invalidate_but_rematch(app: Path, tmp_path: Path, spy: list[int]):
    cache_dir = tmp_path / "cache"
    analyze_sources([app], HANDLER, cache_dir=cache_dir)
    narrow = analyze_sources([app], HANDLER, cache_dir=cache_dir, produced_labels=[])
    assert len(spy) == 1
    assert narrow.from_cache
    assert narrow.match.matched == 0 and narrow.match.total > 0


def test_corrupt_entry_is_recomputed_with_a_warning(
    app: Path, tmp_path: Path, spy: list[int], caplog: pytest.LogCaptureFixture
):
    cache_dir = tmp_path / "cache"
    first = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    (cache_dir / f"{first.digest}.json").write_text('{"version": 1, "targets": [')
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.analysis"):
        again = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    assert len(spy) == 2
    assert again == first
    assert "analysis-cache-corrupt" in caplog.text


def test_entry_of_another_version_is_a_miss(app: Path, tmp_path: Path, spy: list[int]):
    cache_dir = tmp_path / "cache"
    first = analyze_sources([app], HANDLER, cache_dir=cache_dir)
    path = cache_dir / f"{first.digest}.json"
    doc = json.loads(path.read_text())
    doc["version"] = 0
    path.write_text(json.dumps(doc))
    analyze_sources([app], HANDLER, cache_dir=cache_dir)
    assert len(spy) == 2


def test_unwritable_cache_dir_only_warns(
    app: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.analysis"):
        result = analyze_sources([app], HANDLER, cache_dir=blocker / "cache")
    assert result.targets
    assert "analysis-cache-unwritable" in caplog.text


def test_default_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.default_cache_dir() == tmp_path / "lambdafuzz" / "analysis"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.default_cache_dir() == Path.home() / ".cache" / "lambdafuzz" / "analysis"
