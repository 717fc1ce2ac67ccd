"""The real-world set's manifest entries, and where each handler's code is (issue 42).

`benchmarks/realworld/manifest/<id>.json` holds one handler each (repository, commit, the
folder extracted, its template and function or its config, and its known bugs; the format
is in `benchmarks/realworld/README.md`).  `load_handlers` reads them into `Handler`
records; `extract_app` brings the handler's folder out of its repository's snapshot into
the scratch folder (once per commit); `locate_code` finds the code root, the handler's
`module.function` and the layers from the template's function (its `CodeUri`, `Handler`
and `Layers`, over `Globals.Function`), from the config's `root` and `handler`, or from the
entry's own `code_root` when it has one.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import public_apps  # noqa: E402

MARKER = ".realworld-commit"


@dataclass(slots=True)
class KnownBug:
    id: str
    bug_class: str
    kind: str  # failure | handled
    exception: str
    file: str
    function: str
    code: str
    description: str
    input: str  # relative to the set's folder

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnownBug:
        where = data.get("where") or {}
        return cls(
            id=data["id"],
            bug_class=data.get("class", ""),
            kind=data.get("kind", "failure"),
            exception=where.get("exception", ""),
            file=where.get("file", ""),
            function=where.get("function", ""),
            code=where.get("code", ""),
            description=data.get("description", ""),
            input=data.get("input", ""),
        )

    def where(self) -> str:
        return f"{self.exception} at {self.file} in {self.function}: {self.code}"

    def matches(self, exception: str, error_code: str, file: str, function: str, code: str) -> bool:
        """The exception (last dotted component, or a ClientError's code) at the frame
        (file basename, function, the line's text with its whitespace runs collapsed)."""
        wanted = self.exception.rsplit(".", 1)[-1]
        if wanted not in (exception.rsplit(".", 1)[-1], error_code):
            return False
        return (
            Path(file).name == Path(self.file).name
            and function == self.function
            and same_code(code, self.code)
        )


def same_code(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


@dataclass(slots=True)
class Handler:
    id: str
    repository: str
    commit: str
    app_path: str
    handler: str
    trigger: str
    template: str = ""
    function: str = ""
    config: str = ""
    config_dir: str = ""
    code_root: str = ""
    flags: list[str] = field(default_factory=list)
    bugs: list[KnownBug] = field(default_factory=list)
    source: Path | None = None  # the manifest file

    @classmethod
    def from_json(cls, data: dict[str, Any], source: Path) -> Handler:
        return cls(
            id=data["id"],
            repository=data["repository"],
            commit=data["commit"],
            app_path=data.get("app_path", "").strip("/") or ".",
            handler=data.get("handler", ""),
            trigger=data.get("trigger", ""),
            template=data.get("template", ""),
            function=data.get("function", ""),
            config=data.get("config", ""),
            config_dir=(data.get("config_dir") or data.get("app_path") or ".").strip("/"),
            code_root=data.get("code_root", ""),
            flags=list(data.get("flags") or []),
            bugs=[KnownBug.from_json(b) for b in data.get("bugs") or []],
            source=source,
        )


@dataclass(slots=True)
class Code:
    root: Path
    handler: str  # module.function, relative to root
    sys_path: list[Path]  # root first, then the layers
    env: dict[str, str]  # plain-string environment of the template/config
    function_name: str


def load_handlers(manifest_dir: Path, wanted: list[str]) -> list[Handler]:
    handlers = []
    for path in sorted(manifest_dir.glob("*.json")):
        try:
            handlers.append(Handler.from_json(json.loads(path.read_text("utf-8")), path))
        except (json.JSONDecodeError, KeyError) as exc:
            print(f"skipped {path.name}: {exc!r}", file=sys.stderr)
    known = {h.id for h in handlers}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise SystemExit(f"unknown handler ids: {unknown} (manifests in {manifest_dir})")
    return [h for h in handlers if not wanted or h.id in wanted]


def extract_app(handler: Handler, mirrors: Path, scratch: Path) -> Path:
    """The handler's app folder extracted under SCRATCH/apps/<id>/ (again when the commit
    or the folder changed, or it is missing)."""
    into = scratch / "apps" / handler.id
    stamp = f"{handler.repository} {handler.commit} {handler.app_path}"
    marker = into / MARKER
    if marker.is_file() and marker.read_text() == stamp and (into / handler.app_path).exists():
        return into
    git_dir = public_apps.mirror_of(mirrors, handler.repository)
    public_apps.extract(git_dir, handler.commit, handler.app_path, into)
    marker.write_text(stamp)
    return into


def install_config(handler: Handler, app_dir: Path, data_dir: Path) -> Path | None:
    """Copy configs/<id>.yaml to the app as lambdafuzz.yaml; its path (None: template)."""
    if not handler.config:
        return None
    target = app_dir / handler.config_dir / "lambdafuzz.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(data_dir / handler.config, target)
    return target


class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags (`!Ref X` -> {"Ref": "X"})."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    name = suffix.lstrip("!")
    if name == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {"Ref" if name == "Ref" else f"Fn::{name}": value}


_CfnLoader.add_multi_constructor("!", _tag)


def read_template(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    return yaml.load(text, Loader=_CfnLoader) or {}  # noqa: S506 - SafeLoader subclass


def _plain_env(variables: Any) -> dict[str, str]:
    if not isinstance(variables, dict):
        return {}
    return {
        str(k): str(v)
        for k, v in variables.items()
        if isinstance(v, (str, int, float)) and "${" not in str(v)
    }


def _layer_dirs(template: dict[str, Any], layers: Any, base: Path) -> list[Path]:
    found = []
    for layer in layers or []:
        ref = layer.get("Ref") if isinstance(layer, dict) else None
        resource = (template.get("Resources") or {}).get(ref) if ref else None
        props = (resource or {}).get("Properties") or {}
        content = props.get("ContentUri", props.get("Content"))
        if isinstance(content, str):
            folder = base / content
            found.append(folder / "python" if (folder / "python").is_dir() else folder)
    return found


def _template_code(handler: Handler, app_dir: Path) -> Code:
    path = app_dir / handler.template
    template = read_template(path)
    resource = (template.get("Resources") or {}).get(handler.function)
    if resource is None:
        raise ValueError(f"no resource {handler.function} in {handler.template}")
    props = resource.get("Properties") or {}
    defaults = (
        ((template.get("Globals") or {}).get("Function") or {})
        if "Serverless" in str(resource.get("Type"))
        else {}
    )
    code_uri = props.get("CodeUri", props.get("Code", defaults.get("CodeUri")))
    root = path.parent / code_uri if isinstance(code_uri, str) else path.parent
    name = props.get("Handler") or defaults.get("Handler") or handler.handler
    env = _plain_env((defaults.get("Environment") or {}).get("Variables"))
    env.update(_plain_env((props.get("Environment") or {}).get("Variables")))
    layers = _layer_dirs(template, props.get("Layers", defaults.get("Layers")), path.parent)
    function_name = props.get("FunctionName")
    return Code(
        root.resolve(),
        str(name),
        [root.resolve(), *layers],
        env,
        function_name if isinstance(function_name, str) else handler.function,
    )


def _config_code(handler: Handler, app_dir: Path, data_dir: Path) -> Code:
    config = yaml.safe_load((data_dir / handler.config).read_text(encoding="utf-8")) or {}
    base = app_dir / handler.config_dir
    root = (base / str(config.get("root", "."))).resolve()
    layers = [(base / str(layer)).resolve() for layer in config.get("layers") or []]
    return Code(
        root,
        str(config.get("handler") or handler.handler),
        [root, *layers],
        _plain_env(config.get("env")),
        handler.id,
    )


def locate_code(handler: Handler, app_dir: Path, data_dir: Path) -> Code:
    if handler.code_root:
        root = (app_dir / handler.code_root).resolve()
        return Code(root, handler.handler, [root], {}, handler.id)
    if handler.template:
        return _template_code(handler, app_dir)
    if handler.config:
        return _config_code(handler, app_dir, data_dir)
    root = (app_dir / handler.app_path).resolve()
    return Code(root, handler.handler, [root], {}, handler.id)
