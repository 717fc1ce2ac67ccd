"""Stands for a third-party library: it handles its own exceptions, which are not the
application's findings."""

import json


def loose_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def to_int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return 0
