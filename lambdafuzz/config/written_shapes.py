"""Resources only API Gateway service integrations write: what they write fixes their data.

A Kinesis stream whose only producer is an API method sending `$util.base64Encode(
$input.json('$'))` holds JSON records and nothing else; a table whose only writer is an
integration's `UpdateItem ... SET #a = :a` holds items that all have `a`.  Records or
items of another shape are inputs no deployment sends, and the failures they cause are
not bugs.  `written_shapes` reads the template's integrations (`config.integrations`)
and keeps a resource only when **every** writer the template shows is such an
integration: a function that names the resource outside its `Events` and read-only
policy templates, an IAM role or policy not used only by the APIs, a grant on every
resource of the service (`Resource: "*"`, `AmazonKinesisFullAccess`), a function whose
role the template does not hold, another kind of resource naming it (a state machine, a
rule target, a pipe), or an integration lambdafuzz cannot read all leave it alone.

`apply_written_shapes` puts the shapes into a function's lambdafuzz.yaml mapping: `body:
json-object` on a Kinesis or Firehose trigger reading such a stream, `attributes` on
such a table, and returns a note for each.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.config.api_definitions import api_definitions, with_definitions
from lambdafuzz.config.function_references import named_ids
from lambdafuzz.config.integration_roles import POLICY_TYPES, ROLE_TYPE
from lambdafuzz.config.integrations import (
    SERVICES,
    Integration,
    IntegrationUse,
    common_attributes,
    flat,
    physical_name,
    service_integrations,
)
from lambdafuzz.config.sam_template import FUNCTION_TYPES, Resolver, Template, logical_ref
from lambdafuzz.model.target import BODY_JSON_OBJECT

#: SAM policy templates that grant reading only.
READ_POLICIES: Final = frozenset(
    {"KinesisStreamReadPolicy", "DynamoDBReadPolicy", "DynamoDBStreamReadPolicy"}
)
#: Resource types that write nothing to what they name.
PASSIVE_TYPES: Final = frozenset(
    {
        "AWS::Lambda::EventSourceMapping",
        "AWS::Lambda::Permission",
        "AWS::Kinesis::StreamConsumer",
        "AWS::CloudWatch::Alarm",
        "AWS::ApplicationAutoScaling::ScalableTarget",
        "AWS::ApplicationAutoScaling::ScalingPolicy",
    }
)
#: Resource type prefixes that write nothing but through the service integrations read
#: (an API's resources, stages, models) or at all (logs, alarms).
PASSIVE_PREFIXES: Final = (
    "AWS::ApiGateway::",
    "AWS::ApiGatewayV2::",
    "AWS::Serverless::Api",
    "AWS::Serverless::HttpApi",
    "AWS::Logs::",
    "AWS::CloudWatch::",
)
#: Properties through which a resource reads what they name.
READING_PROPERTIES: Final = {
    **dict.fromkeys(FUNCTION_TYPES, ("Events",)),
    "AWS::KinesisFirehose::DeliveryStream": ("KinesisStreamSourceConfiguration",),
}
#: The IAM actions that write each service's data.
WRITE_ACTIONS: Final = {
    "kinesis": ("kinesis:PutRecord", "kinesis:PutRecords"),
    "firehose": ("firehose:PutRecord", "firehose:PutRecordBatch"),
    "dynamodb": (
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:BatchWriteItem",
        "dynamodb:PartiQLInsert",
        "dynamodb:PartiQLUpdate",
        "dynamodb:ImportTable",
    ),
}
#: Managed policies and SAM policy template prefixes that may write a service's data.
_BROAD_POLICIES: Final = {
    "kinesis": re.compile(r"AdministratorAccess|PowerUserAccess|AmazonKinesisFullAccess"),
    "firehose": re.compile(r"AdministratorAccess|PowerUserAccess|AmazonKinesisFirehoseFullAccess"),
    "dynamodb": re.compile(r"AdministratorAccess|PowerUserAccess|AmazonDynamoDBFullAccess"),
}
_TEMPLATE_PREFIXES: Final = {"kinesis": "Kinesis", "firehose": "Firehose", "dynamodb": "DynamoDB"}
_WHAT: Final = {"kinesis": "Kinesis stream", "firehose": "Firehose delivery stream"}


@dataclass(slots=True, frozen=True)
class WrittenShape:
    """A resource only API Gateway integrations write, and what they always write."""

    resource: str  # logical id
    name: str  # its deployed name
    service: str  # kinesis | firehose | dynamodb
    writers: tuple[str, ...]  # where each integration writing it is
    json_records: bool  # kinesis / firehose: every record is the JSON of a request
    attributes: tuple[tuple[str, str], ...]  # dynamodb: (name, type) every item holds


def written_shapes(template: Template, values: Resolver) -> dict[str, WrittenShape]:
    """The resources of the template every writer of which is an API Gateway integration
    whose request template was read, by logical id."""
    return _shapes(template, values)[0]


def _shapes(template: Template, values: Resolver) -> tuple[dict[str, WrittenShape], list[str]]:
    """(`written_shapes`, why an API's integrations are unknown: its definition is not
    read)."""
    definitions = api_definitions(template)
    integrations = service_integrations(template, values, definitions)
    problems = list(dict.fromkeys(i.problem for i in integrations if i.problem is not None))
    if not any(i.use is IntegrationUse.WRITE for i in integrations):
        return {}, problems
    containers = {i.container for i in integrations}
    usage = with_definitions(template, definitions)  # roles an included definition names
    found: dict[str, WrittenShape] = {}
    for service, (types, _, _) in SERVICES.items():
        mine = [i for i in integrations if i.service == service]
        for logical_id in template.resources:
            if template.type_of(logical_id) not in types:
                continue
            writers = [
                i for i in mine if i.resource == logical_id and i.use is IntegrationUse.WRITE
            ]
            if not writers or any(_may_write(i, logical_id) for i in mine):
                continue
            if other_writer(usage, values, logical_id, service, containers) is not None:
                continue
            written = [i for i in writers if i.action != "DeleteItem"]
            attributes = common_attributes([i.attributes for i in written]) if written else ()
            found[logical_id] = WrittenShape(
                logical_id,
                physical_name(values, logical_id),
                service,
                tuple(i.where for i in writers),
                all(i.json_data for i in writers),
                attributes,
            )
    return found, problems


def _may_write(integration: Integration, logical_id: str) -> bool:
    """Whether an integration may write the resource with data lambdafuzz cannot tell."""
    if integration.resource not in (logical_id, None):
        return False
    if integration.use is IntegrationUse.UNKNOWN:
        return True
    return integration.use is IntegrationUse.WRITE and integration.resource is None


def other_writer(
    template: Template, values: Resolver, logical_id: str, service: str, containers: set[str]
) -> str | None:
    """A resource (logical id; `Globals` for the Globals section) other than the API
    integrations that may write `logical_id`, None when the template shows none."""
    name = physical_name(values, logical_id)
    literal = name if name != logical_id else None
    candidates: Iterator[tuple[str, str, Any]] = (
        (x, template.type_of(x) or "", template.resource(x)) for x in template.resources
    )
    globals_ = ("Globals", FUNCTION_TYPES[0], {"Properties": template.globals()})
    for x, kind, resource in (*candidates, globals_):
        if x == logical_id or x in containers or kind in PASSIVE_TYPES:
            continue
        if kind.startswith(PASSIVE_PREFIXES):
            continue
        visible = _visible(kind, resource)
        names = logical_id in set(named_ids(visible)) or (
            literal is not None and _mentions(visible, literal)
        )
        if not names and not _grants_broadly(visible, service):
            continue
        if (kind == ROLE_TYPE or kind in POLICY_TYPES) and _api_only(template, x, containers):
            continue
        return x
    for x in template.resources:  # a role from outside the template may grant anything
        if template.type_of(x) in FUNCTION_TYPES:
            role = template.properties(x).get("Role")
            if role is not None and logical_ref(role) not in template.resources:
                return x
    return None


def _visible(kind: str, resource: Any) -> dict[str, Any]:
    """The properties through which a resource may write: without those it reads through
    (`Events`) and read-only policy templates."""
    props = resource.get("Properties") if isinstance(resource, dict) else None
    props = dict(props) if isinstance(props, dict) else {}
    for key in READING_PROPERTIES.get(kind, ()):
        props.pop(key, None)
    policies = props.get("Policies")
    if isinstance(policies, list):
        props["Policies"] = [
            p
            for p in policies
            if not (isinstance(p, dict) and len(p) == 1 and next(iter(p)) in READ_POLICIES)
        ]
    return props


def _mentions(props: Mapping[str, Any], name: str) -> bool:
    """Whether properties name `name` literally, besides in the resource's own name and
    description (an API called `clicks` names no stream `clicks`)."""
    own = [k for k in props if k == "Description" or k.endswith("Name")]
    text = flat({k: v for k, v in props.items() if k not in own})
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text) is not None


def _grants_broadly(value: Any, service: str) -> bool:
    """Whether `value` grants writing every resource of `service`: a managed policy such
    as AmazonKinesisFullAccess, a statement allowing a write action on `*`-resources, a
    SAM policy template of the service on `*`."""
    if _BROAD_POLICIES[service].search(flat(value)):
        return True
    for node in _nodes(value):
        if "Action" in node and "Resource" in node and node.get("Effect", "Allow") == "Allow":
            actions = node["Action"] if isinstance(node["Action"], list) else [node["Action"]]
            resources = (
                node["Resource"] if isinstance(node["Resource"], list) else [node["Resource"]]
            )
            writes = any(
                isinstance(a, str)
                and fnmatch.filter([w.lower() for w in WRITE_ACTIONS[service]], a.lower())
                for a in actions
            )
            wide = any("*" in flat(r) and "${" not in flat(r) for r in resources)
            if writes and wide:
                return True
        for key, inner in node.items():
            if (
                isinstance(key, str)
                and key.startswith(_TEMPLATE_PREFIXES[service])
                and key.endswith("Policy")
                and key not in READ_POLICIES
                and "*" in flat(inner)
            ):
                return True
    return False


def _nodes(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _nodes(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _nodes(inner)


def _api_only(
    template: Template, x: str, containers: set[str], seen: set[str] | None = None
) -> bool:
    """Whether IAM role or policy `x` serves only the APIs' integrations: a role only
    they use (the `Credentials` API Gateway assumes), a policy attached only to such
    roles.  One nothing of the template uses may serve anything outside it: no."""
    seen = set() if seen is None else seen
    if x in containers or x in seen:
        return True
    seen.add(x)
    kind = template.type_of(x)
    props = template.properties(x)
    if kind in POLICY_TYPES:
        if props.get("Users") or props.get("Groups"):
            return False
        roles = props.get("Roles") or []
        ids = [logical_ref(r) for r in roles] if isinstance(roles, list) else [None]
        if any(i is None or i not in template.resources for i in ids):
            return False
        if not all(_api_only(template, i, containers, seen) for i in ids if i is not None):
            return False
    elif kind != ROLE_TYPE:
        return False
    used = bool(kind in POLICY_TYPES and props.get("Roles"))
    for y in template.resources:
        if y == x or x not in set(named_ids(template.resource(y))):
            continue
        if kind == ROLE_TYPE and template.type_of(y) in POLICY_TYPES:
            continue  # a policy attached to the role: it grants the role, no one else
        if not _api_only(template, y, containers, seen):
            return False
        used = True
    return used


# --------------------------------------------------------------------------- applying
def apply_written_shapes(template: Template, values: Resolver, config: dict[str, Any]) -> list[str]:
    """Put the written shapes into a function's lambdafuzz.yaml mapping (`body:
    json-object` for the stream its trigger reads, `attributes` of its tables), leaving
    what is set already; the notes saying so."""
    shapes, problems = _shapes(template, values)
    trigger = config.get("trigger")
    tables = config.get("resources", {}).get("tables", [])
    reads = isinstance(trigger, dict) and _stream_read(trigger)[0] is not None
    notes = [
        f"{problem}: what that API's integrations write is not known, so no stream or "
        "table takes the shape of what API Gateway integrations write"
        for problem in (problems if reads or tables else ())
    ]
    if not shapes:
        return notes
    if isinstance(trigger, dict) and "body" not in trigger:
        service, name = _stream_read(trigger)
        shape = next((s for s in shapes.values() if (s.service, s.name) == (service, name)), None)
        if shape is not None and shape.json_records:
            trigger["body"] = BODY_JSON_OBJECT
            notes.append(
                f"{_WHAT[shape.service]} {shape.name}: written only by API Gateway "
                f"integrations that send JSON ({', '.join(shape.writers)}): its records are "
                "JSON objects"
            )
    for table in tables:
        shape = next(
            (s for s in shapes.values() if (s.service, s.name) == ("dynamodb", table["name"])),
            None,
        )
        attributes = _table_attributes(table, shape.attributes) if shape is not None else []
        if shape is None or not attributes or "attributes" in table:
            continue
        table["attributes"] = [{"name": n, "type": t} for n, t in attributes]
        held = ", ".join(f"{n} ({t})" for n, t in attributes)
        notes.append(
            f"DynamoDB table {shape.name}: written only by API Gateway integrations "
            f"({', '.join(shape.writers)}): every item holds {held}"
        )
    return notes


def _stream_read(trigger: Mapping[str, Any]) -> tuple[str | None, Any]:
    """(service, name) of the stream a trigger's records come from."""
    if trigger.get("kind") == "kinesis":
        return "kinesis", trigger.get("source")
    if trigger.get("kind") == "firehose":
        stream = trigger.get("kinesis_stream")
        return ("kinesis", stream) if stream else ("firehose", trigger.get("source"))
    return None, None


def _table_attributes(
    table: Mapping[str, Any], attributes: tuple[tuple[str, str], ...]
) -> list[tuple[str, str]]:
    """The attributes that are no key of the table, and of their type where they key an
    index."""
    keys = {k.get("name") for k in (table.get("hash_key"), table.get("range_key")) if k}
    index_types = {
        key["name"]: key["type"]
        for index in table.get("indexes", [])
        for key in (index.get("hash_key"), index.get("range_key"))
        if key
    }
    return [(n, t) for n, t in attributes if n not in keys and index_types.get(n, t) == t]
