"""`scans/contract.pdf` is routed as a document; a key without an extension has no part
after the dot."""

from benchmarks.bugbench import events


def benign():
    key = "scans/contract.pdf"
    return {
        "s3": {"document-intake": {key: b"%PDF-1.4"}},
        "event": events.s3("document-intake", key),
    }


def trigger():
    key = "scans/README"
    return {
        "s3": {"document-intake": {key: b"read me"}},
        "event": events.s3("document-intake", key),
    }
