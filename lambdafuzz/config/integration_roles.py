"""What an API Gateway integration's credentials role lets it write.

An integration whose request template takes the target from the request (`"StreamName":
"$input.params('streamName')"`) writes whichever resource the caller names, as far as
the role API Gateway assumes for it (`credentials` / `Credentials`) allows that action.
`role_targets` reads the role's statements (its inline `Policies`, the template's
`AWS::IAM::Policy` / `ManagedPolicy` attached to it) and returns the template resources
they allow the action on: `!GetAtt Stream.Arn`, `!Sub "${Stream.Arn}*"`, `!Sub
["${arn}*", {arn: !GetAtt Stream.Arn}]`, a literal ARN.  A grant lambdafuzz cannot bound
(`*`, `stream/*`, an unresolved reference, `NotResource`, a managed policy from outside
the template that may grant the service) makes it None: the target cannot be told.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from lambdafuzz.config.sam_template import Resolver, Template, logical_ref

ROLE_TYPE: Final = "AWS::IAM::Role"
POLICY_TYPES: Final = ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")
#: Resource types of each service and the ARN resource part of each: `stream/<name>`.
ARN_KINDS: Final = {
    "AWS::Kinesis::Stream": ("kinesis", "stream"),
    "AWS::KinesisFirehose::DeliveryStream": ("firehose", "deliverystream"),
    "AWS::DynamoDB::Table": ("dynamodb", "table"),
    "AWS::Serverless::SimpleTable": ("dynamodb", "table"),
}
#: AWS managed policies that grant nothing on these services (as their names say).
_SERVICE_WORDS: Final = re.compile(r"kinesis|firehose|dynamodb|admin|poweruser|fullaccess", re.I)
_UNRESOLVED: Final = "\0"


def role_targets(
    template: Template,
    values: Resolver,
    credentials: Any,
    service: str,
    action: str,
    names: Mapping[str, str],
) -> tuple[str, ...] | None:
    """The logical ids of the template resources of `service` the role `credentials`
    names allows `action` on (`names`: logical id -> deployed name of each), in
    template order; None when the role or one of its grants for the action cannot be
    bounded, or it allows the action on none of them."""
    role = _role(template, values, credentials)
    if role is None or not action:
        return None
    wanted = f"{service}:{action}".lower()
    allowed: set[str] = set()
    for statement in _statements(template, role):
        if statement is None:
            return None
        if statement.get("Effect", "Allow") != "Allow" or not _grants(statement, wanted):
            continue
        if "NotResource" in statement or "Resource" not in statement:
            return None
        resources = statement["Resource"]
        for resource in resources if isinstance(resources, list) else [resources]:
            matched = _matching(template, values, resource, service, names)
            if matched is None:
                return None
            allowed |= matched
    found = tuple(r for r in names if r in allowed)
    return found or None


def _role(template: Template, values: Resolver, credentials: Any) -> str | None:
    """The logical id of the template's role `credentials` names (`!GetAtt Role.Arn`, a
    role ARN ending in its name)."""
    found = logical_ref(credentials)
    if found is None and credentials is not None:
        text = values.scalar(credentials, ("Resources",))
        name = re.fullmatch(r"arn:[^:]*:iam::[^:]*:role/(?:.*/)?([\w+=,.@-]+)", text or "")
        if name is not None:
            roles = [r for r in template.resources if template.type_of(r) == ROLE_TYPE]
            named = [r for r in roles if _role_name(template, values, r) == name.group(1)]
            found = named[0] if len(named) == 1 else None
    return found if found is not None and template.type_of(found) == ROLE_TYPE else None


def _role_name(template: Template, values: Resolver, role: str) -> str | None:
    name = template.properties(role).get("RoleName")
    return values.scalar(name, ("Resources", role)) if name is not None else None


def _statements(template: Template, role: str) -> Iterator[Mapping[str, Any] | None]:
    """The statements of every policy of `role`; None for a policy that cannot be read."""
    props = template.properties(role)
    policies = props.get("Policies") or []
    for policy in policies if isinstance(policies, list) else [None]:
        yield from _document(policy.get("PolicyDocument") if isinstance(policy, dict) else None)
    managed = props.get("ManagedPolicyArns") or []
    for arn in managed if isinstance(managed, list) else [None]:
        ref = logical_ref(arn)
        if ref is not None and template.type_of(ref) in POLICY_TYPES:
            yield from _document(template.properties(ref).get("PolicyDocument"))
        elif not (isinstance(arn, str) and ":iam::aws:policy/" in arn) or _SERVICE_WORDS.search(
            arn
        ):
            yield None  # a policy from outside the template that may grant anything
    for x in template.resources:
        if template.type_of(x) not in POLICY_TYPES:
            continue
        roles = template.properties(x).get("Roles") or []
        refs = [logical_ref(r) for r in roles] if isinstance(roles, list) else [None]
        if role in refs or None in refs:  # attached to it, or perhaps (an unread name)
            yield from _document(template.properties(x).get("PolicyDocument"))


def _document(document: Any) -> Iterator[Mapping[str, Any] | None]:
    statements = document.get("Statement") if isinstance(document, dict) else None
    if isinstance(statements, dict):
        statements = [statements]
    if not isinstance(statements, list):
        yield None
        return
    for statement in statements:
        yield statement if isinstance(statement, dict) else None


def _grants(statement: Mapping[str, Any], wanted: str) -> bool:
    """Whether the statement's `Action` (or `NotAction`) covers the action `wanted`."""
    key = "NotAction" if "NotAction" in statement else "Action"
    actions = statement.get(key)
    actions = actions if isinstance(actions, list) else [actions]
    hit = any(isinstance(a, str) and fnmatch.fnmatchcase(wanted, a.lower()) for a in actions)
    return hit != (key == "NotAction")


def _matching(
    template: Template, values: Resolver, resource: Any, service: str, names: Mapping[str, str]
) -> set[str] | None:
    """The resources of `names` an IAM `Resource` entry matches; None when the entry
    cannot be bounded (`*`, a wildcard before the resource's name, an unresolved value)."""
    pattern = _pattern(template, values, names, resource)
    if _UNRESOLVED in pattern:
        return None
    parts = pattern.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn":
        return None
    if not fnmatch.fnmatchcase(service, parts[2]):
        return set()  # another service's resource
    kind = next(k for s, k in ARN_KINDS.values() if s == service)
    bounded = re.match(rf"{kind}/[^*?/]+", parts[5])
    if not (bounded and "*" not in parts[2] and "?" not in parts[2]):
        return None
    return {x for x, name in names.items() if fnmatch.fnmatchcase(f"{kind}/{name}", parts[5])}


def _pattern(template: Template, values: Resolver, names: Mapping[str, str], value: Any) -> str:
    """An IAM resource value as ARN text, `${X.Arn}` of a template resource as its ARN;
    `\\0` inside for what cannot be resolved."""
    if isinstance(value, str):
        return value
    if not (isinstance(value, dict) and len(value) == 1):
        return _UNRESOLVED
    ((fn, arg),) = value.items()
    if fn == "Fn::GetAtt":
        parts = arg.split(".", 1) if isinstance(arg, str) else arg
        if isinstance(parts, list) and len(parts) == 2:
            return _attribute(template, names, str(parts[0]), str(parts[1]))
    if fn == "Ref" and isinstance(arg, str):
        return _reference(template, values, names, arg)
    if fn == "Fn::Join" and isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], list):
        return str(arg[0]).join(_pattern(template, values, names, p) for p in arg[1])
    if fn == "Fn::Sub":
        text, inner = (arg[0], arg[1]) if isinstance(arg, list) and len(arg) == 2 else (arg, {})
        if not isinstance(text, str) or not isinstance(inner, dict):
            return _UNRESOLVED

        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in inner:
                return _pattern(template, values, names, inner[name])
            if "." in name and not name.startswith("AWS::"):
                return _attribute(template, names, *name.split(".", 1))
            return _reference(template, values, names, name)

        return re.sub(r"\$\{([^}!]*)\}", substitute, text)
    return _UNRESOLVED


def _attribute(
    template: Template, names: Mapping[str, str], logical_id: str, attribute: str
) -> str:
    """`X.Arn` of a stream, delivery stream or table as its ARN (a table's `StreamArn` as
    its stream's); `\\0` for any other."""
    kind = ARN_KINDS.get(template.type_of(logical_id) or "")
    if kind is None or attribute not in ("Arn", "StreamArn"):
        return _UNRESOLVED
    service, part = kind
    name = names.get(logical_id, logical_id)  # another service's: only its service matters
    arn = f"arn:aws:{service}:us-east-1:123456789012:{part}/{name}"
    return arn + "/stream/*" if attribute == "StreamArn" else arn


def _reference(template: Template, values: Resolver, names: Mapping[str, str], name: str) -> str:
    if name in template.resources:  # a resource's Ref is its name, no ARN
        return names.get(name, name)
    found = values.ref(name)
    return _UNRESOLVED if found is None else found
