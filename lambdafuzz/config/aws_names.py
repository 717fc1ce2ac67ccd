"""AWS resource naming rules, so a bad name fails at config load, not inside the emulator.

Each check returns None for a valid name, else what the rule expects and (when an obvious
repair exists) a suggested name.  The rules follow the service documentation: S3 "Bucket
naming rules" (general purpose buckets), DynamoDB "Naming rules", SQS queue and SNS topic
name limits.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class NameProblem:
    expected: str
    suggestion: str | None = None


_BUCKET_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
_BUCKET_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")


def bucket_name_problem(name: str) -> NameProblem | None:
    problem = None
    if not 3 <= len(name) <= 63:
        problem = "3 to 63 characters"
    elif not re.fullmatch(r"[a-z0-9][a-z0-9.-]*[a-z0-9]", name):
        problem = "lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit"
    elif ".." in name:
        problem = "no two adjacent dots"
    elif _is_ip(name):
        problem = "not formatted as an IP address"
    elif name.startswith(_BUCKET_PREFIXES):
        problem = "no reserved prefix (" + ", ".join(_BUCKET_PREFIXES) + ")"
    elif name.endswith(_BUCKET_SUFFIXES):
        problem = "no reserved suffix (" + ", ".join(_BUCKET_SUFFIXES) + ")"
    if problem is None:
        return None
    fixed = re.sub(r"[^a-z0-9.-]+", "-", name.lower()).replace("..", ".").strip(".-")[:63]
    ok = fixed != name and bucket_name_problem(fixed) is None if len(fixed) >= 3 else False
    return NameProblem(f"an S3 bucket name: {problem}", fixed if ok else None)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def table_name_problem(name: str) -> NameProblem | None:
    if re.fullmatch(r"[A-Za-z0-9_.-]{3,255}", name):
        return None
    fixed = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:255]
    ok = fixed != name and len(fixed) >= 3
    return NameProblem(
        "a DynamoDB table name: 3 to 255 of A-Z a-z 0-9 _ . -", fixed if ok else None
    )


def queue_name_problem(name: str) -> NameProblem | None:
    return _sqs_sns_name(name, 80, "an SQS queue name")


def topic_name_problem(name: str) -> NameProblem | None:
    return _sqs_sns_name(name, 256, "an SNS topic name")


def _sqs_sns_name(name: str, limit: int, what: str) -> NameProblem | None:
    stem = name.removesuffix(".fifo")
    if re.fullmatch(r"[A-Za-z0-9_-]+", stem) and len(name) <= limit:
        return None
    suffix = ".fifo" if name.endswith(".fifo") else ""
    fixed = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-")[: limit - len(suffix)]
    expected = f"{what}: 1 to {limit} of A-Z a-z 0-9 _ -, optionally ending in .fifo"
    return NameProblem(expected, fixed + suffix if fixed else None)


def secret_name_problem(name: str) -> NameProblem | None:
    """Secrets Manager: 1 to 512 of ASCII letters, digits and / _ + = . @ -."""
    if re.fullmatch(r"[A-Za-z0-9/_+=.@-]{1,512}", name):
        return None
    fixed = re.sub(r"[^A-Za-z0-9/_+=.@-]+", "-", name)[:512]
    return NameProblem(
        "a Secrets Manager secret name: 1 to 512 of A-Z a-z 0-9 / _ + = . @ -",
        fixed if fixed and fixed != name else None,
    )


def parameter_name_problem(name: str) -> NameProblem | None:
    """SSM Parameter Store: 1 to 1011 of letters, digits and _ . - /; a name with a `/`
    is a path and starts with one; no `aws` or `ssm` prefix."""
    problem = None
    if not re.fullmatch(r"[A-Za-z0-9_./-]{1,1011}", name):
        problem = "1 to 1011 of A-Z a-z 0-9 _ . - /"
    elif "/" in name and not name.startswith("/"):
        problem = "a path (a name with /) starting with /"
    elif name.lstrip("/").lower().startswith(("aws", "ssm")):
        problem = "no aws or ssm prefix"
    if problem is None:
        return None
    fixed = re.sub(r"[^A-Za-z0-9_./-]+", "-", name)[:1011]
    if "/" in fixed and not fixed.startswith("/"):
        fixed = "/" + fixed
    ok = fixed != name and parameter_name_problem(fixed) is None
    return NameProblem(f"an SSM parameter name: {problem}", fixed if ok else None)
