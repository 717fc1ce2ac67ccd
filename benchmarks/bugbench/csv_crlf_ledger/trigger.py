"""A statement with Unix line ends posts; with Windows line ends every date keeps its `\\r`."""

from benchmarks.bugbench import events

LINES = ["account,amount,booked_on", "DE-01,-12.40,03/11/2026", "DE-02,250.00,04/11/2026"]


def benign():
    data = ("\n".join(LINES) + "\n").encode()
    return {
        "s3": {"bank-statements": {"nov.csv": data}},
        "event": events.s3("bank-statements", "nov.csv"),
    }


def trigger():
    data = ("\r\n".join(LINES) + "\r\n").encode()
    return {
        "s3": {"bank-statements": {"nov-win.csv": data}},
        "event": events.s3("bank-statements", "nov-win.csv"),
    }
