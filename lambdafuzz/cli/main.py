"""The `lambdafuzz` command line.  Subcommands live in their own modules and are
imported lazily so that `lambdafuzz --help` stays instant."""

from __future__ import annotations

import importlib

import click

from lambdafuzz import __version__

#: subcommand name -> "module:attribute" of its click command
SUBCOMMANDS: dict[str, str] = {
    "fuzz": "lambdafuzz.cli.fuzz:fuzz",
    "repro": "lambdafuzz.cli.repro:repro",
    "minimize": "lambdafuzz.cli.minimize:minimize",
    "corpus": "lambdafuzz.cli.corpus:corpus",
    "sample": "lambdafuzz.cli.sample:sample",
    "analyze": "lambdafuzz.cli.analyze:analyze",
    "init": "lambdafuzz.cli.init:init",
    "report": "lambdafuzz.cli.report:report",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *SUBCOMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in SUBCOMMANDS:
            module_name, attr = SUBCOMMANDS[cmd_name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, cmd_name)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Example: lambdafuzz fuzz benchmarks/lambdas/gradebook --time 30 --out out/",
)
@click.version_option(__version__, prog_name="lambdafuzz")
def cli() -> None:
    """Generator-based, coverage-guided fuzzing for Python AWS Lambda handlers."""


def main() -> None:
    from lambdafuzz.cli import interrupt

    interrupt.install()  # Ctrl-C at any moment: exit 130 within a second (cli/interrupt.py)
    try:
        cli(prog_name="lambdafuzz")
    except BaseException:
        # `Interrupted`; the command's exit; or an error a library raised while the
        # interruption passed through it (libcst's position tracking turns it into a
        # KeyError): stopped by Ctrl-C, whatever the command said
        if not interrupt.received():
            raise
        interrupt.exit_interrupted()
    finally:
        interrupt.finish()
