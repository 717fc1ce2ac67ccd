""" "ada lovelace" is greeted as Ada; a name of spaces passes the emptiness check and has no
first word."""

import json

from benchmarks.bugbench import events


def benign():
    return {
        "event": events.sqs(
            "crm-contacts", json.dumps({"contact_id": "c-1", "name": "ada lovelace"})
        )
    }


def trigger():
    return {"event": events.sqs("crm-contacts", json.dumps({"contact_id": "c-2", "name": "   "}))}
