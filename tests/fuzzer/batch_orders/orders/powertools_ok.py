"""Order totals from SQS messages, each failed message reported by Powertools."""

import json

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

# a batch whose every message fails is reported too (not raised): the response is checked
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def record_handler(record: SQSRecord):
    order = json.loads(record.body)
    return int(order.get("quantity", 1))  # a quantity that is no number raises


def lambda_handler(event, context):
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
