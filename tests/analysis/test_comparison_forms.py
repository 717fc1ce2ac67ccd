"""Every form of comparison a handler makes is a reason to draw that value (issue 42,
class "comparison"): each form below guards a raise in the fixture, and the harvest takes
its value(s) — string literals for every strategy that uses the analysis' constants,
computed values, identifiers and numbers in the `frontier` strategy's (`rich`) harvest."""

from __future__ import annotations

import pytest
from analysis_support import AnalyzeT

HANDLER = """\
import os
import re

from .consts import MAX_BATCH, STATUS_OK
from .kinds import Kind
from . import kinds
from enum import Enum

ALLOWED_LIST = ["bl-1", "bl-2"]
ALLOWED_FROZEN = frozenset({"bf-1", "bf-2"})
lower_tuple = ("bt-1", "bt-2")
ROUTES = {"rd-1": print, "rd-2": print}
BUILT = dict(rk_1=print, rk_2=print)
COMPREHENDED = {name: print for name in ("rc-1", "rc-2")}
PREFIX = "pre"
MAX_ITEMS = 40
ENDINGS = ("sw-1", "sw-2")


class Color(Enum):
    RED = "c-red"
    BLUE = "c-blue"


class Config:
    MODES = ("ca-1", "ca-2")
    LEVELS = frozenset({"cl-1"})

    def check(self, value):
        if value not in self.MODES:
            raise ValueError(value)


def handler(event, context):
    x = event["x"]
    if x in ["l-1", "l-2"]:
        raise ValueError("list")
    if x in ("t-1", "t-2"):
        raise ValueError("tuple")
    if x in {"s-1", "s-2"}:
        raise ValueError("set")
    if x not in {"ns-1", "ns-2"}:
        raise ValueError("not in")
    local = {"ls-1", "ls-2"}
    if x in ALLOWED_LIST or x in ALLOWED_FROZEN or x in lower_tuple or x in local:
        raise ValueError("bound")
    if x in Config.LEVELS:
        raise ValueError("class attribute")
    Config().check(x)
    ROUTES[x]()
    ROUTES.get(x)
    if x in BUILT or x in COMPREHENDED:
        raise ValueError("dispatch")
    match x:
        case "m-1":
            raise ValueError
        case "mo-1" | "mo-2":
            raise ValueError
        case Color(tag="mk-1"):
            raise ValueError
        case {"mtype": "mv-1"}:
            raise ValueError
        case Kind.REFUND:
            raise ValueError
    if x.startswith(("st-1", "st-2")) or x.endswith(ENDINGS):
        raise ValueError
    if re.fullmatch(r"RE-[0-9]{3}", x):
        raise ValueError
    if x == STATUS_OK:
        raise ValueError
    if x == kinds.Kind.ORDER.value or x == Color.RED.value:
        raise ValueError
    Kind(event["k"])
    Color[event["c"]]
    expected = PREFIX + "-x"
    if x == expected or x == f"{PREFIX}/in":
        raise ValueError
    if x == os.environ.get("MODE_VAR", "env-dflt"):
        raise ValueError
    n = event["n"]
    if n < -7 or n > MAX_ITEMS or len(x) > 13 or n > MAX_BATCH:
        raise ValueError
    if int(x) in range(31, 35):
        raise ValueError
"""

CONSTS = """\
STATUS_OK = "imp-ok"
MAX_BATCH = 77
"""

KINDS = """\
from enum import Enum


class Kind(str, Enum):
    ORDER = "k-order"
    REFUND = "k-refund"
    GIFT = "k-gift"
"""

#: (form, strings every strategy's table has, only the rich harvest's, numbers) — the
#: forms the harvest missed before `symbols.py` (each fails without it).
NEW_FORMS = [
    ("local set", {"ls-1", "ls-2"}, set(), set()),
    ("frozenset constant", {"bf-1", "bf-2"}, set(), set()),
    ("lower-case tuple", {"bt-1", "bt-2"}, set(), set()),
    ("class attribute", {"cl-1"}, set(), set()),
    ("self attribute", {"ca-1", "ca-2"}, set(), set()),
    ("dict(...) keys", set(), {"rk_1", "rk_2"}, set()),
    ("comprehension keys", {"rc-1", "rc-2"}, set(), set()),
    ("mapping pattern key", {"mtype"}, set(), set()),
    ("enum member in case", {"k-refund"}, set(), set()),
    ("enum member value", {"k-order", "c-red"}, set(), set()),
    ("enum call", {"k-order", "k-refund", "k-gift"}, set(), set()),
    ("enum subscript", set(), {"RED", "BLUE"}, set()),
    ("concatenation", set(), {"pre-x"}, set()),
    ("f-string", set(), {"pre/in"}, set()),
    ("imported number", set(), set(), {76, 77, 78}),
    ("range ends", set(), set(), {31, 34}),
]

#: Forms the harvest took already (kept: a regression guard, not new behaviour).
OLD_FORMS = [
    ("list", {"l-1", "l-2"}, set(), set()),
    ("tuple", {"t-1", "t-2"}, set(), set()),
    ("set", {"s-1", "s-2"}, set(), set()),
    ("not in", {"ns-1", "ns-2"}, set(), set()),
    ("list constant", {"bl-1", "bl-2"}, set(), set()),
    ("dict dispatch", {"rd-1", "rd-2"}, set(), set()),
    ("case literal and alternatives", {"m-1", "mo-1", "mo-2", "mk-1", "mv-1"}, set(), set()),
    ("startswith tuple", {"st-1", "st-2"}, set(), set()),
    ("endswith constant", {"sw-1", "sw-2"}, set(), set()),
    ("imported string constant", {"imp-ok"}, set(), set()),
    ("environment default", {"env-dflt"}, set(), set()),
    ("numeric bounds", set(), set(), {-8, -7, -6, 39, 40, 41, 12, 13, 14}),
]


@pytest.fixture(scope="module")
def harvests(tmp_path_factory) -> dict[bool, object]:
    import textwrap

    from lambdafuzz.analysis import analyze_sources

    root = tmp_path_factory.mktemp("forms") / "app"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, text in {"handler": HANDLER, "consts": CONSTS, "kinds": KINDS}.items():
        (root / f"{name}.py").write_text(textwrap.dedent(text))
    return {
        rich: analyze_sources([root], "app.handler.handler", use_cache=False, rich=rich)
        for rich in (False, True)
    }


def _check(harvests, strings: set, rich_strings: set, numbers: set) -> None:
    plain, rich = harvests[False], harvests[True]
    assert strings <= set(plain.constants), strings - set(plain.constants)
    assert strings | rich_strings <= set(rich.constants)
    assert not rich_strings & set(plain.constants)  # computed or identifiers: rich only
    assert numbers <= set(rich.numeric_constants), numbers - set(rich.numeric_constants)
    assert plain.numeric_constants == ()


@pytest.mark.parametrize(("form", "strings", "rich_strings", "numbers"), NEW_FORMS)
def test_each_new_comparison_form_is_harvested(harvests, form, strings, rich_strings, numbers):
    _check(harvests, strings, rich_strings, numbers)


@pytest.mark.parametrize(("form", "strings", "rich_strings", "numbers"), OLD_FORMS)
def test_the_forms_harvested_before_still_are(harvests, form, strings, rich_strings, numbers):
    _check(harvests, strings, rich_strings, numbers)


def test_regular_expressions_are_matched_in_the_rich_harvest(harvests):
    import re

    found = [c.value for c in harvests[True].constant_details if "regex-match" in c.kinds]
    assert any(re.fullmatch(r"RE-[0-9]{3}", str(v)) for v in found)


def test_a_name_bound_twice_or_to_input_stands_for_nothing(analyze_app: AnalyzeT):
    source = """\
    MODE = "first"
    MODE = "second"


    def handler(event, context):
        wanted = event["w"]
        loop = "a"
        loop = loop + "b"
        if event["x"] == MODE or event["x"] == wanted or event["x"] == loop + "-c":
            raise ValueError
    """
    result = analyze_app(source, rich=True)
    assert "ab-c" not in result.constants and "b-c" not in result.constants
    kinds = {c.value: set(c.kinds) for c in result.constant_details}
    assert "compare" not in kinds.get("first", set()) | kinds.get("second", set())


def test_class_pattern_keywords_are_field_names_of_the_rich_harvest(harvests):
    assert "tag" in harvests[True].field_names()
    assert "mtype" in harvests[True].field_names()  # a mapping pattern's key
