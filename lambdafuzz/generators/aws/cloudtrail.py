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

With edge values on, two more things AWS sends (`FAILED_P`, `world_refs`):

* CloudTrail records failed calls too, and a rule that does not filter on `errorCode`
  matches them: `errorCode` / `errorMessage`, `responseElements: null`, and for a
  denied call `requestParameters: null` (a rule naming `errorCode` decides instead);
* the resource a call created or changed may be gone when its record arrives: fields of
  the request and response that name a resource (`name`, `secretId`, `bucketName`) name
  one the world holds only some of the time (`world_refs.fill_names`).

The caller is in `userIdentity.principalId` as AWS writes it: an IAM user's `AIDA...` id,
an assumed role's `AROA...:<session name>`, the root's account id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.world_refs import WorldRefs, fill_names
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.json_files import json_objects
from lambdafuzz.generators.json_schema import json_schema_values
from lambdafuzz.model.event_pattern import MISSING, leaf_matches
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
#: A record is of a failed call this often (edge values on, the rule not naming errorCode).
FAILED_P: Final = 0.15
#: Authorization failures (EC2 names its own): CloudTrail logs no request parameters.
DENIED: Final = ("AccessDenied", "Client.UnauthorizedOperation")
ERROR_CODES: Final = (
    "AccessDenied",
    "ValidationException",
    "ResourceNotFoundException",
    "InvalidParameterException",
    "ThrottlingException",
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
    refs: WorldRefs | None = None,
) -> dict[str, Any]:
    """A CloudTrail record of one API call the `pattern` is about; its parameters follow
    the call's request where `calls` describes it (`config.api_call_shapes`) and now and
    then name the world's resources (`refs`); a failed call now and then."""
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
    identity: dict[str, Any] = {
        "type": kind,
        "principalId": _principal(kind, account, seed),
        "arn": _identity_arn(kind, account, seed),
        "accountId": account,
    }
    if kind == "AWSService":
        identity["invokedBy"] = source
    else:
        identity["accessKeyId"] = "ASIA" + ids.alnum_id(seed, "key", 16)
    error = draw_error(choices, detail_rules.get("errorCode"))
    if (
        error == "AccessDenied"
        and source == "ec2.amazonaws.com"
        and "errorCode" not in detail_rules
    ):
        error = "Client.UnauthorizedOperation"
    call = next((c for c in calls if (c.event_source, c.event_name) == (source, name)), None)
    parameters: dict[str, Any] | None = None
    if error in DENIED and "requestParameters" not in detail_rules:
        pass  # a denied call: CloudTrail logs no parameters
    elif call is not None:
        parameters = _call_parameters(choices, call)
    elif names or not choices.draw_boolean(NULL_PARAMETERS_P, site="parameters-null?"):
        parameters = json_objects(choices, max_depth=2)
    response = None
    answered = error is None or "responseElements" in detail_rules  # a failure: null
    if answered and not choices.draw_boolean(NULL_RESPONSE_P, site="response-null?"):
        response = json_objects(choices, max_depth=2)
    if refs is not None:  # names of the world's resources, only sometimes
        service = str(source).split(".", 1)[0]
        parameters = fill_names(choices, parameters, refs, service=service)
        response = fill_names(choices, response, refs, service=service)
    failure = {} if error is None else _failure(error, identity, source, name)
    return {
        "eventVersion": "1.09",
        "userIdentity": identity,
        "eventTime": ids.iso_seconds(ids.draw_time_ms(choices)),
        "eventSource": source,
        "eventName": name,
        "awsRegion": region,
        "sourceIPAddress": source if kind == "AWSService" else _address(seed),
        "userAgent": source if kind == "AWSService" else choices.draw_choice(USER_AGENTS),
        **failure,
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


def draw_error(choices: Choices, rule: Any) -> str | None:
    """The error code of a failed call, None for a call that succeeded: failed `FAILED_P`
    of the time with edge values on when the pattern has no `errorCode` `rule`; else as
    the rule admits (an absent code if it may, a code it admits if it must)."""
    if rule is None:
        if not choices.edge_values or not choices.draw_boolean(FAILED_P, site="failed?"):
            return None
        return choices.draw_choice(ERROR_CODES, site="error-code")
    rules = rule if isinstance(rule, list) else [rule]
    codes = exact_values(rules) or [c for c in ERROR_CODES if leaf_matches(rules, c)]
    if leaf_matches(rules, MISSING):  # a success passes: a failure only now and then
        if not codes or not choices.edge_values:
            return None
        if not choices.draw_boolean(FAILED_P, site="failed?"):
            return None
    return choices.draw_choice(codes or list(ERROR_CODES), site="error-code")


def _failure(code: str, identity: Mapping[str, Any], source: str, name: str) -> dict[str, str]:
    """`errorCode` and `errorMessage` as CloudTrail writes them for a failed call."""
    action = f"{source.split('.', 1)[0]}:{name}"
    if code in DENIED:
        caller = identity.get("arn", "")
        message = f"User: {caller} is not authorized to perform: {action}"
    elif code == "ResourceNotFoundException":
        message = "The requested resource was not found."
    elif code == "ThrottlingException":
        message = "Rate exceeded"
    else:
        message = f"Invalid request for {action}."
    return {"errorCode": code, "errorMessage": message}


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


def _principal(kind: str, account: str, seed: bytes) -> str:
    """`userIdentity.principalId`: a role's session follows its id after a colon."""
    if kind == "Root":
        return account
    if kind == "AssumedRole":
        return "AROA" + ids.alnum_id(seed, "principal", 17) + ":" + _session(seed)
    return "AIDA" + ids.alnum_id(seed, "principal", 17)


def _session(seed: bytes) -> str:
    return f"session-{ids.hex_id(seed, 's', 8)}"


def _identity_arn(kind: str, account: str, seed: bytes) -> str:
    if kind == "Root":
        return f"arn:aws:iam::{account}:root"
    if kind == "AssumedRole":
        return f"arn:aws:sts::{account}:assumed-role/app-role/{_session(seed)}"
    if kind == "AWSService":
        return f"arn:aws:iam::{account}:role/aws-service-role"
    return f"arn:aws:iam::{account}:user/user-{ids.hex_id(seed, 'user', 6, upper=False)}"


def _address(seed: bytes) -> str:
    parts = ids.derive(seed, "address", 4)
    return f"{10 + parts[0] % 200}.{parts[1]}.{parts[2]}.{1 + parts[3] % 254}"
