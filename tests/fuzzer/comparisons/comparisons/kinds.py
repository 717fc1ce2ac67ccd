"""The kinds of note a word may name, in a module of their own."""

from enum import StrEnum


class Kind(StrEnum):
    ORDER = "kind-order"
    REFUND = "kind-refund"
