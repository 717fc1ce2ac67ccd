"""The pytest plugin, run in an inner pytest session (pytester): a saved corpus as
regression tests, and the lambdafuzz_fuzz fixture."""

from __future__ import annotations

import json
import shutil
from importlib.metadata import entry_points

import pytest

from tests.fixtures.sam_campaign import SAM_APP, TEMPLATE

pytest_plugins = ["pytester"]


def plugin_args() -> list[str]:
    """`-p lambdafuzz.pytest_plugin` unless the installed entry point loads it already
    (registering the module twice under two names is an error)."""
    installed = any(ep.name == "lambdafuzz" for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", "lambdafuzz.pytest_plugin"]


@pytest.mark.slow
def test_saved_failing_corpus_fails_one_test_per_unique_failure(pytester, sam_campaign):
    shutil.copytree(sam_campaign.out, pytester.path / "out")
    pytester.makeini("[pytest]\nlambdafuzz_corpus = out\n")
    result = pytester.runpytest(*plugin_args(), "-rA")
    # one test per bug (one planted bug per function, its message shapes variants inside its
    # one file) + one coverage check each
    saved = [p for p in (pytester.path / "out").glob("*/failures/*.json") if ".min." not in p.name]
    assert len(saved) == 2
    result.assert_outcomes(failed=len(saved), passed=2)
    result.stdout.fnmatch_lines(
        [
            "PASSED out/IngestFunction::coverage",
            "PASSED out/WorkerFunction::coverage",
            "FAILED out/IngestFunction::failure[[]UnicodeDecodeError-at-inventory-ingest-py-in-*]*",
            "FAILED out/WorkerFunction::failure[[]AttributeError-at-inventory-worker-py-in-*]*",
        ]
    )  # -rA summary: passes first
    text = result.stdout.str()
    assert "saved failure still fails (the same failure)" in text
    assert "UnicodeDecodeError: 'utf-8' codec can't decode" in text  # the exception
    assert "AttributeError: " in text
    assert text.count("Traceback (most recent call last)") >= 2
    assert "World (the AWS state the handler ran against):" in text  # the reproducing world
    assert '"name": "lambdafuzz-uploads"' in text and '"name": "JobsQueue"' in text
    assert '"eventSource": "aws:s3"' in text and '"eventSource": "aws:sqs"' in text  # the event
    assert "Reproduce: lambdafuzz repro " in text and " --function IngestFunction" in text


@pytest.mark.slow
def test_fixed_bug_passes_and_lost_coverage_fails(pytester, sam_campaign):
    app = pytester.path / "app"
    shutil.copytree(SAM_APP, app)
    worker = app / "src" / "inventory" / "worker.py"
    worker.write_text(
        worker.read_text().replace(
            'sku = job.get("sku")', 'sku = job.get("sku") if isinstance(job, dict) else None'
        )
    )
    out = pytester.path / "out"
    shutil.copytree(sam_campaign.campaign("WorkerFunction"), out)
    meta = json.loads((out / "campaign.json").read_text())
    meta["config"] = str(app / "template.yaml")
    (out / "campaign.json").write_text(json.dumps(meta))
    stats = json.loads((out / "stats.json").read_text())
    stats["corpus_branches_covered"] = 999
    (out / "stats.json").write_text(json.dumps(stats))
    result = pytester.runpytest(*plugin_args(), "--lambdafuzz-corpus", str(out), "-rA")
    fixed = [p for p in (out / "failures").glob("*.json") if ".min." not in p.name]
    result.assert_outcomes(passed=len(fixed), failed=1)  # every AttributeError shape is fixed
    result.stdout.fnmatch_lines(
        ["PASSED out::failure[[]AttributeError-*]", "FAILED out::coverage*"], consecutive=False
    )
    assert "branch coverage dropped" in result.stdout.str()
    assert "the campaign reached 999 (stats.json)" in result.stdout.str()


def test_corpus_option_must_name_a_campaign(pytester):
    pytester.makepyfile("def test_x():\n    assert True\n")
    result = pytester.runpytest(*plugin_args(), "--lambdafuzz-corpus", "missing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--lambdafuzz-corpus*missing: no lambdafuzz campaign there*"])


@pytest.mark.slow
def test_fuzz_fixture_runs_a_bounded_campaign(pytester):
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.lambdafuzz({str(TEMPLATE)!r}, function="WorkerFunction", execs=12, seed=5)
        def test_worker_survives(lambdafuzz_fuzz):
            finished = lambdafuzz_fuzz()
            assert finished.stats.execs == 12
            assert (finished.out_dir / "stats.json").is_file()
            assert finished.stats.unique_failures == 0, sorted(
                p.name for p in (finished.out_dir / "failures").glob("*.json")
            )
        """
    )
    result = pytester.runpytest(*plugin_args())
    result.assert_outcomes(failed=1)  # the planted bug is found within the budget
    result.stdout.fnmatch_lines(
        ["*AssertionError: [[]'AttributeError-at-inventory-worker-py-in-handler-*.json']"]
    )


@pytest.mark.slow
def test_a_failing_fuzz_test_shows_falsifying_examples_and_keeps_the_input(pytester):
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.lambdafuzz({str(TEMPLATE)!r}, function="WorkerFunction", execs=12, seed=5)
        def test_worker_survives(lambdafuzz_fuzz):
            assert lambdafuzz_fuzz().stats.unique_failures == 0
        """
    )
    result = pytester.runpytest(*plugin_args())
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "lambdafuzz: falsifying examples" in text
    assert "Falsifying example: AttributeError at inventory/worker.py in handler: " in text
    assert "Where: inventory/worker.py:22" in text
    assert "Traceback (most recent call last)" in text and '"eventSource": "aws:sqs"' in text
    kept = list((pytester.path / ".lambdafuzz" / "failures").rglob("AttributeError-*.json"))
    # one input per bug (its message shapes, one per non-object JSON type met, are variants)
    assert len(kept) == 1 and all(f"Input kept at {k}" in text for k in kept)
    meta = json.loads((kept[0].parent / "campaign.json").read_text())  # `repro` finds its target
    assert (kept[0].parent / meta["config"]).resolve() == TEMPLATE.resolve()
    assert all(f"Reproduce: lambdafuzz repro {k}" in text for k in kept)


def test_collect_only_counts_the_corpus_tests(pytester, sam_campaign):
    shutil.copytree(sam_campaign.out, pytester.path / "out")
    result = pytester.runpytest(*plugin_args(), "--lambdafuzz-corpus", "out", "--collect-only")
    failures = [
        p for p in (pytester.path / "out").glob("*/failures/*.json") if ".min." not in p.name
    ]
    result.stdout.fnmatch_lines([f"*collected {len(failures) + 2} items*"])  # + 2 coverage tests
    assert "no tests collected" not in result.stdout.str()
