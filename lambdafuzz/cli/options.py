"""Command-line options shared by several commands, defined once (click style)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

DecoratorT = Callable[[Callable[..., Any]], Callable[..., Any]]


def sample_options(what: str, *, default_count: int, out_help: str) -> DecoratorT:
    """--count, --seed and --out for the `sample` commands that write `what`s."""

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option(
            "--out",
            "-o",
            "out",
            type=click.Path(file_okay=False, writable=True, path_type=Path),
            required=True,
            help=out_help,
        )(fn)
        fn = click.option(
            "--seed",
            "-s",
            type=int,
            default=0,
            show_default=True,
            help=f"Seed; {what} i uses a seed derived from it and i.",
        )(fn)
        return click.option(
            "--count",
            "-n",
            type=click.IntRange(min=1),
            default=default_count,
            show_default=True,
            help=f"How many {what}s to write.",
        )(fn)

    return decorate
