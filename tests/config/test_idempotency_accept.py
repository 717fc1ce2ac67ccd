"""`idempotency: {accept: [...]}`: the resources whose duplicates a team accepts, from
lambdafuzz.yaml and from a template function's `Metadata: {lambdafuzz: ...}`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lambdafuzz.config import load_config, load_target
from lambdafuzz.errors import ConfigError
from tests.fixtures.sam import template_text


def write_config(directory: Path, accept: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text("def handler(event, context):\n    return None\n")
    path = directory / "lambdafuzz.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            handler: app.handler
            trigger: {{kind: sqs, source: jobs}}
            resources:
              queues: [{{name: jobs}}, {{name: metrics}}]
              tables: [{{name: audit_log, hash_key: {{name: id, type: S}}}}]
            idempotency: {{accept: {accept}}}
            """
        )
    )
    return path


def test_accepted_resources_are_read_in_order_once_each(tmp_path: Path) -> None:
    accept = "[tables.audit_log, queues.metrics, topics.*, event_buses.default, tables.audit_log]"
    target = load_config(write_config(tmp_path, accept))
    assert target.idempotency_accept == (
        "tables.audit_log",
        "queues.metrics",
        "topics.*",
        "event_buses.default",  # no bus is declared anywhere: any name
    )
    assert load_config(write_config(tmp_path / "none", "[]")).idempotency_accept == ()


@pytest.mark.parametrize(
    ("accept", "expected", "suggestion"),
    [
        (
            "[table.audit_log]",
            "expected kind.name with kind one of tables, buckets",
            "tables.audit_log",
        ),
        ("[tables]", "expected kind.name with kind one of", None),
        (
            "[tables.audit_logs]",
            "expected a declared resource in tables.NAME (or tables.*): one of audit_log",
            "tables.audit_log",
        ),
        ("[buckets.x]", "one of (no buckets declared)", None),
    ],
)
def test_a_wrong_entry_is_a_config_error_at_its_line(
    tmp_path: Path, accept: str, expected: str, suggestion: str | None
) -> None:
    path = write_config(tmp_path, accept)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}:6: idempotency.accept[0] is "), message
    assert expected in message
    if suggestion is not None:
        assert message.endswith(f"Did you mean {suggestion!r}?")


def test_a_template_function_says_it_in_its_metadata(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def handler(event, context):\n    return None\n")
    template = tmp_path / "template.yaml"
    template.write_text(template_text("idempotency", "metadata_accept"))
    assert load_target(template, warn=False).idempotency_accept == ("tables.audit_log",)
