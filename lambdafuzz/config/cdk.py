"""AWS CDK's cloud assembly (`cdk.out/`): what `cdk synth` writes, read as templates.

A CDK app is a program, but its synthesized output is plain CloudFormation: one
`<Stack>.template.json` per stack, listed in `manifest.json`, and each function's code
staged as an asset folder `cdk.out/asset.<hash>/`, named by the function's metadata
(`aws:asset:path`, with `aws:asset:property: Code`) while `Code` itself points at the S3
object the deployment uploads.  So fuzzing `cdk.out` needs three things the SAM reader does
not do: find the stack template in the folder, take a function's code from its asset
folder, and read S3 notifications from the `Custom::S3BucketNotifications` resource CDK
uses instead of the bucket's own NotificationConfiguration.  Functions CDK adds for its own
custom resources (the bucket-notifications handler, provider frameworks) are not the
application's and are skipped.  An asset that is not a folder in cdk.out (a Docker-built
bundle that was not produced) is reported as such; a zipped one is unpacked as a `.zip`
CodeUri is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from lambdafuzz.errors import ConfigError

MANIFEST: Final = "manifest.json"
TEMPLATE_SUFFIX: Final = ".template.json"
NOTIFICATIONS_TYPE: Final = "Custom::S3BucketNotifications"
#: Resource types of a CDK assembly that describe nothing the handler could observe.
SILENT_TYPES: Final = frozenset({"AWS::CDK::Metadata"})
#: Logical id prefixes and construct path parts of the functions CDK adds for itself.
_INTERNAL_IDS: Final = ("BucketNotificationsHandler", "CustomResourceProvider", "AWS679f53fac")
_INTERNAL_PATHS: Final = ("/Custom::", "/Provider/framework", "CustomResourceHandler")


def is_cloud_assembly(directory: Path) -> bool:
    return directory.is_dir() and (directory / MANIFEST).is_file()


def assembly_template(directory: Path) -> Path:
    """The stack template of a cloud assembly: its only stack, or its only stack with a
    Lambda function; a `ConfigError` listing the stacks when that does not decide."""
    templates = _stack_templates(directory)
    if len(templates) > 1:
        with_functions = [t for t in templates if '"AWS::Lambda::Function"' in _head(t)]
        templates = with_functions or templates
    if len(templates) == 1:
        return templates[0]
    listed = ", ".join(t.name for t in templates) or "none"
    raise ConfigError(
        f"{directory}: a CDK cloud assembly with {len(templates)} stack templates with "
        f"functions ({listed}); expected one: pass the stack's template, e.g. "
        f"`lambdafuzz fuzz {directory / (templates[0].name if templates else 'Stack' + TEMPLATE_SUFFIX)}`."
    )


def _stack_templates(directory: Path) -> list[Path]:
    """The templates manifest.json lists for its stacks (every `*.template.json` when the
    manifest cannot be read)."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    artifacts = manifest.get("artifacts") if isinstance(manifest, dict) else None
    found: list[Path] = []
    for artifact in artifacts.values() if isinstance(artifacts, dict) else ():
        if not isinstance(artifact, dict) or artifact.get("type") != "aws:cloudformation:stack":
            continue
        name = (artifact.get("properties") or {}).get("templateFile")
        if isinstance(name, str) and (directory / name).is_file():
            found.append(directory / name)
    return found or sorted(directory.glob("*" + TEMPLATE_SUFFIX))


def _head(path: Path) -> str:
    try:
        with path.open("rb") as file:
            return file.read(4_000_000).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _metadata(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    found = resource.get("Metadata")
    return found if isinstance(found, dict) else {}


def asset_path(template_dir: Path, resource: Mapping[str, Any]) -> Path | None:
    """Where a function's code asset is staged (None: the function is no CDK asset)."""
    meta = _metadata(resource)
    path = meta.get("aws:asset:path")
    if meta.get("aws:asset:property") != "Code" or not isinstance(path, str):
        return None
    return (template_dir / path).resolve()


def asset_problem(template_dir: Path, resource: Mapping[str, Any]) -> str | None:
    """Why a CDK function's code cannot be imported from cdk.out (None: it can)."""
    path = asset_path(template_dir, resource)
    if path is None or path.is_dir():
        return None
    bundled = _metadata(resource).get("aws:asset:is-bundled") is True
    what = "a bundled asset (built in Docker by `cdk synth`)" if bundled else "its code asset"
    if path.is_file():  # a zipped asset is unpacked as a .zip CodeUri is
        return (
            None if path.suffix == ".zip" else f"{what} {path.name} is neither a folder nor a .zip"
        )
    return (
        f"{what} {path.name} is not in {template_dir}; run `cdk synth` (with Docker "
        "available, for bundling) so cdk.out holds the function's code folder"
    )


def is_internal(logical_id: str, resource: Mapping[str, Any]) -> bool:
    """Whether a function is one CDK adds for its own custom resources."""
    path = _metadata(resource).get("aws:cdk:path")
    if logical_id.startswith(_INTERNAL_IDS):
        return True
    return isinstance(path, str) and any(part in path for part in _INTERNAL_PATHS)


def s3_notifications(
    resources: Mapping[str, Any], function_id: str, logical_ref: Any
) -> list[tuple[str, str, dict[str, Any]]]:
    """(notifications resource, bucket logical id, SAM-style S3 event properties) for each
    `Custom::S3BucketNotifications` configuration that invokes `function_id`."""
    found = []
    for logical_id, resource in resources.items():
        if not isinstance(resource, dict) or resource.get("Type") != NOTIFICATIONS_TYPE:
            continue
        props = resource.get("Properties") if isinstance(resource.get("Properties"), dict) else {}
        bucket = logical_ref(props.get("BucketName"))
        configuration = props.get("NotificationConfiguration")
        lambdas = (
            configuration.get("LambdaFunctionConfigurations")
            if isinstance(configuration, dict)
            else None
        )
        for entry in lambdas if isinstance(lambdas, list) else ():
            if not isinstance(entry, dict) or logical_ref(entry.get("LambdaFunctionArn")) != (
                function_id
            ):
                continue
            rules = ((entry.get("Filter") or {}).get("Key") or {}).get("FilterRules") or []
            properties = {
                "Bucket": {"Ref": bucket},
                "Events": entry.get("Events"),
                "Filter": {"S3Key": {"Rules": rules}},
            }
            if bucket is not None:
                found.append((logical_id, bucket, properties))
    return found


def queue_notifications(resources: Mapping[str, Any], logical_ref: Any) -> dict[str, list[str]]:
    """Queue logical id -> the buckets whose `Custom::S3BucketNotifications` send to it."""
    found: dict[str, list[str]] = {}
    for resource in resources.values():
        if not isinstance(resource, dict) or resource.get("Type") != NOTIFICATIONS_TYPE:
            continue
        props = resource.get("Properties") if isinstance(resource.get("Properties"), dict) else {}
        bucket = logical_ref(props.get("BucketName"))
        configuration = props.get("NotificationConfiguration")
        queues = (
            configuration.get("QueueConfigurations") if isinstance(configuration, dict) else None
        )
        for entry in queues if isinstance(queues, list) else ():
            queue = logical_ref(entry.get("QueueArn")) if isinstance(entry, dict) else None
            if queue is not None and bucket is not None:
                found.setdefault(queue, []).append(bucket)
    return found
