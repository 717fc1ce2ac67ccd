"""Constant strings reachable from the handler, and numbers behind the `numeric` flag."""

from __future__ import annotations

from analysis_support import AnalyzeT

SOURCE = '''\
"""Module docstring is not a constant."""
import logging
import os

import boto3

log = logging.getLogger(__name__)
TABLE = "Students"
LIMIT = 25
table = boto3.resource("dynamodb").Table(os.environ.get("TABLE_NAME", "grades-default"))


def handler(event, context):
    """Docstrings are not constants either."""
    key = event["Records"][0]["s3"]["object"]["key"]
    if key.startswith(("incoming/", "tmp/")) and key.endswith(".csv"):
        log.info("a log message is not a constant")
    kind = {"daily": 1, "weekly": 2}.get(key.split("_")[0], 0)
    if kind == 1 or key in ("a", "b"):
        print("not this either")
    if len(key) > LIMIT or kind < -3:
        return helper(key)
    match key:
        case "exact":
            return 2
    return 0


def helper(key):
    return key.replace("-", "_") == "x_y"


def unused(key):
    return key == "never-reached"
'''


def _details(result):
    return {c.value: set(c.kinds) for c in result.constant_details}


def test_string_constants_by_position(analyze_app: AnalyzeT):
    result = analyze_app(SOURCE)
    kinds = _details(result)
    assert kinds["incoming/"] == {"method_arg"} and kinds["tmp/"] == {"method_arg"}
    assert "extension" in kinds[".csv"]
    assert kinds["daily"] == {"dict_key"}
    assert kinds["_"] == {"method_arg"}
    assert kinds["a"] == {"compare"} and kinds["b"] == {"compare"}
    assert kinds["grades-default"] == {"env_default"}
    assert "module_constant" in kinds["Students"]
    assert kinds["Records"] == {"subscript_key"}
    assert kinds["exact"] == {"case"}
    assert {"-", "_", "x_y"} <= set(result.constants)  # in a reachable helper
    assert result.dictionary() == result.constants
    assert list(result.constants) == sorted(result.constants)


def test_docstrings_log_messages_and_unreachable_code_are_left_out(analyze_app: AnalyzeT):
    result = analyze_app(SOURCE, all_strings=True)
    strings = set(result.constants)
    assert not any("docstring" in s.lower() for s in strings)
    assert "a log message is not a constant" not in strings
    assert "not this either" not in strings
    assert "never-reached" not in strings
    # no handler named and none shaped (event, context): every function counts
    lonely = analyze_app("def check(x):\n    return x == 'lonely'\n", handler=None)
    assert lonely.handler is None
    assert lonely.constants == ("lonely",)


def test_numbers_only_with_the_flag(analyze_app: AnalyzeT):
    assert analyze_app(SOURCE).numeric_constants == ()
    numbers = analyze_app(SOURCE, numeric=True).numeric_constants
    # `len(key) > LIMIT` compares with the module constant's value
    assert set(numbers) == {1, 25, -3}


def test_all_strings_is_a_superset(analyze_app: AnalyzeT):
    plain = set(analyze_app(SOURCE).constants)
    everything = set(analyze_app(SOURCE, all_strings=True).constants)
    assert plain <= everything
    assert "dynamodb" in everything - plain  # boto3.resource("dynamodb") is just a literal
