"""Speed-ups of moto that change no result, applied once per process (idempotent).

moto is the emulator every test's handler talks to, on the fast path and on moto's full
path alike, so its own per-request costs are paid by every AWS call a handler makes.
Each speed-up below keeps moto's answers as they were (the same bodies, errors and state;
random identifiers from moto's seeded random, as random as before) and carries its
measurement. Measured on this project's 2-core machine, moto 5.x, CPython 3.13.
"""

from __future__ import annotations

import functools
import string
import sys
from typing import Any

# Past this many (picker, object type, shape, key) entries the memo starts over: moto's
# service models are cached, so the working set stays small (2,108 entries after the
# differential suite's 2,000 sequences over S3, DynamoDB, SQS and SNS).
_MEMO_LIMIT = 65_536
_LETTERS_AND_DIGITS = string.ascii_letters + string.digits
_HANDLE_LENGTH = 185  # moto's receipt handles: 185 lowercase letters
_LOWERCASE = bytes(ord("a") + b % 26 for b in range(256))
#: (owner, attribute, what it was) for every speed-up applied, in order: what
#: `undo_moto_speedups` puts back.
_APPLIED: list[tuple[Any, str, Any]] = []


#: What `memoize_possible_keys` remembers; kept when the speed-ups are undone and applied
#: again (the names are moto's own either way).
_NAMES: dict[tuple[Any, ...], tuple[str, ...]] = {}
_MEMOIZED: dict[str, Any] = {}  # moto.core.utils function name -> its memoized version


def _patch(owner: Any, name: str, replacement: Any) -> None:
    """Set `owner.name`, remembering what it was."""
    _APPLIED.append((owner, name, getattr(owner, name)))
    setattr(owner, name, replacement)


def undo_moto_speedups() -> None:
    """Put moto back as it was before `speed_up_moto` (the benchmark's stock-moto column;
    `speed_up_moto` applies them again afterwards)."""
    while _APPLIED:
        owner, name, original = _APPLIED.pop()
        setattr(owner, name, original)


def speed_up_moto() -> None:
    """Apply every speed-up (idempotent).

    * `camelcase_to_underscores` walks its argument char by char (~10 us a call) and runs
      on every attribute of every SQS queue and on every request's action name: 16% of
      moto-server's CPU while reading a world, and half the cost of CreateQueue. Memoized
      (LRU, 4096 names) in moto.core.utils and every moto module that imported it;
      so is `method_names_from_class` (an `inspect.getmembers` per request, 5% of it),
      whose one caller only tests membership in the list.
    * SQS receipt handles are 185 `random.choice` calls (~0.1 ms a message received):
      replaced by the same alphabet and length from moto's seeded random in one call.
    * moto's server lists and stats its own package directory on every request to find
      the service of a host name (~180 `stat` calls, 4 ms of a 30 ms request): listed once.
    * `memoize_possible_keys` and `one_call_random_strings` (below).
    """
    import moto.backends as moto_backends
    import moto.core.utils as core_utils
    import moto.sqs.models as sqs_models

    for function in ("camelcase_to_underscores", "method_names_from_class"):
        original = getattr(core_utils, function)
        if hasattr(original, "cache_info"):
            continue
        memo = _MEMOIZED.get(function)
        if memo is None or memo.__wrapped__ is not original:
            memo = _MEMOIZED[function] = functools.lru_cache(maxsize=4096)(original)
        _patch(core_utils, function, memo)
        for name, module in list(sys.modules.items()):
            if name.startswith("moto.") and getattr(module, function, None) is original:
                _patch(module, function, memo)
    if sqs_models.generate_receipt_handle is not fast_receipt_handle:
        _patch(sqs_models, "generate_receipt_handle", fast_receipt_handle)
    if not getattr(moto_backends.list_of_moto_modules, "lambdafuzz_cached", False):
        modules = tuple(moto_backends.list_of_moto_modules())

        def cached() -> tuple[str, ...]:
            return modules

        cached.lambdafuzz_cached = True  # type: ignore[attr-defined]
        _patch(moto_backends, "list_of_moto_modules", cached)
    memoize_possible_keys()
    one_call_random_strings()


def memoize_possible_keys() -> None:
    """moto's response serializer (DynamoDB, SQS, SNS, ...) looks every member of every
    response shape up on the result object under each name its alias providers offer, and
    works those names out anew per member and per response: six provider objects and
    their tests, 49 `get_possible_keys` steps for one GetItem, a third of the time moto
    spends answering it. The names depend only on the picker, the result object's class
    and `Meta`, the member's shape (and the structure holding it) and the member's key, so
    they are worked out once per such combination, by moto's own code, in moto's order.

    dynamodb.GetItem on the fast path, 1000 calls, two runs each: 750/767 -> 635/637 us;
    `benchmarks/aws_path.py`, two runs each: Query 2015/1998 -> 1454/1446 us, Scan
    1939/1924 -> 1372/1367, GetItem 809/802 -> 690/693, s3.CopyObject 1933/1931 ->
    1760/1766.
    """
    from moto.core import serialize

    picker = serialize.XFormedAttributePicker
    if getattr(picker.get_possible_keys, "lambdafuzz_memo", None) is not None:
        return
    original = picker.get_possible_keys
    memo = _NAMES
    defaults = serialize.DEFAULT_ALIAS_PROVIDERS

    def get_possible_keys(self: Any, context: Any) -> Any:
        if self.alias_providers is not defaults:  # a picker of its own: moto's own way
            return original(self, context)
        try:
            key = _member_key(type(self), context.obj, context.shape, context.key)
            return memo[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable `Meta`: not worth remembering
            return original(self, context)
        try:
            names = tuple(original(self, context))
        except Exception:  # a provider that fails past the first name found: moto's way
            return original(self, context)
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = names
        return names

    get_possible_keys.lambdafuzz_memo = memo  # type: ignore[attr-defined]
    get_possible_keys.lambdafuzz_original = original  # type: ignore[attr-defined]
    _patch(picker, "get_possible_keys", get_possible_keys)
    _pick_members_by_remembered_names(memo)


def _pick_members_by_remembered_names(memo: dict[tuple[Any, ...], tuple[str, ...]]) -> None:
    """The serializer's `get_value` builds a context object per member and hands it to the
    picker, which walks the names; with no response transformers (most services) and the
    names remembered, the value is looked up under them directly, first found first, as
    the picker would. A Scan of 11 items with nested maps, fast path, 1000 calls, two
    runs each: 4598/4520 -> 3302/3434 us (GetItem 633/637 -> 588/604 us)."""
    from moto.core import serialize
    from moto.core.utils import get_value as look_up

    serializer = serialize.ResponseSerializer
    if getattr(serializer.get_value, "lambdafuzz_original", None) is not None:
        return
    original = serializer.get_value
    picker_class = serialize.XFormedAttributePicker
    defaults = serialize.DEFAULT_ALIAS_PROVIDERS
    missing = object()

    def get_value(self: Any, value: Any, key: str, shape: Any) -> Any:
        picker = self._value_picker
        if (
            type(picker) is picker_class
            and not picker.response_transformers
            and picker.alias_providers is defaults
        ):
            try:
                names = memo.get(_member_key(picker_class, value, shape, key))
            except TypeError:
                names = None
            if names is not None:
                for name in names:
                    found = look_up(value, name, missing)
                    if found is not missing:
                        return found
                return None
        return original(self, value, key, shape)  # the first time: remembers the names

    get_value.lambdafuzz_original = original  # type: ignore[attr-defined]
    _patch(serializer, "get_value", get_value)


def _member_key(picker_type: type, obj: Any, shape: Any, key: str) -> tuple[Any, ...]:
    """What a member's candidate names depend on: the picker, the result object's class and
    `Meta` (explicit aliases, class-name prefixes), the member's shape and the structure
    holding it (model names, shape-name prefixes), and the member's key."""
    parent = getattr(shape, "parent", None)
    return (picker_type, obj.__class__, getattr(obj, "Meta", None), shape, parent, key)


def fast_receipt_handle() -> str:
    """A receipt handle like moto's (185 lowercase letters from its seeded random), in one
    `randbytes` call instead of 185 `random.choice` calls (also what the direct loader
    gives the messages it receives)."""
    from moto.moto_api._internal import mock_random

    return mock_random.randbytes(_HANDLE_LENGTH).translate(_LOWERCASE).decode()


def one_call_random_strings() -> None:
    """moto gives every response a 52-character request id, one `random.choice` call per
    character. The same alphabet and length come from moto's seeded random in one
    `choices` call: seeded, the ids stay deterministic.

    A 52-character id, timeit best of 5 x 2000: 15.8 -> 4.6 us (~2% of a fast-path GetItem).
    """
    from moto.moto_api._internal.moto_random import MotoRandom

    if getattr(MotoRandom.get_random_string, "lambdafuzz_fast", False):
        return

    def get_random_string(
        self: Any, length: int = 20, include_digits: bool = True, lower_case: bool = False
    ) -> str:
        pool = _LETTERS_AND_DIGITS if include_digits else string.ascii_letters
        text = "".join(self.choices(pool, k=length))
        return text.lower() if lower_case else text

    get_random_string.lambdafuzz_fast = True  # type: ignore[attr-defined]
    _patch(MotoRandom, "get_random_string", get_random_string)
