"""One real campaign over the SAM test app, shared by the CI-output, report and plugin tests."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lambdafuzz.cli.main import cli

HERE = Path(__file__).parent
SAM_APP = HERE / "sam_app"
TEMPLATE = SAM_APP / "template.yaml"
FUNCTIONS = ("IngestFunction", "WorkerFunction")
EXECS = 30
SEED = 0
#: The failures these tests expect are the ones this seed finds with execution-indexed
#: replay, the default when they were written (linear finds more in 30 executions).
REPLAY = ("--replay", "ei")


@dataclass(frozen=True)
class SamCampaign:
    out: Path  # holds one campaign directory per function
    junit: Path  # --junit junit.xml, suffixed per function by `fuzz`
    sarif: Path
    result: Result

    def campaign(self, function: str) -> Path:
        return self.out / function

    def junit_of(self, function: str) -> Path:
        return self.junit.with_name(f"{self.junit.stem}-{function}{self.junit.suffix}")

    def sarif_of(self, function: str) -> Path:
        return self.sarif.with_name(f"{self.sarif.stem}-{function}{self.sarif.suffix}")


@pytest.fixture(scope="session")
def sam_campaign(tmp_path_factory: pytest.TempPathFactory) -> SamCampaign:
    """`lambdafuzz fuzz template.yaml` without any lambdafuzz.yaml: both functions, in turn."""
    base = tmp_path_factory.mktemp("sam")
    out, junit, sarif = base / "out", base / "junit.xml", base / "results.sarif"
    # zest: the output formats are checked against its one planted failure per function
    args = ["fuzz", str(TEMPLATE), "--execs", str(EXECS), "--seed", str(SEED), "--out", str(out)]
    args += ["--strategy", "zest"]
    args += ["--junit", str(junit), "--sarif", str(sarif), "--quiet", *REPLAY]
    result = CliRunner().invoke(cli, args)
    return SamCampaign(out, junit, sarif, result)


def copy_campaign(source: Path, destination: Path) -> Path:
    """A private copy of a campaign directory, for a test that changes it."""
    shutil.copytree(source, destination)
    return destination
