"""Powertools-aware targets: the body model, resolver routes and outcome defaults.

A handler behind a Powertools parser, validator or resolver rejects what its model or
routes do not admit before its own code runs; generating anything else only measures the
library.  `apply_powertools` takes the target `config.schema` built (from a
lambdafuzz.yaml or a SAM template) and adds what the handler's Powertools code states
(`analysis.powertools`), or what `trigger.model` / `trigger.schema` name explicitly:

* `Trigger.body_model`: the JSON Schema bodies are generated from, and their envelope;
* `Trigger.routes`: the resolver's routes, when the template gave none (or only a
  catch-all `{proxy+}` route);
* `OutcomeRules`: the library's rejections (pydantic's `ValidationError`, the validator's
  `SchemaValidationError` and `InvalidEnvelopeExpressionError`, a resolver's 4xx) count
  as invalid inputs, not failures, unless the config sets `outcomes.invalid.exceptions`
  (or `outcomes.invalid.status_codes`) itself: an explicit setting wins.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path

from lambdafuzz.analysis.powertools import PowertoolsUse, analyze_powertools
from lambdafuzz.config.model_schema import ModelSchemaError, model_json_schema
from lambdafuzz.config.source import Limits, read_text
from lambdafuzz.errors import ConfigError
from lambdafuzz.model.target import (
    BodyModel,
    Envelope,
    OutcomeRules,
    Route,
    Target,
    TriggerKind,
)

log = logging.getLogger("lambdafuzz.config")

SCHEMA_LIMITS = Limits("JSON Schema", max_bytes=1_000_000)

PARSER_INVALID = ("pydantic_core._pydantic_core.ValidationError",)
VALIDATOR_INVALID = (
    "aws_lambda_powertools.utilities.validation.exceptions.SchemaValidationError",
    "aws_lambda_powertools.utilities.validation.exceptions.InvalidEnvelopeExpressionError",
)
#: What a resolver answers a request it does not admit with (no route, bad body, ...).
RESOLVER_INVALID_CODES = (400, 401, 403, 404, 405, 409, 413, 415, 422, 429)
#: Which trigger kinds carry a body in each envelope (None: the whole event, or an API
#: request's body when the trigger is an API: a resolver route parsing its body).
_ENVELOPE_KINDS: dict[Envelope | None, tuple[TriggerKind, ...]] = {
    None: (TriggerKind.DIRECT, TriggerKind.APIGATEWAY, TriggerKind.APIGATEWAY_V2),
    Envelope.SQS: (TriggerKind.SQS,),
    Envelope.SNS: (TriggerKind.SNS,),
    Envelope.SNS_SQS: (TriggerKind.SQS,),
    Envelope.EVENTBRIDGE: (TriggerKind.EVENTBRIDGE,),
    Envelope.APIGATEWAY: (TriggerKind.APIGATEWAY, TriggerKind.APIGATEWAY_V2),
    Envelope.APIGATEWAY_V2: (TriggerKind.APIGATEWAY_V2, TriggerKind.APIGATEWAY),
    Envelope.KINESIS: (TriggerKind.KINESIS,),
}
_API_KINDS = (TriggerKind.APIGATEWAY, TriggerKind.APIGATEWAY_V2)
#: Top-level fields of API Gateway (REST, HTTP API) and function URL events: a schema
#: whose properties name `EVENT_FIELDS_MIN` of them describes an event, not a body.
API_EVENT_FIELDS = frozenset(
    {
        "body", "httpMethod", "headers", "multiValueHeaders", "requestContext", "resource",
        "path", "pathParameters", "queryStringParameters", "multiValueQueryStringParameters",
        "stageVariables", "isBase64Encoded", "routeKey", "rawPath", "rawQueryString",
        "cookies",
    }
)  # fmt: skip
EVENT_FIELDS_MIN = 2


@dataclass(frozen=True, slots=True)
class ExplicitBody:
    """`trigger.model` ({module, name, envelope}) or `trigger.schema` ({path, envelope}),
    already checked for shape by `config.schema`."""

    where: str  # "lambdafuzz.yaml:7: trigger.model", for errors
    envelope: Envelope | None
    module: str = ""
    name: str = ""
    path: Path | None = None  # a JSON Schema file


@dataclass(frozen=True, slots=True)
class OutcomeOverrides:
    """Which outcome lists the config set itself (those get no defaults)."""

    invalid_exceptions: bool
    invalid_status_codes: bool


def apply_powertools(
    target: Target,
    *,
    explicit: ExplicitBody | None,
    analyze: bool,
    overrides: OutcomeOverrides,
) -> Target:
    """`target` with its Powertools facts (see the module docstring); `analyze`: read the
    handler's code for them (`trigger.powertools`, on by default)."""
    use = PowertoolsUse()
    if analyze:
        use = analyze_powertools(target.root, target.handler_module, target.handler_function)
        for note in use.notes:
            log.warning("warning [powertools]: %s: %s", target.handler, note)
    trigger = target.trigger
    if explicit is not None:
        body = _explicit_body(target, explicit)
        body = request_body(target, body, whole_event=False, where=explicit.where)
    else:
        body = _found_body(target, use)
    if body is not None:
        trigger = replace(trigger, body_model=body)
    if use.routes and trigger.kind in _API_KINDS and _catch_all(trigger.routes):
        trigger = replace(trigger, routes=use.target_routes())
        _check_resolver(target, use)
    outcomes = _outcomes(target.outcomes, use, explicit, overrides)
    return replace(target, trigger=trigger, outcomes=outcomes)


def _catch_all(routes: tuple[Route, ...]) -> bool:
    """No routes, or only routes that send every path (the resolver decides)."""
    return all("{proxy+}" in r.path or r.path == "$default" for r in routes)


def _check_resolver(target: Target, use: PowertoolsUse) -> None:
    expected = use.resolver_kind
    if expected is not None and expected != target.trigger.kind.value:
        log.warning(
            "warning [powertools]: %s: %s reads %s events but the trigger is %s; its routes "
            "are used, the payload format is the trigger's",
            target.handler,
            use.resolver,
            expected,
            target.trigger.kind.value,
        )


def _explicit_body(target: Target, explicit: ExplicitBody) -> BodyModel:
    _check_envelope(target, explicit.envelope, explicit.where, strict=True)
    if explicit.path is not None:
        text = read_text(explicit.path, SCHEMA_LIMITS)  # regular UTF-8 text, at most 1 MB
        try:
            schema = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ConfigError(
                f"{explicit.where}: cannot read {explicit.path} as a JSON Schema: {exc}"
            ) from None
        if not isinstance(schema, dict | bool):
            raise ConfigError(f"{explicit.where}: {explicit.path} holds no JSON Schema object")
        name = explicit.path.name
        return BodyModel(name, explicit.envelope, json.dumps(schema, sort_keys=True))
    try:
        text = _schema_of(target, explicit.module, explicit.name)
    except ModelSchemaError as exc:
        raise ConfigError(f"{explicit.where}: {exc}") from None
    return BodyModel(f"{explicit.module}.{explicit.name}", explicit.envelope, text)


def _found_body(target: Target, use: PowertoolsUse) -> BodyModel | None:
    body = use.primary
    if body is None or body.model is None:
        return None
    if body.envelope_name and body.envelope is None:
        return None  # an envelope without a generator (noted by the analysis)
    if not _check_envelope(target, body.envelope, body.location, strict=False):
        return None
    text = body.schema_json
    if text is None:
        try:
            text = _schema_of(target, body.model.module, body.model.name)
        except ModelSchemaError as exc:
            log.warning(
                "warning [powertools]: %s: %s; bodies are not generated from it", body.location, exc
            )
            return None
    if body.field:
        text = field_schema(text, body.field)
        if text is None:
            return None
    model = BodyModel(body.model.qualified, body.envelope, text)
    return request_body(target, model, whole_event=body.whole_event, where=body.location)


def request_body(
    target: Target, model: BodyModel, *, whole_event: bool, where: str
) -> BodyModel | None:
    """What of `model` an API trigger's requests carry.  A model without an envelope is
    the request body's (a resolver route's, `trigger.schema` written for the body), unless
    it checks the whole event (`whole_event`: `@validator` on the handler, `validate(event=
    event, ...)`) or its properties are an API event's (`body`, `headers`, `httpMethod`):
    then only its `body` property can describe the request body, when it is a JSON
    document (`contentSchema`, pydantic's `Json[...]`; an object schema, for code that
    decoded the body first).  A `body` that is only a string leaves the request bodies
    to the generator, with a warning; never is the event's schema the body's."""
    kind = target.trigger.kind
    if kind not in _API_KINDS or model.envelope is not None:
        return model
    fields = sorted(event_fields(model.schema_json) & API_EVENT_FIELDS)
    if not whole_event and len(fields) < EVENT_FIELDS_MIN:
        return model
    envelope = Envelope.APIGATEWAY if kind is TriggerKind.APIGATEWAY else Envelope.APIGATEWAY_V2
    inner = field_schema(model.schema_json, "body")
    what = f"{model.name} describes the whole event" + (
        f" (its fields {', '.join(fields)})" if fields else ""
    )
    if inner is not None and _json_document(model.schema_json, inner):
        log.warning(
            "warning [powertools]: %s: %s, not the request body; request bodies are generated "
            "from its `body` property",
            where,
            what,
        )
        return BodyModel(f"{model.name}.body", envelope, inner)
    log.warning(
        "warning [powertools]: %s: %s, not the request body; it is not used for the body, "
        "which is generated as usual",
        where,
        what,
    )
    return None


def event_fields(schema_json: str) -> set[str]:
    """The top-level property and required names of a schema."""
    schema = json.loads(schema_json)
    if not isinstance(schema, dict):
        return set()
    properties = schema.get("properties")
    required = schema.get("required")
    names = set(properties) if isinstance(properties, dict) else set()
    if isinstance(required, list):
        names.update(r for r in required if isinstance(r, str))
    return names


def _json_document(schema_json: str, inner_json: str) -> bool:
    """Whether an event schema's `body` (`inner_json`, from `field_schema`) describes a
    JSON document rather than any string: it had a `contentSchema`, or is an object."""
    schema = json.loads(schema_json)
    body = schema.get("properties", {}).get("body", {})
    if isinstance(body, dict) and isinstance(body.get("contentSchema"), dict):
        return True
    inner = json.loads(inner_json)
    return isinstance(inner, dict) and (
        inner.get("type") == "object" or isinstance(inner.get("properties"), dict)
    )


def field_schema(schema_json: str, field: str) -> str | None:
    """The schema of one property of a model's schema (its `$defs` kept): the body of an
    event model that overrides `detail` or `body`.  `Json[Model]` (a string holding JSON)
    gives the inner model: the event carries the JSON text either way."""
    schema = json.loads(schema_json)
    sub = schema.get("properties", {}).get(field) if isinstance(schema, dict) else None
    if not isinstance(sub, dict):
        return None
    if isinstance(sub.get("contentSchema"), dict):
        sub = sub["contentSchema"]
    if "$defs" in schema:
        sub = {**sub, "$defs": schema["$defs"]}
    return json.dumps(sub, sort_keys=True)


def _schema_of(target: Target, module: str, name: str) -> str:
    return model_json_schema(
        target.root,
        module,
        name,
        layers=target.layers,
        env=target.env,
        timeout_s=target.import_timeout_s,
    )


def _check_envelope(target: Target, envelope: Envelope | None, where: str, *, strict: bool) -> bool:
    kind = target.trigger.kind
    if kind in _ENVELOPE_KINDS[envelope] and not (
        kind is TriggerKind.EVENTBRIDGE and target.trigger.source is not None
    ):
        return True
    what = f"envelope {envelope.value}" if envelope else "no envelope (the whole event)"
    message = f"{where}: a body with {what} does not fit a {kind.value} trigger"
    if strict:
        kinds = ", ".join(k.value for k in _ENVELOPE_KINDS[envelope])
        raise ConfigError(f"{message}; expected a trigger of kind {kinds}, or another envelope.")
    log.warning(
        "warning [powertools]: %s: %s; bodies are not generated from it", target.handler, message
    )
    return False


def _outcomes(
    rules: OutcomeRules,
    use: PowertoolsUse,
    explicit: ExplicitBody | None,
    overrides: OutcomeOverrides,
) -> OutcomeRules:
    names: list[str] = []
    if use.uses_parser or (explicit is not None and explicit.path is None):
        names.extend(PARSER_INVALID)
    if use.uses_validator or (explicit is not None and explicit.path is not None):
        names.extend(VALIDATOR_INVALID)
    if not overrides.invalid_exceptions and names:
        added = tuple(dict.fromkeys((*rules.invalid_exceptions, *names)))
        rules = replace(rules, invalid_exceptions=added)
    if use.resolver and not overrides.invalid_status_codes:
        codes = tuple(dict.fromkeys((*rules.invalid_status_codes, *RESOLVER_INVALID_CODES)))
        rules = replace(rules, invalid_status_codes=codes)
    return rules
