"""`lambdafuzz report DIR`: write a campaign's self-contained `report.html`."""

from __future__ import annotations

from pathlib import Path

import click

from lambdafuzz.cli.options import config_errors_as_usage, config_option, function_option


def _campaign_dirs(directory: Path) -> list[Path]:
    """DIR itself when it is a campaign; else its campaign subdirectories (what
    `lambdafuzz fuzz template.yaml` writes: one per function)."""
    if (directory / "campaign.json").is_file() or (directory / "stats.json").is_file():
        return [directory]
    return sorted(p for p in directory.iterdir() if p.is_dir() and (p / "campaign.json").is_file())


@click.command(
    epilog="""Examples:

\b
  lambdafuzz report out/
  lambdafuzz report out/ --output public/fuzz.html
  lambdafuzz report out/ --config app/lambdafuzz.yaml
"""
)
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the page (default: DIR/report.html).",
)
@config_option
@function_option
def report(
    directory: Path, output: Path | None, config: Path | None, function_name: str | None
) -> None:
    """Write DIR/report.html: coverage plot, annotated source, failures and statistics.

    The page loads nothing from the network; open it in any browser or keep it as a CI
    artifact.
    """
    from lambdafuzz.config.campaign import campaign_target
    from lambdafuzz.fuzzer.out_dir import read_campaign_dir
    from lambdafuzz.report.html import write_report

    dirs = _campaign_dirs(directory)
    if not dirs:
        raise click.UsageError(
            f"{directory} holds no campaign (no campaign.json or stats.json); expected the --out "
            f"directory of `lambdafuzz fuzz`"
        )
    if output is not None and len(dirs) > 1:
        raise click.UsageError(
            f"{directory} holds {len(dirs)} campaigns ({', '.join(d.name for d in dirs)}); "
            f"--output names one file, so give one campaign directory"
        )
    for campaign_dir in dirs:
        campaign = read_campaign_dir(campaign_dir)
        for problem in campaign.problems:  # also listed in the page's summary
            click.echo(f"lambdafuzz: warning [corpus-corrupt]: skipped {problem}", err=True)
        target = None
        if config is not None or function_name is not None:
            with config_errors_as_usage():
                target = campaign_target(campaign, config, function_name)
        written = write_report(campaign_dir, output, target)
        click.echo(f"wrote {written}")
