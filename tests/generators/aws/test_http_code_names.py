"""Without a route table, HTTP requests name some of their path parameters, query
parameters and extra headers after the names the code reads its input by."""

from __future__ import annotations

from lambdafuzz.generators.aws.http_events import CODE_NAME_P, draw_request
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.target import Route

FIELDS = ("orderId", "limit", "X-Tenant")
DRAWS = 400


def _requests(fields: tuple[str, ...], routes: tuple[Route, ...] = ()) -> list:
    return [
        draw_request(
            Choices((), seed=seed, policy=DrawPolicy(fields=fields)), version="1.0", body_format=None, local=(),
            routes=routes,
        )
        for seed in range(DRAWS)
    ]  # fmt: skip


def test_code_names_appear_in_paths_queries_and_headers() -> None:
    assert 0 < CODE_NAME_P < 1
    requests = _requests(FIELDS)
    path_names = {name for r in requests for name, _ in r.path_parameters}
    query_names = {name for r in requests for name, _ in r.query}
    header_names = {name for r in requests for name, _ in r.headers}
    assert set(FIELDS) <= path_names
    assert set(FIELDS) <= query_names
    assert set(FIELDS) <= header_names
    # a path parameter is in the path as the template says
    for r in requests:
        for name, _ in r.path_parameters:
            assert "{" + name + "}" in r.resource or "{" + name + "+}" in r.resource


def test_without_code_names_nothing_changes_and_none_appear() -> None:
    plain = _requests(())
    names = {n for r in plain for pairs in (r.path_parameters, r.query) for n, _ in pairs}
    assert not {"orderId", "limit"} & names
    # the draws without fields are the ones made before code names existed: same seed,
    # same request (a field-less generator draws no extra choice)
    again = _requests(())
    assert plain == again


def test_a_route_table_names_the_path_parameters() -> None:
    route = Route(method="GET", path="/orders/{id}")
    for request in _requests(FIELDS, (route,)):
        assert [name for name, _ in request.path_parameters] == ["id"]
