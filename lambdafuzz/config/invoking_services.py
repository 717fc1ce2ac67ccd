"""Functions without `Events` that another resource of the template invokes.

A function a service calls on its own terms (a Firehose delivery stream's transformation,
a state machine's task) declares no event; imported as a direct invocation, it received
payloads no deployment sends.  `service_events` returns the event such a service sends,
as a `TemplateEvent` whose properties hold, under `SETTINGS`, the `trigger` settings of a
lambdafuzz.yaml (so `lambdafuzz init` writes them out), with notes on what is not
modelled.
"""

from __future__ import annotations

from lambdafuzz.config.firehose import function_firehose
from lambdafuzz.config.sam_template import Resolver, Template, TemplateEvent

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
    return events, notes
