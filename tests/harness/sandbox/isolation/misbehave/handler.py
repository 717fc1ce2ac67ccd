"""Handlers that misbehave in every way a worker must survive."""

from __future__ import annotations

import os
import sys
import time


def sleeps_forever(event, context):
    while True:
        time.sleep(1)


def exits_hard(event, context):
    os._exit(3)


def calls_sys_exit(event, context):
    sys.exit(4)


def allocates_forever(event, context):
    hoard = []
    while True:
        hoard.append(bytearray(64 * 1024 * 1024))


def returns_ok(event, context):
    return {"statusCode": 200, "records": len(event["Records"])}


def leaks_state(event, context, _seen=[]):  # noqa: B006 - the leak is the point
    _seen.append(1)
    if len(_seen) % 2:
        return "odd"
    return "even"


def reaches_internet(event, context):
    import socket

    try:
        socket.create_connection(("8.8.8.8", 443), timeout=2)
    except Exception:  # noqa: BLE001 - a handler that swallows the refusal
        return "offline"
    return "online"


def uses_profile(event, context):
    import boto3

    return boto3.Session(profile_name="production").client("s3").list_buckets()
