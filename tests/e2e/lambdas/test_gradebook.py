"""Crafted worlds for the gradebook benchmark: one test per decision-point arm."""

from __future__ import annotations

import logging

import pytest
from botocore.exceptions import ClientError

BUCKET = "gradebook-uploads"
TABLE = "Students"


@pytest.fixture
def handler(aws, load_handler):
    aws.s3.create_bucket(Bucket=BUCKET)
    aws.create_table(TABLE, ("StudentID", "N"))
    return load_handler("gradebook.handler")


def put_csv(aws, key: str, text: str, content_type: str | None = "text/csv") -> None:
    extra = {"ContentType": content_type} if content_type else {}
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=text.encode(), **extra)


def grades(aws) -> dict[int, int]:
    items = aws.dynamodb.scan(TableName=TABLE)["Items"]
    return {int(item["StudentID"]["N"]): int(item["Grade"]["N"]) for item in items}


def test_each_line_stores_truncated_average(aws, handler, s3_event):
    put_csv(aws, "grades.csv", "1,90,81\n2,70\n3,-7,2\n4,1,1,0\n")

    assert handler.lambda_handler(s3_event(BUCKET, "grades.csv"), None) == "text/csv"

    # 171/2 -> 85, -5/2 -> -2 (toward zero, not floor), 2/3 -> 0
    assert grades(aws) == {1: 85, 2: 70, 3: -2, 4: 0}


def test_empty_body_writes_nothing_and_returns_content_type(aws, handler, s3_event):
    put_csv(aws, "empty.csv", "", content_type="application/vnd.ms-excel")

    assert handler.lambda_handler(s3_event(BUCKET, "empty.csv"), None) == (
        "application/vnd.ms-excel"
    )
    assert grades(aws) == {}


def test_content_type_defaults_to_what_s3_reports(aws, handler, s3_event):
    put_csv(aws, "plain", "7,50\n", content_type=None)

    assert handler.lambda_handler(s3_event(BUCKET, "plain"), None) == "binary/octet-stream"
    assert grades(aws) == {7: 50}


def test_header_line_is_not_skipped(aws, handler, s3_event):
    put_csv(aws, "with-header.csv", "id,grade\n1,90\n")

    with pytest.raises(ValueError, match="invalid literal for int"):
        handler.lambda_handler(s3_event(BUCKET, "with-header.csv"), None)
    assert grades(aws) == {}


def test_non_integer_grade_propagates_after_earlier_lines(aws, handler, s3_event):
    put_csv(aws, "grades.csv", "1,90\n2,8.5\n")

    with pytest.raises(ValueError):
        handler.lambda_handler(s3_event(BUCKET, "grades.csv"), None)
    assert grades(aws) == {1: 90}


@pytest.mark.parametrize("text", ["5\n", "1,90\n\n2,80\n"])
def test_line_without_grades_divides_by_zero(aws, handler, s3_event, text):
    put_csv(aws, "grades.csv", text)

    with pytest.raises(ZeroDivisionError):
        handler.lambda_handler(s3_event(BUCKET, "grades.csv"), None)


def test_non_integer_student_id_propagates(aws, handler, s3_event):
    put_csv(aws, "grades.csv", "alice,90,80\n")

    with pytest.raises(ValueError, match="alice"):
        handler.lambda_handler(s3_event(BUCKET, "grades.csv"), None)
    assert grades(aws) == {}


def test_failed_put_is_logged_and_loop_goes_on(aws, handler, s3_event, caplog):
    # 40 significant digits do not fit a DynamoDB number: boto3 refuses before sending.
    put_csv(aws, "grades.csv", f"{'9' * 40},90\n2,60\n")

    with caplog.at_level(logging.ERROR):
        assert handler.lambda_handler(s3_event(BUCKET, "grades.csv"), None) == "text/csv"

    assert "create item failed" in caplog.text
    assert grades(aws) == {2: 60}


def test_key_is_used_raw_so_encoded_keys_miss(aws, handler, s3_event):
    put_csv(aws, "term 1.csv", "1,90\n")

    with pytest.raises(ClientError, match="NoSuchKey"):
        handler.lambda_handler(s3_event(BUCKET, "term 1.csv"), None)


def test_missing_table_is_swallowed_per_line(aws, handler, s3_event, caplog):
    aws.dynamodb.delete_table(TableName=TABLE)
    put_csv(aws, "grades.csv", "1,90\n2,80\n")

    with caplog.at_level(logging.ERROR):
        assert handler.lambda_handler(s3_event(BUCKET, "grades.csv"), None) == "text/csv"
    assert caplog.text.count("create item failed") == 2
