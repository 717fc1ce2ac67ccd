"""Payloads a state machine's task sends its function, from the task's payload template.

Step Functions evaluates a task's `Payload` (or `Parameters`) template on every call: a
key ending in `.$` takes the value its JSONPath selects and loses the suffix, every
other key keeps its constant.  So the function always receives exactly those keys, a
`$$.Task.Token` is a non-empty token string, `$$.Execution.Id` an execution ARN, and so
on.  `payload_schema` translates a template into the JSON Schema of what it evaluates
to, and the payload is drawn from that schema with no defect (`json_schema_values` with
`near_p=0`: a payload outside it is one no deployment sends):

* `$` (the state input) is a JSON object; `$.a.b` any JSON value (the part of the input
  the path selects: a missing one fails the state, and the function is not called);
* `$$.Task.Token` a token, `$$.Execution.Id` / `$$.StateMachine.Id` / `RoleArn` ARNs,
  `$$.Execution.Name` a UUID, `...StartTime` / `...EnteredTime` times, `...Name` names,
  `RetryCount` / `RedriveCount` / `$$.Map.Item.Index` counts, `$$.Execution.Input` an
  object; another context path any JSON value;
* intrinsic functions by their result: `States.Format` / `JsonToString` / `Hash` /
  `Base64Encode` / `Base64Decode` text, `States.UUID` a UUID, `States.Array` /
  `StringSplit` / `ArrayPartition` / `ArrayRange` / `ArrayUnique` an array, `MathAdd` /
  `MathRandom` / `ArrayLength` an integer, the others any JSON value.

Labels: the schema's (`property:<key>` sites), under the direct event's label.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any, Final

from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.json_schema import json_schema_values

#: A task token: opaque base64 text (real ones run to hundreds of characters).
TOKEN_PATTERN: Final = r"^AQ[A-Za-z0-9+/]{48,64}$"
_NAME_PATTERN: Final = r"^[A-Za-z][A-Za-z0-9_-]{0,23}$"
_ANY: Final[dict[str, Any]] = {}
_TIME: Final = {"type": "string", "format": "date-time"}
_COUNT: Final = {"type": "integer", "minimum": 0, "maximum": 10}
_INTRINSICS: Final[dict[str, dict[str, Any]]] = {
    "States.Format": {"type": "string"},
    "States.JsonToString": {"type": "string"},
    "States.Hash": {"type": "string", "pattern": "^[0-9a-f]{32,64}$"},
    "States.Base64Encode": {"type": "string", "pattern": "^[A-Za-z0-9+/]{4,40}={0,2}$"},
    "States.Base64Decode": {"type": "string"},
    "States.UUID": {"type": "string", "format": "uuid"},
    "States.Array": {"type": "array"},
    "States.StringSplit": {"type": "array", "items": {"type": "string"}},
    "States.ArrayPartition": {"type": "array", "items": {"type": "array"}},
    "States.ArrayRange": {"type": "array", "items": {"type": "integer"}},
    "States.ArrayUnique": {"type": "array"},
    "States.MathAdd": {"type": "integer"},
    "States.MathRandom": {"type": "integer"},
    "States.ArrayLength": {"type": "integer", "minimum": 0},
}


def draw_task_payload(
    choices: Choices, templates: Sequence[str], *, region: str, account: str
) -> Any:
    """One payload of one of the tasks' `templates` (JSON texts), evaluated."""
    index = draw_task_index(choices, templates)
    return draw_payload_of(choices, templates[index], region=region, account=account)


def draw_task_index(choices: Choices, templates: Sequence[str]) -> int:
    """Which of the tasks' `templates` the payload comes from."""
    if len(templates) > 1:
        return choices.draw_integer(0, len(templates) - 1, site="task")
    return 0


def draw_payload_of(choices: Choices, template: str, *, region: str, account: str) -> Any:
    """One payload of the task's `template` (JSON text), evaluated."""
    schema = payload_schema(template, region=region, account=account)
    return json_schema_values(choices, schema, name="task.payload", near_p=0.0)


@functools.lru_cache(maxsize=32)
def payload_schema(template_json: str, *, region: str, account: str) -> dict[str, Any]:
    """The JSON Schema of what the payload template evaluates to (treated as read-only)."""
    return _schema(json.loads(template_json), _Context(region, account))


class _Context:
    __slots__ = ("arn",)

    def __init__(self, region: str, account: str) -> None:
        self.arn = f"arn:aws:states:{region}:{account}"


def _schema(template: Any, context: _Context) -> dict[str, Any]:
    if isinstance(template, dict) and _has_paths(template):
        properties = {}
        for key, value in template.items():
            if key.endswith(".$") and isinstance(value, str):
                properties[key[:-2]] = _path_schema(value.strip(), context)
            else:
                properties[key] = _schema(value, context)
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }
    if isinstance(template, list) and _has_paths(template):
        items = [_schema(item, context) for item in template]
        return {"type": "array", "prefixItems": items, "items": False, "minItems": len(items)}
    return {"const": template}


def _has_paths(template: Any) -> bool:
    """Whether Step Functions evaluates anything inside `template`."""
    if isinstance(template, dict):
        return any(
            (str(key).endswith(".$") and isinstance(value, str)) or _has_paths(value)
            for key, value in template.items()
        )
    if isinstance(template, list):
        return any(_has_paths(item) for item in template)
    return False


def _path_schema(path: str, context: _Context) -> dict[str, Any]:
    if path == "$":
        return {"type": "object"}
    if path.startswith("$$"):
        return _context_schema(path[2:].lstrip("."), context)
    if path.startswith("$"):
        return _ANY
    if path.startswith("States."):
        return _INTRINSICS.get(path.partition("(")[0], _ANY)
    return _ANY


def _context_schema(path: str, context: _Context) -> dict[str, Any]:
    """What a context object path (`Task.Token`, `Execution.Id`) holds."""
    machine = f"{context.arn}:stateMachine:{_NAME_PATTERN[1:-1]}"
    known: dict[str, dict[str, Any]] = {
        "": {"type": "object"},
        "Task.Token": {"type": "string", "pattern": TOKEN_PATTERN},
        "Execution.Id": {
            "type": "string",
            "pattern": f"^{context.arn}:execution:{_NAME_PATTERN[1:-1]}:[0-9a-f]{{8}}-"
            "[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
        },
        "Execution.Name": {"type": "string", "format": "uuid"},
        "Execution.StartTime": _TIME,
        "Execution.Input": {"type": "object"},
        "Execution.RoleArn": {
            "type": "string",
            "pattern": f"^arn:aws:iam::{context.arn.rpartition(':')[2]}:role/"
            f"{_NAME_PATTERN[1:-1]}$",
        },
        "Execution.RedriveCount": _COUNT,
        "StateMachine.Id": {"type": "string", "pattern": f"^{machine}$"},
        "StateMachine.Name": {"type": "string", "pattern": _NAME_PATTERN},
        "State.Name": {"type": "string", "pattern": _NAME_PATTERN},
        "State.EnteredTime": _TIME,
        "State.RetryCount": _COUNT,
        "Map.Item.Index": {"type": "integer", "minimum": 0, "maximum": 40},
    }
    return known.get(path, _ANY)
