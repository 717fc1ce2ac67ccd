"""What stored attributes the code reads hold (`generators/aws/item_values.py`, drawn by
`aws.dynamodb` and `aws.streams`), unit by unit on small fixtures: a string attribute the
code reads is often one of its constants, a list holds one type with now and then an
intruder, keys start with the code's key prefixes, an item's hash key is another item's
sort key, a MODIFY's OldImage carries the code's fields as items do.  Edge values on."""

from __future__ import annotations

from lambdafuzz.generators.aws.dynamodb import draw_item, draw_table
from lambdafuzz.generators.aws.item_values import (
    draw_one_type_list,
    key_prefixes,
    value_constants,
)
from lambdafuzz.generators.aws.streams import draw_stream_records
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import TableSpec
from lambdafuzz.model.world import KeySchema

SEEDS = range(600)
#: The code reads `state` and `tags` and compares `state` with two constants.
DICTIONARY = ("state", "tags", "done", "failed")
FIELDS = ("state", "tags")


def _choices(seed: int, **options: object) -> Choices:
    return Choices(seed=seed, policy=DrawPolicy(edge_values=True, **options))  # type: ignore[arg-type]


def test_value_constants_are_the_dictionary_without_the_field_names() -> None:
    choices = _choices(0, dictionary=DICTIONARY, fields=FIELDS)
    assert value_constants(choices) == ("done", "failed")
    assert value_constants(_choices(0, dictionary=("a",), fields=("a",))) == ("a",)
    prefixes = key_prefixes(_choices(0, dictionary=("ORDER#", "a b#", "#", "x/y/", "plain")))
    assert prefixes == ("ORDER#", "x/y/")


def test_a_string_attribute_the_code_reads_is_often_one_of_its_constants() -> None:
    schema = KeySchema("id", "S")
    states = [
        item["state"]["S"]
        for seed in SEEDS
        for item in [draw_item(_choices(seed, dictionary=DICTIONARY, fields=FIELDS), schema)]
        if "S" in item.get("state", {})
    ]
    constant = [s for s in states if s in ("done", "failed")]
    # before: a fresh string took a constant 1 time in ~40 (dictionary_p / 4 constants);
    # the strings include numbers written as strings
    assert len(constant) > 0.2 * len(states), (len(constant), len(states))  # 20 of 67
    assert {"done", "failed"} <= set(constant)
    assert len(constant) < len(states)  # other strings still


def _types(values: list[dict[str, object]]) -> list[str]:
    return [next(iter(v)) for v in values]


def test_a_one_type_list_holds_now_and_then_one_intruder() -> None:
    lists = [
        draw_one_type_list(_choices(seed), lambda kind: {kind: "1" if kind == "N" else "a"})["L"]
        for seed in range(200)
    ]
    mixed = [ts for ts in map(_types, lists) if len(set(ts)) == 2]
    assert all(len(set(ts)) <= 2 for ts in map(_types, lists))
    assert all(min(ts.count("S"), ts.count("N")) == 1 for ts in mixed)  # one intruder
    assert 0.3 * 200 < len(mixed) < 0.7 * 200


def test_a_list_attribute_the_code_reads_is_strings_with_a_number_among_them() -> None:
    schema = KeySchema("id", "S")
    lists = [
        _types(item["tags"]["L"])
        for seed in range(1500)
        for item in [draw_item(_choices(seed, dictionary=DICTIONARY, fields=FIELDS), schema)]
        if "L" in item.get("tags", {})
    ]
    intruded = [ts for ts in lists if ts.count("N") == 1 and ts.count("S") == len(ts) - 1 >= 2]
    # before: lists of any element types, 1 of 34 at these seeds
    assert len(intruded) > 0.1 * len(lists), (len(intruded), len(lists))


def test_a_key_starts_with_one_of_the_codes_key_prefixes() -> None:
    schema = KeySchema("pk", "S", "sk", "S")
    dictionary = ("LINE#", "qty")
    sort_keys = [
        draw_item(_choices(seed, dictionary=dictionary), schema)["sk"]["S"] for seed in SEEDS
    ]
    prefixed = [k for k in sort_keys if k.startswith("LINE#") and len(k) > len("LINE#")]
    # before: only as a dictionary draw of a fresh string, ~1 key in 40, and never with a tail
    assert 0.12 * len(SEEDS) < len(prefixed) < 0.4 * len(SEEDS), len(prefixed)


def test_an_items_hash_key_is_now_and_then_another_items_sort_key() -> None:
    spec = TableSpec("lines", KeySchema("pk", "S", "sk", "S"), items_min=3, items_max=3)
    linked = 0
    for seed in range(300):
        items = draw_table(_choices(seed), spec).items
        sort_keys = {item["sk"]["S"] for item in items}
        linked += any(item["pk"]["S"] in sort_keys for item in items)
    # before: 0 of 300 tables (a key reused only from the world's local strings)
    assert linked > 0.2 * 300, linked


def test_a_modify_old_image_holds_the_codes_fields_of_other_types() -> None:
    spec = TableSpec("lines", KeySchema("pk", "S"), items_min=2, items_max=2)
    types: list[str] = []
    for seed in range(300):
        choices = _choices(seed, fields=("qty",))
        table = draw_table(choices, spec)
        for record in draw_stream_records(choices, table, 2, ()):
            if record.event_name == "MODIFY" and "qty" in (record.old_image or {}):
                types.append(next(iter(record.old_image["qty"])))
    # before: an OldImage named `qty` only as its NewImage did (edge_old_image), never else
    assert {"S", "N"} <= set(types), types
    numbers_as_text = sum(t == "S" for t in types)
    assert numbers_as_text > 5


def test_an_item_looked_up_by_a_constant_sort_key_is_keyed_by_another_items_sort_key() -> None:
    spec = TableSpec("lines", KeySchema("pk", "S", "sk", "S"), items_min=3, items_max=3)
    looked_up = linked = 0
    for seed in range(400):
        items = draw_table(_choices(seed, key_values=(("sk", "TOTAL"),)), spec).items
        for i, item in enumerate(items[1:], 1):
            if item["sk"]["S"] == "TOTAL":
                looked_up += 1
                linked += item["pk"]["S"] in {earlier["sk"]["S"] for earlier in items[:i]}
    # at `RELATED_P` alone ~20%; before: none
    assert linked > 0.45 * looked_up, (linked, looked_up)


def test_every_name_the_code_reads_is_an_attribute_now_and_then_however_many() -> None:
    """A single-table app reads dozens of names (one item type's after another's): the
    last ones are stored attributes too, and an item holds about as many as before."""
    from lambdafuzz.generators.aws.dynamodb import MAX_CODE_FIELDS, draw_code_fields

    names = tuple(f"Field {i}" for i in range(48))
    items = [draw_code_fields(_choices(seed, fields=names), {}) for seed in SEEDS]
    drawn = [item for item in items if item]
    assert {"Field 0", "Field 47"} <= {name for item in drawn for name in item}
    mean = sum(len(item) for item in drawn) / len(drawn)
    assert 0.3 * MAX_CODE_FIELDS <= mean <= 0.7 * MAX_CODE_FIELDS
