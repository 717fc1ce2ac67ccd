"""Run one hand-written case of a benchmark app against moto, without a campaign.

A case (`trigger.py`'s `benign()` or `trigger()`) is a dict:

    {"s3": {bucket: {key: bytes}}, "items": {table: [python item]},
     "messages": {queue: [body]}, "event": {...}}

`run_case` creates the resources the app's config declares, adds the case's world, sets
the config's environment, imports the handler afresh (handlers build clients at import)
and calls it once.  It reports what a campaign would save: an uncaught exception with its
innermost application frame, a failure status under the config's outcome rules, and every
exception the application's own code caught (`sys.monitoring` EXCEPTION_HANDLED on the
application's files, as a handled finding is recorded).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import boto3
from moto import mock_aws

from benchmarks.bugbench.spec import BenchApp
from lambdafuzz.config import load_target
from lambdafuzz.harness.invoke import (
    LambdaContext,
    classify_exception,
    classify_return,
    innermost_app_frame,
)
from lambdafuzz.model.outcome import Status
from lambdafuzz.model.target import Target, app_dirs

REGION = "us-east-1"
_FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
}


@dataclass(frozen=True)
class Finding:
    exception_type: str
    message: str
    location: str  # `file:line` of the innermost application frame


@dataclass(frozen=True)
class CaseResult:
    status: Status
    failure: Finding | None  # an uncaught exception or a failure status
    handled: tuple[Finding, ...]  # exceptions raised and caught in application code
    returned: Any = None


def load_case(app: BenchApp, name: str) -> dict[str, Any]:
    """`benign()` or `trigger()` of the app's `trigger.py`."""
    spec = importlib.util.spec_from_file_location(
        f"bugbench_case_{app.name}", app.path / "trigger.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)()


def run_case(app: BenchApp, case: dict[str, Any], target: Target | None = None) -> CaseResult:
    """Invoke the app's handler once on `case` (see the module docstring)."""
    target = target or load_target(app.fuzz_path, warn=False)
    dirs = app_dirs(target)
    with _environment({**_FAKE_ENV, **dict(target.env)}), mock_aws():
        _create_world(target, case)
        handler = _import_handler(target)
        handled: list[Finding] = []
        with _handled_exceptions(dirs, handled):
            try:
                context = LambdaContext(
                    target.handler_function,
                    timeout_s=target.timeout_s,
                    memory_mb=target.memory_mb,
                    request_id="c6af9ac6-0000-4000-8000-00000000abcd",
                )
                value = handler(case["event"], context)
            except Exception as exc:  # noqa: BLE001 - the handler's exception is the result
                status, info = classify_exception(exc, target.outcomes, dirs)
                failure = None
                if info is not None:
                    failure = Finding(info.exception_type, info.message, info.location)
                return CaseResult(status, failure, tuple(handled))
        status, info = classify_return(value, target.outcomes)
        failure = Finding(info.exception_type, info.message, info.location) if info else None
        return CaseResult(status, failure, tuple(handled), value)


@contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


#: boto3 clients and resources by their arguments, shared by every case.  Building one costs
#: 60-90 ms (measured: 124 clients were 9.3 s of 17.7 s for 24 cases); moto intercepts a
#: client whatever mock it was built under, and each `mock_aws()` starts empty, so reusing
#: them changes nothing a case sees.  The suite went from 67 s to under 20 s.
_SHARED: dict[tuple[Any, ...], Any] = {}
_BOTO3_CLIENT, _BOTO3_RESOURCE = boto3.client, boto3.resource


def _shared_client(*args: Any, **kwargs: Any) -> Any:
    key = ("client", args, tuple(sorted(kwargs.items())))
    if key not in _SHARED:
        _SHARED[key] = _BOTO3_CLIENT(*args, **kwargs)
    return _SHARED[key]


def _shared_resource(*args: Any, **kwargs: Any) -> Any:
    key = ("resource", args, tuple(sorted(kwargs.items())))
    if key not in _SHARED:
        _SHARED[key] = _BOTO3_RESOURCE(*args, **kwargs)
    return _SHARED[key]


@contextmanager
def _shared_boto3() -> Iterator[None]:
    """While a handler module is imported, `boto3.client`/`boto3.resource` hand out the
    shared instances."""
    boto3.client, boto3.resource = _shared_client, _shared_resource
    try:
        yield
    finally:
        boto3.client, boto3.resource = _BOTO3_CLIENT, _BOTO3_RESOURCE


def _create_world(target: Target, case: dict[str, Any]) -> None:
    s3 = _shared_client("s3", region_name=REGION)
    dynamodb = _shared_resource("dynamodb", region_name=REGION)
    sqs = _shared_client("sqs", region_name=REGION)
    sns = _shared_client("sns", region_name=REGION)
    resources = target.resources
    for bucket in resources.buckets:
        s3.create_bucket(Bucket=bucket.name)
    for table in resources.tables:
        ks = table.key_schema
        keys = [(ks.hash_name, ks.hash_type, "HASH")]
        if ks.range_name:
            keys.append((ks.range_name, ks.range_type or "S", "RANGE"))
        dynamodb.create_table(
            TableName=table.name,
            KeySchema=[{"AttributeName": n, "KeyType": k} for n, _, k in keys],
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t, _ in keys],
            BillingMode="PAY_PER_REQUEST",
        )
    for queue in resources.queues:
        attributes = {"FifoQueue": "true"} if queue.fifo else {}
        sqs.create_queue(QueueName=queue.name, Attributes=attributes)
    for topic in resources.topics:
        sns.create_topic(Name=topic.name)
    for bucket, objects in case.get("s3", {}).items():
        for key, data in objects.items():
            s3.put_object(Bucket=bucket, Key=key, Body=data)
    for table, items in case.get("items", {}).items():
        for item in items:
            dynamodb.Table(table).put_item(Item=item)
    for queue, bodies in case.get("messages", {}).items():
        url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
        for body in bodies:
            sqs.send_message(QueueUrl=url, MessageBody=body)


def _import_handler(target: Target) -> Any:
    """The handler function, its application packages imported afresh inside the mock."""
    root = str(target.root)
    if root not in sys.path:
        sys.path.insert(0, root)
    tops = {p.split(".")[0] for p in target.app_packages} | {target.handler_module.split(".")[0]}
    for name in [m for m in sys.modules if m.split(".")[0] in tops]:
        del sys.modules[name]
    with _shared_boto3():
        module: ModuleType = importlib.import_module(target.handler_module)
    return getattr(module, target.handler_function)


@contextmanager
def _handled_exceptions(dirs: list[str], found: list[Finding]) -> Iterator[None]:
    """Record every exception caught by a frame of the application's own files."""
    monitoring = sys.monitoring
    tool = next(i for i in range(6) if monitoring.get_tool(i) is None)
    prefixes = tuple(d + os.sep for d in dirs)
    files = frozenset(dirs)

    def on_handled(code: Any, offset: int, exc: BaseException) -> None:
        path = os.path.realpath(code.co_filename)
        if path in files or path.startswith(prefixes):
            location = innermost_app_frame(exc, dirs)
            found.append(Finding(type(exc).__name__, str(exc)[:500], location))

    monitoring.use_tool_id(tool, "bugbench")
    monitoring.register_callback(tool, monitoring.events.EXCEPTION_HANDLED, on_handled)
    monitoring.set_events(tool, monitoring.events.EXCEPTION_HANDLED)
    try:
        yield
    finally:
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, monitoring.events.EXCEPTION_HANDLED, None)
        monitoring.free_tool_id(tool)
