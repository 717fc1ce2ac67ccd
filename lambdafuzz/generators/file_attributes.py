"""A file with attributes (name, size, created and modified dates), SpotOn's Figure 3.

The first composite generator: it exercises nesting (two date sub-generators under one
file frame), labels, and why execution indexing matters: a mutation that lengthens the
name shifts every later draw in linear mode but leaves the dates alone in EI mode.
"""

from __future__ import annotations

import datetime as dt
import string
from dataclasses import dataclass

from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import datetimes

FILE_ATTRIBUTES_LABEL = "lambdafuzz.FileAttributes"
NAME_ALPHABET = string.ascii_lowercase + string.digits + "_-"
EXTENSIONS = ("txt", "csv", "jpg", "png", "json", "zip")


@dataclass(slots=True, frozen=True)
class FileAttributes:
    name: str
    size: int
    created: dt.datetime
    modified: dt.datetime


@generator(FILE_ATTRIBUTES_LABEL)
def file_attributes(choices: Choices) -> FileAttributes:
    """Name, size, and a modified date never before the created date."""
    stem = choices.draw_string(NAME_ALPHABET, 1, 24, site="name")
    extension = choices.draw_choice(EXTENSIONS, site="extension")
    size = choices.draw_geometric(4096, max_value=1 << 30, site="size")
    created = datetimes(choices, site="created")
    modified = datetimes(choices, site="modified")
    return FileAttributes(f"{stem}.{extension}", size, created, max(created, modified))
