"""Record payloads of streams and brokers: Kinesis data, Kafka values, Amazon MQ data.

Lambda hands these over as base64 of whatever bytes the producer put, and what producers
put is overwhelmingly JSON: a handler `json.loads(base64.b64decode(record["kinesis"]
["data"]))` and branches on its fields.  Drawn as message bodies used to be (a JSON
*file*: an array or a scalar four times in ten, now and then in UTF-16, and base64 text
where a binary file could not be an SQS body, base64 again when rendered), mutants of a
Kinesis campaign decoded to JSON in under half the records, and a handler reading one
field stalled.  So without a `trigger.body` (or with `json`) a payload is a JSON object
`PAYLOAD_SHARES` of the time, from the generators SQS bodies use
(`json_files.json_objects`: the code's field names and constants apply), text in another
format (CSV, plain text, XML; with edge values on, half of them almost JSON, as
`edge_values.NOT_JSON_BODIES`) sometimes, and raw bytes rarely (a poison record).  A named
file format is that file's bytes, never base64 of them.  A filter on the payload (`data`
of a Kinesis pattern) and a Powertools body model decide it as they decide message
bodies (`bodies.draw_body`).  `json-object` (`BODY_JSON_OBJECT`: a stream only API Gateway
integrations sending `$input.json('$')` write) is a JSON object every time, which a filter's
object rule or a body model still decides.  Labels: the caller's (`kinesis.data`, `broker.message`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from lambdafuzz.generators import edge_values
from lambdafuzz.generators.aws.bodies import draw_body, steered_body
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.json_files import json_objects
from lambdafuzz.model.target import (
    BODY_EVENTBRIDGE_S3,
    BODY_JSON_OBJECT,
    BODY_S3_EVENT,
    BodyModel,
)
from lambdafuzz.model.world import Bucket

#: What a default payload is, and how often (in hundredths).
PAYLOAD_SHARES: Final = {"json": 88, "text": 7, "bytes": 5}
#: The kinds one per hundredth: drawn as a uniform index, a mutated draw lands on each kind
#: as often as a fresh one does.  A weighted draw's mutation always lands on *another*
#: option: 52% of a Kinesis campaign's mutants held no JSON object (1 of 300 mutants of 30
#: seeds, measured), where 88% of fresh records did.
PAYLOAD_MIX: Final = tuple(kind for kind, share in PAYLOAD_SHARES.items() for _ in range(share))
#: The text formats of a `text` payload.
TEXT_FORMATS: Final = ("csv", "text", "xml")
#: Kinesis caps a record at 1 MiB, Kafka's default at 1 MB: far above what is drawn.
MAX_RAW_BYTES: Final = 256


def draw_payload(
    choices: Choices,
    body: str | None,
    buckets: Sequence[Bucket],
    *,
    region: str,
    account: str,
    rule: Any = None,
    model: BodyModel | None = None,
) -> bytes:
    """One record's payload as bytes (the renderer base64-encodes it): as `body` says
    (None or `json`: the default mix), `rule` (a filter's part on the payload) steering
    it and `model` (a Powertools body model) deciding it where given."""
    if body == BODY_JSON_OBJECT:
        return _json_object(choices, region=region, account=account, rule=rule, model=model)
    if model is not None or rule is not None or body in (BODY_S3_EVENT, BODY_EVENTBRIDGE_S3):
        text = draw_body(
            choices, body, buckets, region=region, account=account, rule=rule, model=model
        )
        return text.encode("utf-8", "surrogatepass")
    if body is not None and body != "json":
        return draw_file(choices, (body,), erroneous_p=0.003).data
    kind = choices.draw_choice(PAYLOAD_MIX, site="payload")
    if kind == "text":
        if choices.edge_values and choices.draw_boolean(0.5, site="not-json?"):
            # almost JSON: what a producer that sent no JSON object sends
            with choices.scope(edge_values.EdgeClass.NOT_JSON.label):
                return choices.draw_choice(edge_values.NOT_JSON_BODIES, site="body").encode()
        return draw_file(choices, TEXT_FORMATS, erroneous_p=0.003).data
    if kind == "bytes":
        return choices.draw_bytes(1, MAX_RAW_BYTES, site="bytes")
    return _dump_object(choices, json_objects(choices, max_depth=3))


def _json_object(
    choices: Choices, *, region: str, account: str, rule: Any, model: BodyModel | None
) -> bytes:
    """A `json-object` payload: the body model's JSON, a filter's object rule steering the
    object, or a fresh object (a rule on a bare string admits no object: the matcher drops
    what it refuses, as Lambda does)."""
    if model is not None:
        text = draw_body(choices, None, (), region=region, account=account, model=model)
        return text.encode("utf-8", "surrogatepass")
    if isinstance(rule, Mapping):
        steered = steered_body(choices, rule)
        if steered is not None:
            return steered.encode("utf-8", "surrogatepass")
    return _dump_object(choices, json_objects(choices, max_depth=3))


def _dump_object(choices: Choices, document: Any) -> bytes:
    ascii_only = choices.draw_boolean(0.5, site="ascii?")
    return json.dumps(document, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
