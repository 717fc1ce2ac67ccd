"""Key shapes under every strategy: encoded, deep and flat keys drawn without edge values
too, one mutated draw away from an ordinary key, always inside the key filter; the world
holds the decoded key and the S3 event its encoded form.  Packed keys (edge values on):
parts joined by a separator the code splits on, the head now and then an object's key."""

from __future__ import annotations

import urllib.parse
from collections import Counter
from pathlib import Path

from edge_off_digest import load_target

from lambdafuzz.generators.aws.key_shapes import SHAPE_SITE, separators
from lambdafuzz.generators.aws.s3 import draw_bucket, draw_object_key
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Changed, Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import BucketSpec, ObjectsSpec

SEEDS = range(500)


def _encoded(key: str) -> bool:
    return urllib.parse.quote_plus(key, safe="/") != key


def test_zest_keys_take_every_shape_inside_the_filter() -> None:
    """No edge values, no dictionary (zest): encoded stems, deep folders and plain keys."""
    keys = [draw_object_key(Choices(seed=s), prefixes=("in/",), ending=".jpg") for s in SEEDS]
    assert all(k.startswith("in/") and k.endswith(".jpg") for k in keys)
    encoded = sum(_encoded(k) for k in keys) / len(keys)
    deep = sum(k.count("/") >= 3 for k in keys) / len(keys)
    plain = sum(not _encoded(k) and k.count("/") == 1 for k in keys) / len(keys)
    assert encoded >= 0.1, encoded
    assert deep >= 0.03, deep  # before key shapes: only with edge values on (frontier)
    assert plain >= 0.7, plain


def test_keys_without_a_configured_prefix_are_flat_or_in_folders() -> None:
    keys = [draw_object_key(Choices(seed=s), extension="csv") for s in SEEDS]
    depths = Counter(min(k.count("/"), 3) for k in keys)
    assert depths[0] >= 0.7 * len(keys) and depths[1] > 0 and depths[3] > 0, depths
    assert all(k.endswith(".csv") for k in keys)


def test_one_mutated_draw_turns_an_ordinary_key_into_an_encoded_one() -> None:
    """Mutation-based strategies change one draw at a time: the shape is one draw, and
    changing it makes the key encoded about half the time.  Before, the odd characters
    hung on a `wide?` flag plus a fresh stem: no single changed draw made them (0%)."""
    by_site: Counter[str] = Counter()
    encoded_by_site: Counter[str] = Counter()
    for seed in range(150):
        parent = Choices(seed=seed)
        key = draw_object_key(parent, extension="txt")
        if _encoded(key):
            continue
        values = parent.recording().values()
        for i, choice in enumerate(parent.choices):
            site = choice.ei[-1][0]
            child = Choices([*values[:i], Changed(values[i]), *values[i + 1 :]], seed=seed + 1)
            by_site[site] += 1
            encoded_by_site[site] += _encoded(draw_object_key(child, extension="txt"))
    best = max(by_site, key=lambda s: encoded_by_site[s] / by_site[s])
    assert best == SHAPE_SITE and encoded_by_site[best] / by_site[best] >= 0.3, (
        encoded_by_site,
        by_site,
    )


def test_the_world_holds_the_decoded_key_and_the_event_its_encoded_form(tmp_path: Path) -> None:
    text = (
        "handler: app.handler\ntrigger: {kind: s3, source: uploads}\nresources:\n"
        "  buckets:\n    - name: uploads\n"
        '      objects: {min: 1, max: 1, formats: [json], prefixes: ["in/"]}\n'
    )
    target = load_target(tmp_path / "t", text)
    differs = 0
    for seed in range(200):
        generated = generate_input(Choices(seed=seed), target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        sent = event["Records"][0]["s3"]["object"]["key"]
        stored = urllib.parse.unquote_plus(sent)
        assert generated.world.buckets[0].get(stored) is not None
        assert sent == urllib.parse.quote_plus(stored, safe="/")
        differs += sent != stored
    assert differs >= 10, differs


#: A handler's dictionary: it splits on `|` (and `/`, a folder), compares with two words.
SPLITS = ("/", "Records", "key", "lower", "upper", "|")


def _packed(choices: Choices, **kwargs: object) -> str:
    return draw_object_key(choices, prefixes=("in/",), **kwargs)  # type: ignore[arg-type]


def test_separators_are_the_dictionarys_short_punctuation() -> None:
    words = ("/", "::", "Records", "a|b", "|", "-", "#", ".csv", "----", "")
    assert separators(words) == ("::", "|", "-", "#")


def test_keys_are_now_and_then_parts_joined_by_a_separator_the_code_splits_on() -> None:
    """`name, mode = key.split("|")` unpacks: a head, then a known word or a fresh one."""
    tails: Counter[str] = Counter()
    for seed in SEEDS:
        key = _packed(
            Choices(seed=seed, policy=DrawPolicy(dictionary=SPLITS, edge_values=True)),
            extension="txt",
        )
        assert key.startswith("in/")
        if key.count("|") == 1 and key.index("|") > len("in/"):
            tail = key.split("|")[1]
            tails["known" if tail in ("lower", "upper") else tail.isalnum() and "fresh"] += 1
    assert tails["known"] >= 3 and tails["fresh"] >= 10, tails


def test_a_configured_suffix_stays_last_after_the_parts() -> None:
    keys = [
        _packed(
            Choices(seed=s, policy=DrawPolicy(dictionary=SPLITS, edge_values=True)), ending=".csv"
        )
        for s in SEEDS
    ]
    assert all(k.startswith("in/") and k.endswith(".csv") for k in keys)
    assert sum(k.count("|") == 1 and "|" not in k[:4] for k in keys) >= 20


def test_keys_are_not_packed_without_edge_values_or_a_separator() -> None:
    for choices in (
        Choices(seed=3, policy=DrawPolicy(dictionary=SPLITS)),
        Choices(seed=3, policy=DrawPolicy(edge_values=True)),
    ):
        keys = [_packed(Choices(seed=s, policy=choices.policy), extension="txt") for s in SEEDS]
        assert not any(k.count("|") == 1 and k.split("|")[1].isalnum() for k in keys)


def test_a_packed_key_names_another_object_of_its_bucket() -> None:
    """The code looks the head up: a bucket now and then holds it (an object drawn before,
    or one drawn for a first key), never more objects than configured."""
    spec = BucketSpec("jobs", ObjectsSpec(min=1, max=3, formats=("text",), prefixes=("in/",)))
    naming = 0
    for seed in SEEDS:
        bucket = draw_bucket(
            Choices(seed=seed, policy=DrawPolicy(dictionary=SPLITS, edge_values=True)), spec
        )
        assert 1 <= len(bucket.objects) <= 3
        keys = {o.key for o in bucket.objects}
        naming += any(k.count("|") == 1 and k.split("|")[0] in keys for k in keys)
    assert naming >= 25, naming


def test_an_event_names_a_packed_key_whose_head_is_an_object(tmp_path: Path) -> None:
    text = (
        "handler: app.handler\ntrigger: {kind: s3, source: jobs}\nresources:\n"
        "  buckets:\n    - name: jobs\n"
        '      objects: {min: 1, max: 3, formats: [text], prefixes: ["in/"]}\n'
    )
    target = load_target(tmp_path / "t", text)
    hits = 0
    for seed in SEEDS:
        choices = Choices(seed=seed, policy=DrawPolicy(dictionary=SPLITS, edge_values=True))
        generated = generate_input(choices, target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        key = urllib.parse.unquote_plus(event["Records"][0]["s3"]["object"]["key"])
        head = key.split("|")[0]
        hits += key.count("|") == 1 and generated.world.buckets[0].get(head) is not None
    assert hits >= 8, hits
