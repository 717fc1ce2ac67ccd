"""S3 Batch Operations invocations: a batch job calling the function once per object of its
manifest.

The event (`invocationSchemaVersion` 1.0 or 2.0, as the job's `LambdaInvoke` operation
says) carries the job's id and one task naming an object: its key URL-encoded
(`s3Key`, percent-encoding, `/` kept: handlers `unquote` it), `s3VersionId` (null: the
world's buckets are not versioned), and the bucket as `s3BucketArn` (1.0) or `s3Bucket`
(2.0, with the job's `userArguments`).  The task's object is one of the world's objects
in the trigger's bucket, drawn as an S3 notification's is (`s3_notifications`), so a
handler reading it finds it.  The response (`results`) is the handler's business.
Labels: `event.s3-batch` > the notification's labels for the object.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.s3_notifications import (
    S3RecordPlan,
    draw_s3_record,
    missing_chance,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.target import Trigger
from lambdafuzz.model.world import Bucket

SCHEMA_VERSIONS: Final = ("1.0", "2.0")
#: Names of job arguments when the code reads none (`Choices.fields`).
ARGUMENT_NAMES: Final = ("mode", "prefix", "target", "dryRun")
ARGUMENT_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz0123456789-_./"


@dataclass(slots=True, frozen=True)
class S3BatchPlan:
    """One invocation of a batch job: its schema version, the task's object, the job's
    user arguments (2.0); ids derive from `seed`."""

    version: str
    task: S3RecordPlan
    arguments: tuple[tuple[str, str], ...]
    seed: bytes


def draw_s3_batch(choices: Choices, trigger: Trigger, buckets: Sequence[Bucket]) -> S3BatchPlan:
    """An invocation naming an object of the trigger's bucket (any bucket without one)."""
    # a job has one version; the config names it (`trigger.schema_version`) or either is drawn
    version = choices.draw_choice(trigger.batch_schemas or SCHEMA_VERSIONS, site="schema-version")
    task = draw_s3_record(
        choices,
        buckets,
        bucket=trigger.source,
        missing_p=missing_chance(trigger.missing_objects),
        site="task",
    )
    arguments: list[tuple[str, str]] = []
    if version == "2.0":
        for _ in range(choices.draw_geometric(1.0, max_value=4, site="arguments")):
            if choices.fields and choices.draw_boolean(0.5, site="argument-from-code?"):
                name = choices.draw_choice(choices.fields, site="argument-name")
            else:
                name = choices.draw_choice(ARGUMENT_NAMES, site="argument-name")
            value = choices.draw_from_dictionary(
                lambda: choices.draw_string(ARGUMENT_ALPHABET, 0, 16, site="argument")
            )
            arguments.append((name, encodable(value)))
    return S3BatchPlan(version, task, tuple(dict(arguments).items()), ids.draw_seed(choices))


def encode_task_key(key: str) -> str:
    """An object key as S3 Batch Operations writes it into a task (percent-encoded)."""
    return urllib.parse.quote(key, safe="/")


def render_s3_batch(plan: S3BatchPlan) -> dict[str, Any]:
    """The invocation event of the plan's schema version."""
    task: dict[str, Any] = {
        "taskId": ids.b64_id(plan.seed, "task", 24),
        "s3Key": encode_task_key(plan.task.key),
        "s3VersionId": None,
    }
    job: dict[str, Any] = {"id": ids.uuid(plan.seed, "job")}
    if plan.version == "1.0":
        task["s3BucketArn"] = f"arn:aws:s3:::{plan.task.bucket}"
    else:
        task["s3Bucket"] = plan.task.bucket
        job["userArguments"] = dict(plan.arguments)
    return {
        "invocationSchemaVersion": plan.version,
        "invocationId": ids.b64_id(plan.seed, "invocation", 48),
        "job": job,
        "tasks": [task],
    }
