"""Reuse of boto3 clients and resource classes a handler creates again on every invocation.

Handlers commonly call `boto3.client("s3")` and `boto3.resource("dynamodb").Table(name)`
inside the handler function. Under in-process moto, creating a client costs 5-8 ms (the
endpoint ruleset provider is rebuilt, the session's event handlers are deep-copied, the
client class is generated) and a resource another class generation per `Table()`, while
the AWS call that follows costs 2-3 ms: most of a test's time goes to objects that are the
same every time.

`install()` wraps `botocore.session.Session.create_client` and boto3's
`ResourceFactory.load_from_definition`:

* A client is handed out again for a later call with identical arguments (service, region,
  endpoint, credentials, `Config` options, the session's credentials and variables, every
  `AWS_*` environment variable) on the same session, as long as it is provably as it was
  created: the same attributes on the client and its `meta`, and no event handler
  registered or unregistered on it (botocore replaces the emitter's lookup cache dict on
  every registration change, so identity of that dict is the check) nor on its session.
  A client the handler changed is never handed out again; a fresh one is created.
* A resource class (what `Table`, `Bucket`, `Object` instantiate) is generated once per
  resource definition, service model and factory; instances are still created per call.
* botocore checks that every event handler registered accepts `**kwargs`
  (`inspect.getfullargspec`) even when the registration is a repeat it then ignores, and
  boto3's DynamoDB resource registers seven handlers on its client each time it is made:
  the answer is remembered per function (`_remembered_accepts_kwargs`). With the client
  key computed once per call, `boto3.resource("dynamodb").Table(name)` went from 432 to
  127 us and `boto3.client("s3")` from 67 to 38 us (a loop of 500, in-process
  moto, quiet machine).

A handler that makes a session on every invocation (`boto3.Session(region_name=...)
.resource("dynamodb").Table(name)`) paid all of it again per call: 19.4 ms a call in a
worker, against 0.8 ms with boto3's default session (a scratch app, 500 executions).  A
session boto3 made itself is marked fresh (its emitter's version then); while it stays so
(no handler registered, no credentials set on it) its clients and resource classes are
keyed by what it was made with instead of by the session, and its built-in handlers are a
copy of the first session's (`_templated_builtin_handlers`): 2.2 ms a call.

Observable difference, the price of the speed: two `boto3.client("s3")` calls return the
same object (`is` holds), and so do two fresh sessions' `client("s3")` calls. Nothing in
the client's state depends on earlier calls (moto holds all AWS state, and it is reset per
test).
"""

from __future__ import annotations

import copy
import os
import weakref
from collections.abc import Callable
from typing import Any

_AWS_ENV_PREFIX = "AWS_"
_MAX_CLIENTS = 256


def _emitter_version(events: Any) -> Any:
    """The lookup-cache dict of the emitter behind an `EventAliaser`: replaced by botocore
    on every register/unregister, so holding it and comparing identity detects changes."""
    inner = getattr(events, "_emitter", events)
    return getattr(inner, "_lookup_cache", None)


def _config_key(config: Any) -> Any:
    if config is None:
        return None
    options = getattr(config, "_user_provided_options", None)
    if options is None:
        return _Uncacheable
    return repr(sorted(options.items()))


def _templated_builtin_handlers(original: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    """botocore's `Session._register_builtin_handlers`, done once: a new session's empty
    emitter is replaced by a copy of one that has them (botocore's own `__copy__`, which
    is how every client gets its session's handlers).  Registering the ~130 built-in
    handlers one by one, each event name aliased, was 44% of the 8.6 ms that a handler's
    `boto3.Session(region_name=...).resource("dynamodb").Table(name)` cost a call.  The
    template is made again when `BUILTIN_HANDLERS` changes; a session made with its own
    event hooks registers them as botocore does."""
    templates: dict[tuple[Any, ...], Any] = {}

    def register_builtin_handlers(session: Any, events: Any) -> None:
        import botocore.handlers
        from botocore.hooks import EventAliaser, HierarchicalEmitter

        emitter = getattr(session, "_original_handler", None)
        if (
            type(emitter) is not HierarchicalEmitter
            or type(events) is not EventAliaser
            or events is not getattr(session, "_events", None)
            or emitter._unique_id_handlers
            or emitter._handlers._root["children"]
        ):
            original(session, events)
            return
        key = tuple(tuple(spec) for spec in botocore.handlers.BUILTIN_HANDLERS)
        template = templates.get(key)
        if template is None:
            original(session, events)
            templates.clear()
            templates[key] = copy.copy(emitter)
            return
        fresh = copy.copy(template)
        fresh._lookup_cache = {}  # its own: `_emitter_version` tells emitters apart by it
        session._original_handler = fresh
        session._events = EventAliaser(fresh)

    return register_builtin_handlers


def _remembered_accepts_kwargs(original: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """botocore's `accepts_kwargs`, answered once per function: a bound method by its
    function (binding does not change whether it takes `**kwargs`); a callable that cannot
    be weakly referenced is asked every time."""
    known: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()

    def accepts_kwargs(func: Any) -> bool:
        target = getattr(func, "__func__", func)
        try:
            return known[target]
        except (KeyError, TypeError):
            pass
        answer = original(func)
        try:
            known[target] = answer
        except TypeError:
            pass
        return answer

    return accepts_kwargs


class _Uncacheable:
    """Marker: an argument this cache cannot key on (the client is created afresh)."""


class _Entry:
    __slots__ = ("session", "client", "attrs", "meta_attrs", "events_version", "session_version")

    def __init__(self, session: Any, client: Any, session_version: Any) -> None:
        self.session = session  # pinned: the key holds its id
        self.client = client
        self.session_version = session_version
        # botocore fills `client._exceptions` on the first error or `client.exceptions`
        # read, from a per-service cache: the same object whenever it is filled.  Filled
        # now, it no longer makes the client look changed after its first error (gradebook,
        # 400 executions in-process: 76 of 78 misses were that; after, 2 misses,
        # and its handler time per test 5.0 -> 3.0 ms).
        try:
            client.exceptions  # noqa: B018 - the property fills the attribute
        except Exception:  # noqa: BLE001 - a client without modelled errors is still cached
            pass
        self.snapshot()

    def snapshot(self) -> None:
        client = self.client
        self.attrs = dict(vars(client))
        self.meta_attrs = dict(vars(client.meta))
        self.events_version = _emitter_version(client.meta.events)

    def pristine(self, session: Any, session_version: Any) -> bool:
        if session is not self.session or session_version is not self.session_version:
            return False
        return self.unchanged()

    def unchanged(self) -> bool:
        """The client is as it was made: no attribute set, no handler (un)registered."""
        client = self.client
        if _emitter_version(client.meta.events) is not self.events_version:
            return False
        return _same(vars(client), self.attrs) and _same(vars(client.meta), self.meta_attrs)


#: Set on a botocore session that boto3.Session made itself: its emitter's version then.
_FRESH_ATTR = "_lambdafuzz_fresh"


def _marking_init(original: Callable[..., None]) -> Callable[..., None]:
    """boto3's `Session.__init__`, then the botocore session it made marked fresh (not one
    passed in as `botocore_session`)."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        given = kwargs.get("botocore_session", args[4] if len(args) > 4 else None)
        session = getattr(self, "_session", None)
        if given is None and session is not None:
            version = _emitter_version(getattr(session, "_events", None))
            setattr(session, _FRESH_ATTR, version)
            factory = getattr(self, "resource_factory", None)
            if factory is not None and getattr(factory, "_emitter", None) is session._events:
                setattr(factory, _FRESH_ATTR, version)

    return __init__


def _fresh_key(session: Any, session_version: Any, key: tuple[Any, ...]) -> Any:
    """The key of a client on a session boto3 just made and nothing changed since (no
    handler registered, no credentials set: they come from the environment, which the key
    holds): any other such session made with the same arguments gets the same client.  A
    handler calling `boto3.Session(region_name=...).client(...)` on every invocation
    otherwise made a client afresh every time.  None for any other session."""
    if session_version is None or getattr(session, _FRESH_ATTR, None) is not session_version:
        return None
    if getattr(session, "_credentials", None) is not None:
        return None
    config_key = _config_key(getattr(session, "_client_config", None))
    if config_key is _Uncacheable:
        return None
    agent = (session.user_agent_name, session.user_agent_version, session.user_agent_extra)
    return ("fresh", *key[1:6], agent, config_key)


def _same(now: dict[str, Any], then: dict[str, Any]) -> bool:
    if len(now) != len(then):
        return False
    return all(now.get(key, _Uncacheable) is value for key, value in then.items())


class ClientCache:
    """The installed wrappers and their caches (one per worker process)."""

    def __init__(self) -> None:
        self.clients: dict[Any, _Entry] = {}
        # clients made on a session boto3 had just made, by what the session was made with:
        # handed out to another such session (`_fresh_key`)
        self.fresh: dict[Any, _Entry] = {}
        self._made: dict[int, _Entry] = {}  # id(client) -> its entry
        self.classes: dict[Any, tuple[Any, tuple[Any, ...]]] = {}
        self.hits = 0
        self.misses = 0
        self._originals: dict[str, Any] = {}

    @property
    def installed(self) -> bool:
        return bool(self._originals)

    def install(self) -> None:
        if self.installed:
            return
        import boto3.session
        import botocore.hooks
        import botocore.session
        from boto3.resources.factory import ResourceFactory

        cache = self
        create_client = botocore.session.Session.create_client
        load_from_definition = ResourceFactory.load_from_definition
        resource = boto3.session.Session.resource
        self._originals = {
            "create_client": create_client,
            "load": load_from_definition,
            "resource": resource,
            "accepts_kwargs": botocore.hooks.accepts_kwargs,
            "builtin_handlers": botocore.session.Session._register_builtin_handlers,
        }
        botocore.hooks.accepts_kwargs = _remembered_accepts_kwargs(botocore.hooks.accepts_kwargs)
        botocore.session.Session._register_builtin_handlers = _templated_builtin_handlers(  # type: ignore[method-assign]
            botocore.session.Session._register_builtin_handlers
        )
        self._originals["boto3_init"] = boto3.session.Session.__init__
        boto3.session.Session.__init__ = _marking_init(boto3.session.Session.__init__)  # type: ignore[method-assign]

        def cached_resource(session: Any, *args: Any, **kwargs: Any) -> Any:
            made = resource(session, *args, **kwargs)
            # boto3 itself registers handlers on the resource's client while building it
            # (DynamoDB's high-level interface, once per client): part of the client as
            # `resource()` makes it, not a change by the handler.
            cache.settled(made.meta.client)
            return made

        def cached_create_client(session: Any, *args: Any, **kwargs: Any) -> Any:
            return cache.client(session, create_client, args, kwargs)

        def cached_load(
            factory: Any,
            resource_name: Any,
            single_resource_json_definition: Any,
            service_context: Any,
        ) -> Any:
            return cache.resource_class(
                factory,
                load_from_definition,
                resource_name,
                single_resource_json_definition,
                service_context,
            )

        botocore.session.Session.create_client = cached_create_client  # type: ignore[method-assign]
        ResourceFactory.load_from_definition = cached_load  # type: ignore[method-assign]
        boto3.session.Session.resource = cached_resource  # type: ignore[method-assign]

    def uninstall(self) -> None:
        if not self.installed:
            return
        import boto3.session
        import botocore.hooks
        import botocore.session
        from boto3.resources.factory import ResourceFactory

        botocore.hooks.accepts_kwargs = self._originals["accepts_kwargs"]
        botocore.session.Session._register_builtin_handlers = self._originals["builtin_handlers"]  # type: ignore[method-assign]
        boto3.session.Session.__init__ = self._originals["boto3_init"]  # type: ignore[method-assign]
        boto3.session.Session.resource = self._originals["resource"]  # type: ignore[method-assign]
        botocore.session.Session.create_client = self._originals["create_client"]  # type: ignore[method-assign]
        ResourceFactory.load_from_definition = self._originals["load"]  # type: ignore[method-assign]
        self._originals = {}
        self.clear()

    def clear(self) -> None:
        self.clients.clear()
        self.fresh.clear()
        self._made.clear()
        self.classes.clear()

    def client(
        self, session: Any, create: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        key = self._client_key(session, args, kwargs)
        session_version = _emitter_version(getattr(session, "_events", None))
        fresh_key = None
        if key is not None:
            entry = self.clients.get(key)
            if entry is not None and entry.pristine(session, session_version):
                self.hits += 1
                return entry.client
            fresh_key = _fresh_key(session, session_version, key)
            entry = self.fresh.get(fresh_key) if fresh_key is not None else None
            if entry is not None and entry.unchanged():
                self.hits += 1
                return entry.client
        self.misses += 1
        client = create(session, *args, **kwargs)
        # botocore registers some of the session's handlers lazily, on its first client
        session_version = _emitter_version(getattr(session, "_events", None))
        # ... and resolves its credentials on the first client: key on what a next call sees
        key = self._client_key(session, args, kwargs) if key is not None else None
        if key is not None:
            if len(self.clients) >= _MAX_CLIENTS:  # e.g. a new boto3.Session per call
                self.clients.clear()
                self._made.clear()
                self.fresh.clear()
            self.clients[key] = entry = _Entry(session, client, session_version)
            self._made[id(client)] = entry
            if fresh_key is not None:
                self.fresh[fresh_key] = entry
        return client

    def settled(self, client: Any) -> None:
        """`client` as it is now is how it was made (see `install`'s resource wrapper)."""
        entry = self._made.get(id(client))
        if entry is not None and entry.client is client:
            entry.snapshot()

    def _client_key(self, session: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        config = kwargs.get("config")
        if len(args) > 9:
            config = args[9]
        config_key = _config_key(config)
        if config_key is _Uncacheable:
            return None
        plain = [a for i, a in enumerate(args) if i != 9]
        named = tuple(sorted((k, v) for k, v in kwargs.items() if k != "config"))
        env = tuple(sorted(kv for kv in os.environ.items() if kv[0].startswith(_AWS_ENV_PREFIX)))
        session_vars = getattr(session, "_session_instance_vars", {})
        credentials = getattr(session, "_credentials", None)
        try:
            key = (
                id(session),
                tuple(plain),
                named,
                config_key,
                env,
                tuple(sorted(session_vars.items())),
                id(credentials),
            )
            hash(key)
        except TypeError:
            return None
        return key

    def resource_class(
        self,
        factory: Any,
        load: Any,
        resource_name: Any,
        definition: Any,
        service_context: Any,
    ) -> Any:
        parts = _context_parts(service_context)
        fresh = getattr(factory, _FRESH_ATTR, None)
        if fresh is not None and fresh is _emitter_version(getattr(factory, "_emitter", None)):
            # the factory of a session boto3 just made, its handlers as boto3 left them:
            # any such factory makes the same class (waiters load through its session
            # alike); a per-invocation `boto3.Session().resource(...)` made it every time
            pins = ("fresh", definition, *parts[:3], parts[4])
        else:
            pins = (factory, definition, *parts)
        key = (resource_name, *map(id, pins))
        found = self.classes.get(key)
        if found is not None:
            return found[0]
        cls = load(factory, resource_name, definition, service_context)
        if len(self.classes) >= _MAX_CLIENTS:
            self.classes.clear()
        self.classes[key] = (cls, pins)  # pins keep the ids in the key from being reused
        return cls


def _context_parts(service_context: Any) -> tuple[Any, ...]:
    """What a boto3 `ServiceContext` determines, as objects stable across `resource()`
    calls: boto3 wraps the same loaded service description and session in new
    `ServiceModel` and `LazyLoadedWaiterModel` objects on every call."""
    model = service_context.service_model
    waiters = service_context.service_waiter_model
    return (
        service_context.service_name,
        getattr(model, "_service_description", model),
        service_context.resource_json_definitions,
        getattr(waiters, "_session", waiters),
        getattr(waiters, "_api_version", None),
    )


CACHE = ClientCache()
