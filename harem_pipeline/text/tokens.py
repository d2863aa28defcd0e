"""AlinhEM tokens: how a text is cut into tokens and how markable tokens are numbered.

AlinhEM aligns a golden entity with a system entity when both cover the same
*occurrence* of a markable token.  Occurrences are told apart by numbering:
the n-th occurrence of token T in a document's running text is ``(T, n)``,
counted separately in the golden document and in the system document, so
the same numbered token in both files is the same place in the text.

Token rule (the official aligner's): a token boundary falls before every
character that is not a letter or digit (that character is a one-character
token of its own), between a letter and a digit (either order) and between
two consecutive digits, so ``1999`` is four tokens and ``A4`` two.  Letters
are Unicode letters (categories L*), digits decimal digits (Nd); this is
narrower than ``str.isalnum`` (no ``²`` or ``½``), on purpose, to match the
official tool.  Numbering is case-insensitive (tokens are counted under
their upper-case form) while stopwords are tested as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harem_pipeline.text.stopwords import is_stopword


def is_letter(char: str) -> bool:
    """A Unicode letter (general category L*)."""
    return char.isalpha()


def is_digit(char: str) -> bool:
    """A decimal digit (general category Nd)."""
    return char.isdecimal()


def is_letter_or_digit(char: str) -> bool:
    """A character that belongs to a word token."""
    return char.isalpha() or char.isdecimal()


def is_token_boundary(previous: str, current: str) -> bool:
    """True when a token boundary falls between ``previous`` and ``current``."""
    if not is_letter_or_digit(current):
        return True
    if is_digit(current):
        return is_letter(previous) or is_digit(previous)
    return is_digit(previous)


def tokenize(text: str) -> list[str]:
    """Cut ``text`` the way the official aligner does, keeping everything.

    The result alternates word tokens with one-character separator tokens
    and, as in the original, holds an empty string wherever a boundary falls
    with no word before it (``", "`` gives ``["", ",", "", " "]``).  Joining the
    list gives ``text`` back.
    """
    tokens: list[str] = []
    current: list[str] = []
    previous = "\0"
    for char in text:
        if is_token_boundary(previous, char):
            tokens.append("".join(current))
            if is_letter_or_digit(char):
                current = [char]
            else:
                tokens.append(char)
                current = []
        else:
            current.append(char)
        previous = char
    if current:
        tokens.append("".join(current))
    return tokens


def word_tokens(text: str) -> list[str]:
    """The word tokens of ``text`` in order (letters and digits only)."""
    return [token for token in tokenize(text) if token and is_letter_or_digit(token[0])]


def markable_tokens(text: str) -> list[str]:
    """Upper-cased word tokens of ``text`` that are not stopwords, in order, repeats kept."""
    return [token.upper() for token in word_tokens(text) if not is_stopword(token)]


@dataclass(frozen=True, slots=True)
class Mark:
    """One numbered occurrence of a markable token.

    ``written`` is the token as it appears in the text, ``key`` its upper-case
    form (the unit counted) and ``count`` the occurrence number (from 1).
    """

    written: str
    key: str
    count: int

    @property
    def numbered(self) -> tuple[str, int]:
        """What two occurrences must share to be the same place: (key, count)."""
        return (self.key, self.count)

    def render(self) -> str:
        """The token wrapped in its number, as the original writes it: ``<3>Lisboa</3>``."""
        return f"<{self.count}>{self.written}</{self.count}>"


@dataclass(frozen=True, slots=True)
class MarkedText:
    """A text with its markable tokens numbered.

    ``marked`` is the text with every numbered token wrapped (``<n>T</n>``),
    which the original uses as the identity of an entity; ``marks`` the
    numbered tokens in text order.
    """

    marked: str
    marks: tuple[Mark, ...]


def number_in_sequence(text: str, counters: dict[str, int]) -> MarkedText:
    """Number every markable occurrence in ``text``, token after token.

    ``counters`` maps each markable key to the count reached so far and is
    advanced in place (a key absent from it is not markable).  This is how
    entity texts inside ``ALT`` blocks and the plain text between them are
    numbered.
    """
    pieces: list[str] = []
    marks: list[Mark] = []
    for token in tokenize(text):
        key = token.upper()
        count = counters.get(key) if token else None
        if count is None:
            pieces.append(token)
            continue
        count += 1
        counters[key] = count
        mark = Mark(token, key, count)
        marks.append(mark)
        pieces.append(mark.render())
    return MarkedText("".join(pieces), tuple(marks))


def number_by_search(text: str, counters: dict[str, int]) -> MarkedText:
    """Number the markable occurrences of a text node outside ``ALT`` blocks.

    The official aligner does not wrap the token where it was found: for each
    markable token it counts one occurrence and then wraps the FIRST
    case-sensitive occurrence of that string after the previous wrapped one,
    even inside a longer word (``Portugal`` in ``Portugalia``).  When the
    search fails the count is still spent and nothing is wrapped.  The
    numbers later alignment sees come from the wrapped places, so the quirk
    is kept.
    """
    pieces: list[str] = []
    marks: list[Mark] = []
    cursor = 0
    for token in tokenize(text):
        if not token:
            continue
        key = token.upper()
        count = counters.get(key)
        if count is None:
            continue
        count += 1
        counters[key] = count
        found = text.find(token, cursor)
        if found < 0:
            continue
        mark = Mark(token, key, count)
        marks.append(mark)
        pieces.append(text[cursor:found])
        pieces.append(mark.render())
        cursor = found + len(token)
    pieces.append(text[cursor:])
    return MarkedText("".join(pieces), tuple(marks))


def new_counters(keys: Iterable[str]) -> dict[str, int]:
    """Fresh counters (all at 0) for the markable ``keys``, in their order."""
    return dict.fromkeys(keys, 0)
