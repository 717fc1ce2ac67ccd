"""A function that keeps a running count on its EFS mount: it reads the file the tests
before it wrote and writes it back one higher."""

import os

MOUNT = "/mnt/lambdafuzz-ledger"
COUNT = os.path.join(MOUNT, "count.txt")


def handler(event, context):
    count = 0
    if os.path.exists(COUNT):
        with open(COUNT) as fh:
            count = int(fh.read())
    with open(COUNT, "w") as fh:
        fh.write(str(count + 1))
    return {"count": count + 1, "mounted": os.path.ismount(MOUNT)}
