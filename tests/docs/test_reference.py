"""The documentation against the code: every config key in the generated reference, every
command and option the docs show in click, every repository path they name on disk.

No mkdocs build here (`make docs` does that, with --strict): the generator is called
directly, and the pages are read as Markdown text.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from types import ModuleType
from typing import Any

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(DOCS.rglob("*.md"))


def _hook() -> ModuleType:
    path = DOCS / "hooks" / "config_reference.py"
    spec = importlib.util.spec_from_file_location("config_reference_hook", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------- config keys
def _schema_paths(schema: dict[str, Any]) -> set[str]:
    """Every key path the JSON Schema of lambdafuzz.yaml accepts, nested keys included
    (`resources.buckets[].objects.formats`), walked independently of the generator (which
    reads the pydantic fields)."""
    defs = schema.get("$defs", {})
    found: set[str] = set()

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def walk(node: dict[str, Any], path: str) -> None:
        node = resolve(node)
        for option in [*node.get("anyOf", ()), *node.get("oneOf", ())]:
            walk(option, path)
        if node.get("type") == "array" and "items" in node:
            walk(node["items"], path + "[]")
        for name, below in node.get("properties", {}).items():
            full = f"{path}.{name}" if path else name
            found.add(full)
            walk(below, full)

    walk(schema, "")
    return found


def test_every_config_key_the_schema_accepts_is_in_the_generated_reference():
    hook = _hook()
    schema = hook.config_model().model_json_schema()
    paths = _schema_paths(schema)
    page = hook.config_reference_markdown()
    missing = sorted(p for p in paths if f"`{p}`" not in page)
    assert not missing, f"config keys missing from the reference: {missing}"
    # the walk reaches nested mappings, lists of mappings and union members
    assert {"handler", "trigger.routes[].auth", "resources.buckets[].objects.formats"} <= paths
    assert "trigger.schema.envelope" in paths  # a field's alias, as the YAML spells it


def test_the_generator_lists_each_key_once_with_a_description():
    keys = _hook().config_keys()
    paths = [k.path for k in keys]
    assert len(paths) == len(set(paths))
    assert [k.path for k in keys if not k.description] == []
    by_path = {k.path: k for k in keys}
    assert by_path["handler"].default == "required"
    assert by_path["timeout_s"].default == "`3.0`"
    assert "`s3`" in by_path["trigger.kind"].type and "`websocket`" in by_path["trigger.kind"].type


def test_the_overlay_keys_are_in_the_reference():
    from lambdafuzz.config.overlay import OVERLAY_KEYS

    page = _hook().config_reference_markdown()
    assert [k for k in OVERLAY_KEYS if f"`{k}`" not in page] == []


def test_the_configuration_page_holds_the_marker_the_hook_replaces():
    hook = _hook()
    text = (DOCS / hook.PAGE).read_text()
    assert hook.MARKER in text

    class Page:
        class file:
            src_uri = hook.PAGE

    built = hook.on_page_markdown(text, Page, None, None)
    assert hook.MARKER not in built and "`trigger.kind`" in built


# ------------------------------------------------------------------------- commands
@dataclass(frozen=True, slots=True)
class Shown:
    """A `lambdafuzz ...` command line as a page shows it."""

    where: str  # page:line
    line: str


_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE = re.compile(r"`(lambdafuzz [^`]+)`")
_PREFIX = re.compile(
    r"^(?:\$\s+)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:\.venv/bin/|\S*/)?(?=lambdafuzz\s)"
)


def _shown_commands(path: Path) -> Iterator[Shown]:
    """`lambdafuzz` command lines of the page: in fenced blocks (continuation lines
    joined) and in inline code."""
    in_fence = False
    pending = ""
    start = 0
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        if _FENCE.match(raw):
            in_fence = not in_fence
            pending = ""
            continue
        if not in_fence:
            for match in _INLINE.finditer(raw):
                yield Shown(f"{path.name}:{number}", match.group(1))
            continue
        line = raw.strip()
        if pending:
            line = pending + " " + line
        else:
            start = number
            line = _PREFIX.sub("", line)
        if line.endswith("\\"):
            pending = line[:-1].strip()
            continue
        pending = ""
        if line.startswith("lambdafuzz "):
            yield Shown(f"{path.name}:{start}", line)


def _words(line: str) -> list[str]:
    line = re.split(r"\s#|\|\||&&|;|\|", line)[0]
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def command_problems(line: str) -> list[str]:
    """What in `line` click would refuse: an unknown command or option."""
    from lambdafuzz.cli.main import cli

    words = _words(line)[1:]
    command: click.Command = cli
    ctx = click.Context(cli, info_name="lambdafuzz")
    while isinstance(command, click.Group) and words and not words[0].startswith("-"):
        if _PLACEHOLDER.fullmatch(words[0]):  # `lambdafuzz sample FORMAT ...`: any of them
            return _option_problems(words[1:], _subcommands(command, ctx), ctx.command_path)
        try:
            _name, found, words = command.resolve_command(ctx, list(words))
        except click.UsageError as exc:
            return [f"no command {words[0]!r}: {exc.format_message()}"]
        if found is None:
            return [f"no command {words[0]!r}"]
        command = found
        ctx = click.Context(command, parent=ctx, info_name=_name)
    return _option_problems(words, [command], ctx.command_path)


#: A word the docs write for one the reader chooses: `lambdafuzz sample FORMAT`.
_PLACEHOLDER = re.compile(r"[A-Z][A-Z_]*")


def _subcommands(group: click.Group, ctx: click.Context) -> list[click.Command]:
    found = (group.get_command(ctx, name) for name in group.list_commands(ctx))
    return [command for command in found if command is not None]


def _option_problems(words: list[str], commands: list[click.Command], path: str) -> list[str]:
    known = {"--help", "-h"}
    for command in commands:
        for param in command.params:
            known.update(param.opts)
            known.update(param.secondary_opts)
    options = [w.split("=", 1)[0] for w in words if re.match(r"^--?[A-Za-z]", w)]
    return [f"no option {o} of `{path}`" for o in options if o not in known]


def _all_shown() -> list[Shown]:
    return [shown for page in [*PAGES, README] for shown in _shown_commands(page)]


def test_the_command_check_refuses_what_click_refuses():
    assert command_problems("lambdafuzz fuzz app/ --time 60 --out out/") == []
    assert command_problems("lambdafuzz sample csv --count 20 --out samples/") == []
    assert command_problems("lambdafuzz corpus replay out/corpus --skip-corrupt") == []
    assert command_problems("lambdafuzz fuzz app/ --no-such-option 1")
    assert command_problems("lambdafuzz corpus shrink out/corpus")
    assert command_problems("lambdafuzz repro x.json --time 3")
    assert command_problems("lambdafuzz sample FORMAT --out d/") == []  # a subcommand's option
    assert command_problems("lambdafuzz sample FORMAT --strategy zest")


def test_the_parser_finds_continued_and_prefixed_command_lines(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Run `lambdafuzz report out/` after.\n\n```sh\n"
        "$ lambdafuzz fuzz app/ \\\n    --time 60\n"
        "RAY_worker_niceness=0 .venv/bin/lambdafuzz fuzz . --ray auto\n"
        "echo lambdafuzz fuzz not-a-command\n```\n"
    )
    lines = [shown.line for shown in _shown_commands(page)]
    assert lines == [
        "lambdafuzz report out/",
        "lambdafuzz fuzz app/ --time 60",
        "lambdafuzz fuzz . --ray auto",
    ]


def test_every_command_and_option_the_docs_show_exists():
    shown = _all_shown()
    assert len(shown) >= 30  # the parser still finds the pages' commands
    problems = [f"{s.where}: {s.line}: {p}" for s in shown for p in command_problems(s.line)]
    assert not problems, "\n".join(problems)


def test_every_make_target_the_docs_name_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.MULTILINE))
    named = {
        match.group(1)
        for page in [*PAGES, README]
        for match in re.finditer(r"`make ([a-z][a-z-]*)`", page.read_text())
    }
    assert {"demo", "test", "docs"} <= named
    assert sorted(named - targets) == []


# ------------------------------------------------------------------------- paths and links
_REPO_PATH = re.compile(
    r"`((?:lambdafuzz|benchmarks|tests|docs|scripts)/[^`\s*<>]*|(?:README|BENCHMARKS)\.md)`"
)


def test_every_repository_path_the_docs_name_exists():
    named = {
        (page.name, match.group(1).rstrip("/"))
        for page in [*PAGES, README]
        for match in _REPO_PATH.finditer(page.read_text())
    }
    assert named  # the pages name some
    missing = sorted(f"{page}: {path}" for page, path in named if not (ROOT / path).exists())
    assert not missing, missing


def test_the_readme_is_a_front_door_whose_links_resolve():
    text = README.read_text()
    assert len(text.splitlines()) < 150
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [link.split("#", 1)[0] for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    assert [link for link in local if link and not (ROOT / link).exists()] == []


# ------------------------------------------------------------------------- output folder
def test_every_stats_json_key_is_in_the_output_reference():
    from lambdafuzz.fuzzer.stats import Stats

    page = (DOCS / "reference" / "output.md").read_text()
    missing = [f.name for f in fields(Stats) if f"`{f.name}`" not in page]
    assert not missing, f"stats.json keys missing from reference/output.md: {missing}"


@pytest.mark.parametrize("name", ["campaign.json", "coverage.json", "plot_data.csv"])
def test_the_output_reference_names_each_file(name):
    assert f"`{name}`" in (DOCS / "reference" / "output.md").read_text()


def test_every_exit_code_is_in_the_exit_code_reference():
    from lambdafuzz.cli.exit_codes import ExitCode

    page = (DOCS / "reference" / "exit-codes.md").read_text()
    rows = set(re.findall(r"^\| (\d+) \|", page, flags=re.MULTILINE))
    assert {"0", "1", "2"} <= rows
    missing = [c.name for c in ExitCode if str(c.value) not in rows and f" {c.value} " not in page]
    assert not missing, missing
