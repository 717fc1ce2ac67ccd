"""The function's IAM statements: read from its SAM/CloudFormation template
(`config.iam_statements`), or written as `permissions:` in lambdafuzz.yaml, and resolved
against a loaded world (`model.target.resolve_policy`)."""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.config.iam_statements import TemplatePermissions, template_permissions
from lambdafuzz.config.managed_policies import (
    MANAGED_POLICIES,
    aws_managed_name,
    known_managed_names,
    managed_statements,
)
from lambdafuzz.config.sam import load_template
from lambdafuzz.config.sam_template import Resolver, read_template
from lambdafuzz.model.permissions import Effect, Policy, statement_from_json
from lambdafuzz.model.target import resolve_policy
from lambdafuzz.model.world import LoadedWorld, World
from tests.fixtures.config_files import error_for as config_error_for
from tests.fixtures.config_files import write_config
from tests.fixtures.sam import template_path, template_text

ARN = "arn:aws:{service}:us-east-1:123456789012:{rest}"
BASIC = {
    "Effect": "Allow",
    "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
    "Resource": ["*"],
    "Sid": "managed AWSLambdaBasicExecutionRole",
}


def permissions(name: str, function: str) -> TemplatePermissions:
    template = read_template(template_path("iam", name))
    return template_permissions(template, Resolver(template), function)


def by_source(found: TemplatePermissions) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for statement in found.statements:
        grouped.setdefault(statement["Sid"], []).append(statement)
    return grouped


# --------------------------------------------------------------------------- policy templates
def test_policy_templates_expand_to_the_emulator_s_names_and_arns():
    found = permissions("policy_templates", "Worker")
    assert found.unknown == () and found.notes == ()
    assert found.statements[0] == BASIC  # SAM gives every role it creates the basic one
    grouped = by_source(found)
    crud = grouped["Policies[0] DynamoDBCrudPolicy (TableName: orders)"]
    assert crud[0]["Resource"] == [
        ARN.format(service="dynamodb", rest="table/orders"),
        ARN.format(service="dynamodb", rest="table/orders/index/*"),
    ]
    assert {"dynamodb:PutItem", "dynamodb:Query", "dynamodb:DeleteItem"} <= set(crud[0]["Action"])
    (read,) = grouped["Policies[1] S3ReadPolicy (BucketName: uploads)"]  # a bucket's logical id
    assert read["Resource"] == ["arn:aws:s3:::uploads", "arn:aws:s3:::uploads/*"]
    assert "s3:PutObject" not in read["Action"] and "s3:GetObject" in read["Action"]
    (crud_s3,) = grouped["Policies[2] S3CrudPolicy (BucketName: order-reports)"]
    assert crud_s3["Resource"] == ["arn:aws:s3:::order-reports", "arn:aws:s3:::order-reports/*"]
    assert {"s3:PutObject", "s3:DeleteObject"} <= set(crud_s3["Action"])
    (send,) = grouped["Policies[3] SQSSendMessagePolicy (QueueName: jobs)"]
    assert send["Resource"] == [ARN.format(service="sqs", rest="jobs")]
    (publish,) = grouped["Policies[4] SNSPublishMessagePolicy (TopicName: Alerts)"]
    assert (publish["Action"], publish["Resource"]) == (
        ["sns:Publish"],
        [ARN.format(service="sns", rest="Alerts")],
    )
    describe, get = grouped["Policies[5] SSMParameterReadPolicy (ParameterName: orders/config)"]
    assert describe["Resource"] == ["*"]
    assert get["Resource"] == [ARN.format(service="ssm", rest="parameter/orders/config")]
    # a secret's Ref is its ARN, which only the emulator knows: a reference
    (secret,) = grouped[
        "Policies[6] AWSSecretsManagerGetSecretValuePolicy (SecretArn: ${secrets.api-key.arn})"
    ]
    assert secret["Resource"] == ["${secrets.api-key.arn}"]
    # a function is not emulated: its ARN under its FunctionName and its logical id (what
    # `env` holds for `!Ref Pricing`)
    (invoke,) = grouped["Policies[7] LambdaInvokePolicy (FunctionName: Pricing)"]
    assert invoke["Resource"] == [
        ARN.format(service="lambda", rest="function:pricing*"),
        ARN.format(service="lambda", rest="function:Pricing*"),
    ]
    for statement in found.statements:  # each reads back as the oracle reads it
        assert statement_from_json(statement).source == statement["Sid"]


# --------------------------------------------------------------------------- inline and managed
def test_inline_documents_with_and_without_version_sid_and_condition():
    grouped = by_source(permissions("inline_and_managed", "Worker"))
    (read,) = grouped["Policies[0] inline ReadOrders"]  # the statement's own Sid kept
    assert read["Resource"] == ["${tables.orders.arn}", "${tables.orders.arn}/index/*"]
    (deny,) = grouped["Policies[0] inline"]
    assert deny["Effect"] == "Deny" and "Condition" in deny
    assert statement_from_json(deny).conditional  # kept, reported as not evaluated
    (decrypt,) = grouped["Policies[1] inline"]  # Statement as one mapping, no Version
    assert decrypt["Action"] == ["kms:Decrypt"]


def test_an_unresolvable_resource_becomes_a_wildcard_and_says_so():
    found = permissions("inline_and_managed", "Worker")
    (decrypt,) = by_source(found)["Policies[1] inline"]
    assert decrypt["Resource"] == ["*"]  # allows more, never less: no false finding
    (note,) = found.notes
    assert note.startswith("Policies[1] inline: {'Ref': 'KeyArn'} cannot be resolved")
    assert "parameter KeyArn has no Default" in note and "`*` stands in" in note


def test_managed_policies_by_name_arn_and_sub():
    grouped = by_source(permissions("inline_and_managed", "Worker"))
    execute = grouped["Policies[2] managed AWSLambdaExecute"]
    assert [s["Resource"] for s in execute] == [["arn:aws:logs:*:*:*"], ["arn:aws:s3:::*"]]
    (s3,) = grouped["Policies[3] managed AmazonS3ReadOnlyAccess"]  # arn:aws:iam::aws:policy/
    assert "s3:Get*" in s3["Action"]
    (sqs,) = grouped["Policies[4] managed AWSLambdaSQSQueueExecutionRole"]  # !Sub, service-role/
    assert "sqs:DeleteMessage" in sqs["Action"]
    (own,) = grouped["Policies[5] ManagedPolicy Shared"]  # !Ref to the template's own
    assert own["Action"] == ["events:PutEvents"]


def test_managed_policies_lambdafuzz_cannot_know_are_unknown():
    unknown = permissions("inline_and_managed", "Worker").unknown
    assert unknown[0].startswith("Policies[6] managed AmazonTextractFullAccess: an AWS managed")
    assert unknown[1].startswith("Policies[7] 'AWSLambdaBasicExecutionRol': not an AWS managed")
    assert unknown[1].endswith("did you mean AWSLambdaBasicExecutionRole?")
    assert unknown[2].startswith("Policies[8] arn:aws:iam::123456789012:policy/team-boundary:")
    assert len(unknown) == 3


def test_policies_as_one_name_and_no_policies_at_all():
    lone = permissions("inline_and_managed", "Lone")
    assert [s["Sid"] for s in lone.statements] == [
        "managed AWSLambdaBasicExecutionRole",
        "Policies[0] managed AmazonSQSFullAccess",
    ]
    bare = permissions("inline_and_managed", "Bare")  # SAM's role: basic execution only
    assert bare.statements == (BASIC,) and bare.unknown == () and bare.notes == ()


def test_the_managed_policy_table():
    assert aws_managed_name("AWSLambdaBasicExecutionRole") == "AWSLambdaBasicExecutionRole"
    arn = "arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"
    assert aws_managed_name(arn) == "AWSLambdaVPCAccessExecutionRole"
    assert aws_managed_name("arn:aws:iam::123456789012:policy/mine") is None
    assert aws_managed_name("NoSuchPolicy") is None
    assert "AmazonTextractFullAccess" in known_managed_names()  # SAM's bundled map
    for name in MANAGED_POLICIES:
        assert name in known_managed_names(), name  # no typo in the table's names
        for statement in managed_statements(name) or []:
            assert statement_from_json(statement).effect in (Effect.ALLOW, Effect.DENY)
    copy = managed_statements("AmazonSQSFullAccess")
    assert copy is not None
    copy[0]["Action"].append("changed")
    assert managed_statements("AmazonSQSFullAccess") == [
        {"Effect": "Allow", "Action": ["sqs:*"], "Resource": "*"}
    ]
    assert managed_statements("AmazonTextractFullAccess") is None


def test_read_only_access_is_an_approximation_marked_unknown(tmp_path):
    path = tmp_path / "template.yaml"
    path.write_text(template_text("iam", "read_only_access"))
    template = read_template(path)
    found = template_permissions(template, Resolver(template), "Fn")
    assert found.statements[1]["Sid"] == "Policies[0] managed ReadOnlyAccess"
    (unknown,) = found.unknown
    assert unknown.startswith("Policies[0] managed ReadOnlyAccess: approximated")


# --------------------------------------------------------------------------- roles
def test_a_role_of_the_template_with_inline_managed_and_attached_policies():
    found = permissions("role", "Orders2Function")
    assert [(s["Sid"], s["Resource"]) for s in found.statements] == [
        ("Role OrdersRole: Policies[0] (AccessOrders)", ["${tables.orders.arn}"]),
        ("Role OrdersRole: managed AWSLambdaBasicExecutionRole", ["*"]),
        ("Policy SendJobs (send-jobs)", ["${queues.jobs.arn}"]),  # Roles: [!Ref OrdersRole]
        ("ManagedPolicy ReadJobs", ["${queues.jobs.arn}"]),  # Roles: [orders-role] (RoleName)
    ]  # not the policy attached to another role, not the function's Policies
    assert found.notes == ("Policies: ignored, as SAM ignores them when the function has a Role",)
    assert found.unknown == ()


def test_a_plain_cloudformation_function_s_role_by_arn():
    found = permissions("role", "PlainFunction")  # role/orders-role: the RoleName of OrdersRole
    assert [s["Sid"] for s in found.statements] == [
        s["Sid"] for s in permissions("role", "Orders2Function").statements
    ]


def test_a_role_outside_the_template_is_unknown():
    found = permissions("role", "ImportedRoleFunction")
    assert found.statements == ()
    assert found.unknown == (
        "Role: 'arn:aws:iam::123456789012:role/shared-lambda-role' is not a role of this "
        "template; its statements are unknown",
    )


# --------------------------------------------------------------------------- connectors
def test_connectors_as_resources_and_embedded():
    found = permissions("connectors", "Worker")
    grouped = by_source(found)
    (read,) = grouped["Connector ReadOrders (Read)"]  # a SimpleTable: its table ARN
    assert read["Resource"] == ["${tables.orders.arn}", "${tables.orders.arn}/index/*"]
    assert "dynamodb:GetItem" in read["Action"] and "dynamodb:PutItem" not in read["Action"]
    queue, topic = grouped["Connector Notify (Write)"]  # two destinations: by Id and by Arn
    assert queue["Resource"] == ["${queues.jobs.arn}"] and "sqs:SendMessage" in queue["Action"]
    assert (topic["Action"], topic["Resource"]) == (["sns:Publish"], ["${topics.alerts.arn}"])
    start, stop = grouped["Connector StartFulfil (Write)"]  # a state machine is not emulated
    machine = ARN.format(service="states", rest="stateMachine:fulfil")
    assert start["Resource"][0] == machine
    assert stop["Resource"][0] == ARN.format(service="states", rest="execution:fulfil:*")
    # the connector from another function grants this one nothing
    assert not any("ToElsewhere" in s["Sid"] for s in found.statements)
    assert found.unknown == (
        "Connector Bad (Read): not one of Write for a destination of type AWS::SNS::Topic "
        "(SAM refuses the template)",
    )


# --------------------------------------------------------------------------- SAM's own role
def test_what_sam_adds_to_the_role_it_creates():
    found = permissions("sam_role", "Worker")
    grouped = by_source(found)
    assert list(grouped) == [
        "managed AWSLambdaBasicExecutionRole",
        "Tracing: managed AWSXrayWriteOnlyAccess",  # Globals.Function.Tracing: Active
        "VpcConfig: managed AWSLambdaVPCAccessExecutionRole",
        "Policies[1] inline",  # Policies[0]: an Fn::If whose condition is false
        "DeadLetterQueue",
        "Events.Queue: managed AWSLambdaSQSQueueExecutionRole",
        "Events.Messages: SamAutoGeneratedAMQPolicy",  # aws-sam-translator's MQ statements
    ]
    (dlq,) = grouped["DeadLetterQueue"]
    assert (dlq["Action"], dlq["Resource"]) == (["sqs:SendMessage"], ["${queues.failed.arn}"])
    credentials, broker = grouped["Events.Messages: SamAutoGeneratedAMQPolicy"]
    assert credentials["Resource"] == ["${secrets.mq-credentials.arn}"]
    assert broker["Resource"] == ["*"]  # the broker is not emulated: noted
    # an Fn::If on a condition that cannot be evaluated: both branches
    (invoke,) = grouped["Policies[1] inline"]
    assert invoke["Resource"] == [
        ARN.format(service="lambda", rest="function:a"),
        ARN.format(service="lambda", rest="function:b"),
    ]
    assert any("the Condition Unknown of an Fn::If cannot be evaluated" in n for n in found.notes)


# --------------------------------------------------------------------------- the template import
def test_the_template_import_carries_the_statements_into_the_target():
    imported = load_template(template_path("iam", "inline_and_managed"), "Worker")
    policy = imported.target.permissions
    assert isinstance(policy, Policy)
    assert policy.statements[0].source == "managed AWSLambdaBasicExecutionRole"
    assert policy.statements[1].resources == (
        "${tables.orders.arn}",
        "${tables.orders.arn}/index/*",
    )
    assert len(policy.unknown) == 3 and policy.unknown[0].startswith("Policies[6] managed")
    assert imported.config["permissions"]["unknown"] == list(policy.unknown)
    noted = [u for u in imported.unsupported if u.startswith("permissions: ")]
    assert len(noted) == 4  # the wildcard and the three unknown grants
    assert not any(u.startswith("Properties.Policies") for u in imported.unsupported)
    assert pickle.loads(pickle.dumps(imported.target)) == imported.target


def test_iam_resources_are_not_listed_as_unemulated():
    imported = load_template(template_path("iam", "role"), "Orders2Function")
    assert not any("AWS::IAM::" in u for u in imported.unsupported), imported.unsupported
    assert not any(
        u.startswith(("Properties.Role", "Properties.Policies")) for u in imported.unsupported
    )


# --------------------------------------------------------------------------- lambdafuzz.yaml
CONFIG = """\
handler: app.handler
trigger: direct
resources:
  tables: [{name: orders, hash_key: {name: pk, type: S}}]
  queues: [{name: jobs}]
"""


def write(tmp_path: Path, permissions_text: str) -> Path:
    return write_config(tmp_path, CONFIG + textwrap.dedent(permissions_text))


def error_for(tmp_path: Path, permissions_text: str) -> str:
    return config_error_for(tmp_path, CONFIG + textwrap.dedent(permissions_text))


def test_permissions_as_a_list_of_statements(tmp_path):
    target = load_config(
        write(
            tmp_path,
            """\
            permissions:
              - Effect: Allow
                Action: [dynamodb:GetItem, dynamodb:Query]
                Resource: ["${tables.orders.arn}", "${tables.orders.arn}/index/*"]
              - Sid: OwnFolder
                Effect: Allow
                Action: s3:GetObject
                Resource: "arn:aws:s3:::uploads/${aws:username}/*"
            """,
        )
    )
    policy = target.permissions
    assert policy is not None and policy.unknown == ()
    first, second = policy.statements
    assert first.actions == ("dynamodb:GetItem", "dynamodb:Query")
    assert first.resources == ("${tables.orders.arn}", "${tables.orders.arn}/index/*")
    assert first.source == "permissions[0]"  # no Sid: where it was written
    assert second.source == "OwnFolder"  # an IAM policy variable is no reference


def test_permissions_as_a_mapping_with_unknown_grants_and_as_a_policy_document(tmp_path):
    mapping = load_config(
        write(
            tmp_path,
            """\
            permissions:
              statements:
                - {Effect: Allow, Action: "sqs:SendMessage", Resource: "${queues.jobs.arn}"}
              unknown: [the team's boundary policy]
            """,
        )
    ).permissions
    assert mapping is not None
    assert mapping.unknown == ("the team's boundary policy",)
    assert mapping.statements[0].source == "permissions.statements[0]"
    document = load_config(
        write(
            tmp_path,
            """\
            permissions:
              Version: "2012-10-17"
              Statement: {Effect: Allow, Action: "sqs:*", Resource: "*"}
            """,
        )
    ).permissions
    assert document is not None and document.statements[0].actions == ("sqs:*",)


@pytest.mark.parametrize("off", ["", "permissions: false\n", "permissions: null\n"])
def test_no_permissions_turns_the_check_off(tmp_path, off):
    assert load_config(write(tmp_path, off)).permissions is None


def test_an_empty_list_grants_nothing(tmp_path):
    policy = load_config(write(tmp_path, "permissions: []\n")).permissions
    assert policy == Policy()  # every AWS call is a finding, not the check off


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("permissions: true\n", ":6: permissions is True; expected false (no permission check)"),
        ("permissions: 5\n", ":6: permissions is 5; expected false"),
        (
            "permissions:\n  - {Action: s3:GetObject, Resource: '*'}\n",
            ":7: permissions[0] is {'Action': 's3:GetObject', 'Resource': '*'}; expected an IAM "
            "statement: Effect must be Allow or Deny, not None.",
        ),
        (
            "permissions:\n  - {Effect: Allow, Action: s3:GetObject}\n",
            "expected an IAM statement: a statement has exactly one of Resource and NotResource.",
        ),
        (
            "permissions:\n  - 5\n",
            "permissions[0] is 5; expected an IAM statement: a statement is a mapping",
        ),
        (
            "permissions:\n  statements:\n    - {Effect: Allow, Action: x:Y, Resource: "
            "'${tables.ordrs.arn}'}\n",
            ":8: permissions.statements[0] is '${tables.ordrs.arn}'; expected a declared resource "
            "in ${tables.NAME.arn}: one of orders. Did you mean '${tables.orders.arn}'?",
        ),
        (
            "permissions:\n  - {Effect: Allow, Action: x:Y, Resource: '${table.orders.arn}'}\n",
            "with kind one of buckets, tables",
        ),
        (
            "permissions:\n  statements: []\n  unknwn: [x]\n",
            "unknown key permissions.unknwn (with value ['x']); expected one of: statements, "
            "unknown.",
        ),
        (
            "permissions:\n  statements: []\n  unknown: a policy\n",
            "permissions.unknown is 'a policy'; expected a list",
        ),
        (
            "permissions:\n  Version: '2012-10-17'\n  Statement:\n    - {Effect: Allow, "
            "Action: s3:GetObject}\n",
            ":9: permissions.Statement[0] is",
        ),
        ("policies: []\n", "unknown key policies (with value []); expected one of"),
    ],
)
def test_each_invalid_permissions_form_is_one_clear_error(tmp_path, text, expected):
    message = error_for(tmp_path, text)
    assert expected in message, message
    if text.startswith("policies"):
        assert "Did you mean 'permissions'?" in message


# --------------------------------------------------------------------------- resolve_policy
def test_resolve_policy_substitutes_the_loaded_facts(tmp_path):
    target = load_config(
        write(
            tmp_path,
            """\
            permissions:
              statements:
                - Effect: Allow
                  Action: [dynamodb:GetItem, sqs:SendMessage]
                  Resource: ["${tables.orders.arn}/index/*", "${queues.jobs.arn}"]
                - Effect: Deny
                  Action: s3:DeleteObject
                  NotResource: "arn:aws:s3:::uploads/${aws:username}/*"
              unknown: [a boundary]
            """,
        )
    )
    loaded = LoadedWorld(world=World())
    policy = resolve_policy(target, loaded)
    assert policy is not None
    allow, deny = policy.statements
    assert allow.resources == (
        ARN.format(service="dynamodb", rest="table/orders/index/*"),
        ARN.format(service="sqs", rest="jobs"),
    )
    assert deny.not_resources == ("arn:aws:s3:::uploads/*/*",)  # a policy variable: `*`
    assert (allow.actions, allow.source, policy.unknown) == (
        ("dynamodb:GetItem", "sqs:SendMessage"),
        "permissions.statements[0]",
        ("a boundary",),
    )
    assert target.permissions is not None
    assert target.permissions.statements[0].resources[0] == "${tables.orders.arn}/index/*"  # raw


def test_resolve_policy_with_the_check_off_and_emulator_facts(tmp_path):
    assert resolve_policy(load_config(write(tmp_path, "")), LoadedWorld(world=World())) is None
    template = load_template(template_path("iam", "policy_templates"), "Worker").target
    secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:api-key-AbCdEf"
    policy = resolve_policy(template, LoadedWorld(world=World(), secret_arns={"api-key": secret}))
    assert policy is not None
    (granted,) = [s for s in policy.statements if "GetSecretValue" in s.source]
    assert granted.resources == (secret,)


def test_globals_policies_are_ignored_as_sam_refuses_them(tmp_path):
    path = tmp_path / "template.yaml"
    path.write_text(template_text("iam", "globals_policies"))
    template = read_template(path)
    found = template_permissions(template, Resolver(template), "Fn")
    assert found.statements == (BASIC,)  # not AmazonS3FullAccess
    assert found.notes[0].startswith("Globals.Function.Policies: SAM does not take Policies")
    assert found.unknown == (
        "Policies[0] a managed policy that cannot be resolved: not a policy of this template "
        "nor one lambdafuzz has the statements of; it may allow any call",
    )
