"""Imported by the fork server only: importing it loads, once per campaign, what every
worker's first test would otherwise load again.

A forked worker's first test took 240-760 ms against ~5 ms for the next ones (gradebook,
the re-runs of new failures in fresh workers, 300 executions): the first client of each
service parses its botocore models (JSON, 60 ms for S3 and DynamoDB together) and lists the
available services (50 ms), and the generators, the emulator's service responses, IAM's
managed policies and Pillow are imported lazily. A campaign runs in a fresh worker every
new failure's re-run and every restart, each waiting for that first test.

Two things are done here, in the server, so that every fork has them:

* `IMPORTS` are imported (what the bundled lambdas' workers import in their first tests,
  less the applications' own modules);
* the botocore data the first clients of the emulated services load is loaded once into
  `_WARM`, and every loader botocore creates with the default search path starts with
  those entries in its cache (`_warm_create_loader`). botocore itself hands the same loaded
  objects to every client of one session; here the sessions of one process share them too.
  Nothing else changes: a loader with another search path (`AWS_DATA_PATH`) starts empty,
  and the search paths, the files and therefore the data are the ones the worker would
  read itself (loaded afresh after the warm-up's clients found what to load: botocore
  changes some of what its clients used, see `warm_loaders`).

The server runs no handler code, makes no request (creating a client sends nothing) and
reads no credentials (the warm-up's clients get fixed fake ones).
"""

from __future__ import annotations

import importlib
from typing import Any

#: What the bundled lambdas' workers imported during their start and first 30 tests on top
#: of the server's preload (scratch listing of `sys.modules`, all eight lambdas).
IMPORTS = (
    "lambdafuzz.harness.emulator.backends",
    "lambdafuzz.harness.emulator.client_cache",
    "lambdafuzz.harness.measure.cost_meter",
    "lambdafuzz.harness.measure.coverage",
    "lambdafuzz.harness.emulator.fast_aws",
    "lambdafuzz.harness.emulator.loaders",
    "lambdafuzz.harness.emulator.moto_direct",
    "lambdafuzz.harness.sandbox.safety",
    "lambdafuzz.harness.emulator.world_checks",
    "lambdafuzz.harness.measure.arm_catalog",
    "lambdafuzz.generators.aws.world_generator",
    "lambdafuzz.generators.aws.delivery",
    "lambdafuzz.generators.aws.events",
    "lambdafuzz.generators.aws.consistency",
    "lambdafuzz.generators.aws.dynamodb",
    "lambdafuzz.generators.aws.queues",
    "lambdafuzz.generators.aws.streams",
    "lambdafuzz.generators.aws.sample_events",
    "lambdafuzz.generators.files.archives",
    "lambdafuzz.generators.files.images",
    "lambdafuzz.generators.files.xml_files",
    "boto3.dynamodb.conditions",
    "boto3.dynamodb.table",
    "boto3.dynamodb.transform",
    "boto3.s3.inject",
    "boto3.s3.transfer",
    "moto.s3.responses",
    "moto.dynamodb.responses",
    "moto.dynamodbstreams.models",
    "moto.sqs.responses",
    "moto.sns.responses",
    "moto.iam.access_control",
    "moto.sts.models",
    "PIL.Image",
    "PIL.JpegImagePlugin",
    "PIL.PngImagePlugin",
    "PIL.GifImagePlugin",
    "PIL.BmpImagePlugin",
    "PIL.TiffImagePlugin",
    "PIL.ImageOps",
    "xml.dom.minidom",
    "_strptime",
)

#: The services the emulator answers (`backends.MOTO_SERVICES`) and what handlers reach
#: for beside them: their first client's botocore data is loaded here.
SERVICES = ("s3", "dynamodb", "dynamodbstreams", "sqs", "sns", "events", "sts")
#: boto3's resource interfaces among them (their `resources-1` data).
RESOURCES = ("s3", "dynamodb", "sqs", "sns")

_WARM: dict[Any, Any] = {}


def _warm_create_loader(original: Any) -> Any:
    def create_loader(search_path_string: str | None = None) -> Any:
        loader = original(search_path_string)
        if search_path_string is None:
            loader._cache.update(_WARM)
        return loader

    create_loader.__wrapped__ = original  # type: ignore[attr-defined]
    return create_loader


def _replay(loader: Any, key: tuple[Any, ...]) -> None:
    """Make the call whose result botocore's `instance_cache` keeps under `key`: the method's
    name, its positional arguments, then each keyword argument's name and value (botocore's
    loader takes one, `load_service_model`'s `api_version`)."""
    name, *args = key
    kwargs = {}
    if len(args) >= 2 and args[-2] == "api_version":
        kwargs["api_version"] = args.pop()
        args.pop()
    getattr(loader, name)(*args, **kwargs)


def warm_loaders() -> int:
    """Load the data the first clients of `SERVICES` load, and start every default loader
    with it from now on.  Returns how many loader entries were kept."""
    import boto3.session
    import botocore.loaders
    import botocore.session

    session = boto3.session.Session(
        aws_access_key_id="warmup",
        aws_secret_access_key="warmup",  # noqa: S106 - fixed fake credentials, never sent
        region_name="us-east-1",
    )
    for service in SERVICES:
        session.client(service)
    for service in RESOURCES:
        session.resource(service)
    # what those clients loaded, loaded again by a loader no client used: botocore changes
    # some of it in place (the endpoint resolver writes each resolved region's hostname
    # into the `endpoints` data), and a worker must start from the files' own data
    used = session._session.get_component("data_loader")
    loader = botocore.loaders.create_loader(None)
    # boto3 appends its own data (the `resources-1` models) to every session's loader
    loader.search_paths.extend(p for p in used.search_paths if p not in loader.search_paths)
    for key in used._cache:
        _replay(loader, key)
    _WARM.update(loader._cache)
    if not hasattr(botocore.session.create_loader, "__wrapped__"):
        botocore.session.create_loader = _warm_create_loader(botocore.session.create_loader)
    return len(_WARM)


def warm() -> None:
    for name in IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional part that is not installed: its worker never asks
            pass
    try:
        warm_loaders()
    except Exception:  # noqa: BLE001 - only speed is lost; a worker loads its data itself
        _WARM.clear()


warm()
