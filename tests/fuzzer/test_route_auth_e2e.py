"""A handler behind a Cognito authorizer (`cognito_profile/`) reads the token's `sub` from
`requestContext.authorizer.claims`, which API Gateway always sends on such a route.
Before routes knew their authorizer every request lacked `authorizer`, so the campaign's
only finding was a KeyError at the claims line (a false finding) and nothing past it ran;
now no request fails there, and the `sub` that is a stored user's id (`route_auth`) gets
to the planted KeyError further down."""

from __future__ import annotations

from pathlib import Path

from handler_lines import line_of

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure

APP = Path(__file__).parent / "cognito_profile"
HANDLER = APP / "profiles" / "handler.py"
EXECS = 300


def test_a_cognito_route_never_fails_at_its_claims_and_finds_the_bug_past_them(
    tmp_path: Path,
) -> None:
    target = load_target(APP, warn=False)
    engine = build_engine(target, out_dir=tmp_path, seed=0, max_execs=EXECS)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    locations = {e.record.info.location for e in events if isinstance(e, NewFailure)}
    claims = f"profiles/handler.py:{line_of(HANDLER, 'claims = event')}"
    planted = f"profiles/handler.py:{line_of(HANDLER, 'item["displayName"]')}"
    assert claims not in locations
    assert planted in locations, locations
