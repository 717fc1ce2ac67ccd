"""Counts the objects in the bucket an upload landed in, with a client made per call."""

from __future__ import annotations

import os
from typing import Any

import boto3


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    bucket = event["Records"][0]["s3"]["bucket"]["name"]
    s3 = boto3.client("s3")
    listed = s3.list_objects_v2(Bucket=bucket)
    print(f"same client: {s3 is boto3.client('s3')}")
    print(f"mark: {os.environ.get('LAMBDAFUZZ_PROBE_MARK', '')}")
    return {"objects": listed.get("KeyCount", 0)}
