"""The Target a saved campaign ran against, found from its out dir's `campaign.json`.

Lives with the config loaders because it reads the user's config again (a fixed handler is
replayed as it is now); the out dir itself only records the config's path and function.
"""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.config import load_target
from lambdafuzz.errors import ConfigError
from lambdafuzz.fuzzer.out_dir import CampaignDir
from lambdafuzz.model.target import Target


def campaign_target(
    campaign: CampaignDir, config: Path | None = None, function: str | None = None
) -> Target:
    """The Target a campaign ran against: `config` when given, else the config path that
    campaign.json records (a SAM template's function as `campaign_function` finds it)."""
    path = config or _config_path(campaign)
    return load_target(path, function or campaign_function(campaign, path), warn=False)


def campaign_function(campaign: CampaignDir, template: Path | None = None) -> str | None:
    """For a campaign over a SAM template: campaign.json's `function`, else the out dir's
    name (`fuzz template.yaml` writes `OUT/<Function>/`), else the function whose handler
    campaign.json names.  None for a lambdafuzz.yaml."""
    from lambdafuzz.config.sam import function_for_handler, template_functions
    from lambdafuzz.config.sam_template import is_template

    path = template or _config_path(campaign)
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


def _config_path(campaign: CampaignDir) -> Path:
    if campaign.meta is None or not campaign.meta.config:
        raise ConfigError(
            f"{campaign.path}: campaign.json does not say which config the campaign used; "
            f"expected a campaign.json with `config` (or pass the config explicitly)."
        )
    path = Path(campaign.meta.config)
    if not path.exists():
        raise ConfigError(f"{path}: the campaign's config does not exist any more.")
    return path
