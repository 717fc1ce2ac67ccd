"""Failures that only something lambdafuzz does not emulate explains: labelled, not bugs.

A handler that writes under its EFS mount fails with `FileNotFoundError` in a worker where
no mount namespace could put the file system at its path; one that calls a service the
worker cannot reach fails inside botocore.  Neither says anything about the handler's
code, so such a failure carries a label (as a `world inconsistency` does) naming what was
missing, and the campaign reports it apart from the bugs.  Decided from the failure's
text only (its type, message and traceback), so it costs nothing on a test that passed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from lambdafuzz.model.outcome import FailureInfo
from lambdafuzz.model.target import Target

#: Exceptions a missing or unwritable file system raises.
FILE_ERRORS: Final = frozenset(
    {
        "FileNotFoundError",
        "NotADirectoryError",
        "PermissionError",
        "IsADirectoryError",
        "OSError",
        "IOError",
    }
)
#: Services whose state the worker holds (in-process moto, loaded from the world).
EMULATED_SERVICES: Final = frozenset(
    {"s3", "dynamodb", "sqs", "sns", "secretsmanager", "ssm", "sts", "kms", "logs"}
)
#: An AWS endpoint in botocore's connection errors: `https://<service>.<region>.amazonaws.com`.
_ENDPOINT: Final = re.compile(r"https?://([a-z0-9-]+)\.[a-z0-9-]+\.amazonaws\.com")
_UNREACHABLE: Final = frozenset(
    {"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError", "ConnectionError"}
)
#: The label's start, for reports and filters.
LABEL: Final = "unemulated service"


def unemulated_cause(
    failure: FailureInfo | None, target: Target, mounted: Sequence[str] = ()
) -> str:
    """The label of a failure only an unemulated service explains ("" for any other):
    a file error naming a path under one of the target's file systems that is not
    `mounted` in the worker, or a connection error to an AWS endpoint of a service the
    worker does not emulate."""
    if failure is None:
        return ""
    text = f"{failure.message}\n{failure.traceback}"
    if failure.exception_type in FILE_ERRORS:
        for mount in target.file_systems:
            if mount.path in mounted:
                continue
            prefix = mount.path.rstrip("/")
            if re.search(re.escape(prefix) + r"(?:/|'|\"|\s|$)", text):
                return (
                    f"{LABEL}: the file system at {mount.path} (EFS) is not mounted in the "
                    "worker, which could make no mount namespace"
                )
    if failure.exception_type in _UNREACHABLE:
        found = _ENDPOINT.search(text)
        if found is not None and found.group(1) not in EMULATED_SERVICES:
            return (
                f"{LABEL}: the handler called {found.group(1)}, which lambdafuzz does not emulate"
            )
    return ""
