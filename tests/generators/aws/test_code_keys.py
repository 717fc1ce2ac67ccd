"""A table's string keys now and then take the values the code looks items up by under
that attribute (`Choices.key_values`): as they are, or as a prefix."""

from __future__ import annotations

from lambdafuzz.generators.aws.dynamodb import CODE_KEY_P, draw_item
from lambdafuzz.generators.aws.world_generator import world_strings
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.world import KeySchema, Table, World

SCHEMA = KeySchema(hash_name="PK", hash_type="S", range_name="SK", range_type="S")
KEYS = (("SK", "PROFILE"), ("SK", "VISIT#"))
DRAWS = 300


def _items(key_values=KEYS) -> list[dict]:
    return [
        draw_item(Choices(seed=s, policy=DrawPolicy(key_values=key_values)), SCHEMA)
        for s in range(DRAWS)
    ]


def test_sort_keys_take_the_code_s_values_and_prefixes() -> None:
    sort_keys = [item["SK"]["S"] for item in _items()]
    exact = sum(k == "PROFILE" for k in sort_keys) + sum(k == "VISIT#" for k in sort_keys)
    prefixed = sum(k.startswith(("PROFILE", "VISIT#")) and k not in ("PROFILE", "VISIT#")
                   for k in sort_keys)  # fmt: skip
    share = (exact + prefixed) / DRAWS
    assert abs(share - CODE_KEY_P) < 0.1, share
    assert exact > 0.3 * DRAWS * CODE_KEY_P and prefixed > 0.3 * DRAWS * CODE_KEY_P
    # another attribute's values never: the partition key is named by none
    assert not any(item["PK"]["S"].startswith(("PROFILE", "VISIT#")) for item in _items())


def test_without_key_values_nothing_is_drawn_for_them() -> None:
    plain, again = _items(()), _items(())
    assert plain == again
    assert not any(item["SK"]["S"] in ("PROFILE", "VISIT#") for item in plain)
    # the same seed with key values for another table's attribute: the same items
    assert _items((("OtherKey", "X"),)) == plain


def test_an_item_with_a_code_key_replays_from_its_recording() -> None:
    for seed in range(40):
        choices = Choices(seed=seed, policy=DrawPolicy(key_values=KEYS))
        item = draw_item(choices, SCHEMA)
        again = Choices(tuple(c.value for c in choices.choices), mode=ReplayMode.LINEAR, policy=DrawPolicy(key_values=KEYS))  # fmt: skip
        assert draw_item(again, SCHEMA) == item


def test_the_event_may_reuse_what_follows_a_code_key_prefix() -> None:
    """`get_item(Key={"PK": f"C#{customer_id}"})` finds `C#42` when the path says 42."""
    items = ({"PK": {"S": "C#42"}, "SK": {"S": "PROFILE"}}, {"PK": {"S": "D#7"}, "SK": {"S": "x"}})
    world = World(buckets=(), tables=(Table("t", SCHEMA, items),), queues=(), topics=())
    keys = (("PK", "C#"), ("SK", "PROFILE"))
    assert world_strings(world, keys) == ("C#42", "42", "PROFILE", "D#7", "x")
    assert world_strings(world) == ("C#42", "PROFILE", "D#7", "x")  # no key values: as before
