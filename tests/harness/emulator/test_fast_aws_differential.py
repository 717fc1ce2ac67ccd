"""The fast AWS path answers exactly as moto's full path does.

Each sequence (seeded; `fast_aws_sequences`) builds a world and runs six operations on
both paths: every response (request ids and dates masked), every error (class, code,
message, HTTP status, modeled fields) and the state left behind must be equal. 200
sequences here; `benchmarks/aws_path.py --sequences 10000` runs 10,000 the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.harness.emulator.fast_aws_sequences import Env, run_sequence

CHUNKS = 2  # 200 sequences in make test (~15 s); make bench runs 10,000
PER_CHUNK = 100


@pytest.fixture(scope="module")
def env() -> Iterator[Env]:
    from lambdafuzz.harness.emulator import moto_results

    saved = dict(os.environ)
    made = Env()
    # every answer taken from moto's result data is also serialised and parsed moto's and
    # botocore's way, and a difference raises (an outcome the moto path never has)
    moto_results.CHECK = True
    yield made
    moto_results.CHECK = False
    made.fast.uninstall()
    made.backend.stop()
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_path_equals_moto_path(env: Env, chunk: int) -> None:
    answered_before, tapped_before = env.fast.answered, env.fast.answered_tapped
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        moto_outcomes, moto_state = run_sequence(env, seed, fast=False)
        fast_outcomes, fast_state = run_sequence(env, seed, fast=True)
        for index, (expected, got) in enumerate(zip(moto_outcomes, fast_outcomes, strict=True)):
            assert got == expected, f"sequence {seed}, operation {index}"
        assert fast_state == moto_state, f"sequence {seed}: state"
    # the fast path did answer (it is not silently falling through)
    assert env.fast.answered - answered_before > PER_CHUNK
    assert env.fast.answered_tapped - tapped_before > PER_CHUNK


def test_every_answered_operation_is_generated(env: Env) -> None:
    """The sequences exercise every operation the fast path answers."""
    from lambdafuzz.harness.emulator.fast_aws import ANSWERED

    env.fast.seen.clear()
    for seed in range(PER_CHUNK):
        run_sequence(env, seed, fast=True)
    assert env.fast.seen == {(s, op) for s, ops in ANSWERED.items() for op in ops}


def test_errors_are_the_same_client_errors(env: Env) -> None:
    """A missing table and a missing key raise the same ClientError subclass, code and
    message on the fast path (and the fast path answered them)."""
    from botocore.exceptions import ClientError

    run_sequence(env, 0, fast=False)
    answered = env.fast.answered
    env.fast.enabled = True
    try:
        with pytest.raises(ClientError) as missing_table:
            env.ddb.get_item(TableName="no-such-table", Key={"pk": {"S": "x"}})
        with pytest.raises(ClientError) as missing_key:
            env.s3.get_object(Bucket="diff-bucket", Key="no-such-key")
    finally:
        env.fast.enabled = False
    assert env.fast.answered == answered + 2
    assert type(missing_table.value).__name__ == "ResourceNotFoundException"
    assert missing_table.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert type(missing_key.value).__name__ == "NoSuchKey"
    assert missing_key.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_json_and_query_services_are_answered_without_an_http_request(env: Env) -> None:
    """DynamoDB, SQS and SNS calls go straight to moto's handler (no request object, no
    signing); S3's need moto's HTTP request and keep it."""
    from lambdafuzz.harness.emulator.fast_aws import ANSWERED

    env.fast.seen.clear()
    direct_before, answered_before = env.fast.answered_direct, env.fast.answered
    for seed in range(20):
        run_sequence(env, seed, fast=True)
    answered = env.fast.answered - answered_before
    direct = env.fast.answered_direct - direct_before
    assert 0 < direct < answered
    s3_calls = {op for service, op in env.fast.seen if service == "s3"}
    assert s3_calls and s3_calls <= ANSWERED["s3"]


def test_direct_calls_reach_the_account_of_the_signing_credentials(env: Env) -> None:
    """moto picks the account from the access key in the signature; a direct call has no
    signature, so it must read the same key: a role assumed in another account writes
    there on both paths, and an unsigned client lands in moto's default account."""
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config

    run_sequence(env, 0, fast=False)
    sts = boto3.client("sts", region_name="us-east-1")
    creds = sts.assume_role(
        RoleArn="arn:aws:iam::111111111111:role/writer", RoleSessionName="differential"
    )["Credentials"]
    other = boto3.Session(
        aws_access_key_id=creds["AccessKeyId"],
        aws_secret_access_key=creds["SecretAccessKey"],
        aws_session_token=creds["SessionToken"],
        region_name="us-east-1",
    ).client("dynamodb")
    other.create_table(
        TableName="elsewhere",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    unsigned = boto3.client(
        "dynamodb", region_name="us-east-1", config=Config(signature_version=UNSIGNED)
    )
    key = _any_key(env)
    direct_before = env.fast.answered_direct
    env.fast.enabled = True
    try:
        other.put_item(TableName="elsewhere", Item={"pk": {"S": "a"}})
        unsigned_tables = unsigned.list_tables()["TableNames"]  # not answered: moto's path
        unsigned_item = unsigned.get_item(TableName="diff-table", Key=key)
    finally:
        env.fast.enabled = False
    assert env.fast.answered_direct == direct_before + 2
    assert other.get_item(TableName="elsewhere", Key={"pk": {"S": "a"}})["Item"] == {
        "pk": {"S": "a"}
    }
    assert "elsewhere" not in env.ddb.list_tables()["TableNames"]
    assert "elsewhere" not in unsigned_tables and "diff-table" in unsigned_tables
    assert "Item" in unsigned_item


def _any_key(env: Env) -> dict[str, object]:
    """The key of an item the sequence's world left in the default account's table."""
    item = env.ddb.scan(TableName="diff-table", Limit=1)["Items"][0]
    schema = env.ddb.describe_table(TableName="diff-table")["Table"]["KeySchema"]
    return {part["AttributeName"]: item[part["AttributeName"]] for part in schema}


def test_a_users_request_created_handler_still_sees_every_request(env: Env) -> None:
    """The fast path skips signing only while botocore's own handlers are the only ones on
    `request-created`: a handler a user registers still runs (and sees the S3 request)."""
    import boto3

    run_sequence(env, 0, fast=False)
    seen: list[str] = []
    s3 = boto3.Session(region_name="us-east-1").client("s3")
    s3.meta.events.register(
        "request-created.s3.GetObject", lambda request, **_: seen.append(request.url)
    )
    answered = env.fast.answered
    env.fast.enabled = True
    try:
        body = s3.get_object(Bucket="diff-bucket", Key="a.txt")["Body"].read()
        plain = env.s3.get_object(Bucket="diff-bucket", Key="a.txt")["Body"].read()
    finally:
        env.fast.enabled = False
    assert env.fast.answered == answered + 2
    assert len(seen) == 1 and seen[0].endswith("/a.txt")
    assert body == plain


def test_a_users_request_created_handler_keeps_dynamodb_on_the_http_path(env: Env) -> None:
    """A direct answer has no request to show a `request-created` handler, so a client
    with one is answered through moto's HTTP-shaped dispatch, and the handler runs."""
    import boto3

    run_sequence(env, 0, fast=False)
    seen: list[str] = []
    ddb = boto3.Session(region_name="us-east-1").client("dynamodb")
    ddb.meta.events.register(
        "request-created.dynamodb.ListTables", lambda request, **_: seen.append(request.url)
    )
    key = _any_key(env)
    answered, direct = env.fast.answered, env.fast.answered_direct
    env.fast.enabled = True
    try:
        got = ddb.get_item(TableName="diff-table", Key=key)["Item"]  # no handler for it
        ddb.meta.events.register(
            "request-created.dynamodb.GetItem", lambda request, **_: seen.append(request.url)
        )
        again = ddb.get_item(TableName="diff-table", Key=key)["Item"]
    finally:
        env.fast.enabled = False
    assert env.fast.answered == answered + 2
    assert env.fast.answered_direct == direct + 1
    assert len(seen) == 1 and got == again


def test_powertools_user_agent_handler_keeps_the_direct_path(env: Env) -> None:
    """Powertools registers a `request-created` handler on every session once imported;
    it only appends to the User-Agent, so calls are still answered directly."""
    import boto3
    from aws_lambda_powertools.shared.user_agent import register_feature_to_client

    run_sequence(env, 0, fast=False)
    ddb = boto3.Session(region_name="us-east-1").client("dynamodb")
    register_feature_to_client(ddb, "differential")
    key = _any_key(env)
    direct = env.fast.answered_direct
    env.fast.enabled = True
    try:
        got = ddb.get_item(TableName="diff-table", Key=key)["Item"]
    finally:
        env.fast.enabled = False
    assert env.fast.answered_direct == direct + 1
    assert got == env.ddb.get_item(TableName="diff-table", Key=key)["Item"]
