"""Functions without `Events` that another resource of the template invokes.

A function a service calls on its own terms (a Firehose delivery stream's transformation,
a state machine's task) declares no event; imported as a direct invocation, it received
payloads no deployment sends.  `service_events` returns the event such a service sends,
as a `TemplateEvent` whose properties hold, under `SETTINGS`, the `trigger` settings of a
lambdafuzz.yaml (so `lambdafuzz init` writes them out), with notes on what is not
modelled.
"""

from __future__ import annotations

import json
from typing import Any

from lambdafuzz.config.firehose import function_firehose
from lambdafuzz.config.sam_template import Resolver, Template, TemplateEvent
from lambdafuzz.config.state_machine_inputs import InputT, execution_inputs
from lambdafuzz.config.state_machines import TaskUse, function_tasks

#: The key of `TemplateEvent.properties` holding trigger settings (no SAM property has a dot).
SETTINGS = "lambdafuzz.trigger"


def service_events(
    template: Template, function: str, values: Resolver
) -> tuple[list[TemplateEvent], list[str]]:
    """The events services of the template invoke `function` with (the first one is
    fuzzed), and notes."""
    events: list[TemplateEvent] = []
    notes: list[str] = []
    firehose = function_firehose(template, function, values)
    if firehose is not None:
        settings: dict[str, object] = {"source": firehose.delivery_stream}
        if firehose.kinesis_stream is not None:
            settings["kinesis_stream"] = firehose.kinesis_stream
        events.append(TemplateEvent(firehose.where, "firehose", None, {SETTINGS: settings}))
        notes.extend(firehose.notes)
    tasks, task_notes = function_tasks(template, function)
    notes.extend(task_notes)
    texts = [
        json.dumps(_resolved(values, t.payload), ensure_ascii=False)
        for t in tasks
        if t.payload is not None
    ]
    if texts:  # Step Functions sends the tasks' payload templates, evaluated
        inputs = _task_inputs(template, values, [t for t in tasks if t.payload is not None], notes)
        pairs = dict.fromkeys(zip(texts, inputs, strict=True))
        payloads = [json.loads(text) for text, _ in pairs]
        settings = {"payloads": payloads}
        if any(task_input != "[]" for _, task_input in pairs):  # `$` is the execution's input
            settings["inputs"] = [json.loads(task_input) for _, task_input in pairs]
        events.append(TemplateEvent(tasks[0].where, "direct", None, {SETTINGS: settings}))
        whole = [t.where for t in tasks if t.payload is None]
        if whole:
            notes.append(
                f"{whole[0]}: passes its state input whole, which the definition does not "
                f"describe; the payload templates of {len(tasks) - len(whole)} other task(s) "
                "are drawn"
            )
    return events, notes


def _task_inputs(
    template: Template, values: Resolver, tasks: list[TaskUse], notes: list[str]
) -> list[str]:
    """Per task, the inputs its `$` can be (JSON text of `config.state_machine_inputs`
    inputs, the task's `InputPath` appended): its state machine's execution inputs when
    the task's state receives the execution's input, `[]` (not known) otherwise."""
    found: dict[str, list[InputT]] = {}
    texts = []
    for task in tasks:
        if task.input_path is None:
            texts.append("[]")
            continue
        if task.machine not in found:
            found[task.machine], machine_notes = execution_inputs(template, task.machine, values)
            notes.extend(machine_notes)
        inputs = []
        for start in found[task.machine]:
            start = dict(start)
            if task.input_path != "$" and "paths" in start:
                start["paths"] = [*start["paths"], task.input_path]
            inputs.append(start)
        texts.append(json.dumps(inputs, ensure_ascii=False, sort_keys=True))
    return texts


def _resolved(values: Resolver, template: Any) -> Any:
    """The payload template with the template's intrinsics (`!Ref Table`) resolved; an
    unresolvable one becomes a placeholder string."""
    if isinstance(template, list):
        return [_resolved(values, item) for item in template]
    if not isinstance(template, dict):
        return template
    if len(template) == 1 and next(iter(template)) in ("Ref", "Fn::GetAtt", "Fn::Sub", "Fn::Join"):
        text = values.scalar(template, ("Resources",))
        return text if text is not None else "lambdafuzz-unresolved"
    return {key: _resolved(values, value) for key, value in template.items()}
