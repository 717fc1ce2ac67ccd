"""Shared fixtures for the benchmark lambdas' crafted tests.

Every `benchmarks/lambdas/*/` directory goes on sys.path so a test imports a handler the
way Lambda does (`import gradebook.handler`). Fake credentials are set at import time,
before any handler module can build a boto3 client, so nothing here can reach real AWS.
"""

from __future__ import annotations

import importlib
import os
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

LAMBDAS_DIR = Path(__file__).resolve().parents[3] / "benchmarks" / "lambdas"
REGION = "us-east-1"

for _lambda_dir in sorted(LAMBDAS_DIR.glob("*/")):
    if str(_lambda_dir) not in sys.path:
        sys.path.insert(0, str(_lambda_dir))

# Set at import, not in a fixture: handlers that create clients at module level need a
# region and credentials before any fixture runs, and real credentials must never leak in.
os.environ.update(
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_SECURITY_TOKEN="testing",
    AWS_SESSION_TOKEN="testing",
    AWS_DEFAULT_REGION=REGION,
)
os.environ.pop("AWS_PROFILE", None)


@dataclass(slots=True)
class Aws:
    """Clients bound to the active moto mock, for building and inspecting a world."""

    s3: Any
    dynamodb: Any

    def create_table(
        self, name: str, hash_key: tuple[str, str], range_key: tuple[str, str] | None = None
    ) -> None:
        """An on-demand table with a (name, type) hash key and optional range key."""
        keys = [(hash_key, "HASH")] + ([(range_key, "RANGE")] if range_key else [])
        self.dynamodb.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": k[0], "KeyType": kind} for k, kind in keys],
            AttributeDefinitions=[{"AttributeName": k[0], "AttributeType": k[1]} for k, _ in keys],
            BillingMode="PAY_PER_REQUEST",
        )


@pytest.fixture(scope="session")
def _aws_clients() -> Aws:
    # Building a client costs ~90 ms; moto intercepts every client created after moto is
    # imported, and each `mock_aws()` starts from empty state, so one pair serves all tests.
    return Aws(
        s3=boto3.client("s3", region_name=REGION),
        dynamodb=boto3.client("dynamodb", region_name=REGION),
    )


@pytest.fixture
def aws(_aws_clients: Aws) -> Iterator[Aws]:
    """Run the test inside `mock_aws()`; every boto3 call goes to moto's in-memory state."""
    with mock_aws():
        yield _aws_clients


@pytest.fixture
def load_handler(aws: Aws) -> Callable[[str], ModuleType]:
    """Import (or re-import) a handler module inside the mock.

    Handlers such as s3_thumbnail build `boto3.client("s3")` at module level; reloading
    inside the active mock gives each test a client bound to this test's moto state.
    """

    def load(module_name: str) -> ModuleType:
        module = sys.modules.get(module_name)
        if module is None:
            return importlib.import_module(module_name)
        return importlib.reload(module)

    return load


def make_s3_event(bucket: str, key: str, size: int = 0) -> dict[str, Any]:
    """An S3 ObjectCreated event for one object, with the key URL-encoded as S3 does."""
    return {
        "Records": [
            {
                "eventVersion": "2.1",
                "eventSource": "aws:s3",
                "awsRegion": REGION,
                "eventName": "ObjectCreated:Put",
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"},
                    "object": {"key": urllib.parse.quote_plus(key, safe="/"), "size": size},
                },
            }
        ]
    }


@pytest.fixture
def s3_event() -> Callable[..., dict[str, Any]]:
    """Factory fixture: `s3_event(bucket, key, size=0)` -> a one-record S3 event."""
    return make_s3_event
