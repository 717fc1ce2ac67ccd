"""An export with answers is published; an export holding only its header line has no
score to average (Decimal 0/0)."""

from benchmarks.bugbench import events


def benign():
    data = b"respondent,score\nr1,4\nr2,5\n"
    return {
        "s3": {"survey-exports": {"q3.csv": data}},
        "event": events.s3("survey-exports", "q3.csv"),
    }


def trigger():
    return {
        "s3": {"survey-exports": {"q4.csv": b"respondent,score\n"}},
        "event": events.s3("survey-exports", "q4.csv"),
    }
