"""Which functions of a template a value that names a Lambda function stands for.

Services that invoke a function (a Firehose processor's `LambdaArn`, a state machine
task's `FunctionName` or `Resource`) name it in several ways: `!GetAtt Fn.Arn`,
`!Sub ${Fn.Arn}`, `!Ref Fn`, an ARN text ending in the function's literal `FunctionName`
or that name alone (with an optional `:alias`, as Lambda's `FunctionName` parameter takes it),
or one of its aliases and versions (`!Ref FnAlias` of an `AWS::Lambda::Alias`, SAM's
`!Ref Fn.Alias` and `FnAliaslive` of `AutoPublishAlias`, an `AWS::Lambda::Version`).
"""

from __future__ import annotations

import re
from typing import Any

from lambdafuzz.config.function_references import named_ids
from lambdafuzz.config.sam_template import FUNCTION_TYPES, Template

_VERSIONED = ("AWS::Lambda::Alias", "AWS::Lambda::Version")
#: `...:function:NAME` (with an optional `:alias` / `:version` qualifier) in an ARN text.
_ARN_NAME = re.compile(r":function:([A-Za-z0-9_-]+)")
#: A plain function name, as Lambda's `FunctionName` parameter also takes it (`NAME`,
#: `NAME:alias`).
_PLAIN_NAME = re.compile(r"([A-Za-z0-9_-]{1,140})(?::[A-Za-z0-9$_-]+)?")


def functions_named(template: Template, value: Any) -> frozenset[str]:
    """The logical ids of the template's functions `value` names."""
    found: set[str] = set()
    for logical_id in named_ids(value):
        found |= _function_of(template, logical_id.split(".", 1)[0], logical_id)
    if isinstance(value, str):
        match = _ARN_NAME.search(value) or _PLAIN_NAME.fullmatch(value)
        if match is not None:
            found |= _by_function_name(template, match.group(1))
    return frozenset(found)


def _function_of(template: Template, base: str, reference: str) -> set[str]:
    kind = template.type_of(base)
    if kind in FUNCTION_TYPES:
        return {base}
    if kind in _VERSIONED:
        props = template.properties(base)
        return {
            i for i in named_ids(props.get("FunctionName")) if template.type_of(i) in FUNCTION_TYPES
        }
    if kind is None:  # SAM's generated alias / version: `FnAliaslive`, `FnVersion1a2b3c`
        for function in template.resources:
            if template.type_of(function) in FUNCTION_TYPES and re.fullmatch(
                rf"{re.escape(function)}(Alias|Version)\w*", reference
            ):
                return {function}
    return set()


def _by_function_name(template: Template, name: str) -> set[str]:
    return {
        logical_id
        for logical_id in template.resources
        if template.type_of(logical_id) in FUNCTION_TYPES
        and template.properties(logical_id).get("FunctionName") == name
    }
