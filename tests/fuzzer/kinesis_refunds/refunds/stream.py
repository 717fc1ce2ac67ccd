"""A Kinesis consumer: each record's data is a JSON object whose `action` decides what
happens to it."""

import base64
import json

REFUND = "refund"


def handler(event, context):
    handled = []
    for record in event["Records"]:
        payload = json.loads(base64.b64decode(record["kinesis"]["data"]))
        action = payload.get("action") if isinstance(payload, dict) else None
        if action == REFUND:
            handled.append("refunded")  # the branch a campaign must reach
        elif action is None:
            handled.append("no action")
        else:
            handled.append("ignored")
    return {"handled": handled}
