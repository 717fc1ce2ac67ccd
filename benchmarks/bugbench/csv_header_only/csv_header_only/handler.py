"""Survey exports: respondent,score rows; the survey's mean score is published."""

import csv
import io
import logging
import os
import urllib.parse
from decimal import Decimal

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
s3 = boto3.client("s3")
table = boto3.resource("dynamodb").Table(os.environ["RESULTS_TABLE"])
REQUIRED = ("respondent", "score")


def mean_score(rows: list[dict]) -> Decimal:
    scores = [int(r["score"]) for r in rows if (r.get("score") or "").strip().isdigit()]
    return Decimal(sum(scores)) / Decimal(len(scores))


def lambda_handler(event, context):
    record = event["Records"][0]
    bucket = record["s3"]["bucket"]["name"]
    key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
    text = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode("utf-8", errors="replace")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames or any(c not in reader.fieldnames for c in REQUIRED):
        logger.warning("%s: not a survey export (columns %s)", key, reader.fieldnames)
        return {"published": False}
    rows = list(reader)
    if not rows:
        logger.info("%s: no responses yet", key)
    mean = mean_score(rows).quantize(Decimal("0.01"))
    table.put_item(Item={"survey": key, "responses": len(rows), "mean": mean})
    return {"published": True, "mean": str(mean)}
