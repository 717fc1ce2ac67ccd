"""A bundle's manifests are recorded; a member with the encryption flag set cannot be
opened and is skipped with only a log line."""

import io
import json
import zipfile

from benchmarks.bugbench import events


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("api/manifest.json", json.dumps({"component": "api", "version": "2.4.1"}))
        archive.writestr("web/manifest.json", json.dumps({"component": "web", "version": "5.0.0"}))
    return out.getvalue()


def _flag_encrypted(data: bytes, member: str) -> bytes:
    """Set the 'encrypted' bit of `member` in its local header and central directory entry
    (zipfile itself writes no encrypted members)."""
    out = bytearray(data)
    name = member.encode()
    for signature, flag_at, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        at = out.find(signature)
        while at >= 0:
            if out[at + name_at : at + name_at + len(name)] == name:
                out[at + flag_at] |= 0x01
            at = out.find(signature, at + 4)
    return bytes(out)


def benign():
    return {
        "s3": {"release-bundles": {"r42.zip": _zip()}},
        "event": events.s3("release-bundles", "r42.zip"),
    }


def trigger():
    data = _flag_encrypted(_zip(), "web/manifest.json")
    return {
        "s3": {"release-bundles": {"r43.zip": data}},
        "event": events.s3("release-bundles", "r43.zip"),
    }
