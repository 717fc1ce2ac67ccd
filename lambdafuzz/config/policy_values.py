"""Template values inside IAM statements -> the strings the permission oracle matches.

A statement's `Resource` is written with intrinsics (`!GetAtt Orders.Arn`, `!Sub
arn:${AWS::Partition}:s3:::${Bucket}/*`, the `Fn::Sub` a SAM policy template expands to).
`config.sam_template.Resolver` turns those naming emulated resources into lambdafuzz's
physical names and `${tables.orders.arn}` references; this module adds what only a policy
needs:

* a resource lambdafuzz does not emulate (a function, a stream, a state machine) gets the
  ARN it would have, named both ways the handler may name it (its literal name property
  and its logical id, which is what `env` holds for it);
* `Fn::If` on a condition that cannot be evaluated reads both branches;
* whatever still cannot be resolved becomes `*`, and a note says so.

`*` over-grants on purpose: a statement that allows more than the role does can only hide
a permission finding, never make a false one; dropping the statement instead would report
calls production allows.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.config.sam_template import PSEUDO, Resolver, Template

#: `Fn::If` / `Fn::Join` alternatives kept per value (a product of alternatives is capped).
MAX_ALTERNATIVES = 16
NO_VALUE = {"Ref": "AWS::NoValue"}


@dataclass(slots=True, frozen=True)
class _Shape:
    """How a resource lambdafuzz does not emulate is named in an ARN."""

    name_property: str  # the property holding its physical name, when set
    arn: str  # with {region}, {account}, {name}
    ref_is_arn: bool = False  # `!Ref` gives its ARN (else its name)
    name_attributes: tuple[str, ...] = ()  # `!GetAtt X.<attr>` giving its name


_FUNCTION = _Shape("FunctionName", "arn:aws:lambda:{region}:{account}:function:{name}")
_STATE_MACHINE = "arn:aws:states:{region}:{account}:stateMachine:{name}"
UNEMULATED: dict[str, _Shape] = {
    "AWS::Serverless::Function": _FUNCTION,
    "AWS::Lambda::Function": _FUNCTION,
    "AWS::Kinesis::Stream": _Shape("Name", "arn:aws:kinesis:{region}:{account}:stream/{name}"),
    "AWS::Serverless::StateMachine": _Shape("Name", _STATE_MACHINE, True, ("Name",)),
    "AWS::StepFunctions::StateMachine": _Shape("StateMachineName", _STATE_MACHINE, True, ("Name",)),
    "AWS::Events::EventBus": _Shape(
        "Name", "arn:aws:events:{region}:{account}:event-bus/{name}", False, ("Name",)
    ),
    "AWS::KinesisFirehose::DeliveryStream": _Shape(
        "DeliveryStreamName", "arn:aws:firehose:{region}:{account}:deliverystream/{name}"
    ),
}


@dataclass(slots=True)
class PolicyValues:
    """Resolves the values of one template's statements; collects a note per value it
    could not resolve, naming `source` (the statement being read)."""

    template: Template
    values: Resolver
    notes: list[str] = field(default_factory=list)
    source: str = ""  # the statement being read, for notes

    def strings(self, value: Any) -> tuple[str, ...]:
        """A scalar value's alternatives (usually one; none for `AWS::NoValue`)."""
        if isinstance(value, bool):
            return ("true" if value else "false",)
        if isinstance(value, str | int | float):
            return (str(value),)
        if not (isinstance(value, dict) and len(value) == 1):
            return self.unresolved(value)
        ((fn, arg),) = value.items()
        if fn == "Ref" and isinstance(arg, str):
            return self._ref(arg, value)
        if fn == "Fn::GetAtt":
            parts = arg.split(".", 1) if isinstance(arg, str) else arg
            if (
                isinstance(parts, list)
                and len(parts) == 2
                and all(isinstance(p, str) for p in parts)
            ):
                return self._get_att(parts[0], parts[1], value)
        if fn == "Fn::Sub":
            return self._sub(arg, value)
        if fn == "Fn::Join" and isinstance(arg, list) and len(arg) == 2:
            separator, items = arg
            if isinstance(separator, str) and isinstance(items, list):
                return _product([self.strings(item) for item in items], separator)
        if fn == "Fn::If" and isinstance(arg, list) and len(arg) == 3:
            found = (s for branch in self.branches(value) for s in self.strings(branch))
            return tuple(dict.fromkeys(found))[:MAX_ALTERNATIVES]
        return self.unresolved(value)

    def listed(self, value: Any) -> list[str]:
        """A statement's `Action` / `Resource`: a string, a list, or an `Fn::If` of them."""
        if is_if(value):
            return _unique(s for branch in self.branches(value) for s in self.listed(branch))
        items = value if isinstance(value, list) else [value]
        return _unique(s for item in items for s in self.strings(item))

    def branches(self, value: Any, *, keep_no_value: bool = False) -> list[Any]:
        """The branch(es) of an `Fn::If` that apply: both when its condition cannot be
        evaluated (noted); `AWS::NoValue` left out unless asked for."""
        condition, yes, no = value["Fn::If"]
        chosen = self.values.condition(condition)
        if chosen is None:
            self.notes.append(
                f"{self.source}: the Condition {condition} of an Fn::If cannot be evaluated"
                f"{self.values.why_unresolved(self.template.data.get('Conditions', {}).get(condition))}"
                "; both branches are read (the statements may allow more than the role does)"
            )
            found = [yes, no]
        else:
            found = [yes] if chosen else [no]
        return [b for b in found if keep_no_value or b != NO_VALUE]

    def unresolved(self, value: Any) -> tuple[str, ...]:
        """`*` for a value that cannot be resolved, and a note saying so."""
        text = repr(value)
        shown = text if len(text) <= 80 else text[:77] + "..."
        self.notes.append(
            f"{self.source}: {shown} cannot be resolved{self.values.why_unresolved(value)}; "
            "`*` stands in for it, so the statement may allow more than the role does"
        )
        return ("*",)

    # --- intrinsics -------------------------------------------------------------------
    def _ref(self, name: str, value: Any) -> tuple[str, ...]:
        if name == "AWS::NoValue":
            return ()
        found = self.values.ref(name)
        if found is not None:
            return (found,)
        if name in self.template.resources:
            return self._unemulated(name, None, value)
        return self.unresolved(value)

    def _get_att(self, logical_id: str, attribute: str, value: Any) -> tuple[str, ...]:
        found = self.values.get_att(logical_id, attribute)
        if found is not None:
            return (found,)
        if logical_id in self.template.resources:
            return self._unemulated(logical_id, attribute, value)
        return self.unresolved(value)

    def _unemulated(self, logical_id: str, attribute: str | None, value: Any) -> tuple[str, ...]:
        """The name or ARN of a resource lambdafuzz does not emulate: under its literal name
        property and under its logical id (what `env` holds for a value naming it)."""
        shape = UNEMULATED.get(self.template.type_of(logical_id) or "")
        if shape is None:
            return self.unresolved(value)
        literal = self.template.properties(logical_id).get(shape.name_property)
        names = _unique(
            [literal, logical_id]
            if isinstance(literal, str) and "${" not in literal
            else [logical_id]
        )
        if attribute in shape.name_attributes or (attribute is None and not shape.ref_is_arn):
            return tuple(names)
        if attribute not in (None, "Arn"):
            return self.unresolved(value)
        region, account = PSEUDO["AWS::Region"], PSEUDO["AWS::AccountId"]
        return tuple(shape.arn.format(region=region, account=account, name=n) for n in names)

    def _sub(self, arg: Any, value: Any) -> tuple[str, ...]:
        if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[1], dict):
            text, variables = arg
        else:
            text, variables = arg, {}
        if not isinstance(text, str):
            return self.unresolved(value)
        parts: list[tuple[str, ...]] = []
        position = 0
        for match in re.finditer(r"\$\{([^}]*)\}", text):
            parts.append((text[position : match.start()],))
            inner = match.group(1)
            if inner.startswith("!"):  # `${!aws:username}`: a literal, an IAM policy variable
                parts.append((f"${{{inner[1:]}}}",))
            elif inner in variables:
                parts.append(self.strings(variables[inner]))
            elif "." in inner and not inner.startswith("AWS::"):
                logical_id, attribute = inner.split(".", 1)
                parts.append(
                    self._get_att(logical_id, attribute, {"Fn::GetAtt": [logical_id, attribute]})
                )
            else:
                parts.append(self._ref(inner, {"Ref": inner}))
            position = match.end()
        parts.append((text[position:],))
        return _product(parts, "")


def is_if(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) == 1
        and isinstance(value.get("Fn::If"), list)
        and len(value["Fn::If"]) == 3
    )


def _product(parts: list[tuple[str, ...]], separator: str) -> tuple[str, ...]:
    combined = itertools.islice(itertools.product(*parts), MAX_ALTERNATIVES)
    return tuple(dict.fromkeys(separator.join(c) for c in combined))


def _unique(values: Any) -> list[Any]:
    return list(dict.fromkeys(values))
