"""A short tag is saved; a tag over DynamoDB's 1024-byte sort key limit is rejected by
DynamoDB, and the client is told 500 instead of 400."""

from benchmarks.bugbench import events


def _put(tag: str):
    return events.api(
        "PUT",
        "/documents/d-7/tags",
        resource="/documents/{docId}/tags",
        path_parameters={"docId": "d-7"},
        body={"tag": tag},
    )


def benign():
    return {"event": _put("Quarterly Review")}


def trigger():
    return {"event": _put("q" * 1500)}
