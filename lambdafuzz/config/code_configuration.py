"""Secrets and parameters the application's code names itself.

A function whose secret was made by hand, outside its stack (the database password an
operator stored once), names it in the code: the AWS console's sample reads
`secret_name = "prod/db"` ... `client.get_secret_value(SecretId=secret_name)`. With no
template or config declaring it, every test would fail on the missing secret, and
nothing after that read would run. The application's modules are parsed (not imported)
for such reads:

* boto3: `get_secret_value` / `describe_secret` (`SecretId=`), `get_parameter` (`Name=`),
  `get_parameters` (`Names=[...]`);
* Powertools' parameters utility: `get_secret("...")`, `get_parameter("...")` (the name
  first, positional).

The same walk notes the services whose resources the code creates itself
(`create_table`, `create_bucket`, `create_queue`, `create_topic`): a world may then lack
such a declared resource, so that the code's "create it when missing" path runs.

A name is a string literal, or a variable the same module assigns string literals to
(each of them). Names AWS would refuse (`aws_names`) are skipped.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from lambdafuzz.config.aws_names import parameter_name_problem, secret_name_problem

#: Application files parsed at most (a Lambda function's package holds tens).
MAX_FILES = 400
#: Files larger than this are not parsed (a module is ~10 KB).
MAX_SOURCE_BYTES = 1024 * 1024
#: boto3 methods and the keyword naming a secret / parameters.
_SECRET_CALLS = {"get_secret_value": "SecretId", "describe_secret": "SecretId"}
_PARAMETER_CALLS = {"get_parameter": "Name", "get_parameters": "Names"}
#: Powertools' functions taking the name first (positionally).
_POWERTOOLS_SECRET = "get_secret"
_POWERTOOLS_PARAMETER = "get_parameter"
#: boto3 methods (client and resource) that create a resource, and its service.
CREATE_CALLS = {
    "create_table": "dynamodb",
    "create_bucket": "s3",
    "create_queue": "sqs",
    "create_topic": "sns",
}


@dataclass(slots=True, frozen=True)
class CodeConfiguration:
    """What the code reads by name, in the order it first appears."""

    secrets: tuple[str, ...] = ()
    parameters: tuple[str, ...] = ()
    creates: tuple[str, ...] = ()  # services whose resources it creates (`CREATE_CALLS`)


def code_configuration(root: Path, packages: Sequence[str]) -> CodeConfiguration:
    """The secret and parameter names the application's modules read."""
    secrets: dict[str, None] = {}
    parameters: dict[str, None] = {}
    creates: dict[str, None] = {}
    for file in _source_files(root, packages):
        tree = _parse(file)
        if tree is None:
            continue
        strings = _assigned_strings(tree)
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):  # source order
            if isinstance(call.func, ast.Attribute) and call.func.attr in CREATE_CALLS:
                creates.setdefault(CREATE_CALLS[call.func.attr])
            read = _read(call, strings)
            if read is None:
                continue
            kind, names = read
            target = secrets if kind == "secret" else parameters
            for name in names:
                problem = (
                    secret_name_problem(name) if kind == "secret" else parameter_name_problem(name)
                )
                if problem is None:
                    target.setdefault(name)
    return CodeConfiguration(tuple(secrets), tuple(parameters), tuple(sorted(creates)))


def _source_files(root: Path, packages: Sequence[str]) -> Iterator[Path]:
    count = 0
    for package in packages:
        base = root.joinpath(*package.split("."))
        found = sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
        for file in found:
            if count >= MAX_FILES:
                return
            if file.is_file():
                count += 1
                yield file


def _parse(file: Path) -> ast.Module | None:
    try:
        if file.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _assigned_strings(tree: ast.Module) -> dict[str, list[str]]:
    """Variable name -> the string literals the module assigns to it anywhere."""
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(value.value)
    return found


def _read(call: ast.Call, strings: dict[str, list[str]]) -> tuple[str, list[str]] | None:
    """("secret" | "parameter", the names it reads) for a call that reads configuration,
    else None."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name in _SECRET_CALLS:
        return "secret", _keyword(call, _SECRET_CALLS[name], strings)
    if name in _PARAMETER_CALLS:
        keyword = _PARAMETER_CALLS[name]
        found = _keyword(call, keyword, strings)
        if not found and name == _POWERTOOLS_PARAMETER and call.args:
            found = _strings(call.args[0], strings)
        return "parameter", found
    if name == _POWERTOOLS_SECRET and call.args:
        return "secret", _strings(call.args[0], strings)
    return None


def _keyword(call: ast.Call, keyword: str, strings: dict[str, list[str]]) -> list[str]:
    for given in call.keywords:
        if given.arg == keyword:
            if isinstance(given.value, ast.List | ast.Tuple):
                return [s for item in given.value.elts for s in _strings(item, strings)]
            return _strings(given.value, strings)
    return []


def _strings(node: ast.expr, strings: dict[str, list[str]]) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return list(strings.get(node.id, ()))
    return []
