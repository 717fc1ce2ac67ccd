"""Which emulator and which AWS path a campaign runs on: named once, as enums the CLI, the
campaign's options, the worker's spec and campaign.json share (a module light enough for
each of them to import)."""

from __future__ import annotations

import enum


class BackendKind(enum.StrEnum):
    """The backends `--backend` names; `backends.make_backend` builds one from its name."""

    MOTO = "moto"  # MotoBackend: moto in this process
    MOTO_SERVER = "moto-server"  # MotoServerBackend: moto's HTTP server
    LOCALSTACK = "localstack"  # LocalStackBackend


class AwsPath(enum.StrEnum):
    """How a handler's AWS calls reach in-process moto (`--aws-path`)."""

    FAST = "fast"  # hot operations answered in `before-call`, clients reused (fast_aws.py)
    MOTO = "moto"  # every call through botocore's full HTTP path into moto's stubber
