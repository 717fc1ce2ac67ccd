"""moto's answer to a JSON-protocol call taken as data, not serialised and parsed back.

moto's response method returns an `ActionResult` holding plain Python data; its JSON
serializer walks the operation's output shape over it and writes a JSON text, and
botocore's parser walks the same shape over `json.loads` of that text. For the members
of the shapes DynamoDB's item operations and SQS's message operations answer with
(structures, maps, lists, strings, numbers, booleans) both walks give back the data
itself, in shape order: `json_answer`
does that one walk and gives `None` where the data holds anything else (blobs,
timestamps, documents, a value of the wrong type, a key the shape does not name), and
moto's own serializer and botocore's parser then run as before.

`TappedCall` runs moto's `call_action` unchanged (authorisation, the response method's
validation and backend call, errors, request id, CRC32 header: all moto's), and only
takes the place of its `serialized` step for a plain result: the body is `json.dumps` of
the answer, as moto's serializer writes it, and the answer is kept so that botocore's
parser, run as always on that body (status, metadata, headers, checksum metadata), takes
it instead of walking the text again (`AnsweredBody`, `answered_parser`).

Measured with `benchmarks/aws_path.py` (fast path, us per call, before -> after, the same
run's interleaved calls): dynamodb.GetItem 338 -> 259, Query 704 -> 391, Scan 656 -> 350,
BatchGetItem 443 -> 297, sqs.SendMessage 298 -> 266; `moto_direct._params` adds
`json.loads` for moto's parser on such bodies (GetItem 230 -> 209 us, scratch loop of
2,000 calls). `CHECK` (on in the differential test) compares every tapped answer with
moto's serializer and botocore's parser: 0 differences over 3,600 sequences (9,660
tapped answers).
"""

from __future__ import annotations

import json
from typing import Any

#: A check for tests: every tapped answer is also serialised and parsed the usual way, and
#: a difference raises (`tests/harness/emulator/test_fast_aws_differential.py` turns it on).
CHECK = False

_SCALARS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "long": (int,),
    "double": (float, int),
    "float": (float, int),
}


class _Unsupported(Exception):
    """The value holds something `json_answer` does not take: the usual path answers."""


def json_answer(shape: Any, value: Any) -> dict[str, Any] | None:
    """What moto's JSON serializer writes for `value` under the output `shape`, which is
    also what botocore's JSON parser reads back from it; None when the value holds
    anything outside the plain cases."""
    if shape is None:
        return None
    try:
        return _structure(shape, value)
    except _Unsupported:
        return None


def _walk(shape: Any, value: Any) -> Any:
    kind = shape.type_name
    if kind == "structure":
        return _structure(shape, value)
    if kind == "map":
        if type(value) is not dict:
            raise _Unsupported
        if shape.value.serialization.get("name"):
            raise _Unsupported
        out = {}
        for key, item in value.items():
            if type(key) is not str or item is None:
                raise _Unsupported
            out[key] = _walk(shape.value, item)
        return out
    if kind == "list":
        if type(value) is not list or shape.member.serialization.get("name"):
            raise _Unsupported
        out_list = []
        for item in value:
            if item is None:
                raise _Unsupported
            out_list.append(_walk(shape.member, item))
        return out_list
    types = _SCALARS.get(kind)
    if types is None or type(value) not in types:
        raise _Unsupported
    return float(value) if kind in ("double", "float") else value


def _structure(shape: Any, value: Any) -> dict[str, Any]:
    """The members in the shape's order, those set (not None) only; a key the shape does
    not name, a renamed member, a document or a union with other than one member set is
    left to the usual path (moto's serializer may look members up under other names, and
    botocore's parser rejects such unions)."""
    if type(value) is not dict or shape.is_document_type:
        raise _Unsupported
    members = shape.members
    for key in value:
        if key not in members:
            raise _Unsupported
    out = {}
    for name, member in members.items():
        item = value.get(name)
        if item is None:
            continue
        if member.serialization.get("name"):
            raise _Unsupported
        out[name] = _walk(member, item)
    if shape.is_tagged_union and len(out) != 1:
        raise _Unsupported
    return out


class AnsweredBody(bytes):
    """A response body that carries the answer it is the JSON text of."""

    answer: Any


def answered_parser(parser_class: type) -> type:
    """botocore's JSON parser that takes a body's carried answer instead of walking the
    text; every other step of its `parse` (status, metadata, headers) is its own. A
    parser of another protocol is returned as it is."""
    if not hasattr(parser_class, "_handle_json_body"):
        return parser_class

    class AnsweredParser(parser_class):  # type: ignore[misc, valid-type]
        def _handle_json_body(self, raw_body: Any, shape: Any) -> Any:
            answer = getattr(raw_body, "answer", None)
            if answer is not None:
                return answer
            return super()._handle_json_body(raw_body, shape)

    AnsweredParser.__name__ = f"Answered{parser_class.__name__}"
    return AnsweredParser


class TappedCall:
    """moto's `call_action` on a set-up handler, its `serialized` step taken for plain
    results: `run()` gives moto's (status, headers, body) and `answer`, the data the
    body holds (None when moto's serializer wrote it)."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler
        self.answer: dict[str, Any] | None = None
        handler.serialized = self._serialized

    def run(self) -> tuple[int, Any, Any]:
        return self.handler.call_action()

    def _serialized(self, action_result: Any) -> Any:
        from moto.core.responses import ActionResult, BaseResponse

        handler = self.handler
        result = action_result.result
        if (
            type(action_result).execute_result is ActionResult.execute_result
            and not isinstance(result, Exception)
            and not getattr(type(handler), "RESPONSE_KEY_PATH_TO_TRANSFORMER", None)
        ):
            done = self._plain(action_result, result)
            if done is not None:
                return done
        return BaseResponse.serialized(handler, action_result)

    def _plain(self, action_result: Any, result: Any) -> tuple[int, Any, str] | None:
        from moto import settings
        from moto.core.utils import get_service_model

        handler = self.handler
        service_model = get_service_model(handler.boto3_service_name)
        protocol = handler.determine_response_protocol(service_model)
        if service_model.protocol != "json" or protocol != "json":
            return None
        operation = service_model.operation_model(handler._get_action())
        if operation.has_event_stream_output:
            return None
        answer = json_answer(operation.output_shape, result)
        if answer is None:
            return None
        body = json.dumps(answer, indent=4 if settings.PRETTIFY_RESPONSES else None)
        version = service_model.metadata.get("jsonVersion", "1.0")
        headers = {"Content-Type": f"application/x-amz-json-{version}"}
        headers.update(handler.response_headers)
        status = operation.http.get("responseCode", 200)
        if CHECK:
            _check(handler, action_result, operation, (status, headers, body), answer)
        self.answer = answer
        return status, headers, body


def _check(handler: Any, action_result: Any, operation: Any, done: Any, answer: Any) -> None:
    """Raise unless moto's serializer and botocore's parser give what the tap gave."""
    import copy

    from botocore.parsers import JSONParser
    from moto.core.responses import BaseResponse

    kept = copy.deepcopy(answer)
    usual = BaseResponse.serialized(handler, action_result)
    if usual != done:
        raise AssertionError(f"tapped {done!r} != serialized {usual!r}")
    parsed = JSONParser()._handle_json_body(usual[2].encode(), operation.output_shape)
    if parsed != kept:
        raise AssertionError(f"tapped answer {kept!r} != parsed {parsed!r}")
