"""What an API route's authorizer adds to every request that reaches the handler.

API Gateway calls the handler only after the route's authorizer let the request through,
and then always with the authorizer's output in `requestContext`: a handler reading
`event["requestContext"]["authorizer"]["claims"]["sub"]` behind a Cognito authorizer
never meets a request without it.  The shapes, as API Gateway renders them:

* REST API (payload 1.0): Cognito user pool -> `authorizer.claims` (every value a string,
  `exp` / `iat` as dates); Lambda -> `authorizer.principalId` and `integrationLatency`
  (the context keys a Lambda authorizer adds are not known: none); AWS_IAM -> the
  `identity` fields of the signing caller (`accessKey`, `accountId`, `caller`, `user`,
  `userArn`);
* HTTP API (payload 2.0): JWT -> `authorizer.jwt.claims` and `scopes`; Lambda ->
  `authorizer.lambda`; AWS_IAM -> `authorizer.iam`.

The principal's id (`sub`) is now and then one of the world's strings (`SUB_FROM_WORLD_P`):
a user id that is a table key, so lookups by it hit.  Claims the code reads that are not
standard (`custom:*` names among `Choices.fields`) are drawn too.
Labels: `http.auth` under the event's label.
"""

from __future__ import annotations

import string
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.target import RouteAuth

#: How often the principal's id is a string of the world (an object or item key).
SUB_FROM_WORLD_P: Final = 0.3
#: Prefix of the claims a Cognito user pool's custom attributes become.
CUSTOM_PREFIX: Final = "custom:"
#: Other optional claims a handler may read, drawn only when the code reads them.
GROUPS_CLAIM: Final = "cognito:groups"
GROUPS: Final = ("admin", "users", "editors", "readers")
SCOPES: Final = ("openid", "email", "profile", "aws.cognito.signin.user.admin")
NAME_ALPHABET: Final = string.ascii_lowercase + string.digits + "._-"
#: A token's lifetime: `exp` is `iat` plus this.
TOKEN_LIFETIME_S: Final = 3600


@dataclass(slots=True, frozen=True)
class AuthPlan:
    """The authorized principal of one request; ids and times derive from `seed` and the
    request's time."""

    auth: RouteAuth
    sub: str
    username: str
    email: str
    email_verified: bool
    groups: tuple[str, ...]  # cognito:groups, only when the code reads it
    custom: tuple[tuple[str, str], ...]  # custom:* claims the code reads
    scopes: tuple[str, ...]
    seed: bytes


def draw_auth(choices: Choices, auth: RouteAuth, local: Sequence[str]) -> AuthPlan | None:
    """The principal a route's authorizer let through; None for a route without one
    (nothing drawn then, so unauthenticated routes keep their recordings)."""
    if auth is RouteAuth.NONE:
        return None
    with choices.scope(labels.HTTP_AUTH, site="auth"):
        seed = ids.draw_seed(choices)
        sub = ids.uuid(seed, "sub")
        if local and choices.draw_boolean(SUB_FROM_WORLD_P, site="sub-from-world?"):
            sub = encodable(choices.draw_choice(local, site="sub")) or sub
        if choices.draw_boolean(0.5, site="username-is-sub?"):
            username = sub
        else:
            username = _name(choices, "username")
        email = f"{_name(choices, 'email')}@{choices.draw_choice(_DOMAINS, site='domain')}"
        verified = choices.draw_boolean(0.8, site="email-verified?")
        groups: tuple[str, ...] = ()
        if GROUPS_CLAIM in choices.fields:
            count = choices.draw_integer(1, 2, site="groups")
            groups = tuple(dict.fromkeys(_group(choices) for _ in range(count)))
        custom = tuple(
            (name, _claim_value(choices, name))
            for name in dict.fromkeys(choices.fields)
            if name.startswith(CUSTOM_PREFIX) and len(name) > len(CUSTOM_PREFIX)
        )
        scopes: tuple[str, ...] = ()
        if auth is RouteAuth.JWT and choices.draw_boolean(0.5, site="scopes?"):
            scopes = tuple(s for s in SCOPES if choices.draw_boolean(0.5, site="scope?"))
    return AuthPlan(auth, sub, username, email, verified, groups, custom, scopes, seed)


_DOMAINS: Final = ("example.com", "example.org", "mail.example.net")


def _name(choices: Choices, site: str) -> str:
    text = choices.draw_string(NAME_ALPHABET, 1, 16, site=site)
    return "".join(ch for ch in text if ch in NAME_ALPHABET) or "user"


def _group(choices: Choices) -> str:
    return choices.draw_from_dictionary(lambda: choices.draw_choice(GROUPS, site="group"))


def _claim_value(choices: Choices, name: str) -> str:
    """A custom attribute's value: a constant of the code now and then (a tier the code
    compares with), a small number, or a word."""
    with choices.keyed(name):
        if choices.draw_boolean(0.2, site="number?"):
            return str(choices.draw_integer(0, 100, site="number"))
        return encodable(choices.draw_from_dictionary(lambda: _name(choices, "value")))


# --------------------------------------------------------------------------- rendering
def authorization_header(plan: AuthPlan) -> str:
    """The `Authorization` value the client sent: a JWT for Cognito and JWT routes, a
    bearer token for a Lambda authorizer, a SigV4 signature for IAM."""
    if plan.auth is RouteAuth.IAM:
        return (
            f"AWS4-HMAC-SHA256 Credential={access_key(plan)}/20240101/us-east-1/execute-api/"
            f"aws4_request, SignedHeaders=host;x-amz-date, "
            f"Signature={ids.hex_id(plan.seed, 'signature', 64, upper=False)}"
        )
    token = ".".join(ids.b64_id(plan.seed, f"jwt{i}", n) for i, n in ((0, 27), (1, 96), (2, 64)))
    token = token.replace("+", "-").replace("/", "_").rstrip("=")
    return f"Bearer {token}" if plan.auth is not RouteAuth.COGNITO else token


def access_key(plan: AuthPlan) -> str:
    return "ASIA" + ids.alnum_id(plan.seed, "access-key", 16).upper()


def _user_pool(plan: AuthPlan, region: str) -> str:
    return f"https://cognito-idp.{region}.amazonaws.com/{region}_{ids.alnum_id(b'pool', 'pool', 9)}"


def _claims(plan: AuthPlan, region: str, time_ms: int, *, rest: bool) -> dict[str, str]:
    """A Cognito ID token's claims as API Gateway passes them: strings; a REST API writes
    `exp` / `iat` as dates, an HTTP API as epoch seconds."""
    issued = time_ms // 1000 - ids.derive(plan.seed, "age", 2)[0] * 10
    expires = issued + TOKEN_LIFETIME_S
    claims = {
        "sub": plan.sub,
        "email_verified": "true" if plan.email_verified else "false",
        "iss": _user_pool(plan, region),
        "cognito:username": plan.username,
        "origin_jti": ids.uuid(plan.seed, "origin-jti"),
        "aud": ids.alnum_id(b"client", "client", 26).lower(),
        "event_id": ids.uuid(plan.seed, "event"),
        "token_use": "id",
        "auth_time": str(issued),
        "exp": _date(expires) if rest else str(expires),
        "iat": _date(issued) if rest else str(issued),
        "jti": ids.uuid(plan.seed, "jti"),
        "email": plan.email,
    }
    if plan.groups:
        claims[GROUPS_CLAIM] = ",".join(plan.groups) if rest else f"[{' '.join(plan.groups)}]"
    claims.update(plan.custom)
    return claims


def _date(epoch_s: int) -> str:
    """As a REST API writes a Cognito token's times: `Thu Mar 14 12:00:00 UTC 2024`."""
    return time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(epoch_s))


def rest_context(
    plan: AuthPlan, region: str, account: str, time_ms: int
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """A REST API request's (`requestContext.authorizer`, fields of `identity` to set)."""
    if plan.auth in (RouteAuth.COGNITO, RouteAuth.JWT):
        return {"claims": _claims(plan, region, time_ms, rest=True)}, {}
    if plan.auth is RouteAuth.LAMBDA:
        latency = ids.derive(plan.seed, "latency", 1)[0] + 1
        return {"principalId": plan.sub, "integrationLatency": latency}, {}
    caller = f"AROA{ids.alnum_id(plan.seed, 'role', 17).upper()}:{plan.username}"
    return None, {
        "accessKey": access_key(plan),
        "accountId": account,
        "caller": caller,
        "user": caller,
        "userArn": f"arn:aws:sts::{account}:assumed-role/{_role(plan)}/{plan.username}",
    }


def http_context(plan: AuthPlan, region: str, account: str, time_ms: int) -> dict[str, Any]:
    """An HTTP API request's `requestContext.authorizer`."""
    if plan.auth in (RouteAuth.COGNITO, RouteAuth.JWT):
        claims = _claims(plan, region, time_ms, rest=False)
        return {"jwt": {"claims": claims, "scopes": list(plan.scopes) or None}}
    if plan.auth is RouteAuth.LAMBDA:
        return {"lambda": {}}
    role = f"AROA{ids.alnum_id(plan.seed, 'role', 17).upper()}"
    return {
        "iam": {
            "accessKey": access_key(plan),
            "accountId": account,
            "callerId": f"{role}:{plan.username}",
            "cognitoIdentity": None,
            "principalOrgId": None,
            "userArn": f"arn:aws:sts::{account}:assumed-role/{_role(plan)}/{plan.username}",
            "userId": f"{role}:{plan.username}",
        }
    }


def _role(plan: AuthPlan) -> str:
    return ("api-caller", "app-role", "ci-deployer")[ids.derive(plan.seed, "role-name", 1)[0] % 3]
