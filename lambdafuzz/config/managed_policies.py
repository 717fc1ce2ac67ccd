"""The statements of the AWS managed policies serverless functions commonly attach.

A function's role is often `AWSLambdaBasicExecutionRole` plus one or two managed policies
(`AmazonS3ReadOnlyAccess`, `AmazonDynamoDBFullAccess`); the permission oracle needs their
statements, which no template holds. These are the public AWS documents reduced to what
decides a call (Effect, Action, NotAction, Resource, Condition), written for partition
`aws`. Where a document's exact action list was uncertain, the entry is *broader* (a
wildcard in place of a list): a broader grant can only hide a permission finding, never
make a false one. A `Condition` is kept only to mark its statement as conditional (the
oracle does not evaluate conditions), so its values are abridged in places.

A name that is not in `MANAGED_POLICIES` is looked up in aws-sam-translator's map of the
AWS managed policies (what SAM accepts as a bare name in `Policies`), to tell "a real
managed policy whose statements lambdafuzz does not have" from a typo.
"""

from __future__ import annotations

import copy
import functools
import re
import types
from collections.abc import Mapping
from typing import Any, Final

_ALL = "*"
_LOGS = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
_XRAY_WRITE = [
    "xray:PutTraceSegments",
    "xray:PutTelemetryRecords",
    "xray:GetSamplingRules",
    "xray:GetSamplingTargets",
    "xray:GetSamplingStatisticSummaries",
]


def _allow(actions: list[str], resource: str | list[str] = _ALL, **more: Any) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": actions, "Resource": resource, **more}


#: Managed policy name -> its statements (IAM JSON). Read through `managed_statements`.
MANAGED_POLICIES: Final[Mapping[str, tuple[dict[str, Any], ...]]] = types.MappingProxyType(
    {
        # --- what Lambda's execution roles are built from ---------------------------------
        "AWSLambdaBasicExecutionRole": (_allow(_LOGS),),
        "AWSLambdaExecute": (
            _allow(["logs:*"], "arn:aws:logs:*:*:*"),
            _allow(["s3:GetObject", "s3:PutObject"], "arn:aws:s3:::*"),
        ),
        "AWSLambdaSQSQueueExecutionRole": (
            _allow(["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", *_LOGS]),
        ),
        "AWSLambdaDynamoDBExecutionRole": (
            _allow(
                [
                    "dynamodb:DescribeStream",
                    "dynamodb:GetRecords",
                    "dynamodb:GetShardIterator",
                    "dynamodb:ListStreams",
                    *_LOGS,
                ]
            ),
        ),
        "AWSLambdaKinesisExecutionRole": (
            _allow(
                [
                    "kinesis:DescribeStream",
                    "kinesis:DescribeStreamSummary",
                    "kinesis:GetRecords",
                    "kinesis:GetShardIterator",
                    "kinesis:ListShards",
                    "kinesis:ListStreams",
                    "kinesis:SubscribeToShard",
                    *_LOGS,
                ]
            ),
        ),
        "AWSLambdaMSKExecutionRole": (
            _allow(
                [
                    "kafka:DescribeCluster",
                    "kafka:DescribeClusterV2",
                    "kafka:GetBootstrapBrokers",
                    "ec2:CreateNetworkInterface",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeVpcs",
                    "ec2:DeleteNetworkInterface",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                    *_LOGS,
                ]
            ),
        ),
        "AWSLambdaVPCAccessExecutionRole": (
            _allow(
                [
                    *_LOGS,
                    "ec2:CreateNetworkInterface",
                    "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeSubnets",
                    "ec2:DeleteNetworkInterface",
                    "ec2:AssignPrivateIpAddresses",
                    "ec2:UnassignPrivateIpAddresses",
                ]
            ),
        ),
        "AWSLambdaRole": (_allow(["lambda:InvokeFunction"]),),
        "CloudWatchLambdaInsightsExecutionRolePolicy": (
            _allow(["logs:CreateLogGroup"]),
            _allow(
                ["logs:CreateLogStream", "logs:PutLogEvents"],
                "arn:aws:logs:*:*:log-group:/aws/lambda-insights:*",
            ),
        ),
        "AWSXRayDaemonWriteAccess": (_allow(_XRAY_WRITE),),
        "AWSXrayWriteOnlyAccess": (_allow(_XRAY_WRITE),),
        "AWSXrayFullAccess": (_allow(["xray:*"]),),
        # --- storage and data -----------------------------------------------------------
        "AmazonS3ReadOnlyAccess": (
            _allow(
                [
                    "s3:Get*",
                    "s3:List*",
                    "s3:Describe*",
                    "s3-object-lambda:Get*",
                    "s3-object-lambda:List*",
                ]
            ),
        ),
        "AmazonS3FullAccess": (_allow(["s3:*", "s3-object-lambda:*"]),),
        # broader than the document where unsure: dynamodb:Get* (stream reads included)
        "AmazonDynamoDBReadOnlyAccess": (
            _allow(
                [
                    "application-autoscaling:Describe*",
                    "cloudwatch:DescribeAlarmHistory",
                    "cloudwatch:DescribeAlarms",
                    "cloudwatch:DescribeAlarmsForMetric",
                    "cloudwatch:GetMetricData",
                    "cloudwatch:GetMetricStatistics",
                    "cloudwatch:ListMetrics",
                    "datapipeline:Describe*",
                    "datapipeline:GetPipelineDefinition",
                    "datapipeline:ListPipelines",
                    "datapipeline:QueryObjects",
                    "dynamodb:BatchGetItem",
                    "dynamodb:Describe*",
                    "dynamodb:Get*",
                    "dynamodb:List*",
                    "dynamodb:Query",
                    "dynamodb:Scan",
                    "dynamodb:PartiQLSelect",
                    "dax:Describe*",
                    "dax:List*",
                    "dax:GetItem",
                    "dax:BatchGetItem",
                    "dax:Query",
                    "dax:Scan",
                    "ec2:DescribeVpcs",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                    "iam:GetRole",
                    "iam:ListRoles",
                    "kms:DescribeKey",
                    "kms:ListAliases",
                    "sns:ListSubscriptionsByTopic",
                    "sns:ListTopics",
                    "lambda:ListFunctions",
                    "lambda:ListEventSourceMappings",
                    "lambda:GetFunctionConfiguration",
                    "resource-groups:ListGroups",
                    "resource-groups:ListGroupResources",
                    "resource-groups:GetGroup",
                    "resource-groups:GetGroupQuery",
                    "tag:GetResources",
                    "kinesis:ListStreams",
                    "kinesis:DescribeStream",
                    "kinesis:DescribeStreamSummary",
                ]
            ),
            _allow(
                ["cloudwatch:GetInsightRuleReport"],
                "arn:aws:cloudwatch:*:*:insight-rule/DynamoDBContributorInsights*",
            ),
        ),
        "AmazonDynamoDBFullAccess": (
            _allow(
                [
                    "dynamodb:*",
                    "dax:*",
                    "application-autoscaling:*",
                    "cloudwatch:DeleteAlarms",
                    "cloudwatch:DescribeAlarmHistory",
                    "cloudwatch:DescribeAlarms",
                    "cloudwatch:DescribeAlarmsForMetric",
                    "cloudwatch:GetMetricStatistics",
                    "cloudwatch:ListMetrics",
                    "cloudwatch:PutMetricAlarm",
                    "cloudwatch:GetMetricData",
                    "datapipeline:*",
                    "ec2:DescribeVpcs",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeSecurityGroups",
                    "iam:GetRole",
                    "iam:ListRoles",
                    "kms:DescribeKey",
                    "kms:ListAliases",
                    "sns:CreateTopic",
                    "sns:DeleteTopic",
                    "sns:ListSubscriptions",
                    "sns:ListSubscriptionsByTopic",
                    "sns:ListTopics",
                    "sns:Subscribe",
                    "sns:Unsubscribe",
                    "sns:SetTopicAttributes",
                    "lambda:CreateFunction",
                    "lambda:ListFunctions",
                    "lambda:ListEventSourceMappings",
                    "lambda:CreateEventSourceMapping",
                    "lambda:DeleteEventSourceMapping",
                    "lambda:GetFunctionConfiguration",
                    "lambda:DeleteFunction",
                    "resource-groups:*",
                    "tag:GetResources",
                    "kinesis:ListStreams",
                    "kinesis:DescribeStream",
                    "kinesis:DescribeStreamSummary",
                ]
            ),
            _allow(
                ["cloudwatch:GetInsightRuleReport"],
                "arn:aws:cloudwatch:*:*:insight-rule/DynamoDBContributorInsights*",
            ),
            _allow(
                ["iam:PassRole"],
                Condition={
                    "StringLike": {
                        "iam:PassedToService": [
                            "application-autoscaling.amazonaws.com",
                            "dax.amazonaws.com",
                        ]
                    }
                },
            ),
            _allow(
                ["iam:CreateServiceLinkedRole"],
                Condition={
                    "StringEquals": {
                        "iam:AWSServiceName": [
                            "replication.dynamodb.amazonaws.com",
                            "dax.amazonaws.com",
                            "dynamodb.application-autoscaling.amazonaws.com",
                            "contributorinsights.dynamodb.amazonaws.com",
                            "kinesisreplication.dynamodb.amazonaws.com",
                        ]
                    }
                },
            ),
        ),
        "AmazonSQSFullAccess": (_allow(["sqs:*"]),),
        "AmazonSQSReadOnlyAccess": (
            _allow(
                [
                    "sqs:GetQueueAttributes",
                    "sqs:GetQueueUrl",
                    "sqs:ListDeadLetterSourceQueues",
                    "sqs:ListQueues",
                    "sqs:ListMessageMoveTasks",
                    "sqs:ListQueueTags",
                ]
            ),
        ),
        # the SMS sandbox actions of the documents abridged to a wildcard (broader)
        "AmazonSNSFullAccess": (_allow(["sns:*", "sms-voice:*"]),),
        "AmazonSNSReadOnlyAccess": (
            _allow(
                ["sns:Get*", "sns:List*", "sns:CheckIfPhoneNumberIsOptedOut", "sms-voice:Describe*"]
            ),
        ),
        "AmazonKinesisFullAccess": (_allow(["kinesis:*"]),),
        "AmazonKinesisReadOnlyAccess": (
            _allow(
                ["kinesis:Get*", "kinesis:List*", "kinesis:Describe*", "kinesis:SubscribeToShard"]
            ),
        ),
        "AmazonKinesisFirehoseFullAccess": (_allow(["firehose:*"]),),
        # --- monitoring -----------------------------------------------------------------
        "CloudWatchLogsFullAccess": (_allow(["logs:*", "cloudwatch:GenerateQuery*"]),),
        "CloudWatchFullAccess": (
            _allow(
                [
                    "autoscaling:Describe*",
                    "cloudwatch:*",
                    "logs:*",
                    "sns:*",
                    "iam:GetPolicy",
                    "iam:GetPolicyVersion",
                    "iam:GetRole",
                    "oam:ListSinks",
                ]
            ),
            _allow(
                ["iam:CreateServiceLinkedRole"],
                "arn:aws:iam::*:role/aws-service-role/events.amazonaws.com/"
                "AWSServiceRoleForCloudWatchEvents*",
                Condition={"StringLike": {"iam:AWSServiceName": "events.amazonaws.com"}},
            ),
            _allow(["oam:ListAttachedLinks"], "arn:aws:oam:*:*:sink/*"),
        ),
        # --- integration ----------------------------------------------------------------
        "AmazonEventBridgeFullAccess": (
            _allow(["events:*", "schemas:*", "scheduler:*", "pipes:*"]),
            _allow(
                ["iam:CreateServiceLinkedRole"],
                "arn:aws:iam::*:role/aws-service-role/*",
                Condition={"StringLike": {"iam:AWSServiceName": "*.events.amazonaws.com"}},
            ),
            _allow(
                ["iam:PassRole"],
                "arn:aws:iam::*:role/*",
                Condition={"StringLike": {"iam:PassedToService": "*.amazonaws.com"}},
            ),
        ),
        "AWSStepFunctionsFullAccess": (
            _allow(["states:*"]),
            _allow(["iam:PassRole"], "arn:aws:iam::*:role/*"),
        ),
        "AmazonSESFullAccess": (_allow(["ses:*"]),),
        # --- configuration and secrets ----------------------------------------------------
        "SecretsManagerReadWrite": (
            _allow(
                [
                    "secretsmanager:*",
                    "cloudformation:CreateChangeSet",
                    "cloudformation:DescribeChangeSet",
                    "cloudformation:DescribeStackResource",
                    "cloudformation:DescribeStacks",
                    "cloudformation:ExecuteChangeSet",
                    "docdb-elastic:GetCluster",
                    "docdb-elastic:ListClusters",
                    "ec2:DescribeSecurityGroups",
                    "ec2:DescribeSubnets",
                    "ec2:DescribeVpcs",
                    "kms:DescribeKey",
                    "kms:ListAliases",
                    "kms:ListKeys",
                    "lambda:ListFunctions",
                    "rds:DescribeDBClusters",
                    "rds:DescribeDBInstances",
                    "redshift:DescribeClusters",
                    "redshift-serverless:ListWorkgroups",
                    "redshift-serverless:GetNamespace",
                    "tag:GetResources",
                ]
            ),
            _allow(
                [
                    "lambda:AddPermission",
                    "lambda:CreateFunction",
                    "lambda:GetFunction",
                    "lambda:InvokeFunction",
                    "lambda:UpdateFunctionConfiguration",
                ],
                "arn:aws:lambda:*:*:function:SecretsManager*",
            ),
            _allow(
                ["serverlessrepo:CreateCloudFormationChangeSet", "serverlessrepo:GetApplication"],
                "arn:aws:serverlessrepo:*:*:applications/SecretsManager*",
            ),
            _allow(
                ["s3:GetObject"],
                [
                    "arn:aws:s3:::awsserverlessrepo-changesets*",
                    "arn:aws:s3:::secrets-manager-rotation-apps-*/*",
                ],
            ),
        ),
        "AmazonSSMReadOnlyAccess": (_allow(["ssm:Describe*", "ssm:Get*", "ssm:List*"]),),
        # --- whole accounts ---------------------------------------------------------------
        "AdministratorAccess": (_allow(["*"]),),
        "PowerUserAccess": (
            {
                "Effect": "Allow",
                "NotAction": ["iam:*", "organizations:*", "account:*"],
                "Resource": _ALL,
            },
            _allow(
                [
                    "iam:CreateServiceLinkedRole",
                    "iam:DeleteServiceLinkedRole",
                    "iam:ListRoles",
                    "organizations:DescribeOrganization",
                    "account:ListRegions",
                    "account:GetAccountInformation",
                ]
            ),
        ),
        # An approximation (APPROXIMATE): the document lists thousands of read actions of
        # every service. Read-like action names of any service, which is broader in places
        # (it allows secretsmanager:GetSecretValue and kms reads the document leaves out)
        # and may be narrower in others, so the policy is also listed as partly unknown.
        "ReadOnlyAccess": (
            _allow(
                [
                    "*:Describe*",
                    "*:Get*",
                    "*:List*",
                    "*:BatchGet*",
                    "*:Query",
                    "*:Scan",
                    "*:Search*",
                    "*:Select*",
                    "*:Lookup*",
                    "*:Filter*",
                    "*:Head*",
                    "*:Receive*",
                    "*:View*",
                    "*:PartiQLSelect",
                ]
            ),
        ),
    }
)
#: Entries that only approximate their document: a call they do not allow may still be
#: allowed in production, so the importer lists them as partly unknown too.
APPROXIMATE: Final = frozenset({"ReadOnlyAccess"})

#: `arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole` -> its name.
_AWS_MANAGED_ARN = re.compile(r"arn:aws[a-z-]*:iam::aws:policy/(?:[\w+=,.@-]+/)*([\w+=,.@-]+)")


def managed_statements(name: str) -> list[dict[str, Any]] | None:
    """The statements of the AWS managed policy `name` (a copy to change freely); None
    when lambdafuzz has no document for it."""
    found = MANAGED_POLICIES.get(name)
    return None if found is None else copy.deepcopy(list(found))


def aws_managed_name(text: str) -> str | None:
    """The AWS managed policy `text` names, as SAM reads `Policies`: an ARN under
    `arn:aws:iam::aws:policy/` (any path), or a bare name SAM turns into one; None for
    anything else (a customer managed policy, a typo)."""
    match = _AWS_MANAGED_ARN.fullmatch(text)
    if match is not None:
        return match.group(1)
    return text if text in known_managed_names() else None


@functools.cache
def known_managed_names() -> frozenset[str]:
    """Every AWS managed policy name SAM knows (aws-sam-translator's bundled map for the
    `aws` partition), with those of lambdafuzz's own table."""
    from samtranslator.internal.managed_policies import get_bundled_managed_policy_map

    return frozenset(get_bundled_managed_policy_map("aws") or {}) | frozenset(MANAGED_POLICIES)
