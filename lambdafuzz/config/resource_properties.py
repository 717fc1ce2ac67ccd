"""Which properties of a template's resources lambdafuzz carries into its model.

A resource of a type lambdafuzz emulates (a table, a bucket, a queue...) becomes a
`resources` entry, but only some of its properties shape that entry: a queue's
`VisibilityTimeout`, a table's `TimeToLiveSpecification` or a bucket's
`VersioningConfiguration` change what the deployed function meets and are not emulated.
`dropped_properties` names them, so the import can say so once per resource instead of
dropping them silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

#: Per resource type: the properties the import reads (`config.sam`).  A type missing
#: here is not modelled at all (listed as not emulated instead).
MODELLED_PROPERTIES: Final[Mapping[str, frozenset[str]]] = {
    "AWS::S3::Bucket": frozenset({"BucketName", "NotificationConfiguration"}),
    "AWS::DynamoDB::Table": frozenset(
        {
            "TableName",
            "AttributeDefinitions",
            "KeySchema",
            "StreamSpecification",
            "GlobalSecondaryIndexes",
            "LocalSecondaryIndexes",
        }
    ),  # fmt: skip
    "AWS::Serverless::SimpleTable": frozenset({"TableName", "PrimaryKey"}),
    "AWS::SQS::Queue": frozenset({"QueueName", "FifoQueue"}),
    "AWS::SNS::Topic": frozenset({"TopicName"}),
    "AWS::SecretsManager::Secret": frozenset({"Name", "SecretString", "GenerateSecretString"}),
    "AWS::SSM::Parameter": frozenset({"Name", "Type", "Value"}),
    "AWS::Kinesis::Stream": frozenset({"Name"}),  # a trigger's stream: only its name
}


def dropped_properties(resource_type: str, properties: Mapping[str, Any]) -> tuple[str, ...]:
    """The properties of a resource of `resource_type` that lambdafuzz does not model, in
    template order; () for a type it does not model at all."""
    modelled = MODELLED_PROPERTIES.get(resource_type)
    if modelled is None:
        return ()
    return tuple(str(key) for key in properties if key not in modelled)


def dropped_note(logical_id: str, resource_type: str, dropped: tuple[str, ...]) -> str:
    """The one warning line for a resource's dropped properties."""
    return (
        f"Resources.{logical_id}: {resource_type} properties not modelled (the emulated "
        f"resource behaves as if they were absent): {', '.join(dropped)}"
    )
