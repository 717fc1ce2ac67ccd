"""Key shapes under every strategy: encoded, deep and flat keys drawn without edge values
too, one mutated draw away from an ordinary key, always inside the key filter; the world
holds the decoded key and the S3 event its encoded form."""

from __future__ import annotations

import urllib.parse
from collections import Counter
from pathlib import Path

from edge_off_digest import load_target

from lambdafuzz.generators.aws.key_shapes import SHAPE_SITE
from lambdafuzz.generators.aws.s3 import draw_object_key
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Changed, Choices

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
