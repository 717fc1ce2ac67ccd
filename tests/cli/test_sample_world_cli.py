"""`lambdafuzz sample world`: files written, contents summarised, synthetic ids declared."""

from __future__ import annotations

import json

from click.testing import CliRunner

from lambdafuzz.cli.sample_world import SYNTHETIC_NOTE, world
from tests.fixtures.config_files import write_config

CONFIG = """\
handler: app.handler
trigger: {kind: sqs, source: jobs, body: s3-event, records: {min: 1, max: 2}}
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 2, formats: [csv, png]}
  tables:
    - name: grades
      hash_key: {name: id, type: S}
      items: {min: 1, max: 2}
  queues: [{name: jobs}]
"""


def test_sample_world_writes_worlds_and_events(tmp_path):
    config = write_config(tmp_path / "app", CONFIG)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        world, [str(config), "--count", "3", "--seed", "5", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "wrote 3 worlds with sqs events" in result.output
    assert "synthetic" in result.output
    files = sorted(out.glob("world-*.json"))
    assert [f.name for f in files] == ["world-0000.json", "world-0001.json", "world-0002.json"]
    document = json.loads(files[0].read_text())
    assert document["note"] == SYNTHETIC_NOTE
    objects = document["world"]["buckets"][0]["objects"]
    assert objects and {"key", "size", "format", "content_type", "etag"} <= set(objects[0])
    assert all("data" not in o for o in objects)  # contents summarised, not dumped
    for path in files:
        for o in json.loads(path.read_text())["world"]["buckets"][0]["objects"]:
            assert ("preview" in o) == o["format"].endswith("csv"), o  # text only
    items = document["world"]["tables"][0]["items"]
    assert items and "S" in items[0]["id"]  # items in full, DynamoDB JSON
    messages = document["world"]["queues"][0]["messages"]
    records = document["event"]["Records"]
    assert 1 <= len(records) <= len(messages)
    assert records[0]["body"] == messages[0]["body"]
    assert json.loads(records[0]["body"])["Records"][0]["eventSource"] == "aws:s3"


def test_sample_world_is_reproducible(tmp_path):
    config = write_config(tmp_path / "app", CONFIG)
    texts = []
    for name in ("a", "b"):
        result = CliRunner().invoke(
            world, [str(config), "-n", "2", "-s", "9", "-o", str(tmp_path / name)]
        )
        assert result.exit_code == 0, result.output
        texts.append([p.read_text() for p in sorted((tmp_path / name).glob("*.json"))])
    assert texts[0] == texts[1]


def test_sample_world_config_error_exits_2(tmp_path):
    config = write_config(tmp_path / "app", CONFIG.replace("type: S", "type: Q"))
    result = CliRunner().invoke(world, [str(config), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "resources.tables[0].hash_key.type" in result.output
