"""Malformed configs, SAM templates and handler setups, each through the real command line.

Every case must end in exit status 2 with one `Error:` paragraph that names the file, the
place (a line or a YAML path) and what was expected; no traceback, no hang, and for a bad
config nothing written anywhere (the out dir is not even created).  Handlers whose import
raises, exits, crashes or hangs run in a subprocess, bounded in time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from tests.fixtures.sam import template_text

HANDLER = "def handler(event, context):\n    return None\n"

TEMPLATE = template_text("malformed", "sqs_table_function")
GOOD = """\
handler: app.handler
trigger: {kind: sqs, source: jobs}
timeout_s: 5
env:
  RETRIES: 3
resources:
  queues: [{name: jobs}]
"""

#: 9 levels of aliases, 9 wide: 9**9 (387 million) strings in under 600 bytes.
LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9) if prev else ', '.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)


@dataclass(frozen=True)
class Case:
    id: str
    write: Callable[[Path], tuple[Path, Path]]  # app dir -> (CONFIG argument, file named)
    place: str  # a regex the message must match: the line or the YAML path
    expected: str  # what the message must say was expected
    args: tuple[str, ...] = ()


def config(text: str | bytes, name: str = "lambdafuzz.yaml") -> Callable[[Path], tuple[Path, Path]]:
    """A config file (text or raw bytes) beside a good handler module."""

    def write(app: Path) -> tuple[Path, Path]:
        (app / "app.py").write_text(HANDLER)
        path = app / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path, path

    return write


def good(old: str, new: str) -> Callable[[Path], tuple[Path, Path]]:
    assert old in GOOD, old
    return config(GOOD.replace(old, new, 1))


def template(old: str = "", new: str = "", text: str | bytes | None = None):
    """A SAM template (TEMPLATE with one replacement, or `text`) with its code in src/."""

    def write(app: Path) -> tuple[Path, Path]:
        (app / "src").mkdir()
        (app / "src" / "app.py").write_text(HANDLER)
        path = app / "template.yaml"
        body = text if text is not None else TEMPLATE.replace(old, new, 1)
        assert text is not None or old in TEMPLATE, old
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body)
        return path, path

    return write


def directory_named_config(app: Path) -> tuple[Path, Path]:
    (app / "app.py").write_text(HANDLER)
    (app / "lambdafuzz.yaml").mkdir()
    return app, app / "lambdafuzz.yaml"


def fifo_config(app: Path) -> tuple[Path, Path]:
    (app / "app.py").write_text(HANDLER)
    os.mkfifo(app / "lambdafuzz.yaml")
    return app / "lambdafuzz.yaml", app / "lambdafuzz.yaml"


def fifo_in_directory(app: Path) -> tuple[Path, Path]:
    fifo_config(app)
    return app, app / "lambdafuzz.yaml"


def no_config_in_directory(app: Path) -> tuple[Path, Path]:
    (app / "app.py").write_text(HANDLER)
    return app, app


LINE = r":\d+"
CASES = [
    # --- files that are not a readable YAML text ---------------------------------------
    Case("directory-named-config", directory_named_config, "lambdafuzz.yaml: is a directory", "expected a lambdafuzz.yaml file"),
    Case("directory-named-config-given", lambda app: (directory_named_config(app)[1],) * 2, "is a directory", "expected a lambdafuzz.yaml file"),
    Case("fifo", fifo_config, "named pipe", "expected a lambdafuzz.yaml file"),
    Case("fifo-in-directory", fifo_in_directory, "named pipe", "expected a lambdafuzz.yaml file"),
    Case("no-config-in-directory", no_config_in_directory, r"no lambdafuzz.yaml \(nor a SAM template.yaml\) in this directory", "expected a file describing the handler"),
    Case("empty", config(""), "the file is empty", "expected a mapping with at least `handler` and `trigger`"),
    Case("only-comments", config("# handler: app.handler\n"), "the file is empty", "expected a mapping"),
    Case("latin-1", config("handler: app.handler  # caf\xe9\n".encode("latin-1")), ":1:", "is not UTF-8; expected a lambdafuzz.yaml in UTF-8 text"),
    Case("utf-16", config(GOOD.encode("utf-16")), ":1:1:", "UTF-16 byte-order mark; expected a lambdafuzz.yaml in UTF-8 text"),
    Case("binary-png", config(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ":3:", "NUL byte (byte 8), so it is a binary file; expected a lambdafuzz.yaml in UTF-8 text"),
    Case("control-character", config(GOOD + "dictionary: [\"a\x07b\"]\n"), ":8:", "control character U+0007 is not allowed in YAML; expected printable text"),
    Case("too-large", config("# padding\n" * 110_000), "larger than 1,000,000 bytes", "expected a lambdafuzz.yaml of at most"),
    # --- YAML that is not one mapping -------------------------------------------------
    Case("top-level-list", config("- handler: app.handler\n"), ":1:", "the top level is a list; expected a mapping"),
    Case("top-level-string", config("app.handler\n"), ":1:", "the top level is a string ('app.handler'); expected a mapping"),
    Case("top-level-number", config("42\n"), ":1:", "the top level is a number (42); expected a mapping"),
    Case("two-documents", config(GOOD + "---\n" + GOOD), ":8:1:", "expected a single document"),
    Case("syntax-unclosed-bracket", good("{kind: sqs, source: jobs}", "{kind: sqs, source: [jobs}"), r":\d+:\d+:", "did not find expected"),
    Case("tab-indentation", config("handler: app.handler\ntrigger:\n\tkind: sqs\n"), ":3:1:", "not valid YAML: found character that cannot start any token"),
    Case("duplicate-top-level-key", config(GOOD + "timeout_s: 6\n"), ":8: timeout_s appears twice", "expected each key once"),
    Case("duplicate-nested-key", good("{kind: sqs, source: jobs}", "{kind: sqs, kind: s3, source: jobs}"), ":2: trigger.kind appears twice", "expected each key once"),
    Case("unhashable-key", config("? [handler]\n: app.handler\n"), ":1:", "found unhashable key (while constructing a mapping); expected a plain key"),
    Case("cloudformation-tag-in-config", good("source: jobs", "source: !Ref Jobs"), ":2:", "the tag !Ref means nothing in a lambdafuzz.yaml; expected plain values"),
    Case("python-tag", good("app.handler", "!!python/object/apply:os.system [id]"), ":1:", "could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'; expected plain values"),
    Case("undefined-alias", good("source: jobs", "source: *jobs"), ":2:", "found undefined alias 'jobs'; expected an anchor (&name) defined before its alias"),
    # --- hostile YAML: bounded, refused in milliseconds ------------------------------
    Case("3000-brackets", config("handler: " + "[" * 3000 + "]" * 3000 + "\n"), r":1: (handler\[0\]\[0\]|nested)", "nested more than 64 levels deep; expected a lambdafuzz.yaml nested a few levels"),
    Case("deep-mappings", config("".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "x\n"), r":\d+: k0\.k1\.k2", "nested more than 64 levels deep"),
    Case("billion-laughs", config(LAUGHS), r":\d+: [a-i]", "expands to more than 100,000 values"),
    Case("recursive-alias", config("handler: app.handler\ndictionary: &d [x, *d]\n"), ":2: dictionary", "alias *d refers to a node that contains it; expected no recursive aliases"),
    # --- keys: unknown, old, misplaced -----------------------------------------------
    Case("trigger_source", good("timeout_s: 5", "trigger_source: jobs"), ":3: unknown key trigger_source", "Did you mean trigger.source? Write it nested"),
    Case("misplaced-buckets", good("timeout_s: 5", "buckets: [{name: uploads}]"), ":3: unknown key buckets", "buckets is valid under resources, not at the top level"),
    Case("misplaced-source", good("timeout_s: 5", "source: jobs"), ":3: unknown key source", "source is valid under trigger"),
    Case("old-name-memory", good("timeout_s: 5", "memory: 256"), ":3: unknown key memory", "Did you mean 'memory_mb'?"),
    Case("sam-name-MemorySize", good("timeout_s: 5", "MemorySize: 256"), ":3: unknown key MemorySize", "Did you mean 'memory_mb'?"),
    Case("not-needed-runtime", good("timeout_s: 5", "runtime: python3.12"), ":3: unknown key runtime", "not needed"),
    Case("partition_key", good("[{name: jobs}]", "[{name: jobs}]\n  tables: [{name: t, partition_key: {name: id, type: S}}]"), r":\d+: unknown key resources\.tables\[0\]\.partition_key", "Did you mean 'hash_key'?"),
    # --- values ------------------------------------------------------------------------
    Case("status_from-not-a-key", config(GOOD + "outcomes: {status_from: 'status code'}\n"), ":8: outcomes.status_from is 'status code'", "expected `return` (the handler returns the status code itself) or the key"),
    Case("status_from-number", config(GOOD + "outcomes: {status_from: 200}\n"), ":8: outcomes.status_from is 200", "expected a string"),
    Case("app_packages-missing", good("timeout_s: 5", "app_packages: [nothere]"), r":3: app_packages\[0\] is 'nothere'", "neither nothere/ nor nothere.py is there"),
    Case("app_packages-dotted-missing", good("timeout_s: 5", "app_packages: [app.sub]"), r":3: app_packages\[0\] is 'app.sub'", "neither app/sub/ nor app/sub.py is there"),
    Case("timeout-nan", good("timeout_s: 5", "timeout_s: .nan"), ":3: timeout_s is nan", "expected a finite number"),
    Case("timeout-1e999-string", good("timeout_s: 5", "timeout_s: 1e999"), ":3: timeout_s is '1e999'", "expected a number"),
    Case("memory-huge", good("timeout_s: 5", "memory_mb: 100000000000000000000"), ":3: memory_mb is", "expected a number <= 10240"),
    Case("import-timeout-zero", good("timeout_s: 5", "import_timeout_s: 0"), ":3: import_timeout_s is 0", "expected a number > 0"),
    Case("unknown-trigger-kind", good("kind: sqs", "kind: sqss"), ":2: trigger.kind is 'sqss'", "Did you mean 'sqs'?"),
    Case("handler-missing", good("handler: app.handler\n", ""), "handler is missing", "expected module.function"),
    Case("handler-module-not-found", good("app.handler", "apps.handler"), ":1: handler is 'apps.handler'", "expected a module importable from"),
    Case("root-not-a-directory", good("timeout_s: 5", "root: nowhere"), ":3: root is 'nowhere'", "expected a directory relative to"),
    Case("env-name", good("RETRIES: 3", "1RETRIES: 3"), ":5: env.1RETRIES is '1RETRIES'", "expected an environment variable name"),
    # --- env that could reach a real account ------------------------------------------
    *(
        Case(f"env-{name}", good("RETRIES: 3", f"{name}: {value}"), f":5: env.{name} is", f"expected no {name}: lambdafuzz gives the handler fake credentials")
        for name, value in [
            ("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/prod"),
            ("AWS_CONFIG_FILE", "/home/me/.aws/config"),
            ("AWS_SHARED_CREDENTIALS_FILE", "/home/me/.aws/credentials"),
            ("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token"),
            ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/x"),
            ("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://169.254.170.2/creds"),
            ("AWS_PROFILE", "prod"),
            ("AWS_SECRET_ACCESS_KEY", "abc"),
        ]
    ),
    *(
        Case(f"env-{name}-{tag}", good("RETRIES: 3", f"{name}: '{value}'"), f":5: env.{name} is", "expected an http(s) URL on loopback")
        for name, value, tag in [
            ("AWS_ENDPOINT_URL", "https://s3.amazonaws.com", "aws"),
            ("AWS_ENDPOINT_URL_DYNAMODB", "http://10.0.0.5:8000", "lan"),
            ("AWS_ENDPOINT_URL_SQS", "${queues.jobs.url}", "reference"),
            ("HTTPS_PROXY", "http://proxy.corp.example:3128", "proxy"),
        ]
    ),
    # --- SAM / CloudFormation templates ----------------------------------------------
    Case("sam-unknown-tag", template("!GetAtt Jobs.Arn", "!GetAttr Jobs.Arn"), r"template.yaml:\d+:\d+:", "unknown tag !GetAttr; expected a CloudFormation function tag"),
    Case("sam-syntax", template("Type: AWS::SQS::Queue", "Type: [AWS::SQS::Queue"), r"template.yaml:\d+:\d+:", "not valid YAML"),
    Case("sam-duplicate-resource", template("  Table:\n", "  Jobs:\n"), r"template.yaml:\d+: Resources.Jobs appears twice", "expected each key once"),
    Case("sam-deep", template(text=TEMPLATE + "Metadata: " + "[" * 5000 + "]" * 5000 + "\n"), r"template.yaml:\d+: (Metadata\[0\]|nested)", "nested more than 64 levels deep; expected a template"),
    Case("sam-laughs", template(text=TEMPLATE + "Metadata:\n" + "".join("  " + line + "\n" for line in LAUGHS.splitlines())), r"template.yaml:\d+: Metadata", "expands to more than 1,000,000 values"),
    Case("sam-huge", template(text=TEMPLATE + "# padding to more than 4 MB\n" * 160_000), "larger than 4,000,000 bytes", "expected a template of at most"),
    Case("sam-not-utf8", template(text=TEMPLATE.encode() + b"Description: caf\xe9\n"), r"template.yaml:\d+:\d+: byte 0xe9", "expected a template in UTF-8 text"),
    Case("sam-resources-list", template(text=template_text("malformed", "resources_a_list")), "no `Resources` mapping", "expected a SAM or CloudFormation template"),
    Case("sam-top-level-list", template(text=template_text("malformed", "top_level_list")), "no `Resources` mapping", "expected a SAM or CloudFormation template"),
    Case("sam-env-role", template("QUEUE: !Ref Jobs", "AWS_ROLE_ARN: arn:aws:iam::123456789012:role/prod"), r"template.yaml:\d+: Resources\.Fn\.Properties\.Environment\.Variables\.AWS_ROLE_ARN", "expected no AWS_ROLE_ARN"),
    Case("sam-env-endpoint", template("QUEUE: !Ref Jobs", "AWS_ENDPOINT_URL: https://sqs.us-east-1.amazonaws.com"), r"template.yaml:\d+: Resources\.Fn\.Properties\.Environment\.Variables\.AWS_ENDPOINT_URL", "expected an http(s) URL on loopback"),
    Case("sam-environment-not-mapping", template("      Environment:\n        Variables:\n          QUEUE: !Ref Jobs\n", "      Environment: 5\n"), r"template.yaml:\d+: Resources\.Fn\.Properties\.Environment is 5", "expected a mapping {Variables"),
    Case("sam-keyschema-not-list", template("KeySchema: [{AttributeName: id, KeyType: HASH}]", "KeySchema: 5"), r"template.yaml:\d+: Resources\.Table\.Properties\.KeySchema is 5", "expected a list of {AttributeName, KeyType}"),
    Case("sam-codeuri-s3", template("CodeUri: src/", "CodeUri: s3://bucket/code.zip"), r"template.yaml:\d+: Resources\.Fn\.Properties\.CodeUri", "expected a local directory relative to the template"),
    Case("sam-no-fuzzable-function", template("Runtime: python3.12", "Runtime: nodejs20.x"), "Fn", "lambdafuzz can fuzz"),
    Case("sam-unknown-function", template(), r"template.yaml:\d+: Resources is 'Fnn'", "Did you mean 'Fn'?", ("--function", "Fnn")),
]  # fmt: skip


def _tree(root: Path) -> set[str]:
    """Every path below root (not following links, never opening a file)."""
    found = set()
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(directory, name), root))
    return found


@pytest.mark.timeout(30)
@pytest.mark.parametrize("command", ["fuzz", "analyze"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_config_is_one_clear_error(tmp_path, monkeypatch, case, command):
    app = tmp_path / "app"
    app.mkdir()
    argument, named = case.write(app)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "out"
    before = _tree(tmp_path)
    args = [command, str(argument), *case.args]
    if command == "fuzz":
        args += ["--execs", "3", "--out", str(out)]
    started = time.monotonic()
    result = CliRunner().invoke(cli, args)
    elapsed = time.monotonic() - started

    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "Usage:" not in result.output, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output
    message = errors[0]
    assert str(named) in message, message  # the file
    assert re.search(case.place, message), (case.place, message)  # the place
    assert case.expected in message and "expected" in message.lower(), message  # what
    assert not out.exists()  # nothing written: not even the out dir
    assert _tree(tmp_path) == before
    assert elapsed < 10, f"{elapsed:.1f} s"


def test_there_are_at_least_40_malformed_configs_among_them_sam_templates():
    assert len(CASES) >= 40
    assert sum(c.id.startswith("sam-") for c in CASES) >= 10


def test_laughs_stay_small():
    assert len(LAUGHS) < 600


# --------------------------------------------------------------------------- setup errors
SLEEPING = "import time\n\n\ndef wait():\n    time.sleep(600)\n\n\nwait()\n" + HANDLER
SETUPS = {
    "raises": (
        "def load():\n    raise ValueError('no table configured')\n\n\nload()\n" + HANDLER,
        ["cannot import handler module 'app'", "ValueError: no table configured", "raised at app.py:2 in load"],
    ),
    "sys-exit": (
        "import sys\nsys.exit(4)\n" + HANDLER,
        ["cannot import handler module 'app'", "SystemExit: 4"],
    ),
    "os-exit": (
        "import os\nos._exit(3)\n" + HANDLER,
        ["handler module 'app'", "ended the worker process while it was being imported: exit status 3"],
    ),
    "segfault": (
        "import ctypes\nctypes.string_at(0)\n" + HANDLER,
        ["handler module 'app'", "killed by SIGSEGV", "the interpreter crashed"],
    ),
    "hangs": (
        SLEEPING,
        ["handler module 'app'", "did not finish importing within 2 s", "at app.py:5 in wait: time.sleep(600)", "import_timeout_s"],
    ),
    "hangs-holding-the-gil": (
        "import re\nre.match(r'(a+)+$', 'a' * 64 + 'b')\n" + HANDLER,
        ["handler module 'app'", "did not finish importing within 2 s (the worker was stopped)", "import_timeout_s"],
    ),
    "no-such-function": (
        "def handle(event, context):\n    return None\n",
        ["module 'app' has no function 'handler'", "did you mean 'handle'?"],
    ),
}  # fmt: skip


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", list(SETUPS))
def test_handler_setup_error_is_one_clear_error_within_bounded_time(tmp_path, name):
    source, phrases = SETUPS[name]
    app = tmp_path / "app"
    app.mkdir()
    (app / "app.py").write_text(source)
    (app / "lambdafuzz.yaml").write_text(GOOD + "import_timeout_s: 2\n")
    out = tmp_path / "out"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "lambdafuzz", "fuzz", str(app), "--execs", "3", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=100,
        cwd=tmp_path,
        env=env,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, done.stderr
    for phrase in phrases:
        assert phrase in errors[0], (phrase, errors[0])
    # 2 s of import_timeout_s (+ 5 s grace when the import holds the GIL) and the start
    assert elapsed < 60, f"{elapsed:.1f} s"
    # the default strategy's static analysis is cached in the user cache (XDG_CACHE_HOME),
    # the one place besides the out dir that lambdafuzz writes
    outside = {p for p in _tree(tmp_path) if not p.startswith(("out", "cache"))}
    assert outside == {"app", "app/app.py", "app/lambdafuzz.yaml"}, outside
    cached = {p for p in _tree(tmp_path) if p.startswith("cache/")}
    assert all(p.startswith("cache/lambdafuzz") for p in cached), cached
