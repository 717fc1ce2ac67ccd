"""Fuzz one construct app of `apps/` the way a user would and read back what was saved.

Each app is a small SAM application written for these tests: its handler is correct for
every event its template (or its Powertools model, or its sample events) admits, and fails
only on an admissible input through its planted bugs, listed in the app's `expect.yaml`:

    target: cdk.out                   # optional: what to fuzz, default template.yaml
    function: OrdersFunction          # optional when the template has one function
    executions: 1000                  # the campaign's budget (make bench: 1000 everywhere)
    args: ["--seed-corpus", "events"] # optional extra `lambdafuzz fuzz` arguments
    bugs:                             # every one must be found; nothing else may be saved
      - exception: ZeroDivisionError
        message: "division"           # optional: a substring of the failure's message
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.out_dir import OutDir

APPS = Path(__file__).parent / "apps"


@dataclass(frozen=True)
class PlantedBug:
    exception: str
    message: str = ""

    def matches(self, record: FailureRecord) -> bool:
        return record.info.exception_type.rsplit(".", 1)[-1] == self.exception and (
            self.message in record.info.message
        )


@dataclass(frozen=True)
class ConstructApp:
    name: str
    path: Path
    function: str | None
    executions: int
    bugs: tuple[PlantedBug, ...]
    args: tuple[str, ...] = field(default=())
    target: str = "template.yaml"

    @classmethod
    def load(cls, path: Path) -> ConstructApp:
        spec = yaml.safe_load((path / "expect.yaml").read_text())
        bugs = tuple(PlantedBug(**bug) for bug in spec["bugs"])
        return cls(
            path.name,
            path,
            spec.get("function"),
            int(spec.get("executions", 1000)),
            bugs,
            tuple(spec.get("args", ())),
            str(spec.get("target", "template.yaml")),
        )


@dataclass(frozen=True)
class ConstructRun:
    exit_code: int
    output: str
    failures: tuple[FailureRecord, ...]
    corpus: tuple[Path, ...]

    def unexpected(self, app: ConstructApp) -> list[FailureRecord]:
        """Saved failures that are none of the planted bugs: the template excludes them."""
        return [f for f in self.failures if not any(b.matches(f) for b in app.bugs)]

    def missed(self, app: ConstructApp) -> list[PlantedBug]:
        return [b for b in app.bugs if not any(b.matches(f) for f in self.failures)]


def all_apps() -> list[ConstructApp]:
    return [ConstructApp.load(p) for p in sorted(APPS.iterdir()) if (p / "expect.yaml").is_file()]


def fuzz_app(
    app: ConstructApp, out: Path, *, executions: int | None = None, seed: int = 0
) -> ConstructRun:
    """`lambdafuzz fuzz <app>/template.yaml` for the app's budget; the saved failures."""
    args = ["fuzz", str(app.path / app.target), "--execs", str(executions or app.executions)]
    args += ["--seed", str(seed), "--out", str(out), "--quiet", *app.args]
    if app.function:
        args += ["--function", app.function]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    out_dir = OutDir(out)
    failures = []
    for entry in out_dir.iter_failures():
        assert not isinstance(entry, Exception), entry
        failures.append(entry.record)
    corpus = tuple(sorted((out / "corpus").glob("**/*.json"))) if (out / "corpus").is_dir() else ()
    return ConstructRun(result.exit_code, result.output, tuple(failures), corpus)
