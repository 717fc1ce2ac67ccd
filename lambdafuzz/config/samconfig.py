"""Parameter values from a SAM project's `samconfig.toml` (or `.yaml`/`.yml`) and from
`--parameter-overrides`.

`sam deploy` fills the template's `Parameters` from `--parameter-overrides`, else the
`parameter_overrides` of the `default` environment's `deploy` section, then its `global`
section.  lambdafuzz reads them the same way, so a function sees the table names, stages
and flags it sees once deployed; parameters without a value there keep their `Default`.
The command line's values are active for one command (`overriding`), so every command
that loads a template (fuzz, repro, analyze, init, ...) takes the option the same way.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from lambdafuzz.errors import ConfigError

#: The files `sam` reads, in its order.
SAMCONFIG_NAMES = ("samconfig.toml", "samconfig.yaml", "samconfig.yml")
#: Larger configuration files are not read (a samconfig is a few hundred bytes).
MAX_BYTES = 256 * 1024
ENVIRONMENT = "default"
#: Sections whose `parameter_overrides` apply, the first winning.
SECTIONS = ("deploy", "global")


#: `--parameter-overrides` of the running command (set by `overriding`).
_OVERRIDES: ContextVar[Mapping[str, str]] = ContextVar(
    "parameter_overrides", default=MappingProxyType({})
)
OPTION = "--parameter-overrides"


@contextmanager
def overriding(values: Mapping[str, str]) -> Iterator[None]:
    """Templates loaded inside take `values` over samconfig's and their Defaults."""
    token = _OVERRIDES.set(dict(values))
    try:
        yield
    finally:
        _OVERRIDES.reset(token)


def active_overrides() -> dict[str, str]:
    """The `--parameter-overrides` in force ({} outside `overriding`)."""
    return dict(_OVERRIDES.get())


def template_parameters(template_dir: Path) -> dict[str, str]:
    """A template's parameter values: `--parameter-overrides` over the samconfig's."""
    return {**samconfig_parameters(template_dir), **_OVERRIDES.get()}


def parse_overrides(values: str | Iterable[str], where: str = OPTION) -> dict[str, str]:
    """`Key=Value Key2='a b'` (shell-quoted, as `sam deploy` takes it) or
    `ParameterKey=K,ParameterValue=V` items -> {Key: Value}; a `ConfigError` naming
    `where` for anything else."""
    if isinstance(values, str):
        try:
            items = shlex.split(values)
        except ValueError as exc:
            raise ConfigError(
                f"{where}: {exc}; expected Key=Value pairs separated by spaces."
            ) from None
    else:
        items = list(values)
    pairs = {}
    for item in items:
        if item.startswith("ParameterKey="):
            key, sep, value = item.removeprefix("ParameterKey=").partition(",ParameterValue=")
        else:
            key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"{where}: {item!r}; expected Key=Value or ParameterKey=Key,ParameterValue=Value."
            )
        pairs[key] = value
    return pairs


def samconfig_parameters(template_dir: Path) -> dict[str, str]:
    """The parameter values the project's samconfig gives its templates ({} without one)."""
    for name in SAMCONFIG_NAMES:
        path = template_dir / name
        if path.is_file():
            return _parameters(path, _read(path))
    return {}


def _read(path: Path) -> Mapping[str, Any]:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_BYTES} bytes; expected a samconfig.")
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"{path}: cannot be read as a samconfig ({reason}).") from None
    return data if isinstance(data, Mapping) else {}


def _parameters(path: Path, data: Mapping[str, Any]) -> dict[str, str]:
    environment = data.get(ENVIRONMENT)
    if not isinstance(environment, Mapping):
        return {}
    found: dict[str, str] = {}
    for section in reversed(SECTIONS):  # later sections first, so the first one wins
        settings = environment.get(section)
        parameters = settings.get("parameters") if isinstance(settings, Mapping) else None
        overrides = (
            parameters.get("parameter_overrides") if isinstance(parameters, Mapping) else None
        )
        found.update(_pairs(path, section, overrides))
    return found


def _pairs(path: Path, section: str, overrides: Any) -> dict[str, str]:
    """`Key=Value` pairs as sam accepts them: one string (shell-quoted values) or a list."""
    if overrides is None:
        return {}
    where = f"{path}: {ENVIRONMENT}.{section}.parameters.parameter_overrides"
    if isinstance(overrides, str) or (
        isinstance(overrides, list) and all(isinstance(i, str) for i in overrides)
    ):
        return parse_overrides(overrides, where)
    raise ConfigError(
        f"{where} is {type(overrides).__name__}; expected Key=Value pairs (a string or a list)."
    )
