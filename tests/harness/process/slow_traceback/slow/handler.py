"""Fails on every event with an exception whose `__notes__` take seconds to read: only
formatting its traceback is slow, not the test."""

import time


class SlowNotes(Exception):
    @property
    def __notes__(self):
        time.sleep(3)
        return ["read slowly"]


def lambda_handler(event, context):
    raise SlowNotes("failed")
