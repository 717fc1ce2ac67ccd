"""Route an upload by its key: data files go to the importer, anything else to quarantine.

The key check nests one quantifier in another, so a long run of letters and digits that
does not end in an accepted extension makes the regex engine try every way to split it.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import boto3

DATA_KEY = re.compile(r"^(?:[A-Za-z0-9]+[-_]?)+\.(?:csv|json)$")


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    record = event["Records"][0]["s3"]
    bucket = record["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    name = key.rsplit("/", 1)[-1]
    if DATA_KEY.match(name):
        return {"route": "import", "key": key}
    s3 = boto3.client("s3")
    try:
        s3.copy_object(
            Bucket=bucket, Key=f"quarantine/{name}", CopySource={"Bucket": bucket, "Key": key}
        )
    except s3.exceptions.NoSuchKey:  # deleted before the notification arrived
        return {"route": "gone", "key": key}
    return {"route": "quarantine", "key": key}
