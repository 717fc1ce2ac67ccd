"""What library calls, methods, attributes, subscripts and event paths return, as labels.

This is the Python stand-in for the static types Wala reads off Java bytecode: Python code
rarely says what `s3.get_object(...)` returns, so the analysis looks it up here.  Add a row
to extend it; nothing else needs to change.

Besides the shared labels of `lambdafuzz.labels`, rows may produce *receiver kinds*
(strings starting with `kind:`): what a boto3 client, resource or paginator is, so that a
later `.query(...)` on it can be typed.  Kinds are internal; they are never reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from lambdafuzz import labels as L

KIND = "kind:"
ANY = "*"  # a receiver row that matches whatever (even an unknown) receiver

S3_CLIENT = KIND + "boto3.s3"
DDB_CLIENT = KIND + "boto3.dynamodb"
SQS_CLIENT = KIND + "boto3.sqs"
S3_RESOURCE = KIND + "boto3.resource.s3"
DDB_RESOURCE = KIND + "boto3.resource.dynamodb"
SQS_RESOURCE = KIND + "boto3.resource.sqs"
DDB_TABLE = KIND + "boto3.dynamodb.Table"
S3_BUCKET_RES = KIND + "boto3.s3.Bucket"
S3_OBJECT_RES = KIND + "boto3.s3.Object"
S3_COLLECTION = KIND + "boto3.s3.ObjectCollection"
S3_PAGINATOR = KIND + "boto3.s3.paginator"
DDB_PAGINATOR = KIND + "boto3.dynamodb.paginator"
SQS_QUEUE = KIND + "boto3.sqs.Queue"
BOTO_SESSION = KIND + "boto3.Session"


def is_kind(label: str) -> bool:
    """Internal receiver kinds are not reported as influencing types."""
    return label.startswith(KIND)


# --- calls by qualified name -------------------------------------------------------------
#: qualified name -> labels of the result (constructors included: `decimal.Decimal`).
CALLS: dict[str, tuple[str, ...]] = {
    "PIL.Image.open": (L.PIL_IMAGE,),
    "PIL.ImageOps.exif_transpose": (L.PIL_IMAGE,),
    "PIL.Image.Image.getexif": (L.IMAGE_EXIF,),
    "datetime.datetime": (L.DATETIME,),
    "datetime.datetime.strptime": (L.DATETIME,),
    "datetime.datetime.fromisoformat": (L.DATETIME,),
    "datetime.datetime.fromtimestamp": (L.DATETIME,),
    "datetime.datetime.utcfromtimestamp": (L.DATETIME,),
    "datetime.datetime.combine": (L.DATETIME,),
    "datetime.datetime.now": (L.DATETIME,),
    "datetime.datetime.utcnow": (L.DATETIME,),
    "datetime.date": (L.DATE,),
    "datetime.date.fromisoformat": (L.DATE,),
    "datetime.date.fromtimestamp": (L.DATE,),
    "datetime.date.today": (L.DATE,),
    "time.strptime": (L.DATETIME,),
    "dateutil.parser.parse": (L.DATETIME,),
    "dateutil.parser.isoparse": (L.DATETIME,),
    "decimal.Decimal": (L.DECIMAL,),
    "csv.reader": (L.CSV_ROW,),
    "csv.DictReader": (L.CSV_ROW,),
    "csv.Sniffer": (L.CSV_DIALECT,),
    "json.loads": (L.JSON_DOCUMENT,),
    "json.load": (L.JSON_DOCUMENT,),
    "zipfile.ZipFile": (L.ZIP_ARCHIVE,),
    "zipfile.is_zipfile": (L.ZIP_ARCHIVE,),
    "gzip.decompress": (L.GZIP_FILE,),
    "gzip.GzipFile": (L.GZIP_FILE,),
    "gzip.open": (L.GZIP_FILE,),
    "zlib.decompress": (L.GZIP_FILE,),
    "xml.etree.ElementTree.fromstring": (L.XML_DOCUMENT,),
    "xml.etree.ElementTree.parse": (L.XML_DOCUMENT,),
    "xml.etree.ElementTree.XML": (L.XML_DOCUMENT,),
    "xml.etree.ElementTree.iterparse": (L.XML_DOCUMENT,),
    "xml.dom.minidom.parseString": (L.XML_DOCUMENT,),
    "defusedxml.ElementTree.fromstring": (L.XML_DOCUMENT,),
    "defusedxml.ElementTree.parse": (L.XML_DOCUMENT,),
    "boto3.session.Session": (BOTO_SESSION,),
    "boto3.Session": (BOTO_SESSION,),
}

#: Calls whose result is their (first) argument transformed: labels survive.
#: `os.path.basename(key)` of an S3 key is still the key for mutation purposes.
PRESERVING_CALLS = frozenset(
    {
        "str",
        "bytes",
        "bytearray",
        "io.BytesIO",
        "io.StringIO",
        "io.TextIOWrapper",
        "codecs.decode",
        "codecs.iterdecode",
        "base64.b64decode",
        "html.unescape",
        "urllib.parse.unquote",
        "urllib.parse.unquote_plus",
        "urllib.parse.unquote_to_bytes",
        "urllib.parse.urlparse",
        "urllib.parse.parse_qs",
        "os.path.basename",
        "os.path.dirname",
        "os.path.splitext",
        "os.path.split",
        "os.path.join",
        "os.path.normpath",
        "posixpath.basename",
        "posixpath.dirname",
        "posixpath.splitext",
        "posixpath.split",
        "posixpath.join",
        "pathlib.Path",
        "pathlib.PurePath",
        "pathlib.PurePosixPath",
        "mimetypes.guess_type",
        "re.match",
        "re.fullmatch",
        "re.search",
        "re.findall",
        "re.finditer",
        "re.split",
        "re.sub",
        "shlex.split",
        "typing.cast",
        "copy.copy",
        "copy.deepcopy",
    }
)

#: Builtins that hand back their argument's elements: labels *and event paths* survive,
#: so `for i, record in enumerate(event["Records"])` still knows `record` is a record.
CONTAINER_CALLS = frozenset(
    {
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "reversed",
        "iter",
        "enumerate",
        "zip",
        "filter",
        "map",
        "dict",
        "itertools.islice",
        "itertools.chain",
        # aws_lambda_powertools event wrappers read the same dict (attributes: see
        # PATH_ATTRIBUTE_ALIASES)
        "aws_lambda_powertools.utilities.data_classes.S3Event",
        "aws_lambda_powertools.utilities.data_classes.SQSEvent",
        "aws_lambda_powertools.utilities.data_classes.SNSEvent",
        "aws_lambda_powertools.utilities.data_classes.DynamoDBStreamEvent",
        "aws_lambda_powertools.utilities.data_classes.EventBridgeEvent",
        "aws_lambda_powertools.utilities.data_classes.APIGatewayProxyEvent",
        "aws_lambda_powertools.utilities.data_classes.APIGatewayProxyEventV2",
    }
)

#: Parsers whose result continues the event path of their argument: an S3 event inside an
#: SQS body or an SNS message is still an S3 event (`json.loads(record["body"])["Records"]`).
PATH_CALLS = frozenset({"json.loads"})


# --- methods on a receiver -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MethodRule:
    """`receiver.method(...)` returns `labels` when the receiver carries `receiver`.

    `receiver` is a label, a kind, or ANY.  `source` marks reads of fuzzer-controlled
    data (the generated world), which make a branch input-dependent.  `keywords`, when set,
    restricts an ANY row to calls passing one of these keyword arguments.
    """

    receiver: str
    method: str
    labels: tuple[str, ...]
    source: bool = False
    keywords: frozenset[str] = frozenset()


_DDB_KW = frozenset({"TableName", "KeyConditionExpression", "FilterExpression", "IndexName"})


def _rows(receiver: str, methods: str, labels: tuple[str, ...], **kw: object) -> list[MethodRule]:
    return [MethodRule(receiver, m, labels, **kw) for m in methods.split()]  # type: ignore[arg-type]


METHODS: tuple[MethodRule, ...] = tuple(
    [
        # boto3 factories -> receiver kinds (service from the first argument, see analysis)
        *_rows(BOTO_SESSION, "client resource", ()),
        # S3 client
        *_rows(ANY, "get_object head_object", (L.S3_OBJECT,), source=True),
        *_rows(ANY, "list_objects_v2 list_objects", (L.S3_OBJECT,), source=True),
        *_rows(ANY, "get_object_tagging", (L.S3_METADATA,), source=True),
        *_rows(S3_CLIENT, "download_fileobj download_file", (L.S3_OBJECT,), source=True),
        *_rows(S3_CLIENT, "get_paginator", (S3_PAGINATOR,)),
        *_rows(S3_PAGINATOR, "paginate", (L.S3_OBJECT,), source=True),
        # S3 resource
        *_rows(S3_RESOURCE, "Object", (S3_OBJECT_RES,)),
        *_rows(S3_RESOURCE, "Bucket", (S3_BUCKET_RES,)),
        *_rows(S3_BUCKET_RES, "Object", (S3_OBJECT_RES,)),
        *_rows(S3_OBJECT_RES, "get", (L.S3_OBJECT,), source=True),
        *_rows(S3_OBJECT_RES, "download_fileobj download_file", (L.S3_OBJECT,), source=True),
        *_rows(S3_COLLECTION, "all filter limit page_size", (L.S3_OBJECT,), source=True),
        # DynamoDB (client and resource Table)
        *_rows(ANY, "get_item batch_get_item", (L.DYNAMODB_ITEM,), source=True),
        *_rows(DDB_CLIENT, "query scan", (L.DYNAMODB_ITEM,), source=True),
        *_rows(DDB_TABLE, "query scan", (L.DYNAMODB_ITEM,), source=True),
        *_rows(ANY, "query scan", (L.DYNAMODB_ITEM,), source=True, keywords=_DDB_KW),
        *_rows(DDB_RESOURCE, "Table", (DDB_TABLE,)),
        *_rows(DDB_CLIENT, "get_paginator", (DDB_PAGINATOR,)),
        *_rows(DDB_PAGINATOR, "paginate", (L.DYNAMODB_ITEM,), source=True),
        # SQS
        *_rows(ANY, "receive_message", (L.SQS_MESSAGE,), source=True),
        *_rows(SQS_RESOURCE, "Queue get_queue_by_name", (SQS_QUEUE,)),
        *_rows(SQS_QUEUE, "receive_messages", (L.SQS_MESSAGE,), source=True),
        # images
        *_rows(ANY, "getexif _getexif", (L.IMAGE_EXIF,)),
        *_rows(L.IMAGE_EXIF, "get_ifd", (L.IMAGE_EXIF,)),
        *_rows(
            L.PIL_IMAGE,
            "convert copy crop resize rotate transpose thumbnail",
            (L.PIL_IMAGE,),
        ),
        *_rows(L.PIL_IMAGE, "getbbox getpixel getdata", (L.IMAGE_PIXELS,)),
        # dates
        *_rows(ANY, "strptime fromisoformat fromtimestamp", (L.DATETIME,)),
        *_rows(L.DATETIME, "replace astimezone", (L.DATETIME,)),
        *_rows(L.DATETIME, "date", (L.DATE,)),
        # csv
        *_rows(L.CSV_DIALECT, "sniff", (L.CSV_DIALECT,)),
        *_rows(ANY, "sniff", (L.CSV_DIALECT,)),
        *_rows(ANY, "has_header", (L.CSV_HEADER,)),
        # zip
        *_rows(ANY, "infolist", (L.ZIP_ENTRY,)),
        *_rows(ANY, "namelist", (L.ZIP_ENTRY, L.ZIP_ENTRY_NAME)),
        *_rows(L.ZIP_ARCHIVE, "getinfo open read", (L.ZIP_ENTRY,)),
        *_rows(L.ZIP_ENTRY, "is_dir", (L.ZIP_ENTRY,)),
        # xml
        *_rows(L.XML_DOCUMENT, "getroot", (L.XML_ELEMENT,)),
        *_rows(L.XML_DOCUMENT, "find findall findtext iter iterfind", (L.XML_ELEMENT,)),
        *_rows(L.XML_ELEMENT, "find findall findtext iter iterfind", (L.XML_ELEMENT,)),
        *_rows(L.XML_DOCUMENT, "getElementsByTagName", (L.XML_ELEMENT,)),
        # json (mapping access on a document is a value in it)
        *_rows(L.JSON_DOCUMENT, "get", (L.JSON_VALUE,)),
        *_rows(L.JSON_VALUE, "get", (L.JSON_VALUE,)),
        *_rows(L.CSV_ROW, "get", (L.CSV_CELL,)),
    ]
)

#: String/bytes/file methods whose result is derived from the receiver: labels survive
#: (`key.rsplit(".", 1)` of an S3 key is still the key, `obj["Body"].read()` still the object).
PRESERVING_METHODS = frozenset(
    [
        "read",
        "readline",
        "readlines",
        "read1",
        "getvalue",
        "decode",
        "encode",
        "split",
        "rsplit",
        "splitlines",
        "partition",
        "rpartition",
        "strip",
        "lstrip",
        "rstrip",
        "lower",
        "upper",
        "casefold",
        "title",
        "capitalize",
        "swapcase",
        "replace",
        "removeprefix",
        "removesuffix",
        "zfill",
        "ljust",
        "rjust",
        "center",
        "expandtabs",
        "translate",
        "get",
        "items",
        "values",
        "keys",
        "copy",
        "pop",
        "setdefault",
        "groups",
        "group",
        "groupdict",
    ]
)

#: Hand-rolled parsing of file content: labels *added* to the preserved ones.
#: `text.splitlines()` are lines of a text or CSV file, `line.split(",")` is a CSV row.
TEXTUAL = frozenset(
    {
        L.S3_OBJECT,
        L.GZIP_FILE,
        L.ZIP_ENTRY,
        L.TEXT_DOCUMENT,
        L.TEXT_LINE,
        L.SQS_MESSAGE,
        L.SNS_MESSAGE,
        L.HTTP_BODY,
    }
)
TEXT_METHODS: dict[str, tuple[str, ...]] = {
    "splitlines": (L.TEXT_LINE, L.CSV_ROW),
    "readlines": (L.TEXT_LINE, L.CSV_ROW),
    "readline": (L.TEXT_LINE, L.CSV_ROW),
}
CSV_DELIMITERS = frozenset({",", ";", "\t", "|"})

#: Methods whose result is built from their *arguments* (`"/".join(parts)`).
ARG_PRESERVING_METHODS = frozenset({"join", "format"})

#: Methods that store their arguments into the receiver (`rows.append(row)`): the receiver
#: variable then depends on the argument.
MUTATING_METHODS = frozenset(
    [
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "appendleft",
        "extendleft",
        "setdefault",
        "put",
        "put_nowait",
        "write",
        "writelines",
        "push",
    ]
)

#: boto3 methods that write an object's content into an argument: the argument then
#: depends on (and is typed like) the call.  Value: index of that positional argument and
#: the keyword naming it.
DOWNLOAD_METHODS: dict[str, tuple[int, str]] = {
    "download_fileobj": (2, "Fileobj"),
    "download_file": (2, "Filename"),
}
DOWNLOAD_METHODS_RESOURCE: dict[str, tuple[int, str]] = {
    "download_fileobj": (0, "Fileobj"),
    "download_file": (0, "Filename"),
}

#: boto3.client / boto3.resource service name -> receiver kind.
CLIENT_KINDS = {"s3": S3_CLIENT, "dynamodb": DDB_CLIENT, "sqs": SQS_CLIENT}
RESOURCE_KINDS = {"s3": S3_RESOURCE, "dynamodb": DDB_RESOURCE, "sqs": SQS_RESOURCE}
FACTORIES = {"boto3.client": CLIENT_KINDS, "boto3.resource": RESOURCE_KINDS}


# --- attributes ----------------------------------------------------------------------------
#: (receiver label or kind, attribute) -> labels of the attribute.
ATTRIBUTES: dict[tuple[str, str], tuple[str, ...]] = {
    (L.PIL_IMAGE, "info"): (L.IMAGE_EXIF,),
    (L.PIL_IMAGE, "size"): (L.IMAGE_SIZE,),
    (L.PIL_IMAGE, "width"): (L.IMAGE_SIZE,),
    (L.PIL_IMAGE, "height"): (L.IMAGE_SIZE,),
    (L.PIL_IMAGE, "format"): (L.PIL_IMAGE,),
    (L.PIL_IMAGE, "mode"): (L.PIL_IMAGE,),
    (L.ZIP_ENTRY, "filename"): (L.ZIP_ENTRY_NAME,),
    (L.ZIP_ENTRY, "file_size"): (L.ZIP_ENTRY,),
    (L.ZIP_ENTRY, "compress_size"): (L.ZIP_ENTRY,),
    (L.ZIP_ENTRY, "date_time"): (L.ZIP_ENTRY,),
    (L.S3_OBJECT, "key"): (L.S3_OBJECT_KEY,),
    (L.S3_OBJECT, "bucket_name"): (L.S3_BUCKET,),
    (L.S3_OBJECT, "last_modified"): (L.DATETIME,),
    (L.S3_OBJECT, "content_type"): (L.S3_METADATA,),
    (L.S3_OBJECT, "metadata"): (L.S3_METADATA,),
    (L.S3_OBJECT, "content_length"): (L.S3_OBJECT,),
    (L.S3_OBJECT, "size"): (L.S3_OBJECT,),
    (S3_OBJECT_RES, "key"): (L.S3_OBJECT_KEY,),
    (S3_BUCKET_RES, "objects"): (S3_COLLECTION,),
    (L.CSV_ROW, "fieldnames"): (L.CSV_HEADER,),
    (L.CSV_ROW, "line_num"): (L.CSV_ROW,),
    (L.CSV_DIALECT, "delimiter"): (L.CSV_DIALECT,),
    (L.CSV_DIALECT, "quotechar"): (L.CSV_DIALECT,),
    (L.XML_ELEMENT, "text"): (L.XML_ELEMENT,),
    (L.XML_ELEMENT, "tag"): (L.XML_ELEMENT,),
    (L.XML_ELEMENT, "attrib"): (L.XML_ELEMENT,),
    (L.XML_ELEMENT, "tail"): (L.XML_ELEMENT,),
    (L.SQS_MESSAGE, "body"): (L.SQS_MESSAGE,),
}

#: Labels of string-like values whose path-ish attributes (`PurePosixPath(key).suffix`)
#: and slices keep the label.
KEY_LIKE = frozenset({L.S3_OBJECT_KEY, L.S3_BUCKET, L.ZIP_ENTRY_NAME, L.HTTP_PATH})
PATH_ATTRIBUTES = frozenset({"suffix", "suffixes", "stem", "name", "parent", "parts", "path"})


# --- subscripts ----------------------------------------------------------------------------
#: (receiver label, constant key) -> labels; `ANY` as key matches every key.  A labelled
#: receiver without a row keeps its labels (an element of a labelled container).
SUBSCRIPTS: dict[tuple[str, str], tuple[str, ...]] = {
    (L.S3_OBJECT, "Body"): (L.S3_OBJECT,),
    (L.S3_OBJECT, "Key"): (L.S3_OBJECT_KEY,),
    (L.S3_OBJECT, "LastModified"): (L.DATETIME,),
    (L.S3_OBJECT, "Metadata"): (L.S3_METADATA,),
    (L.S3_OBJECT, "ContentType"): (L.S3_METADATA,),
    (L.S3_OBJECT, "Prefix"): (L.S3_OBJECT_KEY,),
    (L.CSV_ROW, ANY): (L.CSV_CELL,),
    (L.JSON_DOCUMENT, ANY): (L.JSON_VALUE,),
    (L.JSON_OBJECT, ANY): (L.JSON_VALUE,),
    (L.JSON_VALUE, ANY): (L.JSON_VALUE,),
    (L.ZIP_ENTRY, ANY): (L.ZIP_ENTRY_NAME, L.ZIP_ENTRY),
}

#: `next(reader)` on a csv reader reads the first line: the header.
NEXT_OF: dict[str, tuple[str, ...]] = {L.CSV_ROW: (L.CSV_HEADER,)}


# --- annotations ---------------------------------------------------------------------------
ANNOTATIONS: dict[str, tuple[str, ...]] = {
    "datetime.datetime": (L.DATETIME,),
    "datetime.date": (L.DATE,),
    "decimal.Decimal": (L.DECIMAL,),
    "PIL.Image.Image": (L.PIL_IMAGE,),
    "PIL.Image.Exif": (L.IMAGE_EXIF,),
    "zipfile.ZipFile": (L.ZIP_ARCHIVE,),
    "zipfile.ZipInfo": (L.ZIP_ENTRY,),
    "gzip.GzipFile": (L.GZIP_FILE,),
    "csv.DictReader": (L.CSV_ROW,),
    "xml.etree.ElementTree.Element": (L.XML_ELEMENT,),
    "xml.etree.ElementTree.ElementTree": (L.XML_DOCUMENT,),
    "mypy_boto3_s3.S3Client": (S3_CLIENT,),
    "mypy_boto3_s3.client.S3Client": (S3_CLIENT,),
    "mypy_boto3_dynamodb.DynamoDBClient": (DDB_CLIENT,),
    "mypy_boto3_dynamodb.service_resource.Table": (DDB_TABLE,),
    "mypy_boto3_sqs.SQSClient": (SQS_CLIENT,),
}


# --- event paths -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PathRule:
    """An access path into the Lambda event (`*` = any index) and the label of what is there.

    `anchored` rules match from the event root (API Gateway fields); the others match
    anywhere (an S3 record may sit under `Records[i]`, an SQS body, or EventBridge `detail`).
    A path longer than the pattern (`headers.content-type`) keeps the label.
    """

    pattern: tuple[str, ...]
    label: str
    anchored: bool = False


PATH_RULES: tuple[PathRule, ...] = (
    PathRule(("s3", "object", "key"), L.S3_OBJECT_KEY),
    PathRule(("s3", "object", "size"), L.S3_OBJECT),
    PathRule(("s3", "object", "eTag"), L.S3_OBJECT),
    PathRule(("s3", "bucket", "name"), L.S3_BUCKET),
    PathRule(("detail", "object", "key"), L.S3_OBJECT_KEY),
    PathRule(("detail", "bucket", "name"), L.S3_BUCKET),
    PathRule(("Records", "*", "body"), L.SQS_MESSAGE),
    PathRule(("Records", "*", "messageAttributes"), L.SQS_MESSAGE),
    PathRule(("Sns", "Message"), L.SNS_MESSAGE),
    PathRule(("Sns", "Subject"), L.SNS_MESSAGE),
    PathRule(("Sns", "MessageAttributes"), L.SNS_MESSAGE),
    PathRule(("dynamodb", "NewImage"), L.DYNAMODB_ITEM),
    PathRule(("dynamodb", "OldImage"), L.DYNAMODB_ITEM),
    PathRule(("dynamodb", "Keys"), L.DYNAMODB_KEY),
    PathRule(("body",), L.HTTP_BODY, anchored=True),
    PathRule(("headers",), L.HTTP_HEADERS, anchored=True),
    PathRule(("multiValueHeaders",), L.HTTP_HEADERS, anchored=True),
    PathRule(("cookies",), L.HTTP_HEADERS, anchored=True),
    PathRule(("queryStringParameters",), L.HTTP_QUERY, anchored=True),
    PathRule(("multiValueQueryStringParameters",), L.HTTP_QUERY, anchored=True),
    PathRule(("rawQueryString",), L.HTTP_QUERY, anchored=True),
    PathRule(("pathParameters",), L.HTTP_PATH, anchored=True),
    PathRule(("path",), L.HTTP_PATH, anchored=True),
    PathRule(("rawPath",), L.HTTP_PATH, anchored=True),
    PathRule(("resource",), L.HTTP_PATH, anchored=True),
    PathRule(("routeKey",), L.HTTP_PATH, anchored=True),
    PathRule(("httpMethod",), L.APIGATEWAY_EVENT, anchored=True),
    PathRule(("requestContext", "http"), L.APIGATEWAY_V2_EVENT, anchored=True),
)

#: Attribute names of event wrapper classes (aws_lambda_powertools data classes) mapped to
#: the raw event keys they read, so `event.record.s3.get_object.key` is a path too.
PATH_ATTRIBUTE_ALIASES: dict[str, tuple[str, ...]] = {
    "records": ("Records", "*"),
    "record": ("Records", "*"),
    "s3": ("s3",),
    "get_object": ("object",),
    "bucket": ("bucket",),
    "key": ("key",),
    "name": ("name",),
    "size": ("size",),
    "body": ("body",),
    "json_body": ("body",),
    "headers": ("headers",),
    "query_string_parameters": ("queryStringParameters",),
    "path_parameters": ("pathParameters",),
    "path": ("path",),
    "raw_path": ("rawPath",),
    "http_method": ("httpMethod",),
    "sns": ("Sns",),
    "message": ("Message",),
    "dynamodb": ("dynamodb",),
    "new_image": ("NewImage",),
    "old_image": ("OldImage",),
    "keys": ("Keys",),
    "detail": ("detail",),
}

#: Which event kind a path mentions (first match wins; used for the event root's label).
EVENT_KINDS: tuple[tuple[str, str], ...] = (
    ("s3", L.S3_EVENT),
    ("Sns", L.SNS_EVENT),
    ("dynamodb", L.DYNAMODB_STREAM_EVENT),
    ("detail", L.EVENTBRIDGE_EVENT),
    ("requestContext", L.APIGATEWAY_EVENT),
    ("httpMethod", L.APIGATEWAY_EVENT),
    ("rawPath", L.APIGATEWAY_V2_EVENT),
    ("routeKey", L.APIGATEWAY_V2_EVENT),
    ("queryStringParameters", L.APIGATEWAY_EVENT),
    ("pathParameters", L.APIGATEWAY_EVENT),
    ("headers", L.APIGATEWAY_EVENT),
)

#: lambdafuzz.yaml trigger kinds -> event labels (when the caller knows the trigger).
TRIGGER_LABELS: dict[str, str] = {
    "s3": L.S3_EVENT,
    "sqs": L.SQS_EVENT,
    "sns": L.SNS_EVENT,
    "dynamodb-stream": L.DYNAMODB_STREAM_EVENT,
    "apigateway": L.APIGATEWAY_EVENT,
    "apigateway-v2": L.APIGATEWAY_V2_EVENT,
    "eventbridge": L.EVENTBRIDGE_EVENT,
}


def path_labels(path: tuple[str, ...]) -> tuple[str, ...]:
    """Labels of the value at an event path (the most specific rule that matches)."""
    best: tuple[int, str] | None = None
    for rule in PATH_RULES:
        n = len(rule.pattern)
        starts = (0,) if rule.anchored else range(len(path) - n + 1)
        for s in starts:
            if path[s : s + n] == rule.pattern and (best is None or n > best[0]):
                best = (n, rule.label)
                break
    return (best[1],) if best else ()


def event_kind(paths: set[tuple[str, ...]]) -> str | None:
    """The event label suggested by the paths a handler reads, if any."""
    keys = {k for p in paths for k in p}
    for key, label in EVENT_KINDS:
        if key in keys:
            return label
    for p in paths:
        if p[:1] == ("body",):
            return L.APIGATEWAY_EVENT
        if p[:1] == ("Records",) and p[2:3] == ("body",):
            return L.SQS_EVENT
    return None


def method_rules(method: str) -> tuple[MethodRule, ...]:
    """Rows for one method name (indexed once)."""
    return _BY_METHOD.get(method, ())


_BY_METHOD: dict[str, tuple[MethodRule, ...]] = {}
for _rule in METHODS:
    _BY_METHOD[_rule.method] = (*_BY_METHOD.get(_rule.method, ()), _rule)
