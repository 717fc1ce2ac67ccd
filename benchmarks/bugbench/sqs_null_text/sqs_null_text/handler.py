"""Print jobs: options arrive as JSON text inside the message (the legacy client's format)."""

import json
import logging
import os

import boto3

logger = logging.getLogger()
logger.setLevel(logging.INFO)
table = boto3.resource("dynamodb").Table(os.environ["JOBS_TABLE"])
DEFAULTS = {"copies": 1, "duplex": False, "color": False}


def print_options(raw: str) -> dict:
    options = json.loads(raw) if raw else {}
    return {name: options.get(name, default) for name, default in DEFAULTS.items()}


def lambda_handler(event, context):
    queued = 0
    for record in event["Records"]:
        try:
            job = json.loads(record["body"])
        except ValueError:
            continue
        if not isinstance(job, dict) or not isinstance(job.get("job_id"), str) or not job["job_id"]:
            continue
        raw = job.get("options")
        try:
            options = print_options(raw if isinstance(raw, str) else "")
        except ValueError:
            logger.warning("job %s: unreadable options, defaults used", job["job_id"])
            options = dict(DEFAULTS)
        table.put_item(
            Item={"job_id": job["job_id"], "document": str(job.get("document", "")), **options}
        )
        queued += 1
    return {"queued": queued}
