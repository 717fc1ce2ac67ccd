"""A resumed campaign keeps the earlier run's draw tables first (`resume._earlier_first`):
its saved inputs recorded indexes into them."""

from __future__ import annotations

from lambdafuzz.fuzzer.resume import _earlier_first


def test_the_earlier_order_comes_first_and_new_entries_follow() -> None:
    assert _earlier_first(("b", "a"), ("a", "c", "b")) == ("b", "a", "c")
    assert _earlier_first([("SK", "X")], (("PK", "Y"), ("SK", "X"))) == (("SK", "X"), ("PK", "Y"))


def test_nothing_to_keep_when_the_new_table_already_starts_with_it() -> None:
    assert _earlier_first((), ("a",)) is None
    assert _earlier_first(("a", "b"), ("a", "b", "c")) is None
