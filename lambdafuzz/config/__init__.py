"""Everything that turns a file into a `Target`: `lambdafuzz.yaml`, a SAM or CloudFormation
template, AWS naming rules and the writer behind `lambdafuzz init`.

`load_target` is the one entry point used by the command line, the pytest plugin and the
reader of a campaign's output folder.
"""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.config.schema import CONFIG_NAME, load_config, target_from_dict
from lambdafuzz.model.target import Target

__all__ = ["CONFIG_NAME", "load_config", "load_target", "resolve_config", "target_from_dict"]

#: The template names `sam` looks for in a project directory, in its order.
TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")


def resolve_config(path: Path | str) -> Path:
    """`path`; for a directory without a lambdafuzz.yaml, the SAM template in it (so
    `lambdafuzz fuzz .` in a SAM project fuzzes its functions, as `sam` finds them), or
    the stack template of a CDK cloud assembly (`cdk.out/`; `ConfigError` when it holds
    several stacks with functions).  A lambdafuzz.yaml that names a template (an overlay,
    `config.overlay`), or its directory, is that template: its settings apply to it."""
    from lambdafuzz.config.cdk import assembly_template, is_cloud_assembly
    from lambdafuzz.config.overlay import read_overlay

    path = Path(path)
    overlay = read_overlay(path)
    if overlay is not None:
        return overlay.template
    if not path.is_dir() or any((path / n).exists() for n in (CONFIG_NAME, "lambdafuzz.yml")):
        return path
    if is_cloud_assembly(path):
        return assembly_template(path)
    for name in TEMPLATE_NAMES:
        if (path / name).is_file():
            return path / name
    return path


def load_target(path: Path | str, function: str | None = None, *, warn: bool = True) -> Target:
    """The Target described by `path`: a `lambdafuzz.yaml` (or its directory) or a SAM /
    CloudFormation template, whose `function` is chosen when it has several (`warn`: log
    what the template holds that lambdafuzz does not model).  Raises `ConfigError` with one
    readable paragraph on any mistake."""
    from lambdafuzz.config.sam import load_template, load_template_target
    from lambdafuzz.config.sam_template import is_template

    path = resolve_config(path)
    if path.is_file() and is_template(path):
        if warn:
            return load_template_target(path, function)
        return load_template(path, function).target
    return load_config(path)
