"""Functions a template names as Kinesis Data Firehose transformation processors.

A transformation function has no `Events`: the delivery stream invokes it with batches of
buffered records (`generators.aws.firehose`).  Read as a direct invocation it got
arbitrary JSON (`{}`, `records` as a number), which no delivery stream sends;
`function_firehose` finds the declaration instead: an `AWS::KinesisFirehose::
DeliveryStream` whose `*DestinationConfiguration.ProcessingConfiguration` (enabled)
lists a `Lambda` processor with the `LambdaArn` parameter naming the function
(`config.function_arns`).  A delivery stream with `KinesisStreamSourceConfiguration`
reads a Kinesis data stream: its batches name it and carry each record's shard metadata.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from lambdafuzz.config.function_arns import functions_named
from lambdafuzz.config.function_references import named_ids
from lambdafuzz.config.sam_template import Resolver, Template, logical_ref

DELIVERY_STREAM = "AWS::KinesisFirehose::DeliveryStream"
#: Firehose delivery stream names: what `trigger.source` allows.
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


@dataclass(slots=True, frozen=True)
class FirehoseUse:
    """How a template uses a function as a delivery stream's transformation."""

    where: str  # "Resources.Stream.Properties.ExtendedS3DestinationConfiguration", for messages
    delivery_stream: str  # its name (`DeliveryStreamName`, else the logical id)
    kinesis_stream: str | None  # the Kinesis data stream it reads; None: Direct PUT
    notes: tuple[str, ...] = ()  # what the declaration says that lambdafuzz does not model


def function_firehose(
    template: Template, function: str, values: Resolver | None = None
) -> FirehoseUse | None:
    """The first delivery stream of the template that transforms with `function`."""
    values = values or Resolver(template)
    for logical_id in template.resources:
        if template.type_of(logical_id) != DELIVERY_STREAM:
            continue
        props = template.properties(logical_id)
        for key, processing in _processing_configurations(props):
            if not _names(template, processing, function):
                continue
            where = f"Resources.{logical_id}.Properties.{key}.ProcessingConfiguration"
            notes = []
            others = [k for k, p in _processing_configurations(props) if k != key]
            if others:
                notes.append(f"{where}: also processes for {', '.join(others)}; one is modelled")
            if "MSKSourceConfiguration" in props:
                notes.append(
                    f"Resources.{logical_id}: an MSK source is not modelled; its batches are "
                    "generated as a Direct PUT stream's"
                )
            name = _name(values, logical_id, props)
            return FirehoseUse(where, name, _source_stream(template, values, props), tuple(notes))
    return None


def _processing_configurations(props: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(destination key, its ProcessingConfiguration) of every destination that has one
    and does not disable it."""
    for key, destination in props.items():
        if not (str(key).endswith("DestinationConfiguration") and isinstance(destination, dict)):
            continue
        processing = destination.get("ProcessingConfiguration")
        if isinstance(processing, dict) and processing.get("Enabled", True) not in (
            False,
            "false",
        ):
            yield str(key), processing


def _names(template: Template, processing: Mapping[str, Any], function: str) -> bool:
    processors = processing.get("Processors")
    for processor in processors if isinstance(processors, list) else []:
        if not isinstance(processor, dict) or processor.get("Type", "Lambda") != "Lambda":
            continue
        parameters = processor.get("Parameters")
        for parameter in parameters if isinstance(parameters, list) else []:
            if (
                isinstance(parameter, dict)
                and parameter.get("ParameterName") == "LambdaArn"
                and function in functions_named(template, parameter.get("ParameterValue"))
            ):
                return True
    return False


def _name(values: Resolver, logical_id: str, props: Mapping[str, Any]) -> str:
    name = values.scalar(props.get("DeliveryStreamName"), ("Resources", logical_id))
    if name is None or "${" in name or not set(name) <= _NAME_CHARS:
        return logical_id[:64]
    return name[:64]


def _source_stream(template: Template, values: Resolver, props: Mapping[str, Any]) -> str | None:
    source = props.get("KinesisStreamSourceConfiguration")
    if not isinstance(source, dict):
        return None
    arn = source.get("KinesisStreamARN")
    stream = logical_ref(arn) or next(iter(named_ids(arn)), None)
    if stream is not None and template.type_of(stream) == "AWS::Kinesis::Stream":
        name = values.name_of(stream)
    else:
        name = arn.rpartition("/")[2] if isinstance(arn, str) else ""
    name = "".join(c for c in name if c in _NAME_CHARS)[:128]
    return name or "stream"
