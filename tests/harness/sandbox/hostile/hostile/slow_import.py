"""A handler whose module takes a minute to import (a Ctrl-C while a worker imports it)."""

import time

time.sleep(60)  # HOSTILE:slow_import


def handler(event, context):
    return {"statusCode": 200}
