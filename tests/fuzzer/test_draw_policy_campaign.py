"""The campaign's draw policy (`DrawPolicy`) made once and passed whole: `campaign.json`
keeps its six keys where the options' fields stood, an out dir written before keeps
resuming with its own policy first, and replay takes the recorded policy (issue 41)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from lambdafuzz.config import load_target
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, Notice
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import CAMPAIGN_FILE, OutDir
from lambdafuzz.fuzzer.replay import Replayer
from lambdafuzz.generators.draw_policy import DrawPolicy

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmarks" / "lambdas" / "gradebook"
SIX = ["dictionary", "dictionary_p", "numbers", "fields", "key_values", "edge_values"]
POLICY = DrawPolicy(
    dictionary=("A1",), numbers=(60,), fields=("Grade",), key_values=(("k", "v"),), edge_values=True
)


def test_campaign_json_holds_the_policy_s_keys_where_its_fields_stood(tmp_path: Path) -> None:
    options = CampaignOptions(target=load_target(GRADEBOOK), out_dir=tmp_path, policy=POLICY)
    data = options.recorded_options()
    keys = list(data)
    at = keys.index("seed_corpora") + 1
    assert keys[at : at + 6] == SIX and keys[at + 6] == "size_schedule"
    assert "policy" not in data
    assert {k: data[k] for k in SIX} == {
        "dictionary": ["A1"],
        "dictionary_p": 0.1,
        "numbers": [60],
        "fields": ["Grade"],
        "key_values": [["k", "v"]],
        "edge_values": True,
    }


def _run(out: Path, execs: int) -> tuple[CampaignOptions, list[Notice]]:
    engine = build_engine(
        load_target(GRADEBOOK), out_dir=out, strategy="zest-strings", seed=3, max_execs=execs
    )
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    return engine.options, [e for e in events if isinstance(e, Notice)]


def test_a_resumed_out_dir_keeps_its_recorded_policy_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first, _ = _run(out, 10)
    assert first.policy.dictionary  # zest-strings: the analysis' strings
    # an earlier run's campaign.json (the six keys, as every release wrote them) whose
    # tables differ from this run's: its entries must keep their indexes
    path = out / CAMPAIGN_FILE
    data = json.loads(path.read_text())
    data["dictionary"] = ["earlier-word", *data["dictionary"]]
    data["numbers"] = [4242]
    data["key_values"] = [["StudentID", "S#"]]
    path.write_text(json.dumps(data))
    resumed, notices = _run(out, 15)
    policy = resumed.policy
    assert policy.dictionary == ("earlier-word", *first.policy.dictionary)
    assert policy.numbers[0] == 4242 and policy.key_values[0] == ("StudentID", "S#")
    assert any(n.slug == "dictionary-kept" for n in notices), notices
    meta = OutDir(out).read_meta()
    assert meta is not None and meta.policy == policy and meta.dictionary_recorded


def test_replay_takes_the_recorded_policy_or_the_config_s_dictionary(tmp_path: Path) -> None:
    target = replace(load_target(GRADEBOOK), dictionary=("from-config",))
    options = CampaignOptions(target=target, out_dir=tmp_path, policy=POLICY)
    data = options.recorded_options()
    path = tmp_path / CAMPAIGN_FILE
    path.write_text(json.dumps(data))
    meta = OutDir(tmp_path).read_meta()
    assert meta is not None and meta.policy == POLICY
    assert Replayer.for_campaign(target, meta).policy == POLICY
    # a campaign.json older than the recorded dictionary: the config's, the rest as recorded
    del data["dictionary"]
    path.write_text(json.dumps(data))
    older = OutDir(tmp_path).read_meta()
    assert older is not None and not older.dictionary_recorded
    replayed = Replayer.for_campaign(target, older).policy
    assert replayed.dictionary == ("from-config",) and replayed.numbers == POLICY.numbers
    # no campaign.json at all: the config's dictionary and nothing else
    assert Replayer.for_campaign(target, None).policy == DrawPolicy(dictionary=("from-config",))
