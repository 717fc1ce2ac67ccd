"""JSON records of the code's field names (`Choices.fields`), code constants in their fields,
dictionary strings embedded in other characters and mutated to another constant."""

from __future__ import annotations

import json

from lambdafuzz.generators.core import Changed, Choices
from lambdafuzz.generators.files import json_files
from lambdafuzz.generators.files.json_files import json_documents, json_objects

FIELDS = ("order_id", "region", "weight_kg")
DICTIONARY = ("apac", "eu", "order_id", "region", "weight_kg")
DRAWS = 3000


def _objects(**kwargs) -> list[dict]:
    found = []
    for seed in range(DRAWS):
        value = json_objects(Choices(seed=seed, **kwargs))
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
    choices = Choices(seed=7, dictionary=DICTIONARY, fields=FIELDS, edge_values=True)
    first = json_documents(choices)
    recorded = [c.value for c in choices.choices]
    again = Choices(recorded, dictionary=DICTIONARY, fields=FIELDS, edge_values=True)
    assert json_documents(again) == first
    json.loads(first)


def test_a_dictionary_string_is_embedded_now_and_then_and_replays():
    dictionary = ("@", "x-")
    seen = []
    for seed in range(2000):
        choices = Choices(seed=seed, dictionary=dictionary, dictionary_p=1.0, edge_values=True)
        value = choices.draw_string("ab", 0, 4)
        seen.append(value)
        replay = Choices([value], dictionary=dictionary, edge_values=True)
        assert replay.draw_string("ab", 0, 4) == value
        assert replay.misaligned_at is None
    embedded = [v for v in seen if v not in dictionary]
    assert 0.2 < len(embedded) / len(seen) < 0.4  # EMBED_P
    assert all("@" in v or "x-" in v for v in embedded)
    plain = [
        Choices(seed=s, dictionary=dictionary, dictionary_p=1.0).draw_string("ab", 0, 4)
        for s in range(200)
    ]
    assert set(plain) <= set(dictionary)  # edge values off: constants as they are


def test_a_mutated_constant_often_becomes_another_constant():
    dictionary = tuple(f"c{i}" for i in range(20))
    others = 0
    for seed in range(1000):
        choices = Choices([Changed("c3")], seed=seed, dictionary=dictionary, edge_values=True)
        value = choices.draw_string("ab", 0, 4)
        assert value != "c3"
        others += value in dictionary
    assert 0.4 < others / 1000 < 0.65  # DICTIONARY_NEIGHBOUR_P, plus fresh dictionary picks
