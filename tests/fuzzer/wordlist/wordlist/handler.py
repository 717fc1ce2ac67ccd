"""Words of an uploaded note checked against a set of known lines and a date format: two
branches a generator meets only with the code's own constants (the `frontier` harvest)."""

from __future__ import annotations

import urllib.parse
from datetime import datetime

import boto3

s3 = boto3.client("s3")

KNOWN_LINES = frozenset({"tram-seven", "ferry-north"})
STAMP_FORMAT = "%d.%m.%Y"
MAX_WORDS = 40


class KnownLine(Exception):
    """Raised for a word naming a known line."""


class Stamped(Exception):
    """Raised for a word that is a date in STAMP_FORMAT."""


def lambda_handler(event, context):
    record = event["Records"][0]["s3"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    obj = s3.get_object(Bucket=record["bucket"]["name"], Key=key)
    words = obj["Body"].read().decode("utf-8", "replace").split()
    if len(words) > MAX_WORDS:
        return {"statusCode": 413}
    for word in words:
        if word in KNOWN_LINES:
            raise KnownLine(word)
        try:
            datetime.strptime(word, STAMP_FORMAT)
        except ValueError:
            continue
        raise Stamped(word)
    return {"statusCode": 200}
