"""A parcel to the EU is priced; "apac" is a served region without a rate."""

from benchmarks.bugbench import events


def benign():
    return {"event": events.api("POST", "/quotes", body={"region": "eu", "weight_kg": 2.5})}


def trigger():
    return {"event": events.api("POST", "/quotes", body={"region": "apac", "weight_kg": 1})}
