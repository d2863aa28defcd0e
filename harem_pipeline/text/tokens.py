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

Speed: the word tokens are found by one regular expression (C speed) and a
text node's separators are never visited one by one.  Python's classes are
a little wider than the rule (``[^\\W\\d_]`` also takes the other numerics
``²``, ``½``, ``Ⅻ``), so a run holding one is cut by hand; ``\\d`` is exactly
the decimal digits.  A separator only counts in numbering when its upper
case is a markable key, which needs one of the few separators whose upper
case differs from them (``_CASED_SEPARATORS``, checked against the whole of
Unicode by the tests); a text holding one is numbered token by token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

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


# Letter runs (and runs with other numerics, cut by ``word_spans``) or one digit.
_WORD = re.compile(r"[^\W\d_]+|\d")
# The characters that are neither letters nor decimal digits and change under
# ``str.upper`` (U+0345, small Roman numerals, circled small letters).
_CASED_SEPARATORS = "\u0345\u2170-\u217f\u24d0-\u24e9"
_CASED_SEPARATOR = re.compile(f"[{_CASED_SEPARATORS}]")
# Where ``_WORD`` may take a numeric that is no letter: the six of Latin-1
# (² ³ ¹ ¼ ½ ¾) or any character past it (then ``_odd_numeric`` decides).
# (Written as the complement of the rest of Latin-1: a class running to U+10FFFF
# takes the regular-expression compiler about 10 ms, at every start.)
MAYBE_ODD = re.compile("[^\x00-\xb1\xb4-\xb8\xba\xbb\xbf-\xff]")


@cache
def _odd_numeric() -> re.Pattern[str]:
    """The characters ``_WORD`` takes that are neither letters nor decimal digits."""
    odd = [chr(c) for c in range(0x110000) if chr(c).isalnum() and not chr(c).isalpha()]
    return re.compile("[" + "".join(re.escape(c) for c in odd if not c.isdecimal()) + "]")


def _exact_words(text: str) -> bool:
    """True when ``_WORD`` alone cuts ``text`` into its word tokens."""
    return not MAYBE_ODD.search(text) or not _odd_numeric().search(text)


def word_spans(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, token)`` of every word token of ``text``, in order (see ``tokenize``)."""
    for match in _WORD.finditer(text):
        word = match.group()
        if word.isalpha() or word.isdecimal():
            yield match.start(), word
            continue
        start = match.start()
        run = -1
        for index, char in enumerate(word):
            if char.isalpha():
                if run < 0:
                    run = index
            elif run >= 0:
                yield start + run, word[run:index]
                run = -1
        if run >= 0:
            yield start + run, word[run:]


def tokenize(text: str) -> list[str]:
    """Cut ``text`` the way the official aligner does, keeping everything.

    The result alternates word tokens with one-character separator tokens
    and, as in the original, holds an empty string wherever a boundary falls
    with no word before it (``", "`` gives ``["", ",", "", " "]``).  Joining the
    list gives ``text`` back.
    """
    tokens: list[str] = []
    after_word = False
    cursor = 0
    for start, word in word_spans(text):
        for char in text[cursor:start]:
            if not after_word:
                tokens.append("")
            tokens.append(char)
            after_word = False
        tokens.append(word)
        after_word = True
        cursor = start + len(word)
    for char in text[cursor:]:
        if not after_word:
            tokens.append("")
        tokens.append(char)
        after_word = False
    return tokens


def word_tokens(text: str) -> list[str]:
    """The word tokens of ``text`` in order (letters and digits only)."""
    if _exact_words(text):
        return _WORD.findall(text)
    return [word for _, word in word_spans(text)]


def markable_tokens(text: str) -> list[str]:
    """Upper-cased word tokens of ``text`` that are not stopwords, in order, repeats kept."""
    return [word.upper() for word in word_tokens(text) if not is_stopword(word)]


# One numbered occurrence of a markable token: ``(written, key, count)``, the
# token as it appears in the text, its upper-case form (the unit counted) and
# its occurrence number (from 1); ``mark[1:]`` (key, count) is what two
# occurrences must share to be the same place.  A plain tuple: one is built
# per numbered token (tens of thousands a collection), and building a named
# tuple (a Python ``__new__``, or ``tuple.__new__`` through a partial) costs
# several times a tuple display.
Mark = tuple[str, str, int]

# A text with its markable tokens numbered: ``(marked, marks)``, the text with
# every numbered token wrapped (``<n>T</n>``, which the original uses as the
# identity of an entity) and the numbered tokens in text order.
MarkedText = tuple[str, tuple[Mark, ...]]


def number_in_sequence(text: str, counters: dict[str, int]) -> MarkedText:
    """Number every markable occurrence in ``text``, token after token.

    ``counters`` maps each markable key to the count reached so far and is
    advanced in place (a key absent from it is not markable).  This is how
    entity texts inside ``ALT`` blocks and the plain text between them are
    numbered.

    A text with no cased separator and no odd numeric (nothing past
    ``MAYBE_ODD``) has no separator that can be counted, and its word
    tokens are ``_WORD``'s matches, wrapped where they are.
    """
    pieces: list[str] = []
    marks: list[Mark] = []
    if not MAYBE_ODD.search(text):
        cursor = 0
        for match in _WORD.finditer(text):
            token = match.group()
            key = token.upper()
            count = counters.get(key)
            if count is None:
                continue
            count += 1
            counters[key] = count
            marks.append((token, key, count))
            start = match.start()
            pieces.append(text[cursor:start])
            pieces.append(f"<{count}>{token}</{count}>")  # the token wrapped in its number
            cursor = start + len(token)
        pieces.append(text[cursor:])
        return "".join(pieces), tuple(marks)
    for token in tokenize(text):
        key = token.upper()
        count = counters.get(key) if token else None
        if count is None:
            pieces.append(token)
            continue
        count += 1
        counters[key] = count
        marks.append((token, key, count))
        pieces.append(f"<{count}>{token}</{count}>")
    return "".join(pieces), tuple(marks)


def number_by_search(text: str, counters: dict[str, int]) -> MarkedText:
    """Number the markable occurrences of a text node outside ``ALT`` blocks.

    The official aligner does not wrap the token where it was found: for each
    markable token it counts one occurrence and then wraps the FIRST
    case-sensitive occurrence of that string after the previous wrapped one,
    even inside a longer word (``Portugal`` in ``Portugalia``).  When the
    search fails the count is still spent and nothing is wrapped.  The
    numbers later alignment sees come from the wrapped places, so the quirk
    is kept.  The keys of ``counters`` are upper-cased word tokens (as
    ``markable_tokens`` gives them), so only word tokens and the cased
    separators can ever be counted.
    """
    if text.isalpha():  # one word of letters (a third of the entities): itself, found at 0
        key = text.upper()
        count = counters.get(key)
        if count is None:
            return text, ()
        count += 1
        counters[key] = count
        return f"<{count}>{text}</{count}>", ((text, key, count),)
    if text.replace(" ", "").isalpha():  # letters and spaces (most entities): no regex
        tokens = text.split()
    elif not MAYBE_ODD.search(text):  # no cased separator, no odd numeric (they are past it)
        tokens = _WORD.findall(text)
    elif _CASED_SEPARATOR.search(text):
        tokens = [token for token in tokenize(text) if token]
    else:
        tokens = word_tokens(text)
    pieces: list[str] = []
    marks: list[Mark] = []
    cursor = 0
    get = counters.get
    for token in tokens:
        key = token.upper()
        count = get(key)
        if count is None:
            continue
        count += 1
        counters[key] = count
        found = text.find(token, cursor)
        if found < 0:
            continue
        marks.append((token, key, count))
        pieces.append(text[cursor:found])
        pieces.append(f"<{count}>{token}</{count}>")  # the token wrapped in its number
        cursor = found + len(token)
    if not marks:
        return text, ()
    pieces.append(text[cursor:])
    return "".join(pieces), tuple(marks)


def count_tokens(text: str, counters: dict[str, int]) -> None:
    """Advance ``counters`` as ``number_by_search`` does, without numbering anything.

    For text whose numbered form nobody reads (running text outside entities
    and ``OMITIDO``): the counts are the same because a search that fails
    still spends its count.
    """
    if MAYBE_ODD.search(text) and (_CASED_SEPARATOR.search(text) or not _exact_words(text)):
        number_by_search(text, counters)
        return
    for key in filter(counters.__contains__, map(str.upper, _WORD.findall(text))):
        counters[key] += 1


# Counting long running texts in C: a Latin-1 text's word tokens, upper-cased,
# are its bytes with every letter upper-cased, every character that is neither
# letter nor decimal digit made a blank and every digit set apart, split at the
# blanks.  Three Latin-1 letters have an upper case that is no Latin-1 letter
# (ß, ÿ, µ): a text holding one, or a character past Latin-1, is not read so.
GAP = "\x01"
_NOT_LATIN_UPPER = b"\xdf\xff\xb5"  # ß ÿ µ in Latin-1


def _latin_upper_table() -> bytes:
    table = bytearray(b" " * 256)
    for code in range(256):
        char = chr(code)
        if char.isdecimal():
            table[code] = code
        elif char.isalpha() and len(char.upper()) == 1 and ord(char.upper()) < 256:
            table[code] = ord(char.upper())
    table[ord(GAP)] = ord(GAP)
    return bytes(table)


_LATIN_UPPER = _latin_upper_table()
_SET_APART = [(bytes([code]), b" %c " % code) for code in b"0123456789\x01"]


def upper_words_by_gap(text: str) -> list[str] | None:
    """The upper-cased word tokens of ``text``, with ``GAP`` kept as a token of its own.

    For ``text = GAP.join(pieces)`` (no piece holding ``GAP``) this is
    ``[token.upper() for token in word_tokens(piece)]`` piece after piece,
    with ``GAP`` between the pieces' tokens; found without a regular
    expression.  None when a piece holds a character past Latin-1 or one of
    ß, ÿ, µ (read those with ``word_tokens``).
    """
    try:
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        return None
    if any(code in data for code in _NOT_LATIN_UPPER):  # a byte search each: no regex
        return None
    data = data.translate(_LATIN_UPPER)
    for alone, apart in _SET_APART:
        data = data.replace(alone, apart)
    return data.decode("latin-1").split()


def new_counters(keys: Iterable[str]) -> dict[str, int]:
    """Fresh counters (all at 0) for the markable ``keys``, in their order."""
    return dict.fromkeys(keys, 0)
