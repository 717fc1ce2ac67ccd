"""How many tests go to a Ray actor in one call (`ray_pool.batch_size`): pure arithmetic,
no cluster needed."""

from __future__ import annotations

import pytest

from lambdafuzz.harness.process.ray_pool import BATCH, BATCH_S, batch_size


def test_a_first_batch_holds_one_test():
    assert batch_size(0.0) == 1


@pytest.mark.parametrize(
    ("test_s", "expected"),
    [(0.001, BATCH), (0.005, BATCH), (0.02, 5), (0.034, 2), (0.3, 1), (30.0, 1)],
)
def test_a_batch_holds_at_most_its_seconds_of_tests(test_s, expected):
    size = batch_size(test_s)
    assert size == expected
    assert size == 1 or size * test_s <= BATCH_S + 1e-9
