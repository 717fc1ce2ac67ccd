"""The event pattern matcher against the semantics AWS documents for Lambda event
filtering and EventBridge rules (examples written here, one per rule of the language)."""

from __future__ import annotations

import pickle

import pytest

from lambdafuzz.model.event_pattern import (
    MISSING,
    PatternError,
    check_pattern,
    load_pattern,
    matches,
    matches_any,
)

ORDER = {
    "source": "com.shop.orders",
    "detail-type": "OrderPlaced",
    "resources": ["arn:aws:s3:::a", "arn:aws:s3:::b"],
    "detail": {
        "amount": 25.5,
        "count": 3,
        "currency": "EUR",
        "note": None,
        "customer": {"email": "Ana@Example.COM", "ip": "10.0.3.7"},
        "lines": [{"sku": "A-1", "qty": 1}, {"sku": "B-2", "qty": 4}],
        "tags": ["gift", "express"],
    },
}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        # exact values: strings by type and value, numbers by value, every field must match
        ({"source": ["com.shop.orders"]}, True),
        ({"source": ["com.shop"]}, False),
        ({"detail": {"count": [3.0]}}, True),
        ({"detail": {"count": ["3"]}}, False),
        ({"source": ["com.shop.orders"], "detail-type": ["Refund"]}, False),
        # null matches a null value, never a missing field
        ({"detail": {"note": [None]}}, True),
        ({"detail": {"missing": [None]}}, False),
        # arrays in the event: any element
        ({"resources": ["arn:aws:s3:::b"]}, True),
        ({"detail": {"tags": ["express"]}}, True),
        ({"detail": {"lines": {"sku": ["B-2"]}}}, True),
        ({"detail": {"lines": {"sku": ["C-3"]}}}, False),
        # prefix / suffix, also case-insensitively
        ({"source": [{"prefix": "com.shop."}]}, True),
        ({"source": [{"prefix": "org."}]}, False),
        ({"detail": {"customer": {"email": [{"suffix": "@example.com"}]}}}, False),
        (
            {
                "detail": {
                    "customer": {"email": [{"suffix": {"equals-ignore-case": "@example.com"}}]}
                }
            },
            True,
        ),
        ({"detail-type": [{"prefix": {"equals-ignore-case": "order"}}]}, True),
        ({"detail-type": [{"equals-ignore-case": "orderplaced"}]}, True),
        # numeric ranges: numbers only
        ({"detail": {"amount": [{"numeric": [">", 0, "<=", 25.5]}]}}, True),
        ({"detail": {"amount": [{"numeric": [">", 25.5]}]}}, False),
        ({"detail": {"count": [{"numeric": ["=", 3]}]}}, True),
        ({"detail": {"currency": [{"numeric": [">", 0]}]}}, False),
        # anything-but: present and none of the values (or not of the prefix, ...)
        ({"detail": {"currency": [{"anything-but": ["USD", "GBP"]}]}}, True),
        ({"detail": {"currency": [{"anything-but": "EUR"}]}}, False),
        ({"detail": {"count": [{"anything-but": [1, 2]}]}}, True),
        ({"detail": {"missing": [{"anything-but": "x"}]}}, False),
        ({"source": [{"anything-but": {"prefix": "com."}}]}, False),
        ({"source": [{"anything-but": {"suffix": ".payments"}}]}, True),
        ({"detail-type": [{"anything-but": {"equals-ignore-case": ["orderplaced"]}}]}, False),
        # exists: the only rule an absent field satisfies
        ({"detail": {"customer": {"email": [{"exists": True}]}}}, True),
        ({"detail": {"customer": {"phone": [{"exists": True}]}}}, False),
        ({"detail": {"customer": {"phone": [{"exists": False}]}}}, True),
        ({"detail": {"customer": {"email": [{"exists": False}]}}}, False),
        ({"nothing": {"here": [{"exists": False}]}}, True),
        # wildcard: * is any run, \* a star
        ({"source": [{"wildcard": "com.*.orders"}]}, True),
        ({"source": [{"wildcard": "com.*.refunds"}]}, False),
        ({"detail": {"tags": [{"wildcard": "ex*s"}]}}, True),
        # cidr: an address inside the network
        ({"detail": {"customer": {"ip": [{"cidr": "10.0.0.0/16"}]}}}, True),
        ({"detail": {"customer": {"ip": [{"cidr": "192.168.0.0/16"}]}}}, False),
        # a leaf matches when ANY of its rules does
        ({"detail": {"currency": ["USD", {"prefix": "E"}]}}, True),
        # $or: one alternative
        ({"$or": [{"source": ["x"]}, {"detail": {"count": [3]}}]}, True),
        ({"$or": [{"source": ["x"]}, {"detail": {"count": [4]}}]}, False),
        ({"detail": {"$or": [{"currency": ["USD"]}, {"amount": [{"numeric": ["<", 30]}]}]}}, True),
        # a nested pattern on a scalar matches nothing but absences
        ({"source": {"name": ["com.shop.orders"]}}, False),
    ],
)
def test_matching_follows_the_documented_semantics(pattern, expected):
    check_pattern(pattern)
    assert matches(pattern, ORDER) is expected


def test_an_escaped_star_is_a_literal_star():
    assert matches({"k": [{"wildcard": "a\\*b*"}]}, {"k": "a*bcd"})
    assert not matches({"k": [{"wildcard": "a\\*b*"}]}, {"k": "axbcd"})


def test_a_plain_string_body_only_matches_string_rules():
    """SQS: a non-JSON body is matched as the string it is."""
    assert matches({"body": [{"prefix": "PING"}]}, {"body": "PING 1"})
    assert not matches({"body": {"type": ["PING"]}}, {"body": "PING 1"})


def test_any_pattern_of_several_delivers():
    patterns = [{"source": ["a"]}, {"source": ["com.shop.orders"]}]
    assert matches_any(patterns, ORDER)
    assert not matches_any(patterns[:1], ORDER)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ({}, (), "non-empty mapping"),
        ({"source": "a"}, ("source",), 'write ["a"]'),
        ({"source": []}, ("source",), "non-empty list"),
        ({"source": [{"begins-with": "a"}]}, ("source", 0, "begins-with"), "an operator"),
        ({"n": [{"numeric": [">", "1"]}]}, ("n", 0, "numeric"), "[op, number]"),
        ({"n": [{"numeric": ["~", 1]}]}, ("n", 0, "numeric"), "op one of"),
        ({"n": [{"exists": "yes"}]}, ("n", 0, "exists"), "true or false"),
        ({"n": [{"cidr": "10.0.0.300/8"}]}, ("n", 0, "cidr"), "IP network"),
        ({"n": [{"prefix": 1}]}, ("n", 0, "prefix"), "a string"),
        ({"n": [{"anything-but": {"numeric": [">", 1]}}]}, ("n", 0, "anything-but"), "prefix"),
        ({"n": [{"prefix": "a", "suffix": "b"}]}, ("n", 0), "one of"),
        ({"$or": []}, ("$or",), "alternative"),
        ({"$or": [{"a": ["x"]}, {}]}, ("$or", 1), "non-empty mapping"),
        ({"d": {"e": [["nested"]]}}, ("d", "e", 0), "scalar"),
    ],
)
def test_malformed_patterns_name_the_place_and_the_expectation(pattern, path, expected):
    with pytest.raises(PatternError) as info:
        check_pattern(pattern)
    assert info.value.path == path
    assert expected in info.value.expected


def test_patterns_load_from_their_text_and_missing_pickles():
    assert load_pattern('{"a": [1]}') == {"a": [1]}
    assert pickle.loads(pickle.dumps(MISSING)) is MISSING
