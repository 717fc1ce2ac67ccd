"""Answers, exits or hangs by the object's key, so one stream of requests holds all three."""

from __future__ import annotations

import os
import time


def fate(key: str) -> str:
    """'exit', 'hang' or 'ok' for an object key (the test asks it which seeds do what)."""
    return ("exit", "hang", "ok", "ok", "ok")[len(key) % 5]


def by_key(event, context):
    key = event["Records"][0]["s3"]["object"]["key"]
    what = fate(key)
    if what == "exit":
        os._exit(7)
    if what == "hang":
        while True:
            time.sleep(0.05)
    return {"key": key, "pid": os.getpid()}
