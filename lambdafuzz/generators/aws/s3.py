"""S3 buckets and objects: keys shaped like real uploads, content from the file generators.

An object is its file (drawn first, so the key can carry the file's extension), its key
(prefix from the config, a stem that is fresh or a dictionary constant, the extension the
file generator chose, which an erroneous file may have dropped or changed), a content type
and sometimes user metadata.  Labels: `s3.bucket` > `s3.object` > `lambdafuzz.S3ObjectKey`
/ `lambdafuzz.File` / `s3.metadata`.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from typing import Final

from lambdafuzz import labels
from lambdafuzz.generators import edge_values
from lambdafuzz.generators.aws import key_shapes
from lambdafuzz.generators.aws.key_shapes import FOLDER_ALPHABET, KeyShape
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.files import GeneratedFile, draw_file, named_formats
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.model.target import BucketSpec, ObjectsSpec
from lambdafuzz.model.world import Bucket, S3Object

#: Stems of ordinary uploads.
KEY_ALPHABET: Final = string.ascii_letters + string.digits + "-_."
METADATA_NAME_ALPHABET: Final = string.ascii_lowercase + string.digits + "-"
METADATA_VALUE_ALPHABET: Final = string.ascii_letters + string.digits + " -_.:/=+"
#: S3 caps keys at 1,024 UTF-8 bytes.
MAX_KEY_BYTES: Final = 1024
#: A fresh stem's length at most: ordinary upload names.
STEM_CHARS: Final = 24
#: ... and what a stem may grow to under the cost objective (`core.Grown`): a file-name
#: limit, room for a key that makes a backtracking regex take seconds (one with nested
#: quantifiers doubles its time with each letter: ~1 s at 24 in the cost tests' app).
MAX_STEM_CHARS: Final = 255
#: What S3 stores when an upload names no content type, and what many clients send.
FALLBACK_CONTENT_TYPES: Final = ("binary/octet-stream", "application/octet-stream")


@generator(labels.S3_OBJECT_KEY)
def draw_object_key(
    choices: Choices,
    *,
    prefixes: Sequence[str] = (),
    extension: str = "",
    ending: str | None = None,
    heads: key_shapes.Heads | None = None,
) -> str:
    """`prefix + stem + .extension` (or `+ ending` when given: a configured suffix), of a
    drawn shape (`key_shapes`: one key in five encoded, deep or flat, under every
    strategy); without configured prefixes, now and then a folder; with edge values on,
    now and then a key name handlers get wrong (`edge_values.object_key`: configured
    parts kept) and, when the code splits on a separator, now and then parts joined by
    it (`key_shapes.packed_key`; its head now and then another object's, `heads`)."""
    configured_ending = ending is not None
    shape = key_shapes.draw_shape(choices)
    if prefixes:
        prefix = choices.draw_choice(prefixes, site="prefix")
    elif shape is not KeyShape.FLAT and choices.draw_boolean(0.1, site="folder?"):
        prefix = _clean(choices.draw_string(FOLDER_ALPHABET, 1, 12, site="folder")) + "/"
    else:
        prefix = ""
    if shape is KeyShape.DEEP:
        prefix += key_shapes.deep_folders(choices)
    stem = choices.draw_string(
        KEY_ALPHABET, 1, MAX_STEM_CHARS, fresh_max_size=STEM_CHARS, site="stem"
    )
    if shape is KeyShape.ENCODED:
        stem = key_shapes.encoded_stem(choices, _clean(stem), STEM_CHARS)
    if ending is None:
        ending = f".{extension}" if extension else ""
    if choices.edge_values:
        prefix, stem, ending = edge_values.object_key(
            choices,
            prefix,
            stem,
            ending,
            own_prefix=not prefixes,
            own_ending=not configured_ending,
        )
    key = _fit_key(prefix + _clean(stem), ending)
    # packed parts go before a configured suffix (the key filter still passes the key)
    head, tail = (key[: len(key) - len(ending)], ending) if configured_ending else (key, "")
    packed = key_shapes.packed_key(choices, head, tail, heads)
    return packed if len(packed.encode()) <= MAX_KEY_BYTES else key


def _clean(text: str) -> str:
    """A dictionary constant as a key part: no control characters or lone surrogates (S3
    would accept some, but its XML listings and most clients would not)."""
    kept = "".join(
        ch for ch in text if ch >= " " and ch != "\x7f" and not "\ud800" <= ch <= "\udfff"
    )
    return kept or "x"


def _fit_key(base: str, suffix: str) -> str:
    room = MAX_KEY_BYTES - len(suffix.encode())
    while len(base.encode()) > room:
        base = base[: len(base) // 2]
    return (base or "x") + suffix


@generator(labels.S3_OBJECT)
def draw_object(
    choices: Choices,
    spec: ObjectsSpec,
    taken: set[str] | None = None,
    heads: key_shapes.Heads | None = None,
    key: str | None = None,
) -> S3Object:
    """One object of `spec`'s formats; its key (`key` when given) avoids `taken` (and is
    added to it) and may pack another object's (`heads`, `draw_object_key`).  The
    content follows the key's name (`named_formats`): a configured suffix (the key filter)
    is drawn first and picks the formats it names; otherwise now and then a format whose
    extension the code compares with."""
    ending = choices.draw_choice(spec.suffixes, site="suffix") if spec.suffixes else None
    file = draw_file(choices, _named(choices, spec, ending), erroneous_p=spec.erroneous_p)
    if key is None:
        key = draw_object_key(
            choices, prefixes=spec.prefixes, extension=file.extension, ending=ending, heads=heads
        )
    if taken is not None:
        key = _unique(key, file.suffix if ending is None else ending, taken)
        taken.add(key)
    content_type = choices.draw_weighted(
        (file.content_type, *FALLBACK_CONTENT_TYPES), (0.9, 0.05, 0.05), site="content-type"
    )
    return S3Object(
        key=key,
        data=file.data,
        content_type=content_type,
        format=object_format(file),
        metadata=draw_metadata(choices),
    )


def _named(choices: Choices, spec: ObjectsSpec, ending: str | None) -> tuple[str, ...]:
    """The formats an object of `spec` is drawn from, given its key's configured ending."""
    if ending is not None:
        return named_formats.formats_for_ending(ending, spec.formats) or spec.formats
    named = (
        named_formats.code_formats(choices.dictionary, spec.formats) if choices.dictionary else ()
    )
    if named and choices.draw_boolean(named_formats.CODE_FORMAT_P, site="code-format?"):
        return named
    return spec.formats


def object_format(file: GeneratedFile) -> str:
    """`csv`, or `erroneous:truncated:csv` for a file broken on purpose."""
    return f"erroneous:{file.erroneous}:{file.format}" if file.erroneous else file.format


def _unique(key: str, suffix: str, taken: set[str]) -> str:
    """The same key with `-2`, `-3`, ... before its extension when it is taken already."""
    if key not in taken:
        return key
    base = key[: len(key) - len(suffix)] if suffix and key.endswith(suffix) else key
    n = 2
    while f"{base}-{n}{suffix}" in taken:
        n += 1
    return f"{base}-{n}{suffix}"


@generator(labels.S3_METADATA)
def draw_metadata(choices: Choices) -> tuple[tuple[str, str], ...]:
    """User metadata (`x-amz-meta-*`) on one object in five: lower-case names, ASCII values."""
    if not choices.draw_boolean(0.2, site="metadata?"):
        return ()
    pairs: dict[str, str] = {}
    for _ in range(choices.draw_integer(1, 3, site="count")):
        raw = choices.draw_string(METADATA_NAME_ALPHABET, 1, 12, site="name")
        name = "".join(ch for ch in raw.lower() if ch in METADATA_NAME_ALPHABET) or "x"
        value = choices.draw_string(METADATA_VALUE_ALPHABET, 0, 24, site="value")
        # HTTP header values: printable ASCII, no blanks at either end (S3 trims them)
        printable = "".join(ch if " " <= ch <= "~" else "?" for ch in value[:256])
        pairs[name[:64]] = printable.strip()
    return tuple(pairs.items())


@generator(labels.S3_BUCKET)
def draw_bucket(choices: Choices, spec: BucketSpec, *, min_objects: int = 0) -> Bucket:
    """The bucket's objects, at least `min_objects` (a bucket whose notifications must name
    an object); an output bucket (no `objects`) stays empty."""
    objects_spec = spec.objects
    if objects_spec is None:
        return Bucket(spec.name)
    low = max(objects_spec.min, min_objects)
    most = max(objects_spec.max, low)
    n = choices.draw_integer(low, most, site="objects")
    taken: set[str] = set()
    objects: list[S3Object] = []
    for i in range(n):
        if i >= low and not fits(choices, 400):
            break  # optional objects stop before the input runs out of draws
        # a packed key (`key_shapes.packed_key`) may name an object drawn before it or, at
        # the first, one drawn for it after (no companion under a key filter's suffix: its
        # head would not pass the filter an event's key passes)
        room = not objects_spec.suffixes and len(objects) + n - i < most
        heads = key_shapes.Heads(tuple(o.key for o in objects), room=room)
        objects.append(draw_object(choices, objects_spec, taken, heads, site="object"))
        if heads.wanted is not None and heads.wanted not in taken:
            companion = draw_object(choices, objects_spec, taken, key=heads.wanted, site="head")
            objects.append(companion)
    return Bucket(spec.name, tuple(objects))


def key_strings(buckets: Iterable[Bucket]) -> tuple[str, ...]:
    """Every key of the world, its base name and its stems (`a/b.csv.gz` -> `b.csv.gz`,
    `b.csv`, `b`): strings a handler may look up elsewhere (a table, a path parameter)."""
    found: dict[str, None] = {}
    for bucket in buckets:
        for obj in bucket.objects:
            base = obj.key.rsplit("/", 1)[-1]
            found.update(dict.fromkeys((obj.key, base, base.rsplit(".", 1)[0], base.split(".")[0])))
    found.pop("", None)
    return tuple(found)
