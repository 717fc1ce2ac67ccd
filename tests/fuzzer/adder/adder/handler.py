"""Sums three fields of each message: the planted bug is the one `+` line, which raises a
TypeError whose message names the operand types (`int` and `str`, `list` and `int`, ...)."""

from __future__ import annotations

import json


def total(job):
    return job["a"] + job["b"] + job["c"]  # planted: no type check


def lambda_handler(event, context):
    sums = []
    for record in event["Records"]:
        try:
            job = json.loads(record["body"])
        except ValueError:
            continue
        if not isinstance(job, dict) or not {"a", "b", "c"} <= job.keys():
            continue
        sums.append(total(job))
    return {"sums": len(sums)}
