"""A two-page contract is filed; one protected by a user password cannot be read."""

import io

from pypdf import PdfWriter

from benchmarks.bugbench import events


def _pdf(password: str | None) -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    writer.add_blank_page(612, 792)
    writer.add_metadata({"/Title": "Lease 2026"})
    if password is not None:
        writer.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def benign():
    key = "contracts/lease 2026.pdf"
    return {
        "s3": {"contract-archive": {key: _pdf(None)}},
        "event": events.s3("contract-archive", key),
    }


def trigger():
    key = "contracts/nda.pdf"
    return {
        "s3": {"contract-archive": {key: _pdf("s3cret")}},
        "event": events.s3("contract-archive", key),
    }
