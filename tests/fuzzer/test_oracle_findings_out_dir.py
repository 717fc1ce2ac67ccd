"""The deployment oracles' findings in the out dir (`fuzzer.out_dir`): one folder per kind
(`permissions/`, `batch/`), the failures/ format with `oracle` and `evidence` in the
record, read back into `CampaignDir.findings` and `ExistingCampaign.findings`, apart from
failures and handled exceptions; the least-privilege report `permissions.json`; and a
resumed campaign keeps what the first one found (end to end on `tests/e2e/oracles/apps`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.bugs import Bug, BugBook
from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.out_dir import OutDir, read_campaign_dir
from lambdafuzz.generators.constraints import ChoiceKind, IntegerConstraints
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.outcome import FailureInfo

INVOICE_IMPORT = Path(__file__).parents[1] / "e2e" / "oracles" / "apps" / "invoice_import"
EVIDENCE = (
    "In production: AccessDenied (s3:PutObject on arn:aws:s3:::uploads/rejected/a.csv).\n"
    "A statement that would allow it:\n"
    '{"Effect": "Allow", "Action": ["s3:PutObject"], "Resource": ["arn:aws:s3:::uploads/*"]}'
)


def _saved(size: int = 3) -> SavedInput:
    row = (ChoiceKind.INTEGER, 1, IntegerConstraints(0, 9), (("x", 0),), ())
    return SavedInput(
        "x", ChoiceSequence.of_rows((row,) * size), 7, ReplayMode.LINEAR, "VALID", "gen"
    )


def _bug(kind: OracleKind, exception_type: str, location: str, evidence: str, hits: int = 4) -> Bug:
    info = FailureInfo(
        exception_type=exception_type,
        message=f"a {kind.title} at {location}",
        traceback="",
        location=location,
        detail="s3:PutObject" if kind is OracleKind.PERMISSIONS else "swallowed",
        shape="arn:aws:s3:::uploads/*" if kind is OracleKind.PERMISSIONS else "KeyError",
    )
    record = FailureRecord(
        info.signature,
        info,
        "VALID",
        "",
        first_exec=3,
        first_time_s=0.5,
        hits=hits,
        oracle=kind.value,
        evidence=evidence,
    )
    bug, new = BugBook().add(record, _saved(), 3)
    assert new
    return bug


def test_a_saved_finding_reads_back_in_its_kind_with_its_evidence(tmp_path):
    out = OutDir(tmp_path)
    permission = _bug(OracleKind.PERMISSIONS, "AccessDenied", "app/h.py:12", EVIDENCE)
    batch = _bug(OracleKind.BATCH, "PartialBatchResponse", "app/h.py:30", "The response: []", 9)
    path = out.save_finding(OracleKind.PERMISSIONS, permission)
    out.save_finding(OracleKind.BATCH, batch)
    assert path.parent == tmp_path / "permissions" and path.name == permission.file_name
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["failure"]["oracle"] == "permissions"
    assert data["failure"]["evidence"] == EVIDENCE
    assert data["outcome"] == "VALID"

    campaign = read_campaign_dir(tmp_path)
    assert [kind for kind, _ in campaign.findings] == [OracleKind.PERMISSIONS, OracleKind.BATCH]
    found = dict(campaign.findings)
    (entry,) = found[OracleKind.PERMISSIONS]
    assert entry.path == path
    assert entry.record.oracle == "permissions" and entry.record.evidence == EVIDENCE
    assert entry.record.info == permission.primary.record.info
    assert entry.signature == permission.primary.signature
    assert entry.title == permission.key and entry.hits == 4
    assert entry.saved.sequence == _saved().sequence  # the input that reaches it
    (other,) = found[OracleKind.BATCH]
    assert other.record.oracle == "batch" and other.hits == 9
    # findings are neither failures nor handled exceptions
    assert campaign.failures == () and campaign.handled == ()
    assert campaign.problems == ()


def test_a_resume_reads_the_findings_and_is_a_resume_for_them_alone(tmp_path):
    out = OutDir(tmp_path)
    assert not out.read_existing().is_resume
    out.save_finding(OracleKind.BATCH, _bug(OracleKind.BATCH, "PartialBatchResponse", "", "e"))
    existing = out.read_existing()
    assert existing.is_resume  # nothing else was left: the finding alone makes it one
    ((kind, (entry,)),) = existing.findings
    assert kind is OracleKind.BATCH and entry.record.oracle == "batch"
    assert existing.failures == () and existing.handled == ()


def test_rewriting_a_finding_replaces_its_file(tmp_path):
    out = OutDir(tmp_path)
    bug = _bug(OracleKind.PERMISSIONS, "AccessDenied", "app/h.py:12", EVIDENCE)
    out.save_finding(OracleKind.PERMISSIONS, bug)
    bug.variants[0].record.hits = 40  # the campaign counts on, then saves it again
    out.save_finding(OracleKind.PERMISSIONS, bug)
    (entry,) = dict(read_campaign_dir(tmp_path).findings)[OracleKind.PERMISSIONS]
    assert entry.hits == 40
    assert len(list((tmp_path / "permissions").glob("*.json"))) == 1


def test_the_least_privilege_report_round_trips_and_an_unreadable_one_is_a_problem(tmp_path):
    out = OutDir(tmp_path)
    problems: list[str] = []
    assert out.read_permissions(problems) is None and problems == []  # not written: None
    report = {"tests": 3, "statements": [], "unknown_grants": ["managed X"], "undecided": []}
    path = out.write_permissions(report)
    assert path == tmp_path / "permissions.json"
    assert out.read_permissions(problems) == report and problems == []
    assert read_campaign_dir(tmp_path).permissions == report
    path.write_text("{not json", encoding="utf-8")
    assert out.read_permissions(problems) is None
    assert len(problems) == 1 and "permissions.json: unreadable" in problems[0]


def test_an_unreadable_finding_file_is_a_problem_not_a_finding(tmp_path):
    out = OutDir(tmp_path)
    out.save_finding(
        OracleKind.PERMISSIONS, _bug(OracleKind.PERMISSIONS, "AccessDenied", "a:1", "e")
    )
    (tmp_path / "permissions" / "broken.json").write_text("{", encoding="utf-8")
    campaign = read_campaign_dir(tmp_path)
    assert len(dict(campaign.findings)[OracleKind.PERMISSIONS]) == 1
    assert any("broken.json" in p for p in campaign.problems), campaign.problems


# ---------------------------------------------------------------- resume, end to end
def _fuzz(out: Path, seed: int, execs: int) -> object:
    template = str(INVOICE_IMPORT / "template.yaml")
    args = ["fuzz", template, "--seed", str(seed), "--execs", str(execs), "--out", str(out)]
    return CliRunner().invoke(cli, args)


@pytest.mark.slow
def test_a_resumed_campaign_keeps_the_permission_finding_and_counts_on(tmp_path):
    out = tmp_path / "out"
    first = _fuzz(out, 1, 100)
    assert first.exit_code == 1, first.output
    assert "new permission finding: s3.CopyObject needs s3:PutObject" in first.output
    campaign = out / "ImportFunction"
    (path,) = (campaign / "permissions").glob("*.json")
    before = json.loads(path.read_text(encoding="utf-8"))["failure"]["hits"]

    again = _fuzz(out, 2, 60)
    assert again.exit_code == 1, again.output  # the finding loaded still fails the campaign
    assert "new permission finding" not in again.output  # known from the first run
    assert "permissions     1 permission finding (" in again.output
    assert list((campaign / "permissions").glob("*.json")) == [path]
    record = json.loads(path.read_text(encoding="utf-8"))["failure"]
    assert record["oracle"] == "permissions" and record["hits"] > before
    stats = json.loads((campaign / "stats.json").read_text(encoding="utf-8"))
    assert stats["findings"] == {"permissions": 1}
