"""Settings over a template import: a lambdafuzz.yaml beside the template that names it, and
a function's `Metadata: {lambdafuzz: ...}` block in the template.

    # lambdafuzz.yaml, beside template.yaml
    template: template.yaml
    function: OrdersFunction          # the one to fuzz when --function is not given
    timeout_s: 10                     # any lambdafuzz.yaml key: for every function
    functions:
      OrdersFunction:                 # ... or for one
        outcomes: {invalid: {exceptions: [ValueError]}}

The template import builds the lambdafuzz.yaml mapping of a function (`config.sam`); the
function's `Metadata.lambdafuzz`, then the overlay's top-level keys, then its
`functions.<Name>` are merged over it: mappings key by key, anything else (lists included)
replaced.  The result is validated like any lambdafuzz.yaml, and a mistake is reported at
the line of the overlay (or template) that made it, with the key's path.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdafuzz.config.sam_template import FUNCTION_TYPES, Template, is_template
from lambdafuzz.config.source import Locator, dotpath, nearest, read_yaml
from lambdafuzz.errors import ConfigError

log = logging.getLogger("lambdafuzz.config")

#: The file names an overlay has (those of a lambdafuzz.yaml), in the order they are found.
OVERLAY_NAMES = ("lambdafuzz.yaml", "lambdafuzz.yml")
#: The keys only an overlay has; every other key is a lambdafuzz.yaml key.
OVERLAY_KEYS = ("template", "function", "functions")
#: Where in a function's resource its own settings sit.
METADATA_KEY = "lambdafuzz"


@dataclass(slots=True, frozen=True)
class Overlay:
    """A lambdafuzz.yaml that names a template (`template:`)."""

    file: Path
    template: Path  # resolved
    function: str | None  # `function:`: fuzzed when --function is not given
    data: Mapping[str, Any]  # its whole top-level mapping
    where: Locator


def read_overlay(path: Path) -> Overlay | None:
    """The overlay `path` is (a lambdafuzz.yaml, or a directory holding one), None when it
    is none: no such file, or a lambdafuzz.yaml without `template:` (a config of its own).
    A file that cannot be read is None too: loading it as a config says why."""
    file = _overlay_file(Path(path))
    if file is None:
        return None
    try:
        data, where = read_yaml(file)
    except ConfigError:
        return None
    if "template" not in data:
        return None
    return _checked(file.resolve(), data, where)


def overlay_beside(template: Path) -> Overlay | None:
    """The overlay in `template`'s directory that names it, if there is one."""
    found = read_overlay(Path(template).parent)
    if found is None or found.template != Path(template).resolve():
        return None
    return found


def default_function(path: Path) -> str | None:
    """The `function:` of the overlay `path` is or sits beside (a template), if any."""
    path = Path(path)
    found = read_overlay(path) if not is_template(path) else overlay_beside(path)
    return found.function if found is not None else None


def _overlay_file(path: Path) -> Path | None:
    if path.is_dir():
        return next((path / n for n in OVERLAY_NAMES if (path / n).is_file()), None)
    return path if path.name in OVERLAY_NAMES and path.is_file() else None


def _checked(file: Path, data: dict[str, Any], where: Locator) -> Overlay:
    """The overlay's own keys checked (the lambdafuzz.yaml keys are checked once merged)."""
    from lambdafuzz.config.schema import config_keys

    allowed = (*OVERLAY_KEYS, *config_keys())
    for key in data:
        if key not in allowed:
            close = nearest(str(key), allowed)
            raise ConfigError(
                f"{where.where((key,))}: unknown key {key} in an overlay of a template; "
                f"expected `template`, `function`, `functions` or a lambdafuzz.yaml key: "
                f"{', '.join(config_keys())}." + (f" Did you mean {close!r}?" if close else "")
            )
    name = data["template"]
    template = file.parent / name if isinstance(name, str) else None
    if (
        template is None
        or Path(name).name != name
        or not template.is_file()
        or not is_template(template)
    ):
        beside = sorted(p.name for p in file.parent.glob("*.y*ml") if is_template(p))
        raise where.error(
            ("template",),
            name,
            f"the file name of a SAM or CloudFormation template in {file.parent} (beside this "
            f"file): {', '.join(beside) or 'there is none'}",
            nearest(str(name), beside) if beside else None,
        )
    function = data.get("function")
    if function is not None and not isinstance(function, str):
        raise where.error(("function",), function, "the logical id of a function of the template")
    functions = data.get("functions", {})
    if not isinstance(functions, dict) or not all(isinstance(v, dict) for v in functions.values()):
        raise where.error(
            ("functions",),
            functions,
            "a mapping of function logical ids to lambdafuzz.yaml settings",
        )
    return Overlay(file, template.resolve(), function, data, where)


# =========================================================================== merging
@dataclass(slots=True, frozen=True)
class _Layer:
    """One source of settings: its mapping, and where it sits in its file."""

    data: Mapping[str, Any]
    where: Locator
    prefix: tuple[Any, ...]  # the path of `data` in its file


class LayeredLocator(Locator):
    """Where a key of a merged config came from: the layer that holds the longest part of
    its path (the later layer on a tie), shown as `file:line (prefix)`; the template import
    when no layer holds it."""

    def __init__(self, base: Path, layers: Sequence[_Layer]) -> None:
        super().__init__(base, None)
        self.layers = tuple(layers)
        self.blamed = False  # a message pointed into a layer: the settings' mistake

    def _layer(self, loc: Sequence[Any]) -> _Layer | None:
        best, depth = None, 0
        for layer in self.layers:
            held = _held(layer.data, loc)
            if held and held >= depth:
                best, depth = layer, held
        return best

    def line(self, loc: Sequence[Any]) -> int:
        layer = self._layer(loc)
        return 1 if layer is None else layer.where.line((*layer.prefix, *loc))

    def where(self, loc: Sequence[Any]) -> str:
        layer = self._layer(loc)
        if layer is None:
            return super().where(loc)
        self.blamed = True
        shown = layer.where.where((*layer.prefix, *loc))
        return f"{shown} ({dotpath(layer.prefix)})" if layer.prefix else shown


def _held(data: Any, loc: Sequence[Any]) -> int:
    """How many parts of `loc` are keys (or indices) in `data`."""
    count = 0
    for part in loc:
        in_list = isinstance(data, list) and isinstance(part, int) and part < len(data)
        if not (in_list or (isinstance(data, dict) and part in data)):
            break
        data = data[part]
        count += 1
    return count


def merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """`over` merged into `base`: mappings key by key, anything else replaced."""
    out = dict(base)
    for key, value in over.items():
        old = out.get(key)
        out[key] = (
            merged(old, value) if isinstance(value, dict) and isinstance(old, dict) else value
        )
    return out


def with_overlays(
    config: dict[str, Any], template: Template, function: str
) -> tuple[dict[str, Any], LayeredLocator, list[str]]:
    """`config` (the template import of `function`) with the function's `Metadata.lambdafuzz`
    and the overlay beside the template merged over it; the locator that tells where each
    key came from; and the sources applied, for a note (`file (keys)`)."""
    layers: list[_Layer] = []
    metadata = template.resource(function).get("Metadata")
    own = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    prefix = ("Resources", function, "Metadata", METADATA_KEY)
    if own is not None:
        if not isinstance(own, dict):
            raise template.error(prefix, own, "a mapping of lambdafuzz.yaml settings")
        layers.append(_Layer(own, template.where, prefix))
    overlay = overlay_beside(template.path)
    if overlay is not None:
        functions = overlay.data.get("functions", {})
        ids = [r for r in template.resources if template.type_of(r) in FUNCTION_TYPES]
        for name in functions:
            if name not in ids:
                raise overlay.where.error(
                    ("functions", name),
                    name,
                    f"the logical id of a function of {overlay.template.name}: "
                    f"{', '.join(ids) or '(none defined)'}",
                    nearest(str(name), ids),
                )
        shared = {k: v for k, v in overlay.data.items() if k not in OVERLAY_KEYS}
        layers.append(_Layer(shared, overlay.where, ()))
        if function in functions:
            layers.append(_Layer(functions[function], overlay.where, ("functions", function)))
    applied = []
    for layer in layers:
        if layer.data:
            config = merged(config, layer.data)
            keys = ", ".join(str(k) for k in layer.data)
            under = f" {dotpath(layer.prefix)}" if layer.prefix else ""
            applied.append(f"{layer.where.file.name}{under} ({keys})")
    return config, LayeredLocator(template.path, layers), applied
