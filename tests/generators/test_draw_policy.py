"""The draw policy (`generators.draw_policy.DrawPolicy`): declared once, validated once, and
recorded in `campaign.json` under the six keys the file has always had (issue 41)."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest

from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DICTIONARY_P, DrawPolicy

PACKAGE = Path(__file__).resolve().parents[2] / "lambdafuzz"
#: The policy's fields, in campaign.json's order.
SIX = ("dictionary", "dictionary_p", "numbers", "fields", "key_values", "edge_values")
#: Names that mean the policy wherever they are declared (`dictionary`, `numbers` and
#: `fields` alone are ordinary words).
SPECIFIC = {"dictionary_p", "key_values", "edge_values"}
#: Declarations that share a name with the policy without declaring it again, each with
#: the name(s) it may hold: what the analysis found, which `build_engine` turns into the
#: policy (and `lambdafuzz analyze` prints), and the generator helpers that take the key
#: value table as one argument.
NOT_THE_POLICY = {
    ("fuzzer/harvest.py", "Harvest"): {"numbers", "fields", "key_values"},
    ("generators/aws/world_generator.py", "item_strings"): {"key_values"},
    ("generators/aws/world_generator.py", "world_strings"): {"key_values"},
    ("generators/aws/world_generator.py", "key_tails"): {"key_values"},
    ("generators/aws/world_generator.py", "_table_strings"): {"key_values"},
}


def _declarations(root: Path = PACKAGE) -> dict[tuple[str, str], set[str]]:
    """(module, class or function) -> the policy names it declares as a dataclass field or
    class annotation, or as a parameter."""
    found: dict[tuple[str, str], set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {
                    st.target.id
                    for st in node.body
                    if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)
                }
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
            else:
                continue
            if names & set(SIX):
                found.setdefault((module, node.name), set()).update(names & set(SIX))
    return found


def test_the_policy_is_declared_once() -> None:
    declarations = _declarations()
    assert declarations[("generators/draw_policy.py", "DrawPolicy")] == set(SIX)
    again = {
        where: names
        for where, names in declarations.items()
        if where != ("generators/draw_policy.py", "DrawPolicy")
        and (names & SPECIFIC or len(names) > 1)
        and not names <= NOT_THE_POLICY.get(where, set())
    }
    assert again == {}, f"declare a DrawPolicy field or parameter instead: {again}"
    # the exceptions still exist as described (a stale entry would hide a new declaration)
    for where, names in NOT_THE_POLICY.items():
        assert declarations.get(where, set()) & names, where


def test_the_scan_finds_fields_and_parameters_of_every_kind(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "spec.py").write_text(
        "class Spec:\n    edge_values: bool = False\n    other: int = 0\n\n"
        "def run(dictionary, /, numbers, *, dictionary_p=0.1): ...\n\n"
        "class Host:\n    async def go(self, key_values): ...\n",
        encoding="utf-8",
    )
    assert _declarations(tmp_path) == {
        ("sub/spec.py", "Spec"): {"edge_values"},
        ("sub/spec.py", "run"): {"dictionary", "numbers", "dictionary_p"},
        ("sub/spec.py", "go"): {"key_values"},
    }


@pytest.mark.parametrize("p", [-0.01, 1.5, math.nan, math.inf])
def test_a_probability_outside_0_1_is_refused_when_the_policy_is_made(p: float) -> None:
    with pytest.raises(InvalidArgument, match="dictionary_p"):
        DrawPolicy(dictionary=("x",), dictionary_p=p)


def test_the_bounds_and_the_defaults() -> None:
    assert DrawPolicy(dictionary_p=0.0).dictionary_p == 0.0
    assert DrawPolicy(dictionary_p=1.0).dictionary_p == 1.0
    default = DrawPolicy()
    assert (default.dictionary, default.dictionary_p, default.numbers) == ((), DICTIONARY_P, ())
    assert (default.fields, default.key_values, default.edge_values) == ((), (), False)


def test_sequences_are_kept_as_tuples_so_a_policy_is_hashable() -> None:
    policy = DrawPolicy(
        dictionary=["a", "b"], numbers=[1, 2.5], fields=["id"], key_values=[["SK", "X#"]]
    )
    assert policy.dictionary == ("a", "b") and policy.numbers == (1, 2.5)
    assert policy.fields == ("id",) and policy.key_values == (("SK", "X#"),)
    assert hash(policy) == hash(
        DrawPolicy(
            dictionary=("a", "b"), numbers=(1, 2.5), fields=("id",), key_values=(("SK", "X#"),)
        )
    )


def test_without_a_dictionary_the_dictionary_probability_is_zero() -> None:
    assert DrawPolicy(dictionary_p=0.4).effective_dictionary_p == 0.0
    assert DrawPolicy(dictionary=("a",), dictionary_p=0.4).effective_dictionary_p == 0.4


def test_choices_read_the_policy_they_are_given() -> None:
    policy = DrawPolicy(
        dictionary=("eu",), dictionary_p=0.3, numbers=(7,), fields=("id",), edge_values=True
    )
    choices = Choices(seed=1, policy=policy)
    assert choices.policy is policy
    assert (choices.dictionary, choices.dictionary_p, choices.numbers) == (("eu",), 0.3, (7,))
    assert (choices.fields, choices.edge_values) == (("id",), True)
    assert Choices(seed=1, policy=DrawPolicy(dictionary_p=0.3)).dictionary_p == 0.0
    assert Choices().policy == DrawPolicy()


def test_the_policy_is_recorded_under_campaign_json_s_six_keys() -> None:
    policy = DrawPolicy(
        dictionary=("eu", "apac"),
        dictionary_p=0.25,
        numbers=(2008, 1.5),
        fields=("region",),
        key_values=(("SK", "PROFILE"),),
        edge_values=True,
    )
    data = policy.to_json()
    assert list(data) == list(SIX)
    # the bytes campaign.json has always held for these values
    assert json.dumps(data) == (
        '{"dictionary": ["eu", "apac"], "dictionary_p": 0.25, "numbers": [2008, 1.5], '
        '"fields": ["region"], "key_values": [["SK", "PROFILE"]], "edge_values": true}'
    )
    assert DrawPolicy.from_json(json.loads(json.dumps(data))) == policy


def test_an_older_campaign_json_reads_as_the_campaign_ran() -> None:
    assert DrawPolicy.from_json({}) == DrawPolicy()
    assert DrawPolicy.from_json({"dictionary": None, "seed": 3}) == DrawPolicy()
    odd = {
        "dictionary": ["a", 1],
        "numbers": [1, True, "2", 2.5],
        "fields": ["id", 3],
        "key_values": [["SK", "X"], ["PK"], ["a", 1], "ab"],
        "edge_values": 1,
    }
    assert DrawPolicy.from_json(odd) == DrawPolicy(
        dictionary=("a", "1"),
        numbers=(1, 2.5),
        fields=("id",),
        key_values=(("SK", "X"),),
        edge_values=True,
    )
