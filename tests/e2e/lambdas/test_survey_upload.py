"""Crafted worlds for the survey_upload benchmark: one test per decision-point arm."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from botocore.exceptions import ClientError
from survey_upload import handler
from survey_upload.surveys import SurveyError

BUCKET = "survey-uploads"
TABLE = "NFPBreastFeedingSurveyData"
CONTEXT = SimpleNamespace(log_group_name="/aws/lambda/upload-survey")

EventT = Callable[..., dict[str, Any]]


@pytest.fixture
def world(aws: Any) -> Any:
    aws.s3.create_bucket(Bucket=BUCKET)
    aws.create_table(TABLE, ("UserName", "S"), ("Date", "S"))
    return aws


def run(world: Any, s3_event: EventT, key: str, body: bytes | dict[str, Any]) -> str:
    if isinstance(body, dict):
        body = json.dumps(body).encode()
    world.s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    return handler.lambda_handler(s3_event(BUCKET, key), CONTEXT)


def stored(world: Any) -> list[dict[str, Any]]:
    return world.dynamodb.scan(TableName=TABLE)["Items"]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def logged_error(caplog: pytest.LogCaptureFixture) -> BaseException:
    [record] = [r for r in caplog.records if r.exc_info]
    return record.exc_info[1]


def test_daily_survey_is_stored_with_hashed_user(world: Any, s3_event: EventT) -> None:
    survey = {
        "userName": "alice@example.org",
        "date": "2024-03-01",
        "surveyType": "daily",
        "experienceBleedingStepID": 3,
        "clearBlueMonitorStepID": True,
        "progesteroneStepID": 1.5,
        "numOfTimesBabyBreastFedStepID": None,
        "numOfTimesBabyBottleFedStepID": "",
    }
    result = run(world, s3_event, "uploads/alice_Daily_Survey_2024-03-01.json", survey)
    assert result.startswith("/aws/lambda/upload-survey: Daily survey of 2024-03-01")
    [item] = stored(world)
    assert item["UserName"] == {"S": sha256("alice@example.org")}
    assert item["Date"] == {"S": "2024-03-01"}
    assert item["SurveyType"] == {"S": "daily"}
    assert item["ExperienceBleedingStepID"] == {"S": "3"}
    assert item["ClearBlueMonitorStepID"] == {"S": "true"}
    assert item["ProgesteroneStepID"] == {"S": "1.5"}
    assert item["NumOfTimesBabyBreastFedStepID"] == {"NULL": True}
    assert item["NumOfTimesBabyBottleFedStepID"] == {"S": ""}
    assert item["NumOfTimesBabyFormulaFedStepID"] == {"NULL": True}  # absent -> null
    assert "MotherWeightStepID" not in item


def test_weekly_survey(world: Any, s3_event: EventT) -> None:
    survey = {"userName": "bob", "date": "2024-W09", "motherWeightStepID": "70"}
    assert "Weekly survey" in run(world, s3_event, "Weekly_Survey.json", survey)
    [item] = stored(world)
    assert item["UserName"] == {"S": sha256("bob")}
    assert item["MotherWeightStepID"] == {"S": "70"}


def test_onboarding_survey(world: Any, s3_event: EventT) -> None:
    survey = {"userName": "carol", "date": "2024-01-01", "babyNICUStay": False, "parity": 2}
    assert "Onboarding survey" in run(world, s3_event, "new/Onboarding carol.json", survey)
    [item] = stored(world)
    assert item["BabyNICUStay"] == {"S": "false"}
    assert item["Parity"] == {"S": "2"}
    assert len(item) == 25


def test_daily_wins_over_weekly(world: Any, s3_event: EventT) -> None:
    survey = {"userName": "dan", "date": "d", "progesteroneStepID": "1"}
    assert "Daily survey" in run(world, s3_event, "Weekly_Survey/Daily_Survey.json", survey)


def test_weekly_wins_over_onboarding(world: Any, s3_event: EventT) -> None:
    survey = {"userName": "dan", "date": "d", "sleepHoursStepID": "7"}
    assert "Weekly survey" in run(world, s3_event, "Onboarding/Weekly_Survey.json", survey)


def test_same_user_same_hash(world: Any, s3_event: EventT) -> None:
    for day in ("2024-03-01", "2024-03-02"):
        run(world, s3_event, "Daily_Survey.json", {"userName": "eve", "date": day})
    assert {item["UserName"]["S"] for item in stored(world)} == {sha256("eve")}
    assert len(stored(world)) == 2


@pytest.mark.parametrize(
    ("key", "body", "error"),
    [
        pytest.param(
            "surveys/monthly.json", {"userName": "x", "date": "d"}, ValueError, id="no-type"
        ),
        pytest.param(
            "Daily_Survey.json",
            {"userName": "x", "date": "d", "motherWeightStepID": "1"},
            SurveyError,
            id="unknown-property",
        ),
        pytest.param("Daily_Survey.json", {"date": "d"}, SurveyError, id="no-user"),
        pytest.param(
            "Daily_Survey.json", {"userName": None, "date": "d"}, SurveyError, id="null-user"
        ),
        pytest.param(
            "Onboarding.json",
            {"userName": "x", "date": "d", "parity": [1]},
            SurveyError,
            id="array-value",
        ),
        pytest.param(
            "Onboarding.json",
            {"userName": {"first": "x"}, "date": "d"},
            SurveyError,
            id="object-value",
        ),
        pytest.param("Weekly_Survey.json", b"[1, 2]", SurveyError, id="not-an-object"),
        pytest.param("Weekly_Survey.json", b'{"userName": ', json.JSONDecodeError, id="bad-json"),
        pytest.param("Weekly_Survey.json", b"\xff\xfe\xfd", UnicodeDecodeError, id="not-text"),
        pytest.param("Weekly_Survey.json", {"userName": "x"}, ClientError, id="null-date-key"),
        pytest.param(
            "Weekly_Survey.json", {"userName": "x", "date": ""}, ClientError, id="empty-date-key"
        ),
    ],
)
def test_rejected_surveys_return_error(
    world: Any,
    s3_event: EventT,
    caplog: pytest.LogCaptureFixture,
    key: str,
    body: Any,
    error: type[BaseException],
) -> None:
    with caplog.at_level(logging.ERROR, logger=handler.__name__):
        assert run(world, s3_event, key, body) == "Error"
    assert isinstance(logged_error(caplog), error)
    assert stored(world) == []


def test_missing_object_returns_error(
    world: Any, s3_event: EventT, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger=handler.__name__):
        assert handler.lambda_handler(s3_event(BUCKET, "Daily_Survey.json"), CONTEXT) == "Error"
    assert isinstance(logged_error(caplog), ClientError)


def test_key_is_url_decoded(world: Any, s3_event: EventT) -> None:
    key = "100% done/Daily_Survey (1).json"
    assert "Daily survey" in run(world, s3_event, key, {"userName": "f", "date": "d"})
    assert len(stored(world)) == 1


@pytest.mark.parametrize("raw_key", ["Daily_Survey%zz.json", "Daily_Survey%2.json", "%"])
def test_malformed_escape_propagates(world: Any, s3_event: EventT, raw_key: str) -> None:
    event = s3_event(BUCKET, "placeholder")
    event["Records"][0]["s3"]["object"]["key"] = raw_key
    with pytest.raises(ValueError, match="malformed escape"):
        handler.lambda_handler(event, CONTEXT)
