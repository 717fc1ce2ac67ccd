"""The Target a saved campaign ran against, found from its out dir's `campaign.json`.

Lives with the config loaders because it reads the user's config again (a fixed handler is
replayed as it is now); the out dir itself only records the config's path and function.
The path is relative to the out dir, so a project copied (or checked out) elsewhere with its
out dir replays that copy's config and code; the absolute path the campaign was fuzzed from
is the fallback, and the only path older campaign.json files have.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from lambdafuzz.config import load_target, resolve_config
from lambdafuzz.config.samconfig import active_overrides, overriding
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.out_dir import CampaignDir
from lambdafuzz.model.target import SampleEvent, Target


def campaign_target(
    campaign: CampaignDir, config: Path | None = None, function: str | None = None
) -> Target:
    """The Target a campaign ran against: `config` when given, else the config that
    campaign.json records, as it is now (a SAM template's function as `campaign_function`
    finds it)."""
    path = config or campaign_config(campaign)[0]
    recorded = campaign.meta.parameter_overrides if campaign.meta is not None else ()
    # the campaign's --parameter-overrides, unless this command gives its own
    with overriding(dict(recorded) if recorded and not active_overrides() else active_overrides()):
        target = load_target(path, function or campaign_function(campaign, path), warn=False)
    if campaign.meta is not None and campaign.meta.samples:
        # the sample events the campaign ran with: its seeds' descendants walk them
        samples = tuple(SampleEvent(name, text) for name, text in campaign.meta.samples)
        target = replace(target, samples=samples)
    return target


def campaign_function(campaign: CampaignDir, template: Path | None = None) -> str | None:
    """For a campaign over a SAM template: campaign.json's `function`, else the out dir's
    name (`fuzz template.yaml` writes `OUT/<Function>/`), else the function whose handler
    campaign.json names.  None for a lambdafuzz.yaml."""
    from lambdafuzz.config.sam import function_for_handler, template_functions
    from lambdafuzz.config.sam_template import is_template

    path = resolve_config(template or campaign_config(campaign)[0])
    if not (path.is_file() and is_template(path)):
        return None
    if campaign.meta is not None and campaign.meta.function:
        return campaign.meta.function
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


def campaign_config(campaign: CampaignDir) -> tuple[Path, str | None]:
    """The config file of a campaign and, when it is not where campaign.json says relative
    to the out dir, a note saying which one is used instead: the config relative to the
    out dir first (a copied project replays its own code), then the absolute path it was
    fuzzed from.  A `ConfigError` naming every place looked at when none exists."""
    meta = campaign.meta
    if meta is None or not (meta.config or meta.config_absolute):
        raise ConfigError(
            f"{campaign.path}: campaign.json does not say which config the campaign used; "
            f"expected a campaign.json with `config` (or pass the config explicitly)."
        )
    candidates = meta.config_candidates(campaign.path)
    for number, path in enumerate(candidates):
        if path.exists():
            note = None
            if number:
                note = (
                    f"{candidates[0]} ({meta.config} relative to {campaign.path}) does not "
                    f"exist; replaying against {path}, where the campaign was fuzzed from"
                )
            return path, note
    if len(candidates) == 1:
        raise ConfigError(f"{candidates[0]}: the campaign's config does not exist any more.")
    raise ConfigError(
        f"{campaign.path}: the campaign's config does not exist: not at {candidates[0]} "
        f"({meta.config} relative to the out dir) nor at {candidates[1]} (where it was "
        f"fuzzed from); copy the out dir together with its project, or pass the config "
        f"explicitly."
    )
