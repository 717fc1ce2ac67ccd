"""The at-least-once delivery oracle in the worker: a test's event delivered a second time.

For a test whose request says `deliveries: 2` (`model.redelivery.deliveries_for`), the
worker calls `begin(event)` before the handler's call and, once it returned,
`again(handler, context, value)`: the handler is called again with the same event (a copy
taken before the first call: a handler that changed its event does not change the retry)
and the same context -- the same `aws_request_id`, a fresh deadline, as a retry has --
in the world the first call left.  For an SQS, Kinesis or DynamoDB-stream trigger with
`report_batch_item_failures` whose first response reports failures, the second delivery is
what Lambda delivers next (`model.batch_delivery.redelivered`).

Each delivery's successful writes and sends are recorded (`harness.world_writes`); right
after each delivery the places its writes touched are read back through the emulator with
the worker's own clients (recording off, the permission oracle paused), so the judgement
(`model.redelivery_judgement`) compares states, not requests.  An exception of the second
call propagates: it is the test's failure, as a retry's would be in production; its
`end()` then has no findings.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from lambdafuzz.harness.emulator.blame import emulator_gap
from lambdafuzz.harness.invoke import failure_info, safe_repr
from lambdafuzz.harness.measure.arm_catalog import ArmKey
from lambdafuzz.harness.oracle.world_writes import ChangeT, RawWrite, WriteLog
from lambdafuzz.model.batch_delivery import BATCH_KINDS, lambda_json, redelivered
from lambdafuzz.model.oracle import OracleFinding, OracleKind
from lambdafuzz.model.outcome import FailureInfo
from lambdafuzz.model.redelivery import (
    Delivery,
    KeyT,
    ObjectState,
    PlaceT,
    ResourceKind,
    Sent,
    Written,
)
from lambdafuzz.model.redelivery_judgement import DUPLICATE_DELIVERY, Change, judge
from lambdafuzz.model.target import Target, app_dirs

#: Bytes of an object's body kept to compare (JSON, text); past it, only the digest.
MAX_BODY = 1024 * 1024


class Pausable(Protocol):
    """Another oracle watching the handler's calls (`PermissionCheck`): on for the second
    delivery, off while states are read."""

    def begin(self) -> None: ...
    def pause(self) -> None: ...


class Coverage(Protocol):
    """The test's coverage collector (`BranchCollector`): the second delivery counted
    afresh and merged arm by arm, so the test covers the union of both."""

    def restart(self) -> dict[ArmKey, int]: ...
    def keep_max(self, earlier: dict[ArmKey, int]) -> None: ...


class Redelivery:
    """Delivers a test's event twice and judges what the second delivery changed."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.accept = frozenset(target.idempotency_accept)
        self.dirs = app_dirs(target)
        self.log = WriteLog(self.dirs)
        self.reader = StateReader(target)
        self._event: Any = None
        self._findings: tuple[OracleFinding, ...] = ()

    def install(self) -> None:
        """Hook botocore: before any boto3/botocore session is created."""
        self.log.install()

    def begin(self, event: Any) -> None:
        """The first delivery of `event` starts: record what it changes."""
        self.reader.prepare()  # the sandbox is fresh: nothing the handler did yet
        self._event = copy.deepcopy(event)
        self._findings = ()
        self.log.start()

    def again(
        self,
        handler: Callable[[Any, Any], Any],
        context: Any,
        value: Any,
        checks: Sequence[Pausable] = (),
        coverage: Coverage | None = None,
        fresh_sandbox: Callable[[], None] | None = None,
    ) -> Any:
        """The second delivery, after the first returned `value`: what the handler
        returned this time: the first delivery's `value` when the retry raised an `Exception`
        (a `fails-on-retry` finding; an emulator's exception, and SystemExit and the like,
        propagate).  `checks` are turned on for the
        call and off again; `coverage` covers both calls' arms; `fresh_sandbox` makes the
        process as every invocation finds it (environment, working directory, an empty
        /tmp): what the first left there is no more the retry's than a test's is the
        next test's."""
        changes = self.log.stop()
        if fresh_sandbox is not None:
            fresh_sandbox()
        first = self._delivery(changes)
        event = self._second_event(value)
        retry = _retried(context, self.target.timeout_s)
        earlier = coverage.restart() if coverage is not None else None
        self.log.start(with_stacks=True)
        for check in checks:
            check.begin()
        failed: Exception | None = None
        try:
            answer = handler(event, retry)
        except Exception as exc:  # noqa: BLE001 - judged below; SystemExit and the like propagate
            if emulator_gap(exc, self.dirs) is not None:
                raise  # the emulator's or lambdafuzz's: the worker says so, as for any call
            failed, answer = exc, value
        finally:
            changes = self.log.stop()
            for check in checks:
                check.pause()
            if coverage is not None and earlier is not None:
                coverage.keep_max(earlier)
        second = self._delivery(changes)
        found = judge(first, second, accept=self.accept, event=self._event)
        self._findings = tuple(d.finding() for d in found)
        if failed is not None:
            self._findings += (self._fails_on_retry(failed, value),)
        return answer

    def _fails_on_retry(self, exc: Exception, value: Any) -> OracleFinding:
        """The retry raised where the first delivery returned: the handler is not safe to
        deliver twice (what the first delivery did makes the second fail: an item already
        gone, a conditional write refused), so a redelivery ends in an error, retries and
        a dead-letter queue. An idempotency finding, not a failure: no single delivery
        fails."""
        raised = failure_info(exc, self.dirs)
        info = FailureInfo(
            exception_type=DUPLICATE_DELIVERY,
            message=(
                f"the second delivery of the same event raised {raised.exception_type}: "
                f"{raised.message[:500]} (the first delivery returned)"
            ),
            traceback=raised.traceback,
            location=raised.location,
            detail=Change.FAILS_ON_RETRY.value,
            shape=raised.exception_type,
        )
        evidence = (
            f"first delivery: returned {safe_repr(value, 300)}\n"
            f"second delivery (the same event, as a retry): raised {raised.exception_type}: "
            f"{raised.message[:500]} at {raised.where}"
        )
        return OracleFinding(OracleKind.IDEMPOTENCY, info, evidence)

    def end(self) -> tuple[OracleFinding, ...]:
        """The test is over (whichever way): its findings; recording off."""
        self.log.stop()
        found, self._findings = self._findings, ()
        self._event = None
        return found

    def _second_event(self, value: Any) -> Any:
        trigger = self.target.trigger
        if trigger.report_batch_item_failures and trigger.kind in BATCH_KINDS:
            again = redelivered(trigger.kind, self._event, lambda_json(value))
            if again is not None:
                return again
        return copy.deepcopy(self._event)

    def _delivery(self, changes: list[ChangeT]) -> Delivery:
        """The changes of one delivery with the state of every place its writes touched,
        read now."""
        written: list[Written] = []
        keys: dict[PlaceT, Mapping[str, Any]] = {}
        for change in changes:
            if isinstance(change, RawWrite):
                found = self.reader.place(change)
                if found is not None:
                    write, raw_key = found
                    written.append(write)
                    keys.setdefault(write.place, raw_key)
        states = {place: self.reader.state(place, raw) for place, raw in keys.items()}
        sent = tuple(c for c in changes if isinstance(c, Sent))
        return Delivery(tuple(written), sent, states, time.time())


def _retried(context: Any, timeout_s: float) -> Any:
    """The context of a retry: the same object's copy (same `aws_request_id`, function
    and log stream) with the whole timeout ahead of it again."""
    retry = copy.copy(context)
    if hasattr(retry, "_deadline"):  # `invoke.LambdaContext`
        retry._deadline = time.monotonic() + timeout_s
    return retry


# =========================================================================== reading states
class StateReader:
    """Reads items and objects back through the emulator, with clients of its own (made
    on first use, in the sandbox environment: the emulator's endpoint and fake
    credentials).  Call it only while no oracle records calls."""

    def __init__(self, target: Target) -> None:
        # a declared table's key names; others are asked of the emulator once (DescribeTable)
        self._key_names: dict[str, tuple[str, ...]] = {
            t.name: tuple(n for n in (t.key_schema.hash_name, t.key_schema.range_name) if n)
            for t in target.resources.tables
        }
        self._clients: dict[str, Any] = {}

    def prepare(self) -> None:
        """Make the clients, once, while the environment is the sandbox's as set up (a
        handler may change it; a client keeps what it was made with)."""
        if not self._clients:
            import boto3

            for service in ("dynamodb", "s3"):
                self._clients[service] = boto3.client(service)

    def client(self, service: str) -> Any:
        self.prepare()
        return self._clients[service]

    def place(self, write: RawWrite) -> tuple[Written, Mapping[str, Any]] | None:
        """The written place of `write` (its key by the table's key schema) and the key as
        a read takes it; None when the key cannot be told (an item without its key)."""
        if write.kind is ResourceKind.BUCKET:
            assert write.key is not None
            key: KeyT = (("key", write.key["key"]),)
            raw: Mapping[str, Any] = write.key
        else:
            raw_key = write.key
            if raw_key is None:
                names = self.key_names(write.resource)
                item = write.item or {}
                if not names or any(n not in item for n in names):
                    return None
                raw_key = {n: item[n] for n in names}
            try:
                key = tuple(sorted((n, _plain_value(v)) for n, v in raw_key.items()))
                hash(key)
            except (TypeError, ValueError, KeyError):
                return None
            raw = raw_key
        made = Written(
            write.kind, write.resource, key, write.operation, write.location, write.stack
        )
        return made, raw

    def key_names(self, table: str) -> tuple[str, ...]:
        names = self._key_names.get(table)
        if names is None:
            try:
                schema = self.client("dynamodb").describe_table(TableName=table)["Table"]
                names = tuple(k["AttributeName"] for k in schema["KeySchema"])
            except Exception:  # noqa: BLE001 - a table the emulator does not have: no key
                names = ()
            self._key_names[table] = names
        return names

    def state(self, place: PlaceT, raw_key: Mapping[str, Any]) -> Any:
        """The item (plain values) or object at `place` now; None when absent or when
        it cannot be read."""
        kind, resource, _ = place
        try:
            if kind is ResourceKind.TABLE:
                answer = self.client("dynamodb").get_item(
                    TableName=resource, Key=dict(raw_key), ConsistentRead=True
                )
                item = answer.get("Item")
                return None if item is None else _plain_item(item)
            return self._object(resource, raw_key["key"])
        except Exception:  # noqa: BLE001 - gone with its table or bucket: absent
            return None

    def _object(self, bucket: str, key: str) -> ObjectState | None:
        s3 = self.client("s3")
        try:
            answer = s3.get_object(Bucket=bucket, Key=key)
        except s3.exceptions.NoSuchKey:
            return None
        body = answer["Body"]
        hasher = hashlib.sha256()
        kept = bytearray()
        size = 0
        while chunk := body.read(256 * 1024):
            hasher.update(chunk)
            size += len(chunk)
            if size <= MAX_BODY:
                kept += chunk
        return ObjectState(
            hasher.hexdigest(),
            size,
            bytes(kept) if size <= MAX_BODY else None,
            answer.get("ContentType") or "",
        )


def _plain_item(item: Mapping[str, Any]) -> dict[str, Any]:
    return {name: _plain_value(value) for name, value in item.items()}


def _plain_value(value: Any) -> Any:
    """A DynamoDB AttributeValue as plain Python: str, Decimal, bytes, bool, None, lists,
    dicts, sets (boto3's deserializer, its `Binary` as bytes)."""
    from boto3.dynamodb.types import Binary, TypeDeserializer

    plain = TypeDeserializer().deserialize(value)
    return _unwrap(plain, Binary)


def _unwrap(value: Any, binary: type) -> Any:
    if isinstance(value, binary):
        return bytes(value.value)
    if isinstance(value, dict):
        return {k: _unwrap(v, binary) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v, binary) for v in value]
    if isinstance(value, set):
        return {_unwrap(v, binary) for v in value}
    return value
