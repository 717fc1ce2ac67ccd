"""The at-least-once delivery oracle end to end: seeded campaigns over the fixture apps
(tests/e2e/oracles/apps/orders_queue, shipping_notices, customer_sync), each a SAM app whose
versions of one handler differ only in how they survive a retry.

Found: an SQS order intake that records each order under `uuid4()` (new-item), one that
adds the quantities to the reserved stock (moved-twice), an SNS shipment handler that
notifies the customer (sent-twice). Not found: the same two made idempotent with
Powertools' `@idempotent` and with a conditional write keyed by the message id, and an
EventBridge customer copy rewritten under the customer's id with new timestamps, TTL, ids.
The campaigns that must find nothing deliver every test twice (`redelivery_share=1`), so
their silence is not for want of second deliveries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import load_input
from lambdafuzz.fuzzer.engine import Engine
from lambdafuzz.fuzzer.events import CampaignFinished
from lambdafuzz.fuzzer.replay import Replayer
from lambdafuzz.model.oracle import OracleKind

pytestmark = pytest.mark.slow

APPS = Path(__file__).parent / "apps"
ORDERS = APPS / "orders_queue"
SHIPPING = APPS / "shipping_notices"
EXECS = 300
SEED = 1
IDEMPOTENCY = OracleKind.IDEMPOTENCY


def campaign(
    app: Path, function: str | None, out: Path, execs: int = EXECS, **options: Any
) -> Engine:
    target = load_target(app / "template.yaml", function, warn=False)
    engine = build_engine(
        target, out_dir=out, strategy="frontier", seed=SEED, max_execs=execs, **options
    )
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return engine


def line_of(source: Path, text: str) -> int:
    """The first line of `source` holding `text`: sites named by their code."""
    lines = source.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def found(engine: Engine) -> dict[str, Any]:
    """The campaign's idempotency findings by signature (their FailureRecords)."""
    return dict(engine.handled_findings.findings[IDEMPOTENCY])


@pytest.fixture(scope="module")
def uuid_intake(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, Path]:
    out = tmp_path_factory.mktemp("uuid_intake")
    return campaign(ORDERS, "UuidIntakeFunction", out), out


def test_an_order_recorded_under_uuid4_per_delivery_is_found(
    uuid_intake: tuple[Engine, Path],
) -> None:
    engine, _ = uuid_intake
    line = line_of(ORDERS / "orders" / "uuid_intake.py", "orders.put_item(")
    location = f"orders/uuid_intake.py:{line}"
    records = found(engine)
    assert list(records) == [f"DuplicateDelivery new-item at {location}: orders"]
    (record,) = records.values()
    assert record.oracle == "idempotency" and record.hits >= 5
    message = record.info.message
    assert message.startswith(
        "a second delivery of the same event created orders item {pk: 'ORDER#"
    )
    assert message.endswith("again under a new key")
    first, second = record.evidence.split("\nsecond delivery: ")
    assert first.startswith("first delivery: PutItem orders item {pk: 'ORDER#")
    assert f"at {location}" in first and f"at {location}" in second
    assert first.split("'")[1] != second.split("'")[1]  # two order ids side by side


def test_a_found_input_replays_twice_and_repro_shows_the_finding(
    uuid_intake: tuple[Engine, Path],
) -> None:
    engine, out = uuid_intake
    (saved_path,) = (out / "idempotency").glob("*.json")
    saved = load_input(saved_path)
    assert saved.deliveries == 2 and saved.extra["deliveries"] == 2
    with Replayer(engine.options.target) as replayer:
        again = replayer.replay(saved)
        once = replayer.run(saved.sequence.prefix(saved.mode), saved.seed, saved.mode)
    assert [f.info.signature for f in again.findings] == list(found(engine))
    assert once.findings == ()  # delivered once: nothing to compare
    result = CliRunner().invoke(cli, ["repro", str(saved_path)])
    assert result.exit_code == ExitCode.FAILURES_FOUND, result.output
    assert "idempotency finding: a second delivery of the same event created orders item" in (
        result.output
    )


def test_a_counter_moved_by_every_delivery_is_found(tmp_path: Path) -> None:
    engine = campaign(ORDERS, "ReserveStockFunction", tmp_path)
    line = line_of(ORDERS / "orders" / "reserve_stock.py", "stock.update_item(")
    (record,) = found(engine).values()
    assert record.info.signature == (
        f"DuplicateDelivery moved-twice at orders/reserve_stock.py:{line}: stock"
    )
    assert "again: reserved: " in record.info.message
    before, after = record.info.message.rsplit("reserved: ", 1)[1].split(" -> ")
    assert int(after) == 2 * int(before)  # the quantities added a second time


def test_a_notification_per_delivery_is_found(tmp_path: Path) -> None:
    engine = campaign(SHIPPING, "NotifyFunction", tmp_path)
    line = line_of(SHIPPING / "shipping" / "notices.py", "sns.publish(")
    records = found(engine)
    # the order's status item is rewritten with a new timestamp only: no finding there
    assert list(records) == [
        f"DuplicateDelivery sent-twice at shipping/notices.py:{line}: customer-notifications"
    ]
    (record,) = records.values()
    assert record.info.message == (
        "a second delivery of the same event published to topic customer-notifications again"
    )
    assert record.evidence.count("Publish to topic customer-notifications") == 2


@pytest.mark.parametrize(
    ("app", "function"),
    [
        (ORDERS, "PowertoolsIntakeFunction"),
        (ORDERS, "ConditionalIntakeFunction"),
        (SHIPPING, "PowertoolsNotifyFunction"),
        (SHIPPING, "ConditionalNotifyFunction"),
        (APPS / "customer_sync", None),
    ],
)
def test_idempotent_handlers_give_no_finding(
    app: Path, function: str | None, tmp_path: Path
) -> None:
    engine = campaign(app, function, tmp_path, execs=200, redelivery_share=1.0)
    assert found(engine) == {}
    assert not (tmp_path / "idempotency").exists()
    stats = engine.stats()
    assert stats.valid_execs >= 100, stats.valid_execs  # delivered twice, all of them


def test_the_oracle_is_off_with_no_oracle_idempotency(tmp_path: Path) -> None:
    engine = campaign(ORDERS, "UuidIntakeFunction", tmp_path, oracles_off=["idempotency"])
    assert found(engine) == {} and engine.handled_findings.redelivery_share == 0.0
    assert not (tmp_path / "idempotency").exists()
