"""Report rows of an uploaded CSV that look like another row (typo'd duplicates).

Every row is compared with every row before it, so the work grows with the square of
the number of rows: fine for the five-row files it was tested with, slow for a full export.
"""

from __future__ import annotations

import csv
import difflib
import io
import urllib.parse
from typing import Any

import boto3

SIMILAR = 0.9


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    record = event["Records"][0]["s3"]
    bucket = record["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    s3 = boto3.client("s3")
    try:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    except s3.exceptions.NoSuchKey:  # deleted before the notification arrived
        return {"skipped": key}
    text = body.decode("utf-8", errors="replace")
    rows = ["|".join(row) for row in csv.reader(io.StringIO(text, newline="")) if row]
    duplicates = []
    for i, row in enumerate(rows):
        for j in range(i):
            if difflib.SequenceMatcher(None, rows[j], row).ratio() >= SIMILAR:
                duplicates.append((j, i))
                break
    return {"rows": len(rows), "duplicates": len(duplicates)}
