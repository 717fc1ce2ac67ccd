"""A SAM or CloudFormation template -> the same validated `Target` a lambdafuzz.yaml gives.

Users already describe their functions in `template.yaml`; re-describing them for the
fuzzer is the step that keeps a tool from being adopted.  This module reads the template
(through `sam_template`), builds the mapping a lambdafuzz.yaml for one function would
hold, and validates it with `config.target_from_dict`, so both paths share every check.
The function's IAM statements (`config.iam_statements`) become `permissions:`, checked
against every AWS call.  Whatever the template says that lambdafuzz does not model
(layers, VPC, unknown resource types, event types without a generator) is *listed* in
`TemplateImport.unsupported`, never dropped silently; `load_template_target` logs each as
a `warning [sam-unsupported]` line.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdafuzz.config.api_routes import API_TYPES, ApiRoutes, definition_routes, event_routes
from lambdafuzz.config.authorizers import function_authorizer
from lambdafuzz.config.cdk import (
    NOTIFICATIONS_TYPE,
    SILENT_TYPES,
    asset_path,
    asset_problem,
    is_internal,
    queue_notifications,
)
from lambdafuzz.config.code_archive import code_archive_dir
from lambdafuzz.config.event_filters import FILTERED_FIELDS, admits_s3
from lambdafuzz.config.event_keys import array_item_keys, event_keys, handler_file
from lambdafuzz.config.function_references import code_text, named_ids, referenced_ids
from lambdafuzz.config.iam_statements import IAM_TYPES, template_permissions
from lambdafuzz.config.inline_code import INLINE_MODULE, inline_code_dir
from lambdafuzz.config.invoking_services import SETTINGS, service_events
from lambdafuzz.config.own_modules import own_modules
from lambdafuzz.config.resource_properties import dropped_note, dropped_properties
from lambdafuzz.config.sam_template import (
    FUNCTION_TYPES,
    RESOURCE_KINDS,
    Resolver,
    Template,
    TemplateEvent,
    is_intrinsic,
    is_template,
    logical_ref,
    module_function,
    not_deployed,
    read_template,
    short_value,
    template_events,
)
from lambdafuzz.config.sample_events import EVENTS_DIR
from lambdafuzz.config.schema import ENV_NAME_EXPECTED, S3_EVENT_TYPE, env_problem
from lambdafuzz.config.source import dotpath, nearest
from lambdafuzz.config.websocket_routes import websocket_routes
from lambdafuzz.config.written_shapes import apply_written_shapes
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.task_inputs import task_input_buckets
from lambdafuzz.model.event_pattern import (
    OPERATORS,
    OR_KEY,
    PatternError,
    check_pattern,
    dump_pattern,
)
from lambdafuzz.model.target import PARAMETER_TYPES, Target, TriggerKind
from lambdafuzz.model.world import PROJECTION_TYPES

log = logging.getLogger("lambdafuzz.config.sam")

#: Credentials a template's Environment may hold (placeholders for `sam local`): left out,
#: the sandbox's fake ones win.
FAKE_CREDENTIAL_VARS = frozenset(
    {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}
)
#: Layer resources whose local content directory goes on sys.path (as /opt/python).
LAYER_TYPES = frozenset({"AWS::Serverless::LayerVersion", "AWS::Lambda::LayerVersion"})
#: Objects of a bucket that triggers the handler, when nothing narrows them.
DEFAULT_OBJECTS = {"min": 1, "max": 3, "formats": ["any"]}
DEFAULT_ITEMS = {"min": 0, "max": 3}
#: Records per event are capped so inputs stay small; a lambdafuzz.yaml may raise it.
MAX_RECORDS = 5
#: S3 key suffix filter -> the file format whose files end that way.
SUFFIX_FORMATS = {
    ".csv": "csv", ".csv.gz": "csv.gz", ".json": "json", ".xml": "xml", ".txt": "text",
    ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif", ".zip": "zip", ".gz": "gzip",
    ".pdf": "pdf",
}  # fmt: skip
#: Function properties that change nothing lambdafuzz models; the others are listed.
_IGNORED_PROPERTIES = frozenset(
    {
        "Handler", "CodeUri", "Code", "Runtime", "Environment", "Events", "Timeout",
        "MemorySize", "Description", "FunctionName", "Tags", "Architectures", "Tracing",
        "AutoPublishAlias", "AutoPublishCodeSha256", "DeploymentPreference", "PackageType",
        "ReservedConcurrentExecutions", "ProvisionedConcurrencyConfig", "LoggingConfig",
        "EphemeralStorage", "RuntimeManagementConfig", "PropagateTags", "VersionDescription",
        "InlineCode", "ImageUri", "ImageConfig", "Layers", "FunctionUrlConfig",
        "FileSystemConfigs", "Policies", "Role", "Connectors",
    }
)  # fmt: skip
_PROPERTY_NOTES = {
    "VpcConfig": "there is no network model; the handler reaches only the emulator",
    "PermissionsBoundary": (
        "not applied to the permission check (a boundary only takes permissions away: a "
        "call it denies is not found)"
    ),
    "DeadLetterQueue": "failed invocations are reported as failures, not redelivered",
    "EventInvokeConfig": "asynchronous invocation settings are not modelled",
    "SnapStart": "not modelled",
    "KmsKeyArn": "encryption is not modelled",
}
#: Broker events: the property listing what they read (Kafka topics, MQ queues).
_BROKER_DESTINATIONS = {
    "msk": "Topics",
    "kafka": "Topics",
    "activemq": "Queues",
    "rabbitmq": "Queues",
}
_API_INVALID = [400, 401, 403, 404, 405, 409, 413, 415, 422, 429]
_API_FAILURE = [500, 502, 503, 504]


@dataclass(slots=True, frozen=True)
class TemplateImport:
    """One function of a template, as lambdafuzz sees it."""

    function: str  # logical id
    target: Target
    config: Mapping[str, Any]  # the lambdafuzz.yaml-shaped mapping the target was built from
    unsupported: tuple[str, ...]  # what the template says that lambdafuzz does not model
    # settings merged over the import (`config.overlay`): "lambdafuzz.yaml functions.F (...)"
    overlays: tuple[str, ...] = ()
    # what the template fixes about the inputs (`config.written_shapes`), said once
    notes: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class TemplateFunctions:
    fuzzable: tuple[str, ...]  # logical ids, in template order
    skipped: tuple[str, ...]  # "Name: why", for functions lambdafuzz cannot fuzz


# =========================================================================== functions
def template_functions(path: Path | str) -> TemplateFunctions:
    """The template's functions, split into those lambdafuzz can fuzz and those it cannot."""
    template = read_template(Path(path))
    fuzzable: list[str] = []
    skipped: list[str] = []
    for logical_id, condition in template.absent.items():
        if template.data["Resources"][logical_id].get("Type") in FUNCTION_TYPES:
            skipped.append(f"{logical_id}: {not_deployed(condition)}")
    for logical_id in template.resources:
        if template.type_of(logical_id) not in FUNCTION_TYPES:
            continue
        reason = _unfuzzable(template, logical_id)
        if reason is None:
            fuzzable.append(logical_id)
        else:
            skipped.append(f"{logical_id}: {reason}")
    return TemplateFunctions(tuple(fuzzable), tuple(skipped))


def template_function_names(path: Path | str) -> list[str]:
    """Logical ids of the functions to fuzz, in template order; skipped ones are logged."""
    functions = template_functions(path)
    for reason in functions.skipped:
        log.warning("warning [sam-unsupported]: %s: skipped function %s", path, reason)
    if not functions.fuzzable:
        listed = "; ".join(functions.skipped) or "the template defines none"
        raise ConfigError(
            f"{path}: no function lambdafuzz can fuzz ({listed}); expected an "
            f"{' or '.join(FUNCTION_TYPES)} with a Python runtime, local code and a "
            f"supported event (S3, SQS, SNS, DynamoDB, Kinesis, MSK, SelfManagedKafka, MQ, "
            f"Schedule, Api, HttpApi, EventBridgeRule) or none."
        )
    return list(functions.fuzzable)


def _unfuzzable(template: Template, logical_id: str) -> str | None:
    props = {**template.globals(), **template.properties(logical_id)}
    resource = template.resource(logical_id)
    if is_internal(logical_id, resource):
        return "a function CDK adds for its own custom resources"
    asset = asset_problem(template.path.parent, resource)
    if asset is not None:
        return asset
    runtime = props.get("Runtime")
    if isinstance(runtime, str) and not runtime.startswith("python"):
        return f"runtime {runtime} (lambdafuzz fuzzes Python handlers)"
    if props.get("PackageType") == "Image" or "ImageUri" in props:
        return "a container image function (no local handler code)"
    inline = _inline_code(props)
    if inline is not None and not isinstance(inline, str):
        return "inline code that is not a literal string (put it in a file, CodeUri)"
    handler = props.get("Handler")
    if not isinstance(handler, str):
        return "no Handler"
    if "." not in handler or handler.endswith((".sh", ".js", ".mjs")):
        return (
            f"Handler {handler!r} is not a Python module.function (a custom bootstrap, such "
            "as the Lambda Web Adapter, runs it)"
        )
    if props.get("Events") and not template_events(template, logical_id, props)[0]:
        return (
            "no event lambdafuzz can generate (S3, SQS, SNS, DynamoDB, Kinesis, MSK, "
            "SelfManagedKafka, MQ, Schedule, Api, HttpApi, EventBridgeRule; or none: direct "
            "invocation)"
        )
    return None


def _inline_code(props: Mapping[str, Any]) -> Any:
    """A function's inline code (SAM `InlineCode`, CloudFormation `Code.ZipFile`), None
    when its code is a directory."""
    if "InlineCode" in props:
        return props["InlineCode"]
    code = props.get("Code")
    if isinstance(code, dict) and "ZipFile" in code:
        return code["ZipFile"]
    return None


def load_template_target(path: Path | str, function_name: str | None = None) -> Target:
    """The Target of one function (the only one when `function_name` is None), logging
    what the template says that lambdafuzz does not model."""
    imported = load_template(path, function_name)
    for item in imported.unsupported:
        log.warning("warning [sam-unsupported]: %s: %s", imported.function, item)
    if imported.overlays:
        log.warning(
            "note [overlay]: %s: settings over the template's from %s",
            imported.function,
            "; ".join(imported.overlays),
        )
    for note in imported.notes:
        log.warning("note [sam-integrations]: %s: %s", imported.function, note)
    samples = imported.target.samples
    if samples:
        log.warning(
            "note [sample-events]: %s: %d sample event(s) from %s/ are the first inputs: %s",
            imported.function,
            len(samples),
            Path(path).parent / EVENTS_DIR,
            ", ".join(s.name for s in samples),
        )
    return imported.target


def load_template(path: Path | str, function_name: str | None = None) -> TemplateImport:
    """One function of the template (the overlay's `function:`, or the only one, when
    `function_name` is None), with the settings of its overlays (`config.overlay`)."""
    from lambdafuzz.config.overlay import default_function, with_overlays
    from lambdafuzz.config.schema import target_from_dict

    template = read_template(Path(path))
    name = _pick_function(template, function_name or default_function(template.path))
    importer = _Importer(template, name)
    config, unsupported = importer.config()
    config, where, overlays = with_overlays(config, template, name)
    try:
        target = target_from_dict(config, template.path, where)
    except ConfigError as exc:
        if where.blamed:  # a mistake of the overlay, said where it was written
            raise
        raise ConfigError(
            f"{template.path}: function {name}: the settings built from the template are "
            f"invalid (write a lambdafuzz.yaml with `lambdafuzz init --template {Path(path).name} "
            f"--function {name}` and fix it there): {exc}"
        ) from None
    return TemplateImport(
        name, target, config, tuple(unsupported), tuple(overlays), tuple(importer.notes)
    )


def template_config(
    path: Path | str, function_name: str | None = None
) -> tuple[str, dict[str, Any], list[str]]:
    """(function, lambdafuzz.yaml-shaped mapping, unsupported) without validating: for
    `lambdafuzz init`, which may override parts before validating."""
    template = read_template(Path(path))
    name = _pick_function(template, function_name)
    config, unsupported = _Importer(template, name).config()
    return name, config, unsupported


def function_for_handler(path: Path | str, handler: str) -> str | None:
    """The function of a template whose handler is `handler` (module.function), if one is."""
    template = read_template(Path(path))
    for logical_id in template.resources:
        if template.type_of(logical_id) in FUNCTION_TYPES:
            props = {**template.globals(), **template.properties(logical_id)}
            spec = props.get("Handler")
            if isinstance(spec, str) and module_function(spec) == handler:
                return logical_id
    return None


def _pick_function(template: Template, function_name: str | None) -> str:
    if function_name in template.absent:
        raise template.error(
            ("Resources", function_name, "Condition"),
            template.absent[function_name],
            f"a deployed function; {not_deployed(template.absent[function_name])}",
        )
    functions = [r for r in template.resources if template.type_of(r) in FUNCTION_TYPES]
    if function_name is None:
        if len(functions) != 1:
            raise ConfigError(
                f"{template.path}: the template defines {len(functions)} functions "
                f"({', '.join(functions) or 'none'}); expected --function NAME to choose one."
            )
        function_name = functions[0]  # the only one; still checked below
    if function_name not in functions:
        raise template.error(
            ("Resources",),
            function_name,
            f"the logical id of a function: one of {', '.join(functions) or '(none defined)'}",
            nearest(function_name, functions),
        )
    reason = _unfuzzable(template, function_name)
    if reason is not None:
        raise template.error(
            ("Resources", function_name),
            function_name,
            f"a function lambdafuzz can fuzz, not {reason}",
        )
    return function_name


# =========================================================================== importing
class _Importer:
    """Builds the lambdafuzz.yaml mapping of one function; collects what it cannot carry."""

    def __init__(self, template: Template, function: str) -> None:
        self.t = template
        self.function = function
        self.props = {**template.globals(), **template.properties(function)}
        self.loc = ("Resources", function, "Properties")
        self.unsupported: list[str] = []
        self.values = Resolver(template)
        self.single_module: str | None = None  # CodeUri names one .py file: the package
        self.filters: list[dict[str, Any]] = []  # the chosen event's filter patterns
        self.notes: list[str] = []  # what the template fixes about the inputs

    def config(self) -> tuple[dict[str, Any], list[str]]:
        self._duplicates()
        handler, root = self._handler()
        events, notes = template_events(self.t, self.function, self.props)
        self.unsupported.extend(notes)
        authorizer = None if events else function_authorizer(self.t, self.function)
        if authorizer is not None:  # called by API Gateway before the API's requests
            identity = {"Format": authorizer.format.value, "Identity": list(authorizer.identity)}
            events.append(TemplateEvent(authorizer.where, "authorizer", None, identity))
            self.unsupported.extend(authorizer.notes)
        sockets = None if events else websocket_routes(self.t, self.function)
        if sockets is not None:  # a WebSocket API's routes integrate it
            routes = {"Routes": list(sockets.route_keys)}
            events.append(TemplateEvent(sockets.where, "websocket", None, routes))
        api = self._api(events)
        if not events:  # a service of the template invokes it (Firehose, Step Functions)
            invoked, notes = service_events(self.t, self.function, self.values)
            events.extend(invoked)
            self.unsupported.extend(notes)
        if not events:  # no Events: invoked directly (SDK, Step Functions, other functions)
            events = [TemplateEvent("Invoke", "direct", None, {})]
        event = events[0]
        for other in events[1:]:
            if api is not None and other.kind == event.kind:
                continue  # another route of the same API trigger
            self.unsupported.append(
                f"Events.{other.name}: lambdafuzz fuzzes one trigger per function; using "
                f"Events.{event.name} (choose another in a lambdafuzz.yaml)"
            )
        self.filters = self._event_filters(event)
        resources = self._resources(event)
        layers = self._layers()
        config: dict[str, Any] = {
            "handler": handler,
            "root": root,
            "app_packages": self._app_packages(handler, root, layers),
            "trigger": {**self._trigger(event, resources, handler, root), **(api or {})},
            "env": self._env(),
            "timeout_s": self._number("Timeout", 3),
            "memory_mb": int(self._number("MemorySize", 128)),
            "resources": resources,
        }
        if layers:
            config["layers"] = layers
        file_systems = self._file_systems()
        if file_systems:
            config["file_systems"] = file_systems
        if (self.t.path.parent / EVENTS_DIR).is_dir():  # `sam init`'s sample events: seeds
            config["seeds"] = [EVENTS_DIR]
        if event.kind in ("apigateway", "apigateway-v2"):
            config["outcomes"] = {
                "invalid": {"status_codes": _API_INVALID},
                "failure": {"status_codes": _API_FAILURE},
            }
        self._properties()
        self._permissions(config)
        self._other_resources(event, self._code_texts(handler, root))
        # API Gateway integrations as a resource's only writers shape its data
        self.notes = apply_written_shapes(self.t, self.values, config)
        return config, self.unsupported

    def _permissions(self, config: dict[str, Any]) -> None:
        """The function's IAM statements as `permissions:` (validated with the rest); what
        cannot be known of them is noted."""
        permissions = template_permissions(self.t, self.values, self.function)
        config["permissions"] = permissions.config()
        self.unsupported.extend(f"permissions: {note}" for note in permissions.notes)
        self.unsupported.extend(
            f"permissions: {grant} (a call only it may allow is reported undecided, not as "
            "a finding)"
            for grant in permissions.unknown
        )

    def _duplicates(self) -> None:
        """A key the template holds twice is an error in the parts this function uses (its
        resource, Globals, parameters, conditions, mappings, the resources it refers to or
        that refer to it, the emulated ones) and a note elsewhere: SAM keeps the last one."""
        if not self.t.duplicates:
            return
        used = {self.function, *referenced_ids(self.props, self.t.resources)}
        for logical_id, resource in self.t.resources.items():
            kind = self.t.type_of(logical_id)
            if kind in RESOURCE_KINDS or self.function in named_ids(resource):
                used.add(logical_id)
        for path, line in self.t.duplicates:
            where = dotpath(path)
            if len(path) < 2 or path[0] != "Resources" or path[1] in used:
                raise ConfigError(
                    f"{self.t.path}:{line}: {where} appears twice; expected each key once "
                    f"(function {self.function} uses this part of the template)"
                )
            self.unsupported.append(
                f"{where} (line {line}) appears twice; the last one is read, as SAM reads it "
                "(this function does not use that resource)"
            )

    # --- handler and code -------------------------------------------------------------
    def _handler(self) -> tuple[str, str]:
        spec = self.props["Handler"]
        inline = _inline_code(self.props)
        if inline is not None:  # as Lambda runs it: index.py, imported as `index`
            root = inline_code_dir(inline)
            self.single_module = INLINE_MODULE  # cfnresponse beside it is Lambda's, not theirs
            rel = os.path.relpath(root, self.t.path.parent)
            return module_function(spec), Path(rel).as_posix()
        code = self.props.get("CodeUri", self.props.get("Code", "."))
        asset = asset_path(self.t.path.parent, self.t.resource(self.function))
        if asset is not None:  # CDK: Code names the uploaded zip, the metadata its folder
            code = os.path.relpath(asset, self.t.path.parent)
        loc = (*self.loc, "CodeUri" if "CodeUri" in self.props else "Code")
        if not isinstance(code, str) or code.startswith("s3://"):
            raise self.t.error(
                loc,
                code,
                "a local directory relative to the template (lambdafuzz imports the handler from it)",
            )
        root = (self.t.path.parent / code).resolve()
        if root.is_file() and root.suffix == ".zip":  # the deployment package itself
            root = code_archive_dir(root)
        elif root.is_file() and root.suffix == ".py":  # sam zips the one file
            self.single_module = root.stem
            root = root.parent
        if not root.is_dir():
            raise self.t.error(
                loc,
                code,
                f"an existing directory, .zip package or .py file relative to {self.t.path.parent}",
            )
        rel = os.path.relpath(root, self.t.path.parent)
        return module_function(spec), Path(rel).as_posix()

    def _app_packages(self, handler: str, root: str, layers: list[str]) -> list[str]:
        """The handler's package, or every top-level module of a dedicated CodeUri, and
        the modules of the function's local layers (code the team shares between its
        functions: covered and analysed as its own, not the packages a layer vendors)."""
        top = handler.split(".")[0]
        base = (self.t.path.parent / root).resolve()
        found = [top]
        if base != self.t.path.parent and self.single_module is None:
            found += [n for n in own_modules(base) if n not in found]
        for layer in layers:
            directory = (self.t.path.parent / layer).resolve()
            if (directory / "python").is_dir():  # the layer archive's layout (/opt/python)
                directory = directory / "python"
            found += [n for n in own_modules(directory) if n not in found]
        return found

    def _number(self, key: str, default: float) -> float:
        value = self.props.get(key, default)
        resolved = self.values.scalar(value, (*self.loc, key))
        try:
            number = float(resolved) if resolved is not None else float(default)
        except ValueError:
            raise self.t.error((*self.loc, key), value, "a number") from None
        return int(number) if number.is_integer() else number

    # --- resources --------------------------------------------------------------------
    def _resources(self, event: TemplateEvent) -> dict[str, list[dict[str, Any]]]:
        sections: dict[str, list[dict[str, Any]]] = {
            "buckets": [],
            "tables": [],
            "queues": [],
            "topics": [],
            "secrets": [],
            "parameters": [],
        }
        event_buckets = self._event_buckets(event)
        for logical_id in self.t.resources:
            kind = RESOURCE_KINDS.get(self.t.type_of(logical_id) or "")
            if kind is None:
                continue
            name = self.values.name_of(logical_id)
            spec: dict[str, Any] = {"name": name}
            if kind == "buckets" and logical_id in event_buckets:
                spec["objects"] = event_buckets[logical_id]
            elif kind == "tables":
                spec.update(self._table(logical_id, event))
            elif kind == "secrets":
                spec.update(self._secret(logical_id))
            elif kind == "parameters":
                spec.update(self._parameter(logical_id))
            self._dropped(logical_id)
            sections[kind].append(spec)
        return {k: v for k, v in sections.items() if v}

    def _secret(self, logical_id: str) -> dict[str, Any]:
        """A secret's fixed `SecretString`, or its `GenerateSecretString`: the key Secrets
        Manager generates and the JSON object template it goes into (a template that is
        no JSON object is left out: the whole string is then generated)."""
        props = self.t.properties(logical_id)
        loc = ("Resources", logical_id, "Properties")
        if "SecretString" in props:
            value = self.values.scalar(props["SecretString"], (*loc, "SecretString"))
            return {"value": value} if value and "${" not in value else {}
        generate = props.get("GenerateSecretString")
        if not isinstance(generate, dict):
            return {}
        where = (*loc, "GenerateSecretString")
        key, template = generate.get("GenerateStringKey"), generate.get("SecretStringTemplate")
        key = self.values.scalar(key, where) if key is not None else None
        template = self.values.scalar(template, where) if template is not None else None
        if not key or not template or "${" in template:
            return {}
        try:
            parsed = json.loads(template)
        except ValueError:
            return {}
        return {"generate_key": key, "value": template} if isinstance(parsed, dict) else {}

    def _parameter(self, logical_id: str) -> dict[str, Any]:
        """A parameter's type and its value when the template fixes it (a value from a
        stack parameter nobody set, or from another stack, is drawn)."""
        props = self.t.properties(logical_id)
        loc = ("Resources", logical_id, "Properties")
        spec: dict[str, Any] = {}
        kind = self.values.scalar(props.get("Type"), (*loc, "Type"))
        if kind in PARAMETER_TYPES:
            spec["type"] = kind
        value = (
            self.values.scalar(props.get("Value"), (*loc, "Value")) if "Value" in props else None
        )
        if value and "${" not in value:
            spec["value"] = value
        return spec

    def _event_buckets(self, event: TemplateEvent) -> dict[str, dict[str, Any]]:
        """Buckets whose objects the event describes, with the objects to generate."""
        objects = dict(DEFAULT_OBJECTS)
        if event.kind == "s3" and event.source:
            rules = _get(event.properties, "Filter", "S3Key", "Rules") or []
            for rule in rules if isinstance(rules, list) else []:
                if not isinstance(rule, dict):
                    continue
                value = rule.get("Value")
                name = rule.get("Name")
                name = name.lower() if isinstance(name, str) else ""
                if name == "prefix" and isinstance(value, str):
                    objects["prefixes"] = [value]
                elif name == "suffix" and isinstance(value, str) and value:
                    objects["suffixes"] = [value]
                    fmt = SUFFIX_FORMATS.get(value.lower())
                    if fmt:
                        objects["formats"] = [fmt]
            return {event.source: objects}
        if event.kind == "sqs" and event.source:
            return dict.fromkeys(self._buckets_notifying(event.source), objects)
        if event.kind == "eventbridge" and admits_s3(self._filter_texts()):
            buckets = self._bridge_buckets(event)
            objects.update(self._bridge_key_shape())
            return dict.fromkeys(buckets[:1], objects)
        if event.kind == "direct":  # a state machine task whose input is an S3 event
            settings = event.properties.get(SETTINGS)
            names = task_input_buckets(
                settings.get("inputs") if isinstance(settings, dict) else None
            )
            return {
                logical_id: dict(objects)
                for logical_id in self.t.resources
                if RESOURCE_KINDS.get(self.t.type_of(logical_id) or "") == "buckets"
                and self.values.name_of(logical_id) in names
            }
        return {}

    def _buckets_notifying(self, queue_id: str) -> list[str]:
        """Buckets whose NotificationConfiguration sends S3 events to the queue."""
        found = []
        for logical_id in self.t.resources:
            if self.t.type_of(logical_id) != "AWS::S3::Bucket":
                continue
            props = self.t.properties(logical_id)
            configurations = _get(props, "NotificationConfiguration", "QueueConfigurations")
            for qc in configurations if isinstance(configurations, list) else []:
                if isinstance(qc, dict) and logical_ref(qc.get("Queue")) == queue_id:
                    found.append(logical_id)
        found += queue_notifications(self.t.resources, logical_ref).get(queue_id, [])
        return found

    def _bridge_buckets(self, event: TemplateEvent) -> list[str]:
        buckets = [r for r in self.t.resources if self.t.type_of(r) == "AWS::S3::Bucket"]
        pattern = event.properties.get("Pattern")
        named = [
            b for b in buckets if b in repr(pattern) or self.values.name_of(b) in repr(pattern)
        ]
        return named or buckets

    def _table(self, logical_id: str, event: TemplateEvent) -> dict[str, Any]:
        props = self.t.properties(logical_id)
        loc = ("Resources", logical_id, "Properties")
        spec: dict[str, Any] = {}
        if self.t.type_of(logical_id) == "AWS::Serverless::SimpleTable":
            pk = props.get("PrimaryKey") or {"Name": "id", "Type": "String"}
            if not isinstance(pk, dict):
                raise self.t.error((*loc, "PrimaryKey"), pk, "a mapping {Name, Type}")
            pk_type = pk.get("Type", "String")
            kinds = {"String": "S", "Number": "N", "Binary": "B"}
            kind = kinds.get(pk_type) if isinstance(pk_type, str) else None
            if kind is None:
                raise self.t.error(
                    (*loc, "PrimaryKey", "Type"), pk.get("Type"), "String, Number or Binary"
                )
            spec["hash_key"] = {"name": pk.get("Name", "id"), "type": kind}
        else:
            definitions = self._list(loc, "AttributeDefinitions", "{AttributeName, AttributeType}")
            types = {
                d["AttributeName"]: d.get("AttributeType")
                for d in definitions
                if isinstance(d, dict) and isinstance(d.get("AttributeName"), str)
            }
            for entry in self._list(loc, "KeySchema", "{AttributeName, KeyType}"):
                if not isinstance(entry, dict):
                    continue
                name = entry.get("AttributeName")
                key_type = entry.get("KeyType")
                role = {"HASH": "hash_key", "RANGE": "range_key"}.get(
                    key_type if isinstance(key_type, str) else ""
                )
                if role is None or not isinstance(name, str) or name not in types:
                    raise self.t.error(
                        (*loc, "KeySchema"),
                        entry,
                        "KeyType HASH or RANGE on an attribute listed in AttributeDefinitions",
                    )
                spec[role] = {"name": name, "type": types[name]}
            if "hash_key" not in spec:
                raise self.t.error(
                    (*loc, "KeySchema"), props.get("KeySchema"), "a KeySchema with a HASH key"
                )
            stream = _get(props, "StreamSpecification", "StreamViewType")
            if isinstance(stream, str):
                spec["stream"] = stream
            indexes = self._indexes(logical_id, types)
            if indexes:
                spec["indexes"] = indexes
        if event.kind == "dynamodb-stream" and event.source == logical_id and "stream" not in spec:
            spec["stream"] = "NEW_AND_OLD_IMAGES"
            self.unsupported.append(
                f"Resources.{logical_id}: no StreamSpecification although Events.{event.name} "
                f"reads its stream; assumed NEW_AND_OLD_IMAGES"
            )
        spec["items"] = dict(DEFAULT_ITEMS)
        return spec

    def _indexes(self, logical_id: str, types: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The table's GlobalSecondaryIndexes and LocalSecondaryIndexes as `indexes`
        entries; one whose name, key or projection cannot be read is noted and left out."""
        loc = ("Resources", logical_id, "Properties")
        found: list[dict[str, Any]] = []
        for key, local in (("GlobalSecondaryIndexes", False), ("LocalSecondaryIndexes", True)):
            for i, entry in enumerate(self._list(loc, key, "{IndexName, KeySchema, Projection}")):
                index = self._index(entry, types, local)
                if index is None:
                    self.unsupported.append(
                        f"Resources.{logical_id}: {key}[{i}] {short_value(entry)} is not "
                        "{IndexName, KeySchema, Projection} on attributes of its "
                        "AttributeDefinitions; not created"
                    )
                    continue
                found.append(index)
        return found

    def _index(self, entry: Any, types: Mapping[str, Any], local: bool) -> dict[str, Any] | None:
        if not isinstance(entry, dict):
            return None
        name = self.values.scalar(entry.get("IndexName"), ())
        schema = entry.get("KeySchema")
        if not name or "${" in name or not isinstance(schema, list):
            return None
        index: dict[str, Any] = {"name": name}
        for part in schema:
            role = {"HASH": "hash_key", "RANGE": "range_key"}.get(
                str(part.get("KeyType")) if isinstance(part, dict) else ""
            )
            attribute = part.get("AttributeName") if role else None
            if role is None or not isinstance(attribute, str) or attribute not in types:
                return None
            index[role] = {"name": attribute, "type": types[attribute]}
        if "hash_key" not in index:
            return None
        if local:
            index["local"] = True
        projection = entry.get("Projection")
        kind = (
            projection.get("ProjectionType", "KEYS_ONLY") if isinstance(projection, dict) else None
        )
        if kind not in PROJECTION_TYPES:
            return None
        index["projection"] = kind
        if kind == "INCLUDE":
            attributes = projection.get("NonKeyAttributes")
            if not isinstance(attributes, list) or not all(isinstance(a, str) for a in attributes):
                return None
            index["non_key_attributes"] = attributes
        return index

    def _list(self, loc: tuple[Any, ...], key: str, items: str) -> list[Any]:
        value = self.t.properties(loc[1]).get(key) or []
        if not isinstance(value, list):
            raise self.t.error((*loc, key), value, f"a list of {items}")
        return value

    def _file_systems(self) -> list[dict[str, str]]:
        """`FileSystemConfigs`: each `LocalMountPath`, named after its access point's
        logical id (`!GetAtt AccessPoint.Arn`, `!Ref`) when it has one."""
        configs = self.props.get("FileSystemConfigs") or []
        found = []
        for entry in configs if isinstance(configs, list) else []:
            path = entry.get("LocalMountPath") if isinstance(entry, dict) else None
            if not isinstance(path, str) or not path.startswith("/mnt/"):
                continue
            arn = entry.get("Arn")
            ref = arn.get("Fn::GetAtt") or arn.get("Ref") if isinstance(arn, dict) else None
            ref = ref.split(".")[0] if isinstance(ref, str) else ref
            name = ref[0] if isinstance(ref, list) and ref else ref
            mount = {"path": path}
            if isinstance(name, str) and name:
                mount["name"] = name
            found.append(mount)
        return found

    def _layers(self) -> list[str]:
        """The function's local layers (a `!Ref` to a LayerVersion of this template whose
        content is a directory), relative to the template; the others are noted."""
        value = self.props.get("Layers") or []
        if not isinstance(value, list):
            value = [value]
        found = []
        for i, item in enumerate(value):
            logical_id = logical_ref(item)
            kind = self.t.type_of(logical_id) if logical_id in self.t.resources else None
            props = self.t.properties(logical_id) if kind in LAYER_TYPES else {}
            content = props.get("ContentUri", props.get("Content"))
            if isinstance(content, str) and not content.startswith("s3://"):
                directory = (self.t.path.parent / content).resolve()
                if directory.is_dir():
                    found.append(Path(os.path.relpath(directory, self.t.path.parent)).as_posix())
                    continue
            shown = logical_id or item
            self.unsupported.append(
                f"Layers[{i}]: {shown} is not a local layer directory of this template; install "
                "what it provides into the environment lambdafuzz runs in"
            )
        return found

    def _dropped(self, logical_id: str) -> None:
        """One note naming the properties of a modelled resource that the model lacks."""
        kind = self.t.type_of(logical_id) or ""
        dropped = dropped_properties(kind, self.t.properties(logical_id))
        if dropped:
            self.unsupported.append(dropped_note(logical_id, kind, dropped))

    def _code_texts(self, handler: str, root: str) -> list[str]:
        """The handler module's text (the inline code's, for inline code)."""
        module = handler.rpartition(".")[0]
        return [code_text(handler_file((self.t.path.parent / root).resolve(), module))]

    def _other_resources(self, event: TemplateEvent, code_texts: list[str]) -> None:
        """Notes on the resources lambdafuzz does not emulate that the function refers to
        (`function_references`); the others are counted in one line."""
        for logical_id, condition in self.t.undecided.items():
            why = self.values.why_unresolved(self.t.data.get("Conditions", {}).get(condition))
            self.unsupported.append(
                f"Resources.{logical_id}: its Condition {condition} cannot be evaluated"
                f"{why}; assumed deployed"
            )
        referenced = referenced_ids(self.props, self.t.resources, code_texts)
        unreferenced = 0
        for logical_id in self.t.resources:
            kind = self.t.type_of(logical_id)
            if kind in RESOURCE_KINDS or kind in FUNCTION_TYPES or kind in LAYER_TYPES:
                continue
            if kind in ("AWS::Lambda::EventSourceMapping", "AWS::Lambda::Url", NOTIFICATIONS_TYPE):
                continue
            if kind in IAM_TYPES:  # read by the permission check (`iam_statements`)
                continue
            if kind in SILENT_TYPES:
                continue
            routes_here = self.function in named_ids(self.t.resource(logical_id))
            if kind in API_TYPES and event.kind == "authorizer" and routes_here:
                self.unsupported.append(
                    f"Resources.{logical_id}: {kind}: only the authorizer calls it makes are "
                    "generated (not its routes, stages or the functions behind them)"
                )
            elif kind in API_TYPES and (logical_id in referenced or routes_here):
                self.unsupported.append(
                    f"Resources.{logical_id}: {kind}: only the routes it sends to this function "
                    "are modelled (not its stages, CORS, throttling or other functions' routes)"
                )
            elif logical_id == event.source:  # a Kinesis stream: its name reaches the event
                self._dropped(logical_id)
            elif logical_id in referenced:
                self.unsupported.append(f"Resources.{logical_id}: type {kind} is not emulated")
            else:
                unreferenced += 1
        if unreferenced:
            self.unsupported.append(
                f"{unreferenced} other resource{'s' if unreferenced > 1 else ''} of the "
                f"template {'are' if unreferenced > 1 else 'is'} not emulated (not referenced "
                "by the function)"
            )

    def _properties(self) -> None:
        for key in self.props:
            if key in _IGNORED_PROPERTIES:
                continue
            note = _PROPERTY_NOTES.get(key, "not used by lambdafuzz")
            self.unsupported.append(f"Properties.{key}: {note}")

    # --- API routes -------------------------------------------------------------------
    def _api(self, events: list[TemplateEvent]) -> dict[str, Any] | None:
        """The trigger settings of a function behind API Gateway or a function URL (routes,
        function_url), None for another trigger; a function without events
        that an API definition or its URL invokes gets that event added to `events`."""
        url = self.props.get("FunctionUrlConfig")
        for logical_id in self.t.resources:  # plain CloudFormation: an AWS::Lambda::Url
            if url is None and self.t.type_of(logical_id) == "AWS::Lambda::Url":
                props = self.t.properties(logical_id)
                if logical_ref(props.get("TargetFunctionArn")) == self.function:
                    url = props
        routes: ApiRoutes | None = None
        if not events:
            found = definition_routes(self.t, self.function)
            if found is not None:
                kind, routes = found
                events.append(TemplateEvent("OpenApi", kind, None, {}))
            elif isinstance(url, dict):
                events.append(TemplateEvent("FunctionUrl", "apigateway-v2", None, url))
                if url.get("AuthType") == "AWS_IAM":
                    self.unsupported.append(
                        "FunctionUrlConfig.AuthType: AWS_IAM callers are not modelled "
                        "(requestContext.authorizer is absent)"
                    )
                return {"function_url": True}
        elif url is not None:
            self.unsupported.append(
                f"FunctionUrlConfig: requests through the function URL are not fuzzed; "
                f"Events.{events[0].name} is"
            )
        if not events or events[0].kind not in ("apigateway", "apigateway-v2"):
            return None
        if routes is None:
            same_kind = [e for e in events if e.kind == events[0].kind]
            routes = event_routes(self.t, self.function, same_kind)
        self.unsupported.extend(routes.notes)
        if not routes.routes:
            return {}
        return {"routes": routes.routes}

    # --- trigger ----------------------------------------------------------------------
    def _trigger(
        self,
        event: TemplateEvent,
        resources: Mapping[str, Any],
        handler_spec: str,
        root: str,
    ) -> dict[str, Any]:
        trigger: dict[str, Any] = {"kind": event.kind}
        if event.source is not None:
            trigger["source"] = self.values.name_of(event.source)
        elif event.kind == "eventbridge" and admits_s3(self._filter_texts()):
            buckets = [b for b in resources.get("buckets", []) if "objects" in b]
            if buckets:
                trigger["source"] = buckets[0]["name"]
        if event.kind == "s3":
            types = event.properties.get("Events")
            types = [types] if isinstance(types, str) else types
            # the event types the notification sends (an intrinsic lambdafuzz cannot
            # resolve leaves the setting out: creations only, as before)
            if (
                isinstance(types, list)
                and types
                and all(isinstance(t, str) and S3_EVENT_TYPE.fullmatch(t) for t in types)
            ):
                trigger["s3_events"] = types
        if event.kind == "sqs" and event.source and self._buckets_notifying(event.source):
            trigger["body"] = "s3-event"
        if self.filters:
            trigger["filters"] = self.filters
        if event.kind == "schedule":
            name = event.properties.get("Name")
            rule = name if isinstance(name, str) else f"{self.function}-{event.name}"
            trigger["source"] = re.sub(r"[^A-Za-z0-9_.-]", "-", rule)[:64]
        if event.kind in _BROKER_DESTINATIONS:
            trigger.update(self._broker_destination(event))
        if event.kind == "websocket":
            trigger["routes"] = list(event.properties["Routes"])
        if event.kind == "authorizer":
            trigger["format"] = event.properties["Format"]
            if event.properties["Identity"]:
                trigger["identity"] = list(event.properties["Identity"])
        trigger.update(event.properties.get(SETTINGS) or {})  # `config.invoking_services`
        if event.constant_json is not None:  # a rule's or schedule's Input, always the same
            trigger["constant"] = json.loads(event.constant_json)
        elif event.kind == "direct" and "payloads" not in trigger:
            module, _, function = handler_spec.rpartition(".")
            source = handler_file((self.t.path.parent / root).resolve(), module)
            keys = event_keys(source, function) if source is not None else ()
            items = array_item_keys(source, function) if source is not None and not keys else None
            if items is not None:  # it iterates its payload: an array of objects
                trigger["array"] = True
                keys = items
            if keys:
                trigger["keys"] = list(keys)
        if event.kind == "direct" and self._asynchronous():
            trigger["asynchronous"] = True
        # the event's (or event source mapping's) FunctionResponseTypes: Lambda reads the
        # function's batchItemFailures only with ReportBatchItemFailures in it
        responses = event.properties.get("FunctionResponseTypes")
        if event.kind in ("sqs", "kinesis", "dynamodb-stream") and responses is not None:
            if isinstance(responses, list) and all(isinstance(r, str) for r in responses):
                if "ReportBatchItemFailures" in responses:
                    trigger["report_batch_item_failures"] = True
            else:
                self.unsupported.append(
                    f"Events.{event.name}.FunctionResponseTypes: {short_value(responses)} is not a "
                    "list of response types; partial batch responses assumed off"
                )
        batch = event.properties.get("BatchSize")
        if event.kind in ("sqs", "dynamodb-stream", "kinesis", "firehose", *_BROKER_DESTINATIONS):
            size = batch if isinstance(batch, int) and batch > 0 else 10
            trigger["records"] = {"min": 1, "max": min(size, MAX_RECORDS)}
        return trigger

    def _asynchronous(self) -> bool:
        """Whether the template says the function is invoked asynchronously: settings that
        apply to asynchronous invocations only (its retries, where failed events go)."""
        return any(self.props.get(key) for key in ("EventInvokeConfig", "DeadLetterQueue"))

    def _broker_destination(self, event: TemplateEvent) -> dict[str, Any]:
        """The topic (Kafka) or queue (MQ) the event reads: its first; the others noted."""
        key = _BROKER_DESTINATIONS[event.kind]
        names = event.properties.get(key)
        names = names if isinstance(names, list) else [names] if names is not None else []
        resolved = [
            self.values.scalar(n, ("Resources", self.function, "Events", event.name, key))
            for n in names
        ]
        if len(resolved) > 1:
            self.unsupported.append(
                f"Events.{event.name}: {key} {resolved[1:]}: lambdafuzz reads one; "
                f"using {resolved[0]!r}"
            )
        if event.kind == "activemq" and logical_ref(event.properties.get("Broker")) is None:
            self.unsupported.append(
                f"Events.{event.name}: the Broker is not a broker of this template; assumed "
                "ActiveMQ (a lambdafuzz.yaml with `kind: rabbitmq` fuzzes a RabbitMQ consumer)"
            )
        for extra in ("SourceAccessConfigurations", "ConsumerGroupId", "FilterCriteria"):
            if extra in event.properties:
                self.unsupported.append(
                    f"Events.{event.name}: {extra} is not modelled (the broker is not emulated)"
                )
        first = resolved[0] if resolved else None
        if first is None:
            return {}
        return {"source": re.sub(r"[^A-Za-z0-9_.:/-]", "-", first)[:249]}

    # --- event filters ----------------------------------------------------------------
    def _event_filters(self, event: TemplateEvent) -> list[dict[str, Any]]:
        """The event's filter patterns: `FilterCriteria.Filters[].Pattern` (JSON text) of
        an SQS, DynamoDB or Kinesis event (or event source mapping), the `Pattern` of an
        EventBridge rule; intrinsics in them resolved.  A pattern lambdafuzz cannot
        enforce is listed in `unsupported` and left out."""
        kind = TriggerKind(event.kind)
        props = event.properties
        found: list[dict[str, Any]] = []
        if kind is TriggerKind.SNS and "FilterPolicy" in props:
            self.unsupported.append(
                f"Events.{event.name}.FilterPolicy: SNS subscription filter policies are not "
                "enforced; every generated message reaches the handler"
            )
        if kind is TriggerKind.EVENTBRIDGE and "Pattern" in props:
            raw = [("Pattern", props["Pattern"])]
        elif kind in FILTERED_FIELDS and "FilterCriteria" in props:
            filters = _get(props, "FilterCriteria", "Filters")
            if not isinstance(filters, list):
                self.unsupported.append(
                    f"Events.{event.name}: FilterCriteria {short_value(props['FilterCriteria'])} "
                    f"is not {{Filters: [{{Pattern: ...}}]}}; not enforced"
                )
                return []
            raw = [
                (f"FilterCriteria.Filters[{i}].Pattern", _get(f, "Pattern"))
                for i, f in enumerate(filters)
            ]
        else:
            return []
        for where, value in raw:
            construct = f"Events.{event.name}.{where}"
            if is_intrinsic(value):  # a `!Sub` of the pattern's JSON text
                value = self._resolved(value, construct)
                if value is None:
                    continue
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except ValueError as exc:
                    self.unsupported.append(f"{construct}: not JSON ({exc}); not enforced")
                    continue
            pattern = self._resolved(value, construct)
            if pattern is None:
                continue
            try:
                check_pattern(pattern)
            except PatternError as exc:
                self.unsupported.append(
                    f"{construct}: {exc} (operators lambdafuzz enforces: "
                    f"{', '.join(OPERATORS)}, $or); not enforced"
                )
                continue
            fields = FILTERED_FIELDS[kind]
            unknown = [k for k in pattern if k != OR_KEY and k not in fields]
            if unknown:
                self.unsupported.append(
                    f"{construct}: field {unknown[0]!r} is not one of {', '.join(fields)} "
                    f"(the pattern would match nothing); not enforced"
                )
                continue
            found.append(pattern)
        return found

    def _resolved(self, value: Any, construct: str) -> Any:
        """A pattern with `!Ref`/`!Sub`/`!GetAtt` leaves replaced by what they name; None
        (noted) when one cannot be resolved."""
        if isinstance(value, list):
            items = [self._resolved(v, construct) for v in value]
            return None if any(i is None for i in items) else items
        if not isinstance(value, dict):
            return value
        if is_intrinsic(value):
            text = self.values.scalar(value, ("Resources", self.function, construct))
            text = text and re.sub(r"\$\{buckets\.([^.}]+)\.arn\}", r"arn:aws:s3:::\1", text)
            if text is None or "${" in text:
                self.unsupported.append(
                    f"{construct}: {short_value(value)} cannot be resolved; the pattern is not enforced"
                )
                return None
            return text
        resolved = {k: self._resolved(v, construct) for k, v in value.items()}
        return None if any(v is None for v in resolved.values()) else resolved

    def _bridge_key_shape(self) -> dict[str, list[str]]:
        """`prefixes` / `suffixes` of the objects an S3 EventBridge rule's only pattern
        asks for (`detail.object.key: [{prefix: ...}]`): the bucket's keys take that
        shape, so the notifications name objects the rule passes."""
        if len(self.filters) != 1:
            return {}
        rules = _get(self.filters[0], "detail", "object", "key")
        shape: dict[str, list[str]] = {}
        for name, plural in (("prefix", "prefixes"), ("suffix", "suffixes")):
            values = [r.get(name) for r in rules or [] if isinstance(r, dict)]
            if values and len(values) == len(rules) and all(isinstance(v, str) for v in values):
                shape[plural] = values
        return shape

    def _filter_texts(self) -> list[str]:
        return [dump_pattern(p) for p in self.filters]

    # --- environment ------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        credentials: list[str] = []
        sources = (
            (("Globals", "Function"), self.t.globals()),
            (self.loc, self.t.properties(self.function)),
        )
        for loc, source in sources:
            environment = source.get("Environment") or {}
            variables = environment.get("Variables") if isinstance(environment, dict) else None
            if not isinstance(environment, dict) or not isinstance(variables, dict | None):
                raise self.t.error(
                    (*loc, "Environment"), environment, "a mapping {Variables: {NAME: value}}"
                )
            for name, value in (variables or {}).items():
                name = str(name)
                if name in FAKE_CREDENTIAL_VARS:
                    credentials.append(name)
                    continue
                var_loc = (*loc, "Environment", "Variables", name)
                resolved = self.values.scalar(value, var_loc)
                problem = env_problem(name, resolved or "")
                if problem is not None and problem != ENV_NAME_EXPECTED:
                    raise self.t.error(var_loc, value, problem)
                if resolved is None:
                    placeholder = logical_ref(value) or name.lower()
                    self.unsupported.append(
                        f"Environment.Variables.{name}: {short_value(value)} cannot be resolved"
                        f"{self.values.why_unresolved(value)}; set to {placeholder!r}"
                    )
                    resolved = placeholder
                env[name] = resolved
        if credentials:
            self.unsupported.append(
                f"Environment.Variables: {', '.join(dict.fromkeys(credentials))} left out: the "
                "handler gets the sandbox's own fake credentials (lambdafuzz never passes "
                "credentials on)"
            )
        return env


def _get(value: Any, *keys: str) -> Any:
    """`value[k1][k2]...` where every level is a mapping; None where one is not."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


__all__ = [
    "TemplateFunctions",
    "TemplateImport",
    "function_for_handler",
    "is_template",
    "load_template",
    "load_template_target",
    "template_config",
    "template_function_names",
    "template_functions",
]
