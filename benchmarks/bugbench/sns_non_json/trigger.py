"""CI's JSON notification is recorded; a plain-text message (an operator publishing by
hand from the console) is not JSON."""

import json

from benchmarks.bugbench import events


def benign():
    return {
        "event": events.sns("deployments", json.dumps({"service": "checkout", "version": "1.42.0"}))
    }


def trigger():
    return {"event": events.sns("deployments", "rolled back checkout to 1.41.3", subject="manual")}
