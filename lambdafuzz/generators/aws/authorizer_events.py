"""API Gateway Lambda authorizer events: REST TOKEN and REQUEST, HTTP API payload 1.0 and 2.0.

API Gateway calls an authorizer only when every identity source of the request is there
(it answers 401 itself otherwise), so every event carries each of the trigger's
`identity_sources`, with a value drawn as the HTTP generator draws strings (dictionary
constants verbatim now and then: a handler comparing the token with `"allow"` meets it),
a bearer token half the time for an `Authorization` header.  A REQUEST-style event is an
HTTP request drawn by `http_events.draw_request` with the identity sources added, rendered
as the proxy event of its payload format without the body (authorizers see none) and with
the authorizer's own keys (`type`, `methodArn` / `routeArn`, `identitySource`).
Labels: `event.authorizer` > `http.*` of the request, `http.headers` for the sources.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws.http_events import (
    API_ID,
    HttpRequestPlan,
    draw_request,
    render_v1,
    render_v2,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.target import AuthorizerFormat
from lambdafuzz.model.world import LoadedWorld

#: The identity source of a TOKEN authorizer that names none (SAM's default).
DEFAULT_TOKEN_SOURCE: Final = "header.Authorization"
#: How often an `Authorization` value is a bearer token (`Bearer <value>`).
BEARER_P: Final = 0.5
#: How often an identity value is a dictionary constant (ordinary strings: `dictionary_p`,
#: 0.1): an authorizer's token is what its code compares with constants.  The token
#: fixture's handler (11 constants) got its own token in 2% of events at 0.1, 4% at 0.3;
#: 100-execution campaigns reached its Allow branch for 6 of seeds 0-7 at 0.3, 7 at 0.5.
TOKEN_DICTIONARY_P: Final = 0.3
TOKEN_ALPHABET: Final = string.ascii_letters + string.digits + "-_.=+/"


@dataclass(slots=True, frozen=True)
class AuthorizerPlan:
    """One call of an authorizer: the request it authorizes and its identity values."""

    format: AuthorizerFormat
    request: HttpRequestPlan  # its headers and query hold the header/query sources' values
    sources: tuple[tuple[str, str], ...]  # (`place.name`, value), in the trigger's order


def draw_authorizer(
    choices: Choices,
    fmt: AuthorizerFormat,
    identity_sources: Sequence[str],
    local: Sequence[str] = (),
) -> AuthorizerPlan:
    """An authorizer call of `fmt` carrying every identity source."""
    sources = tuple(identity_sources) or (DEFAULT_TOKEN_SOURCE,)
    if fmt is AuthorizerFormat.TOKEN:
        sources = sources[:1]
    version = "2.0" if fmt is AuthorizerFormat.V2 else "1.0"
    request = draw_request(choices, version=version, body_format=None, local=local)
    values: list[tuple[str, str]] = []
    with choices.scope(labels.HTTP_HEADERS):
        for source in sources:
            place, _, name = source.partition(".")
            values.append((source, draw_identity_value(choices, name, site=f"identity:{place}")))
    sourced = {s.lower() for s in sources}
    headers = [h for h in request.headers if f"header.{h[0]}".lower() not in sourced]
    query = [q for q in request.query if f"query.{q[0]}" not in sources]
    for source, value in values:
        place, _, name = source.partition(".")
        if place == "header":
            headers.append((name, value))
        elif place == "query":
            query.append((name, value))
    request = replace(request, headers=tuple(headers), query=tuple(query))
    return AuthorizerPlan(fmt, request, tuple(values))


def draw_identity_value(choices: Choices, name: str, *, site: str) -> str:
    """An identity source's value: a string as the HTTP generator draws them (dictionary
    constants verbatim), a bearer token now and then for an `Authorization` header."""
    value = choices.draw_from_dictionary(
        lambda: choices.draw_string(TOKEN_ALPHABET, 1, 40, site=site), p=TOKEN_DICTIONARY_P
    )
    value = "".join(ch for ch in encodable(value) if " " <= ch <= "~").strip() or "x"
    if name.lower() == "authorization" and choices.draw_boolean(BEARER_P, site="bearer?"):
        return f"Bearer {value}"
    return value


# --------------------------------------------------------------------------- rendering
def render_authorizer(plan: AuthorizerPlan, loaded: LoadedWorld) -> dict[str, Any]:
    """The event the authorizer function receives."""
    request = plan.request
    region, account = loaded.world.region, loaded.world.account_id
    arn = (
        f"arn:aws:execute-api:{region}:{account}:{API_ID}/{request.stage}/"
        f"{request.method}{request.path}"
    )
    if plan.format is AuthorizerFormat.TOKEN:
        token = plan.sources[0][1] if plan.sources else ""
        return {"type": "TOKEN", "authorizationToken": token, "methodArn": arn}
    stage_variables = {
        name: value
        for source, value in plan.sources
        for place, _, name in [source.partition(".")]
        if place == "stage"
    }
    if plan.format is AuthorizerFormat.V2:
        event = render_v2(request, loaded)
        event.pop("body", None)
        event.pop("isBase64Encoded", None)
        values = _identity_values(event["requestContext"], plan.sources)
        return {
            "version": "2.0",
            "type": "REQUEST",
            "routeArn": arn,
            "identitySource": values,
            **event,
            **({"stageVariables": stage_variables} if stage_variables else {}),
        }
    event = render_v1(request, loaded)
    event.pop("body", None)
    event.pop("isBase64Encoded", None)
    event["stageVariables"] = stage_variables or None
    values = _identity_values(event["requestContext"], plan.sources)
    head: dict[str, Any] = {"type": "REQUEST", "methodArn": arn}
    if plan.format is AuthorizerFormat.V1:
        joined = ",".join(values)
        head = {"version": "1.0", **head, "identitySource": joined, "authorizationToken": joined}
    return {**head, **event}


def _identity_values(context: dict[str, Any], sources: Sequence[tuple[str, str]]) -> list[str]:
    """The identity sources' values in order: a context source (`context.name`) is what the
    request context holds, which gets the drawn value where it holds nothing."""
    values = []
    for source, value in sources:
        place, _, name = source.partition(".")
        if place == "context":
            found = context.get(name)
            if isinstance(found, str | int) and not isinstance(found, bool):
                value = str(found)
            else:
                context[name] = value
        values.append(value)
    return values
