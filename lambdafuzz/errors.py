"""The errors lambdafuzz reports to its users, one root and a slug each.

The slug names the error in docs and lets a user silence a warning class.
"""

from __future__ import annotations


class LambdafuzzError(Exception):
    """Root of every error lambdafuzz raises on purpose."""

    slug = "error"


class InvalidArgument(LambdafuzzError):
    """A generator or API was built with arguments that can never work."""

    slug = "invalid-argument"


class ConfigError(LambdafuzzError):
    """lambdafuzz.yaml (or a SAM template) is missing, unreadable or invalid."""

    slug = "config"


class HandlerImportError(LambdafuzzError):
    """The handler module could not be imported or has no such function."""

    slug = "handler-import"


class CorpusError(LambdafuzzError):
    """A saved input could not be read or written."""

    slug = "corpus"


class BackendError(LambdafuzzError):
    """The AWS emulator could not be started, reset or loaded."""

    slug = "backend"


class SafetyError(LambdafuzzError):
    """The code under test tried to leave the sandbox (real AWS, non-loopback network)."""

    slug = "safety"
