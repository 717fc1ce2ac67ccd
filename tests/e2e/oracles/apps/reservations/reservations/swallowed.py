"""Each order line reserved; a line that cannot be reserved is logged and the batch reported
a success: Lambda deletes the message, and the order line is lost."""

import logging

from reservations.stock import parse, reserve

logger = logging.getLogger(__name__)


def handler(event, context):
    reserved = 0
    for record in event["Records"]:
        try:
            reserve(*parse(record["body"]))
            reserved += 1
        except Exception:
            logger.exception("order line %s not reserved", record["messageId"])
    logger.info("reserved %d order lines", reserved)
    return {"batchItemFailures": []}
