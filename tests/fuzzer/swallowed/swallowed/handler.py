import json
import logging

from vendorlib.parse import loose_json, to_int

logger = logging.getLogger(__name__)

PRIORITIES = {"a": 1, "b": 2, "c": 3}


def lambda_handler(event, context):
    done = 0
    for record in event["Records"]:
        body = record["body"]
        loose_json(body)  # the library's own try/except: not a finding
        to_int(body)
        try:
            json.loads(body)
        except json.JSONDecodeError:  # a specific clause around a library: control flow
            pass
        try:
            if len(body) > 2:
                rank = PRIORITIES[body[0]]  # KeyError unless the body starts with a, b or c
                done += rank
        except Exception:
            logger.exception("could not process %s", record["messageId"])
    return {"done": done}
