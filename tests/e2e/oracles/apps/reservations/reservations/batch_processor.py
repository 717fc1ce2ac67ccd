"""Each order line reserved; a line that cannot be reserved is reported by Powertools'
BatchProcessor under its messageId, and only that message is retried."""

from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from reservations.stock import parse, reserve

# a batch whose every line fails is reported too, not raised
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


def record_handler(record: SQSRecord):
    reserve(*parse(record.body))


def handler(event, context):
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
