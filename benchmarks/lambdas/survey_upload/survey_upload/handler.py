"""Store a survey uploaded to S3 as JSON in DynamoDB.

The object key names the survey type. The user name is stored only as a stable hash. Any
problem with the survey is logged and answered with "Error"; only a key that cannot be
URL-decoded escapes as an exception.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import urllib.parse
from typing import Any

import boto3

from survey_upload.surveys import DailySurvey, OnboardingSurvey, Survey, WeeklySurvey

logger = logging.getLogger(__name__)
logger.setLevel(logging.INFO)

TABLE_NAME = "NFPBreastFeedingSurveyData"
MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def lambda_handler(event: dict[str, Any], context: Any) -> str:
    s3_record = event["Records"][0]["s3"]
    bucket = s3_record["bucket"]["name"]
    key = decode_key(s3_record["object"]["key"])
    try:
        survey_type = survey_type_for(key)
        if survey_type is None:
            raise ValueError(f"no survey type in object key {key!r}")
        s3 = boto3.client("s3")
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        survey = survey_type.from_json(json.loads(body))
        dynamodb = boto3.client("dynamodb")
        dynamodb.put_item(TableName=TABLE_NAME, Item=to_item(survey))
    except Exception:
        logger.exception("uploading survey s3://%s/%s failed", bucket, key)
        return "Error"
    summary = f"{survey.kind} survey of {survey.date} ({len(body)} bytes)"
    logger.info("stored %s", summary)
    return f"{context.log_group_name}: {summary}"


def decode_key(raw_key: str) -> str:
    """URL-decode an S3 event key; a `%` not followed by two hex digits is malformed."""
    if MALFORMED_ESCAPE.search(raw_key):
        raise ValueError(f"malformed escape in object key {raw_key!r}")
    return urllib.parse.unquote_plus(raw_key)


def survey_type_for(key: str) -> type[Survey] | None:
    if "Daily_Survey" in key:
        return DailySurvey
    elif "Weekly_Survey" in key:
        return WeeklySurvey
    elif "Onboarding" in key:
        return OnboardingSurvey
    return None


def hash_user_name(user_name: str) -> str:
    return hashlib.sha256(user_name.encode("utf-8")).hexdigest()


def to_item(survey: Survey) -> dict[str, dict[str, Any]]:
    """The survey as a DynamoDB item; the user name is replaced by its hash."""
    attributes = survey.attributes()
    attributes["UserName"] = hash_user_name(survey.user_name)
    return {
        name: {"NULL": True} if value is None else {"S": value}
        for name, value in attributes.items()
    }
