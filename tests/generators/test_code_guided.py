"""Edge values that land where the code looks: deletions when the code names one, the
broken zip member the code reads, DynamoDB attributes and numbers the code compares with,
CSV layouts and date formats of the code, written dates in time-named fields.  All of it
only with edge values on (the paper strategies' generation is pinned by
`test_edge_values.py`'s digests)."""

from __future__ import annotations

import io
import json
import urllib.parse
import zipfile
from datetime import datetime

import pytest
from edge_off_digest import load_target

from lambdafuzz.generators import dates
from lambdafuzz.generators.aws import dynamodb
from lambdafuzz.generators.aws.synthetic import synthetic_loaded_world
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import csv_files, file_edges
from lambdafuzz.generators.files.dispatch import zip_archives

_BUCKET = (
    "resources:\n  buckets:\n    - {name: up-loads, objects: {min: 1, max: 1, formats: [text]}}\n"
)


def _share(target, dictionary, count, seeds=120):
    hits = 0
    for seed in range(seeds):
        choices = Choices(seed=seed, policy=DrawPolicy(edge_values=True, dictionary=dictionary))
        generated = generate_input(choices, target)
        hits += count(generated, generated.render_event(synthetic_loaded_world(generated.world)))
    return hits / seeds


@pytest.mark.parametrize(
    ("dictionary", "low", "high"), [((), 0, 0), (("Object Deleted",), 0.03, 0.2)]
)
def test_an_unknown_rule_sends_deletions_when_the_code_names_them(tmp_path, dictionary, low, high):
    target = load_target(
        tmp_path,
        f"handler: app.handler\ntrigger: {{kind: eventbridge, source: up-loads}}\n{_BUCKET}",
    )

    def deleted(generated, event):
        if event["detail-type"] != "Object Deleted":
            return 0
        assert generated.world.buckets[0].get(event["detail"]["object"]["key"]) is None
        return 1

    assert low <= _share(target, dictionary, deleted) <= high


@pytest.mark.parametrize(
    ("dictionary", "low", "high"), [((), 0, 0), (("ObjectRemoved:Delete",), 0.03, 0.2)]
)
def test_unconfigured_notifications_send_removals_when_the_code_names_them(
    tmp_path, dictionary, low, high
):
    target = load_target(
        tmp_path, f"handler: app.handler\ntrigger: {{kind: s3, source: up-loads}}\n{_BUCKET}"
    )

    def removed(generated, event):
        (record,) = event["Records"]
        if not record["eventName"].startswith("ObjectRemoved"):
            return 0
        key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
        assert generated.world.buckets[0].get(key) is None
        return 1

    assert low <= _share(target, dictionary, removed) <= high


def _broken_members(dictionary, seeds=100):
    """(archives with a broken member, how many of those broke a `.csv` member)."""
    broken = csv = 0
    for seed in range(seeds):
        data = zip_archives(
            Choices(seed=seed, policy=DrawPolicy(edge_values=True, dictionary=dictionary))
        )
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                try:
                    archive.read(info)
                except (zipfile.BadZipFile, RuntimeError, NotImplementedError):
                    broken += 1
                    csv += info.filename.endswith(".csv")
                    break
    return broken, csv


def test_the_broken_zip_member_is_mostly_one_the_code_reads():
    broken, csv = _broken_members((".csv", "sku"))
    assert broken >= 5
    assert csv >= file_edges.READ_MEMBER_P * broken - 5  # added when the archive had none
    plain_broken, plain_csv = _broken_members(())
    assert plain_csv <= plain_broken / 3  # without a named extension: any member


def test_dynamodb_attributes_take_the_code_names_and_numbers():
    choices = Choices(
        seed=4,
        policy=DrawPolicy(edge_values=True, dictionary=("stock", "S", "x-1"), numbers=(4, 5, 6)),
    )
    names = [dynamodb.draw_attribute_name(choices) for _ in range(400)]
    share = (dynamodb.CODE_NAME_P + 0.1) / 3  # one of three names: the code's or the dictionary's
    assert abs(names.count("stock") / 400 - share) < 0.05
    assert "x-1" in dynamodb.code_names(choices) and "S" in dynamodb.code_names(choices)
    numbers = [dynamodb.draw_number(choices) for _ in range(1000)]
    near = sum(n in ("4", "5", "6") for n in numbers) / 1000
    assert 0.08 <= near <= 0.2  # CODE_NUMBER_WEIGHT / 1.15, plus the odd small integer
    assert dynamodb.code_numbers((1e300, float("nan"), 2.5, 10**40, 3)) == ("2.5", "3")
    off = Choices(seed=4, policy=DrawPolicy(dictionary=("stock",), numbers=(4, 5, 6)))
    for _ in range(50):
        dynamodb.draw_attribute_name(off)
        dynamodb.draw_number(off)
    assert not any("code" in str(c.ei) for c in off.choices)  # no code-name/-number draw


def test_csv_widths_and_date_columns_follow_the_code():
    dictionary = ("15/06/2026", "29/02/2024", "01/01/2000", "31/12/1999", "amount")
    choices = Choices(
        seed=7, policy=DrawPolicy(edge_values=True, dictionary=dictionary, numbers=(2, 3, 4, 40))
    )
    assert csv_files.code_date_formats(choices) == ("%d/%m/%Y",)  # not %m/%d/%Y: 2 of 4
    assert csv_files.code_widths((float("inf"), 3.0, 2.5, 21, 3)) == (3,)
    files = [
        csv_files.csv_files(
            Choices(
                seed=seed,
                policy=DrawPolicy(edge_values=True, dictionary=dictionary, numbers=(2, 3, 4, 40)),
            )
        )
        for seed in range(300)
    ]
    widths = [len(f.rows[0]) for f in files if f.rows and f.header]
    assert sum(w in (2, 3, 4) for w in widths) / len(widths) >= 0.45
    cells = [cell for f in files for row in f.rows for cell in row]
    day_first = sum(_written_in(c, "%d/%m/%Y") for c in cells)
    others = sum(_written_in(c, f) for c in cells for f in ("%Y-%m-%d", "%d.%m.%Y"))
    assert day_first >= 20 and day_first / (day_first + others) >= 0.6  # plain: ~1/4


def _written_in(text, fmt):
    try:
        return datetime.strptime(text, fmt).strftime(fmt) == text
    except ValueError:
        return False


def test_written_dates_take_the_code_dates_and_the_usual_forms():
    code = ("2026-06-15T08:30:45Z", "2026-06-15T08:30:45.120Z", "orderId", "1.2.3", "10.0.0.1")
    choices = Choices(seed=1, policy=DrawPolicy(edge_values=True, dictionary=code))
    assert dates.code_date_texts(choices) == code[:2]
    texts = [dates.date_texts(choices) for _ in range(400)]
    from_code = sum(t in code[:2] for t in texts) / 400
    assert abs(from_code - dates.CODE_DATE_P) < 0.1
    assert any(t.endswith("Z") and "." in t and t not in code for t in texts)  # toISOString
    assert any(t.endswith("+00:00") for t in texts) and any(t.isdigit() for t in texts)


@pytest.mark.parametrize(
    ("name", "timed"),
    [
        ("deliveredAt", True),
        ("created_at", True),
        ("booked_on", True),
        ("timestamp", True),
        ("eventTime", True),
        ("region", False),
        ("orderId", False),
        ("update", False),
        ("Timeout", False),
    ],
)
def test_time_names(name, timed):
    assert dates.is_time_name(name) is timed


def test_time_named_fields_hold_written_dates_only_with_edge_values():
    document = {"orderId": "o-1", "shipment": {"deliveredAt": 5, "items": [{"updatedAt": None}]}}
    off = Choices(seed=2)
    assert dates.date_fields(off, document) is document and not off.choices
    written = 0
    for seed in range(100):
        result = dates.date_fields(
            Choices(seed=seed, policy=DrawPolicy(edge_values=True)), document
        )
        assert result["orderId"] == "o-1"
        written += isinstance(result["shipment"]["deliveredAt"], str)
        assert isinstance(result["shipment"]["items"][0]["updatedAt"], (str, type(None)))
    assert abs(written / 100 - dates.DATE_FIELD_P) < 0.15


def test_an_eventbridge_detail_gets_written_dates(tmp_path):
    target = load_target(tmp_path, "handler: app.handler\ntrigger: {kind: eventbridge}\n")
    seen = 0
    for seed in range(300):
        choices = Choices(
            seed=seed, policy=DrawPolicy(edge_values=True, dictionary=("deliveredAt",))
        )
        generated = generate_input(choices, target)
        detail = json.loads(generated.event.records[0].detail_json)
        value = detail.get("deliveredAt") if isinstance(detail, dict) else None
        seen += isinstance(value, str) and value[:2] in ("19", "20")
    assert seen >= 3
