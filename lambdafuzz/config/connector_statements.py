"""The policy documents SAM connectors from a function give its role.

A connector (`AWS::Serverless::Connector`, or a resource's embedded `Connectors:`) with
the function as its source becomes an `AWS::IAM::ManagedPolicy` on the function's role,
whose statements come from aws-sam-translator's connector profiles (`profiles.json`): the
`Read` / `Write` access categories for the destination's type, with `%{Destination.Arn}`
and the like replaced by intrinsics naming the destination. This module does what
`SamConnector.generate_resources` does for that policy and leaves the intrinsics to
`config.iam_statements`, which resolves them as every other statement's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lambdafuzz.config.sam_template import FUNCTION_TYPES, Template, logical_ref

#: SAM resource types -> the CloudFormation types connector profiles are written for
#: (aws-sam-translator `model/connector/connector.py`).
_CFN_TYPES = {
    "AWS::Serverless::Function": "AWS::Lambda::Function",
    "AWS::Serverless::StateMachine": "AWS::StepFunctions::StateMachine",
    "AWS::Serverless::Api": "AWS::ApiGateway::RestApi",
    "AWS::Serverless::HttpApi": "AWS::ApiGatewayV2::Api",
    "AWS::Serverless::SimpleTable": "AWS::DynamoDB::Table",
}
_SOURCE_TYPE = "AWS::Lambda::Function"


@dataclass(slots=True, frozen=True)
class ConnectorGrant:
    """One access category of one connector destination: a policy document (intrinsics
    unresolved), or why SAM would refuse it."""

    label: str  # "Connector ReadOrders (Read)"
    document: dict[str, Any] | None
    problem: str = ""


def connector_grants(template: Template, function: str) -> list[ConnectorGrant]:
    """What every connector from `function` grants its role, in template order (the
    `AWS::Serverless::Connector` resources, then the function's embedded ones)."""
    found: list[ConnectorGrant] = []
    for logical_id in template.resources:
        if template.type_of(logical_id) == "AWS::Serverless::Connector":
            props = template.properties(logical_id)
            if _is_function(props.get("Source"), function):
                found += _grants(template, function, logical_id, props)
    embedded = template.properties(function).get("Connectors")
    for name, connector in (embedded if isinstance(embedded, dict) else {}).items():
        props = connector.get("Properties") if isinstance(connector, dict) else None
        if isinstance(props, dict):
            found += _grants(template, function, str(name), props)
    return found


def _is_function(source: Any, function: str) -> bool:
    if not isinstance(source, dict):
        return False
    if "Id" in source:
        return source["Id"] == function
    return source.get("Type") in FUNCTION_TYPES and logical_ref(source.get("Arn")) == function


def _grants(
    template: Template, function: str, name: str, props: dict[str, Any]
) -> list[ConnectorGrant]:
    from samtranslator.model.connector_profiles.profile import get_profile, profile_replace

    found: list[ConnectorGrant] = []
    destinations = props.get("Destination")
    destinations = destinations if isinstance(destinations, list) else [destinations]
    permissions = props.get("Permissions")
    permissions = permissions if isinstance(permissions, list) else []
    for destination in destinations:
        kind, replacement = _destination(template, function, destination)
        profile = get_profile(_SOURCE_TYPE, kind) if kind else None
        if not profile or profile.get("Type") != "AWS_IAM_ROLE_MANAGED_POLICY":
            shown = repr(destination) if len(repr(destination)) <= 80 else kind
            found.append(
                ConnectorGrant(
                    f"Connector {name}",
                    None,
                    f"SAM connects no function to {shown} (its transform refuses the template)",
                )
            )
            continue
        categories = profile["Properties"]["AccessCategories"]
        for permission in permissions:
            label = f"Connector {name} ({permission})"
            if permission not in categories:
                problem = (
                    f"not one of {', '.join(categories)} for a destination of type {kind} "
                    "(SAM refuses the template)"
                )
                found.append(ConnectorGrant(label, None, problem))
                continue
            try:
                document = profile_replace(categories[permission], replacement)
            except ValueError as exc:
                found.append(ConnectorGrant(label, None, f"{exc} (SAM refuses the template)"))
                continue
            found.append(ConnectorGrant(label, document))
    return found


def _destination(
    template: Template, function: str, destination: Any
) -> tuple[str | None, dict[str, Any]]:
    """A destination's CloudFormation type and the profile's `%{...}` values."""
    from samtranslator.model.connector_profiles.profile import replace_cfn_resource_properties

    if not isinstance(destination, dict):
        return None, {}
    logical_id = destination.get("Id")
    if isinstance(logical_id, str):
        kind = template.type_of(logical_id)
        if kind is None:
            return None, {}
        kind = _CFN_TYPES.get(kind, kind)
        outputs = replace_cfn_resource_properties(kind, logical_id).get("Outputs", {})
        qualifier = destination.get("Qualifier", outputs.get("Qualifier"))
    else:
        kind = destination.get("Type")
        kind = _CFN_TYPES.get(kind, kind) if isinstance(kind, str) else None
        outputs = {
            "Arn": destination.get("Arn"),
            "Name": destination.get("Name"),
            "Id": destination.get("ResourceId"),
        }
        qualifier = destination.get("Qualifier")
    return kind, {
        "Source.Arn": {"Fn::GetAtt": [function, "Arn"]},
        "Destination.Arn": outputs.get("Arn"),
        "Destination.Name": outputs.get("Name"),
        "Destination.ResourceId": outputs.get("Id"),
        "Destination.Qualifier": qualifier,
    }
