"""What a handler's AWS calls changed, call by call: the writes and sends of one delivery.

Two botocore handlers, registered among botocore's built-in handlers before any session
exists (as `permission_check` and `cost_meter` do), see every call on both AWS paths:
`before-parameter-build` keeps the call's parameters in its request context (the same dict
botocore hands `after-call`, by then with boto3's DynamoDB transformations applied: items
and keys as AttributeValues whichever interface made the call), and `after-call` turns a
call that succeeded into what it changed.  A call answered with an error (a failed
`ConditionExpression`, a missing queue) or that raised before an answer changed nothing and
is not recorded; the entries a batch call reports as failed are left out.

* writes (`RawWrite`): DynamoDB PutItem, UpdateItem, DeleteItem, BatchWriteItem,
  TransactWriteItems (table and item or key); S3 PutObject, CopyObject, DeleteObject,
  DeleteObjects, CompleteMultipartUpload (bucket and key);
* sends (`model.redelivery.Sent`): SQS SendMessage(Batch), SNS Publish(Batch), EventBridge
  PutEvents, Step Functions StartExecution / StartSyncExecution, Lambda Invoke with
  `InvocationType: Event` (and InvokeAsync), Kinesis PutRecord(s), SES and SES v2 sends.

Recording is off between deliveries (`WriteLog.active`): the world loader's calls and the
read-back of states (`harness.redelivery`) are not the handler's.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lambdafuzz.harness.invoke import app_caller, app_stack_text
from lambdafuzz.model.redelivery import ResourceKind, Sent

#: Where `before-parameter-build` leaves a recorded call's parameters for `after-call`.
_PARAMS = "lambdafuzz.world_writes.params"
#: Characters of a body shown in the evidence.
SHOWN_BODY = 160


@dataclass(slots=True, frozen=True)
class RawWrite:
    """One written place as the call named it: a table's item (`item`: its attributes, the
    key found later from the table's key schema) or key, or a bucket's object key."""

    kind: ResourceKind
    resource: str
    operation: str
    key: Mapping[str, Any] | None = None  # DynamoDB AttributeValues by name; S3: {"key": k}
    item: Mapping[str, Any] | None = None  # PutItem and puts of batches: the whole item
    location: str = ""
    stack: str = ""


ChangeT = RawWrite | Sent
#: (the call's parameters, its parsed answer) -> what it changed, not yet located
ExtractT = Callable[[Mapping[str, Any], Mapping[str, Any]], list[ChangeT]]


class WriteLog:
    """Records what the handler's calls changed while `active`, in call order."""

    def __init__(self, app_dirs: Sequence[str]) -> None:
        self.app_dirs = tuple(app_dirs)
        self.active = False
        self.with_stacks = False  # keep each call's stack (the second delivery's)
        self.changes: list[ChangeT] = []
        self._stacks: dict[str, str] = {}
        self._lock = threading.Lock()  # a handler's own threads (s3transfer) call too

    def install(self) -> None:
        """Hook botocore: before any boto3/botocore session is created."""
        from botocore import handlers

        for entry in (
            ("before-parameter-build", self._on_params),
            ("after-call", self._on_answer),
        ):
            if entry not in handlers.BUILTIN_HANDLERS:
                handlers.BUILTIN_HANDLERS.append(entry)

    def start(self, *, with_stacks: bool = False) -> None:
        """Record from here on, into an empty log."""
        self.changes = []
        self._stacks.clear()
        self.with_stacks = with_stacks
        self.active = True

    def stop(self) -> list[ChangeT]:
        """Stop recording; what was recorded since `start()`."""
        self.active = False
        changes, self.changes = self.changes, []
        return changes

    def _on_params(
        self, params: Any = None, model: Any = None, context: Any = None, **_: Any
    ) -> None:
        if not self.active or model is None or not isinstance(context, dict):
            return
        if (model.service_model.service_name, model.name) in EXTRACTORS:
            context[_PARAMS] = params

    def _on_answer(
        self,
        http_response: Any = None,
        parsed: Any = None,
        model: Any = None,
        context: Any = None,
        **_: Any,
    ) -> None:
        if not isinstance(context, dict):
            return
        params = context.pop(_PARAMS, None)
        if not self.active or params is None or model is None:
            return
        try:
            if not 200 <= http_response.status_code < 300:
                return  # answered with an error: nothing changed
        except AttributeError:
            return
        extract = EXTRACTORS[(model.service_model.service_name, model.name)]
        try:
            found = extract(params, parsed if isinstance(parsed, Mapping) else {})
        except (KeyError, TypeError, AttributeError, ValueError):
            return  # parameters botocore would have refused: the call did not happen
        if not found:
            return
        location, stack = self._caller()
        with self._lock:
            self.changes.extend(replace(c, location=location, stack=stack) for c in found)

    def _caller(self) -> tuple[str, str]:
        """The innermost application frame making the call (`app/h.py:12`) and, when
        stacks are kept, the stack there; ("", "") outside the application (a library's
        thread)."""
        frame, location = app_caller(sys._getframe(2), self.app_dirs)
        if frame is None or not self.with_stacks:
            return location, ""
        stack = self._stacks.get(location)
        if stack is None:
            stack = self._stacks[location] = app_stack_text(frame, self.app_dirs)
        return location, stack


# =========================================================================== bodies
def digest(body: Any) -> str:
    """SHA-256 of a body (bytes, text, a JSON value), hex."""
    return hashlib.sha256(_bytes(body)).hexdigest()


def shown(body: Any) -> str:
    text = _bytes(body)[: SHOWN_BODY * 4].decode("utf-8", "replace")
    return text if len(text) <= SHOWN_BODY else text[: SHOWN_BODY - 3] + "..."


def _bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes | bytearray | memoryview):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    if hasattr(body, "read"):  # a stream the SDK already sent: its size is all we know
        return f"<stream {type(body).__name__}>".encode()
    return json.dumps(body, sort_keys=True, default=str).encode()


# =========================================================================== names
def _last(arn_or_name: str, separator: str) -> str:
    return arn_or_name.rsplit(separator, 1)[-1] if arn_or_name.startswith("arn:") else arn_or_name


def _table(name: str) -> str:
    return _last(name, "/")


def _queue(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def _topic(arn: str) -> str:
    return arn.rsplit(":", 1)[-1]


def _function(name: str) -> str:
    """`name`, `name:alias`, `arn:...:function:name[:alias]`, `123:function:name`."""
    parts = name.split(":")
    if "function" in parts:
        return parts[parts.index("function") + 1]
    return parts[0]


def _fifo_dedup(name: str, explicit: Any, body: Any) -> str:
    """What a FIFO queue or topic deduplicates by: the explicit id, else (content-based
    deduplication, which a send without an id needs to succeed) the body's SHA-256."""
    if not name.endswith(".fifo"):
        return ""
    return str(explicit) if explicit else digest(body)


# =========================================================================== extractors
def _dynamodb_put(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    return [_item_put(params["TableName"], params["Item"], "PutItem")]


def _dynamodb_key(operation: str) -> ExtractT:
    def extract(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
        return [_item_key(params["TableName"], params["Key"], operation)]

    return extract


def _dynamodb_batch(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    unprocessed = parsed.get("UnprocessedItems") or {}
    found = []
    for table, requests in params["RequestItems"].items():
        left = unprocessed.get(table) or []
        for request in requests:
            if request in left:
                continue
            if "PutRequest" in request:
                found.append(_item_put(table, request["PutRequest"]["Item"], "BatchWriteItem"))
            elif "DeleteRequest" in request:
                found.append(_item_key(table, request["DeleteRequest"]["Key"], "BatchWriteItem"))
    return found


def _dynamodb_transact(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    found = []
    for entry in params["TransactItems"]:
        if "Put" in entry:
            found.append(
                _item_put(entry["Put"]["TableName"], entry["Put"]["Item"], "TransactWriteItems")
            )
        for kind in ("Update", "Delete"):
            if kind in entry:
                part = entry[kind]
                found.append(_item_key(part["TableName"], part["Key"], "TransactWriteItems"))
    return found


def _item_put(table: str, item: Mapping[str, Any], operation: str) -> ChangeT:
    return RawWrite(ResourceKind.TABLE, _table(table), operation, item=dict(item))


def _item_key(table: str, key: Mapping[str, Any], operation: str) -> ChangeT:
    return RawWrite(ResourceKind.TABLE, _table(table), operation, key=dict(key))


def _s3_object(operation: str) -> ExtractT:
    def extract(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
        return [
            RawWrite(ResourceKind.BUCKET, params["Bucket"], operation, key={"key": params["Key"]})
        ]

    return extract


def _s3_delete_objects(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    deleted = parsed.get("Deleted") or params["Delete"]["Objects"]
    return [
        RawWrite(ResourceKind.BUCKET, params["Bucket"], "DeleteObjects", key={"key": o["Key"]})
        for o in deleted
        if isinstance(o, Mapping) and "Key" in o
    ]


def _sent(kind: ResourceKind, name: str, operation: str, body: Any, dedup: str = "") -> ChangeT:
    return Sent(kind, name, operation, digest(body), dedup, shown(body))


def _sqs_send(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    name = _queue(params["QueueUrl"])
    body = params["MessageBody"]
    dedup = _fifo_dedup(name, params.get("MessageDeduplicationId"), body)
    return [_sent(ResourceKind.QUEUE, name, "SendMessage", body, dedup)]


def _sqs_send_batch(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    name = _queue(params["QueueUrl"])
    ok = {e.get("Id") for e in parsed.get("Successful") or ()}
    return [
        _sent(
            ResourceKind.QUEUE,
            name,
            "SendMessageBatch",
            entry["MessageBody"],
            _fifo_dedup(name, entry.get("MessageDeduplicationId"), entry["MessageBody"]),
        )
        for entry in params["Entries"]
        if entry.get("Id") in ok
    ]


def _sns_publish(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    target = params.get("TopicArn") or params.get("TargetArn")
    name = _topic(target) if target else f"sms:{params.get('PhoneNumber', '')}"
    body = params["Message"]
    dedup = _fifo_dedup(name, params.get("MessageDeduplicationId"), body)
    return [_sent(ResourceKind.TOPIC, name, "Publish", body, dedup)]


def _sns_publish_batch(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    name = _topic(params["TopicArn"])
    ok = {e.get("Id") for e in parsed.get("Successful") or ()}
    return [
        _sent(
            ResourceKind.TOPIC,
            name,
            "PublishBatch",
            entry["Message"],
            _fifo_dedup(name, entry.get("MessageDeduplicationId"), entry["Message"]),
        )
        for entry in params["PublishBatchRequestEntries"]
        if entry.get("Id") in ok
    ]


def _put_events(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    answers = parsed.get("Entries") or []
    found = []
    for i, entry in enumerate(params["Entries"]):
        answer = answers[i] if i < len(answers) else {}
        if isinstance(answer, Mapping) and answer.get("ErrorCode"):
            continue
        bus = _last(entry.get("EventBusName") or "default", "/")
        body = {k: entry.get(k) for k in ("Source", "DetailType", "Detail")}
        found.append(_sent(ResourceKind.EVENT_BUS, bus, "PutEvents", body))
    return found


def _start_execution(operation: str) -> ExtractT:
    def extract(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
        machine = params["stateMachineArn"].rsplit(":", 1)[-1]
        name = params.get("name") or ""  # an execution name is unique: a repeat is refused
        return [_sent(ResourceKind.STATE_MACHINE, machine, operation, params.get("input"), name)]

    return extract


def _invoke(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    if params.get("InvocationType") != "Event":
        return []  # a synchronous call: what the function does is not this delivery's
    name = _function(params["FunctionName"])
    return [_sent(ResourceKind.FUNCTION, name, "Invoke", params.get("Payload"))]


def _invoke_async(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    name = _function(params["FunctionName"])
    return [_sent(ResourceKind.FUNCTION, name, "InvokeAsync", params.get("InvokeArgs"))]


def _stream(params: Mapping[str, Any]) -> str:
    return params.get("StreamName") or _last(params.get("StreamARN") or "", "/")


def _put_record(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    return [_sent(ResourceKind.STREAM, _stream(params), "PutRecord", params["Data"])]


def _put_records(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
    answers = parsed.get("Records") or []
    found = []
    for i, record in enumerate(params["Records"]):
        answer = answers[i] if i < len(answers) else {}
        if isinstance(answer, Mapping) and answer.get("ErrorCode"):
            continue
        found.append(_sent(ResourceKind.STREAM, _stream(params), "PutRecords", record["Data"]))
    return found


def _ses(operation: str, body_key: str) -> ExtractT:
    def extract(params: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[ChangeT]:
        sender = params.get("Source") or params.get("FromEmailAddress") or "(the message's From)"
        return [_sent(ResourceKind.EMAIL, sender, operation, params.get(body_key))]

    return extract


#: (botocore service name, operation) -> what a successful call changed.
EXTRACTORS: dict[tuple[str, str], ExtractT] = {
    ("dynamodb", "PutItem"): _dynamodb_put,
    ("dynamodb", "UpdateItem"): _dynamodb_key("UpdateItem"),
    ("dynamodb", "DeleteItem"): _dynamodb_key("DeleteItem"),
    ("dynamodb", "BatchWriteItem"): _dynamodb_batch,
    ("dynamodb", "TransactWriteItems"): _dynamodb_transact,
    ("s3", "PutObject"): _s3_object("PutObject"),
    ("s3", "CopyObject"): _s3_object("CopyObject"),
    ("s3", "DeleteObject"): _s3_object("DeleteObject"),
    ("s3", "CompleteMultipartUpload"): _s3_object("CompleteMultipartUpload"),
    ("s3", "DeleteObjects"): _s3_delete_objects,
    ("sqs", "SendMessage"): _sqs_send,
    ("sqs", "SendMessageBatch"): _sqs_send_batch,
    ("sns", "Publish"): _sns_publish,
    ("sns", "PublishBatch"): _sns_publish_batch,
    ("events", "PutEvents"): _put_events,
    ("stepfunctions", "StartExecution"): _start_execution("StartExecution"),
    ("stepfunctions", "StartSyncExecution"): _start_execution("StartSyncExecution"),
    ("lambda", "Invoke"): _invoke,
    ("lambda", "InvokeAsync"): _invoke_async,
    ("kinesis", "PutRecord"): _put_record,
    ("kinesis", "PutRecords"): _put_records,
    ("ses", "SendEmail"): _ses("SendEmail", "Message"),
    ("ses", "SendRawEmail"): _ses("SendRawEmail", "RawMessage"),
    ("ses", "SendTemplatedEmail"): _ses("SendTemplatedEmail", "TemplateData"),
    ("ses", "SendBulkTemplatedEmail"): _ses("SendBulkTemplatedEmail", "Destinations"),
    ("sesv2", "SendEmail"): _ses("SendEmail", "Content"),
    ("sesv2", "SendBulkEmail"): _ses("SendBulkEmail", "BulkEmailEntries"),
}
