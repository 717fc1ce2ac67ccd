"""An API handler configured without a template (`order_lookup/`): no route names its path
parameter, so only the code says that it reads `event["pathParameters"]["orderId"]`.  Path
parameters, query parameters and extra headers are now and then named after the names the
code reads its input by (`http_events.CODE_NAME_P`), and the value of a path parameter
reuses the world's item keys, so a seeded campaign finds the order and gets past it to a
body that is JSON but not an object.  Before code names, campaigns of seeds 0-2 at 3,000
executions covered 2 of 10 branches and found nothing (the request never carried an
`orderId`); seeds 0-3 at this budget all get to the body now."""

from __future__ import annotations

from pathlib import Path

from handler_lines import line_of

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure

ORDER_LOOKUP = Path(__file__).parent / "order_lookup"
HANDLER = ORDER_LOOKUP / "orders" / "lookup.py"
EXECS = 1500
SEED = 0


def test_a_campaign_finds_the_order_named_by_a_path_parameter_no_route_names(
    tmp_path: Path,
) -> None:
    target = load_target(ORDER_LOOKUP, warn=False)
    assert not target.trigger.routes
    engine = build_engine(target, out_dir=tmp_path, seed=SEED, max_execs=EXECS)
    events = list(engine.run())
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    failures = [e.record.info for e in events if isinstance(e, NewFailure)]
    body = f"orders/lookup.py:{line_of(HANDLER, 'request.get("cancel")')}"
    assert body in {info.location for info in failures}, failures
    assert all(
        info.exception_type == "AttributeError" for info in failures
    )  # 'list' has no 'get', ...
    assert finished.stats.app_branches_covered >= 8
