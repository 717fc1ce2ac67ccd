"""`lambdafuzz repro FILE --export DIR`: a saved input as files for `sam local invoke` and
the AWS CLI, never written outside DIR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.model.world import Bucket, KeySchema, Queue, QueueMessage, S3Object, Table, World
from lambdafuzz.report.export import ExportError, export_reproduction

SAM_APP = Path(__file__).parents[1] / "fixtures" / "sam_app"
HOSTILE = (
    "../../escaped.txt",
    "/etc/absolute.txt",
    "a//b.txt",
    "..",
    "dir/../../up.txt",
    "ok/x.csv",
    "ok",  # a file where another key's folder is
    "long/" + "n" * 600 + ".csv",
)


def world() -> World:
    objects = tuple(S3Object(key, key.encode(), "text/plain", "text") for key in HOSTILE)
    table = Table("accounts", KeySchema("id", "S"), ({"id": {"S": "a1"}, "n": {"N": "3"}},))
    queue = Queue("jobs", (QueueMessage("hello", (("kind", "upload"),)),))
    return World(buckets=(Bucket("uploads", objects),), tables=(table,), queues=(queue,))


def test_hostile_object_keys_stay_inside_the_folder(tmp_path):
    target = tmp_path / "a" / "b" / "export"
    export = export_reproduction(
        target, event={"Records": []}, world=world(), env={"TABLE": "accounts"}, function="F"
    )
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and all(target in p.parents for p in written)  # nothing escaped
    assert len([f for f in export.files if f.startswith("s3/uploads/")]) == len(HOSTILE)
    assert (target / "s3" / "uploads" / "ok" / "x.csv").read_bytes() == b"ok/x.csv"
    assert (target / "s3" / "uploads" / "%2E%2E" / "%2E%2E" / "escaped.txt").is_file()
    readme = (target / "README.txt").read_text()
    # keys that are no file paths are uploaded one by one, by their exact key
    assert "--key ../../escaped.txt" in readme and "aws s3 cp --recursive" not in readme
    assert "sam local invoke F -e event.json --env-vars env.json" in readme
    assert json.loads((target / "env.json").read_text()) == {"F": {"TABLE": "accounts"}}
    request = json.loads((target / "dynamodb" / "accounts-1.json").read_text())
    assert request == {"accounts": [{"PutRequest": {"Item": {"id": {"S": "a1"}, "n": {"N": "3"}}}}]}
    assert "aws dynamodb batch-write-item --request-items file://dynamodb/accounts-1.json" in readme
    entries = json.loads((target / "sqs" / "jobs-1.json").read_text())
    assert entries[0]["MessageAttributes"]["kind"]["StringValue"] == "upload"


def test_a_non_empty_folder_is_refused_unless_forced(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(ExportError, match="not empty"):
        export_reproduction(tmp_path, event={}, world=World(), env={}, function=None)
    export_reproduction(tmp_path, event={"a": 1}, world=World(), env={}, function=None, force=True)
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert json.loads((tmp_path / "env.json").read_text()) == {"Parameters": {}}
    (tmp_path / "s3").symlink_to(tmp_path.parent)  # a planted symlink is not followed
    objects = (S3Object("x.txt", b"x", "text/plain", "text"),)
    with pytest.raises(ExportError):
        export_reproduction(
            tmp_path, event={}, world=World((Bucket("b", objects),)), env={}, function=None,
            force=True,
        )  # fmt: skip


def test_repro_export_writes_the_replayed_event_world_and_env(tmp_path):
    out = tmp_path / "out"
    template = SAM_APP / "template.yaml"
    args = [
        "fuzz",
        str(template),
        "--function",
        "IngestFunction",
        "--execs",
        "5",
        "--out",
        str(out),
    ]
    assert CliRunner().invoke(cli, args).exit_code in (0, 1)
    saved_path = sorted((out / "corpus").glob("*.json"))[0]
    saved = json.loads(saved_path.read_text())
    export = tmp_path / "export"
    result = CliRunner().invoke(cli, ["repro", str(saved_path), "--export", str(export)])
    assert "exported" in result.output, result.output
    assert json.loads((export / "event.json").read_text()) == saved["event"]
    env = json.loads((export / "env.json").read_text())["IngestFunction"]
    assert env["TABLE_NAME"] and env["JOBS_QUEUE_URL"].endswith(
        "/" + env["JOBS_QUEUE_URL"].rsplit("/", 1)[-1]
    )
    bucket = saved["event"]["Records"][0]["s3"]["bucket"]["name"]
    assert any((export / "s3" / bucket).rglob("*"))
    again = CliRunner().invoke(cli, ["repro", str(saved_path), "--export", str(export)])
    assert again.exit_code == 2 and "not empty" in again.output
