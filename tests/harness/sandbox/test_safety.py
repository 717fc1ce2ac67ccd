"""The sandbox: fake credentials only, no profiles, no proxies, an empty HOME, and a guard
that refuses the network (but loopback), processes, native code and a raised memory limit.

No test here sends a packet off this machine. Refusals are first proven through `sys.audit`
with exactly the arguments CPython passes (no socket or process involved); only then is the
real call made, which the same hook refuses before the system call.  Probes that need real
sockets in numbers live in test_guard_holes.py, inside a network namespace.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ProfileNotFound

from lambdafuzz.errors import SafetyError
from lambdafuzz.harness.sandbox.safety import (
    FAKE_CREDENTIALS,
    NO_PROXY,
    apply_sandbox_env,
    armed,
    check_endpoint,
    is_armed,
    sandbox_env,
    sandbox_violation,
)

REAL_LOOKING = {
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AWS_SESSION_TOKEN": "FwoGZXIvYXdzEXAMPLE",
    "AWS_SECURITY_TOKEN": "FwoGZXIvYXdzEXAMPLE",
    "AWS_PROFILE": "prod",
    "AWS_DEFAULT_PROFILE": "prod",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.2/creds",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN": "secret",
    "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/secrets/token",
    "AWS_ROLE_ARN": "arn:aws:iam::111122223333:role/prod",
    "AWS_ENDPOINT_URL": "https://s3.amazonaws.com",
    "AWS_ENDPOINT_URL_S3": "https://s3.amazonaws.com",
    "AWS_CA_BUNDLE": "/etc/ssl/certs/ca-certificates.crt",
}
PROXIES = {
    "HTTP_PROXY": "http://10.0.0.1:3128",
    "HTTPS_PROXY": "http://10.0.0.1:3128",
    "ALL_PROXY": "socks5://10.0.0.1:1080",
    "NO_PROXY": "*",
    "http_proxy": "http://10.0.0.1:3128",
    "https_proxy": "http://10.0.0.1:3128",
    "all_proxy": "socks5://10.0.0.1:1080",
    "no_proxy": "*",
    "FTP_PROXY": "http://10.0.0.1:3128",
    "socks_proxy": "socks5://10.0.0.1:1080",
}


def _home_with_profile(tmp_path: Path) -> dict[str, str]:
    """A base environment whose ~/.aws holds a real-looking `prod` profile."""
    aws = tmp_path / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text(
        "[prod]\naws_access_key_id = AKIAPROD\naws_secret_access_key = prodsecret\n"
    )
    (aws / "config").write_text("[profile prod]\nregion = eu-west-1\n")
    return {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", ""), **REAL_LOOKING}


# --- environment ------------------------------------------------------------------------


def test_sandbox_env_drops_real_credentials_and_profiles(tmp_path: Path) -> None:
    env = sandbox_env(
        {"TABLE_NAME": "grades"}, region="eu-central-1", base=_home_with_profile(tmp_path)
    )
    for key, value in FAKE_CREDENTIALS.items():
        assert env[key] == value
    for key in REAL_LOOKING:
        if key not in FAKE_CREDENTIALS:
            assert key not in env, key
    assert env["AWS_DEFAULT_REGION"] == env["AWS_REGION"] == "eu-central-1"
    assert env["AWS_EC2_METADATA_DISABLED"] == "true"
    assert env["TABLE_NAME"] == "grades"
    home = Path(env["HOME"])
    assert home != tmp_path and home.is_dir() and list(home.iterdir()) == []
    for key in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        path = Path(env[key])
        assert path.parent == home / ".aws" and not path.exists(), key


def test_sandbox_env_takes_the_workers_home_and_tmpdir(tmp_path: Path) -> None:
    env = sandbox_env(base={"HOME": "/root", "TMPDIR": "/var/tmp"}, home=str(tmp_path), tmpdir="/x")
    assert env["HOME"] == str(tmp_path)
    assert env["AWS_CONFIG_FILE"] == str(tmp_path / ".aws" / "config")
    assert env["AWS_SHARED_CREDENTIALS_FILE"] == str(tmp_path / ".aws" / "credentials")
    assert env["TMPDIR"] == "/x"
    assert "TMPDIR" not in sandbox_env(base={"TMPDIR": "/var/tmp"})  # never the user's


def test_sandbox_env_empties_a_home_a_handler_filled() -> None:
    home = Path(sandbox_env(base={})["HOME"])
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("[default]\naws_access_key_id = AKIA\n")
    (home / ".netrc").write_text("machine example.com\n")
    assert Path(sandbox_env(base={})["HOME"]) == home
    assert list(home.iterdir()) == []


def test_sandbox_env_drops_every_proxy_and_keeps_loopback_direct() -> None:
    env = sandbox_env(base={"PATH": "/bin", **PROXIES})
    assert {k for k in env if k.lower().endswith("_proxy")} == {"NO_PROXY", "no_proxy"}
    assert env["NO_PROXY"] == env["no_proxy"] == NO_PROXY == "127.0.0.1,localhost,::1"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"AWS_PROFILE": "prod"}, "AWS_PROFILE"),
        ({"AWS_ROLE_ARN": "arn:aws:iam::1:role/x"}, "AWS_ROLE_ARN"),
        ({"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE"}, "real-looking"),
        ({"AWS_SHARED_CREDENTIALS_FILE": "~/.aws/credentials"}, "AWS_SHARED_CREDENTIALS_FILE"),
        ({"AWS_ENDPOINT_URL": "https://s3.amazonaws.com"}, "not on loopback|cannot resolve"),
        ({"AWS_ENDPOINT_URL_SQS": "http://10.0.0.5:4566"}, "not on loopback"),
        ({"HTTPS_PROXY": "http://10.0.0.1:3128"}, "without proxies"),
        ({"no_proxy": "*"}, "without proxies"),
        ({"HOME": "/root"}, "empty HOME"),
        ({"TMPDIR": "/var/tmp"}, "private temp dir"),
    ],
)
def test_sandbox_env_refuses_a_way_out_in_extra(extra: dict[str, str], message: str) -> None:
    with pytest.raises(SafetyError, match=message):
        sandbox_env(extra, base={})


def test_sandbox_env_accepts_the_backend_env() -> None:
    extra = {
        **FAKE_CREDENTIALS,
        "AWS_ENDPOINT_URL": "http://127.0.0.1:4566",
        "AWS_REGION": "us-west-2",
    }
    env = sandbox_env(extra, base={})
    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:4566"
    assert env["AWS_REGION"] == "us-west-2"


def test_apply_sandbox_env_restores_the_environment_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_PROFILE", "prod")
    monkeypatch.setenv("LAMBDAFUZZ_TEST_MARK", "kept")
    before = dict(os.environ)
    with apply_sandbox_env({"QUEUE_URL": "http://127.0.0.1/q"}) as env:
        assert "AWS_PROFILE" not in os.environ
        assert os.environ["QUEUE_URL"] == "http://127.0.0.1/q"
        assert dict(os.environ) == env
    assert dict(os.environ) == before


def test_without_the_fake_credentials_nothing_resolves_from_the_users_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A handler that deletes the fake keys finds no credentials: HOME is empty."""
    for key, value in _home_with_profile(tmp_path).items():
        monkeypatch.setenv(key, value)
    (tmp_path / ".aws" / "credentials").write_text(
        "[default]\naws_access_key_id = AKIAHOME\naws_secret_access_key = homesecret\n"
    )
    with apply_sandbox_env(), armed():
        for key in FAKE_CREDENTIALS:
            del os.environ[key]
        assert boto3.session.Session().get_credentials() is None


def test_sessions_in_the_sandbox_get_fake_credentials_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in _home_with_profile(tmp_path).items():
        monkeypatch.setenv(key, value)
    with apply_sandbox_env():
        credentials = boto3.session.Session().get_credentials()
        assert credentials.access_key == "testing"
        assert credentials.secret_key == "testing"


def test_a_named_profile_fails_with_a_clear_sandbox_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in _home_with_profile(tmp_path).items():
        monkeypatch.setenv(key, value)
    with apply_sandbox_env(), pytest.raises(ProfileNotFound) as caught:
        boto3.session.Session(profile_name="prod").client("s3")
    violation = sandbox_violation(caught.value)
    assert isinstance(violation, SafetyError)
    assert "profile 'prod'" in str(violation)
    assert "sandbox violation" in str(violation)
    # also when the handler wraps it in its own error
    try:
        raise RuntimeError("could not start") from caught.value
    except RuntimeError as wrapped:
        assert sandbox_violation(wrapped) is not None
    assert sandbox_violation(ValueError("an ordinary bug")) is None


# --- network guard ------------------------------------------------------------------------


def test_guard_refuses_8_8_8_8_and_records_it() -> None:
    with armed() as record:
        # Exactly what socket.connect raises before its system call.
        with pytest.raises(
            SafetyError, match=r"tried to connect to 8\.8\.8\.8:443 during a test"
        ) as caught:
            sys.audit("socket.connect", None, ("8.8.8.8", 443))
        assert "only allows loopback" in str(caught.value)
        # Proven above through the same hook: this real connect never reaches the kernel.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(SafetyError):
            s.settimeout(0.5)
            s.connect(("8.8.8.8", 443))
    assert len(record.violations) == 2
    assert not is_armed()


@pytest.mark.parametrize(
    ("event", "args", "shown"),
    [
        ("socket.getaddrinfo", ("example.com", 443, 0, 1, 6), "look up example.com:443"),
        ("socket.gethostbyname", ("example.com",), "look up example.com"),
        ("socket.sendto", (None, ("1.1.1.1", 53)), "send to 1.1.1.1:53"),
        (
            "socket.connect",
            (None, ("2001:4860:4860::8888", 443, 0, 0)),
            "connect to 2001:4860:4860::8888:443",
        ),
        ("socket.connect", (None, ("10.0.0.1", 80)), "connect to 10.0.0.1:80"),
        ("socket.connect", (None, ("0.0.0.0", 80)), "connect to 0.0.0.0:80"),
    ],
)
def test_guard_refuses_lookups_and_sends_off_loopback(
    event: str, args: tuple[object, ...], shown: str
) -> None:
    with armed(), pytest.raises(SafetyError, match=shown):
        sys.audit(event, *args)


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("socket.connect", (None, ("127.0.0.1", 4566))),
        ("socket.connect", (None, ("127.8.9.10", 4566))),
        ("socket.connect", (None, ("::1", 4566, 0, 0))),
        ("socket.connect", (None, ("::ffff:127.0.0.1", 4566, 0, 0))),
        ("socket.connect", (None, "/var/run/docker.sock")),
        ("socket.getaddrinfo", ("localhost", 4566, 0, 0, 0)),
        ("socket.getaddrinfo", (None, 0, 0, 0, 0)),
    ],
)
def test_guard_allows_loopback(event: str, args: tuple[object, ...]) -> None:
    with armed() as record:
        sys.audit(event, *args)
    assert record.violations == []


def test_guard_lets_a_real_loopback_connection_through() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        accepted: list[bytes] = []

        def serve() -> None:
            conn, _ = server.accept()
            with conn:
                accepted.append(conn.recv(16))

        thread = threading.Thread(target=serve)
        thread.start()
        with armed() as record, socket.create_connection(("localhost", port), timeout=5) as client:
            client.sendall(b"hello")
        thread.join(5)
    assert accepted == [b"hello"]
    assert record.violations == []


def test_guard_is_a_no_op_when_disarmed() -> None:
    with armed():
        pass
    sys.audit("socket.connect", None, ("8.8.8.8", 443))  # no socket: nothing is sent
    assert not is_armed()


def test_guard_stops_an_sdk_call_and_the_violation_survives_botocore() -> None:
    # First through the hook alone: the lookup below is refused before any DNS query.
    with armed(), pytest.raises(SafetyError, match=r"look up example.com:443"):
        sys.audit("socket.getaddrinfo", "example.com", 443, 0, 1, 6)
    client = boto3.client(
        "s3",
        endpoint_url="https://example.com",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 1}),
    )
    with armed() as record, pytest.raises(Exception) as caught:
        client.list_buckets()
    violation = sandbox_violation(caught.value)
    assert violation is not None and "example.com" in str(violation)
    assert record.violations, "a handler that swallows the error still leaves the record"


@pytest.mark.parametrize(
    ("event", "args", "shown"),
    [
        ("socket.connect", (None, (bytearray(b"8.8.8.8"), 443)), "connect to bytearray"),
        ("socket.connect", (None, (b"8.8.8.8", 443)), "connect to bytes('8.8.8.8'):443"),
        ("socket.sendto", (None, (bytearray(b"example.com"), 53)), "send to bytearray"),
        ("socket.bind", (None, ("0.0.0.0", 8080)), "listen on 0.0.0.0:8080"),
        ("socket.bind", (None, ("", 8080)), "listen on :8080"),
        ("socket.gethostbyaddr", ("8.8.8.8",), "look up 8.8.8.8"),
        ("socket.gethostbyaddr", ("example.com",), "look up example.com"),
        ("socket.getnameinfo", (("8.8.8.8", 443),), "look up 8.8.8.8"),
        ("socket.getaddrinfo", (bytearray(b"example.com"), 443, 0, 1, 6), "look up bytearray"),
        ("socket.connect", (None, (12345, 443)), "connect to 12345:443"),
    ],
)
def test_guard_checks_hosts_of_every_type_and_every_lookup(
    event: str, args: tuple[object, ...], shown: str
) -> None:
    with armed(), pytest.raises(SafetyError, match=re.escape(shown)):
        sys.audit(event, *args)


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("socket.gethostbyaddr", ("127.0.0.1",)),
        ("socket.getnameinfo", (("::1", 443, 0, 0),)),
        ("socket.bind", (None, ("127.0.0.1", 0))),
        ("socket.connect", (None, (bytearray(b"127.0.0.1"), 4566))),
    ],
)
def test_guard_allows_loopback_lookups_and_binds(event: str, args: tuple[object, ...]) -> None:
    with armed() as record:
        sys.audit(event, *args)
    assert record.violations == []


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("subprocess.Popen", ("curl", ["curl", "https://example.com"], None, None)),
        ("os.system", (b"curl https://example.com",)),
        ("os.exec", ("/usr/bin/curl", ["curl"], None)),
        ("os.posix_spawn", ("/usr/bin/curl", ["curl"], {})),
    ],
)
def test_guard_refuses_processes(event: str, args: tuple[object, ...]) -> None:
    with armed() as record, pytest.raises(SafetyError, match="start a process"):
        sys.audit(event, *args)
    assert len(record.violations) == 1
    with armed(processes=False):
        sys.audit(event, *args)  # only the audit event: nothing starts


@pytest.mark.parametrize(
    ("event", "args"),
    [("ctypes.dlopen", ("libc.so.6",)), ("ctypes.dlsym", (None, "crc32"))],
)
def test_guard_refuses_native_code_once_asked(event: str, args: tuple[object, ...]) -> None:
    with armed():
        sys.audit(event, *args)  # a library loading its native code at import
    with armed(native_code=True), pytest.raises(SafetyError, match="native code through ctypes"):
        sys.audit(event, *args)


@pytest.mark.parametrize(
    "symbol",
    ["connect", "__connect", "__libc_fork", "sendto", "socket", "getaddrinfo", "gethostbyname2",
     "res_query", "execve", "posix_spawnp", "system", "syscall", "dlsym", "Connect"],
)  # fmt: skip
@pytest.mark.parametrize("event", ["ctypes.dlsym", "ctypes.dlsym/handle"])
def test_guard_refuses_libcs_escape_functions_by_name_even_at_import(
    event: str, symbol: str
) -> None:
    with armed() as record, pytest.raises(SafetyError, match=f"look up libc's {symbol} "):
        sys.audit(event, None, symbol)
    assert len(record.violations) == 1
    with armed():  # what libraries look up at import stays allowed
        for harmless in ("getpid", "prctl", "sigaltstack", "crc32", "connection_open", 7):
            sys.audit(event, None, harmless)
    sys.audit(event, None, symbol)  # disarmed: nothing refused


def test_guard_refuses_raising_the_memory_limit() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY:
        pytest.skip("no memory limit in this process to protect")  # the worker sets one
    with armed(), pytest.raises(SafetyError, match="raise its memory limit"):
        sys.audit("resource.setrlimit", resource.RLIMIT_AS, (hard + 1, hard + 1))


def test_guard_refuses_raising_a_memory_limit_in_a_child_process() -> None:
    """The worker's case, in a child whose limit was lowered (hard and soft) first."""
    import subprocess

    code = (
        "import resource, sys\n"
        "from lambdafuzz.errors import SafetyError\n"
        "from lambdafuzz.harness.sandbox.safety import arm\n"
        "resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))\n"
        "arm()\n"
        "for limits in ((-1, -1), (16 << 30, 16 << 30)):\n"
        "    try:\n"
        "        resource.setrlimit(resource.RLIMIT_AS, limits)\n"
        "    except SafetyError:\n"
        "        continue\n"
        "    sys.exit('raised')\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # lowering is fine\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE))\n"
        "print(resource.getrlimit(resource.RLIMIT_AS))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str((4 << 30, 4 << 30))


def test_arm_lasts_until_the_process_ends_with_one_record_per_test() -> None:
    """arm() is for a worker's whole life; run in a child so this process stays unarmed."""
    import subprocess

    code = (
        "import sys, threading\n"
        "from lambdafuzz.errors import SafetyError\n"
        "from lambdafuzz.harness.sandbox.safety import arm, next_record, refuse_native_code\n"
        "first = arm()\n"
        "def thread():\n"
        "    try:\n"
        "        sys.audit('socket.connect', None, ('8.8.8.8', 443))\n"
        "    except SafetyError:\n"
        "        pass\n"
        "t = threading.Thread(target=thread); t.start(); t.join()\n"
        "second = next_record()\n"
        "sys.audit('ctypes.dlopen', 'libc.so.6')  # allowed until refuse_native_code()\n"
        "refuse_native_code()\n"
        "try:\n"
        "    sys.audit('ctypes.dlopen', 'libc.so.6')\n"
        "except SafetyError:\n"
        "    pass\n"
        "print(len(first.violations), len(second.violations))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1"]  # the thread's in the first, ctypes in the second
    assert not is_armed()


# --- endpoints --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:4566", "http://localhost:5000", "http://[::1]:4566", "https://127.0.0.2"],
)
def test_check_endpoint_accepts_loopback(url: str) -> None:
    assert check_endpoint(url) == url


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://8.8.8.8:4566", "not on loopback"),
        ("http://10.1.2.3:4566", "not on loopback"),
        ("http://0.0.0.0:4566", "not on loopback"),
        ("ftp://127.0.0.1", "not an http"),
        ("127.0.0.1:4566", "not an http"),
    ],
)
def test_check_endpoint_rejects_everything_else(url: str, message: str) -> None:
    with pytest.raises(SafetyError, match=message):
        check_endpoint(url)
