"""Bodies from the trigger's `body_model`, placed where its envelope unwraps them.

`Trigger.body_model` (a Powertools parser model or validator schema, see
`config.powertools`) says what JSON the handler admits and which envelope carries it: an
SQS record's body, an SNS message, an SNS notification inside an SQS body, EventBridge's
`detail`, an API request's body, a Kinesis record's data, or the whole payload of a
direct invocation.  The event generators ask `model_for(trigger, *envelopes)` whether
their body is the model's, then draw it with `draw_model_body`.
"""

from __future__ import annotations

from typing import Any

from lambdafuzz.generators.aws import ids
from lambdafuzz.generators.aws.s3_notifications import dumps
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.json_schema import (
    json_schema_documents,
    json_schema_values,
    parse_schema,
)
from lambdafuzz.model.target import BodyModel, Envelope, Trigger
from lambdafuzz.model.world import World

_DEFAULTS = World()


def model_for(trigger: Trigger, *envelopes: Envelope | None) -> BodyModel | None:
    """The trigger's body model when its envelope is one of `envelopes`, else None."""
    model = trigger.body_model
    return model if model is not None and model.envelope in envelopes else None


def draw_model_body(
    choices: Choices,
    model: BodyModel,
    *,
    region: str = _DEFAULTS.region,
    account: str = _DEFAULTS.account_id,
) -> str:
    """The body text: the model's JSON, or for `sns-sqs` the SNS notification (as an SNS
    subscription without raw delivery puts it into the queue) whose Message it is."""
    text = json_schema_documents(choices, model.schema_json, name=model.name, site="model")
    if model.envelope is not Envelope.SNS_SQS:
        return text
    seed = ids.draw_seed(choices)
    topic = f"arn:aws:sns:{region}:{account}:topic-{ids.hex_id(seed, 'topic', 6, upper=False)}"
    endpoint = f"https://sns.{region}.amazonaws.com"
    return dumps(
        {
            "Type": "Notification",
            "MessageId": ids.uuid(seed, "message"),
            "TopicArn": topic,
            "Message": text,
            "Timestamp": ids.iso_ms(ids.draw_time_ms(choices)),
            "SignatureVersion": "1",
            "Signature": ids.b64_id(seed, "signature", 64),
            "SigningCertURL": f"{endpoint}/SimpleNotificationService-"
            f"{ids.hex_id(seed, 'certificate', 32, upper=False)}.pem",
            "UnsubscribeURL": f"{endpoint}/?Action=Unsubscribe&SubscriptionArn={topic}:"
            f"{ids.uuid(seed, 'subscription')}",
        }
    )


def draw_model_value(choices: Choices, model: BodyModel) -> Any:
    """The model's instance as a value (a direct payload, an EventBridge detail)."""
    schema = parse_schema(model.schema_json)
    return json_schema_values(choices, schema, name=model.name)
