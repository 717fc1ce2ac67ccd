"""The fast AWS path against moto's full botocore path, side by side in one run (`make bench`).

    .venv/bin/python benchmarks/aws_path.py [--iterations 200] [--loop 100] [--execs 1500]
                                            [--campaign-rounds 2]
                                            [--sequences 10000] [--json OUT]

Reported, each for `--aws-path moto` and `--aws-path fast`:

* per answered operation: median us per call over `--iterations` calls on one world
  (in-process moto, one client made before timing), the paths' calls interleaved, with a
  third column: stock moto (moto's full path without this project's speed-ups of moto,
  `harness/emulator/moto_speedups.py`, which both other columns have), what a user's own
  moto-based test pays;
* client/resource creation: `boto3.client("s3")`, `boto3.resource("dynamodb").Table(..)`;
* gradebook's handler called directly in a loop (`--loop` calls on one loaded world, the
  handler creating its clients per call as it does);
* a gradebook campaign (zest, seed 0, `--execs`, 1 worker) `--campaign-rounds` times on
  each path, alternated (moto, fast, fast, moto): the median executions per second and
  branches covered (equal coverage is part of the check: same seed, same executions).
  1,500 executions: a campaign of 300 lasts ~2 s on the fast path, of which its 5 new
  failures' re-runs in fresh workers and a fresh worker's first tests are a fixed part
  (the same commit, side by side: 3.4x at 300 executions, 4.0-4.1x at 1,000, 4.5x at 1,500);
* the differential suite (tests/harness/emulator/fast_aws_sequences.py) over `--sequences` seeded
  operation sequences: how many differ (must be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "harness" / "emulator"))

from benchmarks.study.inprocess import finished_campaign  # noqa: E402

BUCKET, TABLE, QUEUE, TOPIC = "bench-bucket", "bench-table", "bench-queue", "bench-topic"


def _median_us(call: Any, iterations: int) -> float:
    times = []
    for _ in range(iterations):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def operation_calls(s3: Any, ddb: Any, sqs: Any, sns: Any) -> dict[str, Any]:
    """One repeatable call per answered operation. Sends go to an empty queue made for
    them (moto scans a queue's messages on every send: a queue that kept every send made
    SendMessageBatch 18-19 ms on both paths), receives to a queue of 10 messages kept
    visible, deletes take a message made for them (all outside the timed part), so no
    call's cost grows with the calls before it."""
    sinks = iter(range(1_000_000))

    def sink() -> str:
        return sqs.create_queue(QueueName=f"{QUEUE}-sink-{next(sinks)}")["QueueUrl"]

    source = sqs.create_queue(QueueName=f"{QUEUE}-source")["QueueUrl"]
    for i in range(10):
        sqs.send_message(QueueUrl=source, MessageBody=f"m{i}")
    work = sqs.create_queue(QueueName=f"{QUEUE}-work")["QueueUrl"]
    arn = f"arn:aws:sns:us-east-1:123456789012:{TOPIC}"
    key = {"pk": {"S": "p1"}, "sk": {"N": "1"}}

    def handle() -> str:
        sqs.send_message(QueueUrl=work, MessageBody="x")
        got = sqs.receive_message(QueueUrl=work, MaxNumberOfMessages=1, VisibilityTimeout=30)
        return got["Messages"][0]["ReceiptHandle"]

    return {
        "s3.GetObject": lambda: s3.get_object(Bucket=BUCKET, Key="data.csv")["Body"].read(),
        "s3.PutObject": lambda: s3.put_object(Bucket=BUCKET, Key="out.csv", Body=b"a,b\n1,2\n"),
        "s3.HeadObject": lambda: s3.head_object(Bucket=BUCKET, Key="data.csv"),
        "s3.DeleteObject": lambda: s3.delete_object(Bucket=BUCKET, Key="gone.csv"),
        "s3.CopyObject": lambda: s3.copy_object(
            Bucket=BUCKET, Key="copy.csv", CopySource={"Bucket": BUCKET, "Key": "data.csv"}
        ),
        "s3.ListObjectsV2": lambda: s3.list_objects_v2(Bucket=BUCKET),
        "dynamodb.GetItem": lambda: ddb.get_item(TableName=TABLE, Key=key),
        "dynamodb.PutItem": lambda: ddb.put_item(
            TableName=TABLE, Item={**key, "n": {"N": "1"}, "s": {"S": "text"}}
        ),
        "dynamodb.UpdateItem": lambda: ddb.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="SET n = n + :d",
            ExpressionAttributeValues={":d": {"N": "1"}},
        ),
        "dynamodb.DeleteItem": lambda: ddb.delete_item(
            TableName=TABLE, Key={"pk": {"S": "none"}, "sk": {"N": "0"}}
        ),
        "dynamodb.Query": lambda: ddb.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "p1"}},
        ),
        "dynamodb.Scan": lambda: ddb.scan(TableName=TABLE),
        "dynamodb.BatchGetItem": lambda: ddb.batch_get_item(RequestItems={TABLE: {"Keys": [key]}}),
        "dynamodb.BatchWriteItem": lambda: ddb.batch_write_item(
            RequestItems={TABLE: [{"PutRequest": {"Item": {**key, "n": {"N": "2"}}}}]}
        ),
        "dynamodb.TransactWriteItems": lambda: ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": TABLE, "Item": {**key, "n": {"N": "3"}}}}]
        ),
        "sqs.SendMessage": (
            sink,
            lambda url: sqs.send_message(QueueUrl=url, MessageBody="hello"),
        ),
        "sqs.SendMessageBatch": (
            sink,
            lambda url: sqs.send_message_batch(
                QueueUrl=url,
                Entries=[{"Id": "a", "MessageBody": "1"}, {"Id": "b", "MessageBody": "2"}],
            ),
        ),
        "sqs.ReceiveMessage": lambda: sqs.receive_message(
            QueueUrl=source, MaxNumberOfMessages=10, VisibilityTimeout=0
        ),
        "sqs.DeleteMessage": (
            handle,
            lambda h: sqs.delete_message(QueueUrl=work, ReceiptHandle=h),
        ),
        "sqs.DeleteMessageBatch": (
            handle,
            lambda h: sqs.delete_message_batch(
                QueueUrl=work, Entries=[{"Id": "a", "ReceiptHandle": h}]
            ),
        ),
        "sns.Publish": lambda: sns.publish(TopicArn=arn, Message="hello"),
    }


def _once(call: Any) -> float:
    """Seconds one call takes (of a (prepare, timed) pair only the timed part)."""
    if isinstance(call, tuple):
        prepare, timed = call
        value = prepare()
        t0 = time.perf_counter()
        timed(value)
        return time.perf_counter() - t0
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def per_operation(iterations: int) -> dict[str, dict[str, float]]:
    import boto3

    from lambdafuzz.harness.emulator.fast_aws import FAST_AWS
    from lambdafuzz.harness.emulator.moto_speedups import speed_up_moto, undo_moto_speedups

    s3, ddb = boto3.client("s3"), boto3.client("dynamodb")
    sqs, sns = boto3.client("sqs"), boto3.client("sns")
    s3.create_bucket(Bucket=BUCKET)
    s3.put_object(Bucket=BUCKET, Key="data.csv", Body=b"id,grade\n" + b"1,90\n" * 600)
    ddb.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for i in range(5):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "p1"}, "sk": {"N": str(i)}})
    sns.create_topic(Name=TOPIC)
    calls = operation_calls(s3, ddb, sqs, sns)
    rows: dict[str, dict[str, float]] = {}
    orders = (("stock", "moto", "fast"), ("fast", "stock", "moto"), ("moto", "fast", "stock"))
    for name, call in calls.items():
        times: dict[str, list[float]] = {"stock": [], "moto": [], "fast": []}
        for i in range(iterations + 4):  # the paths interleaved, in rotating order
            for path in orders[i % 3]:
                FAST_AWS.enabled = path == "fast"
                if path == "stock":
                    undo_moto_speedups()
                took = _once(call)
                speed_up_moto()
                if i >= 4:  # the first rounds warm up
                    times[path].append(took)
        FAST_AWS.enabled = False
        rows[name] = {path: statistics.median(t) * 1e6 for path, t in times.items()}
    return rows


def creation(iterations: int) -> dict[str, dict[str, float]]:
    import boto3

    from lambdafuzz.harness.emulator.client_cache import CACHE

    rows: dict[str, dict[str, float]] = {"client('s3')": {}, "resource('dynamodb').Table()": {}}
    for path in ("moto", "fast"):
        if path == "fast":
            CACHE.install()
        rows["client('s3')"][path] = _median_us(lambda: boto3.client("s3"), iterations)
        rows["resource('dynamodb').Table()"][path] = _median_us(
            lambda: boto3.resource("dynamodb").Table(TABLE), iterations
        )
        CACHE.uninstall()
    return rows


def gradebook_loop(calls: int) -> dict[str, float]:
    """gradebook's handler called directly on one loaded world: ms per call, both paths."""
    import importlib

    from lambdafuzz.harness.emulator.client_cache import CACHE
    from lambdafuzz.harness.emulator.fast_aws import FAST_AWS

    sys.path.insert(0, str(REPO / "benchmarks" / "lambdas" / "gradebook"))
    import boto3

    boto3.client("s3").create_bucket(Bucket="gradebook-uploads")
    rows = "\n".join(f"{i},{60 + i % 40},{70 + i % 30}" for i in range(4))
    boto3.client("s3").put_object(Bucket="gradebook-uploads", Key="grades.csv", Body=rows.encode())
    boto3.client("dynamodb").create_table(
        TableName="Students",
        KeySchema=[{"AttributeName": "StudentID", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "StudentID", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
    )
    handler = importlib.import_module("gradebook.handler").lambda_handler
    event = {
        "Records": [
            {
                "eventSource": "aws:s3",
                "s3": {"bucket": {"name": "gradebook-uploads"}, "object": {"key": "grades.csv"}},
            }
        ]
    }
    out: dict[str, float] = {}
    results: dict[str, Any] = {}
    for path in ("moto", "fast"):
        FAST_AWS.enabled = path == "fast"
        if path == "fast":
            CACHE.install()
        handler(event, None)  # warm-up
        t0 = time.perf_counter()
        for _ in range(calls):
            results[path] = handler(event, None)
        out[path] = (time.perf_counter() - t0) / calls * 1e3
        CACHE.uninstall()
        FAST_AWS.enabled = False
    out["same_result"] = float(results["moto"] == results["fast"])
    return out


def campaigns(execs: int, rounds: int = 2) -> dict[str, dict[str, Any]]:
    """Each path's campaign `rounds` times, in the order moto, fast, fast, moto, ... (a
    slowdown of the shared machine in the middle of the run weighs on both paths alike);
    the median rate of each path, and every round's."""
    order = [
        p for i in range(rounds) for p in (("moto", "fast") if i % 2 == 0 else ("fast", "moto"))
    ]
    runs: dict[str, list[dict[str, Any]]] = {"moto": [], "fast": []}
    for path in order:
        runs[path].append(_campaign(execs, path))
    out = {}
    for path, done in runs.items():
        rates = [run["execs_per_sec"] for run in done]
        out[path] = {**done[0], "execs_per_sec": statistics.median(rates), "rounds": rates}
    return out


def _campaign(execs: int, path: str) -> dict[str, Any]:
    """One seeded gradebook campaign on `path`: its rate, coverage and failures."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine

    target = load_config(REPO / "benchmarks" / "lambdas" / "gradebook")
    with tempfile.TemporaryDirectory() as tmp:
        engine = build_engine(
            target,
            out_dir=Path(tmp) / "out",
            strategy="zest",
            seed=0,
            max_execs=execs,
            workers=1,
            aws_path=path,
        )
        stats = finished_campaign(engine).stats
    return {
        "execs": stats.execs,
        "execs_per_sec": stats.execs_per_sec,
        "branches": stats.app_branches_covered,
        "unique_failures": stats.unique_failures,
        "time_in_handler_s": stats.time_in_handler_s,
    }


def differential(sequences: int) -> dict[str, Any]:
    from fast_aws_sequences import Env, run_sequence

    env = Env()
    differing = []
    t0 = time.perf_counter()
    for seed in range(sequences):
        if run_sequence(env, seed, fast=False) != run_sequence(env, seed, fast=True):
            differing.append(seed)
    return {
        "sequences": sequences,
        "differing": len(differing),
        "first_differing_seeds": differing[:10],
        "answered_calls": env.fast.answered,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def _table(title: str, rows: dict[str, dict[str, float]], unit: str) -> str:
    """One row per measurement; with a stock-moto column, the speed-up against it first."""
    stock = any("stock" in row for row in rows.values())
    head = f"{title:<34}"
    if stock:
        head += f" {'stock ' + unit:>12}"
    head += f" {'moto ' + unit:>12} {'fast ' + unit:>12}"
    head += f" {'vs stock':>9} {'vs moto':>8}" if stock else f" {'speed-up':>9}"
    lines = [head]
    for name, row in rows.items():
        line = f"{name:<34}"
        if stock:
            line += f" {row['stock']:>12.1f}"
        line += f" {row['moto']:>12.1f} {row['fast']:>12.1f}"
        if stock:
            line += f" {row['stock'] / row['fast']:>8.1f}x"
        line += f" {row['moto'] / row['fast']:>{7 if stock else 8}.1f}x"
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--loop", type=int, default=100)
    parser.add_argument("--execs", type=int, default=1500)
    parser.add_argument("--campaign-rounds", type=int, default=2)
    parser.add_argument("--sequences", type=int, default=10_000)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    from lambdafuzz.harness.emulator.backends import MotoBackend
    from lambdafuzz.harness.emulator.fast_aws import FAST_AWS
    from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS

    os.environ.update(FAKE_CREDENTIALS, AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1")
    os.environ["TABLE_NAME"] = "Students"
    backend = MotoBackend()
    backend.start()
    FAST_AWS.install()
    FAST_AWS.enabled = False
    report: dict[str, Any] = {}
    report["operations_us"] = per_operation(args.iterations)
    print(_table("operation (median per call)", report["operations_us"], "us"), flush=True)
    report["creation_us"] = creation(args.iterations)
    print(_table("\nclient/resource creation", report["creation_us"], "us"), flush=True)
    backend.reset()
    loop = report["gradebook_loop_ms"] = gradebook_loop(args.loop)
    print(
        f"\ngradebook handler loop ({args.loop} calls): moto {loop['moto']:.2f} ms/call, "
        f"fast {loop['fast']:.2f} ms/call, {loop['moto'] / loop['fast']:.1f}x, "
        f"same result: {bool(loop['same_result'])}",
        flush=True,
    )
    backend.stop()
    camp = report["campaign"] = campaigns(args.execs, args.campaign_rounds)
    print(
        f"\ngradebook campaign (zest, seed 0, {args.execs} execs, 1 worker, median of "
        f"{args.campaign_rounds}): moto {camp['moto']['execs_per_sec']:.1f} execs/s "
        f"{camp['moto']['rounds']}, fast {camp['fast']['execs_per_sec']:.1f} execs/s "
        f"{camp['fast']['rounds']}, "
        f"{camp['fast']['execs_per_sec'] / camp['moto']['execs_per_sec']:.1f}x; "
        f"branches moto {camp['moto']['branches']} fast {camp['fast']['branches']}; "
        f"unique failures moto {camp['moto']['unique_failures']} "
        f"fast {camp['fast']['unique_failures']}",
        flush=True,
    )
    if args.sequences:
        diff = report["differential"] = differential(args.sequences)
        print(
            f"\ndifferential: {diff['sequences']} sequences, {diff['differing']} differing "
            f"({diff['answered_calls']} calls answered by the fast path, {diff['seconds']} s)",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
