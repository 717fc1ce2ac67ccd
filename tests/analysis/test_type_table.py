"""The declarative type table and the event-path rules, through small handlers."""

from __future__ import annotations

import pytest
from analysis_support import AnalyzeT, only, types_of

from lambdafuzz import labels as L
from lambdafuzz.analysis import type_table as T
from lambdafuzz.analysis import vocabulary


def _table_labels() -> set[str]:
    found: set[str] = set()
    for labels in T.CALLS.values():
        found.update(labels)
    for rule in T.METHODS:
        found.update(rule.labels)
        found.add(rule.receiver)
    for (recv, _), labels in T.ATTRIBUTES.items():
        found.update((recv, *labels))
    for (recv, _), labels in T.SUBSCRIPTS.items():
        found.update((recv, *labels))
    for labels in T.ANNOTATIONS.values():
        found.update(labels)
    found.update(r.label for r in T.PATH_RULES)
    found.update(T.TRIGGER_LABELS.values())
    found.update(label for _, label in T.EVENT_KINDS)
    return found - {T.ANY}


def test_every_table_label_is_in_the_shared_vocabulary_or_a_kind():
    vocab = vocabulary()
    stray = {x for x in _table_labels() if x not in vocab and not T.is_kind(x)}
    assert stray == set()


def test_vocabulary_excludes_generic_labels():
    vocab = vocabulary()
    assert L.DATETIME in vocab and L.S3_OBJECT_KEY in vocab
    assert not (vocab & L.GENERIC)


@pytest.mark.parametrize(
    ("path", "label"),
    [
        (("Records", "*", "s3", "object", "key"), L.S3_OBJECT_KEY),
        (("Records", "*", "s3", "bucket", "name"), L.S3_BUCKET),
        (("Records", "*", "body"), L.SQS_MESSAGE),
        (("Records", "*", "Sns", "Message"), L.SNS_MESSAGE),
        (("Records", "*", "dynamodb", "NewImage", "id"), L.DYNAMODB_ITEM),
        (("Records", "*", "dynamodb", "Keys"), L.DYNAMODB_KEY),
        (("body",), L.HTTP_BODY),
        (("headers", "content-type"), L.HTTP_HEADERS),
        (("queryStringParameters", "q"), L.HTTP_QUERY),
        (("pathParameters", "id"), L.HTTP_PATH),
        (("detail", "object", "key"), L.S3_OBJECT_KEY),
        (("Records", "*", "body", "s3", "object", "key"), L.S3_OBJECT_KEY),
    ],
)
def test_path_labels(path, label):
    assert T.path_labels(path) == (label,)


def test_http_rules_are_anchored_at_the_event_root():
    assert T.path_labels(("Records", "*", "headers")) == ()


def test_event_kind_inference():
    assert T.event_kind({("Records", "*", "s3", "object", "key")}) == L.S3_EVENT
    assert T.event_kind({("Records", "*", "body")}) == L.SQS_EVENT
    assert T.event_kind({("body",)}) == L.APIGATEWAY_EVENT
    assert T.event_kind({("foo",)}) is None


LIBRARY_CALLS = """\
import csv
import gzip
import io
import xml.etree.ElementTree as ET

import boto3

s3 = boto3.client("s3")
sqs = boto3.client("sqs")
bucket = boto3.resource("s3").Bucket("photos")


def handler(event, context):
    head = s3.head_object(Bucket="b", Key="k")
    if head["ContentType"] == "text/csv":
        pass
    listing = s3.list_objects_v2(Bucket="b")
    for entry in listing["Contents"]:
        if entry["Key"].endswith(".gz"):
            pass
    body = s3.get_object(Bucket="b", Key="k")["Body"].read()
    text = gzip.decompress(body).decode()
    reader = csv.DictReader(io.StringIO(text))
    if "id" in reader.fieldnames:
        pass
    root = ET.fromstring(text).find("item")
    if root is not None:
        pass
    messages = sqs.receive_message(QueueUrl="q").get("Messages", [])
    if messages:
        pass
    for obj in bucket.objects.filter(Prefix="p/"):
        if obj.key.startswith("p/x"):
            pass
"""


def test_library_and_boto3_rows(analyze_app: AnalyzeT):
    result = analyze_app(LIBRARY_CALLS)
    assert types_of(only(result, 15))[L.S3_METADATA] == 1
    assert types_of(only(result, 19))[L.S3_OBJECT_KEY] == 2
    header = types_of(only(result, 24))
    assert header[L.CSV_HEADER] == 1
    assert header[L.CSV_ROW] < header[L.GZIP_FILE] < header[L.S3_OBJECT]
    assert types_of(only(result, 27))[L.XML_ELEMENT] == 1
    assert types_of(only(result, 30))[L.SQS_MESSAGE] == 1
    assert types_of(only(result, 33))[L.S3_OBJECT_KEY] == 2
    # every one of them reads the generated world: input-dependent without the event
    assert all(t.input_dependent for t in result.targets)


def test_string_and_path_operations_keep_the_key_label(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import os.path
        import urllib.parse
        from pathlib import PurePosixPath

        def handler(event, context):
            key = urllib.parse.unquote_plus(event["Records"][0]["s3"]["object"]["key"])
            name = os.path.basename(key).lower()
            parts = key.split("/")
            if PurePosixPath(name).suffix == ".png":
                pass
            if parts[-1] == "x":
                pass
        """
    )
    assert types_of(only(result, 9))[L.S3_OBJECT_KEY] == 1
    assert types_of(only(result, 11))[L.S3_OBJECT_KEY] == 1


def test_trigger_names_the_event_label(analyze_app: AnalyzeT):
    source = """\
        def handler(event, context):
            if event.get("detail-type") == "x":
                return 1
        """
    inferred = analyze_app(source)
    assert types_of(only(inferred, 2)).keys() == {L.EVENT}
    named = analyze_app(source, trigger="eventbridge")
    assert types_of(only(named, 2)) == {L.EVENTBRIDGE_EVENT: 1, L.EVENT: 2}


def test_s3_event_inside_an_sqs_body_is_still_an_s3_key(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import json

        def handler(event, context):
            for record in event["Records"]:
                inner = json.loads(record["body"])
                key = inner["Records"][0]["s3"]["object"]["key"]
                if key.endswith(".csv"):
                    pass
        """
    )
    types = types_of(only(result, 7))
    assert types[L.S3_OBJECT_KEY] == 2
    assert L.SQS_MESSAGE in types


def test_powertools_event_classes_keep_the_event_paths(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        from aws_lambda_powertools.utilities.data_classes import S3Event

        def handler(event, context):
            s3_event = S3Event(event)
            for record in s3_event.records:
                if record.s3.get_object.key.startswith("in/"):
                    pass
        """
    )
    assert types_of(only(result, 6))[L.S3_OBJECT_KEY] == 2


def test_hand_rolled_csv_parsing_is_typed_as_csv(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import boto3

        s3 = boto3.client("s3")

        def handler(event, context):
            body = s3.get_object(Bucket="b", Key="k")["Body"].read().decode("utf-8")
            for line in body.splitlines():
                fields = line.split(",")
                if len(fields) < 2:
                    continue
        """
    )
    types = types_of(only(result, 9))
    assert types[L.CSV_ROW] == 2  # len() (1) <- fields (2)
    assert L.TEXT_LINE in types and L.S3_OBJECT in types
