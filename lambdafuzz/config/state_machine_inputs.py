"""What starts a template's state machine, and so what its execution's input is.

A state machine started by an EventBridge rule receives the rule's event (one its
pattern matches), cut down by the target's `InputPath`, or the target's constant
`Input`; a schedule's rule sends a "Scheduled Event"; an API (`Api` event) sends the
request's JSON body.  `execution_inputs` lists these for one state machine, read from
the state machine's SAM `Events` (`EventBridgeRule`, `CloudWatchEvent`, `Schedule`,
`ScheduleV2`, `Api`) and from `AWS::Events::Rule` resources whose `Targets[].Arn` names
it (`!Ref` / `!GetAtt`).  Each input is a plain dict, as the `inputs` trigger setting of
a lambdafuzz.yaml holds it (`generators.aws.task_inputs` draws from it):

* `{kind: eventbridge, patterns: [...], paths: [...]}`: an event the patterns admit
  (none: any event), each path of `paths` applied in turn (`$.detail`);
* `{kind: schedule, rule: name, paths: [...]}`: the rule's scheduled event;
* `{kind: constant, value: ...}`: the target's `Input`, always the same;
* `{kind: any}`: a JSON object (an API's request body, or an input lambdafuzz does not
  model: an `InputTransformer`'s text, a `ScheduleV2` target).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from lambdafuzz.config.sam_template import Resolver, Template, logical_ref
from lambdafuzz.model.event_pattern import PatternError, check_pattern, dump_pattern

#: SAM state machine event types that are EventBridge rules with a pattern.
_RULE_EVENTS: Final = ("EventBridgeRule", "CloudWatchEvent")
_SCHEDULE_EVENTS: Final = ("Schedule", "ScheduleV2")
_JSON_PATH: Final = re.compile(r"^\$(\.[A-Za-z0-9_@-]+|\[\d+\]|\['[^']*'\])*$")

InputT = dict[str, Any]


def execution_inputs(
    template: Template, machine: str, values: Resolver
) -> tuple[list[InputT], list[str]]:
    """The inputs `machine`'s executions start with, one per trigger (none: nothing in the
    template starts it), and notes on triggers not modelled."""
    inputs: list[InputT] = []
    notes: list[str] = []
    props = template.properties(machine)
    events = props.get("Events")
    for name, event in (events if isinstance(events, dict) else {}).items():
        if not isinstance(event, dict):
            continue
        kind = event.get("Type")
        where = f"Resources.{machine}.Properties.Events.{name}"
        event_props = event.get("Properties")
        event_props = event_props if isinstance(event_props, dict) else {}
        if kind in _RULE_EVENTS:
            pattern = event_props.get("Pattern")
            inputs.append(_rule_input(values, where, pattern, event_props, notes))
        elif kind in _SCHEDULE_EVENTS:
            rule = event_props.get("Name")
            rule = rule if isinstance(rule, str) else f"{machine}-{name}"
            inputs.append(_schedule_input(where, rule, kind, event_props, notes))
        elif kind == "Api":
            inputs.append({"kind": "any"})  # the request's JSON body
        else:
            notes.append(f"{where}: a {kind!r} event is not modelled; its input is any object")
            inputs.append({"kind": "any"})
    for logical_id in template.resources:
        if template.type_of(logical_id) != "AWS::Events::Rule":
            continue
        rule_props = template.properties(logical_id)
        targets = rule_props.get("Targets")
        for i, rule_target in enumerate(targets if isinstance(targets, list) else []):
            if not isinstance(rule_target, dict) or logical_ref(rule_target.get("Arn")) != machine:
                continue
            where = f"Resources.{logical_id}.Properties.Targets[{i}]"
            if "ScheduleExpression" in rule_props:
                name = rule_props.get("Name")
                rule = name if isinstance(name, str) else logical_id
                inputs.append(_schedule_input(where, rule, "Schedule", rule_target, notes))
            else:
                pattern = rule_props.get("EventPattern")
                inputs.append(_rule_input(values, where, pattern, rule_target, notes))
    return inputs, notes


def _rule_input(
    values: Resolver, where: str, pattern: Any, target: Mapping[str, Any], notes: list[str]
) -> InputT:
    fixed = _fixed_input(where, target, notes)
    if fixed is not None:
        return fixed
    found: InputT = {"kind": "eventbridge", "patterns": [], "paths": _paths(target)}
    if pattern is None:
        return found
    resolved = _resolved(values, pattern)
    if isinstance(resolved, str):  # the pattern as JSON text
        try:
            resolved = json.loads(resolved)
        except ValueError:
            resolved = None
    try:
        check_pattern(resolved)
    except PatternError as exc:
        notes.append(f"{where}: the rule's pattern is not enforced ({exc})")
        return found
    if not isinstance(resolved, dict):
        notes.append(f"{where}: the rule's pattern cannot be resolved; not enforced")
        return found
    found["patterns"] = [json.loads(dump_pattern(resolved))]
    return found


def _schedule_input(
    where: str, rule: str, kind: str, target: Mapping[str, Any], notes: list[str]
) -> InputT:
    fixed = _fixed_input(where, target, notes)
    if fixed is not None:
        return fixed
    if kind == "ScheduleV2":  # EventBridge Scheduler sends no event of its own
        notes.append(f"{where}: a ScheduleV2 without Input is not modelled; input is any object")
        return {"kind": "any"}
    return {
        "kind": "schedule",
        "rule": re.sub(r"[^A-Za-z0-9_.-]", "-", rule)[:64],
        "paths": _paths(target),
    }


def _fixed_input(where: str, target: Mapping[str, Any], notes: list[str]) -> InputT | None:
    """The target's constant `Input`, or `any` for an `InputTransformer`; None: neither."""
    if "InputTransformer" in target:
        notes.append(f"{where}: InputTransformer is not modelled; the input is any object")
        return {"kind": "any"}
    text = target.get("Input")
    if text is None:
        return None
    try:
        value = json.loads(text) if isinstance(text, str) else text
        return {"kind": "constant", "value": value, "paths": []}
    except ValueError:
        notes.append(f"{where}: Input {text!r} is not JSON; the input is any object")
        return {"kind": "any"}


def _paths(target: Mapping[str, Any]) -> list[str]:
    path = target.get("InputPath")
    return [path] if isinstance(path, str) and _JSON_PATH.fullmatch(path) else []


def _resolved(values: Resolver, value: Any) -> Any:
    """A pattern with `!Ref`/`!GetAtt`/`!Sub` leaves replaced by what they name; None when
    one cannot be resolved."""
    if isinstance(value, list):
        items = [_resolved(values, v) for v in value]
        return None if any(i is None for i in items) else items
    if not isinstance(value, dict):
        return value
    if len(value) == 1 and next(iter(value)) in ("Ref", "Fn::GetAtt", "Fn::Sub", "Fn::Join"):
        text = values.scalar(value, ("Resources",))
        text = text and re.sub(r"\$\{buckets\.([^.}]+)\.arn\}", r"arn:aws:s3:::\1", text)
        return None if text is None or "${" in text else text
    resolved = {k: _resolved(values, v) for k, v in value.items()}
    return None if any(v is None for v in resolved.values()) else resolved
