"""The text rendering for `lambdafuzz analyze`, source discovery, handler lookup, boundaries."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from analysis_support import AnalyzeT, analyze_fixture

from lambdafuzz import labels as L
from lambdafuzz.analysis import render_text
from lambdafuzz.analysis.sources import discover


def test_render_text_shows_targets_types_table_constants_and_match():
    result = analyze_fixture("yearthumbs", "yearthumbs.handler.lambda_handler")
    text = render_text(result)
    assert "handler yearthumbs.handler.lambda_handler" in text
    assert "year == TARGET_YEAR" in text
    assert f"{L.DATETIME}@5" in text
    assert "Unified type distances" in text
    assert "'.jpg'" in text
    assert f"Match report: {result.match.matched}/{result.match.total}" in text
    assert "(100.0%)" in text
    # one line pair per branch: both arms share a line
    assert text.count("year == TARGET_YEAR") == 1


def test_render_lists_unmatched_targets():
    result = analyze_fixture(
        "ddbkeys", "ddbkeys.handler.handler", produced_labels=[L.DYNAMODB_ITEM]
    )
    text = render_text(result)
    assert "unmatched: handler.py:" in text


def test_discover_names_modules_and_skips_tests(tmp_path: Path):
    pkg = tmp_path / "outer" / "inner"
    (pkg / "tests").mkdir(parents=True)
    (tmp_path / "outer" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("x = 1\n")
    (pkg / "tests" / "test_mod.py").write_text("x = 2\n")
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / "handler.py").write_text("x = 3\n")
    found = {s.module for s in discover([pkg, tmp_path / "flat"])}
    assert found == {"outer.inner", "outer.inner.mod", "handler"}


def test_syntax_errors_are_skipped_with_a_warning(
    analyze_app: AnalyzeT, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.analysis"):
        result = analyze_app(
            {
                "broken": "def f(:\n",
                "handler": "def handler(event, context):\n    if event:\n        return 1\n",
            }
        )
    assert "analysis-syntax-error" in caplog.text
    assert len(result.targets) == 2


@pytest.mark.parametrize("spec", ["app.handler.main", "app.handler:main", "app.handler", None])
def test_handler_spellings(analyze_app: AnalyzeT, spec):
    source = """\
        def main(event, context):
            if event["Records"][0]["s3"]["object"]["key"]:
                return 1
        """
    result = analyze_app(source, handler=spec)
    assert result.handler == "app.handler.main"
    assert result.targets[0].input_dependent


def test_missing_handler_function_falls_back_with_a_warning(
    analyze_app: AnalyzeT, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level(logging.WARNING, logger="lambdafuzz.analysis"):
        result = analyze_app(
            "def main(event, context):\n    return 1\n", handler="app.handler.nope"
        )
    assert "analysis-handler-not-found" in caplog.text
    assert result.handler == "app.handler.main"


def test_analysis_never_imports_the_harness_or_the_fuzzer():
    code = (
        "import sys, lambdafuzz.analysis as a;"
        "from pathlib import Path;"
        f"a.analyze_sources([Path({str(Path(__file__).parent / 'fixtures' / 'ddbkeys' / 'ddbkeys')!r})],"
        " None, use_cache=False);"
        "bad = [m for m in sys.modules if m.startswith(('lambdafuzz.harness', 'lambdafuzz.fuzzer'))];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
