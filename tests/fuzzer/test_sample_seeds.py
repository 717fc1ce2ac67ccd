"""Sample events as seeds: found, checked against the trigger, run first, kept in corpus/."""

from __future__ import annotations

import json
import logging
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_config
from lambdafuzz.config.sam import load_template
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, Notice
from tests.fixtures.sam import template_text

# the branch needs the sample's token: its hash, which no generator or dictionary inverts
HANDLER = """
import hashlib


def handler(event, context):
    token = event["token"]
    digest = hashlib.sha256(str(token).encode()).hexdigest()
    if digest.startswith("{prefix}"):
        return {{"path": "partner"}}
    return {{"path": "public"}}
"""
SAMPLE = {"token": "partner-7f3a-2291", "amount": 12}
API_SAMPLE = {"httpMethod": "GET", "path": "/", "requestContext": {"stage": "prod"}}


def write_project(tmp_path: Path, config: str) -> Path:
    import hashlib

    prefix = hashlib.sha256(SAMPLE["token"].encode()).hexdigest()[:12]
    (tmp_path / "app.py").write_text(HANDLER.format(prefix=prefix))
    events = tmp_path / "events"
    events.mkdir()
    (events / "partner.json").write_text(json.dumps(SAMPLE, indent=2))
    (events / "api.json").write_text(json.dumps(API_SAMPLE))  # no direct payload: skipped
    path = tmp_path / "lambdafuzz.yaml"
    path.write_text(textwrap.dedent(config))
    return path


def test_a_seeded_campaign_reaches_the_samples_branch_first_and_saves_it(tmp_path, caplog):
    config = write_project(tmp_path, "handler: app.handler\ntrigger: direct\nseeds: [events/]\n")
    with caplog.at_level(logging.WARNING):
        target = load_config(config)
    assert [s.name for s in target.samples] == ["partner"]
    assert "api.json: skipped" in caplog.text and "API Gateway" in caplog.text
    out = tmp_path / "out"
    engine = build_engine(target, out_dir=out, seed=0, max_execs=30, strategy="zest")
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    saved = json.loads((out / "corpus" / "seed-event-partner.json").read_text())
    assert saved["event"] == SAMPLE  # the handler saw exactly the sample
    assert "partner" in saved["return_value"] and saved["exec"] == 1
    assert saved["provenance"].startswith("seed:seed-event-partner")
    assert not [e for e in events if isinstance(e, Notice) and e.slug == "corpus-corrupt"]


def test_a_sam_templates_events_folder_is_picked_up(tmp_path, caplog):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def handler(event, context):\n    return 1\n")
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "job.json").write_text(json.dumps(SAMPLE))
    (tmp_path / "events" / "api.json").write_text(json.dumps(API_SAMPLE))
    (tmp_path / "template.yaml").write_text(template_text("sample_seeds", "job_function"))
    with caplog.at_level(logging.WARNING):  # the CLI shows these lines on stderr
        result = CliRunner().invoke(
            cli,
            ["fuzz", str(tmp_path / "template.yaml"), "--execs", "3", "--out", str(tmp_path / "o")],
        )
    assert result.exit_code == 0, result.output
    assert "JobFunction: 1 sample event(s)" in caplog.text and "first inputs: job" in caplog.text
    assert "api.json: skipped" in caplog.text
    assert (tmp_path / "o" / "JobFunction" / "corpus" / "seed-event-job.json").is_file()
    assert load_template(tmp_path / "template.yaml").target.samples[0].name == "job"


def test_seed_corpus_folders_take_sample_events(tmp_path):
    config = write_project(tmp_path, "handler: app.handler\ntrigger: direct\n")
    assert load_config(config).samples == ()  # no seeds: key, no samples
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        ["fuzz", str(config), "--execs", "5", "--out", str(out), "--seed-corpus",
         str(tmp_path / "events")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "corrupt" not in result.output
    saved = json.loads((out / "corpus" / "seed-event-partner.json").read_text())
    assert "partner" in saved["return_value"]
    campaign = json.loads((out / "campaign.json").read_text())
    assert campaign["samples"] == [{"name": "partner", "event": json.dumps(SAMPLE)}]
    replayed = CliRunner().invoke(cli, ["repro", str(out / "corpus" / "seed-event-partner.json")])
    assert "partner" in replayed.output, replayed.output


def test_broken_sample_json_is_an_error_when_named_and_a_warning_in_a_folder(tmp_path, caplog):
    config = write_project(
        tmp_path, "handler: app.handler\ntrigger: direct\nseeds: [events/broken.json]\n"
    )
    (tmp_path / "events" / "broken.json").write_text('{"token": ')
    with pytest.raises(ConfigError, match=r"broken.json: not valid JSON"):
        load_config(config)
    config.write_text("handler: app.handler\ntrigger: direct\nseeds: [events]\n")
    with caplog.at_level(logging.WARNING):
        assert [s.name for s in load_config(config).samples] == ["partner"]
    assert "broken.json: skipped: not valid JSON" in caplog.text
    config.write_text("handler: app.handler\ntrigger: direct\nseeds: [missing/]\n")
    with pytest.raises(ConfigError, match="missing: no such file or folder"):
        load_config(config)


def test_init_from_a_template_carries_its_events_folder(tmp_path):
    (tmp_path / "app" / "src").mkdir(parents=True)
    (tmp_path / "app" / "src" / "app.py").write_text("def handler(event, context):\n    return 1\n")
    (tmp_path / "app" / "events").mkdir()
    (tmp_path / "app" / "events" / "job.json").write_text(json.dumps(SAMPLE))
    template = tmp_path / "app" / "template.yaml"
    template.write_text(template_text("sample_seeds", "job_function"))
    out = tmp_path / "config" / "lambdafuzz.yaml"
    result = CliRunner().invoke(cli, ["init", "--template", str(template), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "seeds: [../app/events]" in out.read_text()
    assert [s.name for s in load_config(out).samples] == ["job"]
