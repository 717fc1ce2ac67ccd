"""Text helpers shared by the support functions (packaged as the support-text layer)."""

import re
import unicodedata

_SPACES = re.compile(r"\s+")


def normalise(text):
    """Case-folded, accent-free, single-spaced text: what routing rules compare."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _SPACES.sub(" ", plain).strip().casefold()


def fingerprint(text, size=12):
    """A short stable id for a ticket's text (duplicate detection)."""
    import hashlib

    return hashlib.sha1(normalise(text).encode("utf-8", "surrogatepass")).hexdigest()[:size]
