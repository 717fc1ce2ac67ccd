"""The JSON Schema of a pydantic model (or a schema value) the handler's code defines.

Why a subprocess at config time: the schema pydantic builds (`model_json_schema()`) is the
exact statement of what the model admits, with every `Field`, `Annotated` constraint,
`Literal` and nested model resolved; reading it from the class's source would re-implement
pydantic and drift from it.  Importing the application to ask for it is running untrusted
code, so it happens in a spawned process, as a worker would: the sandbox environment (fake
credentials, empty HOME), the network and subprocess guard armed before the import, and a
timeout.  Doing it once at config time (rather than in each worker after the handler's
import) puts the schema's text into the `Target`: every process that generates an input,
the campaign regenerating a lost one, `repro` and replays included, draws from the same
schema, so generation stays a pure function of the choices and the target.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import traceback
from collections.abc import Mapping
from multiprocessing.connection import Connection
from pathlib import Path

from lambdafuzz.errors import LambdafuzzError
from lambdafuzz.model.target import REFERENCE

#: Seconds the import of the model's module and the schema's build may take.
SCHEMA_TIMEOUT_S = 60.0


class ModelSchemaError(LambdafuzzError):
    """The schema could not be obtained (import error, not a model, timeout)."""

    slug = "model-schema"


def model_json_schema(
    root: Path,
    module: str,
    name: str,
    *,
    layers: tuple[Path, ...] = (),
    env: Mapping[str, str] | None = None,
    timeout_s: float = SCHEMA_TIMEOUT_S,
) -> str:
    """The JSON Schema of `module.name` (a pydantic model class, another type pydantic
    validates such as an annotated union of models, or a dict that is a JSON Schema) as
    compact JSON text with sorted keys, built in a sandboxed process."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    args = (str(root), [str(p) for p in layers], module, name, dict(env or {}), send)
    process = context.Process(target=_child, args=args, daemon=True)
    process.start()
    send.close()
    try:
        if not receive.poll(timeout_s):
            raise ModelSchemaError(
                f"building the schema of {module}.{name} took more than {timeout_s:.0f} s"
            )
        ok, text = receive.recv()
    except EOFError:
        raise ModelSchemaError(
            f"the process building the schema of {module}.{name} exited "
            f"(code {process.exitcode}) without an answer"
        ) from None
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join(5)
    if not ok:
        raise ModelSchemaError(text)
    return text


def _placeholders(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with each `${kind.name.attribute}` replaced by the resource's name: no emulator
    runs here, and a module reading `os.environ["TABLE_NAME"]` at import needs a value."""
    return {
        name: REFERENCE.sub(lambda m: m.group(1).split(".")[1] if "." in m.group(1) else "x", value)
        for name, value in env.items()
    }


def _child(
    root: str, layers: list[str], module: str, name: str, env: dict[str, str], send: Connection
) -> None:
    import importlib
    import os

    from lambdafuzz.harness.sandbox.safety import arm, sandbox_env

    try:
        environment = sandbox_env(_placeholders(env))
        os.environ.clear()
        os.environ.update(environment)
        for path in [root, *layers][::-1]:
            sys.path.insert(0, path)
        arm()
        value = getattr(importlib.import_module(module), name)
        if hasattr(value, "model_json_schema"):
            schema = value.model_json_schema()
        elif isinstance(value, Mapping):
            schema = dict(value)
        else:  # a type Powertools parses with a TypeAdapter: `Annotated[Cat | Dog, ...]`
            from pydantic import TypeAdapter

            schema = TypeAdapter(value).json_schema()
        send.send((True, json.dumps(schema, sort_keys=True, default=str)))
    except BaseException as exc:  # noqa: BLE001 - the application's import may raise anything
        where = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        send.send((False, f"cannot build the schema of {module}.{name}: {where}"))
    finally:
        send.close()
