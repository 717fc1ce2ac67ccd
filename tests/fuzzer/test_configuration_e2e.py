"""A SAM-deployed mailer (`report_mailer/`) that reads its batch size and recipients from
Parameter Store and its SMTP credentials from Secrets Manager. The template creates all
three; before worlds held them, every test failed with ParameterNotFound at the first
read (0 of 6 branches, 0% valid at this budget). Now the secret is the template's JSON
object with a drawn password, the batch size (a stack parameter nobody set) is drawn, and
the campaign finds what an unchecked setting does to the handler."""

from __future__ import annotations

from pathlib import Path

from handler_lines import line_of

from lambdafuzz.config.sam import load_template_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import load_input
from lambdafuzz.fuzzer.events import CampaignFinished, NewFailure
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import Choices

MAILER = Path(__file__).parent / "report_mailer"
HANDLER = MAILER / "src" / "mailer" / "handler.py"
EXECS = 500


def test_settings_and_credentials_come_from_the_world(tmp_path: Path) -> None:
    target = load_template_target(MAILER / "template.yaml", "MailerFunction")
    engine = build_engine(target, out_dir=tmp_path, seed=0, max_execs=EXECS)
    events = list(engine.run())
    finished = events[-1]
    assert isinstance(finished, CampaignFinished)
    assert finished.stats.app_branches_covered == 6  # both sides of the password check
    assert finished.stats.valid_execs >= EXECS // 10
    failures = {
        (e.record.info.exception_type, e.record.info.location)
        for e in events
        if isinstance(e, NewFailure)
    }
    not_a_number = f"mailer/handler.py:{line_of(HANDLER, 'return int(size)')}"
    zero_step = f"mailer/handler.py:{line_of(HANDLER, 'for start in range')}"
    assert ("ValueError", not_a_number) in failures, failures  # a batch size of "ten"
    assert ("ValueError", zero_step) in failures, failures  # a batch size of "0"
    assert not any("NotFound" in kind for kind, _ in failures), failures
    # what was saved loads back (its draws' sites hold the secret's and parameters' names,
    # slashes included) and regenerates the world it was found in
    saved = [load_input(path) for path in sorted((tmp_path / "failures").glob("*.json"))]
    assert len(saved) == len(failures)
    for one in saved:
        replay = Choices(one.sequence.prefix(one.mode), seed=one.seed, mode=one.mode)
        world = generate_input(replay, target).world
        assert {s.name for s in world.secrets} == {"mailer/smtp"}
        assert {p.name for p in world.parameters} == {"/mailer/batch-size", "/mailer/recipients"}
