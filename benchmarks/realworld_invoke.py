"""Run one hand-made input of the real-world set against its handler, under moto (issue 42).

    python benchmarks/realworld_invoke.py SPEC.json RESULT.json

`benchmarks/realworld.py --confirm` starts this script in a fresh process, in the handler's
code root, with fake AWS credentials in its environment.  SPEC names the handler
(`module.function`), the code root and the other folders to put on `sys.path`, the app's
folder (what counts as the app's own code), and the input file (`env`, `world`, `event`).
Under `moto.mock_aws()` the world is created (S3 buckets and objects, DynamoDB tables and
items, SQS queues and messages, SNS topics, secrets, SSM parameters), the module imported
and the handler called with a fake Lambda context.  RESULT gets the outcome: `returned`,
`raised` (the exception's class, its AWS error code, the innermost frame of the app's
code), `import_failed` or `world_failed`, and every exception the app's code caught
(`sys.monitoring` EXCEPTION_HANDLED events in the app's files, each with its innermost app
frame).  Sockets are refused: nothing here reaches the network.
"""

from __future__ import annotations

import base64
import importlib
import io
import json
import os
import socket
import sys
import time
import tokenize
import traceback
import uuid
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

#: Exceptions that are protocol, not errors: never listed as handled.
PROTOCOL = {"StopIteration", "StopAsyncIteration", "GeneratorExit", "KeyboardInterrupt"}
LIBRARY_DIRS = ("site-packages", "dist-packages")


@dataclass(slots=True)
class Frame:
    file: str  # basename
    path: str  # relative to the app folder
    function: str
    line: int
    code: str  # the line's text, stripped, without a trailing comment


@dataclass(slots=True)
class Raised:
    exception: str  # module-qualified class name: botocore.errorfactory.NoSuchKey
    name: str  # the class name alone
    error_code: str  # a botocore ClientError's Error.Code, else ""
    message: str
    frame: Frame | None


@dataclass(slots=True)
class Result:
    outcome: str  # returned | raised | import_failed | world_failed
    raised: Raised | None = None
    returned: str = ""
    traceback: str = ""
    handled: list[Raised] = field(default_factory=list)
    seconds: float = 0.0


def without_comment(code: str) -> str:
    if "#" not in code:
        return code
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                return code[: token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return code


class App:
    """Which files are the app's own code: under its folder, not a vendored library."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder.resolve())

    def owns(self, filename: str) -> bool:
        if not filename.startswith(self.folder + os.sep):
            return False
        return not any(part in LIBRARY_DIRS for part in Path(filename).parts)

    def innermost(self, exc: BaseException) -> Frame | None:
        found = None
        for summary in traceback.extract_tb(exc.__traceback__):
            if summary.filename.startswith("<"):  # <frozen codecs>, <string>: no file
                continue
            path = os.path.abspath(summary.filename)
            if self.owns(path):
                found = Frame(
                    file=os.path.basename(path),
                    path=os.path.relpath(path, self.folder),
                    function=summary.name,
                    line=summary.lineno or 0,
                    code=without_comment(summary.line or ""),
                )
        return found

    def raised(self, exc: BaseException) -> Raised:
        kind = type(exc)
        response = getattr(exc, "response", None)
        code = ""
        if isinstance(response, dict):
            code = str((response.get("Error") or {}).get("Code") or "")
        return Raised(
            exception=f"{kind.__module__}.{kind.__qualname__}",
            name=kind.__name__,
            error_code=code,
            message=str(exc)[:300],
            frame=self.innermost(exc),
        )


def refuse_network() -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError("realworld_invoke: the network is off (moto only)")

    original = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family == getattr(socket, "AF_UNIX", None):
            return original(self, address)
        return refuse()

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = lambda self, address: refuse()  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]


def body_of(spec: Any) -> tuple[bytes, dict[str, Any]]:
    """An S3 object's bytes and put_object extras from `{"text"|"base64"|"json": ...}`."""
    if isinstance(spec, str):
        return spec.encode(), {}
    if "base64" in spec:
        data = base64.b64decode(spec["base64"])
    elif "json" in spec:
        data = json.dumps(spec["json"]).encode()
    else:
        data = str(spec.get("text", "")).encode()
    extra: dict[str, Any] = {}
    if spec.get("content_type"):
        extra["ContentType"] = spec["content_type"]
    if spec.get("metadata"):
        extra["Metadata"] = {str(k): str(v) for k, v in spec["metadata"].items()}
    return data, extra


def dynamo_value(value: Any) -> Any:
    """Plain JSON as boto3's resource layer takes it: numbers Decimal, `$binary` bytes."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if isinstance(value, list):
        return [dynamo_value(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$binary"}:
            return base64.b64decode(value["$binary"])
        if set(value) == {"$set"}:
            return {dynamo_value(v) for v in value["$set"]}
        return {k: dynamo_value(v) for k, v in value.items()}
    return value


def as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def create_world(world: dict[str, Any], region: str) -> None:
    import boto3

    s3 = boto3.client("s3", region_name=region)
    for bucket, objects in (world.get("s3") or {}).items():
        if region == "us-east-1":
            s3.create_bucket(Bucket=bucket)
        else:
            s3.create_bucket(
                Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": region}
            )
        for key, spec in (objects or {}).items():
            data, extra = body_of(spec)
            s3.put_object(Bucket=bucket, Key=key, Body=data, **extra)
    dynamodb = boto3.resource("dynamodb", region_name=region)
    for name, table in (world.get("dynamodb") or {}).items():
        keys = [("HASH", table["hash_key"])]
        if table.get("range_key"):
            keys.append(("RANGE", table["range_key"]))
        created = dynamodb.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": k[0], "KeyType": role} for role, k in keys],
            AttributeDefinitions=[{"AttributeName": k[0], "AttributeType": k[1]} for _, k in keys],
            BillingMode="PAY_PER_REQUEST",
        )
        for item in table.get("items") or []:
            created.put_item(Item=dynamo_value(item))
    sqs = boto3.client("sqs", region_name=region)
    for name, messages in (world.get("sqs") or {}).items():
        fifo = name.endswith(".fifo")
        attributes = {"FifoQueue": "true", "ContentBasedDeduplication": "true"} if fifo else {}
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        for message in messages or []:
            extra = {"MessageGroupId": "g"} if fifo else {}
            sqs.send_message(QueueUrl=url, MessageBody=as_text(message), **extra)
    sns = boto3.client("sns", region_name=region)
    for topic in world.get("sns") or []:
        sns.create_topic(Name=topic)
    secrets = boto3.client("secretsmanager", region_name=region)
    for name, value in (world.get("secretsmanager") or {}).items():
        secrets.create_secret(Name=name, SecretString=as_text(value))
    ssm = boto3.client("ssm", region_name=region)
    for name, value in (world.get("ssm") or {}).items():
        kind = "String"
        if isinstance(value, dict) and "value" in value:
            kind, value = value.get("type", "String"), value["value"]
        ssm.put_parameter(Name=name, Value=as_text(value), Type=kind)


class Context:
    """What the Python runtime passes as `context`."""

    def __init__(self, name: str, region: str, timeout_s: float) -> None:
        self.function_name = name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{region}:123456789012:function:{name}"
        self.memory_limit_in_mb = "128"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{name}"
        self.log_stream_name = time.strftime("%Y/%m/%d/[$LATEST]") + uuid.uuid4().hex
        self.identity = None
        self.client_context = None
        self.tenant_id = None
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class HandledLog:
    """Exceptions caught in the app's code (`sys.monitoring` EXCEPTION_HANDLED)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.seen: list[Raised] = []
        self.tool = sys.monitoring.DEBUGGER_ID

    def __enter__(self) -> HandledLog:
        sys.monitoring.use_tool_id(self.tool, "realworld")
        sys.monitoring.register_callback(
            self.tool, sys.monitoring.events.EXCEPTION_HANDLED, self.caught
        )
        sys.monitoring.set_events(self.tool, sys.monitoring.events.EXCEPTION_HANDLED)
        return self

    def __exit__(self, *_exc: object) -> None:
        sys.monitoring.set_events(self.tool, 0)
        sys.monitoring.free_tool_id(self.tool)

    def caught(self, code: Any, _offset: int, exc: BaseException) -> None:
        if type(exc).__name__ in PROTOCOL or not self.app.owns(code.co_filename):
            return
        record = self.app.raised(exc)
        if record.frame is not None and record not in self.seen:
            self.seen.append(record)


def invoke(spec: dict[str, Any]) -> Result:
    started = time.monotonic()
    payload = json.loads(Path(spec["input"]).read_text(encoding="utf-8"))
    region = payload.get("region") or os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
    app = App(Path(spec["app_dir"]))
    for folder in reversed(spec["sys_path"]):
        sys.path.insert(0, folder)
    refuse_network()
    import moto

    with moto.mock_aws():
        try:
            create_world(payload.get("world") or {}, region)
        except Exception as exc:  # noqa: BLE001 - reported, the input is wrong
            return Result("world_failed", traceback=traceback.format_exc(), raised=app.raised(exc))
        module_name, _, function_name = spec["handler"].replace(":", ".").rpartition(".")
        with HandledLog(app) as log:
            try:
                module = importlib.import_module(module_name.replace("/", "."))
                handler = getattr(module, function_name)
            except Exception as exc:  # noqa: BLE001 - reported
                return Result("import_failed", app.raised(exc), "", traceback.format_exc())
            context = Context(spec.get("function_name") or "realworld", region, 60.0)
            try:
                value = handler(payload.get("event"), context)
            except BaseException as exc:  # noqa: BLE001 - the outcome under test (sys.exit too)
                if isinstance(exc, KeyboardInterrupt):
                    raise
                result = Result("raised", app.raised(exc), "", traceback.format_exc())
            else:
                result = Result("returned", returned=repr(value)[:300])
        result.handled = log.seen
    result.seconds = round(time.monotonic() - started, 3)
    return result


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = invoke(spec)
    Path(argv[1]).write_text(json.dumps(asdict(result), indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
