"""The request parameters of the API calls an EventBridge rule on CloudTrail events names.

A rule matching `detail-type: ["AWS API Call via CloudTrail"]` with exact
`detail.eventSource` (`ec2.amazonaws.com`) and `detail.eventName` (`AdvertiseByoipCidr`)
receives records of those calls only, whose `requestParameters` hold the call's request.
`call_parameters` reads the call's input shape from botocore's service model (a data
library: read here, at import, so that `generators/` stays pure) and passes it on as a
JSON Schema: required members always present, each of its type (strings, integers,
numbers, booleans, lists, maps, structures; enums kept), optional members sometimes.

CloudTrail writes a call's parameters in one of two layouts (`CallParameters`): wrapped
in an object named after the input shape, members as the API names them
(`{"AdvertiseByoipCidrRequest": {"Cidr": ...}}`, as EC2 logs many of its newer calls),
or at the top level with lowerCamel names (`tableName`, `functionName`; S3's `Bucket` is
`bucketName`).  The generator takes the wrapped layout where the handler's code names
the input shape.  Limits: the lowerCamel rule is CloudTrail's habit, not a contract
(older EC2 calls use names of their own, `instancesSet`), a service whose CloudTrail
source does not match botocore's name gets nothing, and recursive shapes stop at depth 4.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any, Final

from lambdafuzz.generators.aws.cloudtrail import DETAIL_TYPE, exact_values
from lambdafuzz.model.event_pattern import load_pattern
from lambdafuzz.model.target import CallParameters

#: CloudTrail event sources whose botocore service name differs from the host's first part.
_SERVICES: Final = {"monitoring": "cloudwatch", "email": "ses", "states": "stepfunctions"}
#: Top-level names CloudTrail gives a service's members where lowerCamel is not its rule.
_RENAMED: Final = {"s3": {"Bucket": "bucketName"}}
_MAX_DEPTH: Final = 4


def call_parameters(filters: Sequence[str]) -> tuple[CallParameters, ...]:
    """The request parameter schemas of the calls the CloudTrail patterns name exactly
    (every eventSource x eventName botocore knows); () without such a pattern."""
    found: dict[tuple[str, str], CallParameters] = {}
    for text in filters:
        pattern = load_pattern(text)
        rule = pattern.get("detail-type")
        detail = pattern.get("detail")
        if not (isinstance(rule, list) and DETAIL_TYPE in rule and isinstance(detail, dict)):
            continue
        for source in exact_values(detail.get("eventSource")):
            for name in exact_values(detail.get("eventName")):
                shapes = _call_shapes(source, name)
                if shapes is not None:
                    found.setdefault((source, name), shapes)
    return tuple(found.values())


@functools.lru_cache(maxsize=64)
def _call_shapes(event_source: str, event_name: str) -> CallParameters | None:
    """The call's input shape as both layouts' schemas; None: botocore does not know it."""
    host = event_source.removesuffix(".amazonaws.com")
    if host == event_source:
        return None
    service = _SERVICES.get(host, host)
    import botocore.exceptions  # noqa: PLC0415 - only for templates naming a call
    import botocore.model  # noqa: PLC0415

    try:
        model = _session().get_service_model(service)
        operation = model.operation_model(event_name)
    except (
        botocore.exceptions.BotoCoreError,
        botocore.model.OperationNotFoundError,
        KeyError,
        ValueError,
    ):
        return None
    shape = operation.input_shape
    if shape is None:
        return None
    renamed = _RENAMED.get(service, {})
    top = _schema(shape, 0, lambda n: renamed.get(n, lower_camel(n)))
    wrapped = _schema(shape, 0, lambda n: n)
    return CallParameters(
        event_source, event_name, shape.name, json.dumps(top), json.dumps(wrapped)
    )


def lower_camel(name: str) -> str:
    """`Cidr` -> `cidr`, `ACL` -> `acl`, `SSECustomerKey` -> `sseCustomerKey`."""
    head = len(name) - len(name.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if 1 < head < len(name):
        head -= 1  # the last capital starts the next word
    return name[:head].lower() + name[head:]


@functools.cache
def _session() -> Any:
    import botocore.session  # noqa: PLC0415

    return botocore.session.get_session()


def _schema(shape: Any, depth: int, named: Any) -> dict[str, Any]:
    kind = shape.type_name
    if kind == "structure":
        if depth >= _MAX_DEPTH:
            return {"type": "object"}
        members = {
            named(n): _schema(s, depth + 1, named)
            for n, s in shape.members.items()
            if not s.serialization.get("streaming")  # a body: CloudTrail does not log it
        }
        required = [named(n) for n in shape.required_members if n in shape.members]
        return {
            "type": "object",
            "properties": members,
            "required": required,
            "additionalProperties": False,
        }
    if kind == "list":
        items = _schema(shape.member, depth + 1, named) if depth < _MAX_DEPTH else {}
        return {"type": "array", "items": items, "maxItems": 3}
    if kind == "map":
        values = _schema(shape.value, depth + 1, named) if depth < _MAX_DEPTH else {}
        return {"type": "object", "additionalProperties": values, "maxProperties": 3}
    if kind == "string":
        enum = list(shape.enum or ())
        return {"enum": enum} if enum else {"type": "string"}
    if kind in ("integer", "long"):
        return _bounded({"type": "integer"}, shape)
    if kind in ("float", "double"):
        return _bounded({"type": "number"}, shape)
    if kind == "boolean":
        return {"type": "boolean"}
    if kind == "timestamp":
        return {"type": "string", "format": "date-time"}
    return {"type": "string"}  # blob: base64 text in a log record


def _bounded(schema: dict[str, Any], shape: Any) -> dict[str, Any]:
    low = shape.metadata.get("min")
    if isinstance(low, int | float):
        schema["minimum"] = low
    high = shape.metadata.get("max")
    if isinstance(high, int | float):
        schema["maximum"] = high
    return schema
