"""Client and resource-class reuse (`harness.client_cache`): reused only while pristine."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from lambdafuzz.harness.client_cache import CACHE


@pytest.fixture
def cached() -> Iterator[Any]:
    from lambdafuzz.harness.safety import FAKE_CREDENTIALS

    saved = dict(os.environ)
    os.environ.update(FAKE_CREDENTIALS, AWS_DEFAULT_REGION="us-east-1")
    import boto3

    CACHE.install()
    try:
        yield boto3.Session(region_name="us-east-1")
    finally:
        CACHE.uninstall()
        os.environ.clear()
        os.environ.update(saved)


def test_identical_arguments_reuse_the_client(cached: Any) -> None:
    first = cached.client("s3")
    assert cached.client("s3") is first
    assert cached.client("sqs") is not first
    assert cached.client("s3", region_name="eu-west-1") is not first
    assert cached.client("s3", region_name="eu-west-1").meta.region_name == "eu-west-1"


def test_a_client_the_handler_changed_is_not_handed_out_again(cached: Any) -> None:
    first = cached.client("s3")
    first.meta.events.register("before-call.s3", lambda **_: None)
    second = cached.client("s3")
    assert second is not first
    second.extra_attribute = 1  # an attribute set on the client also counts as a change
    assert cached.client("s3") is not second


def test_a_client_that_met_an_error_is_handed_out_again(cached: Any) -> None:
    """botocore fills `client._exceptions` lazily, on the first error (its error path reads
    `client.exceptions`, as handlers' `except client.exceptions.X` do): a handler whose
    calls fail now and then must not pay a new client after each failure."""
    first = cached.client("s3")
    assert first.exceptions.NoSuchKey is not None  # what the error path reads
    assert cached.client("s3") is first
    first._exceptions = None  # but a handler's own change to it still counts
    assert cached.client("s3") is not first


def test_an_environment_change_makes_a_new_client(cached: Any) -> None:
    first = cached.client("s3")
    os.environ["AWS_DEFAULT_REGION"] = "eu-west-1"
    second = cached.client("s3")
    assert second is not first


def test_another_session_gets_its_own_client(cached: Any) -> None:
    import boto3

    assert boto3.Session(region_name="us-east-1").client("s3") is not cached.client("s3")


def test_resources_reuse_their_client_and_class(cached: Any) -> None:
    table = cached.resource("dynamodb").Table("t")
    again = cached.resource("dynamodb").Table("t")
    assert again is not table  # instances are per call
    assert type(again) is type(table)
    assert again.meta.client is table.meta.client
    assert hasattr(again, "batch_writer")  # boto3's DynamoDB customisation is kept


def test_uninstall_restores_fresh_clients(cached: Any) -> None:
    first = cached.client("s3")
    CACHE.uninstall()
    assert cached.client("s3") is not cached.client("s3")
    assert cached.client("s3") is not first


def test_handler_registration_checks_are_remembered_and_still_refuse(cached: Any) -> None:
    import functools

    import botocore.compat
    import botocore.hooks

    remembered = botocore.hooks.accepts_kwargs
    assert remembered is not botocore.compat.accepts_kwargs

    class Hooks:
        def takes(self, **kwargs: Any) -> None: ...

        def refuses(self, request: Any) -> None: ...

    def plain(x: Any) -> None: ...

    for func in (Hooks().takes, Hooks().refuses, plain, functools.partial(plain), lambda **kw: 0):
        for _ in range(2):  # the second answer is the remembered one
            assert remembered(func) == botocore.compat.accepts_kwargs(func)
    client = cached.client("s3")
    client.meta.events.register("before-call.s3", Hooks().takes)
    with pytest.raises(ValueError, match="must accept keyword arguments"):
        client.meta.events.register("before-call.s3", Hooks().refuses)
    CACHE.uninstall()
    assert botocore.hooks.accepts_kwargs is botocore.compat.accepts_kwargs
