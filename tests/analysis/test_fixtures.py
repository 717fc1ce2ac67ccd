"""The three fixture handlers of the brief: the influencing types of their decisive branches."""

from __future__ import annotations

from analysis_support import analyze_fixture, types_of

from lambdafuzz import labels as L


def _target(result, module: str, condition: str, arm: str = "true"):
    found = [
        t
        for t in result.targets
        if t.module == module and t.condition == condition and t.arm == arm
    ]
    assert len(found) == 1, [t.condition for t in result.targets]
    return found[0]


def test_year_branch_is_influenced_by_datetime_then_exif_then_image():
    result = analyze_fixture("yearthumbs", "yearthumbs.handler.lambda_handler")
    target = _target(result, "yearthumbs.handler", "year == TARGET_YEAR")
    types = types_of(target)
    assert {L.DATETIME, L.IMAGE_EXIF, L.PIL_IMAGE} <= types.keys()
    # the datetime is the closest of the three (paper Fig. 7: GregorianCalendar first)
    assert types[L.DATETIME] < types[L.IMAGE_EXIF] < types[L.PIL_IMAGE]
    assert target.types[0].label == L.DATETIME
    assert target.input_dependent
    # the image came out of S3, named by the listing and the event
    assert types[L.S3_OBJECT] > types[L.PIL_IMAGE]
    assert L.S3_OBJECT_KEY in types


def test_year_fixture_except_clause_is_decided_by_the_date_parse():
    result = analyze_fixture("yearthumbs", "yearthumbs.handler.lambda_handler")
    target = _target(result, "yearthumbs.exif", "except ValueError")
    assert target.types[0] == type(target.types[0])(L.DATETIME, 1)


def test_csv_header_branch_is_influenced_by_the_header_first():
    result = analyze_fixture("csvgrades", "csvgrades.handler.lambda_handler")
    target = _target(result, "csvgrades.handler", 'header[0] != "student_id"')
    types = types_of(target)
    assert target.types[0].label == L.CSV_HEADER
    assert types[L.CSV_ROW] > types[L.CSV_HEADER]
    assert types[L.S3_OBJECT] > types[L.CSV_ROW]
    # a row-length branch is about rows, not the header
    row_target = _target(result, "csvgrades.handler", "len(row) < 2")
    assert L.CSV_ROW in types_of(row_target)
    assert L.CSV_HEADER not in types_of(row_target)


def test_dynamodb_item_compared_with_s3_key_has_both_types_nearby():
    result = analyze_fixture("ddbkeys", "ddbkeys.handler.handler")
    target = _target(result, "ddbkeys.handler", 'item["contract_code"] == code')
    types = types_of(target)
    # both operands carry their type themselves: distance 1, one edge from the branch
    assert types[L.DYNAMODB_ITEM] == 1
    assert types[L.S3_OBJECT_KEY] == 1  # code = basename of the key, still the key
    assert target.input_dependent
    # the helper's own branch on the key
    helper = _target(result, "ddbkeys.handler", '"." not in base')
    assert helper.types[0].label == L.S3_OBJECT_KEY


def test_fixture_match_reports_are_complete():
    for name, handler in [
        ("yearthumbs", "yearthumbs.handler.lambda_handler"),
        ("csvgrades", "csvgrades.handler.lambda_handler"),
        ("ddbkeys", "ddbkeys.handler.handler"),
    ]:
        result = analyze_fixture(name, handler)
        assert result.match.total > 0
        assert result.match.percent == 100.0, (name, result.match.unmatched)


def test_match_report_uses_the_produced_labels_parameter():
    result = analyze_fixture(
        "yearthumbs", "yearthumbs.handler.lambda_handler", produced_labels=[L.DATETIME]
    )
    m = result.match
    assert m.produced == (L.DATETIME,)
    assert 0 < m.matched < m.total
    dependent = {t.id for t in result.targets if t.input_dependent}
    assert set(m.unmatched) <= dependent
    for tid in m.unmatched:
        assert L.DATETIME not in types_of(result.target(tid))
