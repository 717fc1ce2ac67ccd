"""Code targets: every kind of branch, both arms, conditions and ids."""

from __future__ import annotations

from analysis_support import AnalyzeT

from lambdafuzz.analysis import TargetKind

ALL_KINDS = """\
def handler(event, context):
    x = event["n"]
    if x > 1:
        y = 1
    elif x < -5:
        y = 2
    else:
        y = 3
    while y < 10:
        y += 1
    while True:
        break
    for i in event["items"]:
        y += i
    z = 5 if x else 6
    ok = x and y
    w = [a for a in event["items"] if a > 2]
    try:
        int(x)
    except ValueError:
        z = 1
    except:
        z = 2
    match x:
        case 1:
            z = 3
        case _:
            z = 4
    return y, z, w, ok
"""


def _kinds(result) -> dict[tuple[int, str], set[str]]:
    out: dict[tuple[int, str], set[str]] = {}
    for t in result.targets:
        out.setdefault((t.line, t.kind.value), set()).add(t.arm)
    return out


def test_every_branch_construct_has_both_arms(analyze_app: AnalyzeT):
    result = analyze_app(ALL_KINDS)
    kinds = _kinds(result)
    expected = {
        (3, "if"),
        (5, "elif"),
        (9, "while"),
        (13, "for"),
        (15, "ifexp"),
        (16, "boolop"),
        (17, "for"),  # the comprehension's loop
        (17, "comprehension"),
        (20, "except"),
        (25, "match"),
    }
    assert set(kinds) == expected
    assert all(arms == {"true", "false"} for arms in kinds.values())


def test_constant_loops_bare_except_and_wildcard_case_are_not_branches(analyze_app: AnalyzeT):
    result = analyze_app(ALL_KINDS)
    lines = {t.line for t in result.targets}
    assert 11 not in lines  # while True
    assert 22 not in lines  # bare except
    assert 27 not in lines  # case _


def test_target_fields(analyze_app: AnalyzeT):
    result = analyze_app(ALL_KINDS)
    by_id = {t.id: t for t in result.targets}
    assert len(by_id) == len(result.targets)  # ids are unique
    t = next(t for t in result.targets if t.kind is TargetKind.IF and t.arm == "true")
    assert t.condition == "x > 1"
    assert t.module == "app.handler"
    assert t.function == "handler"
    assert t.file.endswith("app/handler.py")
    assert t.id == "app.handler:3:4:if:0:true"
    match = next(t for t in result.targets if t.kind is TargetKind.MATCH)
    assert match.condition == "case 1"
    assert match.index == 0
    exc = next(t for t in result.targets if t.kind is TargetKind.EXCEPT)
    assert exc.condition == "except ValueError"


def test_boolean_chains_give_one_target_per_short_circuit(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        def handler(event, context):
            a, b, c = event["a"], event["b"], event["c"]
            if a and b and c:
                return 1
            return a or (b and c)
        """
    )
    ops = sorted(
        (t.line, t.index, t.condition)
        for t in result.targets
        if t.kind is TargetKind.BOOLOP and t.arm == "true"
    )
    # `a and b and c`: a and b can short-circuit (c is the if's own jump);
    # `a or (b and c)`: a, then b inside the parenthesised chain
    assert ops == [(3, 0, "a"), (3, 1, "b"), (5, 0, "a"), (5, 0, "b")]


def test_nested_functions_and_methods_are_named(analyze_app: AnalyzeT):
    result = analyze_app(
        """\
        class Worker:
            def run(self, item):
                if item:
                    return 1

        def handler(event, context):
            def inner(v):
                if v:
                    return v
            return inner(event)
        """
    )
    functions = {t.function for t in result.targets}
    assert functions == {"Worker.run", "handler.<locals>.inner"}
