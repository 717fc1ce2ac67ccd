"""A reproduction written out for AWS's own tools: `lambdafuzz repro FILE --export DIR`.

A failure is fixed faster when it can be run where the team already debugs: `sam local
invoke` with the event and the environment, the world loaded into a test account or
LocalStack with the AWS CLI.  The folder holds `event.json`, `env.json` (the
`sam local invoke --env-vars` format), the world's S3 objects as files under
`s3/<bucket>/<key>`, DynamoDB items as `batch-write-item` requests, queue messages as
`send-message-batch` entries, and a README.txt with the commands.

Nothing is written outside DIR: object keys are untrusted (a handler-shaped world may hold
`../../etc/x` or `/abs`), so every key segment that is not a plain name is percent-encoded,
each path is checked to stay inside DIR, and no file is written through a symlink.  A
non-empty DIR is refused unless `force` (then files of the same name are replaced and
others left as they are).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from lambdafuzz.model.world import Queue, Table, World

#: DynamoDB's BatchWriteItem takes at most 25 requests, SQS's SendMessageBatch 10 entries.
DYNAMODB_BATCH: Final = 25
SQS_BATCH: Final = 10
#: Longer names are shortened (most file systems stop at 255 bytes).
MAX_NAME_BYTES: Final = 200


class ExportError(Exception):
    """The export folder cannot be used (not empty without force, a file, a symlink)."""


class _Clash(Exception):
    """A file must go where a folder is, or a folder where a file is (keys `a` and `a/b`)."""


@dataclass(slots=True, frozen=True)
class Export:
    """What was written: the folder and its files, relative to it, in writing order."""

    path: Path
    files: tuple[str, ...]


def export_reproduction(
    directory: Path,
    *,
    event: Any,
    world: World,
    env: Mapping[str, str],
    function: str | None,
    force: bool = False,
) -> Export:
    """Write the reproduction of one input into `directory` (created when missing)."""
    writer = _Writer(_prepare(directory, force))
    writer.json("event.json", event)
    writer.json("env.json", {function or "Parameters": dict(env)})
    s3_lines = _objects(writer, world)
    dynamodb_lines = _tables(writer, world.tables)
    sqs_lines = _queues(writer, world.queues)
    writer.text("README.txt", _readme(function, s3_lines, dynamodb_lines, sqs_lines))
    return Export(writer.root, tuple(writer.written))


def _prepare(directory: Path, force: bool) -> Path:
    if directory.is_symlink():
        raise ExportError(f"{directory}: is a symlink; expected a folder to export into.")
    if directory.exists() and not directory.is_dir():
        raise ExportError(f"{directory}: is not a folder; expected a folder to export into.")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise ExportError(
            f"{directory}: is not empty; choose a new folder or pass --force to write into "
            f"it (files of the same names are replaced)."
        )
    directory.mkdir(parents=True, exist_ok=True)
    return directory.resolve()


class _Writer:
    """Writes files strictly inside `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: list[str] = []

    def _path(self, parts: Iterable[str]) -> Path:
        path = self.root.joinpath(*(_fit_name(part) for part in parts))
        current = self.root
        for part in path.relative_to(self.root).parts[:-1]:
            current = current / part
            if current.is_symlink():
                raise ExportError(f"{current}: is a symlink; not writing through it")
            if current.exists() and not current.is_dir():
                raise _Clash(current)
            current.mkdir(exist_ok=True)
        if path.is_symlink():
            raise ExportError(f"{path}: is a symlink; not writing through it")
        if path.is_dir():
            raise _Clash(path)
        resolved = Path(os.path.realpath(path.parent)) / path.name
        if os.path.commonpath([resolved, self.root]) != str(self.root):
            raise ExportError(f"{path}: would be outside {self.root}; not written")
        return path

    def bytes(self, parts: Iterable[str], data: bytes) -> str:
        path = self._path(parts)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o644)
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        relative = path.relative_to(self.root).as_posix()
        self.written.append(relative)
        return relative

    def text(self, name: str, text: str) -> str:
        return self.bytes(name.split("/"), text.encode("utf-8"))

    def json(self, name: str, value: Any) -> str:
        return self.text(name, json.dumps(value, indent=2, ensure_ascii=False, default=repr) + "\n")


def safe_segment(segment: str) -> str:
    """A key segment as a file name: as it is when it is a plain name, else percent-encoded
    (`..` -> `%2E%2E`, `` -> `%2F` for the empty segment of `a//b` or a leading `/`)."""
    if segment in ("", ".", ".."):
        return "%2E" * len(segment) or "%2F"
    if any(ch in segment for ch in "\\\0%") or any(ord(ch) < 32 for ch in segment):
        return quote(segment, safe=" !$&'()+,;=@[]^`{}~")
    return segment


def _fit_name(name: str) -> str:
    """A file name within the usual 255-byte limit: a long one keeps its start and ends in
    a hash of the whole (S3 keys reach 1,024 bytes)."""
    if len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    head = name.encode("utf-8")[: MAX_NAME_BYTES - 20].decode("utf-8", "ignore")
    return f"{head}~{digest}"


def key_path(key: str) -> list[str]:
    """An object key as the file path segments it is written to."""
    return [safe_segment(part) for part in key.split("/")]


def _objects(writer: _Writer, world: World) -> list[str]:
    """Each object under s3/<bucket>/ (a key that clashes with another's folder as one
    percent-encoded name); the commands that upload them: one recursive copy per bucket
    whose keys are all their file paths, else one put-object per object (exact key)."""
    lines: list[str] = []
    for bucket in world.buckets:
        folder = safe_segment(bucket.name)
        written = []
        for obj in bucket.objects:
            try:
                relative = writer.bytes(["s3", folder, *key_path(obj.key)], obj.data)
            except _Clash:
                flat = "%00" + quote(obj.key, safe="")
                relative = writer.bytes(["s3", folder, flat], obj.data)
            written.append((obj, relative))
        if not written:
            continue
        if all(relative == f"s3/{folder}/{obj.key}" for obj, relative in written):
            source, dest = shlex.quote(f"s3/{folder}"), shlex.quote(f"s3://{bucket.name}/")
            lines.append(f"aws s3 cp --recursive {source} {dest}")
            continue
        lines += [
            f"aws s3api put-object --bucket {shlex.quote(bucket.name)} "
            f"--key {shlex.quote(obj.key)} --body {shlex.quote(relative)}"
            for obj, relative in written
        ]
    return lines


def _tables(writer: _Writer, tables: Iterable[Table]) -> list[str]:
    lines = []
    for table in tables:
        items = [_json_item(item) for item in table.items]
        for number, start in enumerate(range(0, len(items), DYNAMODB_BATCH), 1):
            batch = items[start : start + DYNAMODB_BATCH]
            request = {table.name: [{"PutRequest": {"Item": item}} for item in batch]}
            name = f"{safe_segment(table.name)}-{number}.json"
            relative = writer.json(f"dynamodb/{name}", request)
            lines.append(f"aws dynamodb batch-write-item --request-items file://{relative}")
    return lines


def _json_item(item: Mapping[str, Any]) -> Any:
    """DynamoDB JSON with binary values in base64, as the AWS CLI reads them."""
    if isinstance(item, Mapping):
        return {k: _json_item(v) for k, v in item.items()}
    if isinstance(item, list):
        return [_json_item(v) for v in item]
    if isinstance(item, bytes | bytearray):
        return base64.b64encode(item).decode("ascii")
    return item


def _queues(writer: _Writer, queues: Iterable[Queue]) -> list[str]:
    lines = []
    for queue in queues:
        entries = []
        for index, message in enumerate(queue.messages):
            entry: dict[str, Any] = {"Id": str(index), "MessageBody": message.body}
            if message.attributes:
                entry["MessageAttributes"] = {
                    name: {"DataType": "String", "StringValue": value}
                    for name, value in message.attributes
                }
            if message.group_id is not None:
                entry["MessageGroupId"] = message.group_id
                entry["MessageDeduplicationId"] = message.deduplication_id or str(index)
            entries.append(entry)
        for number, start in enumerate(range(0, len(entries), SQS_BATCH), 1):
            name = f"{safe_segment(queue.name)}-{number}.json"
            relative = writer.json(f"sqs/{name}", entries[start : start + SQS_BATCH])
            url = f'"$(aws sqs get-queue-url --queue-name {shlex.quote(queue.name)} --query QueueUrl --output text)"'
            lines.append(
                f"aws sqs send-message-batch --queue-url {url} --entries file://{relative}"
            )
    return lines


def _readme(function: str | None, s3: list[str], dynamodb: list[str], sqs: list[str]) -> str:
    name = function or "<Function>"
    parts = [
        "A lambdafuzz input, exported to run with AWS's own tools.",
        "",
        "Invoke the function locally with this event and environment (from the folder of",
        "your template):",
        "",
        f"  sam local invoke {name} -e event.json --env-vars env.json",
        "",
        "(paths relative to this folder; env.json names the resources as lambdafuzz's world",
        "did: adjust them to your test account's names).",
    ]
    world = [*s3, *dynamodb, *sqs]
    if world:
        parts += [
            "",
            "Load the world into a test account or LocalStack first (run from this folder;",
            "for LocalStack add --endpoint-url http://localhost:4566 or use awslocal):",
            "",
            *(f"  {line}" for line in world),
        ]
    else:
        parts += ["", "The world is empty: nothing to load."]
    return "\n".join(parts) + "\n"
