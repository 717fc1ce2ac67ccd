"""The fast AWS path: hot operations answered in botocore's `before-call` event.

Under in-process moto a call goes: botocore validates and serialises the parameters,
(`before-call`), signs, emits `before-send` through the event hierarchy, moto's stubber
scans every service's URL patterns to find the service, then the service's URL table,
builds a werkzeug request, dispatches it to the service's response class, and botocore
wraps the reply in an HTTP response, runs the retry checker and parses it.

`FastAws.install()` registers one `before-call` handler (on every botocore session, like
moto's own stubber) that, for the operations in `ANSWERED`, hands the serialised request
straight to the same moto response method the normal path reaches, and parses the reply
with the same botocore parser:

* identical on both paths: parameter validation and serialisation, `request-created`
  (signing and every other handler on it), moto's request object, its handler for the URL,
  checksum handling, `before-parse`, the parser, modeled error fields, `needs-retry`
  (retries on the same rules; e.g. DynamoDB's CRC32 check), `after-call`, and the
  `ClientError` botocore raises from the parsed error;
* skipped: `before-send` (moto's stubber and any other handler on it), moto's scan of
  every service's URL patterns (cached per host), botocore's HTTP-response wrapping and
  history recording, `response-received`.

While `request-created` and `before-sign` hold only botocore's own handlers (a handler a
user registers there keeps the path above), no signature is computed. For DynamoDB, SQS
and SNS (JSON and query protocols) moto's handler is then called without an HTTP request
(`moto_direct.direct_response`): no request object, no werkzeug request; what moto reads
from those - the operation, body, region and the signature's access key - is set the way
moto's `setup_class` would set it. S3's handler reads the HTTP request itself (headers,
method, the `Authorization` header's presence for ACLs) and keeps it; for a plain body the
parts of a signature moto reads (credential scope, payload digest header) are written
instead of computing one. Timestamps in answers are parsed once per text. For
DynamoDB and SQS, an answer of plain data is taken from moto's result as it is, neither
serialised by moto nor parsed back by botocore (`moto_results`).

Every other operation, and every answered operation whose host moto would not serve,
falls through to moto unchanged. `tests/harness/emulator/test_fast_aws_differential.py` compares
both paths on generated operation sequences.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from lambdafuzz.harness.emulator.moto_direct import (
    DIRECT_SERVICES,
    credential_header,
    direct_response,
)
from lambdafuzz.harness.emulator.moto_results import AnsweredBody, answered_parser

#: botocore service name -> operations answered in `before-call`.
ANSWERED: dict[str, frozenset[str]] = {
    "s3": frozenset(
        ("GetObject", "PutObject", "HeadObject", "DeleteObject", "CopyObject", "ListObjectsV2")
    ),
    "dynamodb": frozenset(
        (
            "GetItem",
            "PutItem",
            "UpdateItem",
            "DeleteItem",
            "Query",
            "Scan",
            "BatchGetItem",
            "BatchWriteItem",
            "TransactWriteItems",
        )
    ),
    "sqs": frozenset(
        (
            "SendMessage",
            "SendMessageBatch",
            "ReceiveMessage",
            "DeleteMessage",
            "DeleteMessageBatch",
        )
    ),
    "sns": frozenset(("Publish",)),
}


class FastAws:
    """The `before-call` handler and what it caches (one per process)."""

    def __init__(self) -> None:
        self.enabled = False
        self.answered = 0
        self.answered_direct = 0  # of `answered`: without an HTTP request
        self.answered_tapped = 0  # of those: neither serialised nor parsed (moto_results)
        self.fell_through = 0
        self.seen: set[tuple[str, str]] = set()  # (service, operation) answered so far
        self._registered = False
        self._hosts: dict[str, Any] = {}  # host -> moto service name (or None: not moto's)
        self._urls: dict[str, tuple[tuple[re.Pattern[str], Any], ...]] = {}
        self._parsers: dict[str, Any] = {}

    def install(self) -> None:
        """Answer from now on; botocore sessions created before this are covered too,
        since the handler is added to botocore's built-in handlers and to the default
        boto3 session if one exists."""
        self.enabled = True
        if self._registered:
            return
        import boto3
        import botocore.handlers

        botocore.handlers.BUILTIN_HANDLERS.append(("before-call", self._before_call))
        if boto3.DEFAULT_SESSION is not None:
            boto3.DEFAULT_SESSION._session.register("before-call", self._before_call)
        self._registered = True

    def uninstall(self) -> None:
        """Stop answering (the registered handler then always falls through)."""
        self.enabled = False

    # ------------------------------------------------------------------- the handler
    def _before_call(
        self,
        model: Any = None,
        params: Any = None,
        request_signer: Any = None,
        context: Any = None,
        **_: Any,
    ) -> Any:
        if not self.enabled or model is None or params is None or request_signer is None:
            return None
        service = model.service_model.service_name
        operations = ANSWERED.get(service)
        if operations is None or model.name not in operations:
            return None
        from moto.core.models import botocore_stubber

        if not botocore_stubber.enabled:
            return None
        target = self._target(params["url"])
        if target is None:
            self.fell_through += 1
            return None
        self.answered += 1
        self.seen.add((service, model.name))
        return self._answer(model, params, request_signer, context or {}, target)

    def _target(self, url: str) -> Any:
        """moto's handler for `url` and the URL it sees, or None (moto would not serve it:
        let the normal path decide)."""
        from moto.core.utils import get_equivalent_url_in_aws_domain

        parsed, _ = get_equivalent_url_in_aws_domain(url)
        clean = f"{parsed.scheme}://{parsed.netloc}{parsed.path}"
        host = f"{parsed.scheme}://{parsed.netloc}"
        service = self._hosts.get(host, _UNKNOWN)
        if service is _UNKNOWN:
            service = self._hosts[host] = _service_of(clean)
        if service is None:
            return None
        urls = self._urls.get(service)
        if urls is None:
            urls = self._urls[service] = _url_table(service)
        for pattern, handler in urls:
            if pattern.match(clean):
                return handler
        return None

    def _answer(
        self, model: Any, params: Any, signer: Any, context: Any, handler: Any
    ) -> tuple[Any, Any]:
        import time

        from botocore.awsrequest import AWSResponse, create_request_object
        from botocore.compress import maybe_compress_request
        from botocore.httpchecksum import apply_request_checksum
        from moto.core.botocore_stubber import MockRawResponse
        from moto.core.exceptions import HTTPException
        from moto.core.request import normalize_request

        emitter = signer._event_emitter
        service_id = model.service_model.service_id.hyphenize()
        config = context.get("client_config")
        if config is not None:
            maybe_compress_request(config, params, model)
        apply_request_checksum(params)
        created = f"request-created.{service_id}.{model.name}"
        unsigned = _signing_only(emitter, created, f"before-sign.{service_id}.{model.name}")
        direct = unsigned and _direct_allowed(model, params)
        if direct:
            self.answered_direct += 1
        attempts = 1
        while True:
            if direct:
                # moto's handler without the HTTP request (harness/emulator/moto_direct.py): no
                # signing, no request objects. Table.put_item 1141 -> 628 us (scratch
                # loop, 300 calls, same machine and run).
                url = params["url"]
                status, headers, body, answer = direct_response(
                    handler.__self__, model, params, signer
                )
                if answer is not None:
                    self.answered_tapped += 1
            else:
                answer = None
                request = create_request_object(params)
                request.stream_output = model.has_streaming_output or model.has_event_stream_output
                if unsigned and _plain_body(params, context):
                    # What moto reads of a signature, without computing one: S3 GetObject
                    # 1242 -> 1073 us per call (scratch loop, 300 calls).
                    signing = context.get("signing") or {}
                    region = signing.get("region")
                    credential_header(signer, request.headers, region)
                    _payload_header(signer, request, region)
                else:
                    emitter.emit(created, request=request, operation_name=model.name)
                prepared = request.prepare()
                url = prepared.url
                normalized = normalize_request(prepared)
                try:
                    status, headers, body = handler(
                        normalized, normalized.raw_url, normalized.headers
                    )
                except HTTPException as e:
                    status, headers, body = e.code, e.get_headers(), e.get_body()
            http = AWSResponse(url, status, headers, MockRawResponse(body))
            parsed = self._parse(emitter, service_id, model, http, context, answer)
            retry = emitter.emit_until_response(
                f"needs-retry.{service_id}.{model.name}",
                response=(http, parsed),
                endpoint=None,
                operation=model,
                attempts=attempts,
                caught_exception=None,
                request_dict=params,
            )[1]
            if retry is None:
                return http, parsed
            attempts += 1
            time.sleep(retry)
            if hasattr(params.get("body"), "seek"):
                params["body"].seek(0)

    def _parse(
        self, emitter: Any, service_id: str, model: Any, http: Any, context: Any, answer: Any
    ) -> Any:
        """botocore's parse of the reply; a body whose data moto's handler gave
        (`answer`) carries it, and the parser takes it instead of reading the text
        (`moto_results.answered_parser`) unless a handler replaced the body."""
        from botocore.endpoint import convert_to_response_dict
        from botocore.httpchecksum import handle_checksum_body

        response_dict = convert_to_response_dict(http, model)
        handle_checksum_body(http, response_dict, context, model)
        if answer is not None and isinstance(response_dict.get("body"), bytes):
            body = AnsweredBody(response_dict["body"])
            body.answer = answer
            response_dict["body"] = body
        customized: dict[str, Any] = {}
        emitter.emit(
            f"before-parse.{service_id}.{model.name}",
            operation_model=model,
            response_dict=response_dict,
            customized_response_dict=customized,
        )
        protocol = model.service_model.resolved_protocol
        parser = self._parsers.get(protocol)
        if parser is None:
            from botocore.parsers import PROTOCOL_PARSERS

            parser = answered_parser(PROTOCOL_PARSERS[protocol])(
                timestamp_parser=_remembered_timestamp
            )
            self._parsers[protocol] = parser
        parsed = parser.parse(response_dict, model.output_shape)
        parsed.update(customized)
        if http.status_code >= 300:
            _add_modeled_error_fields(response_dict, parsed, model, parser)
        return parsed


_UNKNOWN = object()


def _signing_only(emitter: Any, *events: str) -> bool:
    """Whether these events' handlers are botocore's own signing ones only (the signer,
    the retry-count header, S3's access-point path and unsigned-request headers): then
    skipping the signature skips nothing a handler or moto could see but the signature.
    Any handler a user registered keeps the full path."""
    builtin = _builtin_signing_handlers()
    try:
        inner = emitter._emitter
        for event in events:
            name = emitter._alias_event_name(event)
            handlers = inner._lookup_cache.get(name)
            if handlers is None:
                handlers = inner._lookup_cache[name] = inner._handlers.prefix_search(name)
            for handler in handlers:
                function = getattr(handler, "__func__", handler)
                if function not in builtin and not _user_agent_only(function):
                    return False
    except AttributeError:  # another emitter than botocore's: keep the full path
        return False
    return True


#: (module, function name) of handlers other libraries register on `request-created`
#: that only append to the User-Agent header, which moto does not read: Powertools
#: registers one on every botocore session as soon as a handler imports it.
USER_AGENT_HANDLERS = frozenset(
    (("aws_lambda_powertools.shared.user_agent", "add_powertools_feature"),)
)


def _user_agent_only(function: Any) -> bool:
    return (getattr(function, "__module__", None), getattr(function, "__name__", None)) in (
        USER_AGENT_HANDLERS
    )


def _payload_header(signer: Any, request: Any, region: str | None) -> None:
    """S3's signer writes `X-Amz-Content-SHA256` (the body's digest, or UNSIGNED-PAYLOAD),
    and moto keeps it among a copied object's headers: written the signer's way."""
    if signer._signature_version != "s3v4":
        return
    auth = signer.get_auth_instance(
        signing_name=signer._signing_name,
        region_name=region or signer._region_name,
        signature_version="s3v4",
    )
    request.headers["X-Amz-Content-SHA256"] = auth.payload(request)


@functools.cache
def _builtin_signing_handlers() -> frozenset[Any]:
    """botocore's own `request-created` and `before-sign` handlers (functions, or the
    functions of bound methods): they sign, write headers moto does not read (retry count,
    user agent) or act only on S3 access points, S3 Express and unsigned requests."""
    import botocore.handlers
    from botocore.retries.standard import MaxAttemptsSeeder
    from botocore.signers import RequestSigner
    from botocore.useragent import UserAgentString
    from botocore.utils import S3ExpressIdentityResolver

    return frozenset(
        (
            RequestSigner.handler,
            MaxAttemptsSeeder.seed_max_attempts,
            UserAgentString.rebuild_and_replace_user_agent_handler,
            S3ExpressIdentityResolver.resolve_s3express_identity,
            botocore.handlers.add_retry_headers,
            botocore.handlers.remove_arn_from_signing_path,
            botocore.handlers._set_extra_headers_for_unsigned_request,
        )
    )


def _plain_body(params: dict[str, Any], context: Any) -> bool:
    """A body the signer does not rewrite: no aws-chunked encoding, no trailing checksum,
    no S3 Express session (the signer changes those requests, not just signs them)."""
    checksum = (context.get("checksum") or {}).get("request_algorithm")
    signing = context.get("signing") or {}
    return (
        "Content-Encoding" not in params["headers"]
        and not (isinstance(checksum, dict) and checksum.get("in") == "trailer")
        and "identity_cache" not in signing
        and context.get("auth_type") in (None, "v4", "s3v4")
    )


@functools.lru_cache(maxsize=4096)
def _remembered_timestamp(value: Any) -> Any:
    """botocore's default timestamp parser, remembered per text: an S3 answer's
    `Last-Modified` header went through dateutil's parser on every call; an object's date
    repeats. Fast path `GetObject` 1399 -> 1242 us per call (scratch loop, 300 calls).
    The value is an immutable `datetime`, so sharing it is safe."""
    from botocore.parsers import DEFAULT_TIMESTAMP_PARSER

    return DEFAULT_TIMESTAMP_PARSER(value)


def _direct_allowed(model: Any, params: dict[str, Any]) -> bool:
    """Whether moto's handler can be called without the HTTP request: a JSON- or
    query-protocol service whose handler reads only the body, target, region and account,
    and a body botocore neither streamed nor compressed."""
    return (
        model.service_model.service_name in DIRECT_SERVICES
        and isinstance(params.get("body"), (bytes, dict))
        and "Content-Encoding" not in params["headers"]
        and not params.get("query_string")
    )


def _service_of(clean_url: str) -> str | None:
    """The moto service moto's stubber would pick for this URL (its own scan), or None."""
    from moto.backend_index import backend_url_patterns
    from moto.core.config import passthrough_service, passthrough_url, service_whitelisted

    if passthrough_url(clean_url):
        return None
    for service, pattern in backend_url_patterns:
        if pattern.match(clean_url):
            if passthrough_service(service) or not service_whitelisted(service):
                return None
            return service
    return None


def _url_table(service: str) -> tuple[tuple[re.Pattern[str], Any], ...]:
    """The service backend's URL table, compiled once, in moto's order."""
    import moto.backends as backends
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.core.base_backend import BackendDict

    backend_dict = backends.get_backend(service)  # type: ignore[call-overload]
    if isinstance(backend_dict, BackendDict):
        regions = backend_dict[DEFAULT_ACCOUNT_ID]
        backend = regions["us-east-1"] if "us-east-1" in regions else regions["aws"]
    else:
        backend = backend_dict["global"]
    return tuple((re.compile(url), handler) for url, handler in backend.urls.items())


def _add_modeled_error_fields(
    response_dict: Any, parsed: dict[str, Any], model: Any, parser: Any
) -> None:
    """What botocore's endpoint adds to an error: the fields its error shape models."""
    code = parsed.get("Error", {}).get("Code")
    if code is None:
        return
    shape = model.service_model.shape_for_error_code(code)
    if shape is None:
        return
    parsed.update(parser.parse(response_dict, shape))


FAST_AWS = FastAws()


def install_fast_path() -> None:
    """The fast AWS path in this process: hot operations answered in `before-call` and
    client/resource creation reused (`client_cache`). For in-process moto only."""
    from lambdafuzz.harness.emulator.client_cache import CACHE

    FAST_AWS.install()
    CACHE.install()


def uninstall_fast_path() -> None:
    """Back to botocore's full path for every call and fresh clients."""
    from lambdafuzz.harness.emulator.client_cache import CACHE

    FAST_AWS.uninstall()
    CACHE.uninstall()
