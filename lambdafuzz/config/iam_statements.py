"""The function's IAM statements, as its SAM/CloudFormation template grants them.

The permission oracle (`model.policy_evaluation`) needs every statement the function's
role holds once deployed. A template grants them in several ways, each read here as SAM
and CloudFormation read it:

* an `AWS::Serverless::Function` without `Role`: the role SAM creates, which holds
  `AWSLambdaBasicExecutionRole`, the X-Ray and VPC policies `Tracing` and `VpcConfig` add,
  the `Policies` (managed policy names and ARNs, SAM policy templates expanded by
  aws-sam-translator, inline documents), the dead-letter queue's and destinations'
  permissions, and the managed policies and statements its events add (`SQS` ->
  `AWSLambdaSQSQueueExecutionRole`, ...). SAM takes neither `Policies` nor `Role` from
  `Globals`.
* a `Role` (SAM ignores `Policies` then; a plain `AWS::Lambda::Function` always has one):
  an `AWS::IAM::Role` of the template with its inline `Policies`, `ManagedPolicyArns` and
  every `AWS::IAM::Policy` / `ManagedPolicy` / `RolePolicy` attached to it. A role defined
  elsewhere is *unknown*.
* `Connectors` (`AWS::Serverless::Connector` resources whose source is the function, and
  the function's embedded ones): the statements of aws-sam-translator's connector profiles.

Each statement keeps IAM's JSON form with its source as `Sid` (`Policies[0]
DynamoDBCrudPolicy (TableName: orders)`), and resource names resolved to the emulator's
(`config.policy_values`). What cannot be known becomes an `unknown` entry (a grant that
may allow anything: a managed policy lambdafuzz has no document for, a role outside the
template); a value that cannot be resolved becomes `*` with a note. Both err towards
allowing: a grant read too wide can only hide a permission finding, never make a false
one.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.config.connector_statements import connector_grants
from lambdafuzz.config.managed_policies import (
    APPROXIMATE,
    aws_managed_name,
    known_managed_names,
    managed_statements,
)
from lambdafuzz.config.policy_values import NO_VALUE, PolicyValues, is_if
from lambdafuzz.config.sam_template import (
    Resolver,
    Template,
    is_intrinsic,
    logical_ref,
    short_value,
)
from lambdafuzz.config.source import nearest
from lambdafuzz.model.permissions import statement_from_json

#: The managed policy SAM adds to the role it creates for a function with events of a
#: type (aws-sam-translator `model/eventsources/pull.py`, `get_policy_arn`).
EVENT_POLICIES = {
    "SQS": "AWSLambdaSQSQueueExecutionRole",
    "Kinesis": "AWSLambdaKinesisExecutionRole",
    "DynamoDB": "AWSLambdaDynamoDBExecutionRole",
    "MSK": "AWSLambdaMSKExecutionRole",
}
#: Policies a role has attached by their own resource.
_ATTACHED_TYPES = ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::IAM::RolePolicy")
#: The resource types the permission check reads (not emulated, yet not ignored).
IAM_TYPES = frozenset({*_ATTACHED_TYPES, "AWS::IAM::Role", "AWS::Serverless::Connector"})
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::[^:]*:role/(?:.*/)?([\w+=,.@-]+)")
_POLICY_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d*:policy/(?:.*/)?([\w+=,.@-]+)")


@dataclass(slots=True, frozen=True)
class TemplatePermissions:
    """What the function's role is granted, as far as its template tells."""

    statements: tuple[dict[str, Any], ...]  # IAM JSON, `Sid` = the source label
    unknown: tuple[str, ...]  # grants whose statements cannot be known here
    notes: tuple[str, ...]  # what was read wider than written (`*` for a value), ignored

    def config(self) -> dict[str, Any]:
        """The `permissions:` mapping of a lambdafuzz.yaml holding them."""
        return {
            "statements": [copy.deepcopy(s) for s in self.statements],
            "unknown": list(self.unknown),
        }


def template_permissions(
    template: Template, values: Resolver, function: str
) -> TemplatePermissions:
    """The statements of `function`'s execution role (a logical id of `template`)."""
    reader = _Reader(template, function, PolicyValues(template, values))
    reader.read()
    return TemplatePermissions(
        tuple(reader.statements),
        tuple(dict.fromkeys(reader.unknown)),
        tuple(dict.fromkeys(reader.values.notes)),
    )


@dataclass(slots=True)
class _Reader:
    t: Template
    function: str
    values: PolicyValues
    statements: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    _read: set[str] = field(default_factory=set)  # attached policies read (once each)

    def read(self) -> None:
        own = self.t.properties(self.function)
        sam = self.t.type_of(self.function) == "AWS::Serverless::Function"
        notes = self.values.notes
        if sam:
            for key in ("Policies", "Role"):
                if key in self.t.globals():
                    notes.append(
                        f"Globals.Function.{key}: SAM does not take {key} from Globals (its "
                        "transform refuses the template); ignored"
                    )
        role = own.get("Role")
        if sam and role is None:
            self._sam_role()
        elif role is None:
            self.unknown.append(
                "Role: the function names no execution role (CloudFormation requires one)"
            )
        else:
            if sam and "Policies" in own:
                notes.append("Policies: ignored, as SAM ignores them when the function has a Role")
            self._role(role, sam)
        self._connectors()

    # --- the role SAM creates ---------------------------------------------------------
    def _sam_role(self) -> None:
        """The statements of the role SAM creates for the function (`SamFunction.
        _construct_role` and the event sources' `_link_policy` in aws-sam-translator)."""
        props = {**self.t.globals(), **self.t.properties(self.function)}
        if props.get("DurableConfig"):
            self._managed("AWSLambdaBasicDurableExecutionRolePolicy", "")
        else:
            self._managed("AWSLambdaBasicExecutionRole", "")
        tracing = props.get("Tracing")
        if tracing and self.values.values.scalar(tracing, ()) != "Disabled":
            self._managed("AWSXrayWriteOnlyAccess", "Tracing:")
        if props.get("VpcConfig"):
            self._managed("AWSLambdaVPCAccessExecutionRole", "VpcConfig:")
        policies = self.t.properties(self.function).get("Policies")
        for i, entry in enumerate(policies if isinstance(policies, list) else [policies]):
            if entry is not None:
                self._policy(entry, f"Policies[{i}]")
        self._dead_letter_queue(props.get("DeadLetterQueue"))
        self._destinations(props.get("EventInvokeConfig"))
        events = self.t.properties(self.function).get("Events")
        for name, event in (events if isinstance(events, dict) else {}).items():
            if isinstance(event, dict):
                self._event(str(name), event)

    def _policy(self, entry: Any, label: str) -> None:
        """One entry of SAM's `Policies` (as `ResourcePolicies._get_type` tells them apart)."""
        if isinstance(entry, str):
            self._managed_text(entry, label)
        elif is_if(entry):
            self.values.source = label
            for branch in self.values.branches(entry):
                self._policy(branch, label)
        elif is_intrinsic(entry):  # a managed policy's ARN, computed
            self._policy_reference(entry, label)
        elif isinstance(entry, dict) and "Statement" in entry:
            self._document(entry, f"{label} inline")
        elif isinstance(entry, dict) and len(entry) == 1 and _processor().has(next(iter(entry))):
            ((name, parameters),) = entry.items()
            self._policy_template(name, parameters, label)
        else:
            names = list(_processor().policy_templates) if isinstance(entry, dict) else []
            close = nearest(str(next(iter(entry), "")), names) if names and entry else None
            self.unknown.append(
                f"{label}: {short_value(entry)} is neither a managed policy, a policy document nor "
                "a SAM policy template (SAM refuses the template)"
                + (f"; did you mean {close}?" if close else "")
            )

    def _policy_template(self, name: str, parameters: Any, label: str) -> None:
        from samtranslator.policy_template_processor.exceptions import (
            InsufficientParameterValues,
            InvalidParameterValues,
        )

        try:
            document = _processor().convert(name, parameters)
        except (InsufficientParameterValues, InvalidParameterValues) as exc:
            self.unknown.append(f"{label} {name}: {exc} (SAM refuses the template)")
            return
        shown = ", ".join(
            f"{key}: {self._shown(value)}"
            for key, value in (parameters.items() if isinstance(parameters, dict) else ())
        )
        self._document(document, f"{label} {name}" + (f" ({shown})" if shown else ""))

    def _dead_letter_queue(self, config: Any) -> None:
        actions = {"SQS": "sqs:SendMessage", "SNS": "sns:Publish"}
        if isinstance(config, dict) and config.get("Type") in actions:
            from samtranslator.model.iam import IAMRolePolicies

            policy = IAMRolePolicies.dead_letter_queue_policy(
                actions[config["Type"]], config.get("TargetArn")
            )
            self._document(policy["PolicyDocument"], "DeadLetterQueue")

    def _destinations(self, config: Any) -> None:
        """`EventInvokeConfig.DestinationConfig`: what SAM grants for each destination it
        is given (one SAM creates itself is no resource the handler can name)."""
        destinations = config.get("DestinationConfig") if isinstance(config, dict) else None
        for when in ("OnSuccess", "OnFailure"):
            target = destinations.get(when) if isinstance(destinations, dict) else None
            if isinstance(target, dict) and target.get("Destination") is not None:
                where = f"EventInvokeConfig.DestinationConfig.{when}"
                self._destination_policy(target.get("Type"), target["Destination"], where)

    def _destination_policy(self, kind: Any, destination: Any, where: str) -> None:
        from samtranslator.model.iam import IAMRolePolicies

        policies = {
            "SQS": IAMRolePolicies.sqs_send_message_role_policy,
            "SNS": IAMRolePolicies.sns_publish_role_policy,
            "EventBridge": IAMRolePolicies.event_bus_put_events_role_policy,
            "Lambda": IAMRolePolicies.lambda_invoke_function_role_policy,
            "S3Bucket": IAMRolePolicies.s3_send_event_payload_role_policy,
            "S3": IAMRolePolicies.s3_send_event_payload_role_policy,
        }
        if isinstance(kind, str) and kind in policies:
            self._document(policies[kind](destination, self.function)["PolicyDocument"], where)

    def _event(self, name: str, event: dict[str, Any]) -> None:
        """What an event adds to the role SAM creates: a managed policy, the statements
        its event source writes (MQ and Kafka credentials), an on-failure destination."""
        kind = event.get("Type")
        props = event.get("Properties") if isinstance(event.get("Properties"), dict) else {}
        label = f"Events.{name}:"
        managed = EVENT_POLICIES.get(kind) if isinstance(kind, str) else None
        if kind == "SNS" and props.get("SqsSubscription"):  # SAM adds a queue and its mapping
            managed = EVENT_POLICIES["SQS"]
        if managed is not None:
            self._managed(managed, label)
        source = _pull_sources().get(kind) if isinstance(kind, str) else None
        if source is not None:
            from samtranslator.model.exceptions import ExceptionWithMessage

            try:
                built = source.from_dict(
                    f"{self.function}{name}", {"Type": kind, "Properties": props}
                )
                documents = built.get_policy_statements(None) or []
            except (ExceptionWithMessage, ValueError, TypeError, KeyError) as exc:
                message = getattr(exc, "message", None) or str(exc)
                self.unknown.append(
                    f"{label}: the statements SAM adds for a {kind} event cannot be read "
                    f"({message})"
                )
                documents = []
            for document in documents:
                where = f"{label} {document.get('PolicyName', kind)}"
                self._document(document.get("PolicyDocument"), where)
            failure = props.get("DestinationConfig")
            failure = failure.get("OnFailure") if isinstance(failure, dict) else None
            if isinstance(failure, dict) and failure.get("Type") in ("SQS", "SNS", "S3"):
                where = f"{label} DestinationConfig.OnFailure"
                self._destination_policy(failure["Type"], failure.get("Destination"), where)

    # --- a role of the template -------------------------------------------------------
    def _role(self, value: Any, sam: bool) -> None:
        """The function's `Role`: a role of the template, or unknown."""
        if is_if(value):
            self.values.source = "Role"
            for branch in self.values.branches(value, keep_no_value=True):
                if branch == NO_VALUE:
                    if sam:  # SAM creates the role under the other branch's condition
                        self._sam_role()
                else:
                    self._role(branch, sam)
            return
        role = logical_ref(value)
        if role is None and isinstance(value, str):
            match = _ROLE_ARN.fullmatch(value)
            role = self._named(match.group(1), "AWS::IAM::Role", "RoleName") if match else None
        if role is not None and self.t.type_of(role) == "AWS::IAM::Role":
            self._template_role(role)
            return
        self.unknown.append(
            f"Role: {short_value(value)} is not a role of this template; its statements are unknown"
        )

    def _template_role(self, role: str) -> None:
        props = self.t.properties(role)
        prefix = f"Role {role}:"
        inline = props.get("Policies")
        for i, policy in enumerate(inline if isinstance(inline, list) else []):
            if isinstance(policy, dict):
                name = self._shown(policy.get("PolicyName"))
                self._document(policy.get("PolicyDocument"), f"{prefix} Policies[{i}] ({name})")
        managed = props.get("ManagedPolicyArns")
        for item in managed if isinstance(managed, list) else []:
            self._policy_reference(item, prefix)
        if props.get("PermissionsBoundary"):
            self.values.notes.append(
                f"Resources.{role}.PermissionsBoundary: not applied (a boundary only takes "
                "permissions away: a call it denies is not found)"
            )
        role_name = props.get("RoleName")
        for logical_id in self.t.resources:
            kind = self.t.type_of(logical_id)
            if kind not in _ATTACHED_TYPES or logical_id in self._read:
                continue
            policy = self.t.properties(logical_id)
            if kind == "AWS::IAM::RolePolicy":
                attached = [policy.get("RoleName")]
            else:
                attached = policy.get("Roles") if isinstance(policy.get("Roles"), list) else []
            if any(logical_ref(r) == role or (r is not None and r == role_name) for r in attached):
                self._read.add(logical_id)
                name = policy.get("PolicyName")
                label = f"{kind.rpartition('::')[2]} {logical_id}" + (
                    f" ({self._shown(name)})" if name is not None else ""
                )
                self._document(policy.get("PolicyDocument"), label)

    # --- managed policies -------------------------------------------------------------
    def _policy_reference(self, value: Any, label: str) -> None:
        """A managed policy named by an intrinsic or text: one of the template's
        `AWS::IAM::ManagedPolicy` resources, or an ARN or name."""
        ref = logical_ref(value)
        if ref is not None and self.t.type_of(ref) == "AWS::IAM::ManagedPolicy":
            self._template_managed(ref, label)
            return
        self.values.source = label
        for text in self.values.strings(value):
            self._managed_text(text, label)

    def _managed_text(self, text: str, label: str) -> None:
        name = aws_managed_name(text)
        if name is not None:
            self._managed(name, label)
            return
        match = _POLICY_ARN.fullmatch(text)
        own = (
            self._named(match.group(1), "AWS::IAM::ManagedPolicy", "ManagedPolicyName")
            if match
            else None
        )
        if own is not None:
            self._template_managed(own, label)
        elif text.startswith("arn:") or text == "*":
            shown = text if text != "*" else "a managed policy that cannot be resolved"
            self.unknown.append(
                f"{label} {shown}: not a policy of this template nor one lambdafuzz has the "
                "statements of; it may allow any call"
            )
        else:
            close = nearest(text, sorted(known_managed_names()))
            self.unknown.append(
                f"{label} {text!r}: not an AWS managed policy SAM knows (SAM passes the name on "
                "as it is, and IAM refuses a name that is no ARN)"
                + (f"; did you mean {close}?" if close else "")
            )

    def _managed(self, name: str, label: str) -> None:
        """An AWS managed policy's statements from lambdafuzz's table, else unknown."""
        where = f"{label} managed {name}".lstrip()
        statements = managed_statements(name)
        if statements is None:
            self.unknown.append(
                f"{where}: an AWS managed policy lambdafuzz has no statements for; it may "
                "allow any call"
            )
            return
        if name in APPROXIMATE:
            self.unknown.append(
                f"{where}: approximated by its read-like actions (Describe*, Get*, List*, ...); "
                "it may allow other calls"
            )
        for statement in statements:
            self._statement(statement, where)

    def _template_managed(self, logical_id: str, label: str) -> None:
        if logical_id in self._read:
            return
        self._read.add(logical_id)
        policy = self.t.properties(logical_id).get("PolicyDocument")
        self._document(policy, f"{label} ManagedPolicy {logical_id}")

    def _named(self, name: str, kind: str, name_property: str) -> str | None:
        """The resource of type `kind` whose literal `name_property` is `name`."""
        return next(
            (
                r
                for r in self.t.resources
                if self.t.type_of(r) == kind and self.t.properties(r).get(name_property) == name
            ),
            None,
        )

    # --- connectors -------------------------------------------------------------------
    def _connectors(self) -> None:
        for grant in connector_grants(self.t, self.function):
            if grant.document is None:
                self.unknown.append(f"{grant.label}: {grant.problem}")
            else:
                self._document(grant.document, grant.label)

    # --- documents and statements -----------------------------------------------------
    def _document(self, document: Any, label: str) -> None:
        """A policy document's statements (`{Statement: [...]}`, with or without Version)."""
        if is_if(document):
            self.values.source = label
            for branch in self.values.branches(document):
                self._document(branch, label)
            return
        statements = document.get("Statement") if isinstance(document, dict) else None
        if isinstance(statements, dict):
            statements = [statements]
        if not isinstance(statements, list):
            self.unknown.append(
                f"{label}: {short_value(document)} is not a policy document {{Statement: [...]}}"
            )
            return
        for statement in statements:
            self._statement(statement, label)

    def _statement(self, raw: Any, label: str) -> None:
        """One statement with its values resolved, checked as the oracle will read it."""
        if is_if(raw):
            self.values.source = label
            for branch in self.values.branches(raw):
                self._statement(branch, label)
            return
        if not isinstance(raw, dict):
            self.unknown.append(f"{label}: {short_value(raw)} is not a statement; not read")
            return
        sid = raw.get("Sid")
        source = f"{label} {sid}" if isinstance(sid, str) and sid else label
        self.values.source = source
        out: dict[str, Any] = {}
        effect = raw.get("Effect")
        if effect is not None and not isinstance(effect, str):
            resolved = self.values.strings(effect)
            effect = resolved[0] if len(resolved) == 1 else effect
        out["Effect"] = effect
        for key in ("Action", "NotAction", "Resource", "NotResource"):
            if key in raw:
                out[key] = self.values.listed(raw[key])
        if raw.get("Condition"):
            out["Condition"] = copy.deepcopy(raw["Condition"])  # kept, not evaluated
        out["Sid"] = source
        try:
            statement_from_json(out)
        except ValueError as exc:
            self.unknown.append(f"{source}: not a statement IAM accepts ({exc}); not read")
            return
        self.statements.append(out)

    def _shown(self, value: Any) -> str:
        """A parameter value for a label: resolved when it can be, else as written."""
        found = self.values.values.scalar(value, ())
        return found if found is not None else logical_ref(value) or short_value(value)


@functools.cache
def _processor() -> Any:
    """aws-sam-translator's policy templates (validated against their schema once)."""
    from samtranslator.policy_template_processor.processor import PolicyTemplatesProcessor

    return PolicyTemplatesProcessor(PolicyTemplatesProcessor.get_default_policy_templates_json())


@functools.cache
def _pull_sources() -> dict[str, Any]:
    """SAM's pull event sources by event type (`SQS`, `MQ`, `SelfManagedKafka`, ...)."""
    from samtranslator.model.eventsources import pull

    return {
        cls.resource_type: cls
        for cls in vars(pull).values()
        if isinstance(cls, type)
        and issubclass(cls, pull.PullEventSource)
        and cls is not pull.PullEventSource
    }
