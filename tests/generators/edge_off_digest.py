"""Targets and a digest of what they generate with edge values off (the default).

Edge values must leave generation untouched when they are off, so that the paper's
strategies stay what they were: the digest covers the recorded choice sequence (kinds,
values, constraints, execution indices, labels), the world and the rendered event.  The
expected digests in `test_edge_values.py` were computed with this module on the commit
before edge values existed (cf13624); a change that alters generation with edge values
off on purpose recomputes them (`EXPECTED_OFF` lists how).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import Target

_RESOURCES = """\
resources:
  buckets:
    - name: uploads
      objects: {min: 1, max: 2, formats: [json, csv], prefixes: ["in/"]}
  tables:
    - name: orders
      hash_key: {name: id, type: S}
      range_key: {name: n, type: N}
      items: {min: 1, max: 4}
      stream: NEW_AND_OLD_IMAGES
  queues:
    - {name: jobs, messages: {min: 1, max: 2}}
  topics: [{name: alerts}]
"""
#: One target per trigger whose generation edge values touch.
TARGETS = {
    name: f"handler: app.handler\ntrigger: {trigger}\n{_RESOURCES}"
    for name, trigger in {
        "s3": "{kind: s3, source: uploads}",
        "sqs": "{kind: sqs, source: jobs, records: {min: 1, max: 2}}",
        "sns": "{kind: sns, source: alerts}",
        "stream": "{kind: dynamodb-stream, source: orders, records: {min: 1, max: 3}}",
        "bridge-s3": "{kind: eventbridge, source: uploads, "
        "filters: [{detail-type: [Object Created, Object Deleted]}]}",
        "direct": "{kind: direct, keys: [order, amount, note?]}",
        "http": "apigateway-v2",
    }.items()
}
#: A custom EventBridge event (no bucket to describe): its detail is a JSON document.
TARGETS["bridge"] = "handler: app.handler\ntrigger: {kind: eventbridge}\n"
SEEDS = range(12)


def load_target(directory: Path, text: str) -> Target:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text("def handler(event, context):\n    return None\n")
    (directory / "lambdafuzz.yaml").write_text(text)
    return load_config(directory / "lambdafuzz.yaml")


def digest_of(target: Target, **choices_options: object) -> str:
    """SHA-256 of the recordings, worlds and events of `SEEDS`."""
    digest = hashlib.sha256()
    for seed in SEEDS:
        choices = Choices(seed=seed, policy=DrawPolicy(**choices_options))  # type: ignore[arg-type]
        generated = generate_input(choices, target)
        event = generated.render_event(synthetic_loaded_world(generated.world))
        digest.update(choices.recording().dumps().encode())
        digest.update(_world_text(generated.world).encode())
        digest.update(json.dumps(event, sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def _world_text(world: object) -> str:
    """The world's repr without the fields worlds gained later, empty for these targets
    (secrets and parameters, a table's secondary indexes and always-present attributes):
    the digest compares generation with the commit before edge values, whose worlds had no
    such fields."""
    text = repr(world).replace(", secrets=(), parameters=()", "")
    text = text.replace(", indexes=(), attributes=()", "").replace(", indexes=()", "")
    # a resource that is there and a message with the emulator's id (`World`)
    return text.replace(", exists=True", "").replace(", message_id=None", "")


if __name__ == "__main__":  # prints EXPECTED_OFF for the code on sys.path
    import tempfile

    root = Path(tempfile.mkdtemp())
    for name, text in TARGETS.items():
        print(f'    "{name}": "{digest_of(load_target(root / name, text))}",')
