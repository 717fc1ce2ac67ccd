"""Secondary indexes of a template's tables: imported, declared in a lambdafuzz.yaml,
created by both loaders, carried by generated items, written by `init`, and queried by a
fuzzed handler without a ValidationException."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Key
from click.testing import CliRunner

from lambdafuzz.cli.init import init
from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template, load_template_target
from lambdafuzz.config.schema import target_from_dict
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.dynamodb import draw_table
from lambdafuzz.generators.core import Choices
from lambdafuzz.harness.emulator.backends import MotoBackend
from lambdafuzz.harness.sandbox.safety import apply_sandbox_env
from lambdafuzz.model.world import KeySchema, SecondaryIndex, Table, World
from tests.fixtures.template_runs import line_of

APP = Path(__file__).parent / "apps" / "indexed_orders"
TEMPLATE = APP / "template.yaml"
HANDLER = APP / "src" / "app.py"
BY_STATE = SecondaryIndex("by-state", KeySchema("state", "S", "placedAt", "N"))
BY_PLACED = SecondaryIndex(
    "by-placed", KeySchema("customer", "S", "placedAt", "N"), True, "INCLUDE", ("state",)
)


def test_template_tables_keep_their_global_and_local_indexes():
    table = load_template_target(TEMPLATE).resources.table("orders")
    assert table.key_schema == KeySchema("customer", "S", "orderId", "S")
    assert table.indexes == (BY_STATE, BY_PLACED)


def _config(indexes: list[dict[str, Any]]) -> dict[str, Any]:
    table = {
        "name": "orders",
        "hash_key": {"name": "customer", "type": "S"},
        "range_key": {"name": "orderId", "type": "S"},
        "indexes": indexes,
    }
    return {
        "handler": "app.handler",
        "root": "src",
        "trigger": "direct",
        "resources": {"tables": [table]},
    }


def test_a_config_declares_indexes():
    index = {
        "name": "by-state",
        "hash_key": {"name": "state", "type": "S"},
        "range_key": {"name": "placedAt", "type": "N"},
    }
    local = {
        "name": "by-placed",
        "hash_key": {"name": "customer", "type": "S"},
        "range_key": {"name": "placedAt", "type": "N"},
        "local": True,
        "projection": "INCLUDE",
        "non_key_attributes": ["state"],
    }
    target = target_from_dict(_config([index, local]), TEMPLATE)
    assert target.resources.table("orders").indexes == (BY_STATE, BY_PLACED)


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        (  # a local index partitions as its table does
            {"name": "loc", "hash_key": {"name": "state", "type": "S"},
             "range_key": {"name": "placedAt", "type": "N"}, "local": True},
            "the table's hash key 'customer'",
        ),
        (  # one attribute, one type
            {"name": "by-customer", "hash_key": {"name": "customer", "type": "N"}},
            "the type attribute 'customer' has elsewhere",
        ),
        (
            {"name": "by-state", "hash_key": {"name": "state", "type": "S"},
             "non_key_attributes": ["total"]},
            "non_key_attributes only with projection INCLUDE",
        ),
        (
            {"name": "by-state", "hash_key": {"name": "state", "type": "S"},
             "projection": "INCLUDE"},
            "the attributes an INCLUDE projection holds",
        ),
        (
            {"name": "by-state", "hash_key": {"name": "state", "type": "S"}, "projection": "SOME"},
            "a projection type",
        ),
        ({"name": "x", "hash_key": {"name": "state", "type": "S"}}, "an index name (3-255")
    ],
)  # fmt: skip
def test_a_config_index_is_validated(index, expected):
    with pytest.raises(ConfigError, match="indexes") as caught:
        target_from_dict(_config([index]), TEMPLATE)
    assert expected in str(caught.value)


def test_two_indexes_of_one_name_are_refused():
    index = {"name": "by-state", "hash_key": {"name": "state", "type": "S"}}
    with pytest.raises(ConfigError, match="an index name used once per table"):
        target_from_dict(_config([index, index]), TEMPLATE)


@pytest.mark.parametrize("loader", ["direct", "boto3"])
def test_both_loaders_create_the_indexes(loader):
    item = {
        "customer": {"S": "c-1"},
        "orderId": {"S": "o-1"},
        "state": {"S": "open"},
        "placedAt": {"N": "7"},
    }
    table = Table(
        "orders", KeySchema("customer", "S", "orderId", "S"), (item,), None, (BY_STATE, BY_PLACED)
    )
    backend = MotoBackend(loader=loader)
    backend.start()
    try:
        backend.reset()
        backend.load(World(tables=(table,)))
        with apply_sandbox_env(backend.client_env()):
            described = boto3.client("dynamodb").describe_table(TableName="orders")["Table"]
            orders = boto3.resource("dynamodb").Table("orders")
            by_state = orders.query(
                IndexName="by-state", KeyConditionExpression=Key("state").eq("open")
            )
            by_placed = orders.query(
                IndexName="by-placed", KeyConditionExpression=Key("customer").eq("c-1")
            )
    finally:
        backend.stop()
    assert [i["IndexName"] for i in described["GlobalSecondaryIndexes"]] == ["by-state"]
    local = described["LocalSecondaryIndexes"]
    assert [i["IndexName"] for i in local] == ["by-placed"]
    assert local[0]["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["state"]}
    assert {d["AttributeName"]: d["AttributeType"] for d in described["AttributeDefinitions"]} == {
        "customer": "S",
        "orderId": "S",
        "state": "S",
        "placedAt": "N",
    }
    assert [i["orderId"] for i in by_state["Items"]] == ["o-1"]
    assert [i["orderId"] for i in by_placed["Items"]] == ["o-1"]


def test_generated_items_mostly_carry_the_index_keys():
    spec = load_template_target(TEMPLATE).resources.table("orders")
    items = []
    for seed in range(200):
        items += draw_table(Choices(seed=seed), spec, min_items=1, max_items=3).items
    with_state = [i for i in items if "state" in i]
    # INDEX_KEY_P = 0.85 per attribute; 400+ items: well within 0.75..0.95
    assert 0.75 <= len(with_state) / len(items) <= 0.95, len(with_state) / len(items)
    assert all(set(i["state"]) == {"S"} for i in with_state)  # never another type
    assert all(set(i["placedAt"]) == {"N"} for i in items if "placedAt" in i)


def test_init_writes_the_indexes(tmp_path):
    out = tmp_path / "lambdafuzz.yaml"
    result = CliRunner().invoke(init, ["--template", str(TEMPLATE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "indexes: [{name: by-state" in out.read_text()
    assert load_config(out).resources.table("orders").indexes == (BY_STATE, BY_PLACED)


def test_a_fuzzed_handler_queries_its_index(tmp_path):
    assert load_template(TEMPLATE).target.resources.table("orders").indexes
    target = load_template_target(TEMPLATE)
    engine = build_engine(target, out_dir=tmp_path, seed=0, max_execs=100)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    failures = [e.record.info for e in events if isinstance(e, NewFailure)]
    assert failures == []  # no ValidationException: the index exists
    found = line_of(HANDLER, 'return {"open": len(found["Items"])}')
    reached = {arm.to_line for arm in engine.coverage().covered}
    assert found in reached  # the index returned the open orders
