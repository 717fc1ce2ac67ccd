"""The fork server's warm-up (`harness.server_warmup`): what it loads is what a worker
would load itself, and a worker's first client then reads no botocore data file."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from lambdafuzz.harness.process import server_warmup
from lambdafuzz.harness.process.fork_server import PRELOAD


def test_the_server_imports_the_warmup_last() -> None:
    assert PRELOAD[-1] == "lambdafuzz.harness.process.server_warmup"


@pytest.mark.parametrize("name", server_warmup.IMPORTS)
def test_every_warmup_import_exists(name: str) -> None:
    """The warm-up skips a module that fails to import (an optional part): a misspelt
    name would be skipped silently, so each must import here."""
    importlib.import_module(name)


def _files_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import botocore.loaders

    read: list[str] = []
    original = botocore.loaders.JSONFileLoader.load_file

    def load_file(self: Any, file_path: str) -> Any:
        read.append(file_path)
        return original(self, file_path)

    monkeypatch.setattr(botocore.loaders.JSONFileLoader, "load_file", load_file)
    return read


def test_a_new_sessions_first_clients_read_no_data_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3.session

    assert server_warmup.warm_loaders() > 0
    read = _files_read(monkeypatch)
    session = boto3.session.Session(
        aws_access_key_id="k", aws_secret_access_key="s", region_name="eu-west-1"
    )
    session.client("s3")
    session.resource("dynamodb").Table("t")
    session.client("sqs")
    assert read == []
    session.client("kinesis")  # not warmed: read as ever
    assert any("kinesis" in path for path in read)


def test_warm_data_is_what_a_cold_loader_reads() -> None:
    import botocore.loaders
    import botocore.session

    server_warmup.warm_loaders()
    warm = botocore.session.get_session().get_component("data_loader")
    cold = botocore.loaders.Loader()
    assert warm._cache and not cold._cache
    for service in ("s3", "dynamodb", "sns"):
        assert warm.load_service_model(service, "service-2") == cold.load_service_model(
            service, "service-2"
        )
    assert warm.load_data("endpoints") == cold.load_data("endpoints")


def test_a_loader_with_its_own_data_path_starts_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    import botocore.session

    server_warmup.warm_loaders()
    monkeypatch.setenv("AWS_DATA_PATH", "/nonexistent-models")
    loader = botocore.session.get_session().get_component("data_loader")
    assert loader._cache == {}
    assert "/nonexistent-models" in loader.search_paths
