"""The cost objective's parts: exact arm counts, the worker's meter, maxima and budgets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from lambdafuzz.fuzzer.cost import (
    DURATION_MIN_STEP_MS,
    CostBudgets,
    CostFeedback,
    CostFinding,
    describe_raised,
    median_measures,
)
from lambdafuzz.fuzzer.options import CampaignOptions, Objective
from lambdafuzz.harness.measure.coverage import BranchCollector
from lambdafuzz.model.cost import CostMeasures, Measure

APPS = Path(__file__).parents[1] / "e2e" / "cost" / "apps"
ARM_A, ARM_B = ("h.py", "f", 1, 2, 3), ("h.py", "f", 1, 2, 9)  # arms are tuples (ArmKey)
LOOPY = """
def rows(n):
    total = 0
    for i in range(n):
        if i % 2:
            total += i
    return total
"""


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"loopy_{id(path)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring")
@pytest.mark.parametrize("exact", [False, True])
def test_exact_counts_go_past_the_last_bucket_with_the_same_buckets(tmp_path, exact):
    (tmp_path / "loopy.py").write_text(LOOPY)
    collector = BranchCollector([tmp_path], root=tmp_path, exact_counts=exact)
    collector.start()
    try:
        module = _load(tmp_path / "loopy.py")
        collector.begin()
        module.rows(1000)
        hits = collector.end()
    finally:
        collector.stop()
    assert max(bucket for _, bucket in hits.hits) == 7  # the 128+ bucket either way
    if not exact:
        assert hits.counts is None
        return
    assert hits.counts is not None
    # the loop body arm is taken 1000 times, each arm of the `if` 500 times
    assert max(hits.counts.values()) == 1000
    assert sorted(hits.counts.values()).count(500) == 2
    assert collector.max_hits == 1000
    assert set(hits.counts) <= hits.arms


def test_cost_meter_counts_calls_bytes_and_memory_of_the_call_only():
    from lambdafuzz.harness.measure.cost_meter import CostMeter

    meter = CostMeter()
    meter.install()
    import boto3
    from moto import mock_aws

    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="costs")  # before begin(): not the handler's
        meter.begin()
        for i in range(3):
            s3.put_object(Bucket="costs", Key=f"k{i}", Body=b"x" * 1000)
        listing = s3.list_objects_v2(Bucket="costs")
        assert s3.get_object(Bucket="costs", Key="k0")["Body"].read() == b"x" * 1000
        block = bytearray(b"\1" * (40 << 20))  # touched: 40 MiB resident
        del block
        meter.stop()
        cost = meter.measures(max_hits=7)
        s3.put_object(Bucket="costs", Key="after", Body=b"y")  # after stop(): not counted
    assert dict(cost.calls) == {"s3.PutObject": 3, "s3.ListObjectsV2": 1, "s3.GetObject": 1}
    assert cost.aws_calls == 5
    assert 3000 <= cost.bytes_written < 3500
    # the object's 1000 bytes; not the listing (its size varies with timestamps)
    assert len(listing["Contents"]) == 3
    assert cost.bytes_read == 1000
    assert cost.memory_kb >= 39 * 1024
    assert cost.max_hits == 7
    assert cost.duration_ms > 0
    assert meter.measures().aws_calls == 5  # unchanged by the call after stop()


def _cost(**kw) -> CostMeasures:
    return CostMeasures(**kw)


def test_feedback_keeps_raised_maxima_with_margins_for_noisy_measures():
    feedback = CostFeedback()
    first = _cost(duration_ms=10.0, calls=(("dynamodb.PutItem", 3),), memory_kb=100)
    raised = feedback.raises(first, {ARM_A: 5})
    assert set(raised) == {ARM_A, Measure.AWS_CALLS, Measure.DURATION, "dynamodb.PutItem"}
    feedback.take(raised, first, {ARM_A: 5}, entry=0)
    assert feedback.champions() == [0]
    # a slightly longer run is noise; one more call and one more hit are not
    second = _cost(duration_ms=10.0 + DURATION_MIN_STEP_MS / 2, calls=(("dynamodb.PutItem", 4),))
    raised = feedback.raises(second, {ARM_A: 6, ARM_B: 1})
    assert set(raised) == {ARM_A, Measure.AWS_CALLS, "dynamodb.PutItem"}
    feedback.take(raised, second, {ARM_A: 6}, entry=1)
    assert feedback.champions() == [0, 1]  # entry 0 still holds the duration
    assert feedback.raises(_cost(memory_kb=200), {}) == []  # within the memory margin
    assert Measure.MEMORY in feedback.raises(_cost(memory_kb=100_000), {})
    assert feedback.maxima()["aws_calls"] == 4.0
    assert feedback.maxima()["hit_count"] == 6.0
    assert describe_raised(raised) == "+cost:hits,aws_calls,calls"
    # entry 0 now holds only the duration: nothing counted climbs with it (grown, not havoc)
    assert feedback.timed_only(0) and not feedback.timed_only(1)
    assert not feedback.timed_only(7)  # holds nothing
    # one more byte read is exact, like a call: a longer CSV row climbs on it
    read = feedback.raises(_cost(bytes_read=1), {})
    assert read == [Measure.BYTES_READ]
    feedback.take(read, _cost(bytes_read=1), {}, entry=0)
    assert feedback.raises(_cost(bytes_read=1), {}) == []
    assert not feedback.timed_only(0)  # what it read grows with its input


def test_budgets_follow_the_function_and_the_options():
    from dataclasses import replace

    from lambdafuzz.config import load_config

    target = replace(load_config(APPS / "csv_items"), timeout_s=2.0, memory_mb=256)
    options = CampaignOptions(target=target, out_dir=Path("out"))
    budgets = CostBudgets.of(options)
    assert options.objective is Objective.MIXED
    assert budgets.duration_ms == 1000.0
    assert budgets.memory_kb == 128 * 1024
    assert budgets.aws_calls == 100
    over = _cost(duration_ms=1500.0, calls=(("s3.GetObject", 101),), memory_kb=10)
    assert budgets.exceeded(over) == [Measure.DURATION, Measure.AWS_CALLS]
    none = CostBudgets.of(
        CampaignOptions(target=target, out_dir=Path("out"), max_aws_calls=None, max_memory_mb=1)
    )
    assert none.exceeded(over) == [Measure.DURATION]  # 10 KiB is within 1 MiB
    assert none.limit(Measure.AWS_CALLS) is None and none.memory_kb == 1024


def test_findings_and_measures_round_trip_through_json():
    runs = [
        _cost(
            duration_ms=d, calls=(("s3.PutObject", 9),), memory_kb=m, bytes_written=5, bytes_read=7
        )
        for d, m in ((900.0, 10), (700.0, 30), (800.0, 20))
    ]
    median = median_measures(runs)
    assert (median.duration_ms, median.memory_kb, median.aws_calls) == (800.0, 20, 9)
    assert median.bytes_read == 7 and "read 7 bytes" in median.describe()
    finding = CostFinding(
        Measure.DURATION, 800.0, 500.0, median, (900.0, 700.0, 800.0), 12, 3.5, hits=4
    )
    again = CostFinding.from_json(finding.to_json())
    assert again == finding
    assert finding.headline() == "duration: 800 ms > budget 500 ms"
    assert CostMeasures.from_json(median.to_json()) == median
    assert CostFinding.from_json({"measure": "nonsense"}) is None
    assert CostMeasures.from_json([1, 2]) is None


def test_the_grown_share_follows_which_kind_of_child_raises_maxima():
    from lambdafuzz.fuzzer.cost import MAX_GROW_SHARE, MIN_GROW_SHARE, GrowthShare

    growth = GrowthShare()
    assert growth.share == 0.5  # no evidence yet: as many grown children as havoc ones
    for _ in range(50):
        growth.observe(grown=True, raised=True)
        growth.observe(grown=False, raised=False)
    assert growth.share == MAX_GROW_SHARE  # growth climbs here (csv_dedupe's rows)
    for _ in range(2000):
        growth.observe(grown=True, raised=False)
        growth.observe(grown=False, raised=True)
    assert growth.share == MIN_GROW_SHARE  # havoc climbs here, growth is never given up
