"""A JSON webhook is applied; a form-encoded one is dropped with a log line only."""

import json

from benchmarks.bugbench import events


def benign():
    body = json.dumps({"payment_id": "pay_123", "status": "captured"})
    return {"event": events.sqs("payment-webhooks", body)}


def trigger():
    return {"event": events.sqs("payment-webhooks", "payment_id=pay_124&status=captured")}
