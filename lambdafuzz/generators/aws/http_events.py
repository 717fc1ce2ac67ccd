"""API Gateway proxy requests (REST API payload 1.0, HTTP API payload 2.0, function URLs).

A request is drawn once (`HttpRequestPlan`) and rendered in either payload format.  When
the deployment declares routes (`Trigger.routes`), each request takes one of them (a
`draw_choice`, so mutation can switch routes): its method, its resource template with every
path parameter filled (a greedy `{proxy+}` may span segments), and a body in one of its
content types (JSON, form fields the handler reads, text, base64 for binary types).
Without routes, any method and a random resource template with random parameters.
Path values often reuse strings of the world (an object key, an item key) so lookups can
hit; query parameters (names may repeat), headers and cookies vary.  A route behind an
authorizer (`Route.auth`) carries its principal in `requestContext` (`route_auth`).
Labels: `http.path`, `http.query`, `http.headers`, `http.body` under the event's label.
"""

from __future__ import annotations

import base64
import re
import string
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.bodies import file_text
from lambdafuzz.generators.aws.model_bodies import draw_model_body
from lambdafuzz.generators.aws.route_auth import (
    AuthPlan,
    authorization_header,
    draw_auth,
    http_context,
    rest_context,
)
from lambdafuzz.generators.aws.s3_notifications import source_ip
from lambdafuzz.generators.aws.world_refs import (
    WorldRefs,
    draw_record_id,
    fill_json_text,
    fill_pairs,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.target import BodyModel, Route, RouteAuth
from lambdafuzz.model.world import LoadedWorld

METHODS: Final = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
#: What a route may name: a method, or ANY (every method reaches the handler).
ROUTE_METHODS: Final = (*METHODS, "ANY")
#: The HTTP API route taking every request no other route matches (and function URLs').
DEFAULT_ROUTE: Final = "$default"
#: `{name}` / greedy `{name+}` in a resource template.
ROUTE_PARAMETER: Final = re.compile(r"\{([^{}+]+)(\+?)\}")
_METHOD_WEIGHTS: Final = (3.0, 3.0, 1.0, 1.0, 0.5, 0.2, 0.2)
_BODY_METHODS: Final = frozenset({"POST", "PUT", "PATCH"})
SEGMENT_ALPHABET: Final = string.ascii_lowercase + string.digits + "-_"
VALUE_ALPHABET: Final = string.ascii_letters + string.digits + "-_. "
PARAMETER_NAMES: Final = ("id", "key", "name", "proxy+")
#: How often a path parameter, query parameter or extra header is named after a name the
#: code reads its input by, when there are such names and no route says which names come.
CODE_NAME_P: Final = 0.5
STAGES: Final = ("prod", "dev", "test", "v1")
USER_AGENTS: Final = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "PostmanRuntime/7.39.0",
)
#: Body formats besides JSON when the config names none.
OTHER_BODY_FORMATS: Final = ("text", "csv", "xml", "image")
API_ID: Final = "a1b2c3d4e5"
#: A function URL's id: its host is `<id>.lambda-url.<region>.on.aws`.
URL_ID: Final = "f1u2n3c4t5i6o7n8u9r0l1i2d3"
#: Content types whose bodies are generated files of a format (by prefix match below).
_CONTENT_FORMATS: Final = (
    ("application/json", "json"), ("text/csv", "csv"), ("text/xml", "xml"),
    ("application/xml", "xml"), ("text/", "text"), ("image/png", "png"),
    ("image/jpeg", "jpeg"), ("image/jpg", "jpeg"), ("image/gif", "gif"), ("image/", "image"),
    ("application/zip", "zip"), ("application/gzip", "gzip"), ("application/x-gzip", "gzip"),
    ("application/pdf", "pdf"),
)  # fmt: skip
FORM_TYPE: Final = "application/x-www-form-urlencoded"
#: Headers a client sends its own request id in, which idempotency checks look up.
REQUEST_ID_HEADERS: Final = ("Idempotency-Key", "X-Request-Id", "X-Idempotency-Key")


@dataclass(slots=True, frozen=True)
class HttpRequestPlan:
    version: str  # payload format: "1.0" (REST API) or "2.0" (HTTP API)
    method: str
    resource: str  # "/items/{id}"
    path: str  # "/items/abc", as requested (parameter values percent-encoded)
    path_parameters: tuple[tuple[str, str], ...]
    query: tuple[tuple[str, str], ...]  # in request order; names may repeat
    headers: tuple[tuple[str, str], ...]  # as sent (Title-Case); names may repeat
    cookies: tuple[str, ...]
    body: str | None
    is_base64: bool
    stage: str
    default_route: bool  # HTTP API `$default` route instead of "METHOD /resource"
    time_ms: int
    seed: bytes
    route_method: str  # the method of the route key: ANY, POST, ...
    function_url: bool  # sent to the function's URL, not through API Gateway
    # the requestId in place of the derived one: an item key of the world (`world_refs`),
    # also sent as one of `REQUEST_ID_HEADERS`
    request_id: str | None = None
    auth: AuthPlan | None = None  # the principal the route's authorizer let through


def draw_request(
    choices: Choices,
    *,
    version: str,
    body_format: str | None,
    local: Sequence[str],
    routes: Sequence[Route] = (),
    form_fields: Sequence[str] = (),
    function_url: bool = False,
    body_model: BodyModel | None = None,
    refs: WorldRefs | None = None,
) -> HttpRequestPlan:
    """One request; on one of `routes` when there are any, else on any path and method.
    With the world's names (`refs`): query parameters and a JSON body's fields named as a
    resource or an id now and then name the world's, and the request id (with a header
    carrying it) is now and then an item key of the world."""
    route = choices.draw_choice(routes, site="route") if routes else None
    if route is None or route.method == "ANY":
        method = choices.draw_weighted(METHODS, _METHOD_WEIGHTS, site="method")
    else:
        method = route.method
    with choices.scope(labels.HTTP_PATH):
        if route is None or route.path == DEFAULT_ROUTE:
            resource, path, parameters = _draw_path(choices, local)
        else:
            resource, path, parameters = _route_path(choices, route.path, local)
    with choices.scope(labels.HTTP_QUERY):
        query = _draw_query(choices, local, route.query if route is not None else ())
    with choices.scope(labels.HTTP_BODY):
        if body_model is None and route is not None and route.content_types:
            body, is_base64, content_type = _draw_typed_body(
                choices, method, route.content_types, form_fields, local
            )
        else:  # the handler's model (JSON), else the generators' mix
            body, is_base64, content_type = _draw_body(choices, method, body_format, body_model)
        if refs is not None and body_model is None and body is not None and not is_base64:
            body = fill_json_text(choices, body, refs)
    if refs is not None:
        with choices.scope(labels.HTTP_QUERY):
            query = fill_pairs(choices, query, refs)
    seed = ids.draw_seed(choices)
    with choices.scope(labels.HTTP_HEADERS):
        headers, cookies = _draw_headers(
            choices, seed, content_type, route.headers if route is not None else ()
        )
        request_id = draw_record_id(choices, refs) if refs is not None else None
        if request_id is not None:
            header = choices.draw_choice(REQUEST_ID_HEADERS, site="request-id-header")
            headers = (*headers, (header, _ascii(request_id) or "x"))
    auth = draw_auth(choices, route.auth if route is not None else RouteAuth.NONE, local)
    if auth is not None:  # the token the authorizer checked, in place of any other
        headers = (
            *(h for h in headers if h[0].lower() != "authorization"),
            ("Authorization", authorization_header(auth)),
        )
    if version == "1.0":
        stage, default_route = choices.draw_choice(STAGES, site="stage"), False
    elif function_url:
        stage, default_route = "$default", True
    elif route is None:
        stage = "$default"
        default_route = choices.draw_boolean(0.3, site="default-route?")
    else:
        stage, default_route = "$default", route.path == DEFAULT_ROUTE
    time_ms = ids.draw_time_ms(choices)
    if route is not None:
        route_method = route.method
    else:
        route_method = "ANY" if "{proxy+}" in resource else method
    return HttpRequestPlan(
        version,
        method,
        resource,
        path,
        parameters,
        query,
        headers,
        cookies,
        body,
        is_base64,
        stage,
        default_route,
        time_ms,
        seed,
        route_method,
        function_url,
        request_id,
        auth,
    )


def _route_path(
    choices: Choices, template: str, local: Sequence[str]
) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """A path matching the resource template: every parameter filled with a non-empty
    value (a greedy one may hold "/"), percent-encoded in the path, plain in the map."""
    parameters: list[tuple[str, str]] = []

    def fill(match: re.Match[str]) -> str:
        name, greedy = match.group(1), bool(match.group(2))
        if greedy:  # one or more segments, none empty
            count = choices.draw_integer(1, 3, site="segments")
            parts = (_draw_value(choices, local, slash=True) for _ in range(count))
            value = "/".join(_segment(p) for part in parts for p in part.split("/"))
        else:
            value = _segment(_draw_value(choices, local, slash=False))
        parameters.append((name, value))
        return urllib.parse.quote(value, safe="/" if greedy else "")

    path = ROUTE_PARAMETER.sub(fill, template)
    return template, path, tuple(parameters)


def _code_name(choices: Choices, site: str) -> str | None:
    """With probability `CODE_NAME_P`, one of the names the code reads its input by
    (`Choices.fields`), else None (and nothing drawn without such names).  Without a route
    table, a handler that reads `event["pathParameters"]["orderId"]` met a parameter named
    so in none of 1,500 requests, which drew names from `PARAMETER_NAMES` only."""
    if choices.fields and choices.draw_boolean(CODE_NAME_P, site=f"{site}-from-code?"):
        return choices.draw_choice(choices.fields, site=site)
    return None


def _segment(value: str) -> str:
    """A path segment as a client sends it: never empty, never "." or ".." (resolved away
    before the request leaves)."""
    return "x" if value in ("", ".", "..") else value


def _draw_value(choices: Choices, local: Sequence[str], *, slash: bool) -> str:
    if local and choices.draw_boolean(0.4, site="reuse?"):
        value = choices.draw_choice(local, site="reuse")
    else:
        value = choices.draw_string(VALUE_ALPHABET, 1, 16, site="value")
    value = encodable(value)
    return (value if slash else value.replace("/", "-")) or "x"


def _draw_path(
    choices: Choices, local: Sequence[str]
) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    template: list[str] = []
    concrete: list[str] = []
    parameters: dict[str, str] = {}
    count = choices.draw_integer(0, 3, site="segments")
    for i in range(count):
        if choices.draw_boolean(0.35, site="parameter?"):
            name = _code_name(choices, "parameter") or choices.draw_choice(
                PARAMETER_NAMES, site="parameter"
            )
            greedy = name == "proxy+"
            if (greedy and i < count - 1) or name.rstrip("+") in parameters:
                name, greedy = f"p{i}", False
            value = _draw_value(choices, local, slash=greedy)
            parameters[name.rstrip("+")] = value
            template.append("{" + name + "}")
            concrete.append(urllib.parse.quote(value, safe="/" if greedy else ""))
        else:
            raw = choices.draw_string(SEGMENT_ALPHABET, 1, 10, site="segment")
            segment = urllib.parse.quote(encodable(raw).replace("/", "-"), safe="") or "x"
            template.append(segment)
            concrete.append(segment)
    return "/" + "/".join(template), "/" + "/".join(concrete), tuple(parameters.items())


def _draw_query(
    choices: Choices, local: Sequence[str], required: Sequence[str] = ()
) -> tuple[tuple[str, str], ...]:
    """Query parameters: the route's required ones first, then any."""
    pairs: list[tuple[str, str]] = []
    for name in required:
        pairs.append((name, _draw_value(choices, local, slash=True)))
    for _ in range(choices.draw_geometric(0.8, max_value=6, site="count")):
        if pairs and choices.draw_boolean(0.1, site="repeat?"):
            name = pairs[-1][0]
        else:
            name = _code_name(choices, "query-name") or (
                encodable(choices.draw_string(SEGMENT_ALPHABET, 1, 10, site="name")) or "q"
            )
        pairs.append((name, _draw_value(choices, local, slash=True)))
    return tuple(pairs)


def _draw_body(
    choices: Choices, method: str, body_format: str | None, model: BodyModel | None = None
) -> tuple[str | None, bool, str | None]:
    if not choices.draw_boolean(0.9 if method in _BODY_METHODS else 0.05, site="body?"):
        return None, False, None
    if model is not None:  # the JSON the handler's model admits (Powertools parser/validator)
        return draw_model_body(choices, model), False, "application/json"
    if body_format is not None:
        formats: tuple[str, ...] = (body_format,)
    elif choices.draw_boolean(0.8, site="json?"):
        formats = ("json",)
    else:
        formats = OTHER_BODY_FORMATS
    file = draw_file(choices, formats, erroneous_p=0.003)
    text, is_base64 = file_text(file)
    if not is_base64 and choices.draw_boolean(0.05, site="base64?"):
        text, is_base64 = base64.b64encode(file.data).decode(), True
    return text, is_base64, file.content_type


def _draw_typed_body(
    choices: Choices,
    method: str,
    content_types: Sequence[str],
    form_fields: Sequence[str],
    local: Sequence[str],
) -> tuple[str | None, bool, str | None]:
    """A body in one of the route's content types, and that type: JSON, form fields,
    text formats as text; images, archives and other binary types base64-encoded."""
    if not choices.draw_boolean(0.9 if method in _BODY_METHODS else 0.05, site="body?"):
        return None, False, None
    content_type = choices.draw_choice(content_types, site="content-type")
    lowered = content_type.lower()
    if lowered == FORM_TYPE:
        return _draw_form(choices, form_fields, local), False, content_type
    if lowered.endswith("+json"):
        lowered = "application/json"
    fmt = next((f for prefix, f in _CONTENT_FORMATS if lowered.startswith(prefix)), None)
    if fmt is None:  # application/octet-stream, ...: any bytes
        data = choices.draw_bytes(0, 512, site="bytes")
        return base64.b64encode(data).decode(), True, content_type
    file = draw_file(choices, (fmt,), erroneous_p=0.003)
    text, is_base64 = file_text(file)
    if fmt in ("json", "csv", "xml", "text") and is_base64:  # not text: sent as its bytes
        text, is_base64 = file.data.decode("utf-8", errors="replace"), False
    return text, is_base64, content_type


def _draw_form(choices: Choices, fields: Sequence[str], local: Sequence[str]) -> str:
    """An url-encoded form: mostly the fields the handler reads, a few others now and
    then; values are strings of the world, small numbers or free text."""
    pairs: list[tuple[str, str]] = []
    for name in fields:
        if choices.draw_boolean(0.85, site="field?"):
            pairs.append((name, _draw_form_value(choices, local)))
    for _ in range(choices.draw_geometric(0.3 if fields else 2.0, max_value=6, site="extra")):
        name = choices.draw_from_dictionary(
            lambda: encodable(choices.draw_string(SEGMENT_ALPHABET, 1, 10, site="name")) or "f"
        )
        pairs.append((name, _draw_form_value(choices, local)))
    return urllib.parse.urlencode(pairs)


def _draw_form_value(choices: Choices, local: Sequence[str]) -> str:
    if choices.draw_boolean(0.3, site="number?"):
        return str(choices.draw_integer(-5, 1000, site="number"))
    return _draw_value(choices, local, slash=True)


def _draw_headers(
    choices: Choices, seed: bytes, content_type: str | None, required: Sequence[str] = ()
) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    agent = choices.draw_choice(USER_AGENTS, site="user-agent")
    accept = choices.draw_choice(("*/*", "application/json", "text/html,*/*;q=0.8"), site="accept")
    headers = [
        ("User-Agent", agent),
        ("Accept", accept),
        (
            "X-Amzn-Trace-Id",
            f"Root=1-{ids.hex_id(seed, 'trace-time', 8, upper=False)}-"
            f"{ids.hex_id(seed, 'trace', 24, upper=False)}",
        ),
        ("X-Forwarded-For", source_ip(seed)),
        ("X-Forwarded-Port", "443"),
        ("X-Forwarded-Proto", "https"),
    ]
    if content_type is not None:
        headers.append(("Content-Type", content_type))
    present = {name.lower() for name, _ in headers}
    for name in required:  # the route's required headers, each with a value
        if name.lower() not in present:
            value = choices.draw_string(VALUE_ALPHABET, 1, 24, site="required")
            headers.append((name, _ascii(value).strip() or "x"))
    if choices.draw_boolean(0.15, site="authorization?"):
        token = choices.draw_string(string.ascii_letters + string.digits, 8, 32, site="token")
        headers.append(("Authorization", f"Bearer {_ascii(token)}"))
    for _ in range(choices.draw_geometric(0.5, max_value=4, site="extra")):
        name = _code_name(choices, "header-name") or choices.draw_string(
            string.ascii_letters + string.digits + "-", 1, 16, site="name"
        )
        name = "".join(ch for ch in name if ch.isascii() and (ch.isalnum() or ch in "-_")) or "X"
        value = choices.draw_string(VALUE_ALPHABET, 0, 24, site="value")
        headers.append((name, _ascii(value)))
    cookies: list[str] = []
    if choices.draw_boolean(0.15, site="cookies?"):
        for i in range(choices.draw_integer(1, 2, site="cookie-count")):
            value = choices.draw_string(string.ascii_letters + string.digits, 1, 16, site="cookie")
            cookies.append(f"c{i}={_ascii(value).replace(';', '') or 'x'}")
    return tuple(headers), tuple(cookies)


def _ascii(text: str) -> str:
    """Printable ASCII only: what an HTTP header value can carry unencoded."""
    return "".join(ch for ch in text if " " <= ch <= "~")


# --------------------------------------------------------------------------- rendering
def _context_ids(plan: HttpRequestPlan, loaded: LoadedWorld) -> dict[str, Any]:
    api_id = URL_ID if plan.function_url else API_ID
    return {
        "accountId": loaded.world.account_id,
        "apiId": api_id,
        "domainName": _host(plan, loaded),
        "domainPrefix": api_id,
    }


def _host(plan: HttpRequestPlan, loaded: LoadedWorld) -> str:
    if plan.function_url:
        return f"{URL_ID}.lambda-url.{loaded.world.region}.on.aws"
    return f"{API_ID}.execute-api.{loaded.world.region}.amazonaws.com"


def render_v1(plan: HttpRequestPlan, loaded: LoadedWorld) -> dict[str, Any]:
    """A REST API (payload format 1.0) proxy event."""
    headers = [("Host", _host(plan, loaded)), *plan.headers]
    if plan.cookies:
        headers.append(("Cookie", "; ".join(plan.cookies)))
    single, multi = _single_and_multi(headers)
    query, multi_query = _single_and_multi(plan.query)
    agent = single.get("User-Agent", "")
    world = loaded.world
    authorizer, caller = (
        rest_context(plan.auth, world.region, world.account_id, plan.time_ms)
        if plan.auth is not None
        else (None, {})
    )
    event: dict[str, Any] = {
        "resource": plan.resource,
        "path": plan.path,
        "httpMethod": plan.method,
        "headers": single,
        "multiValueHeaders": multi,
        "queryStringParameters": query or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": dict(plan.path_parameters) or None,
        "stageVariables": None,
        "requestContext": {
            **_context_ids(plan, loaded),
            "extendedRequestId": ids.b64_id(plan.seed, "extended", 12),
            "httpMethod": plan.method,
            "identity": {
                "accessKey": None,
                "accountId": None,
                "caller": None,
                "cognitoAuthenticationProvider": None,
                "cognitoAuthenticationType": None,
                "cognitoIdentityId": None,
                "cognitoIdentityPoolId": None,
                "principalOrgId": None,
                "sourceIp": source_ip(plan.seed),
                "user": None,
                "userAgent": agent,
                "userArn": None,
                **caller,
            },
            "path": f"/{plan.stage}{plan.path}",
            "protocol": "HTTP/1.1",
            "requestId": plan.request_id or ids.uuid(plan.seed, "request"),
            "requestTime": ids.clf_time(plan.time_ms),
            "requestTimeEpoch": plan.time_ms,
            "resourceId": ids.alnum_id(plan.seed, "resource", 6).lower(),
            "resourcePath": plan.resource,
            "stage": plan.stage,
        },
        "body": plan.body,
        "isBase64Encoded": plan.is_base64,
    }
    if authorizer is not None:
        event["requestContext"]["authorizer"] = authorizer
    return event


def render_v2(plan: HttpRequestPlan, loaded: LoadedWorld) -> dict[str, Any]:
    """An HTTP API (payload format 2.0) or function URL event: lower-case headers, repeats
    comma-joined."""
    headers: dict[str, str] = {}
    for name, value in (("Host", _host(plan, loaded)), *plan.headers):
        key = name.lower()
        headers[key] = f"{headers[key]},{value}" if key in headers else value
    query: dict[str, str] = {}
    for name, value in plan.query:
        query[name] = f"{query[name]},{value}" if name in query else value
    route = DEFAULT_ROUTE if plan.default_route else f"{plan.route_method} {plan.resource}"
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route,
        "rawPath": plan.path,
        "rawQueryString": urllib.parse.urlencode(plan.query, quote_via=urllib.parse.quote),
        "headers": headers,
    }
    if plan.cookies:
        event["cookies"] = list(plan.cookies)
    if query:
        event["queryStringParameters"] = query
    if plan.path_parameters and not plan.default_route:
        event["pathParameters"] = dict(plan.path_parameters)
    event["requestContext"] = {
        **_context_ids(plan, loaded),
        "http": {
            "method": plan.method,
            "path": plan.path,
            "protocol": "HTTP/1.1",
            "sourceIp": source_ip(plan.seed),
            "userAgent": headers.get("user-agent", ""),
        },
        "requestId": plan.request_id or ids.b64_id(plan.seed, "request", 12),
        "routeKey": route,
        "stage": plan.stage,
        "time": ids.clf_time(plan.time_ms),
        "timeEpoch": plan.time_ms,
    }
    if plan.auth is not None:
        world = loaded.world
        event["requestContext"]["authorizer"] = http_context(
            plan.auth, world.region, world.account_id, plan.time_ms
        )
    if plan.body is not None:
        event["body"] = plan.body
    event["isBase64Encoded"] = plan.is_base64
    return event


def _single_and_multi(
    pairs: Sequence[tuple[str, str]],
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """REST API maps: the last value per name, and every value per name."""
    single: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    for name, value in pairs:
        single[name] = value
        multi.setdefault(name, []).append(value)
    return single, multi
