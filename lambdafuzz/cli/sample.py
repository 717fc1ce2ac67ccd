"""`lambdafuzz sample`: write generated inputs to a directory so a user can look at them.

`sample files FORMAT` writes files, `sample world CONFIG` worlds with their events;
`lambdafuzz sample csv ...` (a format name where a subcommand is expected) is routed to
`files`, which is the spelling the docs use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from lambdafuzz.cli.options import sample_options, sample_seed
from lambdafuzz.cli.sample_world import world
from lambdafuzz.generators.draw_policy import DrawPolicy

EPILOG = """\b
Examples:
  lambdafuzz sample csv --count 20 --seed 1 --out samples/
  lambdafuzz sample image,zip --count 50 --out samples/ --erroneous 0.1
  lambdafuzz sample files any --count 100 --out samples/
"""


def _formats(value: str) -> tuple[str, ...] | None:
    """The format names in a comma-separated list, or None if any is unknown."""
    from lambdafuzz.generators.files import FORMATS

    names = tuple(part.strip() for part in value.split(",") if part.strip())
    return names if names and all(name in FORMATS for name in names) else None


class SampleGroup(click.Group):
    """Routes `sample FORMAT ...` to `sample files FORMAT ...`."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands:
            if _formats(args[0]) is not None:
                args = ["files", *args]
            elif not args[0].startswith("-"):
                from lambdafuzz.generators.files import FORMATS

                ctx.fail(
                    f"{args[0]!r} is neither a file format ({', '.join(FORMATS)}; "
                    f"comma-separate several) nor a command ({', '.join(sorted(self.commands))})"
                )
        return super().resolve_command(ctx, args)


@click.group(
    cls=SampleGroup,
    subcommand_metavar="FORMAT [OPTIONS] | COMMAND [ARGS]...",
    epilog=EPILOG,
)
def sample() -> None:
    """Write generated inputs to a directory (FORMAT is short for `files FORMAT`)."""


def _check_formats(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    names = _formats(value)
    if names is None:
        from lambdafuzz.generators.files import FORMATS

        raise click.BadParameter(
            f"{value!r}: expected one of {', '.join(FORMATS)} (comma-separate several)"
        )
    return names


@sample.command("files", epilog=EPILOG)
@click.argument("format_", metavar="FORMAT", callback=_check_formats)
@sample_options(
    "file",
    default_count=10,
    out_help="Directory to write the files and index.json to (created if missing).",
)
@click.option(
    "--erroneous",
    type=click.FloatRange(0.0, 1.0),
    default=0.003,
    show_default=True,
    help="Probability that a file is deliberately broken (0 disables).",
)
@click.option(
    "--dictionary",
    "-d",
    "words",
    multiple=True,
    help="A constant string for string draws; repeatable.",
)
def files(
    format_: tuple[str, ...],
    count: int,
    seed: int,
    out: Path,
    erroneous: float,
    words: tuple[str, ...],
    edge: bool,
) -> None:
    """Write COUNT generated files of FORMAT plus an index.json describing them."""
    from lambdafuzz.atomic_files import write_bytes_atomic
    from lambdafuzz.generators.core import Choices
    from lambdafuzz.generators.files import draw_file

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise click.FileError(str(out), hint=str(e)) from e
    width = max(4, len(str(count - 1)))
    policy = DrawPolicy(dictionary=words, edge_values=edge)
    entries: list[dict[str, Any]] = []
    for i in range(count):
        file_seed = sample_seed(seed, i)
        choices = Choices(seed=file_seed, policy=policy)
        file = draw_file(choices, format_, erroneous_p=erroneous)
        name = f"{i:0{width}d}{file.suffix}"
        write_bytes_atomic(out / name, file.data)
        recording = choices.recording()
        entries.append(
            {
                "file": name,
                "format": file.format,
                "extension": file.extension,
                "content_type": file.content_type,
                "size": len(file.data),
                "erroneous": file.erroneous,
                "seed": file_seed,
                "choices": len(recording),
                "labels": dict(sorted(recording.label_counts().items())),
            }
        )
        if edge:
            entries[-1]["edge_values"] = True
    index = {
        "formats": list(format_),
        "seed": seed,
        "count": count,
        "erroneous_p": erroneous,
        "files": entries,
    }
    write_bytes_atomic(out / "index.json", (json.dumps(index, indent=2) + "\n").encode())
    broken = sum(1 for e in entries if e["erroneous"])
    click.echo(f"wrote {count} files ({broken} erroneous) and index.json to {out}")


sample.add_command(world)
