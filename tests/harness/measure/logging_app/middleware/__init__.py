"""A stand-in for a third-party event-validation library (outside `app_packages`): it
replaces the handler's own exception by its own, as validation middleware does."""

from __future__ import annotations

import functools


class EventValidationError(Exception):
    pass


def validated(handler):
    @functools.wraps(handler)
    def wrapper(event, context):
        try:
            return handler(event, context)
        except (KeyError, ValueError) as exc:
            raise EventValidationError(f"invalid event: {type(exc).__name__}") from None

    return wrapper
