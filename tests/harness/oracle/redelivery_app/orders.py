"""Calls the world-writes tests make as an application would (their locations are this
file's lines), and handlers a test delivers twice."""

import json
import uuid

from boto3.dynamodb.conditions import Attr


def put_order(table, order_id, total):
    table.put_item(Item={"pk": order_id, "total": total})


def put_once(table, order_id):
    table.put_item(Item={"pk": order_id}, ConditionExpression=Attr("pk").not_exists())


def count_up(client, table_name, key):
    client.update_item(
        TableName=table_name,
        Key={"pk": {"S": key}},
        UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )


def batch_and_transaction(client, table_name):
    client.batch_write_item(
        RequestItems={
            table_name: [
                {"PutRequest": {"Item": {"pk": {"S": "b-1"}}}},
                {"DeleteRequest": {"Key": {"pk": {"S": "b-2"}}}},
            ]
        }
    )
    client.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": table_name, "Item": {"pk": {"S": "t-1"}}}},
            {
                "ConditionCheck": {
                    "TableName": table_name,
                    "Key": {"pk": {"S": "b-1"}},
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
        ]
    )


def store_and_clean(s3, bucket):
    s3.put_object(Bucket=bucket, Key="reports/a.json", Body=b'{"rows": 3}')
    s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "old/x"}, {"Key": "old/y"}]})


def send_all(sqs, standard_url, fifo_url, sns, topic_arn, events):
    sqs.send_message(QueueUrl=standard_url, MessageBody="hello")
    sqs.send_message(
        QueueUrl=fifo_url, MessageBody="a", MessageGroupId="g", MessageDeduplicationId="d-1"
    )
    sqs.send_message(QueueUrl=fifo_url, MessageBody="b", MessageGroupId="g")
    sns.publish(TopicArn=topic_arn, Message=json.dumps({"order": "o-1"}))
    events.put_events(
        Entries=[
            {"Source": "shop", "DetailType": "Placed", "Detail": "{}"},
            {"Source": "shop", "DetailType": "Paid", "Detail": "{}", "EventBusName": "orders"},
        ]
    )


def make_handler(table, sns, topic_arn):
    """An SQS handler: an order under a new id per delivery, a notice per record."""

    def handler(event, context):
        for record in event["Records"]:
            table.put_item(Item={"pk": str(uuid.uuid4()), "message": record["messageId"]})
            sns.publish(TopicArn=topic_arn, Message=record["body"])
        return None

    return handler


def make_partial_handler(table):
    """An SQS handler with partial batch responses: it records each message under its
    id (idempotent) and reports the second one as failed."""

    def handler(event, context):
        seen = [r["messageId"] for r in event["Records"]]
        for message_id in seen:
            table.put_item(Item={"pk": message_id})
        failures = [{"itemIdentifier": i} for i in seen if i.endswith("-2")]
        return {"batchItemFailures": failures, "seen": seen}

    return handler


def tally(values):
    """A loop whose arms a second run takes as often as the first."""
    big = 0
    for value in values:
        if value > 2:
            big += 1
    return big
