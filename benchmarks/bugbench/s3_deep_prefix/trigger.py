"""`finance/budget.xlsx` counts for finance; a file in a sub-folder has two slashes."""

from benchmarks.bugbench import events


def benign():
    key = "finance/budget.xlsx"
    return {
        "s3": {"team-drive": {key: b"x" * 100}},
        "event": events.s3("team-drive", key, size=100),
    }


def trigger():
    key = "finance/2026/q4/budget.xlsx"
    return {
        "s3": {"team-drive": {key: b"x" * 100}},
        "event": events.s3("team-drive", key, size=100),
    }
