"""A one-page manual is indexed; a truncated upload raises inside pypdf and is swallowed."""

import io

from pypdf import PdfWriter

from benchmarks.bugbench import events


def _pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(595, 842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def benign():
    key = "manuals/pump x1.pdf"
    return {"s3": {"kb-manuals": {key: _pdf()}}, "event": events.s3("kb-manuals", key)}


def trigger():
    key = "manuals/pump x2.pdf"
    return {"s3": {"kb-manuals": {key: _pdf()[:200]}}, "event": events.s3("kb-manuals", key)}
