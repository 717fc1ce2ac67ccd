"""JSON records of the code's field names (`Choices.fields`), code constants in their fields,
dictionary strings embedded in other characters and mutated to another constant."""

from __future__ import annotations

import json
import random

from lambdafuzz.generators.core import Changed, Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import json_files
from lambdafuzz.generators.files.json_files import json_documents, json_objects

FIELDS = ("order_id", "region", "weight_kg")
DICTIONARY = ("apac", "eu", "order_id", "region", "weight_kg")
DRAWS = 3000


def _objects(**kwargs) -> list[dict]:
    found = []
    for seed in range(DRAWS):
        value = json_objects(Choices(seed=seed, policy=DrawPolicy(**kwargs)))
        found.append(value)
    return found


def test_with_field_names_most_objects_are_records_of_them():
    objects = _objects(dictionary=DICTIONARY, fields=FIELDS, edge_values=True, numbers=(30,))
    records = [o for o in objects if o and set(o) <= set(FIELDS)]
    assert abs(len(records) / DRAWS - json_files.RECORD_P) < 0.05
    everything = [o for o in records if set(o) == set(FIELDS)]
    assert len(everything) / len(records) > 0.25  # 0.7 ** 3, less the empty budget cases
    constants = [o["region"] for o in records if o.get("region") in ("apac", "eu")]
    assert len(constants) > 0.02 * len(records)
    assert any(o.get("weight_kg") == 30 for o in records)


def test_without_field_names_objects_are_free_as_before():
    plain = _objects(dictionary=DICTIONARY)
    assert not any(o and set(o) == set(FIELDS) for o in plain)
    again = _objects(dictionary=DICTIONARY)
    assert plain == again  # no record draw at all: the paper strategies' inputs stay


def test_a_record_replays_from_its_recording():
    choices = Choices(
        seed=7, policy=DrawPolicy(dictionary=DICTIONARY, fields=FIELDS, edge_values=True)
    )
    first = json_documents(choices)
    recorded = [c.value for c in choices.choices]
    again = Choices(
        recorded, policy=DrawPolicy(dictionary=DICTIONARY, fields=FIELDS, edge_values=True)
    )
    assert json_documents(again) == first
    json.loads(first)


def test_a_dictionary_string_is_embedded_now_and_then_and_replays():
    dictionary = ("@", "x-")
    seen = []
    for seed in range(2000):
        choices = Choices(
            seed=seed, policy=DrawPolicy(dictionary=dictionary, dictionary_p=1.0, edge_values=True)
        )
        value = choices.draw_string("ab", 0, 4)
        seen.append(value)
        replay = Choices([value], policy=DrawPolicy(dictionary=dictionary, edge_values=True))
        assert replay.draw_string("ab", 0, 4) == value
        assert replay.misaligned_at is None
    embedded = [v for v in seen if v not in dictionary]
    assert 0.2 < len(embedded) / len(seen) < 0.4  # EMBED_P
    assert all("@" in v or "x-" in v for v in embedded)
    plain = [
        Choices(seed=s, policy=DrawPolicy(dictionary=dictionary, dictionary_p=1.0)).draw_string(
            "ab", 0, 4
        )
        for s in range(200)
    ]
    assert set(plain) <= set(dictionary)  # edge values off: constants as they are


def test_a_mutated_constant_often_becomes_another_constant():
    dictionary = tuple(f"c{i}" for i in range(20))
    others = 0
    for seed in range(1000):
        choices = Choices(
            [Changed("c3")], seed=seed, policy=DrawPolicy(dictionary=dictionary, edge_values=True)
        )
        value = choices.draw_string("ab", 0, 4)
        assert value != "c3"
        others += value in dictionary
    assert 0.4 < others / 1000 < 0.65  # DICTIONARY_NEIGHBOUR_P, plus fresh dictionary picks


def test_plural_names_are_told_from_singular_ones():
    plural = ("lines", "Items", "order_lines", "lineItems", "Records", "Contents", "ITEMS")
    singular = ("status", "address", "analysis", "qty", "css", "js", "items2", "bonus")
    assert all(json_files.is_plural_name(n) for n in plural)
    assert not any(json_files.is_plural_name(n) for n in singular)


ORDER_FIELDS = ("customer_id", "lines", "price", "qty", "sku")


def _document(choices: Choices) -> object:
    """The document's value; None for one written in another encoding (an edge value)."""
    try:
        return json.loads(json_documents(choices))
    except ValueError:
        return None


def _line_items(fields: tuple[str, ...]) -> tuple[int, list[dict]]:
    """How many of DRAWS order documents hold `lines`: a non-empty list whose items are all
    records with a quantity, and those documents."""
    found = []
    for seed in range(DRAWS):
        value = _document(Choices(seed=seed, policy=DrawPolicy(fields=fields, edge_values=True)))
        lines = value.get("lines") if isinstance(value, dict) else None
        if (
            isinstance(lines, list)
            and lines
            and all(isinstance(line, dict) and "qty" in line for line in lines)
        ):
            found.append(value)
    return len(found), found


def test_a_plural_field_is_often_a_list_of_records_of_scalars():
    """`for line in order["lines"]: int(line["qty"])`: line items with their fields, as
    often as ~1 document in 30 (it was 2 in 3,000)."""
    count, _ = _line_items(ORDER_FIELDS)
    assert count / DRAWS > 0.03
    for seed in range(300):  # the list itself: records of the names, holding no records
        lines = json_files._records(
            Choices(seed=seed, policy=DrawPolicy(edge_values=True)), ORDER_FIELDS
        )
        assert lines and all(set(line) <= set(ORDER_FIELDS) for line in lines)
        values = [v for line in lines for v in line.values()]
        assert not any(isinstance(v, list) and v for v in values)
        # a scalar's edge values include a confused type (`{}`, `{"value": 1}`), never a record
        assert not any(isinstance(v, dict) and set(v) & set(ORDER_FIELDS) for v in values)
    singular = tuple(f if f != "lines" else "line" for f in ORDER_FIELDS)
    values = [
        _document(Choices(seed=seed, policy=DrawPolicy(fields=singular, edge_values=True)))
        for seed in range(DRAWS)
    ]
    lists_of_records = [
        v["line"]
        for v in values
        if isinstance(v, dict)
        and isinstance(v.get("line"), list)
        and v["line"]
        and all(isinstance(x, dict) and "qty" in x for x in v["line"])
    ]
    assert len(lists_of_records) < count / 5  # a singular name: no list draw of its own


def test_the_edge_plan_turns_a_plural_field_into_line_items():
    """A frontier edge plan puts a list of records into a plural field that holds another
    value (the `records?` draw), and the child replays with that field changed."""
    from lambdafuzz.fuzzer.frontier import _EdgePlan
    from lambdafuzz.generators.core import ChoiceSequence, ReplayMode

    for seed in range(DRAWS):
        choices = Choices(seed=seed, policy=DrawPolicy(fields=ORDER_FIELDS, edge_values=True))
        value = _document(choices)
        listed = [c.value for c in choices.choices if c.ei[-1][0] == json_files.RECORD_LIST_SITE]
        if isinstance(value, dict) and listed == [False]:
            break
    else:
        raise AssertionError("no order whose lines are an ordinary value")
    parent = ChoiceSequence(tuple(choices.choices))
    sites = [c.ei[-1][0] for c in parent.choices]
    at = sites.index(json_files.RECORD_LIST_SITE)
    plan = _EdgePlan.of(parent, random.Random(0))
    steps = [step for step in plan.steps if step[0] == at]
    assert steps and all(v is True and opens for _, v, opens in steps)
    prefix = parent.by_ei()
    prefix[parent.choices[at].ei] = True
    child = Choices(
        prefix,
        mode=ReplayMode.EXECUTION_INDEXED,
        policy=DrawPolicy(fields=ORDER_FIELDS, edge_values=True),
    )
    changed = _document(child)
    assert isinstance(changed, dict)
    assert isinstance(changed["lines"], list) and all(isinstance(x, dict) for x in changed["lines"])
    assert {k: v for k, v in changed.items() if k != "lines"} == {
        k: v for k, v in value.items() if k != "lines"
    }
