"""moto's per-request listing of a response class's methods, kept per class on the fast path."""

from __future__ import annotations

import moto.core.responses as responses
from moto.core.utils import method_names_from_class
from moto.dynamodb.responses import DynamoHandler
from moto.s3.responses import S3Response

from lambdafuzz.harness.fast_aws import METHOD_NAMES


def test_the_kept_listing_is_the_listing_and_uninstall_restores_moto() -> None:
    assert responses.method_names_from_class is method_names_from_class
    METHOD_NAMES.install()
    try:
        assert responses.method_names_from_class is METHOD_NAMES
        for cls, action in ((DynamoHandler, "put_item"), (S3Response, "get_object")):
            listed = responses.method_names_from_class(cls)
            assert listed == frozenset(method_names_from_class(cls))
            assert action in listed
            assert responses.method_names_from_class(cls) is listed  # listed once
        METHOD_NAMES.install()  # idempotent: the original is not lost
    finally:
        METHOD_NAMES.uninstall()
    assert responses.method_names_from_class is method_names_from_class
    assert METHOD_NAMES.names == {}
