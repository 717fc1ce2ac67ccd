"""A signup with an address is stored; the form's empty (or blank) email field becomes an
empty key attribute."""

import json

from benchmarks.bugbench import events


def benign():
    return {
        "event": events.sqs(
            "signups", json.dumps({"email": "Ann@Example.com", "lists": ["offers"]})
        )
    }


def trigger():
    return {"event": events.sqs("signups", json.dumps({"email": "  ", "lists": ["weekly"]}))}
