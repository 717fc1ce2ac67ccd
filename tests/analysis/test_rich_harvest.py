"""The `frontier` strategy's harvest (`rich=True`): each new source, and the paper's
strategies' table left as it was."""

from __future__ import annotations

from datetime import datetime

from analysis_support import AnalyzeT

from lambdafuzz.analysis.constants import DATE_FORMAT_DATES, date_variants, render_date

SOURCE = """\
import csv
import io
import time
from datetime import datetime

from app.models import Order

KNOWN_LINES = frozenset({"tram-seven", "ferry-north"})
modes = ("fast", "slow")
STAMP = "%d.%m.%Y"
YEAR = 2008
HEADER = ["student_id", "grade"]


def route(path):
    return lambda fn: fn


@route("/orders/{order_id}")
def handler(event, context):
    order = Order(**event)
    allowed = ["gold", "silver"]
    if order.region in KNOWN_LINES or event["mode"] in modes:
        pass
    if event["tier"] in allowed:
        pass
    when = datetime.strptime(event["when"], STAMP)
    if when.year == YEAR and event["score"] > 2.5:
        pass
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    reader = csv.DictReader(io.StringIO(event["body"]), fieldnames=HEADER)
    writer = csv.DictWriter(io.StringIO(), fieldnames=["total", "count"])
    return stamp, reader, writer, order.customer.name, self_free(order)


def self_free(order):
    return order.shipping.city
"""

MODELS = """\
class Order:
    def __init__(self, **fields):
        self.__dict__.update(fields)
"""


def _kinds(result) -> dict[object, set[str]]:
    return {c.value: set(c.kinds) for c in result.constant_details}


def _rich(analyze_app: AnalyzeT):
    return analyze_app({"handler": SOURCE, "models": MODELS}, rich=True)


def test_members_of_bound_literal_collections_used_in_membership_tests(analyze_app: AnalyzeT):
    kinds = _kinds(_rich(analyze_app))
    for member in ("tram-seven", "ferry-north", "fast", "slow", "gold", "silver"):
        assert "membership" in kinds[member], member


def test_dates_in_each_format_parse_back_and_include_the_code_years(analyze_app: AnalyzeT):
    result = _rich(analyze_app)
    dates = {c.value for c in result.constant_details if "date" in c.kinds}
    for fmt in ("%d.%m.%Y", "%Y-%m-%dT%H:%M:%S"):
        rendered = {d for d in dates if _parses(d, fmt)}
        assert len(rendered) >= len(DATE_FORMAT_DATES), fmt  # every fixed date, distinct
    assert "29.02.2024" in dates  # the leap day
    assert {"01.01.2008", "31.12.2008"} <= dates  # the year the code compares with
    assert "2008-12-31T23:59:59" in dates


def test_a_rendering_that_does_not_parse_back_is_dropped():
    moment = DATE_FORMAT_DATES[0]
    assert render_date(moment, "%d.%m.%Y") == "15.06.2026"
    assert render_date(moment, "%Y%Y") is None  # strptime refuses a repeated directive


def test_near_misses_of_each_date_format_are_harvested_and_refused_by_it(analyze_app: AnalyzeT):
    moment = DATE_FORMAT_DATES[0]
    assert date_variants(moment, "%Y-%m-%dT%H:%M:%SZ") == [
        "2026-06-15T08:30:45.120Z",  # JavaScript's toISOString
        "2026-06-15T08:30:45.120000Z",
        "2026-06-15T08:30:45+00:00",
    ]
    assert "2026-06-15T08:30:45Z" in date_variants(moment, "%Y-%m-%dT%H:%M:%S.%fZ")
    assert date_variants(moment, "%Y-%m-%d") == ["2026-06-15T08:30:45.120Z"]
    assert date_variants(moment, "%d.%m.%Y") == []  # no seconds, no Z, no ISO date
    kinds = _kinds(_rich(analyze_app))
    variants = [v for v, k in kinds.items() if "date-variant" in k]
    assert "2026-06-15T08:30:45.120" in variants  # of the code's "%Y-%m-%dT%H:%M:%S"
    assert not any(_parses(v, "%Y-%m-%dT%H:%M:%S") for v in variants)


def test_numbers_compared_with_and_their_neighbours(analyze_app: AnalyzeT):
    result = _rich(analyze_app)
    numbers = set(result.numeric_constants)
    assert {2007, 2008, 2009} <= numbers
    assert {1.5, 2.5, 3.5} <= numbers
    kinds = _kinds(result)
    assert kinds[2008] == {"compare"} and kinds[2009] == {"neighbour"}


def test_csv_field_names_attribute_reads_and_routes(analyze_app: AnalyzeT):
    kinds = _kinds(_rich(analyze_app))
    assert {"student_id", "grade", "total", "count"} <= {
        v for v, k in kinds.items() if "field_name" in k
    }
    for attr in ("region", "customer", "name", "shipping", "city"):
        assert "attribute" in kinds[attr], attr
    assert "strptime" not in kinds and "DictReader" not in kinds  # calls are not fields
    assert "route" in kinds["/orders/{order_id}"]


def test_the_paper_strategies_table_takes_only_literal_strings(analyze_app: AnalyzeT):
    plain = analyze_app({"handler": SOURCE, "models": MODELS})
    kinds = set().union(*(set(c.kinds) for c in plain.constant_details))
    rich_kinds = {"date", "date-variant", "attribute", "field_name", "route"}
    assert not kinds & (rich_kinds | {"neighbour"})
    assert plain.numeric_constants == ()
    # the members of a collection tested by name are string literals of the code, which
    # the paper's table (every reachable string constant) takes too
    assert "tram-seven" in plain.constants and "gold" in plain.constants
    rich = _rich(analyze_app)
    assert set(plain.constants) <= set(rich.constants)


def _parses(text: object, fmt: str) -> bool:
    try:
        datetime.strptime(str(text), fmt)
    except ValueError:
        return False
    return True


REGEX_SOURCE = """\
import re

INVOICE = re.compile(r"^INV-(\\d{6})-([A-Z]{2})$")
PAIR = r"([a-z_]+)=([0-9]+)"


def handler(event, context):
    for word in event["body"].split():
        if INVOICE.match(word):
            pass
    totals = re.findall(PAIR, event["body"])
    return re.sub(pattern="[", repl="", string=event["body"]), totals
"""


def test_strings_the_code_s_regular_expressions_match(analyze_app: AnalyzeT):
    import re

    from lambdafuzz.analysis.constants import REGEX_SAMPLES

    result = analyze_app({"handler": REGEX_SOURCE}, rich=True)
    found = [c.value for c in result.constant_details if "regex-match" in c.kinds]
    invoices = [v for v in found if re.fullmatch(r"INV-\d{6}-[A-Z]{2}", v)]
    pairs = [v for v in found if re.fullmatch(r"[a-z_]+=[0-9]+", v)]
    assert 2 <= len(invoices) <= REGEX_SAMPLES  # distinct draws, a literal pattern
    assert 2 <= len(pairs) <= REGEX_SAMPLES  # a module constant passed by name
    assert len(found) == len(invoices) + len(pairs)  # `[` is no pattern: nothing for it
    again = analyze_app({"handler": REGEX_SOURCE}, rich=True)
    assert [c.value for c in again.constant_details if "regex-match" in c.kinds] == found
    plain = analyze_app({"handler": REGEX_SOURCE})  # the paper's table: no samples
    assert not any("regex-match" in c.kinds for c in plain.constant_details)


KEYS_SOURCE = """\
import boto3
from boto3.dynamodb.conditions import Key

PROFILE = "PROFILE"
table = boto3.resource("dynamodb").Table("people")
client = boto3.client("dynamodb")


def handler(event, context):
    name = table.get_item(Key={"PK": event["id"], "SK": "NAME#"})
    meta = client.get_item(TableName="people", Key={"PK": {"S": event["id"]}, "SK": {"S": "META"}})
    days = table.query(KeyConditionExpression=Key("PK").eq(event["id"]) & Key("SK").begins_with("DT#"))
    profile = table.get_item(Key={"PK": "USER", "SK": PROFILE})
    customer = table.get_item(Key={"PK": f"C#{event['id']}", "SK": f"{event['id']}#x"})
    return name, meta, days, profile, customer
"""


def test_dynamodb_key_values_with_their_attributes(analyze_app: AnalyzeT):
    result = analyze_app({"handler": KEYS_SOURCE}, rich=True)
    assert set(result.key_values()) == {
        ("SK", "NAME#"),  # a resource's Key
        ("SK", "META"),  # a client's, typed
        ("SK", "DT#"),  # a key condition
        ("PK", "USER"),
        ("SK", "PROFILE"),  # bound to a module constant
        ("PK", "C#"),  # an f-string's literal head (none when it starts with a value)
    }
    assert {"NAME#", "META", "DT#", "USER"} <= set(result.constants)  # the dictionary too
    plain = analyze_app({"handler": KEYS_SOURCE})  # the paper's table: no key values
    assert plain.key_values() == ()


def test_a_handler_that_stores_items_it_did_not_spell_out(analyze_app: AnalyzeT):
    stores = """\
import json

import boto3

table = boto3.resource("dynamodb").Table("events")


def handler(event, context):
    with table.batch_writer() as batch:
        for record in event["Records"]:
            batch.put_item(Item=json.loads(record["body"]))
"""
    spells_out = """\
import boto3

table = boto3.resource("dynamodb").Table("events")


def handler(event, context):
    table.put_item(Item={"eventId": event["id"], "kind": "order"})
    table.put_item(Item=to_item(event))


def to_item(event):
    return {"eventId": event["id"]}
"""
    assert analyze_app({"handler": stores}, rich=True).stores_items is True
    assert analyze_app({"handler": spells_out}, rich=True).stores_items is False
    assert analyze_app({"handler": stores}).stores_items is False  # the paper's harvest


BUILT_KEYS_SOURCE = """\
import boto3
from boto3.dynamodb.conditions import Key

table = boto3.resource("dynamodb").Table("people")
USER_PREFIX = "USER#"


def handler(event, context):
    user_key = "USER#" + event["sub"]
    items = table.query(KeyConditionExpression=Key("PK").eq(user_key))
    team = table.get_item(Key={"PK": USER_PREFIX + event["team"], "SK": "TEAM#" + event["x"]})
    return items, team
"""


def test_key_values_built_by_concatenation_give_their_head(analyze_app: AnalyzeT):
    """`"USER#" + sub`, through a local name or a module constant: the head is what the
    items the lookup finds start with."""
    result = analyze_app({"handler": BUILT_KEYS_SOURCE}, rich=True)
    assert set(result.key_values()) == {("PK", "USER#"), ("SK", "TEAM#")}


SPACED_FIELDS_SOURCE = """\
def handler(event, context):
    item = event["detail"]["check-item-detail"]
    if item["ACL Allows Upload/Delete"] != "No" or item.get("Bucket Name"):
        return "Removed the public access of this bucket as requested"
    return {"Date created": item["Date created"]}
"""


def test_field_names_with_spaces_and_slashes_are_fields(analyze_app: AnalyzeT):
    """Keys such as `Bucket Name` (AWS service events, single-table attribute names) are
    read like `bucket_name`; a sentence is not a field name."""
    fields = analyze_app({"handler": SPACED_FIELDS_SOURCE}, rich=True).field_names()
    assert {"ACL Allows Upload/Delete", "Bucket Name", "Date created", "check-item-detail"} <= set(
        fields
    )
    assert not [f for f in fields if f.startswith("Removed")]
