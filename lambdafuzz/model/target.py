"""The validated description of a handler under test: what `config.load_config` returns.

Plain frozen dataclasses, importable without pydantic or YAML, so generators, harness and
fuzzer depend on the facts and not on how they were read.  `resolve_env` turns the raw
`${queues.jobs.url}` references of `Target.env` into values once a backend has loaded a
world (the URLs and ARNs are facts only the emulator knows).
"""

from __future__ import annotations

import enum
import os
import re
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from lambdafuzz.model.permissions import Policy
from lambdafuzz.model.world import KeySchema, LoadedWorld, SecondaryIndex


class TriggerKind(enum.StrEnum):
    S3 = "s3"
    SQS = "sqs"
    SNS = "sns"
    DYNAMODB_STREAM = "dynamodb-stream"
    APIGATEWAY = "apigateway"
    APIGATEWAY_V2 = "apigateway-v2"
    EVENTBRIDGE = "eventbridge"
    KINESIS = "kinesis"  # records of a Kinesis data stream (its name: `source`)
    SCHEDULE = "schedule"  # an EventBridge rule's "Scheduled Event" (the rule's name: `source`)
    DIRECT = "direct"  # invoked with a JSON payload: the SDK, Step Functions, another function
    MSK = "msk"  # records of an Amazon MSK topic (the topic: `source`)
    KAFKA = "kafka"  # records of a self-managed Apache Kafka topic (the topic: `source`)
    ACTIVEMQ = "activemq"  # messages of an Amazon MQ ActiveMQ queue (the queue: `source`)
    RABBITMQ = "rabbitmq"  # messages of an Amazon MQ RabbitMQ queue (the queue: `source`)
    AUTHORIZER = "authorizer"  # an API Gateway Lambda authorizer's requests (`AuthorizerFormat`)
    FIREHOSE = (
        "firehose"  # a Firehose delivery stream's transformation batches (its name: `source`)
    )
    S3_BATCH = "s3-batch"  # an S3 Batch Operations job's tasks on objects of `source`
    WEBSOCKET = "websocket"  # an API Gateway WebSocket API's route (`Trigger.route_keys`)


class AuthorizerFormat(enum.StrEnum):
    """The event an API Gateway Lambda authorizer receives."""

    TOKEN = "token"  # REST API TOKEN authorizer: {type: TOKEN, authorizationToken, methodArn}
    REQUEST = "request"  # REST API REQUEST authorizer: the request's headers, query, ...
    V1 = "v1"  # HTTP API, payload format 1.0: as REQUEST, with version and identitySource
    V2 = "v2"  # HTTP API, payload format 2.0: {version: "2.0", type: REQUEST, routeArn, ...}


#: Where an authorizer's identity source is read from: `header.Authorization`,
#: `query.token`, `stage.name` (a stage variable), `context.name` (the request context).
IDENTITY_PLACES = ("header", "query", "stage", "context")


#: `trigger.body` values that are not file formats: a message carrying an S3 notification.
BODY_S3_EVENT = "s3-event"
BODY_EVENTBRIDGE_S3 = "eventbridge-s3"
#: A stream or broker `trigger.body`: every payload a JSON object (what an API Gateway
#: integration sending `$input.json('$')` writes), never the default mix's text or bytes.
BODY_JSON_OBJECT = "json-object"
STREAM_VIEW_TYPES = ("NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY")
KEY_TYPES = ("S", "N", "B")
#: Every DynamoDB attribute type (`TableSpec.attributes`).
ATTRIBUTE_TYPES = ("S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS")
#: What each resource kind can be referenced as in `env`: `${queues.jobs.url}`.
REFERENCE_ATTRIBUTES: Mapping[str, tuple[str, ...]] = types.MappingProxyType(
    {
        "buckets": ("name", "arn"),
        "tables": ("name", "arn", "stream_arn"),
        "queues": ("url", "arn", "name"),
        "topics": ("arn", "name"),
        "secrets": ("arn", "name"),
        "parameters": ("name",),
    }
)


class FrozenMap(Mapping[str, str]):
    """An immutable, hashable mapping that pickles (targets travel to worker processes,
    and `types.MappingProxyType` cannot be pickled)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, str] | None = None) -> None:
        self._data = dict(data or {})

    def __getitem__(self, key: str) -> str:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


#: `${kind.name.attribute}` inside an env value.
REFERENCE = re.compile(r"\$\{([^}]*)\}")


class RouteAuth(enum.StrEnum):
    """The authorizer in front of an API route: what API Gateway adds to every request's
    `requestContext` (`generators.aws.route_auth`)."""

    NONE = "none"
    COGNITO = "cognito"  # a Cognito user pool (REST): authorizer.claims
    LAMBDA = "lambda"  # a Lambda authorizer: authorizer.principalId / authorizer.lambda
    IAM = "iam"  # AWS_IAM (SigV4): the caller's identity / authorizer.iam
    JWT = "jwt"  # an HTTP API JWT authorizer: authorizer.jwt.claims and scopes


@dataclass(slots=True, frozen=True)
class Route:
    """One API route the deployment sends to the handler, as its template declares it."""

    method: str  # GET, POST, ... or ANY
    path: str  # the resource template: "/orders/{id}", "/files/{proxy+}"; "$default"
    content_types: tuple[str, ...] = ()  # request bodies it takes; (): the generator's mix
    query: tuple[str, ...] = ()  # query string parameters it requires: in every request
    headers: tuple[str, ...] = ()  # headers it requires: in every request
    auth: RouteAuth = RouteAuth.NONE  # the authorizer every request passed


class Envelope(enum.StrEnum):
    """Where in the event a parsed body sits (the Powertools envelope that unwraps it)."""

    SQS = "sqs"  # each SQS record's body is the JSON of a model instance
    SNS = "sns"  # each SNS record's Message
    SNS_SQS = "sns-sqs"  # each SQS record's body is an SNS notification whose Message is it
    EVENTBRIDGE = "eventbridge"  # the event's detail
    APIGATEWAY = "apigateway"  # the request body (REST API payload 1.0)
    APIGATEWAY_V2 = "apigateway-v2"  # the request body (HTTP API payload 2.0)
    KINESIS = "kinesis"  # each Kinesis record's (base64) data


@dataclass(slots=True, frozen=True)
class BodyModel:
    """The JSON body a handler's parser or validator admits (a pydantic model's JSON Schema,
    or a validator's schema), and where the event carries it.  The schema travels as text so
    the target stays hashable and every process generates the same bodies from it."""

    name: str  # what it is, for messages: "orders.models.Order", "schemas/order.json"
    envelope: Envelope | None  # None: the body is the whole event (or an API request's body)
    schema_json: str  # the JSON Schema, compact JSON text


@dataclass(slots=True, frozen=True)
class CallParameters:
    """The `requestParameters` of an API call a CloudTrail rule names, as JSON Schemas of
    CloudTrail's two layouts (`config.api_call_shapes`)."""

    event_source: str  # "ec2.amazonaws.com"
    event_name: str  # "AdvertiseByoipCidr"
    input_shape: str  # "AdvertiseByoipCidrRequest": the wrapping object's name
    schema_json: str  # members at the top level, lowerCamel names
    wrapped_json: str  # the members as the API names them, wrapped in `input_shape`


@dataclass(slots=True, frozen=True)
class Trigger:
    kind: TriggerKind
    source: str | None  # bucket / queue / topic / table emitting the events; None: no resource
    body: str | None = None  # a file format, BODY_S3_EVENT or BODY_EVENTBRIDGE_S3; None: default
    records_min: int = 1
    records_max: int = 1
    # S3 notifications may name an object that is not in the bucket (deleted before the
    # notification arrived); off: every notification names an object of the world
    missing_objects: bool = False
    # `direct` only: top-level keys of the payload the handler reads: each payload has
    # them, except `key?` ones (looked for, never subscripted), present half the time
    event_keys: tuple[str, ...] = ()
    # `direct` only: the payload is a JSON array of objects (the handler iterates it: a
    # Step Functions Map's results, a caller's batch); `event_keys` are its items' keys
    event_array: bool = False
    # apigateway / apigateway-v2: the routes that reach the handler; (): any path and method
    routes: tuple[Route, ...] = ()
    # apigateway-v2: requests to the function's URL (any path and method, routeKey $default)
    function_url: bool = False
    # form fields (application/x-www-form-urlencoded bodies) the handler reads
    form_fields: tuple[str, ...] = ()
    # eventbridge: what the handler reads below `detail` (`config.event_keys.read_shape`,
    # a `json_files` shape as JSON text); None: nothing, or the config says the detail
    detail_reads: str | None = None
    # ... and the constants it compares those fields with (path below `detail` -> values)
    detail_compared: tuple[tuple[tuple[str, ...], tuple[str | int | float, ...]], ...] = ()
    # event filter patterns (JSON text, the syntax of Lambda FilterCriteria and EventBridge
    # rule patterns): an event, or a record of a batch, is delivered when one matches
    filters: tuple[str, ...] = ()
    # the body a Powertools parser / validator admits (or `trigger.model` / `trigger.schema`
    # of the config): generated from its JSON Schema; None: the trigger's usual bodies
    body_model: BodyModel | None = None
    # s3 only: the event types the bucket notification sends (`s3:ObjectCreated:*`,
    # `s3:ObjectRemoved:Delete`, ...); (): creations only, which is what lambdafuzz assumed
    # before the setting existed.  Removals are generated only when they are listed.
    s3_events: tuple[str, ...] = ()
    # authorizer only: which event, and the identity sources every request carries
    # (`place.name`, IDENTITY_PLACES): API Gateway calls no authorizer without them
    authorizer_format: AuthorizerFormat | None = None
    identity_sources: tuple[str, ...] = ()
    # firehose only: the Kinesis data stream the delivery stream reads (None: Direct PUT);
    # its batches then carry `sourceKinesisStreamArn` and each record's shard metadata
    kinesis_stream: str | None = None
    # direct only: the payload templates of the state machine tasks invoking the function
    # (JSON text, Step Functions' syntax: `key.$` holds a JSONPath such as `$$.Task.Token`
    # or `$.order`, other keys constants); each payload is one of them, evaluated
    payloads: tuple[str, ...] = ()
    # direct only, beside `payloads`: per payload, what its `$` can be (JSON text of a list
    # of `config.state_machine_inputs` inputs: a rule's event, a schedule's, a constant);
    # (), or "[]" for one payload: any JSON object, as the definition does not say
    payload_inputs: tuple[str, ...] = ()
    # eventbridge only: the request parameters of the API calls its CloudTrail rule names
    call_parameters: tuple[CallParameters, ...] = ()
    # websocket only: the route keys that reach the handler ($connect, $disconnect,
    # $default, or an action the route selection expression picks)
    route_keys: tuple[str, ...] = ()
    # s3-batch only: the job's invocation schema versions ("1.0", "2.0"); (): either
    batch_schemas: tuple[str, ...] = ()
    # sqs, kinesis and dynamodb-stream only: the event source mapping's
    # FunctionResponseTypes holds ReportBatchItemFailures, so Lambda reads the function's
    # `batchItemFailures` (`fuzzer.batch_response`); off: Lambda ignores what it returns
    report_batch_item_failures: bool = False
    # direct only: the function is invoked asynchronously (InvocationType Event, an
    # EventInvokeConfig or DeadLetterQueue in the template), so Lambda may deliver an
    # event more than once (its retries)
    asynchronous: bool = False


@dataclass(slots=True, frozen=True)
class ObjectsSpec:
    min: int
    max: int
    formats: tuple[str, ...]
    prefixes: tuple[str, ...] = ()
    erroneous_p: float = 0.003
    # key endings (an S3 notification's suffix filter): each key ends with one, in place
    # of the file's own extension; (): the extension
    suffixes: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class BucketSpec:
    name: str
    objects: ObjectsSpec | None = None  # None: an output bucket, created empty


@dataclass(slots=True, frozen=True)
class TableSpec:
    name: str
    key_schema: KeySchema
    items_min: int = 0
    items_max: int = 0
    stream: str | None = None  # StreamViewType
    indexes: tuple[SecondaryIndex, ...] = ()  # global and local secondary indexes
    # non-key attributes every item holds, (name, DynamoDB type): what the table's only
    # writers always set (`config.integrations`); (): nothing known beyond the key
    attributes: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True, frozen=True)
class QueueSpec:
    name: str
    messages_min: int = 0
    messages_max: int = 0
    fifo: bool = False


@dataclass(slots=True, frozen=True)
class TopicSpec:
    name: str


@dataclass(slots=True, frozen=True)
class SecretSpec:
    """A Secrets Manager secret the deployment creates.

    `value` is its `SecretString` when the deployment fixes it; `generate_key` is the key
    of a JSON object (`value`, the template, or `{}`) whose value Secrets Manager
    generates (CloudFormation's `GenerateSecretString`). With neither, the whole string is
    generated. Generated parts are drawn, so every test may see another one."""

    name: str
    value: str | None = None
    generate_key: str | None = None
    # False for a secret only the code names (`config.code_configuration`): nothing says
    # whether it holds one string or a JSON object, so both are drawn
    described: bool = True


@dataclass(slots=True, frozen=True)
class ParameterSpec:
    """An SSM parameter the deployment creates; `value` None: drawn for every test."""

    name: str
    value: str | None = None
    type: str = "String"  # String | StringList | SecureString


#: The types an SSM parameter can have.
PARAMETER_TYPES = ("String", "StringList", "SecureString")


@dataclass(slots=True, frozen=True)
class Resources:
    buckets: tuple[BucketSpec, ...] = ()
    tables: tuple[TableSpec, ...] = ()
    queues: tuple[QueueSpec, ...] = ()
    topics: tuple[TopicSpec, ...] = ()
    secrets: tuple[SecretSpec, ...] = ()
    parameters: tuple[ParameterSpec, ...] = ()
    # the services whose resources the application's code creates itself (`s3`,
    # `dynamodb`, `sqs`, `sns`: a `create_table` call): such a declared resource may be
    # not there yet in a world (`World.exists`); others always are, as deployed
    created_by_code: tuple[str, ...] = ()

    def bucket(self, name: str) -> BucketSpec:
        return next(b for b in self.buckets if b.name == name)

    def table(self, name: str) -> TableSpec:
        return next(t for t in self.tables if t.name == name)

    def queue(self, name: str) -> QueueSpec:
        return next(q for q in self.queues if q.name == name)


@dataclass(slots=True, frozen=True)
class OutcomeRules:
    invalid_exceptions: tuple[str, ...] = ()
    invalid_status_codes: tuple[int, ...] = ()
    failure_exceptions: tuple[str, ...] = ()
    failure_status_codes: tuple[int, ...] = ()
    status_from: str = "statusCode"  # a key of a returned dict, or "return" for a bare int


@dataclass(slots=True, frozen=True)
class FileSystemMount:
    """A file system the function mounts (`FileSystemConfigs`: an EFS access point at
    `LocalMountPath`).  The worker mounts a folder of the campaign's out dir there
    (`OUT/efs/<name>/`), the same for every test of the campaign."""

    name: str  # the folder's name: the access point's logical id or the path's last part
    path: str  # absolute, where the handler finds it: "/mnt/efs"


@dataclass(slots=True, frozen=True)
class SampleEvent:
    """A sample event of the project (`events/*.json`, `sam local generate-event` output):
    a seed the generators reproduce exactly and mutation perturbs leaf by leaf."""

    name: str  # the file's stem: the seed's corpus name is `seed-event-<name>`
    payload_json: str  # the event as JSON text (targets are immutable and hashable)
    # the deployment always sends exactly this (a rule's or schedule's constant `Input`):
    # mutation never changes it, only the world varies
    fixed: bool = False


@dataclass(slots=True, frozen=True)
class Target:
    """Everything lambdafuzz knows about the handler under test and its AWS surroundings."""

    config_path: Path
    handler_module: str
    handler_function: str
    root: Path  # absolute; goes on sys.path
    app_packages: tuple[str, ...]
    trigger: Trigger
    env: Mapping[str, str]  # raw: `${queues.jobs.url}` references unresolved (resolve_env)
    timeout_s: float = 3.0
    memory_mb: int = 512
    import_timeout_s: float = 30.0  # how long the handler module's import may take
    dictionary: tuple[str, ...] = ()
    # absolute; on sys.path after `root`, in order, as Lambda puts layers' /opt/python
    layers: tuple[Path, ...] = ()
    resources: Resources = Resources()
    outcomes: OutcomeRules = OutcomeRules()
    # the project's sample events that fit the trigger: the campaign's first inputs
    samples: tuple[SampleEvent, ...] = ()
    # file systems mounted into the function (EFS), each at its path in the worker
    file_systems: tuple[FileSystemMount, ...] = ()
    # the function's IAM statements (`permissions:`, or its template's role): every AWS
    # call is checked against them; resources raw, `${tables.orders.arn}` unresolved
    # (resolve_policy). None: the permission check is off
    permissions: Policy | None = None
    # the resources whose duplicates the team accepts (`idempotency: {accept: [...]}`:
    # `tables.audit_log`, `queues.*`): a second delivery's changes there are no finding
    # (`model.redelivery_judgement`)
    idempotency_accept: tuple[str, ...] = ()

    @property
    def handler(self) -> str:
        return f"{self.handler_module}.{self.handler_function}"


def handler_path(target: Target) -> Path:
    """The file of the handler's module: `<root>/<a>/<b>.py`, or its package's
    `__init__.py` (which need not exist: a caller checks)."""
    module = target.root.joinpath(*target.handler_module.split("."))
    path = module.with_suffix(".py")
    return path if path.is_file() else module / "__init__.py"


def definition_line(path: Path, name: str) -> int | None:
    """The line of `def name` (or `async def`) in `path`; None when it is not there or
    the file cannot be read."""
    defining = re.compile(rf"\s*(async\s+)?def\s+{re.escape(name)}\b")
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return next((n for n, text in enumerate(lines, 1) if defining.match(text)), None)


def resolve_env(target: Target, loaded: LoadedWorld) -> dict[str, str]:
    """The handler's environment: `${kind.name.attribute}` replaced by the loaded facts."""

    def substitute(match: re.Match[str]) -> str:
        kind, _, rest = match.group(1).partition(".")
        name, _, attribute = rest.rpartition(".")
        return reference_value(loaded, kind, name, attribute)

    return {name: REFERENCE.sub(substitute, value) for name, value in target.env.items()}


def resolve_policy(target: Target, loaded: LoadedWorld) -> Policy | None:
    """The function's policy with `${kind.name.attribute}` in resource patterns replaced
    by the loaded facts (as `resolve_env` does); an IAM policy variable (`${aws:username}`,
    `${*}`) becomes `*`, which allows at least what it would."""

    def substitute(match: re.Match[str]) -> str:
        if is_policy_variable(match.group(1)):
            return "*"
        kind, _, rest = match.group(1).partition(".")
        name, _, attribute = rest.rpartition(".")
        return reference_value(loaded, kind, name, attribute)

    def patterns(values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(REFERENCE.sub(substitute, v) if "${" in v else v for v in values)

    policy = target.permissions
    if policy is None:
        return None
    statements = tuple(
        replace(s, resources=patterns(s.resources), not_resources=patterns(s.not_resources))
        for s in policy.statements
    )
    return Policy(statements, policy.unknown)


def is_policy_variable(inner: str) -> bool:
    """Whether `${inner}` is an IAM policy variable (`aws:username`, `aws:PrincipalTag/x`,
    `*`, `?`, `$`), not a lambdafuzz reference."""
    return ":" in inner or inner in ("*", "?", "$")


def reference_value(loaded: LoadedWorld, kind: str, name: str, attribute: str) -> str:
    """One resource fact: what `${kind.name.attribute}` stands for in this loaded world."""
    if attribute == "name":
        return name
    match kind, attribute:
        case "buckets", "arn":
            return loaded.world.arn("s3", name)
        case "tables", "arn":
            return loaded.world.arn("dynamodb", name)
        case "tables", "stream_arn":
            return loaded.stream_arn(name)
        case "queues", "url":
            return loaded.queue_url(name)
        case "queues", "arn":
            return loaded.world.arn("sqs", name)
        case "topics", "arn":
            return loaded.topic_arn(name)
        case "secrets", "arn":
            return loaded.secret_arn(name)
    raise KeyError(f"${{{kind}.{name}.{attribute}}}")


def app_dirs(target: Target) -> list[str]:
    """Directories (or module files) of the application packages: the coverage scope.
    Each is looked for where the handler imports it from: `root`, then the layers."""
    found = []
    for package in target.app_packages:
        path = package_path(package, (target.root, *target.layers))
        if path is not None:
            found.append(os.path.realpath(path))
    return found


def package_path(package: str, directories: tuple[Path, ...]) -> Path | None:
    """The directory or module file of `package` (dotted) in the first of `directories`
    that holds it, as the import system finds it on sys.path; None when none does."""
    for directory in directories:
        base = directory.joinpath(*package.split("."))
        if base.is_dir():
            return base
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py")
    return None
