"""`lambdafuzz.yaml` -> a validated, immutable `Target`.

A user meets this module first, usually through a mistake, so every mistake becomes one
`ConfigError` paragraph: file and line, the YAML path of the field, the bad value (repr),
what was expected and the nearest valid key or value.  pydantic checks the shape (models
private to this module); cross-references (trigger source, `${...}` env references) and
AWS naming rules are checked here too; the result crosses module boundaries as frozen
slotted dataclasses only.  The schema is the README's `lambdafuzz.yaml` example.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import ipaddress
import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from lambdafuzz.config import aws_names
from lambdafuzz.config.api_call_shapes import call_parameters
from lambdafuzz.config.api_routes import (
    FORM_TYPE,
    ROUTE_METHODS,
    header_name_problem,
    media_type_problem,
    route_path_problem,
)
from lambdafuzz.config.code_configuration import code_configuration
from lambdafuzz.config.event_filters import admits_s3, trigger_filters
from lambdafuzz.config.event_keys import form_fields, handler_file, read_shape
from lambdafuzz.config.powertools import ExplicitBody, OutcomeOverrides, apply_powertools
from lambdafuzz.config.sample_events import read_samples
from lambdafuzz.config.source import (
    KeyHints,
    Locator,
    custom_error,
    dotpath,
    file_kind,
    from_validation_error,
    nearest,
    read_yaml,
)
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.brokers import BROKER_KINDS
from lambdafuzz.generators.files import FORMATS
from lambdafuzz.model.permissions import Policy, statement_from_json
from lambdafuzz.model.redelivery import ResourceKind
from lambdafuzz.model.target import (
    ATTRIBUTE_TYPES,
    BODY_EVENTBRIDGE_S3,
    BODY_JSON_OBJECT,
    BODY_S3_EVENT,
    IDENTITY_PLACES,
    KEY_TYPES,
    PARAMETER_TYPES,
    REFERENCE,
    REFERENCE_ATTRIBUTES,
    STREAM_VIEW_TYPES,
    AuthorizerFormat,
    BucketSpec,
    Envelope,
    FileSystemMount,
    FrozenMap,
    ObjectsSpec,
    OutcomeRules,
    ParameterSpec,
    QueueSpec,
    Resources,
    Route,
    RouteAuth,
    SampleEvent,
    SecretSpec,
    TableSpec,
    Target,
    TopicSpec,
    Trigger,
    TriggerKind,
    is_policy_variable,
    package_path,
)
from lambdafuzz.model.world import PROJECTION_TYPES, KeySchema, SecondaryIndex

__all__ = ["CONFIG_NAME", "env_problem", "load_config", "target_from_dict"]

CONFIG_NAME = "lambdafuzz.yaml"
log = logging.getLogger("lambdafuzz.config")


#: The trigger kinds whose event holds a list of records.
_RECORD_KINDS = (
    TriggerKind.S3,
    TriggerKind.SQS,
    TriggerKind.SNS,
    TriggerKind.DYNAMODB_STREAM,
    TriggerKind.KINESIS,
    TriggerKind.FIREHOSE,
    *BROKER_KINDS,
)
_BODY_KINDS = (
    TriggerKind.SQS,
    TriggerKind.SNS,
    TriggerKind.APIGATEWAY,
    TriggerKind.APIGATEWAY_V2,
    TriggerKind.KINESIS,
    TriggerKind.FIREHOSE,
    *BROKER_KINDS,
)
#: The trigger kinds whose functions may report partial batch failures (`batchItemFailures`).
_BATCH_RESPONSE_KINDS = (TriggerKind.SQS, TriggerKind.KINESIS, TriggerKind.DYNAMODB_STREAM)
#: The trigger kinds whose records carry payloads (`body: json-object` applies to them).
_PAYLOAD_KINDS = (TriggerKind.KINESIS, TriggerKind.FIREHOSE, *BROKER_KINDS)
#: Sources lambdafuzz does not emulate (only their names reach the event): what each names,
#: the characters and the length its service allows.
_UNEMULATED_SOURCES = {
    TriggerKind.KINESIS: ("Kinesis stream", "A-Za-z0-9_.-", 128),
    TriggerKind.FIREHOSE: ("Firehose delivery stream", "A-Za-z0-9_.-", 64),
    TriggerKind.SCHEDULE: ("EventBridge rule", "A-Za-z0-9_.-", 64),
    TriggerKind.MSK: ("Kafka topic", "A-Za-z0-9_.-", 249),
    TriggerKind.KAFKA: ("Kafka topic", "A-Za-z0-9_.-", 249),
    TriggerKind.ACTIVEMQ: ("ActiveMQ queue", "A-Za-z0-9_.:/-", 255),
    TriggerKind.RABBITMQ: ("RabbitMQ queue", "A-Za-z0-9_.:/-", 255),
}
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
#: A module as Lambda's Python runtime imports it (`importlib.import_module`): a file name
#: may hold hyphens (`order-intake.py`, handler `order-intake.handler`), which `import`
#: statements cannot name but the runtime loads.
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*")
_ENV_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
#: An authorizer's identity source, `place.name` (`model.target.IDENTITY_PLACES`).
IDENTITY_SOURCE = re.compile(rf"({'|'.join(IDENTITY_PLACES)})\.[A-Za-z0-9_.$-]{{1,128}}")
#: An S3 notification event type: `s3:ObjectCreated:*`, `s3:ObjectRemoved:Delete`, ...
S3_EVENT_TYPE = re.compile(r"s3:[A-Za-z]+(:[A-Za-z*]+)*")
#: `env` names that could lead an SDK to real credentials or a real account: refused, so a
#: config can never point the handler at one (the harness refuses them again at start).
_CREDENTIAL_VARS = frozenset(
    {
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
        "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME",
        "AWS_CREDENTIAL_EXPIRATION", "AWS_EC2_METADATA_SERVICE_ENDPOINT",
        "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "AWS_EC2_METADATA_DISABLED", "AWS_SSO_SESSION",
        "AWS_CA_BUNDLE", "BOTO_CONFIG",
    }
)  # fmt: skip
_CREDENTIAL_PREFIXES = ("AWS_CONTAINER_", "AWS_SSO_")
#: `env` names holding a URL the SDK or HTTP stack sends requests to: loopback only.
_ENDPOINT_PREFIX = "AWS_ENDPOINT_URL"
_PROXY_VARS = frozenset({"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"})
_LOOPBACK_NAMES = ("localhost",)
#: `outcomes.status_from`: `return`, or the key of the returned dict holding the status code.
_STATUS_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,127}")
#: Keys the usual Lambda responses carry their status in (API Gateway, ALB, Function URLs,
#: and common hand-written shapes); another key is checked against the handler's source.
STATUS_KEYS = ("statusCode", "status_code", "status", "StatusCode", "code", "httpStatus")


# =========================================================================== validators
def _one_of(options: Sequence[str], what: str) -> AfterValidator:
    def check(value: str) -> str:
        if value not in options:
            listed = ", ".join(repr(o) for o in options)
            raise custom_error(f"{what}: one of {listed}", nearest(value, options))
        return value

    return AfterValidator(check)


def _matching(pattern: re.Pattern[str], what: str) -> AfterValidator:
    def check(name: str) -> str:
        if not pattern.fullmatch(name):
            raise custom_error(what)
        return name

    return AfterValidator(check)


def _dotted(what: str) -> AfterValidator:
    return _matching(_DOTTED, what)


def _module_name(what: str) -> AfterValidator:
    return _matching(_MODULE, what)


def _aws_name(rule: Callable[[str], aws_names.NameProblem | None]) -> AfterValidator:
    def check(name: str) -> str:
        problem = rule(name)
        if problem is not None:
            raise custom_error(problem.expected, problem.suggestion)
        return name

    return AfterValidator(check)


BucketNameT = Annotated[str, _aws_name(aws_names.bucket_name_problem)]
TableNameT = Annotated[str, _aws_name(aws_names.table_name_problem)]
QueueNameT = Annotated[str, _aws_name(aws_names.queue_name_problem)]
TopicNameT = Annotated[str, _aws_name(aws_names.topic_name_problem)]
SecretNameT = Annotated[str, _aws_name(aws_names.secret_name_problem)]
ParameterNameT = Annotated[str, _aws_name(aws_names.parameter_name_problem)]
AttributeNameT = Annotated[str, Field(min_length=1, max_length=255)]
ExceptionNameT = Annotated[
    str, _dotted("an exception class name such as ValueError or pkg.MyError")
]
StatusCodeT = Annotated[int, Field(ge=100, le=599)]


# =========================================================================== pydantic shape
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class _Range(_Model):
    min: Annotated[int, Field(ge=0, le=10_000)] | None = Field(
        None, description="The fewest per test (the default is the parent key's)."
    )
    max: Annotated[int, Field(ge=0, le=10_000)] | None = Field(
        None, description="The most per test (the default is the parent key's)."
    )


def _problem_check(problem: Callable[[str], str | None]) -> AfterValidator:
    def check(value: str) -> str:
        expected = problem(value)
        if expected is not None:
            raise custom_error(expected)
        return value

    return AfterValidator(check)


class _RouteModel(_Model):
    method: Annotated[str, _one_of(ROUTE_METHODS, "an HTTP method")] = Field(
        "ANY", description="The route's HTTP method; ANY: every method."
    )
    path: Annotated[str, _problem_check(route_path_problem)] = Field(
        description=(
            "The resource path, such as /orders/{orderId} ({name+}: greedy, last); "
            "$default (HTTP API): any path."
        )
    )
    content_types: list[Annotated[str, _problem_check(media_type_problem)]] = Field(
        [],
        description=("The media types of the request bodies the route takes (none: JSON mostly)."),
    )
    query: list[Annotated[str, Field(min_length=1)]] = Field(
        [], description="Query string parameters every request of the route carries."
    )
    headers: list[Annotated[str, _problem_check(header_name_problem)]] = Field(
        [], description="Headers every request of the route carries."
    )
    # the authorizer every request of the route passed (what requestContext then holds)
    auth: Annotated[str, _one_of(tuple(a.value for a in RouteAuth), "an authorizer")] = Field(
        "none",
        description=(
            "The authorizer every request passed: its output is in each request's requestContext."
        ),
    )


#: A WebSocket API's route key: `$connect`, `$disconnect`, `$default` or an action.
WEBSOCKET_ROUTE = re.compile(r"\$(connect|disconnect|default)|[A-Za-z0-9_.:-]{1,128}")
WebSocketRouteT = Annotated[
    str, _matching(WEBSOCKET_ROUTE, "a route key: $connect, $disconnect, $default or an action")
]


EnvelopeT = Annotated[str, _one_of(tuple(e.value for e in Envelope), "an envelope")]


class _BodyModelRef(_Model):
    """`trigger.model`: the pydantic model the handler parses its body with."""

    module: Annotated[str, _dotted("a module name such as orders.models")] = Field(
        description="The module defining the model."
    )
    name: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")] = Field(
        description=(
            "The model's name in that module (a pydantic model, another type pydantic "
            "validates, or a dict that is a JSON Schema)."
        )
    )
    envelope: EnvelopeT | None = Field(
        None,
        description=(
            "Where the model's instances go in the event (none: the whole payload, or the"
            " request body of an API trigger)."
        ),
    )


class _BodySchemaRef(_Model):
    """`trigger.schema`: a JSON Schema file the handler validates its body against."""

    path: Annotated[str, Field(min_length=1)] = Field(
        description="The JSON Schema file, relative to the config file."
    )
    envelope: EnvelopeT | None = Field(
        None,
        description=(
            "Where the schema's instances go in the event (none: the whole payload, or "
            "the request body of an API trigger)."
        ),
    )


def _json_value(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise custom_error(
            "a JSON value (quote dates and times: YAML reads them as timestamps)"
        ) from None
    return value


class _TriggerModel(_Model):
    kind: Annotated[str, _one_of(tuple(k.value for k in TriggerKind), "a trigger kind")] = Field(
        description="What invokes the handler."
    )
    source: str | None = Field(
        None,
        description=(
            "The resource emitting the events: a bucket (s3, eventbridge, s3-batch), "
            "queue (sqs), topic (sns) or table with a stream (dynamodb-stream) of "
            "`resources`, by default the first that fits; for kinesis, firehose, "
            "schedule, msk, kafka, activemq and rabbitmq only its name."
        ),
    )
    body: str | None = Field(
        None,
        description=(
            "The format of message bodies and payloads: a file format; s3-event or "
            "eventbridge-s3 (sqs, sns: an S3 notification); json-object (kinesis, "
            "firehose, brokers: always a JSON object)."
        ),
    )
    records: _Range | None = Field(
        None, description="How many records one event holds, {min, max} (default: 1)."
    )
    missing_objects: bool = Field(
        False,
        description=(
            "Let 2% of the S3 notifications name an object that is not in the bucket "
            "(deleted before the notification arrived)."
        ),
    )
    keys: list[Annotated[str, Field(min_length=1)]] = Field(
        [], description=("direct: the payload's keys; a key ending in ? is present half the time.")
    )
    # direct only: the payload is a JSON array of objects, `keys` its items' keys
    array: bool = Field(
        False,
        description=("direct: each payload is a JSON array of up to five objects with `keys`."),
    )
    # direct only: the payload a rule or schedule always sends (its `Input`)
    constant: Annotated[Any, AfterValidator(_json_value)] = Field(
        None,
        description=(
            "direct: the one payload the function always receives (a rule's or schedule's"
            " Input); only the world varies."
        ),
    )
    filters: list[dict[str, Any]] = Field(
        [],
        description=(
            "Event filter patterns (Lambda FilterCriteria, EventBridge rule patterns) of "
            "sqs, dynamodb-stream, kinesis and eventbridge triggers: what no pattern "
            "matches is not delivered."
        ),
    )
    # apigateway / apigateway-v2: routes; websocket: route keys
    routes: list[_RouteModel | WebSocketRouteT] = Field(
        [],
        description=(
            "apigateway, apigateway-v2: the routes every request is on (none: any path "
            "and method); websocket: route keys (default: $connect, $disconnect, "
            "$default)."
        ),
    )
    function_url: bool = Field(
        False,
        description=(
            "apigateway-v2: requests as a function URL sends them (payload 2.0, any path "
            "and method)."
        ),
    )
    form_fields: list[Annotated[str, Field(min_length=1)]] = Field(
        [],
        description=(
            "The fields of url-encoded form bodies (default: those the handler's module reads)."
        ),
    )
    model: _BodyModelRef | None = Field(
        None,
        description=(
            "The pydantic model the handler parses its body with: {module, name, envelope}."
        ),
    )
    schema_: _BodySchemaRef | None = Field(
        None,
        alias="schema",
        description=(
            "A JSON Schema file the handler validates its body against: a path, or {path,"
            " envelope}."
        ),
    )
    powertools: bool = Field(
        True,
        description=(
            "Read the handler's AWS Lambda Powertools code for models, schemas, routes "
            "and outcomes."
        ),
    )  # read the handler's Powertools code for models, routes, outcomes
    # s3 only: the notification's event types (SAM `Events`); []: ObjectCreated only
    s3_events: list[
        Annotated[str, _matching(S3_EVENT_TYPE, "an S3 event type such as s3:ObjectCreated:*")]
    ] = Field(
        [],
        description=(
            "s3: the notification's event types, such as s3:ObjectRemoved:* (none: "
            "ObjectCreated only)."
        ),
    )
    # s3-batch only: the job's InvocationSchemaVersion (None: either, 1.0 or 2.0)
    schema_version: Literal["1.0", "2.0"] | None = Field(
        None, description=("s3-batch: the job's invocation schema version (none: either is drawn).")
    )
    # authorizer only: the event's format and the identity sources each request carries
    format: (
        Annotated[str, _one_of(tuple(f.value for f in AuthorizerFormat), "an authorizer format")]
        | None
    ) = Field(None, description="authorizer: the event's format (none: token).")
    identity: list[
        Annotated[
            str,
            _matching(
                IDENTITY_SOURCE,
                "an identity source: header.NAME, query.NAME, stage.NAME or context.NAME",
            ),
        ]
    ] = Field(
        [],
        description=(
            "authorizer: the identity sources every request carries (a token authorizer's"
            " default: header.Authorization)."
        ),
    )
    # firehose only: the Kinesis data stream its delivery stream reads (none: Direct PUT)
    kinesis_stream: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,128}$")] | None = Field(
        None,
        description=(
            "firehose: the Kinesis data stream the delivery stream reads (none: Direct PUT)."
        ),
    )
    # sqs, kinesis, dynamodb-stream only: FunctionResponseTypes holds ReportBatchItemFailures
    report_batch_item_failures: bool = Field(
        False,
        description=(
            "sqs, kinesis, dynamodb-stream: Lambda reads batchItemFailures from the "
            "handler's response (FunctionResponseTypes: ReportBatchItemFailures)."
        ),
    )
    # direct only: invoked asynchronously (InvocationType Event): Lambda retries, so an
    # event may be delivered more than once (the idempotency oracle delivers some twice)
    asynchronous: bool = Field(
        False,
        description=(
            "direct: the function is invoked asynchronously, so an event may be delivered twice."
        ),
    )
    # direct only: Step Functions payload templates (`key.$`: a JSONPath) the caller sends
    payloads: list[Annotated[Any, AfterValidator(_json_value)]] = Field(
        [],
        description=(
            "direct: the Step Functions payload templates the caller sends (`key.$`: a JSONPath)."
        ),
    )
    # direct only, beside payloads: per payload, what its `$` (the execution's input) can
    # be (`config.state_machine_inputs`); [] for a payload whose `$` is not known
    inputs: list[list[dict[str, Any]]] = Field(
        [],
        description=(
            "direct, beside payloads: per payload, the events its `$` (the execution's "
            "input) can be."
        ),
    )

    @field_validator("schema_", mode="before")
    @classmethod
    def _schema_shorthand(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str) else value


class _ObjectsModel(_Model):
    min: Annotated[int, Field(ge=0, le=1_000)] | None = Field(
        None, description="The fewest objects in the bucket (default: 1)."
    )
    max: Annotated[int, Field(ge=0, le=1_000)] | None = Field(
        None, description=("The most objects in the bucket (default: 3, or min when larger).")
    )
    formats: list[str] = Field(
        ["any"], description="The objects' file formats; any: a mix of the common ones."
    )
    prefixes: list[str] = Field([], description="Key prefixes the object keys start with.")
    suffixes: list[str] = Field(
        [],
        description=("Key suffixes every object key ends with (a notification's suffix filter)."),
    )
    erroneous_p: Annotated[float, Field(ge=0.0, le=1.0)] = Field(
        0.003, description=("The probability that an object is a deliberately broken file.")
    )


class _BucketModel(_Model):
    name: BucketNameT = Field(description="The bucket's name.")
    objects: _ObjectsModel | None = Field(
        None,
        description=(
            "The generated objects; a bucket without them starts empty (an output bucket)"
            " and emits no events."
        ),
    )


class _KeyModel(_Model):
    name: AttributeNameT = Field(description="The key attribute's name.")
    type: Annotated[str, _one_of(KEY_TYPES, "a DynamoDB key type")] = Field(
        description="The key attribute's type."
    )


class _IndexModel(_Model):
    """A secondary index (CloudFormation's GlobalSecondaryIndexes / LocalSecondaryIndexes)."""

    name: Annotated[
        str,
        _matching(
            re.compile(r"[A-Za-z0-9_.-]{3,255}"), "an index name (3-255 of A-Z a-z 0-9 _ . -)"
        ),
    ] = Field(description="The index's name.")
    hash_key: _KeyModel = Field(description="The index's hash key: {name, type}.")
    range_key: _KeyModel | None = Field(None, description="The index's range key: {name, type}.")
    local: bool = Field(
        False,
        description=(
            "A local secondary index (on the table's hash key, with a range key of its own)."
        ),
    )
    projection: Annotated[str, _one_of(PROJECTION_TYPES, "a projection type")] = Field(
        "ALL", description="The attributes the index holds."
    )
    non_key_attributes: list[AttributeNameT] = Field(
        [], description=("With projection INCLUDE: the non-key attributes the index holds.")
    )


class _AttributeModel(_Model):
    """A non-key attribute every item of a table holds (what its writers always set)."""

    name: AttributeNameT = Field(description="The attribute's name.")
    type: Annotated[str, _one_of(ATTRIBUTE_TYPES, "a DynamoDB attribute type")] = Field(
        description="The attribute's DynamoDB type."
    )


class _TableModel(_Model):
    name: TableNameT = Field(description="The table's name.")
    hash_key: _KeyModel = Field(description="The partition key: {name, type}.")
    range_key: _KeyModel | None = Field(None, description="The sort key: {name, type}.")
    items: _Range | None = Field(
        None, description=("How many generated items the table holds, {min, max} (default: none).")
    )
    stream: Annotated[str, _one_of(STREAM_VIEW_TYPES, "a stream view type")] | None = Field(
        None,
        description=(
            "The stream's view type: the table has a stream (a dynamodb-stream trigger's source)."
        ),
    )
    indexes: list[_IndexModel] = Field(
        [], description=("Secondary indexes (global, or local: true); both loaders create them.")
    )
    attributes: list[_AttributeModel] = Field(
        [],
        description=(
            "Non-key attributes every generated item and stream image holds: {name, type}."
        ),
    )


class _QueueModel(_Model):
    name: QueueNameT = Field(description="The queue's name (.fifo at the end for a FIFO queue).")
    messages: _Range | None = Field(
        None, description=("How many messages wait in the queue, {min, max} (default: none).")
    )
    fifo: bool | None = Field(None, description="A FIFO queue (none: as the name says).")


class _TopicModel(_Model):
    name: TopicNameT = Field(description="The topic's name.")


class _SecretModel(_Model):
    name: SecretNameT = Field(description="The secret's name.")
    value: Annotated[str, Field(min_length=1, max_length=65536)] | None = Field(
        None,
        description=(
            "Its fixed SecretString; with generate_key, a JSON object template (neither: "
            "the whole string is drawn for every test)."
        ),
    )
    generate_key: Annotated[str, Field(min_length=1)] | None = Field(
        None,
        description=(
            "The key of the value whose value is drawn for every test (a password, as "
            "GenerateSecretString makes one)."
        ),
    )


class _ParameterModel(_Model):
    name: ParameterNameT = Field(description="The parameter's name.")
    value: Annotated[str, Field(min_length=1, max_length=8192)] | None = Field(
        None, description="Its fixed value (none: drawn for every test)."
    )
    type: Annotated[str, _one_of(PARAMETER_TYPES, "an SSM parameter type")] = Field(
        "String", description="The parameter's type."
    )


class _ResourcesModel(_Model):
    buckets: list[_BucketModel] = Field([], description="S3 buckets.")
    tables: list[_TableModel] = Field([], description="DynamoDB tables.")
    queues: list[_QueueModel] = Field([], description="SQS queues.")
    topics: list[_TopicModel] = Field([], description="SNS topics.")
    secrets: list[_SecretModel] = Field(
        [], description="Secrets Manager secrets (${secrets.NAME.arn} in env)."
    )
    parameters: list[_ParameterModel] = Field([], description="SSM Parameter Store parameters.")


class _OutcomeModel(_Model):
    exceptions: list[ExceptionNameT] = Field(
        [], description=("Exception class names (ValueError, pkg.MyError); subclasses match too.")
    )
    status_codes: list[StatusCodeT] = Field([], description="Status codes the handler returns.")


def _status_key(value: str) -> str:
    if value != "return" and not _STATUS_KEY.fullmatch(value):
        raise custom_error(
            "`return` (the handler returns the status code itself) or the key of the returned "
            "mapping that holds it, such as statusCode (letters, digits, _ and -)",
            nearest(value, (*STATUS_KEYS, "return")),
        )
    return value


class _OutcomesModel(_Model):
    invalid: _OutcomeModel | None = Field(
        None, description=("Inputs the handler rejects on purpose: invalid inputs, not failures.")
    )
    failure: _OutcomeModel | None = Field(
        None,
        description=(
            "Failures beside uncaught exceptions (a returned status such as 500); an "
            "exception listed here stays a failure even when invalid lists a base class "
            "of it."
        ),
    )
    status_from: Annotated[str, AfterValidator(_status_key)] = Field(
        "statusCode",
        description=(
            "The key of the returned mapping holding the status code; `return` for a "
            "handler returning a bare int."
        ),
    )


class _FileSystemModel(_Model):
    path: Annotated[str, Field(pattern=r"^/mnt/[^/].*$", max_length=160)] = Field(
        description=("Where the function finds the file system (LocalMountPath, under /mnt/).")
    )  # Lambda's rule
    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")] | None = Field(
        None, description="Its folder under OUT/efs/ (default: the path's last part)."
    )


class _PermissionsModel(_Model):
    """`permissions:` as a list of IAM statements, an IAM policy document `{Version,
    Statement}` pasted as it is, or `{statements, unknown}`."""

    statements: list[Any] = Field(
        description=(
            "IAM statements {Effect, Action, Resource}; resources may name the config's "
            "(${tables.orders.arn})."
        )
    )  # each checked by `model.permissions.statement_from_json`
    unknown: list[Annotated[str, Field(min_length=1)]] = Field(
        [],
        description=(
            "Grants whose statements are unknown (each may allow any call: such calls are"
            " undecided)."
        ),
    )  # grants that may allow anything
    # where the statements were written below `permissions` (for error paths)
    _at: tuple[str, ...] = PrivateAttr(default=("statements",))

    @model_validator(mode="wrap")
    @classmethod
    def _forms(cls, value: Any, handler: Any) -> Any:
        if isinstance(value, list):
            model = handler({"statements": value})
            model._at = ()
        elif isinstance(value, dict) and "Statement" in value and "statements" not in value:
            listed = value["Statement"]
            rest = {k: v for k, v in value.items() if k not in ("Statement", "Version", "Id")}
            model = handler(
                {"statements": listed if isinstance(listed, list) else [listed], **rest}
            )
            model._at = ("Statement",)
        else:
            model = handler(value)
        return model


class _IdempotencyModel(_Model):
    """`idempotency:` what a second delivery of the same event may change again."""

    # resources whose duplicates are accepted: `tables.audit_log`, `queues.*`
    accept: list[Annotated[str, Field(min_length=1)]] = Field(
        [],
        description=(
            "Resources whose duplicates are accepted, as kind.name: tables.audit_log, "
            "queues.metrics, tables.*."
        ),
    )


class _ConfigModel(_Model):
    handler: Annotated[str, Field(min_length=1)] = Field(
        description=("The handler: module.function or module:function, imported from root.")
    )
    root: str = Field(
        ".", description=("The directory the handler is imported from, relative to this file.")
    )
    app_packages: list[Annotated[str, _module_name("a package or module name")]] | None = Field(
        None,
        description=(
            "The application's packages or modules: the coverage and analysis scope "
            "(default: the handler's top-level package)."
        ),
    )
    trigger: _TriggerModel = Field(
        description=("What invokes the handler: a kind, or a mapping with kind and its settings.")
    )
    env: dict[str, str | int | float] = Field(
        {},
        description=(
            "The function's environment variables; values may name resources (${queues.jobs.url})."
        ),
    )
    timeout_s: Annotated[float, Field(gt=0, le=900)] = Field(
        3.0, description="Seconds before a test counts as a hang (a Hang failure)."
    )
    memory_mb: Annotated[int, Field(ge=128, le=10_240)] = Field(
        512,
        description=(
            "The function's memory size; the memory budget of cost findings is half of it."
        ),
    )
    import_timeout_s: Annotated[float, Field(gt=0, le=900)] = Field(
        30.0, description="Seconds the handler module's import may take."
    )
    dictionary: list[str] = Field(
        [], description=("Constant strings for string draws, beside those read from the code.")
    )
    layers: list[Annotated[str, Field(min_length=1)]] = Field(
        [], description=("Layer directories (relative to this file), on sys.path after the code.")
    )
    resources: _ResourcesModel = Field(
        _ResourcesModel(),
        description=(
            "The AWS world the handler reads and writes, loaded into the emulator before "
            "every test."
        ),
    )
    outcomes: _OutcomesModel = Field(
        _OutcomesModel(), description="How a test that raises or returns a status is classified."
    )
    seeds: list[Annotated[str, Field(min_length=1)]] = Field(
        [], description="Sample events: files or folders, relative to this file."
    )  # sample events: files, folders
    file_systems: list[_FileSystemModel] = Field(
        [], description="File systems (EFS) the function mounts: {path, name}."
    )  # EFS mounts: {path: /mnt/efs, name?}
    # the function's IAM statements; absent or false: the permission check is off
    permissions: _PermissionsModel | None = Field(
        None, description=("The function's IAM statements (absent or false: no permission check).")
    )
    idempotency: _IdempotencyModel = Field(
        _IdempotencyModel(),
        description="What a second delivery of the same event may change again.",
    )

    @field_validator("trigger", mode="before")
    @classmethod
    def _trigger_shorthand(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value

    @field_validator("permissions", mode="before")
    @classmethod
    def _permissions_off(cls, value: Any) -> Any:
        if value is None or value is False:
            return None
        if not isinstance(value, list | dict):
            raise custom_error(PERMISSIONS_EXPECTED)
        return value


# =========================================================================== loading
def load_config(path: Path | str) -> Target:
    """Read and validate a `lambdafuzz.yaml` (or a directory holding one)."""
    file = _config_file(Path(path))
    data, where = read_yaml(file)
    try:
        model = _ConfigModel.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, where, _ConfigModel, _DESCRIPTIONS, _HINTS) from None
    return _Builder(model, where, file).target()


def _config_file(path: Path) -> Path:
    kind = file_kind(path)
    if kind == "a directory":
        for name in (CONFIG_NAME, "lambdafuzz.yml"):
            if (path / name).exists() or (path / name).is_symlink():
                return _config_file(path / name)
    if kind == "a directory" and path.suffix not in (".yaml", ".yml"):
        raise ConfigError(
            f"{path}: no {CONFIG_NAME} (nor a SAM template.yaml) in this directory; expected a "
            f"file describing the handler, its trigger and resources (`lambdafuzz init` "
            f"writes one)."
        )
    if kind is not None:
        raise ConfigError(f"{path}: is {kind}, not a regular file; expected a {CONFIG_NAME} file.")
    if not path.is_file():
        raise ConfigError(f"{path}: no such file; expected a {CONFIG_NAME} or its directory.")
    return path.resolve()


_DESCRIPTIONS = {
    "handler": "module.function or module:function of the Lambda handler",
    "status_from": "`return` or the key of the returned mapping holding the status code",
    "trigger": "the event source: a kind (s3, sqs, ...) or {kind, source, body, records}",
    "kind": "a trigger kind: " + ", ".join(TriggerKind),
    "hash_key": "{name, type} with type S, N or B",
    "type": "S, N or B",
    "statements": "a list of IAM statements {Effect, Action, Resource}",
    "unknown": "a list of grants whose statements are unknown (each may allow any call)",
    "accept": "a list of resources whose duplicates are accepted: tables.audit_log, queues.*",
}
#: What `permissions:` takes.
PERMISSIONS_EXPECTED = (
    "false (no permission check), a list of IAM statements {Effect, Action, Resource}, a "
    "policy document {Version, Statement} or {statements: [...], unknown: [...]}"
)


#: Names people write for lambdafuzz.yaml keys (older names, SAM properties, other tools).
_HINTS = KeyHints(
    renamed={
        "timeout": "timeout_s", "memory": "memory_mb", "memory_size": "memory_mb",
        "memorysize": "memory_mb", "packages": "app_packages", "app_package": "app_packages",
        "apppackages": "app_packages", "environment": "env", "variables": "env",
        "env_vars": "env", "environment_variables": "env", "codeuri": "root",
        "code_uri": "root", "code_dir": "root", "function": "handler",
        "handler_module": "handler", "handler_function": "handler", "event": "trigger",
        "events": "trigger", "event_source": "trigger", "partition_key": "hash_key",
        "pk": "hash_key", "sort_key": "range_key", "sk": "range_key",
        "stream_view_type": "stream", "streamspecification": "stream", "files": "objects",
        "constants": "dictionary", "strings": "dictionary", "init_timeout": "import_timeout_s",
        "import_timeout": "import_timeout_s", "startup_timeout": "import_timeout_s",
        "status_key": "status_from", "status_field": "status_from",
        "functionresponsetypes": "report_batch_item_failures",
        "function_response_types": "report_batch_item_failures",
        "policies": "permissions", "policy": "permissions", "iam": "permissions",
        "role": "permissions", "statement": "statements",
    },
    notes={
        "runtime": "not needed: lambdafuzz imports the handler into the Python it runs on",
        "region": "not needed: the emulator is always us-east-1",
    },
)  # fmt: skip


# =========================================================================== env
ENV_NAME_EXPECTED = "an environment variable name (letters, digits, _; starting with a letter)"


def env_problem(name: str, value: str) -> str | None:
    """What `env: {name: value}` should have been, or None when it is fine: a variable
    name; never credentials, profiles, roles or credential providers; an endpoint or proxy
    URL only on loopback (a fuzzer must never reach a real account)."""
    if not _ENV_NAME.fullmatch(name):
        return ENV_NAME_EXPECTED
    if name in _CREDENTIAL_VARS or name.startswith(_CREDENTIAL_PREFIXES):
        return (
            f"no {name}: lambdafuzz gives the handler fake credentials and never forwards "
            f"real ones, profiles, roles or credential providers (a fuzzer must never reach "
            f"a real account)"
        )
    if (name.startswith(_ENDPOINT_PREFIX) or name.upper() in _PROXY_VARS) and not _on_loopback(
        value
    ):
        return (
            f"an http(s) URL on loopback for {name} (127.0.0.0/8, ::1 or localhost, e.g. "
            f"http://127.0.0.1:4566), written out: lambdafuzz only talks to emulators on "
            f"this machine"
        )
    return None


def _on_loopback(url: str) -> bool:
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not host or REFERENCE.search(url):
        return False
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return host in _LOOPBACK_NAMES or host.endswith(".localhost")


# =========================================================================== building
def _notifies_s3(kind: TriggerKind, source: str | None, body: str | None) -> bool:
    """Whether a trigger's events carry S3 notifications (which may name missing objects)."""
    if kind is TriggerKind.S3 or (kind is TriggerKind.EVENTBRIDGE and source is not None):
        return True
    return body in (BODY_S3_EVENT, BODY_EVENTBRIDGE_S3)


class _Builder:
    """Model -> dataclasses, with the checks that need more than one field."""

    def __init__(self, model: _ConfigModel, where: Locator, file: Path) -> None:
        self.m = model
        self.where = where
        self.file = file
        self.formats = tuple(FORMATS)

    def target(self) -> Target:
        m = self.m
        module, function = self._handler()
        root = self._root()
        self._check_handler_file(root, module, function)
        packages = (
            self._app_packages(root) if m.app_packages is not None else (module.split(".")[0],)
        )
        resources = self._resources()
        trigger = self._form_fields(self._trigger(resources), root, module)
        trigger = self._detail_reads(trigger, handler_file(root, module), function)
        explicit = self._explicit_body()
        env = self._env(resources)
        declared = resources
        resources = _with_code_configuration(resources, root, packages)
        invalid = m.outcomes.invalid
        overrides = OutcomeOverrides(
            invalid_exceptions=invalid is not None and "exceptions" in invalid.model_fields_set,
            invalid_status_codes=invalid is not None and "status_codes" in invalid.model_fields_set,
        )
        target = Target(
            config_path=self.file,
            handler_module=module,
            handler_function=function,
            root=root,
            app_packages=packages,
            trigger=trigger,
            env=FrozenMap(env),
            timeout_s=float(m.timeout_s),
            memory_mb=m.memory_mb,
            import_timeout_s=float(m.import_timeout_s),
            dictionary=tuple(dict.fromkeys(m.dictionary)),
            layers=self._layers(),
            file_systems=self._file_systems(),
            resources=resources,
            outcomes=self._outcomes(root),
            samples=self._samples(trigger, resources),
            permissions=self._permissions(declared),
            idempotency_accept=self._idempotency_accept(resources),
        )
        return apply_powertools(
            target, explicit=explicit, analyze=m.trigger.powertools, overrides=overrides
        )

    def _samples(self, trigger: Trigger, resources: Resources) -> tuple[SampleEvent, ...]:
        """The sample events that seed the campaign; a `constant` payload is the only one
        (the deployment sends nothing else, so other samples could not arrive)."""
        m = self.m
        if "constant" not in m.trigger.model_fields_set:
            paths = [self.file.parent / s for s in m.seeds]
            return read_samples(paths, trigger, resources=resources)
        if m.seeds:
            log.warning(
                "warning [sample-event]: %s: seeds %s ignored: the trigger's constant payload "
                "is the only event this function receives",
                self.file,
                ", ".join(m.seeds),
            )
        payload = json.dumps(m.trigger.constant, ensure_ascii=False)
        return (SampleEvent("constant", payload, fixed=True),)

    def _explicit_body(self) -> ExplicitBody | None:
        """`trigger.model` or `trigger.schema` (not both), the schema file checked."""
        t = self.m.trigger
        if t.model is not None and t.schema_ is not None:
            raise self.where.error(
                ("trigger", "schema"), t.schema_.path, "either trigger.model or trigger.schema"
            )
        if t.model is not None:
            where = self.where.where(("trigger", "model")) + ": trigger.model"
            envelope = Envelope(t.model.envelope) if t.model.envelope else None
            return ExplicitBody(where, envelope, module=t.model.module, name=t.model.name)
        if t.schema_ is not None:
            loc = ("trigger", "schema")
            path = (self.file.parent / t.schema_.path).resolve()
            if not path.is_file():
                raise self.where.error(
                    loc, t.schema_.path, f"a JSON Schema file relative to {self.file.parent}"
                )
            where = self.where.where(loc) + ": trigger.schema"
            envelope = Envelope(t.schema_.envelope) if t.schema_.envelope else None
            return ExplicitBody(where, envelope, path=path)
        return None

    # --- handler and root ----------------------------------------------------------
    def _handler(self) -> tuple[str, str]:
        spec = self.m.handler
        module, sep, function = spec.rpartition(":")
        if not sep:
            module, _, function = spec.rpartition(".")
        if not (module and _MODULE.fullmatch(module) and function.isidentifier()):
            raise self.where.error(
                ("handler",), spec, _DESCRIPTIONS["handler"] + " (e.g. app.handler.lambda_handler)"
            )
        return module, function

    def _root(self) -> Path:
        root = (self.file.parent / self.m.root).resolve()
        if not root.is_dir():
            raise self.where.error(
                ("root",), self.m.root, f"a directory relative to {self.file.parent}"
            )
        return root

    def _check_handler_file(self, root: Path, module: str, function: str) -> None:
        if handler_file(root, module) is not None:
            return
        parts = module.split(".")
        if not root.joinpath(parts[0]).exists() and not root.joinpath(parts[0] + ".py").exists():
            try:
                spec = importlib.util.find_spec(parts[0])
            except (ImportError, ValueError):
                spec = None
            # an installed module (the harness imports it); a bare directory somewhere on
            # sys.path (a namespace package, no origin) is not the handler's code
            if spec is not None and spec.origin not in (None, "namespace"):
                return
        modules = _modules_under(root)
        suggestion = nearest(module, modules)
        raise self.where.error(
            ("handler",),
            self.m.handler,
            f"a module importable from {root} (no {module.replace('.', '/')}.py there)",
            f"{suggestion}.{function}" if suggestion else None,
        )

    def _app_packages(self, root: Path) -> tuple[str, ...]:
        """Each package must be a directory or module below root or a layer (where the
        handler imports it from): coverage is measured there, and a package that is not
        there would silently measure nothing."""
        packages = tuple(self.m.app_packages or ())
        if not packages:  # `app_packages: []` would measure nothing the user named
            raise self.where.error(
                ("app_packages",),
                [],
                "at least one package or module of the application below "
                f"{root} (coverage is measured there), or no `app_packages` key at all "
                "to measure the handler's own package",
            )
        layers = self._layers()
        for i, package in enumerate(packages):
            if package_path(package, (root, *layers)) is not None:
                continue
            tops = sorted(
                {p.split(".")[0] for p in _modules_under(root)}
                | {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}
            )
            shown = package.replace(".", "/")
            raise self.where.error(
                ("app_packages", i),
                package,
                f"a package or module of the application below {root} "
                f"(neither {shown}/ nor {shown}.py is there)",
                nearest(package, tops),
            )
        return packages

    def _file_systems(self) -> tuple[FileSystemMount, ...]:
        """The file systems and their folder names (unique; by default the path's last
        part), each path once."""
        found: list[FileSystemMount] = []
        for i, entry in enumerate(self.m.file_systems):
            path = entry.path.rstrip("/")
            name = entry.name or path.rsplit("/", 1)[-1]
            if any(m.path == path or m.name == name for m in found):
                raise self.where.error(
                    ("file_systems", i), entry.path, "a path and name no other mount has"
                )
            found.append(FileSystemMount(name, path))
        return tuple(found)

    def _layers(self) -> tuple[Path, ...]:
        """Each layer directory as Lambda puts it on sys.path: its `python/` when it has
        one (the layer archive's layout, unpacked at /opt/python), else the directory."""
        found = []
        for i, entry in enumerate(self.m.layers):
            base = (self.file.parent / entry).resolve()
            if not base.is_dir():
                raise self.where.error(
                    ("layers", i), entry, f"a layer directory relative to {self.file.parent}"
                )
            found.append(base / "python" if (base / "python").is_dir() else base)
        return tuple(found)

    # --- resources ------------------------------------------------------------------
    def _resources(self) -> Resources:
        r = self.m.resources
        for kind in ("buckets", "tables", "queues", "topics", "secrets", "parameters"):
            seen: set[str] = set()
            for i, spec in enumerate(getattr(r, kind)):
                if spec.name in seen:
                    raise self.where.error(
                        ("resources", kind, i, "name"),
                        spec.name,
                        f"a name not used by another of {kind}",
                    )
                seen.add(spec.name)
        return Resources(
            buckets=tuple(self._bucket(i, b) for i, b in enumerate(r.buckets)),
            tables=tuple(self._table(i, t) for i, t in enumerate(r.tables)),
            queues=tuple(self._queue(i, q) for i, q in enumerate(r.queues)),
            topics=tuple(TopicSpec(t.name) for t in r.topics),
            secrets=tuple(self._secret(i, x) for i, x in enumerate(r.secrets)),
            parameters=tuple(ParameterSpec(p.name, p.value, p.type) for p in r.parameters),
        )

    def _secret(self, i: int, secret: _SecretModel) -> SecretSpec:
        """A secret whose generated key goes into its value needs a value that is a JSON
        object (the template), or none."""
        if secret.generate_key is not None and secret.value is not None:
            try:
                template = json.loads(secret.value)
            except ValueError:
                template = None
            if not isinstance(template, dict):
                raise self.where.error(
                    ("resources", "secrets", i, "value"),
                    secret.value,
                    "a JSON object (the template generate_key is added to), or no value",
                )
        return SecretSpec(secret.name, secret.value, secret.generate_key)

    def _bucket(self, i: int, b: _BucketModel) -> BucketSpec:
        if b.objects is None:
            return BucketSpec(b.name)
        loc = ("resources", "buckets", i, "objects")
        o = b.objects
        low, high = self._range(loc, o.min, o.max, 1, 3)
        for j, fmt in enumerate(o.formats):
            self._format((*loc, "formats", j), fmt)
        if not o.formats:
            raise self.where.error((*loc, "formats"), o.formats, "at least one file format")
        prefixes = tuple(o.prefixes)
        for j, prefix in enumerate(prefixes):
            if prefix.startswith("/") or len(prefix.encode()) > 900:
                raise self.where.error(
                    (*loc, "prefixes", j),
                    prefix,
                    "an S3 key prefix not starting with '/' (S3 keys have no "
                    "leading slash), at most 900 bytes",
                    prefix.lstrip("/") or None,
                )
        for j, suffix in enumerate(o.suffixes):
            if not suffix or len(suffix.encode()) > 100:
                raise self.where.error(
                    (*loc, "suffixes", j),
                    suffix,
                    "a non-empty S3 key suffix (such as .jpeg) of at most 100 bytes",
                )
        objects = ObjectsSpec(
            low, high, tuple(o.formats), prefixes, o.erroneous_p, tuple(dict.fromkeys(o.suffixes))
        )
        return BucketSpec(b.name, objects)

    def _table(self, i: int, t: _TableModel) -> TableSpec:
        loc = ("resources", "tables", i)
        if t.range_key is not None and t.range_key.name == t.hash_key.name:
            raise self.where.error(
                (*loc, "range_key", "name"),
                t.range_key.name,
                "a range key name different from the hash key's",
            )
        schema = _key_schema(t.hash_key, t.range_key)
        low, high = self._range((*loc, "items"), *_bounds(t.items), 0, 0)
        indexes = tuple(self._index((*loc, "indexes"), t, j) for j in range(len(t.indexes)))
        attributes = self._attributes((*loc, "attributes"), t)
        return TableSpec(t.name, schema, low, high, t.stream, indexes, attributes)

    def _attributes(self, loc: tuple[Any, ...], t: _TableModel) -> tuple[tuple[str, str], ...]:
        """`attributes`: each named once, no key attribute of the table (those are always
        there), an index key attribute with that key's type."""
        keys = {t.hash_key.name, *(k.name for k in (t.range_key,) if k is not None)}
        index_types = {
            key.name: key.type
            for x in t.indexes
            for key in (x.hash_key, x.range_key)
            if key is not None
        }
        found: dict[str, str] = {}
        for j, a in enumerate(t.attributes):
            if a.name in keys or a.name in found:
                raise self.where.error((*loc, j, "name"), a.name, "a non-key attribute listed once")
            if index_types.get(a.name, a.type) != a.type:
                raise self.where.error(
                    (*loc, j, "type"),
                    a.type,
                    f"{index_types[a.name]}, the type of index key attribute {a.name!r}",
                )
            found[a.name] = a.type
        return tuple(found.items())

    def _index(self, loc: tuple[Any, ...], t: _TableModel, j: int) -> SecondaryIndex:
        """An index as DynamoDB's CreateTable takes it: a name unique in the table, a key
        whose attributes have one type across the table, a local index on the table's hash
        key with its own range key, attributes listed only for an INCLUDE projection."""
        x, loc = t.indexes[j], (*loc, j)
        if x.name in (i.name for i in t.indexes[:j]):
            raise self.where.error((*loc, "name"), x.name, "an index name used once per table")
        if x.range_key is not None and x.range_key.name == x.hash_key.name:
            raise self.where.error(
                (*loc, "range_key", "name"), x.range_key.name, "a name other than the hash key's"
            )
        types = {t.hash_key.name: t.hash_key.type}
        if t.range_key is not None:
            types[t.range_key.name] = t.range_key.type
        for other in t.indexes:
            for key in (other.hash_key, other.range_key):
                if key is not None:
                    types.setdefault(key.name, key.type)
        for part, key in (("hash_key", x.hash_key), ("range_key", x.range_key)):
            if key is not None and types[key.name] != key.type:
                raise self.where.error(
                    (*loc, part, "type"),
                    key.type,
                    f"{types[key.name]}, the type attribute {key.name!r} has elsewhere in the "
                    "table (an attribute has one type)",
                )
        if x.local:
            if t.range_key is None:
                raise self.where.error(
                    (*loc, "local"),
                    x.local,
                    "a global index (local indexes need a table with a range key)",
                )
            if x.hash_key.name != t.hash_key.name or x.range_key is None:
                raise self.where.error(
                    (*loc, "hash_key", "name"),
                    x.hash_key.name,
                    f"the table's hash key {t.hash_key.name!r} and a range key of its own "
                    "(a local index partitions as its table does)",
                )
        count = sum(1 for i in t.indexes if i.local == x.local)
        if count > (5 if x.local else 20):
            kind = "local" if x.local else "global"
            raise self.where.error(
                (*loc, "name"), x.name, f"at most {5 if x.local else 20} {kind} indexes a table"
            )
        if x.non_key_attributes and x.projection != "INCLUDE":
            raise self.where.error(
                (*loc, "non_key_attributes"),
                x.non_key_attributes,
                "non_key_attributes only with projection INCLUDE",
            )
        if x.projection == "INCLUDE" and not x.non_key_attributes:
            raise self.where.error(
                (*loc, "non_key_attributes"),
                x.non_key_attributes,
                "the attributes an INCLUDE projection holds (at least one)",
            )
        schema = _key_schema(x.hash_key, x.range_key)
        return SecondaryIndex(
            x.name, schema, x.local, x.projection, tuple(dict.fromkeys(x.non_key_attributes))
        )

    def _queue(self, i: int, q: _QueueModel) -> QueueSpec:
        loc = ("resources", "queues", i)
        is_fifo_name = q.name.endswith(".fifo")
        if q.fifo is not None and q.fifo != is_fifo_name:
            expected = (
                "a name ending in .fifo for a FIFO queue"
                if q.fifo
                else "fifo: true, since the name ends in .fifo"
            )
            suggestion = q.name + ".fifo" if q.fifo else None
            raise self.where.error((*loc, "name"), q.name, expected, suggestion)
        low, high = self._range((*loc, "messages"), *_bounds(q.messages), 0, 0)
        return QueueSpec(q.name, low, high, is_fifo_name)

    def _range(
        self,
        loc: tuple[Any, ...],
        low: int | None,
        high: int | None,
        default_low: int,
        default_high: int,
    ) -> tuple[int, int]:
        low = default_low if low is None else low
        high = max(default_high, low) if high is None else high
        if low > high:
            raise self.where.error((*loc, "max"), high, f"max >= min ({low})")
        return low, high

    def _format(self, loc: tuple[Any, ...], fmt: str) -> None:
        if fmt not in self.formats:
            raise self.where.error(
                loc, fmt, "a file format: " + ", ".join(self.formats), nearest(fmt, self.formats)
            )

    # --- trigger ---------------------------------------------------------------------
    def _trigger(self, resources: Resources) -> Trigger:
        t = self.m.trigger
        kind = TriggerKind(t.kind)
        filters = trigger_filters(self.where, kind, t.filters)
        if kind is TriggerKind.EVENTBRIDGE and t.source is None and not admits_s3(filters):
            source = None  # the rule's pattern asks for custom events, not a bucket's
        else:
            source = self._source(kind, t.source, resources)
        if t.body is not None:
            self._body(kind, t.body, resources)
        if t.records is not None and kind not in _RECORD_KINDS:
            raise self.where.error(
                ("trigger", "records"),
                t.records.model_dump(exclude_none=True),
                f"no records for {kind} (one request per event); records "
                f"apply to " + ", ".join(_RECORD_KINDS),
            )
        low, high = self._range(("trigger", "records"), *_bounds(t.records), 1, 1)
        if low < 1:
            raise self.where.error(("trigger", "records", "min"), low, "at least 1 record")
        if t.missing_objects and not _notifies_s3(kind, source, t.body):
            raise self.where.error(
                ("trigger", "missing_objects"),
                t.missing_objects,
                "missing_objects only for S3 notifications: an s3 or eventbridge trigger "
                f"on a bucket, or an sqs/sns body of {BODY_S3_EVENT} or {BODY_EVENTBRIDGE_S3}",
            )
        if "constant" in t.model_fields_set and kind is not TriggerKind.DIRECT:
            raise self.where.error(
                ("trigger", "constant"),
                t.constant,
                "constant only for a direct trigger (the payload a rule or schedule always sends)",
            )
        if t.s3_events and kind is not TriggerKind.S3:
            raise self.where.error(
                ("trigger", "s3_events"),
                t.s3_events,
                "s3_events only for an s3 trigger (the bucket notification's event types)",
            )
        if t.keys and kind is not TriggerKind.DIRECT:
            raise self.where.error(
                ("trigger", "keys"), t.keys, "keys only for a direct trigger (its payload's keys)"
            )
        if t.asynchronous and kind is not TriggerKind.DIRECT:
            raise self.where.error(
                ("trigger", "asynchronous"),
                t.asynchronous,
                "asynchronous only for a direct trigger (the other event sources say how they "
                "invoke the function)",
            )
        if t.array and kind is not TriggerKind.DIRECT:
            raise self.where.error(
                ("trigger", "array"),
                t.array,
                "array only for a direct trigger (a payload that is a JSON array of objects)",
            )
        fmt, identity = self._authorizer(kind)
        if t.schema_version is not None and kind is not TriggerKind.S3_BATCH:
            raise self.where.error(
                ("trigger", "schema_version"),
                t.schema_version,
                "schema_version only for an s3-batch trigger (the job's InvocationSchemaVersion)",
            )
        if t.kinesis_stream is not None and kind is not TriggerKind.FIREHOSE:
            raise self.where.error(
                ("trigger", "kinesis_stream"),
                t.kinesis_stream,
                "kinesis_stream only for a firehose trigger (the stream its delivery stream reads)",
            )
        if t.report_batch_item_failures and kind not in _BATCH_RESPONSE_KINDS:
            raise self.where.error(
                ("trigger", "report_batch_item_failures"),
                t.report_batch_item_failures,
                "report_batch_item_failures only for an sqs, kinesis or dynamodb-stream "
                "trigger (Lambda reads batchItemFailures from no other event source)",
            )
        payloads = self._payloads(kind)
        return Trigger(
            kind,
            source,
            t.body,
            low,
            high,
            t.missing_objects,
            tuple(dict.fromkeys(t.keys)),
            event_array=t.array,
            filters=filters,
            s3_events=tuple(dict.fromkeys(t.s3_events)),
            authorizer_format=fmt,
            identity_sources=identity,
            kinesis_stream=t.kinesis_stream,
            payloads=payloads,
            payload_inputs=self._payload_inputs(payloads) if payloads else (),
            call_parameters=call_parameters(filters) if kind is TriggerKind.EVENTBRIDGE else (),
            batch_schemas=(t.schema_version,) if t.schema_version else (),
            report_batch_item_failures=t.report_batch_item_failures,
            asynchronous=t.asynchronous,
            **self._routes(kind),
        )

    def _payloads(self, kind: TriggerKind) -> tuple[str, ...]:
        """`payloads` (state machine tasks' payload templates) as JSON texts: a direct
        trigger's, and never beside `keys`, `array` or `constant`, which describe the payload
        too."""
        t = self.m.trigger
        if not t.payloads:
            return ()
        loc = ("trigger", "payloads")
        if kind is not TriggerKind.DIRECT:
            raise self.where.error(loc, t.payloads, "payloads only for a direct trigger")
        for other in ("keys", "array", "constant"):
            if other in t.model_fields_set:
                raise self.where.error(
                    loc, t.payloads, f"either trigger.payloads or trigger.{other}, not both"
                )
        texts = (json.dumps(p, ensure_ascii=False) for p in t.payloads)
        return tuple(dict.fromkeys(texts))

    def _payload_inputs(self, payloads: tuple[str, ...]) -> tuple[str, ...]:
        """`inputs` (what each payload's `$` can be) as JSON texts, one per payload
        (`payloads`: `_payloads`, each written once)."""
        t = self.m.trigger
        if not t.inputs:
            return ()
        if len(t.inputs) != len(t.payloads):
            raise self.where.error(
                ("trigger", "inputs"),
                t.inputs,
                f"one list of inputs per payload ({len(t.payloads)} payloads)",
            )
        pairs = dict.fromkeys(
            (json.dumps(p, ensure_ascii=False), json.dumps(i, ensure_ascii=False, sort_keys=True))
            for p, i in zip(t.payloads, t.inputs, strict=True)
        )
        if len(pairs) != len(payloads):
            raise self.where.error(
                ("trigger", "inputs"), t.inputs, "the same inputs for a payload written twice"
            )
        return tuple(i for _, i in pairs)

    def _authorizer(self, kind: TriggerKind) -> tuple[AuthorizerFormat | None, tuple[str, ...]]:
        """An authorizer's format (default token) and identity sources (a token
        authorizer's default: the Authorization header; it reads exactly one header)."""
        t = self.m.trigger
        for key, value in (("format", t.format), ("identity", t.identity)):
            if value and kind is not TriggerKind.AUTHORIZER:
                raise self.where.error(
                    ("trigger", key), value, f"{key} only for an authorizer trigger"
                )
        if kind is not TriggerKind.AUTHORIZER:
            return None, ()
        fmt = AuthorizerFormat(t.format or AuthorizerFormat.TOKEN)
        identity = tuple(dict.fromkeys(t.identity))
        if fmt is AuthorizerFormat.TOKEN:
            identity = identity or ("header.Authorization",)
            if len(identity) != 1 or not identity[0].startswith("header."):
                raise self.where.error(
                    ("trigger", "identity"),
                    list(identity),
                    "one header for a token authorizer (its token), e.g. [header.Authorization]",
                )
        return fmt, identity

    @staticmethod
    def _form_fields(trigger: Trigger, root: Path, module: str) -> Trigger:
        """Routes taking url-encoded forms get the field names the handler's module reads,
        unless the config names them."""
        if trigger.form_fields or not any(FORM_TYPE in r.content_types for r in trigger.routes):
            return trigger
        source = handler_file(root, module)
        fields = form_fields(source) if source is not None else ()
        return dataclasses.replace(trigger, form_fields=fields) if fields else trigger

    @staticmethod
    def _detail_reads(trigger: Trigger, source: Path | None, function: str) -> Trigger:
        """An EventBridge trigger's custom events get what the handler function reads below
        `detail` (their producer sends every field its consumers read)."""
        if trigger.kind is not TriggerKind.EVENTBRIDGE or trigger.source is not None:
            return trigger
        read = read_shape(source, function, "detail") if source is not None else None
        if read is None:
            return trigger
        return dataclasses.replace(
            trigger, detail_reads=read.shape_json, detail_compared=read.compared
        )

    def _routes(self, kind: TriggerKind) -> dict[str, Any]:
        """`routes`, `function_url`, `form_fields`: what an API trigger's requests are."""
        t = self.m.trigger
        api = kind in (TriggerKind.APIGATEWAY, TriggerKind.APIGATEWAY_V2)
        if kind is TriggerKind.WEBSOCKET:
            return self._route_keys()
        for key, value in (("routes", t.routes), ("form_fields", t.form_fields)):
            if value and not api:
                raise self.where.error(
                    ("trigger", key),
                    [r if isinstance(r, str) else r.model_dump() for r in t.routes]
                    if key == "routes"
                    else value,
                    f"{key} only for an apigateway, apigateway-v2 or websocket trigger",
                )
        if t.function_url and kind is not TriggerKind.APIGATEWAY_V2:
            raise self.where.error(
                ("trigger", "function_url"),
                t.function_url,
                "function_url only for an apigateway-v2 trigger (function URLs send payload 2.0)",
            )
        if t.function_url and t.routes:
            raise self.where.error(
                ("trigger", "routes"),
                [r.path for r in t.routes],
                "no routes with function_url (a function URL takes every path and method)",
            )
        seen: set[tuple[str, str]] = set()
        for i, route in enumerate(t.routes):
            if isinstance(route, str):
                raise self.where.error(
                    ("trigger", "routes", i),
                    route,
                    "a route {method, path} (route keys alone are for a websocket trigger)",
                )
            if route.path == "$default" and kind is not TriggerKind.APIGATEWAY_V2:
                raise self.where.error(
                    ("trigger", "routes", i, "path"),
                    route.path,
                    'a resource path starting with "/" ($default routes are HTTP API '
                    "routes: apigateway-v2)",
                )
            if (route.method, route.path) in seen:
                raise self.where.error(
                    ("trigger", "routes", i),
                    f"{route.method} {route.path}",
                    "each method and path once",
                )
            seen.add((route.method, route.path))
        routes = tuple(
            Route(
                r.method,
                r.path,
                tuple(dict.fromkeys(r.content_types)),
                tuple(dict.fromkeys(r.query)),
                tuple(dict.fromkeys(r.headers)),
                RouteAuth(r.auth),
            )
            for r in t.routes
            if not isinstance(r, str)
        )
        return {
            "routes": routes,
            "function_url": t.function_url,
            "form_fields": tuple(dict.fromkeys(t.form_fields)),
        }

    def _route_keys(self) -> dict[str, Any]:
        """A websocket trigger's `routes`: route keys (default: the three predefined)."""
        t = self.m.trigger
        for key in ("form_fields", "function_url"):
            if getattr(t, key):
                raise self.where.error(
                    ("trigger", key), getattr(t, key), f"no {key} for a websocket trigger"
                )
        keys: list[str] = []
        for i, route in enumerate(t.routes):
            if not isinstance(route, str):
                raise self.where.error(
                    ("trigger", "routes", i),
                    route.model_dump(),
                    "a route key such as $connect or sendmessage (a websocket route)",
                )
            keys.append(route)
        return {"route_keys": tuple(dict.fromkeys(keys)) or ("$connect", "$disconnect", "$default")}

    def _source(self, kind: TriggerKind, source: str | None, r: Resources) -> str | None:
        loc = ("trigger", "source")
        if kind in _UNEMULATED_SOURCES:  # not emulated: only the name is checked
            what, alphabet, longest = _UNEMULATED_SOURCES[kind]
            if source is not None and not re.fullmatch(rf"[{alphabet}]{{1,{longest}}}", source):
                raise self.where.error(loc, source, f"a {what} name ([{alphabet}], 1-{longest})")
            return source
        if kind in (
            TriggerKind.APIGATEWAY,
            TriggerKind.APIGATEWAY_V2,
            TriggerKind.DIRECT,
            TriggerKind.AUTHORIZER,
            TriggerKind.WEBSOCKET,
        ):
            if source is not None:
                raise self.where.error(
                    loc, source, f"no source for {kind} (requests come from its callers)"
                )
            return None
        pools = {
            TriggerKind.S3: ("buckets", [b.name for b in r.buckets if b.objects]),
            TriggerKind.S3_BATCH: ("buckets", [b.name for b in r.buckets if b.objects]),
            TriggerKind.EVENTBRIDGE: ("buckets", [b.name for b in r.buckets if b.objects]),
            TriggerKind.SQS: ("queues", [q.name for q in r.queues]),
            TriggerKind.SNS: ("topics", [t.name for t in r.topics]),
            TriggerKind.DYNAMODB_STREAM: ("tables", [t.name for t in r.tables if t.stream]),
        }
        pool_name, names = pools[kind]
        all_names = [s.name for s in getattr(r, pool_name)]
        if source is None:
            if names or kind is TriggerKind.EVENTBRIDGE:
                return names[0] if names else None
            raise self.where.error(("trigger",), kind.value, self._needs(kind, pool_name))
        if source in names:
            return source
        if source in all_names:
            raise self.where.error(loc, source, self._needs(kind, pool_name))
        raise self.where.error(
            loc,
            source,
            f"the name of one of resources.{pool_name} ({', '.join(all_names) or 'none declared'})",
            nearest(source, all_names),
        )

    @staticmethod
    def _needs(kind: TriggerKind, pool: str) -> str:
        return {
            TriggerKind.S3: "a bucket under resources.buckets with `objects: {min, max, formats}`"
            " (a bucket without objects is an output bucket and never emits events)",
            TriggerKind.S3_BATCH: "a bucket under resources.buckets with `objects: {min, max, "
            "formats}` (the objects the batch job's tasks name)",
            TriggerKind.EVENTBRIDGE: "a bucket with `objects` under resources.buckets",
            TriggerKind.SQS: "a queue under resources.queues",
            TriggerKind.SNS: "a topic under resources.topics",
            TriggerKind.DYNAMODB_STREAM: "a table under resources.tables with "
            "`stream: NEW_AND_OLD_IMAGES` (or another stream view type)",
        }[kind]

    def _body(self, kind: TriggerKind, body: str, r: Resources) -> None:
        loc = ("trigger", "body")
        if kind not in _BODY_KINDS:
            raise self.where.error(
                loc, body, f"no body for {kind}; bodies apply to " + ", ".join(_BODY_KINDS)
            )
        notes = (BODY_S3_EVENT, BODY_EVENTBRIDGE_S3)
        if body == BODY_JSON_OBJECT:  # a payload of a stream or broker: a JSON object always
            if kind not in _PAYLOAD_KINDS:
                payloads = ", ".join(_PAYLOAD_KINDS)
                raise self.where.error(
                    loc, body, f"a file format for {kind} ({body} is for {payloads})"
                )
            return
        if body in notes:
            if kind not in (TriggerKind.SQS, TriggerKind.SNS):
                raise self.where.error(
                    loc, body, f"a file format for {kind} ({body} is for sqs/sns)"
                )
            if not any(b.objects for b in r.buckets):
                raise self.where.error(
                    loc,
                    body,
                    "a bucket with `objects` under resources.buckets "
                    "for the S3 notification to describe",
                )
            return
        options = (
            (*self.formats, *notes) if kind in (TriggerKind.SQS, TriggerKind.SNS) else self.formats
        )
        if kind in _PAYLOAD_KINDS:
            options = (*options, BODY_JSON_OBJECT)
        if body not in options:
            raise self.where.error(
                loc,
                body,
                "a file format or s3-event / eventbridge-s3: " + ", ".join(options),
                nearest(body, options),
            )

    # --- env ---------------------------------------------------------------------------
    def _env(self, r: Resources) -> dict[str, str]:
        env: dict[str, str] = {}
        for name, raw in self.m.env.items():
            loc = ("env", name)
            value = raw if isinstance(raw, str) else repr(raw)
            problem = env_problem(name, value)
            if problem is not None:
                raise self.where.error(loc, name if problem == ENV_NAME_EXPECTED else raw, problem)
            for ref in REFERENCE.findall(value):
                self._reference(loc, value, ref, r)
            env[name] = value
        return env

    def _reference(self, loc: tuple[Any, ...], value: str, ref: str, r: Resources) -> None:
        kinds = list(REFERENCE_ATTRIBUTES)
        kind, _, rest = ref.partition(".")
        name, _, attribute = rest.rpartition(".")
        expected = "a reference ${kind.name.attribute} with kind one of " + ", ".join(kinds)
        if kind not in REFERENCE_ATTRIBUTES or not name:
            fixed = nearest(kind, kinds)
            raise self.where.error(
                loc, value, expected, f"${{{fixed}.{rest}}}" if fixed and name else None
            )
        names = [s.name for s in getattr(r, kind)]
        if name not in names:
            fixed = nearest(name, names)
            raise self.where.error(
                loc,
                value,
                f"a declared resource in ${{{kind}.NAME.{attribute}}}: "
                f"one of {', '.join(names) or f'(no {kind} declared)'}",
                f"${{{kind}.{fixed}.{attribute}}}" if fixed else None,
            )
        attributes = REFERENCE_ATTRIBUTES[kind]
        if attribute not in attributes:
            fixed = nearest(attribute, attributes)
            raise self.where.error(
                loc,
                value,
                f"an attribute of {kind}: " + ", ".join(attributes),
                f"${{{kind}.{name}.{fixed}}}" if fixed else None,
            )
        if attribute == "stream_arn" and not r.table(name).stream:
            raise self.where.error(
                loc,
                value,
                f"a table with a stream (add `stream: NEW_AND_OLD_IMAGES` to table {name!r})",
            )

    # --- permissions ------------------------------------------------------------------
    def _permissions(self, r: Resources) -> Policy | None:
        """`permissions:`: each statement as IAM reads it, its `${kind.name.attribute}`
        resource references naming declared resources (IAM policy variables such as
        `${aws:username}` are left alone)."""
        p = self.m.permissions
        if p is None:
            return None
        base: tuple[Any, ...] = ("permissions", *p._at)
        statements = []
        for i, raw in enumerate(p.statements):
            loc = (*base, i)
            sid = raw.get("Sid") if isinstance(raw, dict) else None
            try:
                statement = statement_from_json(raw, "" if sid else dotpath(loc))
            except ValueError as exc:
                raise self.where.error(loc, raw, f"an IAM statement: {exc}") from None
            for pattern in (*statement.resources, *statement.not_resources):
                for ref in REFERENCE.findall(pattern):
                    if not is_policy_variable(ref):
                        self._reference(loc, pattern, ref, r)
            statements.append(statement)
        return Policy.of(statements, p.unknown)

    # --- idempotency ------------------------------------------------------------------
    def _idempotency_accept(self, r: Resources) -> tuple[str, ...]:
        """`idempotency.accept`: each `kind.name` (`model.redelivery.ResourceKind`), a
        declared bucket, table, queue or topic, or `kind.*`."""
        kinds = [k.value for k in ResourceKind]
        declared = ("buckets", "tables", "queues", "topics")
        for i, entry in enumerate(self.m.idempotency.accept):
            loc = ("idempotency", "accept", i)
            kind, _, name = entry.partition(".")
            if kind not in kinds or not name:
                fixed = nearest(kind, kinds)
                raise self.where.error(
                    loc,
                    entry,
                    "kind.name with kind one of " + ", ".join(kinds),
                    f"{fixed}.{name}" if fixed and name else None,
                )
            names = [s.name for s in getattr(r, kind)] if kind in declared else None
            if names is not None and name != "*" and name not in names:
                fixed = nearest(name, names)
                raise self.where.error(
                    loc,
                    entry,
                    f"a declared resource in {kind}.NAME (or {kind}.*): one of "
                    f"{', '.join(names) or f'(no {kind} declared)'}",
                    f"{kind}.{fixed}" if fixed else None,
                )
        return tuple(dict.fromkeys(self.m.idempotency.accept))

    # --- outcomes ---------------------------------------------------------------------
    def _outcomes(self, root: Path) -> OutcomeRules:
        o = self.m.outcomes
        if o.status_from not in (*STATUS_KEYS, "return"):
            self._check_status_key(root, o.status_from)
        invalid = o.invalid or _OutcomeModel()
        failure = o.failure or _OutcomeModel()
        return OutcomeRules(
            invalid_exceptions=tuple(invalid.exceptions),
            invalid_status_codes=tuple(invalid.status_codes),
            failure_exceptions=tuple(failure.exceptions),
            failure_status_codes=tuple(failure.status_codes),
            status_from=o.status_from,
        )

    def _check_status_key(self, root: Path, key: str) -> None:
        """A status key no usual response uses and the handler never writes is most
        likely a misspelling: it would silently never match, so say so (a warning: the
        handler may build the key at run time)."""
        literals = (f'"{key}"', f"'{key}'")
        for path in _walk_py(root, 2_000):
            try:  # regular files only (a FIFO named x.py would block), at most 2 MB each
                if not path.is_file() or path.stat().st_size > 2_000_000:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if any(literal in text for literal in literals):
                return
        close = nearest(key, STATUS_KEYS)
        log.warning(
            "warning [config]: %s: outcomes.status_from is %r, which no usual response uses "
            "(%s) and no module under %s spells out; status codes are read only from "
            "returned mappings with exactly this key.%s",
            self.where.where(("outcomes", "status_from")),
            key,
            ", ".join(STATUS_KEYS),
            root,
            f" Did you mean {close!r}?" if close else "",
        )


def _key_schema(hash_key: _KeyModel, range_key: _KeyModel | None) -> KeySchema:
    """The key schema a table's or an index's `hash_key`/`range_key` describe."""
    return KeySchema(
        hash_name=hash_key.name,
        hash_type=hash_key.type,
        range_name=range_key.name if range_key else None,
        range_type=range_key.type if range_key else None,
    )


def _bounds(r: _Range | None) -> tuple[int | None, int | None]:
    return (None, None) if r is None else (r.min, r.max)


def _modules_under(root: Path, limit: int = 2_000) -> list[str]:
    """Dotted names of the Python modules below `root` (for "did you mean")."""
    found: list[str] = []
    for path in _walk_py(root, limit):
        rel = path.relative_to(root).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        if parts:
            found.append(".".join(parts))
    return found


def _walk_py(root: Path, limit: int) -> Iterator[Path]:
    count = 0
    for path in sorted(root.rglob("*.py")):
        if any(p.startswith(".") or p in ("node_modules", "__pycache__") for p in path.parts):
            continue
        count += 1
        if count > limit:
            return
        yield path


def _with_code_configuration(
    resources: Resources, root: Path, packages: Sequence[str]
) -> Resources:
    """The declared resources and the secrets and parameters the code reads by a name
    nobody declared (`code_configuration`): those are drawn whole for every test; and
    the services whose resources the code creates (`Resources.created_by_code`)."""
    found = code_configuration(root, packages)
    if found.creates:
        resources = dataclasses.replace(resources, created_by_code=found.creates)
    secrets = {s.name for s in resources.secrets}
    parameters = {p.name for p in resources.parameters}
    more_secrets = tuple(
        SecretSpec(name, described=False) for name in found.secrets if name not in secrets
    )
    more_parameters = tuple(
        ParameterSpec(name) for name in found.parameters if name not in parameters
    )
    if not more_secrets and not more_parameters:
        return resources
    return dataclasses.replace(
        resources,
        secrets=resources.secrets + more_secrets,
        parameters=resources.parameters + more_parameters,
    )


def target_from_dict(data: dict[str, Any], source: Path, where: Locator | None = None) -> Target:
    """Validate a mapping shaped like lambdafuzz.yaml that was built, not read (from a SAM
    template by `lambdafuzz.config.sam`); `source` is the file it came from and the base of `root`.
    Errors name `source` without a line (the mapping has no YAML nodes), unless `where` says
    where its keys were written (`config.overlay`)."""
    file = Path(source).resolve()
    where = where or Locator(file, None)
    try:
        model = _ConfigModel.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, where, _ConfigModel, _DESCRIPTIONS, _HINTS) from None
    return _Builder(model, where, file).target()


def config_keys() -> tuple[str, ...]:
    """The top-level keys of a lambdafuzz.yaml."""
    return tuple(_ConfigModel.model_fields)


def config_model() -> type[BaseModel]:
    """The model a lambdafuzz.yaml is validated with: what the documentation's
    configuration reference is generated from (every key, type, default, description)."""
    return _ConfigModel
