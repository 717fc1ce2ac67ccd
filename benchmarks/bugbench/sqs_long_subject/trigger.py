"""A ticket with a short subject is filed; a subject over 1024 bytes exceeds DynamoDB's
sort key limit, and the ticket is lost with only a log line."""

import json

from benchmarks.bugbench import events


def _form(subject: str) -> str:
    return json.dumps({"email": "ann@example.com", "subject": subject, "message": "Hello"})


def benign():
    return {"event": events.sqs("contact-form", _form("Invoice question"))}


def trigger():
    return {"event": events.sqs("contact-form", _form("Refund " * 200))}
