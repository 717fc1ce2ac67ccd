"""An ordinary fill is booked; a price with more than 38 significant digits (DynamoDB's
precision) cannot be stored exactly."""

import json

from benchmarks.bugbench import events


def benign():
    body = json.dumps({"fill_id": "f-1", "quantity": 300, "price": "101.25"})
    return {"event": events.sqs("trade-fills", body)}


def trigger():
    body = json.dumps(
        {"fill_id": "f-2", "quantity": 3, "price": "1.2345678901234567890123456789012345678901234"}
    )
    return {"event": events.sqs("trade-fills", body)}
