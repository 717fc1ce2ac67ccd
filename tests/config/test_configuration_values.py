"""Secrets Manager secrets and SSM parameters: declared in lambdafuzz.yaml or a template,
drawn into every world, loaded into the emulator, referenced from the environment."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.errors import ConfigError
from lambdafuzz.generators.aws.config_values import (
    PLACEHOLDER,
    draw_parameter,
    draw_secret,
    placeholder_secret,
)
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import ParameterSpec, SecretSpec, resolve_env
from lambdafuzz.model.world import LoadedWorld, Parameter, Secret, World
from tests.fixtures.config_files import write_config
from tests.fixtures.sam import template_text

CONFIG = """\
handler: app.handler
trigger: {kind: direct}
env:
  DB_SECRET_ARN: "${secrets.prod/db.arn}"
  DB_SECRET_NAME: "${secrets.prod/db.name}"
  FLAG: "${parameters./app/flag.name}"
resources:
  secrets:
    - {name: prod/db, value: '{"username": "app"}', generate_key: password}
    - {name: api-key}
    - {name: fixed, value: "s3cr3t"}
  parameters:
    - {name: /app/flag, value: "on"}
    - {name: /app/batch-size}
    - {name: /app/hosts, type: StringList}
"""


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, text))
    return str(info.value)


def test_declared_secrets_and_parameters_load(tmp_path: Path) -> None:
    target = load_config(write_config(tmp_path, CONFIG))
    assert target.resources.secrets == (
        SecretSpec("prod/db", '{"username": "app"}', "password"),
        SecretSpec("api-key"),
        SecretSpec("fixed", "s3cr3t"),
    )
    assert target.resources.parameters == (
        ParameterSpec("/app/flag", "on"),
        ParameterSpec("/app/batch-size"),
        ParameterSpec("/app/hosts", None, "StringList"),
    )
    world = World(secrets=(Secret("prod/db", "{}"),))
    env = resolve_env(target, LoadedWorld(world))
    assert env["DB_SECRET_ARN"] == world.secret_arn("prod/db")
    assert env["DB_SECRET_ARN"].startswith(
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-"
    )
    assert (env["DB_SECRET_NAME"], env["FLAG"]) == ("prod/db", "/app/flag")


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ("secrets: [{name: 'a b'}]", "a Secrets Manager secret name"),
        ("parameters: [{name: 'app/x'}]", "a path (a name with /) starting with /"),
        ("parameters: [{name: /aws/x}]", "no aws or ssm prefix"),
        ("parameters: [{name: /x, type: Secure}]", "an SSM parameter type"),
        ("secrets: [{name: s, value: 'plain', generate_key: k}]", "a JSON object"),
        ("secrets: [{name: s}, {name: s}]", "a name not used by another of secrets"),
    ],
)
def test_a_bad_declaration_is_one_clear_error(
    tmp_path: Path, resources: str, expected: str
) -> None:
    text = f"handler: app.handler\ntrigger: {{kind: direct}}\nresources:\n  {resources}\n"
    assert expected in _error(tmp_path, text)


def test_secret_draws() -> None:
    templated = SecretSpec("db", '{"username": "app"}', "password")
    values = set()
    for seed in range(30):
        secret = draw_secret(Choices(seed=seed), templated)
        decoded = json.loads(secret.value)
        assert decoded["username"] == "app" and 1 <= len(decoded["password"]) <= 32
        values.add(decoded["password"])
    assert len(values) > 20  # drawn anew for each input
    fixed = draw_secret(Choices(seed=0), SecretSpec("f", "s3cr3t"))
    assert fixed == Secret("f", "s3cr3t")
    whole = draw_secret(Choices(seed=0), SecretSpec("w"))
    assert whole.value and not whole.value.startswith("{")
    placeholder = json.loads(placeholder_secret(templated).value)
    assert placeholder == {"username": "app", "password": PLACEHOLDER}


def test_parameter_draws() -> None:
    listed = draw_parameter(Choices(seed=3), ParameterSpec("/h", None, "StringList"))
    assert listed.type == "StringList" and 1 <= len(listed.value.split(",")) <= 4
    fixed = draw_parameter(Choices(seed=3), ParameterSpec("/f", "on"))
    assert fixed == Parameter("/f", "on", "String")
    drawn = {draw_parameter(Choices(seed=s), ParameterSpec("/d")).value for s in range(20)}
    assert len(drawn) > 10


def test_a_secret_s_arn_is_the_same_in_every_world() -> None:
    one, other = World().secret_arn("prod/db"), World().secret_arn("prod/db")
    assert one == other != World().secret_arn("prod/db2")
    suffix = one.rsplit("-", 1)[1]
    assert len(suffix) == 6 and suffix.isalpha()


@pytest.fixture
def moto_backend() -> Iterator[object]:
    from lambdafuzz.harness.emulator.backends import MotoBackend
    from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS

    saved = dict(os.environ)
    os.environ.update(FAKE_CREDENTIALS, AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1")
    backend = MotoBackend()
    backend.start()
    yield backend
    backend.stop()
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.parametrize("loader", ["direct", "boto3"])
def test_loaded_into_moto_and_gone_after_a_reset(moto_backend, loader: str) -> None:
    import boto3

    from lambdafuzz.harness.emulator.loaders import Boto3Loader

    if loader == "boto3":
        moto_backend.loader = Boto3Loader()
    world = World(
        secrets=(Secret("prod/db", '{"password": "p"}'),),
        parameters=(Parameter("/app/flag", "on"), Parameter("/app/key", "k", "SecureString")),
    )
    arns = set()
    for _ in range(2):  # loaded again after a reset: no "already exists"
        moto_backend.reset()
        loaded = moto_backend.load(world)
        arns.add(loaded.secret_arn("prod/db"))
        secrets = boto3.client("secretsmanager")
        by_arn = secrets.get_secret_value(SecretId=loaded.secret_arn("prod/db"))
        assert json.loads(by_arn["SecretString"]) == {"password": "p"}
        ssm = boto3.client("ssm")
        assert ssm.get_parameter(Name="/app/flag")["Parameter"]["Value"] == "on"
        key = ssm.get_parameter(Name="/app/key", WithDecryption=True)["Parameter"]
        assert (key["Type"], key["Value"]) == ("SecureString", "k")
    assert len(arns) == 1  # the environment's ARN names the secret of every test
    moto_backend.reset()
    with pytest.raises(Exception, match="ResourceNotFound"):
        boto3.client("secretsmanager").get_secret_value(SecretId="prod/db")


def test_template_secrets_and_parameters(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def handler(event, context):\n    return 1\n")
    path = tmp_path / "template.yaml"
    path.write_text(template_text("configuration_values", "secrets_and_parameters"))
    target = load_template(path, "Fn").target
    assert target.resources.secrets == (
        SecretSpec("endpoint/username", '{"Role": "reader"}', "UserName"),
        SecretSpec("PlainSecret", "fixed-value"),
        SecretSpec("GeneratedSecret"),  # no key: the whole string is generated
    )
    assert target.resources.parameters == (
        ParameterSpec("/app/flag", "on", "String"),
        ParameterSpec("HostsParameter", "a,b", "StringList"),
        ParameterSpec("/app/api-key", None, "String"),  # a stack parameter nobody set: drawn
    )
    assert dict(target.env) == {
        "USER_SECRET": "${secrets.endpoint/username.arn}",  # a secret's Ref is its ARN
        "USER_SECRET_ID": "${secrets.endpoint/username.arn}",
        "FLAG_NAME": "/app/flag",  # a parameter's Ref is its name
    }


def test_a_localstack_without_the_state_api_deletes_them(moto_backend) -> None:
    """The reset by deletion (LocalStack's community runtime) lists and deletes secrets and
    parameters, more than a page and more than DeleteParameters' 10 at a time; run here
    against in-process moto through the same boto3 clients."""
    import boto3

    from lambdafuzz.harness.emulator.backends import LocalStackBackend
    from lambdafuzz.harness.emulator.loaders import Boto3Loader

    moto_backend.loader = Boto3Loader()
    secrets = tuple(Secret(f"s{i}", "v") for i in range(3))
    parameters = tuple(Parameter(f"/p{i}", "v") for i in range(23))
    moto_backend.load(World(secrets=secrets, parameters=parameters))
    localstack = LocalStackBackend.__new__(LocalStackBackend)
    localstack.loader, localstack.region, localstack.endpoint = (
        moto_backend.loader,
        "us-east-1",
        "x",
    )
    localstack._delete_everything()
    assert boto3.client("secretsmanager").list_secrets()["SecretList"] == []
    assert boto3.client("ssm").describe_parameters()["Parameters"] == []


CODE = """\
import json
import os
import boto3
from aws_lambda_powertools.utilities import parameters
from aws_lambda_powertools.utilities.parameters import get_secret

secret_name = "prod/db-credentials"


def credentials():
    client = boto3.session.Session().client("secretsmanager")
    return json.loads(client.get_secret_value(SecretId=secret_name)["SecretString"])


def settings():
    ssm = boto3.client("ssm")
    limit = parameters.get_parameter("/orders/page-limit")
    flags = ssm.get_parameters(Names=["/orders/flag-a", "/orders/flag-b"])
    key = get_secret("api-key")
    table = ssm.get_parameter(Name=os.environ["TABLE_PARAMETER"])  # not a name in the code
    bad = ssm.get_parameter(Name="aws/reserved")  # AWS would refuse it
    declared = ssm.get_parameter(Name="/app/flag")
    return limit, flags, key, table, bad, declared
"""


def test_names_the_code_reads_become_drawn_resources(tmp_path: Path) -> None:
    from lambdafuzz.config.code_configuration import code_configuration

    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "config.py").write_text(CODE)
    (tmp_path / "app" / "broken.py").write_text("def (:\n")  # skipped, not an error
    found = code_configuration(tmp_path, ["app"])
    assert found.secrets == ("prod/db-credentials", "api-key")
    assert found.parameters == (
        "/orders/page-limit",
        "/orders/flag-a",
        "/orders/flag-b",
        "/app/flag",
    )
    text = (
        "handler: handler.handler\napp_packages: [handler, app]\ntrigger: {kind: direct}\n"
        "resources:\n  parameters: [{name: /app/flag, value: 'on'}]\n"
    )
    write_config(tmp_path, text)
    (tmp_path / "handler.py").write_text(
        "from app.config import settings\n\ndef handler(e, c):\n    return settings()\n"
    )
    target = load_config(tmp_path / "lambdafuzz.yaml")
    assert target.resources.secrets == (
        SecretSpec("prod/db-credentials", described=False),
        SecretSpec("api-key", described=False),
    )
    assert target.resources.parameters[0] == ParameterSpec("/app/flag", "on")  # declared: kept
    assert [p.name for p in target.resources.parameters[1:]] == [
        "/orders/page-limit",
        "/orders/flag-a",
        "/orders/flag-b",
    ]


def _kinds(spec: SecretSpec) -> set[str]:
    kinds = set()
    for seed in range(40):
        value = draw_secret(Choices(seed=seed, policy=DrawPolicy(fields=("username",))), spec).value
        try:
            kinds.add(type(json.loads(value)).__name__)
        except ValueError:
            kinds.add("text")
    return kinds


def test_a_secret_nothing_describes_is_now_and_then_a_json_object() -> None:
    assert {"dict", "text"} <= _kinds(SecretSpec("s", described=False))
    # a declared secret generated whole is a password (GenerateSecretString without a key)
    assert "dict" not in _kinds(SecretSpec("s"))
