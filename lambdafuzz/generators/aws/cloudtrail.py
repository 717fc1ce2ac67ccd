"""The `detail` of EventBridge's "AWS API Call via CloudTrail" events: a CloudTrail record.

A rule matching `detail-type: ["AWS API Call via CloudTrail"]` receives AWS's own events
about API calls, whose detail is always a CloudTrail record: `eventVersion`,
`userIdentity` (type, principalId, arn, accountId), `eventTime`, `eventSource`,
`eventName`, `awsRegion`, `sourceIPAddress`, `userAgent`, `requestParameters` (an
object; null for some calls without parameters), `responseElements` (an object or
null), `requestID`, `eventID`, `eventType: AwsApiCall`, `readOnly` and
`recipientAccountId`.  Drawn as a free JSON object, such a detail lacked
`requestParameters` or held a string there, which AWS never sends.  The record's service
and call come from the rule's pattern (`detail.eventSource` / `detail.eventName`, else
`source: aws.<service>`); the parameters and response are JSON objects from the
generators of message bodies (the code's field names and constants apply), or, for a
call the pattern names exactly, the call's request (`config.api_call_shapes`).  The pattern
still steers every field it constrains afterwards (`filter_steering.steer`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.json_files import json_objects
from lambdafuzz.generators.json_schema import json_schema_values
from lambdafuzz.model.target import CallParameters

DETAIL_TYPE: Final = "AWS API Call via CloudTrail"
#: Calls with no parameters (ListBuckets, GetCallerIdentity) get `requestParameters: null`;
#: drawn this often when the pattern does not name the calls.
NULL_PARAMETERS_P: Final = 0.05
NULL_RESPONSE_P: Final = 0.5
SERVICES: Final = ("s3", "ec2", "iam", "dynamodb", "lambda", "sts")
CALLS: Final = ("PutObject", "CreateBucket", "RunInstances", "CreateUser", "UpdateItem", "Invoke")
IDENTITY_TYPES: Final = ("IAMUser", "AssumedRole", "Root", "AWSService")
USER_AGENTS: Final = (
    "aws-cli/2.15.30 Python/3.11.8 Linux/6.1 exe/x86_64",
    "Boto3/1.34.69 md/Botocore#1.34.69 ua/2.0 os/linux Python/3.12.2",
    "console.amazonaws.com",
    "AWS Internal",
)
_READ_PREFIXES: Final = ("Get", "List", "Describe", "Head", "Lookup", "Search", "Scan", "Query")


def is_cloudtrail(patterns: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first pattern asking for CloudTrail API call events, if any."""
    for pattern in patterns:
        rule = pattern.get("detail-type")
        if isinstance(rule, list) and DETAIL_TYPE in rule:
            return pattern
    return None


def draw_cloudtrail_detail(
    choices: Choices,
    pattern: Mapping[str, Any],
    *,
    region: str,
    account: str,
    calls: Sequence[CallParameters] = (),
) -> dict[str, Any]:
    """A CloudTrail record of one API call the `pattern` is about; its parameters follow
    the call's request where `calls` describes it (`config.api_call_shapes`)."""
    detail_rules = pattern.get("detail") if isinstance(pattern.get("detail"), Mapping) else {}
    sources = exact_values(detail_rules.get("eventSource"))
    if not sources:
        services = [s.removeprefix("aws.") for s in exact_values(pattern.get("source"))]
        sources = [f"{s}.amazonaws.com" for s in services if s] or [
            f"{s}.amazonaws.com" for s in SERVICES
        ]
    source = choices.draw_choice(sources, site="event-source")
    names = exact_values(detail_rules.get("eventName"))
    name = choices.draw_choice(names or list(CALLS), site="event-name")
    seed = ids.draw_seed(choices)
    kind = choices.draw_choice(IDENTITY_TYPES, site="identity-type")
    principal = "AIDA" + ids.alnum_id(seed, "principal", 17)
    identity: dict[str, Any] = {
        "type": kind,
        "principalId": principal,
        "arn": _identity_arn(kind, account, seed),
        "accountId": account,
    }
    if kind == "AWSService":
        identity["invokedBy"] = source
    else:
        identity["accessKeyId"] = "ASIA" + ids.alnum_id(seed, "key", 16)
    call = next((c for c in calls if (c.event_source, c.event_name) == (source, name)), None)
    if call is not None:
        parameters: dict[str, Any] | None = _call_parameters(choices, call)
    elif names or not choices.draw_boolean(NULL_PARAMETERS_P, site="parameters-null?"):
        parameters = json_objects(choices, max_depth=2)
    else:
        parameters = None
    response = None
    if not choices.draw_boolean(NULL_RESPONSE_P, site="response-null?"):
        response = json_objects(choices, max_depth=2)
    return {
        "eventVersion": "1.09",
        "userIdentity": identity,
        "eventTime": ids.iso_seconds(ids.draw_time_ms(choices)),
        "eventSource": source,
        "eventName": name,
        "awsRegion": region,
        "sourceIPAddress": source if kind == "AWSService" else _address(seed),
        "userAgent": source if kind == "AWSService" else choices.draw_choice(USER_AGENTS),
        "requestParameters": parameters,
        "responseElements": response,
        "requestID": ids.uuid(seed, "request"),
        "eventID": ids.uuid(seed, "event"),
        "readOnly": str(name).startswith(_READ_PREFIXES),
        "eventType": "AwsApiCall",
        "managementEvent": True,
        "recipientAccountId": account,
        "eventCategory": "Management",
    }


def _call_parameters(choices: Choices, call: CallParameters) -> dict[str, Any]:
    """The call's request as CloudTrail logs it: wrapped in the input shape's name where
    the code names that shape (EC2's layout for its newer calls), else its members at the
    top level; drawn with no defect (a record AWS wrote is the call's request)."""
    if call.input_shape in choices.dictionary:
        inner = json_schema_values(
            choices, json.loads(call.wrapped_json), name="cloudtrail.request", near_p=0.0
        )
        return {call.input_shape: inner}
    value = json_schema_values(
        choices, json.loads(call.schema_json), name="cloudtrail.request", near_p=0.0
    )
    return value if isinstance(value, dict) else {}


def service_of(detail: Mapping[str, Any]) -> str:
    """The event's `source` for a record: `aws.s3` for `s3.amazonaws.com`."""
    source = detail.get("eventSource")
    return "aws." + source.split(".", 1)[0] if isinstance(source, str) else "aws.cloudtrail"


def exact_values(rule: Any) -> list[str]:
    """The exact strings a pattern's rule list admits (operators left out)."""
    return [r for r in rule if isinstance(r, str)] if isinstance(rule, list) else []


def _identity_arn(kind: str, account: str, seed: bytes) -> str:
    if kind == "Root":
        return f"arn:aws:iam::{account}:root"
    if kind == "AssumedRole":
        return f"arn:aws:sts::{account}:assumed-role/app-role/session-{ids.hex_id(seed, 's', 8)}"
    if kind == "AWSService":
        return f"arn:aws:iam::{account}:role/aws-service-role"
    return f"arn:aws:iam::{account}:user/user-{ids.hex_id(seed, 'user', 6, upper=False)}"


def _address(seed: bytes) -> str:
    parts = ids.derive(seed, "address", 4)
    return f"{10 + parts[0] % 200}.{parts[1]}.{parts[2]}.{1 + parts[3] % 254}"
