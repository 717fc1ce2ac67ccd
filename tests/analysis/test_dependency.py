"""The def-use graph, seen through the influencing types it yields for small programs."""

from __future__ import annotations

from analysis_support import AnalyzeT, only, types_of

from lambdafuzz import labels as L


def test_tuple_unpacking_pairwise_and_from_a_call(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import os

        def handler(event, context):
            key, n = event["Records"][0]["s3"]["object"]["key"], 1
            stem, ext = os.path.splitext(key)
            if ext == ".jpg":
                return stem
            if n:
                return None
        """
    )
    assert types_of(only(result, 6))[L.S3_OBJECT_KEY] == 1
    assert L.S3_OBJECT_KEY not in types_of(only(result, 8))  # pairwise: n is just 1


def test_augmented_assignment_and_subscripts(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import csv

        def handler(event, context):
            total = 0
            for row in csv.reader(event["body"].splitlines()):
                total += int(row[1])
            if total > 10:
                return 1
        """
    )
    types = types_of(only(result, 7))
    assert types[L.CSV_CELL] < types[L.CSV_ROW]
    assert L.HTTP_BODY in types


def test_attribute_and_receiver_edges(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import datetime

        def check(when: datetime.datetime):
            year = when.year
            if year > 2000:
                return 1

        def handler(event, context):
            return check(datetime.datetime.fromisoformat(event["when"]))
        """
    )
    target = only(result, 5)
    # branch -> year (1) -> when.year (2) -> when (3): a parameter annotated datetime
    assert types_of(target)[L.DATETIME] == 3
    assert target.input_dependent  # through the call site's argument


def test_with_as_and_library_methods(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import io
        import zipfile

        def handler(event, context):
            data = event["body"].encode()
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for info in archive.infolist():
                    if info.filename.endswith("/"):
                        continue
        """
    )
    types = types_of(only(result, 8))
    assert types[L.ZIP_ENTRY_NAME] <= 2
    assert types[L.ZIP_ENTRY] < types[L.ZIP_ARCHIVE] < types[L.HTTP_BODY]


def test_comprehension_variables(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        def handler(event, context):
            keys = [r["s3"]["object"]["key"] for r in event["Records"]]
            if keys:
                return keys
        """
    )
    assert types_of(only(result, 3))[L.S3_OBJECT_KEY] == 1


def test_calls_into_application_functions_across_modules(analyze_app: AnalyzeT):
    result = analyze_app(
        {
            "util": """\
                import json

                def parse(text):
                    if not text:
                        return {}
                    return json.loads(text)
            """,
            "handler": """\
                from .util import parse

                def handler(event, context):
                    doc = parse(event["body"])
                    if doc.get("kind") == "a":
                        return 1
            """,
        }
    )
    in_helper = next(t for t in result.targets if t.module == "app.util" and t.arm == "true")
    assert types_of(in_helper)[L.HTTP_BODY] == 1  # argument -> parameter
    caller = next(t for t in result.targets if t.module == "app.handler" and t.arm == "true")
    types = types_of(caller)
    assert types[L.JSON_VALUE] == 1  # return -> call site, then .get
    assert types[L.JSON_DOCUMENT] == 2


def test_self_fields_and_methods(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        class Upload:
            def __init__(self, key):
                self.key = key

            def is_archive(self):
                if self.key.endswith(".zip"):
                    return True
                return False

        def handler(event, context):
            upload = Upload(event["Records"][0]["s3"]["object"]["key"])
            if upload.is_archive():
                return 1
        """
    )
    # .endswith() (1) <- the field self.key (2), stored from __init__'s parameter
    assert types_of(only(result, 6))[L.S3_OBJECT_KEY] == 2
    # method call -> return of the method -> its condition on the field
    assert L.S3_OBJECT_KEY in types_of(only(result, 12))


def test_mutating_methods_and_control_dependence(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import csv

        def kind_of(key):
            if "daily" in key:
                return "daily"
            return None

        def handler(event, context):
            key = event["Records"][0]["s3"]["object"]["key"]
            rows = []
            for row in csv.reader(event["body"].splitlines()):
                rows.append(row)
            if rows:
                pass
            kind = kind_of(key)
            if kind is None:
                return 0
        """
    )
    assert types_of(only(result, 13))[L.CSV_ROW] == 1
    # kind_of returns constants: only the condition it returns under ties it to the key
    target = only(result, 16)
    assert target.input_dependent
    assert L.S3_OBJECT_KEY in types_of(target)


def test_globals_shared_across_modules_and_recursion(analyze_app: AnalyzeT):
    result = analyze_app(
        {
            "clients": """\
                import boto3
                table = boto3.resource("dynamodb").Table("Things")
            """,
            "handler": """\
                from .clients import table

                def depth(n):
                    return 0 if n <= 0 else 1 + depth(n - 1)

                def handler(event, context):
                    items = table.scan()["Items"]
                    if items and depth(len(items)) > 3:
                        return 1
            """,
        }
    )
    target = next(t for t in result.targets if t.kind == "if" and t.arm == "true")
    assert types_of(target)[L.DYNAMODB_ITEM] <= 3
    assert target.input_dependent


def test_unreachable_library_style_code_is_not_input_dependent(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        import datetime

        def handler(event, context):
            if datetime.datetime.now().hour > 12:
                return "pm"
            return "am"
        """
    )
    target = only(result, 4)
    assert types_of(target)[L.DATETIME] == 2
    assert not target.input_dependent
    assert result.match.total == 0
