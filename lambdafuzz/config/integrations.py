"""API Gateway service integrations of a template: which resource each writes, and what.

A REST API method can call an AWS service itself (`Integration: {Type: AWS, Uri:
arn:aws:apigateway:<region>:<service>:action/<Action>}`), its request mapping template
(`RequestTemplates`, Velocity text that renders to the service's JSON request) fixing the
shape of what it writes: `"Data": "$util.base64Encode($input.json('$'))"` puts the request
body as JSON on a Kinesis stream, an `UpdateItem` whose `UpdateExpression` is `SET #a = :a`
gives every item it writes that attribute, of the type of `:a`.  `service_integrations`
finds them in `AWS::ApiGateway::Method` resources, in the OpenAPI `DefinitionBody` /
`Body` of an API (`x-amazon-apigateway-integration`, `type: aws`) and in HTTP API
integrations (`IntegrationSubtype: Kinesis-PutRecord`, whose `Data` is the raw body).

The template is read as text: intrinsics (`!Sub`, `Fn::Join`, `!Ref`) are flattened to
text with `${Name}` where they name something, and the Velocity text is scanned as the
JSON it renders to, its `$input...`/`$context...` placeholders left in place.  What cannot
be read says so (`IntegrationUse.UNKNOWN`, no attributes), so `written_shapes` applies
nothing it is unsure of.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.config.api_definitions import ApiDefinition, api_definitions
from lambdafuzz.config.integration_roles import role_targets
from lambdafuzz.config.sam_template import Resolver, Template
from lambdafuzz.model.target import ATTRIBUTE_TYPES

#: The services whose data an integration's template shapes: resource types, the request
#: key naming the resource, the actions whose writes are read, the actions that only read.
SERVICES: Final = {
    "kinesis": (("AWS::Kinesis::Stream",), "StreamName", ("PutRecord", "PutRecords")),
    "firehose": (
        ("AWS::KinesisFirehose::DeliveryStream",),
        "DeliveryStreamName",
        ("PutRecord", "PutRecordBatch"),
    ),
    "dynamodb": (
        ("AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable"),
        "TableName",
        ("PutItem", "UpdateItem", "DeleteItem"),
    ),
}
_READ_ACTIONS: Final = {
    "kinesis": frozenset(
        {"GetRecords", "GetShardIterator", "DescribeStream", "DescribeStreamSummary", "ListShards"}
    ),
    "firehose": frozenset({"DescribeDeliveryStream", "ListDeliveryStreams"}),
    "dynamodb": frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "DescribeTable"}),
}
#: Resources holding integrations: their integrations are the only writes they make.
METHOD_TYPE: Final = "AWS::ApiGateway::Method"
DEFINITION_TYPES: Final = {
    "AWS::Serverless::Api": "DefinitionBody",
    "AWS::Serverless::HttpApi": "DefinitionBody",
    "AWS::ApiGateway::RestApi": "Body",
    "AWS::ApiGatewayV2::Api": "Body",
}
V2_INTEGRATION_TYPE: Final = "AWS::ApiGatewayV2::Integration"
_URI = re.compile(r":(kinesis|firehose|dynamodb):(action|path)/([A-Za-z]*)")
_REF = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[A-Za-z.]+)?\}")
#: `$util.base64Encode($input.json('...'))`: the request body (or a part of it) as JSON.
_JSON_DATA = re.compile(r"\s*\$util\.base64Encode\(\s*\$input\.json\(\s*'[^']*'\s*\)\s*\)\s*")
#: Velocity directives that make what is rendered depend on the request.
_DIRECTIVE = re.compile(r"#\{?(?:if|elseif|foreach)\}?\s*\(")
_CLAUSE = re.compile(r"(?<![#:\w])(SET|REMOVE|ADD|DELETE)\b", re.IGNORECASE)
#: A target name the request decides: a Velocity reference (`$input.params('s')`).
_DYNAMIC = re.compile(r"\$(?!\{)|#\{?(?:set|if|foreach)")


class IntegrationUse(enum.Enum):
    WRITE = "write"  # an action whose request template was read
    READ = "read"  # an action that writes nothing
    UNKNOWN = "unknown"  # another action, or a request lambdafuzz cannot read


@dataclass(slots=True, frozen=True)
class Integration:
    """One service integration of an API."""

    where: str  # "Resources.PostMethod", "Resources.Api.DefinitionBody.paths./x.post"
    container: str  # the logical id of the resource holding it
    service: str  # kinesis | firehose | dynamodb
    action: str  # PutRecord, UpdateItem, ... ("" for a path-style URI)
    use: IntegrationUse
    resource: str | None  # the logical id it acts on; None: it cannot be told
    json_data: bool = False  # kinesis / firehose: every Data is base64 of `$input.json`
    # dynamodb PutItem / UpdateItem: (name, type) of the attributes every write sets
    attributes: tuple[tuple[str, str], ...] = ()
    # an API whose definition cannot be read: why (its integrations are all unknown)
    problem: str | None = None


def service_integrations(
    template: Template,
    values: Resolver,
    definitions: Mapping[str, ApiDefinition] | None = None,
) -> tuple[Integration, ...]:
    """Every Kinesis, Firehose and DynamoDB integration of the template's APIs (their
    `definitions`, `config.api_definitions`, read when not given).  An API whose
    definition cannot be read has an unknown integration of every service."""
    if definitions is None:
        definitions = api_definitions(template)
    found: list[Integration] = []
    for logical_id in template.resources:
        kind = template.type_of(logical_id) or ""
        props = template.properties(logical_id)
        if kind == METHOD_TYPE:
            integration = props.get("Integration")
            if isinstance(integration, dict) and _is_aws(integration.get("Type")):
                where = f"Resources.{logical_id}"
                found += _integration(template, values, where, logical_id, integration, "")
        elif kind == V2_INTEGRATION_TYPE:
            where = f"Resources.{logical_id}"
            found += _integration(template, values, where, logical_id, props, "")
        elif kind in DEFINITION_TYPES and logical_id in definitions:
            definition = definitions[logical_id]
            if definition.problem is not None:
                where = f"Resources.{logical_id}.{definition.key}"
                unknown = IntegrationUse.UNKNOWN
                found += [
                    Integration(where, logical_id, s, "", unknown, None, problem=definition.problem)
                    for s in SERVICES
                ]
                continue
            prefix = (
                f"{definition.source} "  # an included file
                if definition.source is not None
                else f"Resources.{logical_id}.{definition.key}."
            )
            for path, method, integration in _definition_integrations(definition.document):
                where = f"{prefix}paths.{path}.{method}"
                found += _integration(template, values, where, logical_id, integration, "x")
    return tuple(found)


def _is_aws(value: Any) -> bool:
    return isinstance(value, str) and value.upper() in ("AWS", "AWS_PROXY")


def _definition_integrations(body: Any) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    paths = body.get("paths") if isinstance(body, dict) else None
    for path, operations in paths.items() if isinstance(paths, dict) else ():
        for method, operation in operations.items() if isinstance(operations, dict) else ():
            integration = (
                operation.get("x-amazon-apigateway-integration")
                if isinstance(operation, dict)
                else None
            )
            if isinstance(integration, dict) and _is_aws(integration.get("type")):
                yield str(path), str(method), integration


def _integration(
    template: Template,
    values: Resolver,
    where: str,
    container: str,
    spec: Mapping[str, Any],
    openapi: str,
) -> list[Integration]:
    """The integration `spec` (CloudFormation's `Integration` or an OpenAPI
    `x-amazon-apigateway-integration` when `openapi`) as an `Integration`, or none when it
    calls none of `SERVICES`."""
    get = (lambda key: spec.get(key[0].lower() + key[1:])) if openapi else spec.get
    subtype = get("IntegrationSubtype")
    if isinstance(subtype, str) and subtype.startswith("Kinesis-"):
        # HTTP API first-class integration: `Data` is what its RequestParameters say,
        # usually the raw `$request.body`: never known to be JSON
        params = flat(get("RequestParameters"))
        action = subtype.partition("-")[2]
        credentials = get("CredentialsArn")
        targets = _targets(
            template, values, "kinesis", action, params, _named(params, "StreamName"), credentials
        )
        use = _use("kinesis", action)
        return [Integration(where, container, "kinesis", action, use, t) for t in targets]
    uri = flat(get("Uri"))
    match = _URI.search(uri)
    if match is None:
        return []
    service, style, action = match.groups()
    templates = get("RequestTemplates")
    texts = [flat(t) for t in templates.values()] if isinstance(templates, dict) else []
    everything = " ".join([uri, flat(get("RequestParameters")), *texts])
    key = SERVICES[service][1]
    named = [n for text in texts for n in _named(text, key)]
    credentials = get("Credentials")
    targets = _targets(template, values, service, action, everything, named, credentials)
    use = _use(service, action) if style == "action" else IntegrationUse.UNKNOWN
    if use is IntegrationUse.WRITE and not texts:
        use = IntegrationUse.UNKNOWN  # the request passes through as the client sent it
    json_data, attributes = False, ()
    if use is IntegrationUse.WRITE and service in ("kinesis", "firehose"):
        data = [d for text in texts for d in _named(text, "Data")]
        json_data = bool(data) and all(_JSON_DATA.fullmatch(d) for d in data)
    elif use is IntegrationUse.WRITE:
        attributes = common_attributes([_written_attributes(action, text) for text in texts])
    return [
        Integration(where, container, service, action, use, t, json_data, attributes)
        for t in targets
    ]


def _use(service: str, action: str) -> IntegrationUse:
    if action in SERVICES[service][2]:
        return IntegrationUse.WRITE
    if action in _READ_ACTIONS[service]:
        return IntegrationUse.READ
    return IntegrationUse.UNKNOWN


def flat(value: Any) -> str:
    """A template value as text: `!Sub` text as written, `Fn::Join` joined, `!Ref X` and
    `!GetAtt X.A` as `${X}` / `${X.A}`, a mapping or list as its JSON with those inside;
    `\\0` for what cannot be read."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(flat(v) for v in value) + "]"
    if not isinstance(value, dict):
        return "\0"
    if len(value) == 1:
        ((fn, arg),) = value.items()
        if fn == "Ref" and isinstance(arg, str):
            return f"${{{arg}}}"
        if fn == "Fn::GetAtt":
            parts = arg.split(".", 1) if isinstance(arg, str) else arg
            if isinstance(parts, list) and parts:
                return "${" + ".".join(str(p) for p in parts) + "}"
        if fn == "Fn::Sub":
            if isinstance(arg, str):
                return arg
            if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], dict):
                text, variables = flat(arg[0]), arg[1]
                for name, inner in variables.items():
                    text = text.replace(f"${{{name}}}", flat(inner))
                return text
        if (
            fn == "Fn::Join"
            and isinstance(arg, list)
            and len(arg) == 2
            and isinstance(arg[1], list)
        ):
            return flat(arg[0]).join(flat(p) for p in arg[1])
        if fn.startswith("Fn::"):
            return "\0"
    return "{" + ", ".join(f"{json.dumps(str(k))}: {flat(v)}" for k, v in value.items()) + "}"


def _named(text: str, key: str) -> list[str]:
    """The string values of `"key": "..."` anywhere in `text`."""
    return re.findall(rf'"{key}"\s*:\s*"((?:[^"\\]|\\.)*)"', text)


def _targets(
    template: Template,
    values: Resolver,
    service: str,
    action: str,
    text: str,
    named: list[str],
    credentials: Any,
) -> tuple[str | None, ...]:
    """The resources an integration may act on: the one its request names (`_resource`),
    and where the request takes the name from the caller (`$input.params('stream')`)
    those its credentials role allows the action on (`config.integration_roles`); (None,)
    when that cannot be told."""
    fixed = [n for n in named if not _DYNAMIC.search(n)]
    found: list[str | None] = []
    if fixed or not named:
        found.append(_resource(template, values, service, text, fixed))
    if len(fixed) < len(named):
        types = SERVICES[service][0]
        names = {
            r: physical_name(values, r) for r in template.resources if template.type_of(r) in types
        }
        allowed = role_targets(template, values, credentials, service, action, names)
        found += allowed if allowed is not None else [None]
    return (None,) if None in found else tuple(dict.fromkeys(found))


def _resource(
    template: Template, values: Resolver, service: str, text: str, named: list[str]
) -> str | None:
    """The logical id of the resource of `service` the request names (`named`: the values
    of its name key; else the one resource of that kind `text` refers to); None when it
    cannot be told or names several."""
    types = SERVICES[service][0]
    candidates = [r for r in template.resources if template.type_of(r) in types]
    found: set[str | None] = set()
    for value in named:
        refs = [m.group(1) for m in _REF.finditer(value)]
        if len(refs) == 1 and _REF.fullmatch(value) and refs[0] in candidates:
            found.add(refs[0])
            continue
        literal = values.scalar({"Fn::Sub": value}, ("Resources",)) if "$" in value else value
        matching = [
            r for r in candidates if literal is not None and physical_name(values, r) == literal
        ]
        found.add(matching[0] if len(matching) == 1 else None)
    if not named:
        found = {m.group(1) for m in _REF.finditer(text) if m.group(1) in candidates}
    return found.pop() if len(found) == 1 else None


def physical_name(values: Resolver, logical_id: str) -> str:
    """The name a resource is deployed under: its name property, else its logical id."""
    template = values.template
    types = {t: key for types, key, _ in SERVICES.values() for t in types}
    key = types.get(template.type_of(logical_id) or "")
    props = template.properties(logical_id)
    if key == "StreamName":
        key = "Name"  # AWS::Kinesis::Stream names itself with `Name`
    name = values.scalar(props.get(key), ("Resources", logical_id)) if key in props else None
    return name if name is not None and "${" not in name else logical_id


# --------------------------------------------------------------------------- DynamoDB
def _written_attributes(action: str, text: str) -> tuple[tuple[str, str], ...]:
    """The (name, type) of the attributes a PutItem's `Item` / an UpdateItem's `SET` and
    `ADD` always set; none for a template whose Velocity directives decide what it holds,
    for DeleteItem, or when the request cannot be read."""
    if action == "DeleteItem" or _DIRECTIVE.search(text):
        return ()
    start = text.find("{")
    top = members(text, start) if start >= 0 else {}
    if action == "PutItem":
        item = top.get("Item", "")
        fields = members(item, item.find("{")) if item.lstrip().startswith("{") else {}
        return tuple(
            (name, kind) for name, value in fields.items() if (kind := _type(value)) is not None
        )
    expression = _string(top.get("UpdateExpression", ""))
    if expression is None:
        return ()
    names_text, values_text = (
        top.get("ExpressionAttributeNames", ""),
        top.get("ExpressionAttributeValues", ""),
    )
    names = {k: _string(v) for k, v in members(names_text, names_text.find("{")).items()}
    types = {k: _type(v) for k, v in members(values_text, values_text.find("{")).items()}
    found: dict[str, str] = {}
    removed: set[str] = set()
    for clause, body in _clauses(expression):
        for part in _split(body):
            path, value = _assignment(clause, part)
            name = names.get(path, path) if path.startswith("#") else path
            if name is None or not re.fullmatch(r"[^.\[\]#:\s]+", name):
                continue  # a nested path, or a name placeholder without a value
            if clause in ("REMOVE", "DELETE"):
                removed.add(name)
                continue
            kind = _value_type(value, types)
            if kind is not None:
                found[name] = kind
    return tuple((n, t) for n, t in found.items() if n not in removed)


def _clauses(expression: str) -> Iterator[tuple[str, str]]:
    parts = _CLAUSE.split(expression)
    for i in range(1, len(parts) - 1, 2):
        yield parts[i].upper(), parts[i + 1]


def _split(body: str) -> list[str]:
    """A clause's actions, split at the commas outside parentheses."""
    out, depth, current = [], 0, ""
    for char in body:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
    return [p.strip() for p in [*out, current] if p.strip()]


def _assignment(clause: str, part: str) -> tuple[str, str]:
    """(path, value) of one action: `path = value` (SET), `path value` (ADD, DELETE),
    `path` (REMOVE)."""
    if clause == "SET":
        path, _, value = part.partition("=")
        return path.strip(), value.strip()
    path, _, value = part.partition(" ")
    return path.strip(), value.strip()


def _value_type(value: str, types: Mapping[str, str | None]) -> str | None:
    """The type a SET / ADD value gives: a `:value`'s, `if_not_exists(path, :v)`'s, a
    list_append's L, an arithmetic N; None for what cannot be told (another path)."""
    if re.fullmatch(r":\w+", value):
        return types.get(value)
    found = re.fullmatch(r"if_not_exists\s*\(\s*[^,]+,\s*(:\w+)\s*\)", value)
    if found:
        return types.get(found.group(1))
    if value.startswith("list_append"):
        return "L"
    if re.fullmatch(r"[^+\-]+[+\-][^+\-]+", value):
        return "N"
    return None


def _type(value: str) -> str | None:
    """The type tag of a DynamoDB JSON value's text (`{"S": "..."}` -> S)."""
    found = re.match(r'\s*\{\s*"([A-Z]+)"\s*:', value)
    return found.group(1) if found and found.group(1) in ATTRIBUTE_TYPES else None


def _string(value: str) -> str | None:
    try:
        found = json.loads(value)
    except ValueError:
        return None
    return found if isinstance(found, str) else None


def common_attributes(sets: list[tuple[tuple[str, str], ...]]) -> tuple[tuple[str, str], ...]:
    """The (name, type) pairs every one of `sets` holds, in the first one's order."""
    if not sets:
        return ()
    return tuple(p for p in sets[0] if all(p in s for s in sets[1:]))


def members(text: str, start: int) -> dict[str, str]:
    """The members of the JSON object at `text[start]` (`{`), key -> the value's text;
    tolerant of the Velocity placeholders around (`$input.json('$.a')` as a value)."""
    if start < 0 or start >= len(text) or text[start] != "{":
        return {}
    found: dict[str, str] = {}
    depth, i, key, value_start = 0, start, None, None
    expect_key = True
    while i < len(text):
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            if depth == 1 and expect_key and key is None:
                key = text[i + 1 : end - 1]
            i = end
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                if key is not None and value_start is not None:
                    found[key] = text[value_start:i].strip()
                return found
        elif depth == 1 and char == ":" and key is not None and value_start is None:
            value_start = i + 1
            expect_key = False
        elif depth == 1 and char == ",":
            if key is not None and value_start is not None:
                found[key] = text[value_start:i].strip()
            key, value_start, expect_key = None, None, True
        i += 1
    return found


def _string_end(text: str, start: int) -> int:
    """The index after the closing quote of the string opening at `start`."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)
