"""Each construct app is fuzzed as a user would: only its planted bugs may be saved.

`make test` runs each app for 300 executions (seed 0; the latest first find of a planted bug
at seed 0 is execution 41); `benchmarks/sam_constructs.py` (in `make bench`) runs every app
at its own budget (`expect.yaml`: 1000 executions) over seeds 0-2.
"""

from __future__ import annotations

import pytest

from tests.e2e.constructs.harness import all_apps, fuzz_app

APPS = all_apps()
#: Executions per app here: long enough for the planted bugs, short enough for `make test`.
EXECS = 300


@pytest.mark.slow
@pytest.mark.parametrize("app", APPS, ids=[a.name for a in APPS])
def test_fuzzing_saves_only_the_planted_bugs_and_finds_each(app, tmp_path):
    run = fuzz_app(app, tmp_path / "out", executions=min(EXECS, app.executions))
    assert run.exit_code in (0, 1), run.output
    unexpected = [
        f"{f.info.exception_type}: {f.info.message} at {f.info.location}"
        for f in run.unexpected(app)
    ]
    assert not unexpected, f"failures the deployment cannot deliver: {unexpected}"
    assert not run.missed(app), f"planted bugs not found in {EXECS} executions"
