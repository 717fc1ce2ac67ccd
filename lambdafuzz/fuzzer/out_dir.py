"""Reading a campaign's out dir back: what CI outputs, the HTML report and the pytest
plugin all start from.

The engine writes `campaign.json`, `stats.json`, `plot_data.csv`, `coverage.json`,
`corpus/` and `failures/`; a later `lambdafuzz minimize` adds `NAME.min.json` beside a
failure.  Every reader tolerates a campaign that was interrupted: a missing file is an
empty section, an unreadable one is listed in `problems`, never raised.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdafuzz.errors import ConfigError, CorpusError
from lambdafuzz.fuzzer.corpus import SavedInput, load_input
from lambdafuzz.model.target import Target

MIN_SUFFIX = ".min.json"


@dataclass(slots=True, frozen=True)
class FailureEntry:
    """One unique failure of a campaign, as saved in `failures/`."""

    path: Path
    saved: SavedInput
    minimized: Path | None  # NAME.min.json beside it, written by `lambdafuzz minimize`

    @property
    def info(self) -> Mapping[str, Any]:
        return self.saved.failure or {}

    @property
    def signature(self) -> str:
        return str(self.info.get("signature") or self.saved.name)

    @property
    def exception_type(self) -> str:
        return str(self.info.get("exception_type") or "Failure")

    @property
    def message(self) -> str:
        return str(self.info.get("message") or "")

    @property
    def traceback(self) -> str:
        return str(self.info.get("traceback") or "")

    @property
    def location(self) -> str:
        return str(self.info.get("location") or "")

    @property
    def hits(self) -> int:
        return int(self.info.get("hits") or 1)


@dataclass(slots=True, frozen=True)
class PlotRow:
    time_s: float
    execs: int
    branches: int
    valid_branches: int
    corpus: int
    failures: int


@dataclass(slots=True, frozen=True)
class CampaignDir:
    path: Path
    campaign: Mapping[str, Any]  # campaign.json ({} when missing)
    stats: Mapping[str, Any]  # stats.json ({} when missing)
    failures: tuple[FailureEntry, ...]
    problems: tuple[str, ...]  # files that could not be read

    @property
    def handler(self) -> str:
        return str(self.campaign.get("handler") or "handler")


def _json(path: Path, problems: list[str]) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"{path}: unreadable: {exc}")
        return {}
    return data if isinstance(data, dict) else {}


def read_campaign_dir(out_dir: Path | str) -> CampaignDir:
    """The campaign in `out_dir`; failures sorted by signature."""
    out = Path(out_dir)
    problems: list[str] = []
    campaign = _json(out / "campaign.json", problems)
    stats = _json(out / "stats.json", problems)
    failures = []
    folder = out / "failures"
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name.endswith(MIN_SUFFIX):
            continue
        try:
            saved = load_input(path)
        except CorpusError as exc:
            problems.append(str(exc))
            continue
        minimized = path.with_name(path.name.removesuffix(".json") + MIN_SUFFIX)
        failures.append(FailureEntry(path, saved, minimized if minimized.is_file() else None))
    failures.sort(key=lambda f: f.signature)
    return CampaignDir(out, campaign, stats, tuple(failures), tuple(problems))


def read_plot_rows(out_dir: Path | str) -> list[PlotRow]:
    """plot_data.csv as rows; bad lines (a campaign killed mid-write) are skipped."""
    path = Path(out_dir) / "plot_data.csv"
    if not path.is_file():
        return []
    rows = []
    with path.open(newline="", encoding="utf-8") as fh:
        for raw in csv.DictReader(fh):
            try:
                rows.append(
                    PlotRow(
                        time_s=float(raw["time_s"]),
                        execs=int(raw["execs"]),
                        branches=int(raw["branches"]),
                        valid_branches=int(raw["valid_branches"]),
                        corpus=int(raw["corpus"]),
                        failures=int(raw["failures"]),
                    )
                )
            except (KeyError, TypeError, ValueError):
                continue
    return rows


def read_coverage(out_dir: Path | str) -> dict[str, Any]:
    """coverage.json ({"app_branches_total": 0, "covered": []} when missing)."""
    data = _json(Path(out_dir) / "coverage.json", [])
    data.setdefault("app_branches_total", 0)
    data.setdefault("covered", [])
    return data


def campaign_target(
    campaign: CampaignDir, config: Path | None = None, function: str | None = None
) -> Target:
    """The Target a campaign ran against: `config` when given, else the config path that
    campaign.json records (a SAM template's function as `campaign_function` finds it)."""
    from lambdafuzz.config import load_config
    from lambdafuzz.config.sam import is_template, load_template

    path = config or _config_path(campaign)
    if path.is_file() and is_template(path):
        return load_template(path, function or campaign_function(campaign, path)).target
    return load_config(path)


def campaign_function(campaign: CampaignDir, template: Path | None = None) -> str | None:
    """For a campaign over a SAM template: campaign.json's `function`, else the out dir's
    name (`fuzz template.yaml` writes `OUT/<Function>/`), else the function whose handler
    campaign.json names.  None for a lambdafuzz.yaml."""
    from lambdafuzz.config.sam import function_for_handler, is_template, template_functions

    path = template or _config_path(campaign)
    if not (path.is_file() and is_template(path)):
        return None
    if campaign.campaign.get("function"):
        return str(campaign.campaign["function"])
    if campaign.path.name in template_functions(path).fuzzable:
        return campaign.path.name
    return function_for_handler(path, campaign.handler)


def reproduce_command(campaign: CampaignDir, input_path: Path, command: str = "repro") -> str:
    """The `lambdafuzz repro` (or `minimize`) line for a saved input of this campaign."""
    try:
        function = campaign_function(campaign)
    except ConfigError:
        function = None
    suffix = f" --function {function}" if function else ""
    return f"lambdafuzz {command} {input_path}{suffix}"


def _config_path(campaign: CampaignDir) -> Path:
    if not campaign.campaign.get("config"):
        raise ConfigError(
            f"{campaign.path}: campaign.json does not say which config the campaign used; "
            f"expected a campaign.json with `config` (or pass the config explicitly)."
        )
    path = Path(campaign.campaign["config"])
    if not path.exists():
        raise ConfigError(f"{path}: the campaign's config does not exist any more.")
    return path


def offline_event(saved: SavedInput, target: Target) -> tuple[Any, str]:
    """The event of a saved input and where it came from: the file's own copy, else
    regenerated from the choice sequence (generation is pure) and rendered without an
    emulator, so queue receipt handles and message ids are placeholders."""
    if saved.event is not None:
        return saved.event, "saved"
    import hashlib
    import uuid

    from lambdafuzz.generators.aws.world_generator import generate_input
    from lambdafuzz.generators.core import Choices, ReplayMode
    from lambdafuzz.model.world import DeliveredMessage, LoadedWorld

    choices = Choices(saved.sequence.values(), seed=0, mode=ReplayMode.LINEAR, dictionary=())
    try:
        generated = generate_input(choices, target)
        messages = {
            queue.name: tuple(
                DeliveredMessage(
                    message_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{queue.name}/{i}")),
                    receipt_handle=f"offline-receipt-{i}",
                    md5_of_body=hashlib.md5(m.body.encode()).hexdigest(),  # noqa: S324 - SQS's own
                    body=m.body,
                    sent_timestamp_ms=0,
                    attributes=m.attributes,
                )
                for i, m in enumerate(queue.messages)
            )
            for queue in generated.world.queues
        }
        return generated.render_event(
            LoadedWorld(generated.world, messages=messages)
        ), "regenerated"
    except Exception as exc:  # noqa: BLE001 - a report must render whatever a generator does
        return None, f"could not regenerate the event: {type(exc).__name__}: {exc}"
