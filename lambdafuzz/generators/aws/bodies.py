"""Message bodies for SQS and SNS, and files as text for message and HTTP bodies.

A body is what `trigger.body` names: a file format (the file's text, or base64 when the
file is binary or holds characters SQS refuses), `s3-event` (the JSON an S3 notification
puts into a queue or topic, now and then the `s3:TestEvent` instead), or `eventbridge-s3`
(an EventBridge "Object Created" event delivered to a queue).  A trigger's filter on the
body (`{"body": {...}}` of an SQS pattern, `{"data": {...}}` of a Kinesis one) steers
it: a JSON object whose filtered fields hold admitted values, or an admitted string.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from lambdafuzz.generators import edge_values
from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.filter_steering import draw_admitted, steer
from lambdafuzz.generators.aws.model_bodies import draw_model_body
from lambdafuzz.generators.aws.s3_notifications import (
    draw_s3_record,
    dumps,
    render_eventbridge,
    render_s3_event,
    render_test_event,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files import GeneratedFile, draw_file
from lambdafuzz.generators.files.json_files import json_objects, json_values
from lambdafuzz.model.event_pattern import MISSING
from lambdafuzz.model.target import BODY_EVENTBRIDGE_S3, BODY_S3_EVENT, BodyModel
from lambdafuzz.model.world import Bucket

#: Bodies when the config names none.
DEFAULT_FORMATS: Final = ("json",)
#: SQS and SNS cap a message at 256 KiB.
MAX_BODY_BYTES: Final = 262_144
TEST_EVENT_P: Final = 0.02
#: Characters SQS accepts in a message body (the XML 1.0 character range).
_SQS_TEXT = re.compile("[\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")


def file_text(file: GeneratedFile) -> tuple[str, bool]:
    """The file as message text, and whether that text is base64 (binary or unsendable)."""
    try:
        text = file.data.decode("utf-8")
    except UnicodeDecodeError:
        return base64.b64encode(file.data).decode(), True
    if not _SQS_TEXT.fullmatch(text):
        return base64.b64encode(file.data).decode(), True
    return text, False


def _cap(text: str) -> str:
    data = text.encode()
    if len(data) <= MAX_BODY_BYTES:
        return text
    return data[:MAX_BODY_BYTES].decode("utf-8", errors="ignore")


def draw_body(
    choices: Choices,
    body: str | None,
    buckets: Sequence[Bucket],
    *,
    region: str,
    account: str,
    missing_p: float = 0.0,
    rule: Any = None,
    model: BodyModel | None = None,
) -> str:
    """A message body as `body` (a trigger's `body` setting, None for the default) says;
    `missing_p`: the chance of an S3 notification naming a missing object; `rule`: the
    part of a filter pattern that applies to the body (None: no filter on it); `model`:
    the handler's body model (Powertools), which then decides the body instead (the
    filter still drops what it does not admit)."""
    if model is not None:
        return _cap(draw_model_body(choices, model, region=region, account=account))
    if rule is not None and body not in (BODY_S3_EVENT, BODY_EVENTBRIDGE_S3):
        steered = steered_body(choices, rule)
        if steered is not None:
            return steered
    if body == BODY_S3_EVENT:
        if choices.draw_boolean(TEST_EVENT_P, site="test-event?"):
            bucket = choices.draw_choice([b.name for b in buckets], site="bucket")
            document = render_test_event(bucket, ids.draw_time_ms(choices), ids.draw_seed(choices))
            return dumps(document)
        record = draw_s3_record(choices, buckets, missing_p=missing_p)
        return dumps(render_s3_event([record], region))
    if body == BODY_EVENTBRIDGE_S3:
        record = draw_s3_record(choices, buckets, missing_p=missing_p)
        return dumps(render_eventbridge(record, region, account))
    formats = (body,) if body else DEFAULT_FORMATS
    if choices.edge_values and formats == ("json",):
        text = edge_values.message_body(choices)  # a producer that sent no JSON object
        if text is not None:
            return text
    file = draw_file(choices, formats, erroneous_p=0.003)
    # SQS refuses an empty body; a lone newline is the closest thing to an empty file.
    return _cap(file_text(file)[0]) or "\n"


def steered_body(choices: Choices, rule: Any) -> str | None:
    """A body a filter's body rule admits: a pattern mapping -> a JSON object with the
    filtered fields set (the others random); a rule list -> an admitted string.  None
    when the rule asks for no body or a non-string one (the caller draws as usual; the
    matcher drops what does not pass)."""

    def fresh() -> Any:
        return json_values(choices, max_depth=1)

    if isinstance(rule, Mapping):
        document = steer(
            choices,
            rule,
            json_objects(choices, max_depth=2),
            fresh,
            lambda: json_objects(choices, max_depth=1),
        )
        text = json.dumps(document, ensure_ascii=False)
        if not _SQS_TEXT.fullmatch(text):
            text = json.dumps(document)
        return _cap(text)
    value = draw_admitted(choices, rule, MISSING, fresh, site="body")
    if isinstance(value, str) and value and _SQS_TEXT.fullmatch(value):
        return _cap(value)
    return None
