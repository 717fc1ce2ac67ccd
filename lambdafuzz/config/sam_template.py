"""Reading a SAM/CloudFormation template: CloudFormation's YAML tags, the template's
resources and events, and resolving intrinsic functions (`!Ref`, `!GetAtt`, `!Sub`,
`!Join`) to the names and `${kind.name.attribute}` references a lambdafuzz.yaml uses.

`lambdafuzz.config.sam` decides what a function's lambdafuzz.yaml holds; this module only reads.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lambdafuzz.config.cdk import TEMPLATE_SUFFIX, s3_notifications
from lambdafuzz.config.samconfig import template_parameters
from lambdafuzz.config.source import (
    TEMPLATE_LIMITS,
    BoundedLoader,
    Locator,
    dotpath,
    file_kind,
    nearest,
    parse_yaml,
    read_text,
)
from lambdafuzz.errors import ConfigError

FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
#: Resource types that become emulated resources, by the lambdafuzz.yaml section they fill.
RESOURCE_KINDS = {
    "AWS::S3::Bucket": "buckets",
    "AWS::DynamoDB::Table": "tables",
    "AWS::Serverless::SimpleTable": "tables",
    "AWS::SQS::Queue": "queues",
    "AWS::SNS::Topic": "topics",
    "AWS::SecretsManager::Secret": "secrets",
    "AWS::SSM::Parameter": "parameters",
}
_NAME_PROPERTY = {
    "AWS::S3::Bucket": "BucketName",
    "AWS::DynamoDB::Table": "TableName",
    "AWS::Serverless::SimpleTable": "TableName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::Kinesis::Stream": "Name",
    "AWS::SecretsManager::Secret": "Name",
    "AWS::SSM::Parameter": "Name",
}
#: Values of CloudFormation pseudo parameters inside the emulator (account as in World).
PSEUDO = {
    "AWS::Region": "us-east-1",
    "AWS::AccountId": "123456789012",
    "AWS::StackName": "lambdafuzz",
    "AWS::StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/lambdafuzz/0",
    "AWS::Partition": "aws",
    "AWS::URLSuffix": "amazonaws.com",
}


# =========================================================================== reading
def is_template(path: Path) -> bool:
    """Whether a file is a SAM/CloudFormation template rather than a lambdafuzz.yaml (read
    from its first 20 kB; anything but a regular file is not a template)."""
    if path.name in ("lambdafuzz.yaml", "lambdafuzz.yml") or file_kind(path) is not None:
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(20_000).decode("utf-8", errors="replace")
    except OSError:
        return False
    if path.name.endswith(TEMPLATE_SUFFIX) and '"Resources"' in head:
        return True  # a CDK stack template (`cdk synth` writes no format version)
    return "AWSTemplateFormatVersion" in head or "AWS::Serverless" in head or "Transform:" in head


#: CloudFormation's short-form tags (`!Ref`, `!GetAtt`, ...); any other `!Tag` is a mistake.
CFN_TAGS = (
    "Ref", "Condition", "GetAtt", "Sub", "Join", "Select", "Split", "FindInMap", "If", "Not",
    "Equals", "And", "Or", "Base64", "Cidr", "GetAZs", "ImportValue", "Transform",
    "ToJsonString", "Length",
)  # fmt: skip


class _CfnLoader(BoundedLoader):
    """The bounded safe loader, with CloudFormation short tags turned into their long forms;
    a key a mapping holds twice is recorded (`_DUPLICATES`), the last one kept, as SAM's own
    loader keeps it: only the function that uses that part refuses it (`config.sam`)."""

    def duplicate_key(self, key: yaml.ScalarNode, path: tuple[Any, ...]) -> None:
        found = _DUPLICATES.get()
        if found is None:
            super().duplicate_key(key, path)
        else:
            found.append((path, key.start_mark.line + 1))


#: The duplicate keys of the template being read: (YAML path, line).
_DUPLICATES: ContextVar[list[tuple[tuple[Any, ...], int]] | None] = ContextVar(
    "lambdafuzz_template_duplicates", default=None
)


def _construct_tag(loader: _CfnLoader, suffix: str, node: yaml.Node) -> Any:
    if suffix not in CFN_TAGS:
        close = nearest(suffix, CFN_TAGS)
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"unknown tag !{suffix}; expected a CloudFormation function tag: "
            + ", ".join(f"!{t}" for t in CFN_TAGS)
            + (f". Did you mean !{close}?" if close else ""),
            node.start_mark,
        )
    name = "Ref" if suffix == "Ref" else "Condition" if suffix == "Condition" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {name: value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


@dataclass(slots=True)
class Template:
    path: Path
    data: dict[str, Any]
    where: Locator
    # parameter values from the project's samconfig (`samconfig.py`), over the Defaults
    parameters: dict[str, str] = field(default_factory=dict)
    # resources whose `Condition` is false (not deployed), and those whose condition
    # cannot be evaluated (kept, and said so), by logical id -> the condition's name
    absent: dict[str, str] = field(default_factory=dict)
    undecided: dict[str, str] = field(default_factory=dict)
    # keys a mapping holds twice (the last one is kept): (YAML path, line)
    duplicates: tuple[tuple[tuple[Any, ...], int], ...] = ()

    @property
    def resources(self) -> dict[str, Any]:
        """The resources the stack creates: those whose `Condition` is false are not."""
        found = self.data.get("Resources")
        if not isinstance(found, dict):
            return {}
        if not self.absent:
            return found
        return {k: v for k, v in found.items() if k not in self.absent}

    def resource(self, logical_id: str) -> dict[str, Any]:
        found = self.resources.get(logical_id)
        return found if isinstance(found, dict) else {}

    def properties(self, logical_id: str) -> dict[str, Any]:
        found = self.resource(logical_id).get("Properties")
        return found if isinstance(found, dict) else {}

    def type_of(self, logical_id: str) -> str | None:
        found = self.resource(logical_id).get("Type")
        return found if isinstance(found, str) else None

    def globals(self) -> dict[str, Any]:
        g = self.data.get("Globals")
        found = g.get("Function") if isinstance(g, dict) else None
        return found if isinstance(found, dict) else {}

    def error(
        self, loc: tuple[Any, ...], value: Any, expected: str, suggestion: Any = None
    ) -> ConfigError:
        return self.where.error(loc, value, expected, suggestion)


def read_template(path: Path) -> Template:
    """A SAM/CloudFormation template, read within `TEMPLATE_LIMITS`; -> ConfigError."""
    file = Path(path).resolve()
    text = read_text(file, TEMPLATE_LIMITS)
    duplicates: list[tuple[tuple[Any, ...], int]] = []
    token = _DUPLICATES.set(duplicates)
    try:
        data, node = parse_yaml(file, text, _CfnLoader, TEMPLATE_LIMITS)
    finally:
        _DUPLICATES.reset(token)
    if not isinstance(data, dict) or not isinstance(data.get("Resources"), dict):
        found = "an empty file" if data is None else f"a {type(data).__name__}"
        if isinstance(data, dict):
            found = (
                "a mapping without `Resources`"
                if "Resources" not in data
                else (f"`Resources` as a {type(data['Resources']).__name__}")
            )
        raise ConfigError(
            f"{file}: no `Resources` mapping ({found}); expected a SAM or CloudFormation "
            f"template with a `Resources:` mapping of logical ids."
        )
    for path, line in duplicates:  # a section or a logical id twice: a resource vanishes
        if len(path) <= 2:
            raise ConfigError(
                f"{file}:{line}: {dotpath(path)} appears twice; expected each key once."
            )
    template = Template(file, data, Locator(file, node), template_parameters(file.parent))
    template.duplicates = tuple(duplicates)
    _decide_conditions(template)
    return template


def read_fragment(path: Path) -> Any:
    """A YAML or JSON file a template includes (an `AWS::Include` snippet, an OpenAPI
    definition), CloudFormation tags read as in a template, within `TEMPLATE_LIMITS`;
    -> ConfigError."""
    file = Path(path).resolve()
    data, _ = parse_yaml(file, read_text(file, TEMPLATE_LIMITS), _CfnLoader, TEMPLATE_LIMITS)
    return data


def not_deployed(condition: str) -> str:
    """Why a resource with a false `Condition` is not there."""
    return (
        f"its Condition {condition} is false under the parameter values, so it is not "
        f"deployed (set them with --parameter-overrides or samconfig.toml)"
    )


def _decide_conditions(template: Template) -> None:
    """Fill `absent` and `undecided` from the resources' `Condition` keys (evaluated under
    the template's parameter values, as CloudFormation does at deployment)."""
    resolver = Resolver(template)
    for logical_id, resource in list(template.resources.items()):
        condition = resource.get("Condition") if isinstance(resource, dict) else None
        if condition is None:
            continue
        value = resolver.condition(condition)
        if value is False:
            template.absent[logical_id] = str(condition)
        elif value is None:
            template.undecided[logical_id] = str(condition)


def module_function(spec: str) -> str:
    """A Lambda Python handler string (`dir/module.func` allowed) -> `module.func`."""
    return spec.replace("/", ".").replace(os.sep, ".")


# =========================================================================== events
@dataclass(slots=True, frozen=True)
class TemplateEvent:
    name: str
    kind: str  # a TriggerKind value
    source: str | None  # logical id of the emitting resource
    properties: Mapping[str, Any]
    # a rule's or schedule's constant `Input` (JSON text): the payload it always sends
    constant_json: str | None = None


EVENT_KINDS = {
    "S3": "s3",
    "SQS": "sqs",
    "SNS": "sns",
    "DynamoDB": "dynamodb-stream",
    "Api": "apigateway",
    "HttpApi": "apigateway-v2",
    "EventBridgeRule": "eventbridge",
    "CloudWatchEvent": "eventbridge",
    "Kinesis": "kinesis",
    "Schedule": "schedule",
    "ScheduleV2": "direct",  # EventBridge Scheduler sends its Input as the payload
    "MSK": "msk",
    "SelfManagedKafka": "kafka",
    "MQ": "activemq",  # "rabbitmq" when its Broker is a RabbitMQ broker of the template
}
#: Events whose `Input` replaces the event: the function always receives that constant.
_INPUT_KINDS = frozenset({"Schedule", "ScheduleV2", "EventBridgeRule", "CloudWatchEvent"})
SOURCE_PROPERTY = {"S3": "Bucket", "SQS": "Queue", "SNS": "Topic", "DynamoDB": "Stream"}


def template_events(
    template: Template, logical_id: str, props: Mapping[str, Any]
) -> tuple[list[TemplateEvent], list[str]]:
    """The function's events lambdafuzz can generate, and notes on the others."""
    supported: list[TemplateEvent] = []
    notes: list[str] = []
    events = props.get("Events")
    if isinstance(events, dict):
        for name, event in events.items():
            if not isinstance(event, dict):
                continue
            kind = event.get("Type")
            eprops = event.get("Properties") if isinstance(event.get("Properties"), dict) else {}
            if not isinstance(kind, str) or kind not in EVENT_KINDS:
                notes.append(f"Events.{name}: event type {kind} has no generator; not fuzzed")
                continue
            source = None
            if kind in _INPUT_KINDS and ("InputPath" in eprops or "InputTransformer" in eprops):
                notes.append(
                    f"Events.{name}: InputPath/InputTransformer reshape the event; not "
                    "modelled, not fuzzed (a lambdafuzz.yaml with a direct trigger can)"
                )
                continue
            if kind in _INPUT_KINDS and "Input" in eprops:
                text = eprops["Input"]
                try:
                    json.loads(text) if isinstance(text, str) else None
                except ValueError:
                    text = None
                if not isinstance(text, str):
                    notes.append(f"Events.{name}: Input {text!r} is not JSON text; not fuzzed")
                    continue
                supported.append(TemplateEvent(name, "direct", None, eprops, text))
                continue
            if kind == "ScheduleV2":
                notes.append(
                    f"Events.{name}: a ScheduleV2 without Input; the payload EventBridge "
                    "Scheduler sends is not modelled, not fuzzed (a lambdafuzz.yaml with a "
                    "direct trigger and its constant can)"
                )
                continue
            if kind == "Kinesis":  # the stream is not emulated: only its name matters
                ref = logical_ref(eprops.get("Stream"))
                source = ref if ref and template.type_of(ref) == "AWS::Kinesis::Stream" else None
            if kind in SOURCE_PROPERTY:
                source = logical_ref(eprops.get(SOURCE_PROPERTY[kind]))
                if source is None or template.type_of(source) not in RESOURCE_KINDS:
                    value = eprops.get(SOURCE_PROPERTY[kind])
                    notes.append(
                        f"Events.{name}: {kind} source {value!r} is not a resource of this "
                        f"template; not fuzzed"
                    )
                    continue
            event_kind = EVENT_KINDS[kind]
            if kind == "MQ":
                broker = logical_ref(eprops.get("Broker"))
                engine = template.properties(broker).get("EngineType") if broker else None
                if template.type_of(broker or "") == "AWS::AmazonMQ::Broker" and (
                    isinstance(engine, str) and engine.upper() == "RABBITMQ"
                ):
                    event_kind = "rabbitmq"
            supported.append(TemplateEvent(name, event_kind, source, eprops))
    for mapping_id in template.resources:  # plain CloudFormation: event source mappings
        if template.type_of(mapping_id) != "AWS::Lambda::EventSourceMapping":
            continue
        mprops = template.properties(mapping_id)
        if logical_ref(mprops.get("FunctionName")) != logical_id:
            continue
        source = logical_ref(mprops.get("EventSourceArn"))
        kind = {"AWS::SQS::Queue": "sqs", "AWS::DynamoDB::Table": "dynamodb-stream"}.get(
            template.type_of(source or "") or ""
        )
        if kind is None:
            notes.append(
                f"Resources.{mapping_id}: event source mapping from an unsupported source; not fuzzed"
            )
            continue
        supported.append(TemplateEvent(mapping_id, kind, source, mprops))
    # CDK: bucket notifications are a custom resource, not the bucket's own configuration
    for notifications, bucket, eprops in s3_notifications(
        template.resources, logical_id, logical_ref
    ):
        if template.type_of(bucket) == "AWS::S3::Bucket":
            supported.append(TemplateEvent(notifications, "s3", bucket, eprops))
        else:
            notes.append(
                f"Resources.{notifications}: notifies from {bucket!r}, not a bucket of this template; not fuzzed"
            )
    return supported, notes


def logical_ref(value: Any) -> str | None:
    """The logical id a `!Ref X` / `!GetAtt X.Attr` / `${X.Attr}` refers to."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key == "Ref" and isinstance(inner, str):
            return inner
        if key == "Fn::GetAtt" and isinstance(inner, list) and inner and isinstance(inner[0], str):
            return inner[0]
        if key == "Fn::Sub" and isinstance(inner, str):
            found = re.fullmatch(r"\$\{([A-Za-z0-9]+)(\.[A-Za-z]+)?\}", inner)
            return found.group(1) if found else None
    return None


# =========================================================================== values
@dataclass(slots=True)
class Resolver:
    """Template values -> strings: physical names for resources, `${...}` references for
    the facts only the emulator knows (queue URLs, ARNs)."""

    template: Template
    _names: dict[str, str] = field(default_factory=dict)
    _busy: set[str] = field(default_factory=set)  # conditions being evaluated

    def name_of(self, logical_id: str) -> str:
        """The physical name lambdafuzz gives a resource: its *Name property, else the
        logical id (lowercased for buckets, which allow no capitals)."""
        if logical_id in self._names:
            return self._names[logical_id]
        self._names[logical_id] = logical_id  # guards a reference cycle
        kind_type = self.template.type_of(logical_id) or ""
        props = self.template.properties(logical_id)
        key = _NAME_PROPERTY.get(kind_type)
        name = None
        if key and key in props:
            name = self.scalar(props[key], ("Resources", logical_id, "Properties", key))
            if name is not None and "${" in name:
                name = None
        if name is None:
            name = logical_id.lower() if kind_type == "AWS::S3::Bucket" else logical_id
            if kind_type == "AWS::SQS::Queue" and props.get("FifoQueue") in (True, "true"):
                name += ".fifo"
        self._names[logical_id] = name
        return name

    def scalar(self, value: Any, loc: tuple[Any, ...]) -> str | None:
        """A template value as a string with `${kind.name.attr}` references; None when it
        cannot be resolved (an unknown function, an import, a missing parameter)."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str | int | float):
            return str(value)
        if not (isinstance(value, dict) and len(value) == 1):
            return None
        ((fn, arg),) = value.items()
        if fn == "Ref" and isinstance(arg, str):
            return self.ref(arg)
        if fn == "Fn::GetAtt" and isinstance(arg, list) and len(arg) == 2:
            return self.get_att(str(arg[0]), str(arg[1]))
        if fn == "Fn::Sub":
            return self._sub(arg, loc)
        if (
            fn == "Fn::Join"
            and isinstance(arg, list)
            and len(arg) == 2
            and isinstance(arg[1], list)
        ):
            parts = [self.scalar(p, loc) for p in arg[1]]
            return None if any(p is None for p in parts) else str(arg[0]).join(parts)  # type: ignore[arg-type]
        if fn == "Fn::If" and isinstance(arg, list) and len(arg) == 3:
            chosen = self.condition(arg[0])
            return None if chosen is None else self.scalar(arg[1] if chosen else arg[2], loc)
        return None

    def condition(self, name: Any) -> bool | None:
        """The value of the template's condition `name` (under parameter defaults), None
        when it cannot be evaluated."""
        conditions = self.template.data.get("Conditions")
        if not isinstance(name, str) or not isinstance(conditions, dict) or name in self._busy:
            return None
        self._busy.add(name)  # guards a condition that refers to itself
        try:
            return self._truth(conditions.get(name))
        finally:
            self._busy.discard(name)

    def _truth(self, expression: Any) -> bool | None:
        if not (isinstance(expression, dict) and len(expression) == 1):
            return None
        ((fn, arg),) = expression.items()
        if fn == "Condition":
            return self.condition(arg)
        if not isinstance(arg, list):
            return None
        if fn == "Fn::Equals" and len(arg) == 2:
            left, right = (self.scalar(a, ("Conditions",)) for a in arg)
            return None if left is None or right is None else left == right
        values = [self._truth(a) for a in arg]
        if fn == "Fn::Not" and len(values) == 1:
            return None if values[0] is None else not values[0]
        if fn == "Fn::And" and values and None not in values:
            return all(values)
        if fn == "Fn::Or" and values and None not in values:
            return any(values)
        return None

    def unset_parameters(self, value: Any) -> list[str]:
        """The parameters `value` refers to (`Ref`, `${Name}`) that have no value: no
        Default, no samconfig or --parameter-overrides value."""
        params = self.template.data.get("Parameters")
        if not isinstance(params, dict):
            return []
        names: list[str] = []
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "Ref" and isinstance(inner, str):
                    names.append(inner)
                elif key == "Fn::Sub":
                    text = inner[0] if isinstance(inner, list) and inner else inner
                    if isinstance(text, str):
                        names += re.findall(r"\$\{([A-Za-z0-9]+)\}", text)
                    names += [
                        n
                        for v in (inner if isinstance(inner, list) else [])
                        for n in self.unset_parameters(v)
                    ]
                else:
                    names += self.unset_parameters(inner)
        elif isinstance(value, list):
            for inner in value:
                names += self.unset_parameters(inner)
        return [
            n
            for n in dict.fromkeys(names)
            if n in params
            and n not in self.template.parameters
            and not (isinstance(params[n], dict) and "Default" in params[n])
        ]

    def why_unresolved(self, value: Any) -> str:
        """Why `value` has no value, as a parenthesis for a warning ("" when it is none of
        these): a parameter nobody set, a resource its Condition leaves out."""
        unset = self.unset_parameters(value)
        if unset:
            pairs = " ".join(f"{n}=..." for n in unset)
            return (
                f" (parameter {', '.join(unset)} has no Default and no value: pass "
                f"--parameter-overrides '{pairs}' or set it in samconfig.toml)"
            )
        ref = logical_ref(value)
        if ref in self.template.absent:
            condition = self.template.absent[ref]
            return f" (Resources.{ref} is not deployed: its Condition {condition} is false)"
        return ""

    def ref(self, name: str) -> str | None:
        if name in PSEUDO:
            return PSEUDO[name]
        params = self.template.data.get("Parameters") or {}
        if isinstance(params, dict) and name in params and name in self.template.parameters:
            return self.template.parameters[name]
        if isinstance(params, dict) and name in params:
            definition = params[name]
            default = definition.get("Default") if isinstance(definition, dict) else None
            return None if default is None else str(default)
        kind = RESOURCE_KINDS.get(self.template.type_of(name) or "")
        if kind is None:
            return None
        resolved = self.name_of(name)
        return {
            "queues": f"${{queues.{resolved}.url}}",
            "topics": f"${{topics.{resolved}.arn}}",
            "secrets": f"${{secrets.{resolved}.arn}}",  # a secret's Ref is its ARN
        }.get(kind, resolved)

    def get_att(self, logical_id: str, attribute: str) -> str | None:
        kind = RESOURCE_KINDS.get(self.template.type_of(logical_id) or "")
        if kind is None:
            return None
        name = self.name_of(logical_id)
        reference = {
            ("buckets", "Arn"): "arn",
            ("tables", "Arn"): "arn",
            ("tables", "StreamArn"): "stream_arn",
            ("queues", "Arn"): "arn",
            ("queues", "QueueUrl"): "url",
            ("topics", "TopicArn"): "arn",
            ("secrets", "Id"): "arn",
        }.get((kind, attribute))
        if reference is not None:
            return f"${{{kind}.{name}.{reference}}}"
        if attribute in ("QueueName", "TopicName", "BucketName"):
            return name
        return None

    def _sub(self, arg: Any, loc: tuple[Any, ...]) -> str | None:
        if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], dict):
            text, variables = arg
        else:
            text, variables = arg, {}
        if not isinstance(text, str):
            return None
        failed = False

        def substitute(match: re.Match[str]) -> str:
            nonlocal failed
            inner = match.group(1)
            if inner.startswith("!"):
                failed = True  # a literal ${...} would read as a lambdafuzz reference
                return ""
            if inner in variables:
                found = self.scalar(variables[inner], loc)
            elif "." in inner and not inner.startswith("AWS::"):
                found = self.get_att(*inner.split(".", 1))
            else:
                found = self.ref(inner)
            if found is None:
                failed = True
                return ""
            return found

        result = re.sub(r"\$\{([^}]*)\}", substitute, text)
        return None if failed else result


def is_intrinsic(value: Any) -> bool:
    """`{"Ref": ...}` or `{"Fn::...": ...}`: a value the template computes."""
    return (
        isinstance(value, dict)
        and len(value) == 1
        and next(iter(value)).startswith(("Ref", "Fn::"))
    )


def short_value(value: Any) -> str:
    """A template value as a note shows it: its repr, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
