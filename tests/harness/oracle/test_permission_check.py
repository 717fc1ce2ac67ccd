"""The permission oracle's botocore hook (`harness.permission_check`) in this process, on
boto3 clients against in-process moto: findings for calls no statement allows (or a Deny
denies) located at the application line that made them, with the statement that would
allow them; one finding per call site and test; undecided, not found, when only an unknown
grant might allow a call; nothing checked outside begin()/end(); the emulator still
answers every call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore import handlers
from moto import mock_aws
from permission_app import uploads

from lambdafuzz.harness.oracle import permission_check
from lambdafuzz.harness.oracle.permission_check import ACCESS_DENIED, PermissionCheck
from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.permissions import Effect, Permission, Policy, Statement

REGION = "eu-west-1"
ACCOUNT = "123456789012"
APP = Path(__file__).parent / "permission_app"
BUCKET = "uploads"
READ = Statement(
    Effect.ALLOW, ("s3:GetObject",), resources=(f"arn:aws:s3:::{BUCKET}/*",), source="read"
)
READ_ONLY = Policy.of((READ,))


def _line(text: str) -> str:
    """`permission_app/uploads.py:N`, N the line holding `text`: how a finding is located."""
    lines = (APP / "uploads.py").read_text(encoding="utf-8").splitlines()
    (number,) = [n for n, line in enumerate(lines, start=1) if text in line]
    return f"permission_app/uploads.py:{number}"


@dataclass
class Hooked:
    check: PermissionCheck
    s3: Any  # a boto3 S3 client made after the hook was installed


@pytest.fixture
def hooked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hooked]:
    """A check installed in a private copy of botocore's handler list (gone after the
    test), an S3 client against moto with the bucket and one upload, made unchecked."""
    for name, value in FAKE_CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setattr(handlers, "BUILTIN_HANDLERS", list(handlers.BUILTIN_HANDLERS))
    check = PermissionCheck([str(APP.resolve())], REGION, ACCOUNT)
    check.install()
    check.install()  # twice: still one hook
    hook = ("before-parameter-build", check._on_call)
    assert handlers.BUILTIN_HANDLERS.count(hook) == 1
    check.use(READ_ONLY)
    with mock_aws():
        s3 = boto3.session.Session(region_name=REGION).client("s3")
        s3.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": REGION})
        s3.put_object(Bucket=BUCKET, Key="in/a.csv", Body=b"id,amount\n")  # not checked
        yield Hooked(check, s3)


# ---------------------------------------------------------------- findings
def test_a_call_no_statement_allows_is_a_finding_at_the_application_line(hooked):
    check, s3 = hooked.check, hooked.s3
    check.begin()
    assert uploads.read(s3, BUCKET, "in/a.csv") == b"id,amount\n"
    uploads.write(s3, BUCKET, "out/b.csv")
    findings, use = check.end()
    (finding,) = findings
    assert finding.kind is OracleKind.PERMISSIONS
    info = finding.info
    assert info.exception_type == ACCESS_DENIED == "AccessDenied"
    assert info.detail == "s3:PutObject"
    assert info.shape == f"arn:aws:s3:::{BUCKET}/*"  # the statement's resource, not the key
    assert info.location == _line("# one write")
    assert info.message == (
        f"s3.PutObject needs s3:PutObject on arn:aws:s3:::{BUCKET}/out/b.csv: "
        "no statement of the function's role allows it"
    )
    assert "in write" in info.traceback and "uploads.py" in info.traceback
    lines = finding.evidence.splitlines()
    assert (
        lines[0]
        == f"In production: AccessDenied (s3:PutObject on arn:aws:s3:::{BUCKET}/out/b.csv)."
    )
    assert lines[1] == "A statement that would allow it:"
    assert json.loads(lines[2]) == {
        "Effect": "Allow",
        "Action": ["s3:PutObject"],
        "Resource": [f"arn:aws:s3:::{BUCKET}/*"],
    }
    assert use.granted == frozenset({("s3:GetObject", 0)})  # the read, by statement 0
    assert use.undecided == frozenset()
    # the emulator answered the denied call as it answers any other
    assert s3.get_object(Bucket=BUCKET, Key="out/b.csv")["Body"].read() == b"x"


def test_copy_object_needs_to_read_its_source_and_write_its_destination(hooked):
    hooked.check.begin()
    uploads.set_aside(hooked.s3, BUCKET, "in/a.csv")
    (finding,), use = hooked.check.end()
    assert finding.info.detail == "s3:PutObject"
    assert finding.info.message.startswith(
        f"s3.CopyObject needs s3:PutObject on arn:aws:s3:::{BUCKET}/rejected/in/a.csv"
    )
    assert finding.info.location == _line("s3.copy_object(")
    assert use.granted == frozenset({("s3:GetObject", 0)})  # the source read is allowed


def test_an_explicit_deny_is_a_finding_naming_the_statement_that_denies(hooked):
    everything = Statement(Effect.ALLOW, ("s3:*",), resources=("*",), source="all of s3")
    keep = Statement(
        Effect.DENY,
        ("s3:DeleteObject",),
        resources=(f"arn:aws:s3:::{BUCKET}/in/*",),
        source="Policies[1] keep uploads",
    )
    hooked.check.use(Policy.of((everything, keep)))
    hooked.check.begin()
    uploads.delete(hooked.s3, BUCKET, "in/a.csv")
    uploads.write(hooked.s3, BUCKET, "out/c.csv")  # allowed by s3:*
    (finding,), use = hooked.check.end()
    assert finding.info.message.endswith("denied by the statement Policies[1] keep uploads")
    assert finding.evidence.splitlines()[1] == "Denied by: Policies[1] keep uploads"
    assert finding.info.location == _line("s3.delete_object(")
    assert use.granted == frozenset({("s3:PutObject", 0)})


def test_a_loop_making_the_same_call_is_one_finding_a_test_and_found_again_the_next(hooked):
    check = hooked.check
    check.begin()
    uploads.write_many(hooked.s3, BUCKET, ["out/1", "out/2", "out/3"])
    first, _ = check.end()
    assert len(first) == 1  # three calls at one line on one bucket's objects
    assert first[0].info.location == _line("# a write per key")
    check.begin()
    uploads.write_many(hooked.s3, BUCKET, ["out/4"])
    uploads.write(hooked.s3, BUCKET, "out/5")  # another line: another finding
    second, _ = check.end()
    assert second[0].info.signature == first[0].info.signature
    assert len(second) == 2 and second[1].info.location == _line("# one write")


def test_a_call_only_an_unknown_grant_might_allow_is_undecided_not_a_finding(hooked):
    hooked.check.use(Policy.of((READ,), unknown=("managed TeamUploads",)))
    hooked.check.begin()
    uploads.write(hooked.s3, BUCKET, "out/d.csv")
    uploads.read(hooked.s3, BUCKET, "in/a.csv")
    findings, use = hooked.check.end()
    assert findings == ()
    assert use.undecided == frozenset(
        {Permission("s3:PutObject", f"arn:aws:s3:::{BUCKET}/out/d.csv")}
    )
    assert use.granted == frozenset({("s3:GetObject", 0)})


# ---------------------------------------------------------------- what is checked when
def test_calls_outside_begin_and_end_are_not_checked(hooked):
    check, s3 = hooked.check, hooked.s3
    uploads.write(s3, BUCKET, "before")  # before begin()
    check.begin()
    findings, use = check.end()
    assert findings == () and use.granted == frozenset()
    uploads.write(s3, BUCKET, "after")  # after end()
    check.begin()
    check.pause()  # the handler returned: what follows is the campaign's, not the test's
    uploads.write(s3, BUCKET, "paused")
    findings, use = check.end()
    assert findings == () and use.granted == frozenset()
    check.begin()  # and the check still works
    uploads.write(s3, BUCKET, "during")
    findings, _ = check.end()
    assert len(findings) == 1 and findings[0].info.message.startswith(
        f"s3.PutObject needs s3:PutObject on arn:aws:s3:::{BUCKET}/during:"
    )


def test_calls_before_a_pause_stay_with_the_next_test(hooked):
    # the import's calls: begin() before the import, pause() after it, reported with the
    # first test's end()
    check = hooked.check
    check.begin()
    uploads.write(hooked.s3, BUCKET, "at-import")
    check.pause()
    check.begin()
    uploads.read(hooked.s3, BUCKET, "in/a.csv")
    (finding,), use = check.end()
    assert finding.info.message.startswith(
        f"s3.PutObject needs s3:PutObject on arn:aws:s3:::{BUCKET}/at-import"
    )
    assert use.granted == frozenset({("s3:GetObject", 0)})


def test_without_a_policy_nothing_is_checked(hooked):
    check = PermissionCheck([str(APP.resolve())], REGION, ACCOUNT)  # use() never called
    check.install()
    s3 = boto3.session.Session(region_name=REGION).client("s3")
    check.begin()
    uploads.write(s3, BUCKET, "out/e.csv")
    findings, use = check.end()
    assert findings == () and use.granted == frozenset() and use.undecided == frozenset()


def test_a_call_outside_the_application_is_located_at_its_first_frame_outside_boto(hooked):
    hooked.check.begin()
    hooked.s3.put_object(Bucket=BUCKET, Key="out/f.csv", Body=b"x")  # this file: no app
    (finding,), _ = hooked.check.end()
    where = finding.info.location
    assert where.startswith(__file__ + ":")
    assert where.endswith(
        " in test_a_call_outside_the_application_is_located_at_its_first_frame_outside_boto"
    )


def test_each_permission_is_decided_once_per_policy(hooked, monkeypatch):
    calls: list[Permission] = []
    real = permission_check.evaluate

    def spy(policy: Policy, permission: Permission) -> Any:
        calls.append(permission)
        return real(policy, permission)

    monkeypatch.setattr(permission_check, "evaluate", spy)
    check = hooked.check
    for _ in range(2):  # two tests, the same calls
        check.begin()
        uploads.read(hooked.s3, BUCKET, "in/a.csv")
        uploads.write(hooked.s3, BUCKET, "out/g.csv")
        check.end()
    assert len(calls) == len(set(calls)) == 2
    check.use(READ_ONLY)  # a policy (resolved again): decided anew
    check.begin()
    uploads.read(hooked.s3, BUCKET, "in/a.csv")
    check.end()
    assert len(calls) == 3
