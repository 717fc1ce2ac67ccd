"""Options `{"copies": 2}` are applied; a client that serialises "no options" as the text
`null` gets None back from json.loads."""

import json

from benchmarks.bugbench import events


def _job(options: str) -> str:
    return json.dumps({"job_id": "j-1", "document": "report.pdf", "options": options})


def benign():
    return {"event": events.sqs("print-jobs", _job('{"copies": 2}'))}


def trigger():
    return {"event": events.sqs("print-jobs", _job("null"))}
