"""moto's response class called on a serialised request, without an HTTP request.

For DynamoDB, SQS (JSON protocol) and SNS (query protocol) everything moto's handler reads
from a request is the operation (the `X-Amz-Target` header or the form's `Action`), the
body, the region and the account.
`direct_response` sets exactly what moto's `BaseResponse.setup_class` would set from
those, the same way (moto's own region regex, access-key regex, protocol parser and
account lookup), and calls the handler's `call_action` - so validation, the backend call,
errors, the serializer, the CRC32 and request-id headers are moto's own - while skipping
what only the HTTP shape needs: botocore's request object, SigV4 signing (moto reads
nothing from a signature but the credential scope's access key and region, written here
from the signer's credentials and region), werkzeug's request and environ.

Measured (`scratch` profile of `Table.put_item`, 300 calls, cProfile): the HTTP-shaped
dispatch spent 53% of the fast path's answer in request building, signing and werkzeug.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlparse

from lambdafuzz.harness.emulator import moto_results
from lambdafuzz.harness.emulator.moto_results import TappedCall

#: Services whose moto handler reads nothing from a request but what `direct_response`
#: sets (checked against moto's `dynamodb/`, `sqs/` and `sns/responses.py`).
DIRECT_SERVICES = frozenset(("dynamodb", "sqs", "sns"))
#: Of those, the services whose plain answers skip moto's serializer and botocore's
#: parser (`moto_results`): JSON protocol (SNS speaks the query protocol, XML).
TAPPED_SERVICES = frozenset(("dynamodb", "sqs"))


class _Request:
    """What moto's region lookup reads from a request: its headers."""

    __slots__ = ("headers",)

    def __init__(self, headers: Any) -> None:
        self.headers = headers


def direct_response(
    handler_cls: Any, model: Any, params: dict[str, Any], signer: Any
) -> tuple[int, Any, Any, Any]:
    """(status, headers, body) as moto's handler answers this serialised request, and
    the data the body holds when moto's serializer was not needed for it
    (`moto_results.TappedCall`; DynamoDB and SQS), else None."""
    from moto.core.exceptions import HTTPException
    from moto.core.utils import utcnow
    from moto.utilities.utils import get_partition
    from werkzeug.datastructures import Headers
    from werkzeug.http import http_date

    url = params["url"]
    raw_body = _body_bytes(params["body"])
    body = raw_body.decode("utf-8")
    headers = Headers(params["headers"])
    credential_header(signer, headers)
    if "host" not in headers:
        headers["Host"] = urlparse(url).netloc
    handler = handler_cls()
    handler.is_werkzeug_request = False
    handler.normalized_request = None
    handler.parsed_url = urlparse(url)
    handler.body = body
    handler.raw_body = raw_body
    form = _form_values(raw_body, headers)
    handler.form_data = form
    handler.uri = url
    handler.path = handler.parsed_url.path
    handler.raw_path = handler.parsed_url.path
    handler.method = params["method"]
    handler.uri_match = {}
    handler.headers = headers
    handler.querystring = _querystring(form, handler.parsed_url.query, body, headers)
    handler.data = handler.querystring
    handler.region = handler.get_region_from_url(_Request(headers), url)
    handler.partition = get_partition(handler.region)
    handler.response_headers = {"server": "amazon.com", "date": http_date(utcnow())}
    try:
        if handler.automated_parameter_parsing and handler._get_action():
            handler.params = _params(handler, model, form, raw_body)
        handler.access_key = handler.get_access_key()
        handler.current_account = handler.get_current_account()
        from moto.iam.models import mark_account_as_visited

        mark_account_as_visited(
            account_id=handler.current_account,
            access_key=handler.access_key,
            service=handler.service_name,
            region=handler.region,
        )
        if model.service_model.service_name in TAPPED_SERVICES:
            call = TappedCall(handler)
            return (*call.run(), call.answer)
        return (*handler.call_action(), None)
    except HTTPException as e:
        return e.code, e.get_headers(), e.get_body(), None


def _body_bytes(body: Any) -> bytes:
    """The body as botocore's request preparation sends it: a query-protocol form dict
    url-encoded the same way (`AWSPreparedRequest._prepare_body`)."""
    if isinstance(body, dict):
        from urllib.parse import urlencode

        pairs = [
            tuple(part.encode("utf-8") if isinstance(part, str) else part for part in item)
            for item in body.items()
        ]
        return urlencode(pairs, doseq=True).encode("utf-8")
    return body if isinstance(body, bytes) else str(body).encode("utf-8")


def _querystring(form: Any, query: str, body: str, headers: Any) -> dict[str, Any]:
    """`setup_class`'s querystring: the form's fields, else the URL's query, else the body
    read as a form, else the headers (a JSON body mostly reads as one odd form key; moto
    keeps that too)."""
    from moto.core.responses import _decode_dict

    querystring: dict[str, Any] = OrderedDict((key, [value]) for key, value in form.items())
    if not querystring:
        querystring.update(parse_qs(query, keep_blank_values=True))
    if not querystring and body:
        try:
            querystring.update(
                OrderedDict((k, [v]) for k, v in parse_qsl(body, keep_blank_values=True))
            )
        except (UnicodeEncodeError, UnicodeDecodeError, AttributeError):
            pass
    if not querystring:
        querystring.update(headers)
    try:
        return _decode_dict(querystring)
    except UnicodeDecodeError:
        return querystring


#: A JSON body holding a blob (an attribute value's `B` or `BS`): moto's parser decodes
#: it, `json.loads` would not.
_BLOB_MARKS = (b'"B":', b'"BS":')


def _params(handler: Any, model: Any, form: Any, body: bytes) -> Any:
    """moto's parameters for the request: for a tapped service's JSON body without blobs,
    `json.loads` of it, which is what moto's JSON parser makes of such a body (the
    botocore serializer wrote only the input shape's members; strings, numbers, booleans,
    maps and lists come out as they went in): GetItem's parse 48 -> 4 us (profiled);
    `moto_results.CHECK` compares the two. Otherwise moto's own parser."""
    if (
        model.service_model.service_name in TAPPED_SERVICES
        and body[:1] == b"{"
        and not any(mark in body for mark in _BLOB_MARKS)
    ):
        loaded = json.loads(body)
        if moto_results.CHECK:
            parsed = _parsed_params(handler, form, body)
            if parsed != loaded:
                raise AssertionError(f"json.loads {loaded!r} != moto's parse {parsed!r}")
        return loaded
    return _parsed_params(handler, form, body)


def _parsed_params(handler: Any, form: Any, body: Any) -> Any:
    """moto's protocol parser over the JSON body (`BaseResponse.parse_parameters`)."""
    from moto.core.parse import PROTOCOL_PARSERS
    from moto.core.request import determine_request_protocol
    from moto.core.utils import get_service_model

    service_model = get_service_model(handler.boto3_service_name)
    operation_model = service_model.operation_model(handler._get_action())
    protocol = determine_request_protocol(service_model, handler.headers.get("Content-Type"))
    parser = PROTOCOL_PARSERS[protocol](operation_model, map_type=handler.PROTOCOL_PARSER_MAP_TYPE)
    return parser.parse(
        {
            "method": handler.method,
            "values": form,
            "headers": handler.headers,
            "body": body,
            "url_path": handler.path,
            "url_params": {},
        }
    )


def _form_values(body: bytes, headers: Any) -> Any:
    """werkzeug's `request.form`: a form-encoded body's fields (query protocol: SNS), else
    nothing."""
    from werkzeug.datastructures import MultiDict

    content_type = headers.get("Content-Type", "")
    if not body or not content_type.startswith("application/x-www-form-urlencoded"):
        return MultiDict()
    return MultiDict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))


def credential_header(signer: Any, headers: Any, region: str | None = None) -> None:
    """The part of botocore's SigV4 `Authorization` header moto reads (the access key in
    the credential scope, and the scope's region where the URL names none), added
    unless the client does not sign. `region`: the signing region when the endpoint
    resolution set one (S3's global endpoint signs for us-east-1)."""
    from botocore import UNSIGNED

    credentials = getattr(signer, "_credentials", None)
    if credentials is None or getattr(signer, "_signature_version", UNSIGNED) is UNSIGNED:
        return
    if "Authorization" in headers:
        return
    key = credentials.get_frozen_credentials().access_key
    date = time.strftime("%Y%m%d", time.gmtime())
    scope = f"{key}/{date}/{region or signer._region_name}"
    headers["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={scope}/{signer._signing_name}/aws4_request, "
        "SignedHeaders=host, Signature=unsigned"
    )
