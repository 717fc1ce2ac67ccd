"""Words of an uploaded note checked against values the code never spells at the check:
an Enum of another module, a class attribute read through `self`, a string built from a
constant (the comparison forms of `analysis/symbols.py`)."""

from __future__ import annotations

import urllib.parse

import boto3

from .kinds import Kind

s3 = boto3.client("s3")

PREFIX = "batch"


class RefundWord(Exception):
    """Raised for a word that is the refund kind's value."""


class KnownDock(Exception):
    """Raised for a word naming a known dock."""


class FinalBatch(Exception):
    """Raised for the word PREFIX + "-final"."""


class Docks:
    NAMES = ("dock-east", "dock-west")

    def check(self, word):
        if word in self.NAMES:
            raise KnownDock(word)


def lambda_handler(event, context):
    record = event["Records"][0]["s3"]
    key = urllib.parse.unquote_plus(record["object"]["key"])
    obj = s3.get_object(Bucket=record["bucket"]["name"], Key=key)
    docks = Docks()
    for word in obj["Body"].read().decode("utf-8", "replace").split():
        try:
            kind = Kind(word)
        except ValueError:
            kind = None
        if kind is Kind.REFUND:
            raise RefundWord(word)
        docks.check(word)
        if word == PREFIX + "-final":
            raise FinalBatch(word)
    return {"statusCode": 200}
