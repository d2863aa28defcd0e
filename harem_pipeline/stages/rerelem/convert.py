"""The t2→t1 relation notation of a collection or run (``RerelemChangeNotationM2 -t2t1``).

Notation t2 writes each relation in TIPOREL as ``SRC**rel**ID**TGT``;
t1 spreads it over COREL, TIPOREL, FACS_ORIGEM and FACS_ALVO
(docs/spec/rerelem.md, stage 1).  An item that is not t2 keeps its COREL;
its source is the entity's category and its target the category of the
entity it names (``null`` for an unknown ID, as the Java writes).

The Java parses the whole XML with JDOM and prints it raw; on HAREM files
that changes only the declaration (double quotes), the line ends (every
one CRLF, an LF after the last) and the rewritten entity tags.  This
module makes those changes on the text itself, so everything else stays
byte for byte; a t1 item with no COREL at its place (the Java crashes) is
an input error.
"""

from __future__ import annotations

import re
from html import unescape

from harem_pipeline.errors import InputError

DECLARATION = '<?xml version="1.0" encoding="ISO-8859-1"?>'
_DECLARATION_RE = re.compile(rb"<\?xml[^>]*\?>")
_ENCODING_RE = re.compile(rb"""encoding\s*=\s*["']([^"']+)["']""")
_EM_RE = re.compile(r"<EM(\s[^<>]*?)?(/?)>")
_ATTRIBUTE_RE = re.compile(r"""([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
T2_SEP = "**"
PARTS_IN_T2 = 4


def _escape_attribute(value: str) -> str:
    """JDOM's ``escapeAttributeEntities``."""
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\r", "&#xD;")
        .replace("\n", "&#xA;")
        .replace("\t", "&#x9;")
    )


def _attributes(text: str | None) -> dict[str, str]:
    if not text:
        return {}
    return {
        m.group(1): unescape(m.group(2) if m.group(2) is not None else m.group(3))
        for m in _ATTRIBUTE_RE.finditer(text)
    }


def _split_space(value: str) -> list[str]:
    parts = value.split(" ")
    while parts and parts[-1] == "":
        parts.pop()
    return parts if value else [""]


def _split_t2(value: str) -> list[str]:
    parts = value.split(T2_SEP)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _category_key(attributes: dict[str, str]) -> str:
    """``getCategory``: CATEG de-duplicated in order (``EM`` without one)."""
    value = attributes.get("CATEG")
    if value is None:
        return "EM"
    parts = value.split("|")
    while parts and parts[-1] == "":
        parts.pop()
    joined = "".join(part + "|" for part in dict.fromkeys(parts))
    return joined[: len(joined.strip()) - 1]


def _convert_attributes(
    attributes: dict[str, str], categories: dict[str | None, str], path: str | None
) -> dict[str, str] | None:
    """The t1 attributes of one entity, None when it has no TIPOREL or no COREL."""
    tiporel = attributes.get("TIPOREL")
    corel = attributes.get("COREL")
    if tiporel is None or corel is None:
        return None
    kinds = _split_space(tiporel)
    corels = _split_space(corel)
    ident = attributes.get("ID")
    new_corel = new_kind = sources = targets = ""
    for i, kind in enumerate(kinds):
        if new_kind != "":
            new_corel += " "
            new_kind += " "
            sources += " "
            targets += " "
        parts = _split_t2(kind)
        if len(parts) >= PARTS_IN_T2:
            sources += parts[0]
            new_corel += parts[2]
            new_kind += parts[1]
            targets += parts[3]
            continue
        if i >= len(corels):
            raise InputError(
                path,
                f"a COREL for each TIPOREL item (item {i + 1} {kind!r})",
                f'entity {ident} with COREL="{corel}"',
            )
        sources += categories.get(ident, "null")
        new_corel += corels[i]
        new_kind += kind
        targets += categories.get(corels[i], "null")
    out = dict(attributes)
    out["COREL"] = new_corel
    out["TIPOREL"] = new_kind
    out["FACS_ORIGEM"] = sources
    out["FACS_ALVO"] = targets
    return out


def _decode(data: bytes, path: str | None) -> str:
    head = _DECLARATION_RE.match(data)
    encoding = "utf-8"
    if head is not None:
        found = _ENCODING_RE.search(head.group(0))
        if found is not None:
            encoding = found.group(1).decode("ascii", "replace")
    try:
        return data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        raise InputError(
            path, f"an XML file in its declared encoding {encoding}", str(exc)
        ) from None


def convert_t2_to_t1(data: bytes, path: str | None, warnings: list[str]) -> bytes:
    """The t1 text of the collection or run ``data`` (its bytes), as the Java prints it."""
    text = _decode(data, path).replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("<?xml"):
        end = text.index("?>") + 2
        text = DECLARATION + text[end:]
    else:
        text = DECLARATION + "\n" + text
    categories: dict[str | None, str] = {}
    for match in _EM_RE.finditer(text):
        attributes = _attributes(match.group(1))
        categories[attributes.get("ID")] = _category_key(attributes)

    def rewrite(match: re.Match[str]) -> str:
        attributes = _attributes(match.group(1))
        converted = _convert_attributes(attributes, categories, path)
        if converted is None:
            return match.group(0)
        written = "".join(f' {k}="{_escape_attribute(v)}"' for k, v in converted.items())
        return f"<EM{written}{match.group(2)}>"

    text = _EM_RE.sub(rewrite, text).rstrip("\n")
    return (text.replace("\n", "\r\n") + "\r\n\n").encode("iso-8859-1", "xmlcharrefreplace")
