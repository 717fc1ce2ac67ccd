"""The `analyze_app` fixture: analyse a throwaway package written to tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from analysis_support import AnalyzeT

from lambdafuzz.analysis import analyze_sources


@pytest.fixture
def analyze_app(tmp_path: Path) -> AnalyzeT:
    """Write modules of a throwaway package `app` and analyse it (no cache)."""
    counter = iter(range(1000))

    def run(modules: dict[str, str] | str, handler: str | None = "app.handler", **kw):
        if isinstance(modules, str):
            modules = {"handler": modules}
        root = tmp_path / f"r{next(counter)}" / "app"
        root.mkdir(parents=True)
        (root / "__init__.py").write_text("")
        for name, text in modules.items():
            (root / f"{name}.py").write_text(textwrap.dedent(text))
        return analyze_sources([root], handler, use_cache=False, **kw)

    return run
