"""The partial batch response oracle (lambdafuzz.fuzzer.batch_response): each problem for
SQS, Kinesis and DynamoDB streams, the responses Lambda reads as a success, what Lambda
delivers next, and the oracle on real handlers run by a real worker (a Powertools
`BatchProcessor` handler: no finding; one that swallows its errors: SWALLOWED)."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lambdafuzz.analysis.record_catches import RecordCatches
from lambdafuzz.fuzzer.batch_response import (
    ID_NAMES,
    BatchProblem,
    batch_ids,
    check_batch_response,
    read_response,
    redelivered,
)
from lambdafuzz.model.outcome import FailureInfo
from lambdafuzz.model.target import TriggerKind

SQS, KINESIS, DDB = TriggerKind.SQS, TriggerKind.KINESIS, TriggerKind.DYNAMODB_STREAM
APP = Path(__file__).parent / "batch_orders"


def sqs_event(*ids: str) -> dict[str, Any]:
    return {
        "Records": [
            {"messageId": i, "receiptHandle": f"rh-{i}", "body": "{}", "eventSource": "aws:sqs"}
            for i in ids
        ]
    }


def kinesis_event(*ids: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "kinesis": {"sequenceNumber": i, "partitionKey": "p", "data": "e30="},
                "eventID": f"shardId-000000000000:{i}",
                "eventSource": "aws:kinesis",
            }
            for i in ids
        ]
    }


def ddb_event(*ids: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "eventID": f"e{i}",
                "eventName": "INSERT",
                "dynamodb": {"Keys": {"id": {"S": i}}, "SequenceNumber": i},
                "eventSource": "aws:dynamodb",
            }
            for i in ids
        ]
    }


#: (kind, event of three records, their identifiers in batch order)
BATCHES = [
    pytest.param(SQS, sqs_event("m-1", "m-2", "m-3"), ("m-1", "m-2", "m-3"), id="sqs"),
    pytest.param(KINESIS, kinesis_event("900", "1000", "1100"), ("900", "1000", "1100"), id="kin"),
    pytest.param(DDB, ddb_event("700", "800", "900"), ("700", "800", "900"), id="ddb"),
]


@dataclass(frozen=True)
class Caught:
    """A caught exception as `harness.handled` records it."""

    caught_at: str
    exception_type: str = "KeyError"
    location: str = "app/h.py:12"
    raised_in: str = "application"

    @property
    def info(self) -> FailureInfo:
        return FailureInfo(self.exception_type, "'qty'", "", self.location)


def failures(*ids: Any) -> dict[str, Any]:
    return {"batchItemFailures": [{"itemIdentifier": i} for i in ids]}


# ----------------------------------------------------------------------------- reading
@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_batch_ids_are_each_kind_s_identifiers_in_order(kind, event, ids):
    assert batch_ids(kind, event) == ids
    assert batch_ids(TriggerKind.SNS, event) is None  # no batch response for SNS
    assert batch_ids(kind, {"detail": {}}) is None


@pytest.mark.parametrize(
    "response",
    [
        None,
        {},
        {"batchItemFailures": []},
        {"batchItemFailures": None},
        {"statusCode": 200, "body": "done"},  # no batchItemFailures: a complete success
    ],
)
@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_the_complete_success_forms_give_no_finding(kind, event, ids, response):
    assert read_response(response).reported == ()
    assert check_batch_response(kind, event, response, True, ()) == ()
    assert redelivered(kind, event, response) is None  # nothing is delivered again


@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_a_correct_partial_response_gives_no_finding(kind, event, ids):
    response = failures(ids[2], ids[1])
    assert read_response(response).reported == (ids[2], ids[1])
    # a catch beside a response that reports failures is not a swallowed record
    assert check_batch_response(kind, event, response, True, (Caught("app/h.py:20"),)) == ()


# ----------------------------------------------------------------------------- problems
@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_an_identifier_not_in_the_batch_fails_the_whole_batch(kind, event, ids):
    response = failures(ids[0], "not-in-batch", "not-in-batch")
    (finding,) = check_batch_response(kind, event, response, True, ())
    assert finding.problem is BatchProblem.UNKNOWN_ID and not finding.problem.notice
    assert finding.item_ids == ("not-in-batch",)  # once, and not the batch's own
    assert f"not the {ID_NAMES[kind]} of a record of the batch" in finding.detail
    assert "fails the whole batch: all 3" in finding.detail
    assert finding.signature == "batch unknown-id"  # never the identifiers


@pytest.mark.parametrize(
    ("response", "said"),
    [
        ("ok", "the response is 'ok', not a JSON object"),
        ([], "the response is [], not a JSON object"),
        ({"batchItemFailures": "m-1"}, "batchItemFailures is 'm-1', not a list"),
        ({"batchItemFailures": ["m-1"]}, "batchItemFailures[0] is 'm-1', not an object"),
        ({"batchItemFailures": [{"messageId": "m-1"}]}, "has no itemIdentifier"),
        (failures(None), "batchItemFailures[0].itemIdentifier is null"),
        (failures(""), "batchItemFailures[0].itemIdentifier is empty"),
        (failures(7), "batchItemFailures[0].itemIdentifier is 7, not a string"),
    ],
)
@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_a_response_lambda_cannot_read_is_malformed(kind, event, ids, response, said):
    found = check_batch_response(kind, event, response, True, (Caught("app/h.py:20"),))
    assert [f.problem for f in found] == [BatchProblem.MALFORMED]  # and nothing swallowed
    assert said in found[0].detail
    assert "Lambda cannot read the batch response and fails the whole batch" in found[0].detail
    assert redelivered(kind, event, response) == event  # the whole batch again


def test_a_malformed_item_beside_an_unknown_identifier_gives_both():
    event = sqs_event("m-1", "m-2")
    response = {
        "batchItemFailures": [{"itemIdentifier": "m-1"}, {"id": "x"}, {"itemIdentifier": "m-9"}]
    }
    found = check_batch_response(SQS, event, response, True, ())
    assert [f.problem for f in found] == [BatchProblem.MALFORMED, BatchProblem.UNKNOWN_ID]
    assert found[0].item_ids == ("m-1", "m-9") and found[1].item_ids == ("m-9",)
    assert "all 2 messages are processed again" in found[0].detail


@pytest.mark.parametrize("response", [None, {}, {"batchItemFailures": []}])
@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_a_caught_error_and_no_failure_reported_is_swallowed(kind, event, ids, response):
    handled = (Caught("app/h.py:20"), Caught("app/h.py:20", "ValueError"), Caught("app/h.py:31"))
    found = check_batch_response(kind, event, response, True, handled)
    assert [f.problem for f in found] == [BatchProblem.SWALLOWED] * 2  # one per catch site
    first = found[0]
    assert first.where == "app/h.py:20" and first.exception_type == "KeyError"
    assert first.signature == "batch swallowed at app/h.py:20"
    assert first.item_ids == ids  # every record counted as processed
    assert "KeyError raised at app/h.py:12 was caught at app/h.py:20" in first.detail
    lost = "deletes all 3 messages" if kind is SQS else "checkpoints past all 3 records"
    assert lost in first.detail and ID_NAMES[kind] in first.detail


def test_only_record_catches_count_when_they_are_given():
    event = sqs_event("m-1")
    handled = (Caught("app/config.py:4"), Caught("app/h.py:20"))
    found = check_batch_response(SQS, event, None, True, handled, record_catches={"app/h.py:20"})
    assert [f.where for f in found] == ["app/h.py:20"]
    assert "Lambda deletes its message, and the message whose" in found[0].detail
    none = check_batch_response(SQS, event, None, True, handled, record_catches=frozenset())
    assert none == ()


@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_with_reporting_off_only_a_returned_list_is_said_and_it_is_a_notice(kind, event, ids):
    handled = (Caught("app/h.py:20"),)
    (finding,) = check_batch_response(kind, event, failures(ids[1]), False, handled)
    assert finding.problem is BatchProblem.IGNORED and finding.problem.notice
    assert finding.item_ids == (ids[1],)
    assert "Lambda ignores the response" in finding.detail
    assert "FunctionResponseTypes: [ReportBatchItemFailures]" in finding.detail
    # no list, an empty one, or one Lambda could not read anyway: nothing (no swallowing
    # either: without the setting the function has no way to report)
    for response in (None, {}, {"batchItemFailures": []}, "ok", {"batchItemFailures": "x"}):
        assert check_batch_response(kind, event, response, False, handled) == ()
    unknown = check_batch_response(kind, event, failures("not-in-batch"), False, ())
    assert [f.problem for f in unknown] == [BatchProblem.IGNORED]


def test_other_trigger_kinds_and_events_without_a_batch_give_nothing():
    response = failures("nope")
    sns = {"Records": [{"Sns": {"MessageId": "m-1"}}]}
    assert check_batch_response(TriggerKind.SNS, sns, response, True, (Caught("a:1"),)) == ()
    assert check_batch_response(SQS, {"not": "a batch"}, response, True, ()) == ()
    assert check_batch_response(SQS, {"Records": []}, None, True, (Caught("a:1"),)) == ()
    assert redelivered(TriggerKind.SNS, sns, response) is None


# ----------------------------------------------------------------------------- redelivery
def test_sqs_redelivers_the_reported_messages_in_batch_order():
    event = {**sqs_event("m-1", "m-2", "m-3", "m-4"), "extra": {"kept": True}}
    original = copy.deepcopy(event)
    again = redelivered(SQS, event, failures("m-4", "m-2", "m-2"))
    assert [r["messageId"] for r in again["Records"]] == ["m-2", "m-4"]
    assert again["Records"][0] == event["Records"][1] and again["extra"] == {"kept": True}
    again["Records"][0]["body"] = "changed"
    again["extra"]["kept"] = False
    assert event == original  # a copy: the next test may change it


@pytest.mark.parametrize(("kind", "make"), [(KINESIS, kinesis_event), (DDB, ddb_event)])
def test_streams_redeliver_every_record_from_the_lowest_reported_sequence_number(kind, make):
    event = make("90", "100", "110", "120")  # "90" < "100" as numbers, not as text
    again = redelivered(kind, event, failures("120", "100"))
    assert batch_ids(kind, again) == ("100", "110", "120")
    assert again["Records"] == event["Records"][1:]
    assert batch_ids(kind, redelivered(kind, event, failures("90"))) == ("90", "100", "110", "120")


@pytest.mark.parametrize(("kind", "event", "ids"), BATCHES)
def test_an_unknown_identifier_redelivers_the_whole_batch(kind, event, ids):
    again = redelivered(kind, event, failures(ids[2], "not-in-batch"))
    assert again == event and again is not event


# ----------------------------------------------------------------------------- end to end
def run_handler(config: str, seeds: range):
    """(event, response, handled) of each test of `config` run by a real worker, and the
    target's record catches."""
    from lambdafuzz.config import load_target
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
    from lambdafuzz.harness.process.worker import Worker

    target = load_target(APP / config)
    assert target.trigger.report_batch_item_failures
    worker = Worker(WorkerSpec(target=target))
    out = []
    try:
        for seed in seeds:
            result = worker.run(TestRequest((), seed, ReplayMode.LINEAR))
            assert result.failure is None, (seed, result.failure)
            # the worker keeps the return value's repr (at most 300 characters): enough
            # for these responses until it sends the JSON the runtime would
            assert not result.return_value.endswith("..."), (seed, result.return_value)
            out.append((result.event, ast.literal_eval(result.return_value), result.handled))
    finally:
        worker.close()
    return out, RecordCatches.for_target(target)


def line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return 1 + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.slow
def test_a_powertools_batch_processor_handler_gives_no_finding():
    tests, catches = run_handler("powertools.yaml", range(24))
    reported = 0
    for event, response, handled in tests:
        assert handled == ()  # Powertools catches the record errors in its own code
        assert (
            check_batch_response(SQS, event, response, True, handled, record_catches=catches) == ()
        )
        ids = read_response(response).reported
        assert set(ids) <= set(batch_ids(SQS, event))
        reported += bool(ids)
    assert 0 < reported < len(tests)  # failed records in some tests, none in others


@pytest.mark.slow
def test_a_handler_that_swallows_a_record_s_error_is_found():
    tests, catches = run_handler("lambdafuzz.yaml", range(24))
    site = f"orders/swallows.py:{line_of(APP / 'orders' / 'swallows.py', 'except Exception')}"
    swallowed = 0
    for event, response, handled in tests:
        assert response == {"batchItemFailures": []}
        found = check_batch_response(SQS, event, response, True, handled, record_catches=catches)
        if handled:
            assert [h.caught_at for h in handled] == [site]
            assert [(f.problem, f.where) for f in found] == [(BatchProblem.SWALLOWED, site)]
            assert found[0].item_ids == batch_ids(SQS, event)
            swallowed += 1
        else:
            assert found == ()  # every message processed: nothing lost
    assert 0 < swallowed < len(tests)
