"""Identifiers and timestamps for events: request ids, message ids, sequencers, times.

Handlers rarely branch on an id, so ids must not cost mutation budget: a record draws one
8-byte *seed* and every id it needs is derived from that seed with a keyed hash.  A
mutation of the seed changes all of the record's ids at once, and a record's ids never
collide with another record's unless their seeds do.  Times are one integer draw each,
labelled `datetime.datetime`, counted in milliseconds from a fixed epoch so that inputs
never depend on the clock.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from typing import Final

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices

SeedT = bytes

#: Generated events happen within a year from here (UTC).
EPOCH: Final = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
EPOCH_MS: Final = int(EPOCH.timestamp() * 1000)
_YEAR_MS: Final = 365 * 24 * 3600 * 1000


def draw_seed(choices: Choices, *, site: str = "id") -> SeedT:
    """The one draw every id of a record derives from."""
    return choices.draw_bytes(8, 8, site=site)


def derive(seed: SeedT, purpose: str, size: int) -> bytes:
    """`size` pseudo-random bytes for `purpose`, fixed by `seed`."""
    return hashlib.shake_256(len(seed).to_bytes(2, "big") + seed + purpose.encode()).digest(size)


def uuid(seed: SeedT, purpose: str) -> str:
    """A version-4-shaped UUID string."""
    raw = bytearray(derive(seed, purpose, 16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def hex_id(seed: SeedT, purpose: str, length: int, *, upper: bool = True) -> str:
    """`length` hex digits, e.g. S3's 16-digit request id `C3D13FE58DE4C810`."""
    h = derive(seed, purpose, (length + 1) // 2).hex()[:length]
    return h.upper() if upper else h


def alnum_id(seed: SeedT, purpose: str, length: int) -> str:
    """Upper-case letters and digits, e.g. the 21-character AWS principal ids."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    raw = derive(seed, purpose, length)
    return "".join(alphabet[b % len(alphabet)] for b in raw)


def b64_id(seed: SeedT, purpose: str, size: int) -> str:
    """Base64 of `size` derived bytes (receipt handles, x-amz-id-2, signatures)."""
    return base64.b64encode(derive(seed, purpose, size)).decode()


def digits(seed: SeedT, purpose: str, length: int) -> str:
    """A decimal string of `length` digits without a leading zero (sequence numbers)."""
    n = int.from_bytes(derive(seed, purpose, 16), "big")
    low = 10 ** (length - 1)
    return str(low + n % (9 * low))


def draw_time_ms(choices: Choices, *, site: str = "time") -> int:
    """A moment within a year after `EPOCH`, in epoch milliseconds."""
    with choices.scope(labels.DATETIME, site=f"{site}:datetime"):
        return EPOCH_MS + choices.draw_integer(0, _YEAR_MS, site=site)


def iso_ms(epoch_ms: int) -> str:
    """`2026-03-01T12:00:00.123Z`, as S3, SNS and CloudTrail write times."""
    moment = dt.datetime.fromtimestamp(epoch_ms / 1000, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"


def iso_seconds(epoch_ms: int) -> str:
    """`2026-03-01T12:00:00Z`, as EventBridge writes times."""
    return dt.datetime.fromtimestamp(epoch_ms // 1000, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def clf_time(epoch_ms: int) -> str:
    """`09/Apr/2015:12:34:56 +0000`, API Gateway's requestTime (common log format)."""
    moment = dt.datetime.fromtimestamp(epoch_ms // 1000, tz=dt.UTC)
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return f"{moment:%d}/{months[moment.month - 1]}/{moment:%Y:%H:%M:%S} +0000"
