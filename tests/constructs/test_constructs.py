"""Each construct app is fuzzed as a user would: only its planted bugs may be saved.

The budget here is the app's own (`expect.yaml`, 1000 executions unless it says less);
`benchmarks/sam_constructs.py` runs every app at 1000 executions over several seeds.
"""

from __future__ import annotations

import pytest

from tests.constructs.harness import all_apps, fuzz_app

APPS = all_apps()


@pytest.mark.slow
@pytest.mark.parametrize("app", APPS, ids=[a.name for a in APPS])
def test_fuzzing_saves_only_the_planted_bugs_and_finds_each(app, tmp_path):
    run = fuzz_app(app, tmp_path / "out")
    assert run.exit_code in (0, 1), run.output
    unexpected = [
        f"{f.info.exception_type}: {f.info.message} at {f.info.location}"
        for f in run.unexpected(app)
    ]
    assert not unexpected, f"failures the deployment cannot deliver: {unexpected}"
    assert not run.missed(app), f"planted bugs not found in {app.executions} executions"
