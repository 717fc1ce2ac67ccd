"""The type labels generators attach to their draws and the analysis attaches to branches.

SpotOn's targeted mutation works only when the static analysis and the generators speak
the same vocabulary: a branch influenced by `datetime.datetime` can be targeted only if
some generator labels the draws that build a `datetime.datetime`.  Every label either
module uses lives here, so the two sides cannot drift apart silently.
"""

from __future__ import annotations

from typing import Final

# --- whole values ---------------------------------------------------------------------
WORLD: Final = "lambdafuzz.World"
EVENT: Final = "lambdafuzz.Event"
FILE: Final = "lambdafuzz.File"  # a generated file: format choice + content
FILE_FORMAT: Final = "lambdafuzz.FileFormat"  # which format / extension was chosen
ERRONEOUS: Final = "lambdafuzz.ErroneousFile"  # the corruption applied to a file
FILE_EDGE: Final = "lambdafuzz.FileEdge"  # which file-format edge-value class was drawn

# --- python / library types the analysis also names ----------------------------------
DATETIME: Final = "datetime.datetime"
DATE: Final = "datetime.date"
DECIMAL: Final = "decimal.Decimal"
PIL_IMAGE: Final = "PIL.Image.Image"

# --- file formats ---------------------------------------------------------------------
CSV_FILE: Final = "csv.file"
CSV_DIALECT: Final = "csv.dialect"
CSV_HEADER: Final = "csv.header"
CSV_ROW: Final = "csv.row"
CSV_CELL: Final = "csv.cell"
JSON_DOCUMENT: Final = "json.document"
JSON_VALUE: Final = "json.value"
JSON_OBJECT: Final = "json.object"
XML_DOCUMENT: Final = "xml.document"
XML_ELEMENT: Final = "xml.element"
TEXT_DOCUMENT: Final = "text.document"
TEXT_LINE: Final = "text.line"
IMAGE_SIZE: Final = "image.size"
IMAGE_PIXELS: Final = "image.pixels"
IMAGE_EXIF: Final = "image.exif"
ZIP_ARCHIVE: Final = "zip.archive"
ZIP_ENTRY: Final = "zip.entry"
ZIP_ENTRY_NAME: Final = "zip.entry.name"
GZIP_FILE: Final = "gzip.file"
PDF_DOCUMENT: Final = "pdf.document"
PDF_PAGE: Final = "pdf.page"

# --- AWS ------------------------------------------------------------------------------
S3_BUCKET: Final = "s3.bucket"
S3_OBJECT: Final = "s3.object"
S3_OBJECT_KEY: Final = "lambdafuzz.S3ObjectKey"
S3_METADATA: Final = "s3.metadata"
DYNAMODB_ITEM: Final = "dynamodb.item"
DYNAMODB_KEY: Final = "dynamodb.key"
DYNAMODB_ATTRIBUTE: Final = "dynamodb.attribute"
SQS_MESSAGE: Final = "sqs.message"
SNS_MESSAGE: Final = "sns.message"
S3_EVENT: Final = "event.s3"
SQS_EVENT: Final = "event.sqs"
SNS_EVENT: Final = "event.sns"
DYNAMODB_STREAM_EVENT: Final = "event.dynamodb-stream"
APIGATEWAY_EVENT: Final = "event.apigateway"
APIGATEWAY_V2_EVENT: Final = "event.apigateway-v2"
EVENTBRIDGE_EVENT: Final = "event.eventbridge"
DIRECT_EVENT: Final = "event.direct"
KINESIS_EVENT: Final = "event.kinesis"
SCHEDULE_EVENT: Final = "event.schedule"
SAMPLE_EVENT: Final = "event.sample"  # a project's sample event, walked leaf by leaf
MSK_EVENT: Final = "event.msk"
KAFKA_EVENT: Final = "event.kafka"
ACTIVEMQ_EVENT: Final = "event.activemq"
RABBITMQ_EVENT: Final = "event.rabbitmq"
AUTHORIZER_EVENT: Final = "event.authorizer"
FIREHOSE_EVENT: Final = "event.firehose"
S3_BATCH_EVENT: Final = "event.s3-batch"
WEBSOCKET_EVENT: Final = "event.websocket"
#: What an API route's authorizer puts in `requestContext` (claims, principal, identity).
HTTP_AUTH: Final = "http.auth"
BROKER_MESSAGE: Final = "broker.message"
KINESIS_DATA: Final = "kinesis.data"
FIREHOSE_DATA: Final = "firehose.data"
#: A value drawn to satisfy a trigger's event filter (an admitted value, moved by mutation).
EVENT_FILTER_VALUE: Final = "event.filter.value"
HTTP_BODY: Final = "http.body"
HTTP_HEADERS: Final = "http.headers"
HTTP_QUERY: Final = "http.query"
HTTP_PATH: Final = "http.path"

#: Labels too generic to guide mutation (the SpotOn paper ignores `String`, `int`, ...).
GENERIC: Final = frozenset({"str", "int", "float", "bool", "bytes", "dict", "list", "object"})
