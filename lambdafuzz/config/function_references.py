"""Which resources of a template one function refers to.

A template often holds far more than one function needs (alarms, log groups, roles, other
services' resources); saying "not emulated" for each of them buries the few that matter.
A function refers to a resource when its properties (environment, events, policies,
inline code...) name it through `!Ref`, `!GetAtt` or `${Name}` in a `!Sub`, or when its
code text names the resource's logical id or a literal `...Name` property of it (a
`DeliveryStreamName` the handler passes to `put_record`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

#: `${Name}` / `${Name.Attribute}` inside a `!Sub` text.
_SUB_NAME = re.compile(r"\$\{([A-Za-z0-9]+)(?:\.[^}]*)?\}")
#: Code files read for names: at most this many bytes each.
_MAX_CODE_BYTES = 2_000_000


def named_ids(value: Any) -> Iterator[str]:
    """Every logical id `value` names through `Ref`, `Fn::GetAtt` or `Fn::Sub`, at any depth."""
    if isinstance(value, list):
        for inner in value:
            yield from named_ids(inner)
        return
    if not isinstance(value, dict):
        return
    for key, inner in value.items():
        if key == "Ref" and isinstance(inner, str):
            yield inner
        elif key == "Fn::GetAtt":
            target = inner[0] if isinstance(inner, list) and inner else inner
            if isinstance(target, str):
                yield target.split(".", 1)[0]
        elif key == "Fn::Sub":
            text = inner[0] if isinstance(inner, list) and inner else inner
            if isinstance(text, str):
                yield from (m.group(1) for m in _SUB_NAME.finditer(text))
            if isinstance(inner, list):
                yield from named_ids(inner[1:])
        else:
            yield from named_ids(inner)


def referenced_ids(
    properties: Mapping[str, Any],
    resources: Mapping[str, Any],
    code_texts: Iterable[str] = (),
) -> frozenset[str]:
    """The logical ids of `resources` that a function with `properties` (its own and the
    Globals') and code `code_texts` refers to."""
    found = {i for i in named_ids(dict(properties)) if i in resources}
    texts = [t for t in code_texts if t]
    if texts:
        for logical_id, resource in resources.items():
            if logical_id in found:
                continue
            words = [logical_id, *_literal_names(resource)]
            pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in words))
            if any(pattern.search(text) for text in texts):
                found.add(logical_id)
    return frozenset(found)


def _literal_names(resource: Any) -> list[str]:
    """A resource's literal `...Name` properties (`StateMachineName: orders-flow`)."""
    props = resource.get("Properties") if isinstance(resource, dict) else None
    if not isinstance(props, dict):
        return []
    return [
        value
        for key, value in props.items()
        if str(key).endswith("Name") and isinstance(value, str) and len(value) >= 3
    ]


def code_text(path: Path | None) -> str:
    """A code file's text ("" when it cannot be read or is not a regular file)."""
    if path is None:
        return ""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_CODE_BYTES:
            return ""
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
