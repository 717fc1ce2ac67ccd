"""Backends: every emulator and loader shows a handler's boto3 clients exactly the loaded world.

`read_world` is a world-reading handler: it lists buckets and objects and reads their bodies,
scans tables, makes the event's in-flight SQS messages visible by their receipt handles and
receives them, lists topics. Its result must equal `expected_view(world)` - what the `World`
says - on in-process moto with the direct loader, with the boto3 loader, and on moto-server,
which also makes the results identical across backends.

Worlds come from a small seeded builder here (`random_world`): the generator proper
(`world_generator.generate_input`) needs a Target and a Choices, and this test must pin the
loaders, not the generator. Seeds are in every failure message.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import string
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config

from lambdafuzz.errors import BackendError
from lambdafuzz.harness.emulator.backends import (
    Backend,
    LocalStackBackend,
    MotoBackend,
    MotoServerBackend,
    make_backend,
)
from lambdafuzz.harness.emulator.world_checks import check_item
from lambdafuzz.harness.sandbox.safety import apply_sandbox_env
from lambdafuzz.model.world import (
    Bucket,
    KeySchema,
    LoadedWorld,
    Queue,
    QueueMessage,
    S3Object,
    Table,
    Topic,
    World,
)

CROSS_BACKEND_WORLDS = 200  # the acceptance bar: moto and moto-server agree on 200 worlds
GENERATED_WORLDS = 15  # worlds from the real generator, on moto and moto-server
BOTO3_GENERATED_WORLDS = 8
BOTO3_LOADER_WORLDS = 25  # the boto3 loader costs ~60 ms a world here; 25 cover every shape
HERE = Path(__file__).resolve().parent
RICH_SEED = 33  # a world with buckets, objects, tables (one with a stream), a FIFO queue, topics


# --- a small seeded world builder ---------------------------------------------------------

_KEY_PARTS = ["data", "incoming/", "a b", "ümlaut", "x+y", "(1)", "2024/01/", "q=1&r", "~tmp", "é"]
_EXTS = [".csv", ".json", ".png", ".txt", "", ".tar.gz"]
_META_TEXT = string.ascii_letters + string.digits + " -_.:;=/"
_TEXT = string.ascii_letters + string.digits + " ,.;:-_\n\t\"'{}[]éß€中"


def _name(rng: random.Random, prefix: str, i: int) -> str:
    return f"{prefix}-{i}-{''.join(rng.choices(string.ascii_lowercase + string.digits, k=5))}"


def _text(rng: random.Random, max_size: int) -> str:
    return "".join(rng.choices(_TEXT, k=rng.randint(1, max_size)))


def _key_value(rng: random.Random, kind: str, i: int) -> dict[str, str]:
    if kind == "S":
        return {"S": f"k{i}-{rng.choice(['a', 'ü', 'x y', '0'])}"}
    if kind == "N":
        return {"N": str(i * 7 - 3)}
    return {"B": base64.b64encode(bytes([i, rng.randrange(256)])).decode()}


def _attribute(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    kind = rng.choice(
        ["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS"] + (["L", "M"] if depth < 2 else [])
    )
    match kind:
        case "S":
            return {"S": _text(rng, 12) if rng.random() < 0.9 else ""}
        case "N":
            return {
                "N": rng.choice(["0", "-1", "3.25", "1e3", str(rng.randint(-(10**12), 10**12))])
            }
        case "B":
            return {"B": base64.b64encode(rng.randbytes(rng.randint(0, 6))).decode()}
        case "BOOL":
            return {"BOOL": rng.random() < 0.5}
        case "NULL":
            return {"NULL": True}
        case "SS":
            return {"SS": sorted({_text(rng, 5) for _ in range(rng.randint(1, 3))})}
        case "NS":
            return {"NS": sorted({str(rng.randint(-99, 99)) for _ in range(rng.randint(1, 3))})}
        case "BS":
            return {
                "BS": sorted(
                    {base64.b64encode(rng.randbytes(3)).decode() for _ in range(rng.randint(1, 3))}
                )
            }
        case "L":
            return {"L": [_attribute(rng, depth + 1) for _ in range(rng.randint(0, 3))]}
    return {"M": {f"m{j}": _attribute(rng, depth + 1) for j in range(rng.randint(0, 3))}}


def random_world(seed: int, *, scale: int = 1) -> World:
    """A valid world with every shape the loaders handle; `scale` multiplies the sizes."""
    rng = random.Random(seed)
    buckets = []
    for b in range(rng.randint(0, 2)):
        keys = {
            "".join(rng.choices(_KEY_PARTS, k=rng.randint(1, 3))) + rng.choice(_EXTS)
            for _ in range(rng.randint(0, 2 * scale))
        }
        objects = tuple(
            S3Object(
                key=key,
                data=rng.randbytes(rng.randint(0, 600)),
                content_type=rng.choice(
                    ["text/csv", "image/png", "application/json", "binary/octet-stream"]
                ),
                format=rng.choice(["csv", "png", "json"]),
                metadata=tuple(
                    (
                        f"meta-{j}",
                        "".join(rng.choices(_META_TEXT, k=rng.randint(1, 8))).strip() or "v",
                    )
                    for j in range(rng.randint(0, 2))
                ),
            )
            for key in sorted(keys)
        )
        buckets.append(Bucket(_name(rng, "bucket", b), objects))
    tables = []
    for t in range(rng.randint(0, 1 + (scale > 1))):
        hash_type = rng.choice("SNB")
        range_type = rng.choice(["S", "N", None])
        schema = KeySchema("pk", hash_type, "sk" if range_type else None, range_type)
        items = []
        for i in range(rng.randint(0, 2 * scale)):
            item = {"pk": _key_value(rng, hash_type, i)}
            if range_type:
                item["sk"] = _key_value(rng, range_type, i)
            for j in range(rng.randint(0, 4)):
                item[f"a{j}"] = _attribute(rng)
            items.append(item)
        stream = rng.choice([None, "NEW_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"])
        tables.append(Table(_name(rng, "table", t), schema, tuple(items), stream))
    queues = []
    for q in range(rng.randint(0, 2)):
        fifo = rng.random() < 0.3
        messages = tuple(
            QueueMessage(
                _text(rng, 40),
                tuple((f"attr{j}", _text(rng, 8)) for j in range(rng.randint(0, 2))),
                group_id=f"group-{rng.randint(0, 2)}" if fifo and rng.random() < 0.7 else None,
                deduplication_id=f"message-{i}" if fifo and rng.random() < 0.7 else None,
            )
            for i in range(rng.randint(0, 2 * scale))
        )
        queues.append(Queue(_name(rng, "queue", q) + (".fifo" if fifo else ""), messages, fifo))
    topics = tuple(Topic(_name(rng, "topic", i)) for i in range(rng.randint(0, 2)))
    return World(tuple(buckets), tuple(tables), tuple(queues), topics)


GENERATED_CONFIG = """\
handler: app.handler
trigger: {kind: sqs, source: jobs}
resources:
  buckets:
    - name: gen-uploads
      objects: {min: 0, max: 3, formats: [csv, json, png, zip, text], prefixes: ["incoming/", ""]}
    - name: gen-output
  tables:
    - name: gen-grades
      hash_key: {name: id, type: S}
      range_key: {name: ts, type: N}
      items: {min: 0, max: 3}
      stream: NEW_AND_OLD_IMAGES
    - name: gen-blobs
      hash_key: {name: key, type: B}
      items: {min: 0, max: 2}
  queues:
    - {name: jobs, messages: {min: 1, max: 3}}
    - {name: orders.fifo, fifo: true, messages: {min: 0, max: 3}}
  topics: [{name: gen-alerts}]
"""


def generated_worlds(project: Path) -> Callable[[int], World]:
    """Worlds from the real generator (`world_generator.generate_input`) for a config that
    uses every resource kind: what a campaign would load. `project` holds the config."""
    from lambdafuzz.config import load_config
    from lambdafuzz.generators.aws.world_generator import generate_input
    from lambdafuzz.generators.core import Choices

    if not (project / "lambdafuzz.yaml").exists():
        project.mkdir(parents=True, exist_ok=True)
        (project / "app.py").write_text("def handler(event, context):\n    return None\n")
        (project / "lambdafuzz.yaml").write_text(GENERATED_CONFIG)
    target = load_config(project / "lambdafuzz.yaml")
    return lambda seed: generate_input(Choices(seed=seed), target).world


def world_source(source: str) -> Callable[[int], World]:
    """`builder` (random_world), `builder2` (random_world at scale 2) or a generated-world project dir."""
    if source == "builder":
        return random_world
    if source == "builder2":
        return lambda seed: random_world(seed, scale=2)
    return generated_worlds(Path(source))


def test_random_world_builder_is_deterministic_and_valid() -> None:
    for seed in range(50):
        assert random_world(seed) == random_world(seed), seed
        for table in random_world(seed).tables:
            for i, item in enumerate(table.items):
                check_item(table, i, item)  # raises on an item DynamoDB would refuse


# --- what the handler should see, and the handler that looks ---------------------------


def _sorted_av(av: dict[str, Any]) -> dict[str, Any]:
    ((tag, value),) = av.items()
    if tag in ("SS", "NS", "BS"):
        return {tag: sorted(value)}
    if tag == "L":
        return {"L": [_sorted_av(v) for v in value]}
    if tag == "M":
        return {"M": {k: _sorted_av(v) for k, v in sorted(value.items())}}
    return {tag: value}


def _canonical_item(item: dict[str, Any]) -> str:
    return repr({k: _sorted_av(v) for k, v in sorted(item.items())})


def _from_wire(av: dict[str, Any]) -> dict[str, Any]:
    """boto3's low-level answer back to World form: binary as base64 strings."""
    ((tag, value),) = av.items()
    if tag == "B":
        return {"B": base64.b64encode(value).decode()}
    if tag == "BS":
        return {"BS": [base64.b64encode(v).decode() for v in value]}
    if tag == "L":
        return {"L": [_from_wire(v) for v in value]}
    if tag == "M":
        return {"M": {k: _from_wire(v) for k, v in value.items()}}
    return {tag: value}


def expected_view(world: World) -> dict[str, Any]:
    return {
        "buckets": {
            b.name: sorted(
                (
                    o.key,
                    len(o.data),
                    hashlib.sha256(o.data).hexdigest(),
                    f'"{o.etag}"',
                    o.content_type,
                    tuple(sorted(o.metadata)),
                )
                for o in b.objects
            )
            for b in world.buckets
        },
        "tables": {
            t.name: {
                "schema": (
                    t.key_schema.hash_name,
                    t.key_schema.hash_type,
                    t.key_schema.range_name,
                    t.key_schema.range_type,
                ),
                "stream": t.stream,
                "items": sorted(_canonical_item(i) for i in t.items),
            }
            for t in world.tables
        },
        "queues": {
            q.name: {
                "delivered": len(q.messages),
                "messages": sorted(
                    (m.body, hashlib.md5(m.body.encode()).hexdigest(), tuple(sorted(m.attributes)))
                    for m in q.messages
                ),
                "ids_match": True,
            }
            for q in world.queues
        },
        "topics": sorted(t.name for t in world.topics),
    }


def sqs_event(loaded: LoadedWorld) -> dict[str, Any]:
    """The part of an SQS event the reader needs: real ids, handles and md5s."""
    return {
        "Records": [
            {
                "queue": name,
                "messageId": m.message_id,
                "receiptHandle": m.receipt_handle,
                "md5OfBody": m.md5_of_body,
                "body": m.body,
            }
            for name, delivered in loaded.messages.items()
            for m in delivered
        ],
        "queueUrls": dict(loaded.queue_urls),
    }


Clients = dict[str, Any]


def make_clients() -> Clients:
    """Clients as a handler makes them: from the (sandbox) environment only."""
    config = Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1})
    return {s: boto3.client(s, config=config) for s in ("s3", "dynamodb", "sqs", "sns")}


def read_world(event: dict[str, Any], c: Clients, *, tables: bool = True) -> dict[str, Any]:
    """The world-reading test handler (`tables=False`: an emulator without DynamoDB)."""
    buckets = {}
    for entry in c["s3"].list_buckets()["Buckets"]:
        name = entry["Name"]
        objects = []
        for obj in c["s3"].list_objects_v2(Bucket=name).get("Contents", []):
            got = c["s3"].get_object(Bucket=name, Key=obj["Key"])
            body = got["Body"].read()
            objects.append(
                (
                    obj["Key"],
                    obj["Size"],
                    hashlib.sha256(body).hexdigest(),
                    got["ETag"],
                    got["ContentType"],
                    tuple(sorted(got["Metadata"].items())),
                )
            )
        buckets[name] = sorted(objects)
    found_tables = {}
    for name in c["dynamodb"].list_tables()["TableNames"] if tables else ():
        table = c["dynamodb"].describe_table(TableName=name)["Table"]
        keys = {k["KeyType"]: k["AttributeName"] for k in table["KeySchema"]}
        types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
        stream = table.get("StreamSpecification", {})
        items = c["dynamodb"].scan(TableName=name)["Items"]
        found_tables[name] = {
            "schema": (
                keys["HASH"],
                types[keys["HASH"]],
                keys.get("RANGE"),
                types.get(keys.get("RANGE")),
            ),
            "stream": stream.get("StreamViewType") if stream.get("StreamEnabled") else None,
            "items": sorted(
                _canonical_item({k: _from_wire(v) for k, v in i.items()}) for i in items
            ),
        }
    queues = {}
    for url in c["sqs"].list_queues().get("QueueUrls", []):
        name = url.rsplit("/", 1)[1]
        records = [r for r in event["Records"] if r["queue"] == name]
        if records:  # the receipt handles must be real: make the in-flight messages visible
            changed = c["sqs"].change_message_visibility_batch(
                QueueUrl=url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": r["receiptHandle"], "VisibilityTimeout": 0}
                    for i, r in enumerate(records)
                ],
            )
            assert not changed.get("Failed"), changed["Failed"]
        received = (
            c["sqs"]
            .receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"])
            .get("Messages", [])
        )
        queues[name] = {
            "delivered": len(records),
            "messages": sorted(
                (
                    m["Body"],
                    m["MD5OfBody"],
                    tuple(
                        sorted(
                            (k, v["StringValue"]) for k, v in m.get("MessageAttributes", {}).items()
                        )
                    ),
                )
                for m in received
            ),
            "ids_match": sorted((r["messageId"], r["md5OfBody"]) for r in records)
            == sorted((m["MessageId"], m["MD5OfBody"]) for m in received),
        }
    topics = sorted(t["TopicArn"].rsplit(":", 1)[1] for t in c["sns"].list_topics()["Topics"])
    return {"buckets": buckets, "tables": found_tables, "queues": queues, "topics": topics}


def run_worlds(
    backend: Backend, seeds: range, make: Callable[[int], World] = random_world
) -> dict[int, dict[str, Any]]:
    """Reset, load and read every seed's world; return what the handler saw."""
    seen = {}
    with apply_sandbox_env(backend.client_env()):
        clients = make_clients()
        for seed in seeds:
            world = make(seed)
            backend.reset()
            loaded = backend.load(world)
            seen[seed] = read_world(sqs_event(loaded), clients)
            assert seen[seed] == expected_view(world), f"{backend.name} seed={seed}"
    return seen


# --- backends as fixtures ----------------------------------------------------------------


@pytest.fixture
def moto_backend() -> Iterator[MotoBackend]:
    backend = MotoBackend()
    backend.start()
    yield backend
    backend.stop()


@pytest.fixture
def server_backend() -> Iterator[MotoServerBackend]:
    backend = MotoServerBackend()
    backend.start()
    yield backend
    backend.stop()


BACKEND_FACTORIES: dict[str, Callable[[], Backend]] = {
    "moto-direct": lambda: MotoBackend(),
    "moto-boto3": lambda: MotoBackend(loader="boto3"),
    "moto-server": lambda: MotoServerBackend(),
}


@pytest.fixture(params=sorted(BACKEND_FACTORIES))
def any_backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    backend = BACKEND_FACTORIES[request.param]()
    backend.start()
    yield backend
    backend.stop()


# --- the cross-checks ------------------------------------------------------------------------


def run_backend(factory: str, seeds: range, source: str) -> dict[int, dict[str, Any]]:
    backend = BACKEND_FACTORIES[factory]()
    backend.start()
    try:
        return run_worlds(backend, seeds, world_source(source))
    finally:
        backend.stop()


def digest(seen: dict[int, dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(seen, sort_keys=True).encode()).hexdigest()


def run_in_parallel(
    here: str, there: str, count: int, source: str, *, children: int = 2
) -> dict[int, dict[str, Any]]:
    """Run backend `here` on all `count` worlds in this process while `children` child
    processes run backend `there` on a share each; assert every side saw exactly the
    expected worlds, hence the same. Separate processes keep moto's global state apart (the
    threaded server shares it with its process) and use both cores: the moto-server side
    costs ~3x the in-process side, so it gets two processes."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import test_backends as t; "
        "seeds = range(int(sys.argv[3]), int(sys.argv[4])); "
        "print(t.digest(t.run_backend(sys.argv[2], seeds, sys.argv[5])))"
    )
    cut = [count * i // children for i in range(children + 1)]
    shares = [range(cut[i], cut[i + 1]) for i in range(children)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(HERE), there, str(r.start), str(r.stop), source],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in shares
    ]
    try:
        seen = run_backend(here, range(count), source)
    finally:
        answers = [proc.communicate(timeout=900) for proc in procs]
    for proc, share, (out, err) in zip(procs, shares, answers, strict=True):
        assert proc.returncode == 0, f"{there} failed on seeds {share}:\n{err[-4000:]}"
        mine = {seed: seen[seed] for seed in share}
        assert out.split()[-1] == digest(mine), (
            f"{here} and {there} saw different worlds in {share}"
        )
    return seen


@pytest.mark.slow
def test_moto_and_moto_server_show_the_same_200_worlds() -> None:
    """Acceptance: the world-reading handler sees exactly `expected_view(world)` for 200
    seeded worlds on `moto` (direct loader) and on `moto-server`: identical results."""
    seen = run_in_parallel("moto-direct", "moto-server", CROSS_BACKEND_WORLDS, "builder")
    # The worlds really exercised every part: not 200 empty results.
    assert sum(len(o) for v in seen.values() for o in v["buckets"].values()) > 100
    assert sum(len(q["messages"]) for v in seen.values() for q in v["queues"].values()) > 100
    assert sum(len(t["items"]) for v in seen.values() for t in v["tables"].values()) > 50
    assert sum(len(v["topics"]) for v in seen.values()) > 100


@pytest.mark.slow
def test_generated_worlds_look_the_same_on_moto_and_moto_server(tmp_path: Path) -> None:
    """The real generator's worlds (every resource kind, real file formats) load alike."""
    project = str(tmp_path / "project")
    world_source(project)  # writes the project once, before the children read it
    seen = run_in_parallel("moto-direct", "moto-server", GENERATED_WORLDS, project)
    assert sum(len(o) for v in seen.values() for o in v["buckets"].values()) > GENERATED_WORLDS
    assert all(v["queues"]["jobs"]["delivered"] >= 1 for v in seen.values())


@pytest.mark.slow
def test_boto3_loader_shows_the_same_worlds_as_the_direct_loader(tmp_path: Path) -> None:
    for source, count in (
        ("builder2", BOTO3_LOADER_WORLDS),
        (str(tmp_path / "project"), BOTO3_GENERATED_WORLDS),
    ):
        seen = {
            loader: run_backend(loader, range(count), source)
            for loader in ("moto-direct", "moto-boto3")
        }
        assert seen["moto-direct"] == seen["moto-boto3"], source


def test_loaded_world_reports_what_the_emulator_holds(any_backend: Backend) -> None:
    world = random_world(RICH_SEED, scale=2)
    assert world.queues and world.buckets and world.tables and world.topics, (
        "RICH_SEED uses everything"
    )
    any_backend.reset()
    loaded = any_backend.load(world)
    assert loaded.world is world
    assert set(loaded.queue_urls) == {q.name for q in world.queues}
    assert set(loaded.topic_arns) == {t.name for t in world.topics}
    assert set(loaded.stream_arns) == {t.name for t in world.tables if t.stream}
    assert all("/stream/" in arn for arn in loaded.stream_arns.values())
    assert set(loaded.object_last_modified) == {
        (b.name, o.key) for b in world.buckets for o in b.objects
    }
    assert all(ts.endswith(".000Z") and ts[4] == "-" for ts in loaded.object_last_modified.values())
    for queue in world.queues:
        delivered = loaded.messages.get(queue.name, ())
        assert [m.body for m in delivered] == [m.body for m in queue.messages]
        assert [m.md5_of_body for m in delivered] == [
            hashlib.md5(m.body.encode()).hexdigest() for m in queue.messages
        ]
        assert len({m.message_id for m in delivered}) == len(delivered)
        assert all(m.sent_timestamp_ms > 1_600_000_000_000 for m in delivered)
        assert [m.attributes for m in delivered] == [tuple(m.attributes) for m in queue.messages]
    with apply_sandbox_env(any_backend.client_env()):
        sqs = boto3.client("sqs")
        urls = sqs.list_queues().get("QueueUrls", [])
    assert sorted(urls) == sorted(loaded.queue_urls.values())


def test_receipt_handles_delete_the_messages(any_backend: Backend) -> None:
    world = World(
        queues=(
            Queue("jobs", tuple(QueueMessage(f"job {i}") for i in range(3))),
            Queue("jobs.fifo", (QueueMessage("a"), QueueMessage("a")), fifo=True),
        )
    )
    any_backend.reset()
    loaded = any_backend.load(world)
    with apply_sandbox_env(any_backend.client_env()):
        sqs = boto3.client("sqs")
        for name, delivered in loaded.messages.items():
            assert len(delivered) == len(world.queue(name).messages)
            for m in delivered:
                sqs.delete_message(QueueUrl=loaded.queue_urls[name], ReceiptHandle=m.receipt_handle)
            attrs = sqs.get_queue_attributes(
                QueueUrl=loaded.queue_urls[name], AttributeNames=["All"]
            )
            counts = attrs["Attributes"]
            assert counts["ApproximateNumberOfMessages"] == "0", name
            assert counts["ApproximateNumberOfMessagesNotVisible"] == "0", name
            assert "Messages" not in sqs.receive_message(
                QueueUrl=loaded.queue_urls[name], VisibilityTimeout=0
            )


def test_receive_limits_delivery_to_the_trigger_queue(moto_backend: MotoBackend) -> None:
    world = World(
        queues=(Queue("trigger", (QueueMessage("t"),)), Queue("work", (QueueMessage("w"),)))
    )
    loaded = moto_backend.load(world, receive={"trigger"})
    assert set(loaded.messages) == {"trigger"}
    with apply_sandbox_env(moto_backend.client_env()):
        got = boto3.client("sqs").receive_message(QueueUrl=loaded.queue_urls["work"])["Messages"]
    assert [m["Body"] for m in got] == ["w"]  # still visible to a handler that polls it


def test_reset_empties_everything(any_backend: Backend) -> None:
    any_backend.reset()
    any_backend.load(random_world(RICH_SEED, scale=2))
    any_backend.reset()
    with apply_sandbox_env(any_backend.client_env()):
        c = make_clients()
        assert c["s3"].list_buckets()["Buckets"] == []
        assert c["dynamodb"].list_tables()["TableNames"] == []
        assert c["sqs"].list_queues().get("QueueUrls", []) == []
        assert c["sns"].list_topics()["Topics"] == []
    # and the same names load again without "already exists"
    any_backend.load(random_world(RICH_SEED, scale=2))


def test_reset_also_drops_state_of_services_outside_the_world(moto_backend: MotoBackend) -> None:
    with apply_sandbox_env(moto_backend.client_env()):
        logs = boto3.client("logs")
        logs.create_log_group(logGroupName="leak-from-test-1")
        moto_backend.reset()
        assert logs.describe_log_groups()["logGroups"] == []


def test_moto_reset_clears_model_instance_tracking(moto_backend: MotoBackend) -> None:
    from moto.s3.models import FakeKey

    world = World(
        buckets=(
            Bucket(
                "b-track", tuple(S3Object(f"k{i}", b"x", "text/plain", "text") for i in range(5))
            ),
        )
    )
    for _ in range(20):
        moto_backend.reset()
        moto_backend.load(world)
    assert len(FakeKey.instances_tracked) == 5  # only this test's keys, not 100
    moto_backend.reset()
    assert FakeKey.instances_tracked == []


def test_moto_backend_restarts_cleanly() -> None:
    backend = MotoBackend()
    world = World(buckets=(Bucket("b-restart", (S3Object("k", b"v", "text/plain", "text"),)),))
    for _ in range(2):  # the second start must not load into the first start's dropped backends
        backend.start()
        backend.load(world)
        with apply_sandbox_env(backend.client_env()):
            assert boto3.client("s3").get_object(Bucket="b-restart", Key="k")["Body"].read() == b"v"
        backend.stop()


def test_moto_reset_seeds_ids_so_replays_match(moto_backend: MotoBackend) -> None:
    world = World(queues=(Queue("jobs", (QueueMessage("a"), QueueMessage("b"))),))
    runs = []
    for _ in range(2):
        moto_backend.reset()
        runs.append(
            [(m.message_id, m.receipt_handle) for m in moto_backend.load(world).messages["jobs"]]
        )
    assert runs[0] == runs[1]
    assert len(runs[0][0][1]) == 185 and runs[0][0][1].isalpha()


def test_direct_loader_copies_items_so_handlers_cannot_mutate_the_world(
    moto_backend: MotoBackend,
) -> None:
    item = {"pk": {"S": "a"}, "tags": {"L": [{"S": "x"}]}, "set": {"SS": ["p"]}}
    world = World(tables=(Table("t-mut", KeySchema("pk", "S"), (item,)),))
    moto_backend.load(world)
    with apply_sandbox_env(moto_backend.client_env()):
        boto3.client("dynamodb").update_item(
            TableName="t-mut",
            Key={"pk": {"S": "a"}},
            UpdateExpression="SET tags = list_append(tags, :n) ADD #s :s",
            ExpressionAttributeNames={"#s": "set"},
            ExpressionAttributeValues={":n": {"L": [{"S": "y"}]}, ":s": {"SS": ["q"]}},
        )
    assert item == {"pk": {"S": "a"}, "tags": {"L": [{"S": "x"}]}, "set": {"SS": ["p"]}}


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("loader", ["direct", "boto3"])
@pytest.mark.parametrize(
    ("world", "message"),
    [
        (
            World(tables=(Table("t-bad", KeySchema("pk", "S"), ({"pk": {"N": "1"}},)),)),
            "key attribute 'pk'",
        ),
        (World(tables=(Table("t-bad", KeySchema("pk", "S"), ({"pk": {"S": ""}},)),)), "non-empty"),
        (
            World(
                tables=(
                    Table("t-bad", KeySchema("pk", "S"), ({"pk": {"S": "a"}, "n": {"N": "x1"}},)),
                )
            ),
            "not a DynamoDB number",
        ),
        (
            World(
                tables=(
                    Table("t-bad", KeySchema("pk", "S"), ({"pk": {"S": "a"}, "s": {"SS": []}},)),
                )
            ),
            "empty SS",
        ),
        (
            World(queues=(Queue("q-bad", (QueueMessage("nul \x00 byte"),)),)),
            "refuses the character",
        ),
        (World(buckets=(Bucket("x"),)), "bucket 'x'"),
    ],
)
def test_loaders_refuse_bad_worlds_alike(loader: str, world: World, message: str) -> None:
    backend = MotoBackend(loader=loader)
    backend.start()
    try:
        with pytest.raises(BackendError, match=message):
            backend.load(world)
    finally:
        backend.stop()


@pytest.mark.parametrize("number", ["1", "-3.25", "1e3", ".5", "5.", "+7", "1" * 38])
def test_check_item_accepts_dynamodb_numbers(number: str) -> None:
    table = Table("t", KeySchema("pk", "N"))
    assert check_item(table, 0, {"pk": {"N": number}, "ns": {"NS": [number]}}) > (0, False)


@pytest.mark.parametrize(
    "number", ["x1", " 1", "1 ", "inf", "nan", "1e400", "", "1..2", "e5", "١٢", "1_000", 3]
)
def test_check_item_refuses_what_moto_server_refuses(number: Any) -> None:
    table = Table("t", KeySchema("pk", "S"))
    with pytest.raises(BackendError, match="not a DynamoDB number"):
        check_item(table, 0, {"pk": {"S": "a"}, "n": {"N": number}})


def test_moto_backend_refuses_another_account(moto_backend: MotoBackend) -> None:
    with pytest.raises(BackendError, match="account"):
        moto_backend.load(World(account_id="000000000000"))


def test_backend_used_before_start_says_so() -> None:
    with pytest.raises(BackendError, match="before start"):
        MotoBackend().reset()
    with pytest.raises(BackendError, match="before start"):
        MotoServerBackend().load(World())


def test_make_backend_names() -> None:
    assert isinstance(make_backend("moto"), MotoBackend)
    assert isinstance(make_backend("moto-server"), MotoServerBackend)
    assert make_backend("localstack", "http://127.0.0.1:4566").endpoint == "http://127.0.0.1:4566"
    with pytest.raises(BackendError, match="did you mean 'moto-server'"):
        make_backend("moto_server")
    with pytest.raises(BackendError, match="in-process"):
        make_backend("moto", "http://127.0.0.1:5000")


def test_localstack_default_endpoint_follows_localstack_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("LOCALSTACK_HOST", raising=False)
    assert make_backend("localstack", "default").endpoint == "http://localhost:4566"
    monkeypatch.setenv("LOCALSTACK_HOST", "127.0.0.1:4777")
    assert make_backend("localstack", "default").endpoint == "http://127.0.0.1:4777"


def test_localstack_without_docker_engine_says_how_to_pass_an_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import docker

    def no_engine() -> Any:
        raise docker.errors.DockerException(
            "Error while fetching server API version: connection refused"
        )

    monkeypatch.setattr(docker, "from_env", no_engine)
    backend = make_backend("localstack")
    with pytest.raises(BackendError) as caught:
        backend.start()
    text = str(caught.value)
    assert "no Docker engine is reachable" in text
    assert "--endpoint http://127.0.0.1:4566" in text


def test_localstack_with_nothing_listening_fails_clearly() -> None:
    from lambdafuzz.harness.emulator.backends import free_port

    backend = LocalStackBackend(f"http://127.0.0.1:{free_port()}", startup_timeout_s=1)
    with pytest.raises(BackendError, match="no healthy LocalStack"):
        backend.start()


# --- LocalStack (opt-in: scripts/test-localstack) ---------------------------------------------

LOCALSTACK = os.environ.get("LAMBDAFUZZ_LOCALSTACK_ENDPOINT")
needs_localstack = pytest.mark.skipif(
    not LOCALSTACK, reason="set LAMBDAFUZZ_LOCALSTACK_ENDPOINT (scripts/test-localstack)"
)


def _no_tables(world: World) -> World:
    """LocalStack's DynamoDB needs a Java jar it cannot download offline."""
    return World(world.buckets, (), world.queues, world.topics)


@pytest.fixture
def localstack_backend() -> Iterator[Backend]:
    backend = make_backend("localstack", LOCALSTACK)
    backend.start()
    yield backend
    backend.stop()


@pytest.mark.localstack
@needs_localstack
def test_localstack_shows_the_same_worlds(localstack_backend: Backend) -> None:
    with apply_sandbox_env(localstack_backend.client_env()):
        clients = make_clients()
        for seed in range(20):
            world = _no_tables(random_world(seed))
            localstack_backend.reset()
            loaded = localstack_backend.load(world)
            seen = read_world(sqs_event(loaded), clients, tables=False)
            assert seen == expected_view(world), f"localstack seed={seed}"


@pytest.mark.localstack
@needs_localstack
def test_localstack_reset_empties_and_handles_delete(localstack_backend: Backend) -> None:
    world = World(
        buckets=(Bucket("ls-bucket", (S3Object("k", b"v", "text/plain", "text"),)),),
        queues=(Queue("ls-jobs", (QueueMessage("one"), QueueMessage("two"))),),
    )
    localstack_backend.reset()
    loaded = localstack_backend.load(world)
    with apply_sandbox_env(localstack_backend.client_env()):
        c = make_clients()
        for m in loaded.messages["ls-jobs"]:
            c["sqs"].delete_message(
                QueueUrl=loaded.queue_urls["ls-jobs"], ReceiptHandle=m.receipt_handle
            )
        localstack_backend.reset()
        assert c["s3"].list_buckets()["Buckets"] == []
        assert c["sqs"].list_queues().get("QueueUrls", []) == []
