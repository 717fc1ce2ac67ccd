"""Keep the code under test away from real AWS accounts and the network.

Three fences, each cheap enough to stay on for every test:

* `sandbox_env` builds the handler's environment: fake credentials, every inherited `AWS_*`
  variable dropped (real keys, profiles, container and web-identity credentials, endpoint
  overrides), and `AWS_CONFIG_FILE`/`AWS_SHARED_CREDENTIALS_FILE` pointed at empty files, so
  `boto3.Session(profile_name="prod")` fails instead of finding `~/.aws/credentials`.
* `armed()` turns on a `sys.addaudithook` network guard: while armed, a connect, sendto or
  name lookup aimed at anything but loopback raises `SafetyError` *before* a packet leaves.
  An audit hook can never be removed, so it is installed once and is a no-op when disarmed.
* `check_endpoint` refuses emulator endpoints that do not resolve to loopback.

How the harness classifies a violation: a `SafetyError` (also when wrapped by botocore, see
`sandbox_violation`) is a FAILURE whose cause is "sandbox violation"; the campaign goes on.
Handlers that swallow exceptions still leave the violation in `GuardRecord.violations`, so
check that after every armed run.
"""

from __future__ import annotations

import atexit
import contextlib
import ipaddress
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from lambdafuzz.errors import SafetyError

FAKE_ACCESS_KEY_ID = "testing"
FAKE_SECRET_ACCESS_KEY = "testing"
FAKE_SESSION_TOKEN = "testing"

FAKE_CREDENTIALS: Mapping[str, str] = {
    "AWS_ACCESS_KEY_ID": FAKE_ACCESS_KEY_ID,
    "AWS_SECRET_ACCESS_KEY": FAKE_SECRET_ACCESS_KEY,
    "AWS_SESSION_TOKEN": FAKE_SESSION_TOKEN,
}

# Variables a user's `env:` may never set: each could lead an SDK to real credentials.
_FORBIDDEN_EXTRA = frozenset(
    {
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_SECURITY_TOKEN",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
        "AWS_ROLE_SESSION_NAME",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        "AWS_EC2_METADATA_DISABLED",
        "AWS_EC2_METADATA_SERVICE_ENDPOINT",
        "AWS_CREDENTIAL_EXPIRATION",
    }
)

_SANDBOX_DIR: str | None = None


def _sandbox_dir() -> str:
    """A temp dir holding the empty AWS config and credentials files (made once per process)."""
    global _SANDBOX_DIR
    if _SANDBOX_DIR is None or not os.path.isdir(_SANDBOX_DIR):
        _SANDBOX_DIR = tempfile.mkdtemp(prefix="lambdafuzz-aws-")
        atexit.register(shutil.rmtree, _SANDBOX_DIR, True)
    for name in ("config", "credentials"):
        path = os.path.join(_SANDBOX_DIR, name)
        # Rewritten on every call: a handler may have written a profile into them.
        if not os.path.exists(path) or os.path.getsize(path):
            with open(path, "w"):
                pass
    return _SANDBOX_DIR


def sandbox_env(
    extra: Mapping[str, str] | None = None,
    *,
    region: str = "us-east-1",
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The complete environment a handler runs with (`base` defaults to `os.environ`).

    Every inherited `AWS_*` variable is dropped, fake credentials and `region` are set, then
    `extra` (the config's `env:` plus the backend's `client_env()`) is applied. `extra` may
    repeat the fake credentials but not set real ones, profiles or role/container
    credentials, and an `AWS_ENDPOINT_URL*` in it must be loopback; otherwise SafetyError.
    """
    env = {
        k: v for k, v in (os.environ if base is None else base).items() if not k.startswith("AWS_")
    }
    env.pop("BOTO_CONFIG", None)
    folder = _sandbox_dir()
    env.update(FAKE_CREDENTIALS)
    env.update(
        AWS_DEFAULT_REGION=region,
        AWS_REGION=region,
        AWS_CONFIG_FILE=os.path.join(folder, "config"),
        AWS_SHARED_CREDENTIALS_FILE=os.path.join(folder, "credentials"),
        AWS_EC2_METADATA_DISABLED="true",
    )
    for key, value in (extra or {}).items():
        if key in FAKE_CREDENTIALS:
            if value != FAKE_CREDENTIALS[key]:
                raise SafetyError(
                    f"env sets {key} to a real-looking value; lambdafuzz runs handlers with "
                    f"fake credentials only ({key}={FAKE_CREDENTIALS[key]!r}). Remove it from `env:`."
                )
        elif key in _FORBIDDEN_EXTRA:
            raise SafetyError(
                f"env sets {key}={value!r}; lambdafuzz never lets a handler use AWS profiles, "
                "roles or credential providers, so it cannot reach a real account. Remove it from `env:`."
            )
        elif key.startswith("AWS_ENDPOINT_URL"):
            check_endpoint(value)
        env[key] = value
    return env


@contextlib.contextmanager
def apply_sandbox_env(
    extra: Mapping[str, str] | None = None, *, region: str = "us-east-1"
) -> Iterator[dict[str, str]]:
    """Replace `os.environ` by `sandbox_env(extra)` for the block, then restore it exactly."""
    saved = dict(os.environ)
    env = sandbox_env(extra, region=region, base=saved)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield env
    finally:
        os.environ.clear()
        os.environ.update(saved)


# --- network guard ---------------------------------------------------------------------

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


@dataclass(slots=True)
class GuardRecord:
    """What one armed block saw; `violations` survives a handler that swallows the error."""

    violations: list[SafetyError] = field(default_factory=list)


_armed_record: GuardRecord | None = None  # the one flag the audit hook reads
_hook_installed = False
_allowed_names: set[str] = set(_LOOPBACK_NAMES)


def _is_loopback_ip(host: str) -> bool | None:
    """True/False for an IP literal, None for a host name."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if ip.is_loopback:
        return True
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(mapped is not None and mapped.is_loopback)


def _host_allowed(host: object) -> bool:
    if host is None:  # getaddrinfo(None, port): the local wildcard
        return True
    if isinstance(host, bytes):
        host = host.decode("idna", "replace")
    if not isinstance(host, str):
        return True
    host = host.strip("[]").lower().rstrip(".")
    loopback = _is_loopback_ip(host)
    if loopback is not None:
        return loopback
    return host in _allowed_names


def _refuse(record: GuardRecord, what: str, host: object, port: object) -> None:
    target = f"{host}:{port}" if port not in (None, 0, "") else str(host)
    error = SafetyError(
        f"sandbox violation: the code under test tried to {what} {target} during a test; "
        "lambdafuzz only allows loopback (127.0.0.0/8, ::1, localhost) so a handler can never "
        "reach real AWS or any other host. Point the client at the emulator (AWS_ENDPOINT_URL "
        "is set for you) or mock the call."
    )
    record.violations.append(error)
    raise error


_LOOKUPS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex")


def _audit(event: str, args: tuple[object, ...]) -> None:
    # Runs for *every* audit event in the process (imports, opens, exec ...): one global read
    # and one compare when disarmed.
    record = _armed_record
    if record is None or not event.startswith("socket."):
        return
    if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        address = args[1] if len(args) > 1 else None
        if isinstance(address, tuple) and address and not _host_allowed(address[0]):
            verb = "connect to" if event == "socket.connect" else "send to"
            _refuse(record, verb, address[0], address[1] if len(address) > 1 else None)
    elif event in _LOOKUPS and args and not _host_allowed(args[0]):
        _refuse(record, "look up", args[0], args[1] if len(args) > 1 else None)


def _install_hook() -> None:
    global _hook_installed
    if not _hook_installed:
        sys.addaudithook(_audit)
        _hook_installed = True


@contextlib.contextmanager
def armed() -> Iterator[GuardRecord]:
    """Refuse non-loopback network access inside the block (all threads of the process)."""
    global _armed_record
    _install_hook()
    previous, record = _armed_record, GuardRecord()
    _armed_record = record
    try:
        yield record
    finally:
        _armed_record = previous


def is_armed() -> bool:
    return _armed_record is not None


def allow_host(name: str) -> None:
    """Let the guard resolve `name`: only for names `check_endpoint` proved are loopback."""
    _allowed_names.add(name.lower().rstrip("."))


def check_endpoint(url: str) -> str:
    """Return `url` if it is http(s) on a loopback host; raise SafetyError otherwise.

    Host names are resolved (call this before arming the guard) and every address they
    resolve to must be loopback; the name is then allowed through the guard.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SafetyError(
            f"endpoint {url!r} is not an http(s) URL with a host; expected e.g. http://127.0.0.1:4566"
        )
    host = parts.hostname.lower().rstrip(".")
    loopback = _is_loopback_ip(host)
    if loopback is None:
        try:
            infos = socket.getaddrinfo(host, parts.port or 80, proto=socket.IPPROTO_TCP)
        except OSError as e:
            raise SafetyError(f"endpoint {url!r}: cannot resolve {host!r} ({e})") from e
        addresses = sorted({info[4][0] for info in infos})
        loopback = bool(addresses) and all(_is_loopback_ip(str(a)) for a in addresses)
        if loopback:
            allow_host(host)
        else:
            host = f"{host} ({', '.join(map(str, addresses))})"
    if not loopback:
        raise SafetyError(
            f"endpoint {url!r} is not on loopback: {host} is not 127.0.0.0/8, ::1 or localhost. "
            "lambdafuzz only talks to emulators on this machine so it can never touch a real account."
        )
    return url


def sandbox_violation(exc: BaseException) -> SafetyError | None:
    """The sandbox violation behind `exc`, if any: a SafetyError or a missing AWS profile.

    Walks `__cause__`/`__context__` and botocore's wrapped `error` (botocore wraps what the
    guard raises in `HTTPClientError`). A `ProfileNotFound` becomes a SafetyError whose message
    says the handler asked for a named profile, which lambdafuzz never provides.
    """
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, SafetyError):
            return e
        if type(e).__name__ == "ProfileNotFound" and type(e).__module__.startswith("botocore"):
            profile = getattr(e, "kwargs", {}).get("profile", "?")
            return SafetyError(
                f"sandbox violation: the handler asked for the AWS profile {profile!r}; lambdafuzz "
                "runs handlers with fake credentials and no profiles (AWS_CONFIG_FILE and "
                "AWS_SHARED_CREDENTIALS_FILE are empty) so it can never use a real account. "
                "Create clients without profile_name, as code running in Lambda does."
            )
        wrapped = getattr(e, "kwargs", None)
        if isinstance(wrapped, dict) and isinstance(wrapped.get("error"), BaseException):
            todo.append(wrapped["error"])
        todo.extend((e.__cause__, e.__context__))
    return None
