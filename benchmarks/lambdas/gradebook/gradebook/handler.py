"""Per CSV line `student_id,grade,grade,...`: store the truncated average in `Students`."""

from __future__ import annotations

import logging
from typing import Any

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)

TABLE_NAME = "Students"


def create_item(table: Any, student_id: int, grade: int) -> None:
    """One bad row must not stop the rest, so a failed put is logged and swallowed."""
    try:
        table.put_item(Item={"StudentID": student_id, "Grade": grade})
    except Exception:
        logger.exception("create item failed for student %s", student_id)


def lambda_handler(event: dict[str, Any], context: Any) -> str | None:
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = record["s3"]["object"]["key"]

    s3 = boto3.client("s3")
    table = boto3.resource("dynamodb").Table(TABLE_NAME)

    response = s3.get_object(Bucket=bucket, Key=key)
    content_type = response.get("ContentType")
    body = response["Body"].read().decode("utf-8", errors="replace")

    for line in body.splitlines():
        fields = line.split(",")
        total = 0
        for grade in fields[1:]:
            total += int(grade)
        average = int(total / (len(fields) - 1))
        create_item(table, int(fields[0]), average)

    return content_type
