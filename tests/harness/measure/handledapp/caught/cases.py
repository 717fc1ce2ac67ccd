"""Each function catches (or lets go) one exception; test_handled_catches.py says which count."""

import contextlib
import json

from botocore.exceptions import ClientError
from somelib import tools
from somelib.tools import NotFound

TABLE = {"a": 1}


def builtin_in_app(d):
    try:
        return d["missing"]
    except KeyError:
        return None


def helper_raises(text):
    return int(text)


def in_helper():
    try:
        return helper_raises("x")
    except (TypeError, ValueError) as exc:
        return exc


def own_raise():
    try:
        raise ValueError("rejected on purpose")
    except ValueError:
        return None


def own_assert(x):
    try:
        assert x, "no x"
    except AssertionError:
        return None


def library_specific():
    try:
        return tools.fetch("k")
    except NotFound:
        return None


def library_broad():
    try:
        return tools.convert("nope")
    except Exception:
        return None


def library_json_specific():
    try:
        return json.loads("{")
    except json.JSONDecodeError:
        return None


def library_catches_itself():
    return tools.parse_or_none("{")


def finally_only():
    try:
        try:
            return TABLE["z"]
        finally:
            TABLE.get("a")
    except LookupError:
        return None


def suppressed():
    with contextlib.suppress(KeyError):
        return TABLE["y"]


def unmatched_inner():
    try:
        try:
            return [][1]
        except KeyError:
            return None
    except IndexError:
        return "outer"


def iteration():
    it = iter(())
    try:
        next(it)
    except StopIteration:
        return None


def bare(d):
    try:
        return d / 0
    except:  # noqa: E722
        return None


def escapes(d):
    try:
        return d["k"]
    except KeyError:
        raise


def aws_rejected(table):
    try:
        table.put_item(Item={"pk": "a", "sk": "x" * 1025})  # a sort key over 1024 bytes
    except ClientError:
        return False
    return True


def aws_missing(s3):
    try:
        s3.head_object(Bucket="files", Key="absent.txt")  # an existence check
    except ClientError:
        return False
    return True
