"""Client and resource-class reuse (`harness.client_cache`): reused only while pristine."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from lambdafuzz.harness.emulator.client_cache import CACHE


@pytest.fixture
def cached() -> Iterator[Any]:
    from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS

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


def test_a_session_made_alike_and_left_alone_shares_the_client(cached: Any) -> None:
    """`boto3.Session(region_name=...).client(...)` on every invocation: one client."""
    import boto3

    first = boto3.Session(region_name="us-east-1").client("s3")
    assert boto3.Session(region_name="us-east-1").client("s3") is first
    assert boto3.session.Session().client("s3") is not first  # no region: another session
    assert boto3.Session(region_name="eu-west-1").client("s3") is not first
    assert boto3.Session(region_name="eu-west-1").client("s3").meta.region_name == "eu-west-1"


def test_a_session_changed_before_its_client_gets_its_own(cached: Any) -> None:
    import boto3

    first = boto3.Session(region_name="us-east-1").client("s3")
    seen: list[str] = []
    hooked = boto3.Session(region_name="us-east-1")
    hooked.events.register("before-call.s3", lambda **kw: seen.append("called"))
    own = hooked.client("s3")
    assert own is not first
    assert own.meta.events is not first.meta.events
    signed = boto3.Session(
        region_name="us-east-1", aws_access_key_id="AKIDOTHER", aws_secret_access_key="x"
    )
    other = signed.client("s3")
    assert other is not first
    assert other._request_signer._credentials.access_key == "AKIDOTHER"
    import botocore.session

    given = boto3.Session(botocore_session=botocore.session.get_session(), region_name="us-east-1")
    assert given.client("s3") is not first  # a botocore session passed in is not boto3's own
    first.extra_attribute = 1  # a shared client the handler changed is not handed out again
    assert boto3.Session(region_name="us-east-1").client("s3") is not first


def test_a_new_session_has_botocore_s_own_handlers(cached: Any) -> None:
    """The built-in handlers come from a copy of one session's (`_templated_builtin_handlers`):
    the same handlers, in the same order, as registering them one by one gives."""
    import botocore.handlers
    import botocore.session

    # every event a built-in handler is registered for, as the emitter names it
    names = sorted({spec[0] for spec in botocore.handlers.BUILTIN_HANDLERS})
    templated = [botocore.session.Session() for _ in range(2)]
    CACHE.uninstall()
    plain = botocore.session.Session()
    CACHE.install()

    def handlers(session: Any, name: str) -> list[Any]:
        """By name: a session initializer (Powertools' registers one once imported) adds a
        closure of its own to every session, which a copy must not share."""
        aliased = session._events._alias_event_name(name)
        found = session._events._emitter._handlers.prefix_search(aliased)
        return [
            (getattr(h, "__module__", None), getattr(h, "__qualname__", type(h).__qualname__))
            for h in (getattr(f, "__func__", f) for f in found)
        ]

    assert len(names) > 50
    for name in names:
        assert handlers(plain, name), name
        assert handlers(templated[0], name) == handlers(plain, name) == handlers(templated[1], name)
    templated[0].register("before-call.s3", lambda **kw: None)  # one session's own, only
    assert len(handlers(templated[0], "before-call.s3.GetObject")) == 1 + len(
        handlers(templated[1], "before-call.s3.GetObject")
    )


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


def test_resources_of_sessions_made_alike_share_their_class(
    cached: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in a worker, whose loaders start with the fork server's loaded data
    (`server_warmup`): the same definitions for every session."""
    import boto3
    import botocore.session

    monkeypatch.setattr(botocore.session, "create_loader", botocore.session.create_loader)
    from lambdafuzz.harness.process.server_warmup import warm_loaders

    warm_loaders()

    def table() -> Any:
        return boto3.Session(region_name="us-east-1").resource("dynamodb").Table("t")

    first, second = table(), table()
    assert type(second) is type(first) and second.meta.client is first.meta.client
    assert hasattr(second, "batch_writer")

    def add_marker(class_attributes: dict[str, Any], **kwargs: Any) -> None:
        class_attributes["marker"] = "customised"

    customised = boto3.Session(region_name="us-east-1")
    customised.events.register("creating-resource-class.dynamodb.Table", add_marker)
    own = customised.resource("dynamodb").Table("t")
    assert type(own) is not type(first)
    assert own.marker == "customised" and not hasattr(first, "marker")
