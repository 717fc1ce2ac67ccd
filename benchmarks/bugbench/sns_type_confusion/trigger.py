"""Numbers compare; an agent that sends the value as a string cannot be compared to a number."""

import json

from benchmarks.bugbench import events


def benign():
    alert = {"metric": "cpu", "value": 97, "threshold": 90}
    return {"event": events.sns("metric-alerts", json.dumps(alert))}


def trigger():
    alert = {"metric": "cpu", "value": "97", "threshold": 90}
    return {"event": events.sns("metric-alerts", json.dumps(alert))}
