"""AWS emulators a handler runs against: in-process moto, moto's HTTP server, LocalStack.

Every backend has the same life cycle: `start()` once, then per test `reset()` and
`load(world)`, `stop()` at the end; `client_env()` holds the variables a handler's SDK
needs (fake credentials, region, `AWS_ENDPOINT_URL` for HTTP backends); pass them to
`safety.sandbox_env`.

Order matters for in-process moto: start the backend (which imports moto and registers its
botocore hook) and apply the sandbox environment *before* importing the handler, because
handlers often create boto3 clients at import time and a client resolves credentials,
region and endpoint when it is created. Clients made before moto was imported at all are
not intercepted (see `moto.core.patch_client`).
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time
from collections.abc import Collection
from typing import Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from lambdafuzz.errors import BackendError
from lambdafuzz.harness.emulator.loaders import Boto3Loader, MotoDirectLoader, WorldLoader
from lambdafuzz.harness.emulator.moto_speedups import speed_up_moto
from lambdafuzz.harness.sandbox.safety import FAKE_CREDENTIALS, check_endpoint
from lambdafuzz.model.emulation import BackendKind
from lambdafuzz.model.world import LoadedWorld, World

LOCALSTACK_IMAGE = "localstack/localstack"
# The services a world uses; their per-region backends are rebuilt on every reset.
MOTO_SERVICES = ("s3", "dynamodb", "dynamodbstreams", "sqs", "sns", "events")


@runtime_checkable
class Backend(Protocol):
    name: str
    endpoint: str | None

    def start(self) -> None: ...
    def reset(self) -> None: ...
    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld: ...
    def stop(self) -> None: ...
    def client_env(self) -> dict[str, str]: ...


def _sdk_env(region: str, endpoint: str | None) -> dict[str, str]:
    env = dict(FAKE_CREDENTIALS, AWS_DEFAULT_REGION=region, AWS_REGION=region)
    if endpoint is not None:
        env["AWS_ENDPOINT_URL"] = endpoint
    return env


# --- in-process moto --------------------------------------------------------------------


class MotoBackend:
    """moto's `mock_aws` in this process: no sockets, state in moto's backend objects.

    One emulator per process (moto's state is global); `start()` is idempotent. `reset()`
    rebuilds the per-region backend objects of the services in use (`BaseBackend.reset`
    re-runs `__init__` on the same object) instead of deleting resources through boto3, and
    then drops moto's model-instance tracking lists, which otherwise grow with every object
    ever created and make S3's reset walk them all (0.1 ms -> 4.3 ms over 3,000 tests).
    """

    name = BackendKind.MOTO
    endpoint: str | None = None

    def __init__(
        self,
        *,
        loader: Literal["direct", "boto3"] = "direct",
        region: str = "us-east-1",
        id_seed: int | None = 0,
        clear_model_tracking: bool = True,
    ) -> None:
        if loader not in ("direct", "boto3"):
            raise BackendError(f"unknown moto loader {loader!r}; expected 'direct' or 'boto3'")
        self.region = region
        self.loader_name = loader
        self.loader: WorldLoader = self._new_loader()
        self.id_seed = id_seed  # seeds moto's ids on reset, so a replay sees the same ids
        # False only to measure what the clearing saves (benchmarks/reset_load.py).
        self.clear_model_tracking = clear_model_tracking
        self._mock: Any = None
        self._core: list[Any] = []
        self._seeded: Any = None

    def start(self) -> None:
        if self._mock is not None:
            return
        from moto import mock_aws
        from moto.core.base_backend import BackendDict

        # The sandbox sets fake credentials; moto need not overwrite os.environ with its own.
        self._mock = mock_aws(config={"core": {"mock_credentials": False}})
        self._mock.start()  # also wipes whatever an earlier mock left
        # The wipe drops moto's per-account backend objects; a loader that cached the old
        # ones (MotoDirectLoader does) would fill orphans after a stop()/start().
        self.loader = self._new_loader()
        speed_up_moto()
        self._core = [_backend_dict(service) for service in MOTO_SERVICES]
        self._core_ids = {id(d) for d in self._core}
        self._instances = BackendDict._instances
        self._tracked = _tracked_model_lists()
        self.reset()

    def _new_loader(self) -> WorldLoader:
        return MotoDirectLoader() if self.loader_name == "direct" else Boto3Loader()

    def reset(self) -> None:
        if self._mock is None:
            raise BackendError("MotoBackend.reset() before start()")
        from moto.core.model_instances import model_data

        # Our services plus any other service the handler touched (e.g. IAM, SSM): a test
        # must not see state the previous one left anywhere.
        touched = self._core + [d for d in self._instances if id(d) not in self._core_ids]
        for backend_dict in touched:
            for account in backend_dict.values():
                for backend in account.values():
                    backend.reset()
        if self.clear_model_tracking:
            if len(touched) != len(self._core) or len(model_data) != self._tracked[0]:
                self._tracked = _tracked_model_lists()
            for model in self._tracked[1]:
                if model.instances_tracked:
                    model.instances_tracked = []
        if self.id_seed is not None:
            from moto.moto_api._internal import mock_random

            if self._seeded is None:
                mock_random.seed(self.id_seed)
                self._seeded = mock_random.getstate()
            mock_random.setstate(self._seeded)  # same ids every test, ~30% cheaper than seed()

    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld:
        if self._mock is None:
            raise BackendError("MotoBackend.load() before start()")
        from moto.core import DEFAULT_ACCOUNT_ID

        if world.account_id != DEFAULT_ACCOUNT_ID:
            raise BackendError(
                f"world.account_id is {world.account_id!r} but in-process moto serves handlers "
                f"with fake credentials in account {DEFAULT_ACCOUNT_ID!r}; generate worlds for that account"
            )
        return self.loader.load(world, receive=receive)

    def stop(self) -> None:
        if self._mock is not None:
            self._mock.stop()
            self._mock = None

    def client_env(self) -> dict[str, str]:
        return _sdk_env(self.region, None)


def _pages(client: Any, operation: str) -> list[Any]:
    """Every listed resource of a paginated List/Describe call (its result key's items)."""
    paginator = client.get_paginator(operation)
    key = {"list_secrets": "SecretList", "describe_parameters": "Parameters"}[operation]
    return [item for page in paginator.paginate() for item in page.get(key, [])]


def _backend_dict(service: str) -> Any:
    module = __import__(f"moto.{service}.models", fromlist=[f"{service}_backends"])
    return getattr(module, f"{service}_backends")


def _tracked_model_lists() -> tuple[int, list[Any]]:
    """All moto model classes (they all keep `instances_tracked`), and how many services."""
    from moto.core.model_instances import model_data

    models = [m for service in list(model_data.values()) for m in list(service.values())]
    return len(model_data), models


# --- moto's HTTP server -----------------------------------------------------------------


class _Http:
    """One keep-alive HTTP connection to the emulator's control API (resets, health)."""

    def __init__(self, endpoint: str) -> None:
        parts = urlsplit(endpoint)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.https = parts.scheme == "https"
        self._conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, timeout: float = 10.0) -> tuple[int, bytes]:
        for attempt in (1, 2):  # a kept-alive connection may have been closed by the server
            if self._conn is None:
                cls = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
                self._conn = cls(self.host, self.port, timeout=timeout)
            try:
                self._conn.request(method, path, body=b"" if method == "POST" else None)
                response = self._conn.getresponse()
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class MotoServerBackend:
    """moto's `ThreadedMotoServer` on 127.0.0.1 (a free port), or an existing moto server.

    Handlers talk HTTP through `AWS_ENDPOINT_URL`; reset is moto's `POST /moto-api/reset`;
    the world is loaded through boto3. The threaded server shares moto's global state with
    this process, so do not run it beside an active in-process `MotoBackend`.
    """

    name = BackendKind.MOTO_SERVER

    def __init__(self, endpoint: str | None = None, *, region: str = "us-east-1") -> None:
        self.region = region
        self.endpoint = check_endpoint(endpoint) if endpoint else None
        self._own = endpoint is None
        self._server: Any = None
        self._http: _Http | None = None
        self.loader: Boto3Loader | None = None

    def start(self) -> None:
        if self._http is not None:
            return
        if self._own:
            try:
                from moto.server import ThreadedMotoServer
            except ImportError as exc:  # flask & co. come with the `server` extra only
                raise BackendError(
                    f"--backend moto-server needs moto's server ({exc.name or exc} is not "
                    "installed); install lambdafuzz with its `server` extra: "
                    "pip install 'lambdafuzz[server]'"
                ) from exc

            logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
            speed_up_moto()
            self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
            self._server.start()
            host, port = self._server.get_host_and_port()
            self.endpoint = check_endpoint(f"http://{host}:{port}")
        assert self.endpoint is not None
        self._http = _Http(self.endpoint)
        self.loader = Boto3Loader(self.endpoint)
        self.reset()

    def reset(self) -> None:
        if self._http is None:
            raise BackendError("MotoServerBackend.reset() before start()")
        try:
            status, body = self._http.request("POST", "/moto-api/reset")
        except OSError as e:
            raise BackendError(
                f"moto server at {self.endpoint} did not answer the reset: {e}"
            ) from e
        if status != 200:
            raise BackendError(
                f"moto server at {self.endpoint}: reset answered {status}: {body[:200]!r}"
            )

    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld:
        if self.loader is None:
            raise BackendError("MotoServerBackend.load() before start()")
        return self.loader.load(world, receive=receive)

    def stop(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._server is not None:
            self._server.stop()
            self._server = None
            self.endpoint = None

    def client_env(self) -> dict[str, str]:
        if self.endpoint is None:
            raise BackendError("MotoServerBackend.client_env() before start(): no endpoint yet")
        return _sdk_env(self.region, self.endpoint)


# --- LocalStack -------------------------------------------------------------------------


class LocalStackBackend:
    """A LocalStack endpoint: given, the localstack-client default, or a container we start.

    Reset is `POST /_localstack/state/reset`; when that is missing the backend deletes every
    bucket, table, queue and topic instead. LocalStack derives the account from the access
    key, so ARNs and queue URLs it returns name account 000000000000: use `LoadedWorld`'s
    `queue_urls`/`topic_arns`/`stream_arns`, not `World.arn()`.
    """

    name = BackendKind.LOCALSTACK

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        region: str = "us-east-1",
        image: str = LOCALSTACK_IMAGE,
        startup_timeout_s: float = 120.0,
    ) -> None:
        self.region = region
        self.image = image
        self.startup_timeout_s = startup_timeout_s
        self.endpoint = check_endpoint(endpoint) if endpoint else None
        self._container: Any = None
        self._http: _Http | None = None
        self._state_reset = True
        self.loader: Boto3Loader | None = None

    @classmethod
    def default_endpoint(cls) -> str:
        """localstack-client's convention: $AWS_ENDPOINT_URL, else $LOCALSTACK_HOST, else localhost:4566."""
        try:
            from localstack_client.config import get_service_endpoint
        except ImportError:
            return "http://localhost:4566"
        return get_service_endpoint("s3") or "http://localhost:4566"

    def start(self) -> None:
        if self._http is not None:
            return
        if self.endpoint is None:
            self.endpoint = self._start_container()
        self._http = _Http(self.endpoint)
        self._wait_healthy(
            self.startup_timeout_s if self._container else min(10.0, self.startup_timeout_s)
        )
        self.loader = Boto3Loader(self.endpoint)
        self.reset()

    def _start_container(self) -> str:
        try:
            import docker
        except ImportError as e:
            raise BackendError(
                "the localstack backend without --endpoint starts LocalStack in Docker, but the "
                "`docker` package is not installed (pip install 'lambdafuzz[localstack]'). "
                "Or run LocalStack yourself and pass --endpoint http://127.0.0.1:4566."
            ) from e
        try:
            client = docker.from_env()
            client.ping()
        except Exception as e:  # docker raises DockerException, requests' errors, OSError
            raise BackendError(
                "no Docker engine is reachable, so lambdafuzz cannot start LocalStack itself "
                f"({type(e).__name__}: {e}). Start Docker, or run LocalStack yourself (for example "
                "`scripts/test-localstack` runs it without Docker) and pass "
                "--endpoint http://127.0.0.1:4566, or use --backend moto."
            ) from e
        port = free_port()
        try:
            self._container = client.containers.run(
                self.image,
                detach=True,
                remove=True,
                ports={"4566/tcp": ("127.0.0.1", port)},
                environment={"SQS_ENDPOINT_STRATEGY": "path", "SERVICES": ",".join(MOTO_SERVICES)},
            )
        except Exception as e:
            raise BackendError(
                f"docker could not start {self.image}: {type(e).__name__}: {e}"
            ) from e
        return check_endpoint(f"http://127.0.0.1:{port}")

    def _wait_healthy(self, timeout_s: float) -> None:
        assert self._http is not None
        deadline = time.monotonic() + timeout_s
        last: object = None
        while time.monotonic() < deadline:
            try:
                status, body = self._http.request("GET", "/_localstack/health", timeout=5.0)
                if status == 200 and "services" in json.loads(body or b"{}"):
                    return
                last = f"HTTP {status}"
            except (OSError, ValueError, http.client.HTTPException) as e:
                last = e
            time.sleep(0.25)
        raise BackendError(
            f"no healthy LocalStack at {self.endpoint} after {timeout_s:.0f} s ({last}); start it "
            "or pass the right --endpoint"
        )

    def reset(self) -> None:
        if self._http is None or self.loader is None:
            raise BackendError("LocalStackBackend.reset() before start()")
        if self._state_reset:
            try:
                status, _ = self._http.request("POST", "/_localstack/state/reset", timeout=30.0)
            except OSError as e:
                raise BackendError(
                    f"LocalStack at {self.endpoint} did not answer the reset: {e}"
                ) from e
            if status == 200:
                return
            self._state_reset = False  # this LocalStack has no state API: delete instead
        self._delete_everything()

    def _delete_everything(self) -> None:
        """Reset for a LocalStack without the state API (the community runtime answers 404).

        A service that cannot even list (disabled, or DynamoDB without its Java jar) holds
        nothing to delete and is skipped; a failed deletion is a BackendError.
        """
        from botocore.exceptions import BotoCoreError, ClientError

        assert self.loader is not None
        c = self.loader.clients(self.region)

        def listed(what: str, call: Any) -> list[Any]:
            try:
                return list(call())
            except (ClientError, BotoCoreError) as e:
                logging.getLogger(__name__).debug("LocalStack reset: cannot list %s: %s", what, e)
                return []

        try:
            for bucket in listed("buckets", lambda: c["s3"].list_buckets().get("Buckets", [])):
                name = bucket["Name"]
                for page in c["s3"].get_paginator("list_object_versions").paginate(Bucket=name):
                    doomed = [
                        {"Key": v["Key"], "VersionId": v["VersionId"]}
                        for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
                    ]
                    if doomed:
                        c["s3"].delete_objects(Bucket=name, Delete={"Objects": doomed})
                c["s3"].delete_bucket(Bucket=name)
            for name in listed("tables", lambda: c["dynamodb"].list_tables().get("TableNames", [])):
                c["dynamodb"].delete_table(TableName=name)
            for url in listed("queues", lambda: c["sqs"].list_queues().get("QueueUrls", [])):
                c["sqs"].delete_queue(QueueUrl=url)
            for topic in listed("topics", lambda: c["sns"].list_topics().get("Topics", [])):
                c["sns"].delete_topic(TopicArn=topic["TopicArn"])
            for secret in listed("secrets", lambda: _pages(c["secretsmanager"], "list_secrets")):
                c["secretsmanager"].delete_secret(
                    SecretId=secret["ARN"], ForceDeleteWithoutRecovery=True
                )
            names = [
                p["Name"]
                for p in listed("parameters", lambda: _pages(c["ssm"], "describe_parameters"))
            ]
            for start in range(0, len(names), 10):  # DeleteParameters takes 10 at most
                c["ssm"].delete_parameters(Names=names[start : start + 10])
        except (ClientError, BotoCoreError) as e:
            raise BackendError(
                f"LocalStack at {self.endpoint}: reset by deletion failed: {e}"
            ) from e

    def load(self, world: World, *, receive: Collection[str] | None = None) -> LoadedWorld:
        if self.loader is None:
            raise BackendError("LocalStackBackend.load() before start()")
        return self.loader.load(world, receive=receive)

    def stop(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._container is not None:
            try:
                self._container.stop(timeout=5)
            except Exception as e:  # already gone; nothing else to clean up
                logging.getLogger(__name__).debug("stopping LocalStack container: %s", e)
            self._container = None
            self.endpoint = None

    def client_env(self) -> dict[str, str]:
        if self.endpoint is None:
            raise BackendError("LocalStackBackend.client_env() before start(): no endpoint yet")
        return _sdk_env(self.region, self.endpoint)


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_backend(name: str, endpoint: str | None = None, *, region: str = "us-east-1") -> Backend:
    """The backend `--backend NAME [--endpoint URL]` asks for (not started yet).

    `localstack` with `endpoint="default"` uses localstack-client's default endpoint
    (http://localhost:4566 unless $LOCALSTACK_HOST says otherwise); without an endpoint it
    starts LocalStack in Docker.
    """
    try:
        kind = BackendKind(name)
    except ValueError:
        import difflib

        near = difflib.get_close_matches(name, [known.value for known in BackendKind], n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise BackendError(
            f"unknown backend {name!r}: expected one of {', '.join(BackendKind)}{hint}"
        ) from None
    if kind is BackendKind.MOTO:
        if endpoint is not None:
            raise BackendError(
                "--endpoint does not apply to --backend moto (it runs in-process); "
                "use --backend moto-server or localstack with an endpoint"
            )
        return MotoBackend(region=region)
    if kind is BackendKind.MOTO_SERVER:
        return MotoServerBackend(endpoint, region=region)
    if endpoint == "default":
        endpoint = LocalStackBackend.default_endpoint()
    return LocalStackBackend(endpoint, region=region)
