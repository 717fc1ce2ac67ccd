"""What `repro`, `minimize` and `corpus replay` share: reading a saved input and finding
the campaign (target, recorded dictionary) it belongs to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from lambdafuzz.cli.exit_codes import ExitCode
from lambdafuzz.cli.options import target_from_options
from lambdafuzz.errors import ConfigError, CorpusError
from lambdafuzz.model.emulation import BackendKind

if TYPE_CHECKING:  # imported when a command runs, so `--help` stays instant
    from lambdafuzz.fuzzer.corpus import SavedInput
    from lambdafuzz.fuzzer.out_dir import CampaignDir
    from lambdafuzz.fuzzer.replay import Replayer


class InputError(click.ClickException):
    """An unreadable saved input or campaign: one `Error: ...` line and exit status 2 (a
    usage or input error), never 1, which CI reads as "failures found"."""

    exit_code = int(ExitCode.USAGE)


@dataclass(slots=True, frozen=True)
class Campaign:
    """The campaign a saved input came from, when it lives in an out dir."""

    directory: CampaignDir | None
    replayer: Replayer


def load_saved(path: Path, variant: str | None = None) -> SavedInput:
    """The saved input in `path`; with `variant`, that variant of the bug the file holds."""
    return load_variant(path, variant)[0]


def load_variant(path: Path, variant: str | None) -> tuple[SavedInput, str | None]:
    """The saved input in `path` and, with `variant`, that variant of the bug the file holds
    (`fuzzer.bugs`) with its name; an `InputError` listing the variants when there is no
    such one."""
    from lambdafuzz.fuzzer.bugs import read_bug_file
    from lambdafuzz.fuzzer.corpus import load_input

    try:
        saved = load_input(path)
    except CorpusError as exc:
        raise InputError(str(exc)) from None
    if variant is None:
        return saved, None
    bug = read_bug_file(path, saved)
    wanted = f"v{variant}" if variant.isdigit() else variant
    found = next((v for v in bug.variants if wanted in (v.name, v.signature)), None)
    if found is None:
        names = ", ".join(f"{v.name} ({v.signature})" for v in bug.variants)
        raise InputError(f"{path}: no variant {variant!r}; its variants: {names}")
    return found.saved, found.name


def describe_bug(path: Path, saved: SavedInput) -> str | None:
    """One line saying which bug and variant a saved failure is, for a bug's file with more
    than one variant; None otherwise."""
    from lambdafuzz.fuzzer.bugs import read_bug_file
    from lambdafuzz.fuzzer.corpus import load_input

    try:
        bug = read_bug_file(path, load_input(path))
    except CorpusError:
        return None
    if len(bug.variants) < 2:
        return None
    shown = next((v for v in bug.variants if v.saved.sequence == saved.sequence), None)
    which = f"variant {shown.name}" if shown is not None else "a variant"
    names = ", ".join(f"{v.name} ({v.record.hits} hits)" for v in bug.variants)
    return f"bug: {bug.key}; replaying {which} of {len(bug.variants)}: {names}"


def campaign_for(
    path: Path,
    config: Path | None,
    function_name: str | None,
    backend: BackendKind,
    endpoint: str | None,
) -> Campaign:
    """The target and replayer for a saved input (or a folder) at `path`: the target from
    --config, or from the campaign.json of the out dir holding it (which also records a
    template's function and the dictionary that replay needs; its config is taken relative
    to the out dir, so a copied project replays its own code)."""
    from lambdafuzz.config.campaign import campaign_config, campaign_target
    from lambdafuzz.fuzzer.out_dir import CAMPAIGN_FILE, OutDir, find_campaign_dir
    from lambdafuzz.fuzzer.replay import Replayer

    found = find_campaign_dir(path.resolve())
    directory = OutDir(found).read() if found is not None else None
    if config is not None:
        target = target_from_options(config, function_name)
    elif directory is not None:
        try:
            target = campaign_target(directory, function=function_name)
            note = campaign_config(directory)[1]
        except ConfigError as exc:
            why = [p for p in directory.problems if CAMPAIGN_FILE in p]
            raise InputError(" ".join([str(exc), *why])) from None
        if note is not None:
            click.echo(f"lambdafuzz: note: {note}", err=True)
    else:
        raise click.UsageError(
            f"cannot tell which config {path} belongs to: pass --config "
            "(campaign.json was not found in its directory or above)"
        )
    meta = directory.meta if directory is not None else None
    replayer = Replayer.for_campaign(target, meta, backend=backend, endpoint=endpoint)
    return Campaign(directory, replayer)


def start(replayer: Replayer) -> None:
    """Start the replay worker, a handler that cannot be imported as a usage error."""
    from lambdafuzz.errors import BackendError, HandlerImportError

    try:
        replayer.pool  # noqa: B018 - starts the worker
    except (HandlerImportError, BackendError) as exc:
        raise click.UsageError(str(exc)) from exc
