"""A score of "0.82" is stored; "NaN" parses as a Decimal that DynamoDB cannot hold."""

import json

from benchmarks.bugbench import events


def benign():
    return {"event": events.sqs("review-scores", json.dumps({"review_id": "r-1", "score": "0.82"}))}


def trigger():
    return {"event": events.sqs("review-scores", json.dumps({"review_id": "r-2", "score": "NaN"}))}
