"""Functions a template's state machines invoke from `Task` states, and what they send.

A task function has no `Events`: Step Functions invokes it with the task's payload, which
the definition spells out (`Parameters.Payload` of a `arn:aws:states:::lambda:invoke` or
`...lambda:invoke.waitForTaskToken` task, or `Parameters` of a task whose `Resource` is
the function's ARN).  A payload template's keys ending in `.$` hold JSONPaths
(`$$.Task.Token` is the task token, `$.order` a part of the state's input) and its other
keys constants: what the function receives has exactly those keys
(`generators.aws.task_payloads`).  A task without a payload template (`Payload.$: "$"`,
no `Parameters`) passes its state input whole, which the definition does not describe.

Definitions are read from `AWS::Serverless::StateMachine` (`Definition`, a local
`DefinitionUri`, `DefinitionSubstitutions`) and `AWS::StepFunctions::StateMachine`
(`Definition`, `DefinitionString` as text or `!Sub`, `DefinitionSubstitutions`); the
function is named as anywhere else (`config.function_arns`), or by a `${Var}` whose
substitution names it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.config.function_arns import functions_named
from lambdafuzz.config.sam_template import Template
from lambdafuzz.config.source import TEMPLATE_LIMITS, BoundedLoader, parse_yaml, read_text
from lambdafuzz.errors import ConfigError

STATE_MACHINE_TYPES = ("AWS::Serverless::StateMachine", "AWS::StepFunctions::StateMachine")
#: Task resources that invoke the function named in `Parameters.FunctionName`.
_INVOKE = re.compile(r"arn:aws[a-z-]*:states:::lambda:invoke(\.waitForTaskToken)?")
_VARIABLE = re.compile(r"\$\{([^}!]+)\}")


@dataclass(slots=True, frozen=True)
class TaskUse:
    """One task state invoking the function."""

    where: str  # "Resources.Flow.Definition.States.Charge", for messages
    payload: Any  # the payload template (JSON value); None: the state input, whole
    machine: str = ""  # the state machine's logical id
    # the task's `$` is the execution's input, at this path (its `InputPath`); None: the
    # state's input is an earlier state's output, which the definition does not describe
    input_path: str | None = None


@dataclass(slots=True, frozen=True)
class _Definition:
    where: str
    document: Mapping[str, Any]
    variables: Mapping[str, Any]  # `${Var}` -> the value it is substituted with


def function_tasks(template: Template, function: str) -> tuple[list[TaskUse], list[str]]:
    """Every task of the template's state machines that invokes `function`, and notes on
    definitions that could not be read or tasks that are not modelled."""
    tasks: list[TaskUse] = []
    notes: list[str] = []
    for logical_id in template.resources:
        if template.type_of(logical_id) not in STATE_MACHINE_TYPES:
            continue
        definition = _definition(template, logical_id, notes)
        if definition is None:
            continue
        receiving = execution_input_states(definition.document)
        for where, state in _task_states(definition.where, definition.document):
            use = _task_use(template, definition, where, state, function, notes)
            if use is None:
                continue
            payload = use.payload
            if payload is not None:  # the state's name is known
                payload = _named_state(payload, where.rpartition(".")[2])
            name = where.removeprefix(f"{definition.where}.States.")
            path = state.get("InputPath", "$") if name in receiving else None
            tasks.append(
                TaskUse(use.where, payload, logical_id, path if isinstance(path, str) else None)
            )
    return tasks, notes


#: Fields that make a passing state's output differ from its input.
_RESHAPING: Final = (
    "InputPath", "Parameters", "Result", "ResultPath", "ResultSelector", "OutputPath",
    "Arguments", "Output", "Assign", "Items", "ItemsPath",
)  # fmt: skip


def execution_input_states(document: Mapping[str, Any]) -> frozenset[str]:
    """The top-level states whose input is the execution's input itself: the `StartAt`
    state, and the states reached from it only through `Pass`, `Wait` and `Choice` states
    that reshape nothing (none of `_RESHAPING`), which hand their input on unchanged.
    Every other state's input is an earlier state's output (a task's result by default),
    which the definition does not describe; states inside `Parallel` branches and `Map`
    processors are not followed."""
    states = document.get("States")
    start = document.get("StartAt")
    if not isinstance(states, dict) or not isinstance(start, str):
        return frozenset()
    found: set[str] = set()
    pending = [start]
    while pending:
        name = pending.pop()
        state = states.get(name)
        if name in found or not isinstance(state, dict):
            continue
        found.add(name)
        if state.get("Type") not in ("Pass", "Wait", "Choice"):
            continue
        if any(key in state for key in _RESHAPING):
            continue
        following = [state.get("Next"), state.get("Default")]
        choices = state.get("Choices") if state.get("Type") == "Choice" else None
        for rule in choices if isinstance(choices, list) else []:
            following.append(rule.get("Next") if isinstance(rule, dict) else None)
        pending.extend(n for n in following if isinstance(n, str))
    return frozenset(found)


def _definition(template: Template, logical_id: str, notes: list[str]) -> _Definition | None:
    props = template.properties(logical_id)
    variables = props.get("DefinitionSubstitutions")
    variables = dict(variables) if isinstance(variables, dict) else {}
    where = f"Resources.{logical_id}.Properties"
    if isinstance(props.get("Definition"), dict):
        return _Definition(f"{where}.Definition", props["Definition"], variables)
    text = props.get("DefinitionString")
    if isinstance(text, dict) and "Fn::Sub" in text:
        inner = text["Fn::Sub"]
        if isinstance(inner, list) and len(inner) == 2 and isinstance(inner[1], dict):
            variables = {**variables, **inner[1]}
            inner = inner[0]
        text = inner
    if isinstance(text, str):
        try:
            document = json.loads(text)
        except ValueError as exc:
            notes.append(f"{where}.DefinitionString: not JSON ({exc}); its tasks are not read")
            return None
        if isinstance(document, dict):
            return _Definition(f"{where}.DefinitionString", document, variables)
    uri = props.get("DefinitionUri")
    if isinstance(uri, str) and not uri.startswith("s3://"):
        file = template.path.parent / uri
        try:  # JSON is YAML; a document with CloudFormation tags is refused here
            document, _ = parse_yaml(
                file, read_text(file, TEMPLATE_LIMITS), BoundedLoader, TEMPLATE_LIMITS
            )
        except ConfigError as exc:
            notes.append(f"{where}.DefinitionUri: {uri} cannot be read ({exc})")
            return None
        if isinstance(document, dict):
            return _Definition(f"{where}.DefinitionUri({uri})", document, variables)
    shown = next(
        (k for k in ("DefinitionUri", "DefinitionS3Location", "DefinitionString") if k in props),
        None,
    )
    if shown is not None:
        notes.append(
            f"{where}.{shown}: not a definition lambdafuzz can read; its tasks are not read"
        )
    return None


def _task_states(
    where: str, document: Mapping[str, Any]
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, state) of every Task state, inside Parallel branches and Map processors too."""
    states = document.get("States")
    if not isinstance(states, dict):
        return
    for name, state in states.items():
        if not isinstance(state, dict):
            continue
        here = f"{where}.States.{name}"
        if state.get("Type") == "Task":
            yield here, state
        branches = state.get("Branches") if state.get("Type") == "Parallel" else None
        for i, branch in enumerate(branches if isinstance(branches, list) else []):
            if isinstance(branch, dict):
                yield from _task_states(f"{here}.Branches[{i}]", branch)
        if state.get("Type") == "Map":
            for key in ("ItemProcessor", "Iterator"):
                if isinstance(state.get(key), dict):
                    yield from _task_states(f"{here}.{key}", state[key])


def _task_use(
    template: Template,
    definition: _Definition,
    where: str,
    state: Mapping[str, Any],
    function: str,
    notes: list[str],
) -> TaskUse | None:
    resource = state.get("Resource")
    invoke = isinstance(resource, str) and _INVOKE.fullmatch(resource) is not None
    arguments = state.get("Arguments") if state.get("QueryLanguage") == "JSONata" else None
    parameters = state.get("Parameters")
    parameters = parameters if isinstance(parameters, dict) else None
    if invoke:
        named = (arguments if isinstance(arguments, dict) else parameters or {}).get("FunctionName")
    else:
        named = resource
    if function not in _named(template, named, definition.variables):
        return None
    if arguments is not None:
        notes.append(f"{where}: JSONata Arguments are not modelled; payloads are drawn freely")
        return TaskUse(where, None)
    if not invoke:  # the function's ARN as the resource: `Parameters` is the payload
        return TaskUse(where, parameters)
    if parameters is None or "Payload.$" in parameters or "Payload" not in parameters:
        return TaskUse(where, None)  # the state input (or a path into it), whole
    return TaskUse(where, parameters["Payload"])


def _named_state(payload: Any, state: str) -> Any:
    """The payload template with `$$.State.Name` evaluated: the task state's own name."""
    if isinstance(payload, list):
        return [_named_state(item, state) for item in payload]
    if not isinstance(payload, dict):
        return payload
    result = {}
    for key, value in payload.items():
        if str(key).endswith(".$") and value == "$$.State.Name":
            result[str(key)[:-2]] = state
        else:
            result[key] = _named_state(value, state)
    return result


def _named(template: Template, value: Any, variables: Mapping[str, Any]) -> frozenset[str]:
    """The functions a task's `FunctionName` / `Resource` names, `${Var}`s substituted."""
    found = set(functions_named(template, value))
    if isinstance(value, str):
        for name in _VARIABLE.findall(value):
            if name in variables:
                found |= functions_named(template, variables[name])
            else:  # `${Fn.Arn}` of a `!Sub` definition string
                found |= functions_named(template, {"Fn::Sub": f"${{{name}}}"})
    return frozenset(found)
