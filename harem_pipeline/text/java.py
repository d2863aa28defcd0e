"""Small pieces of Java behaviour the reference outputs depend on.

The official 2010 programs were written in Java; where their output order
or text comes from a Java library rule (``String.trim``, ``hashCode``, the
iteration order of a ``HashMap``/``HashSet``), our stages reproduce it
through these functions, so each rule is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar

T = TypeVar("T", bound=Hashable)


JAVA_BLANKS = "".join(map(chr, range(0x21)))
"""What Java's ``String.trim`` strips: every character up to U+0020."""


def java_trim(text: str) -> str:
    """Strip characters up to U+0020 at both ends (Java ``String.trim``)."""
    return text.strip(JAVA_BLANKS)


def java_string_hash(text: str | None) -> int:
    """Java ``String.hashCode`` (a signed 32-bit number; 0 for ``null``), over UTF-16 units."""
    if text is None:
        return 0
    value = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        value = (31 * value + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return value - 0x100000000 if value & 0x80000000 else value


def java_hash_order(
    keys: Iterable[T],
    hash_of: Callable[[Any], int] = java_string_hash,
    size: int | None = None,
) -> list[T]:
    """``keys`` in the order a Java 8 ``HashMap``/``HashSet`` iterates them.

    ``hash_of`` is the keys' Java ``hashCode`` (strings' by default).

    Duplicates keep their first place.  ``size`` is the largest number of
    entries the table ever held (it never shrinks); by default the number of
    distinct keys.  The table starts at 16 buckets and doubles past 3/4 load;
    a key goes to bucket ``(h ^ (h >>> 16)) & (capacity - 1)`` and iteration
    goes bucket by bucket, insertion order inside a bucket.  (Java turns a
    bucket of 8 or more colliding keys into a tree; that is not emulated.)
    """
    unique = list(dict.fromkeys(keys))
    entries = len(unique) if size is None else max(size, len(unique))
    capacity = 16
    while entries > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: T) -> int:
        h = hash_of(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(unique, key=bucket)


def java_split_bar(value: str | None) -> list[str]:
    """``value.split("\\\\|")`` in Java: trailing empty strings removed, ``""`` → ``[""]``."""
    if value is None:
        return []
    if "|" not in value:
        return [value]
    parts = value.split("|")
    while parts and parts[-1] == "":
        parts.pop()
    return parts
