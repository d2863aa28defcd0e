"""The Second HAREM collection metadata (``colSegundoHAREM-meta.xml``): each document's
variant and genres, which a collection's documents do not carry.

Unlike the collections, it is well-formed XML, so it is read with lxml.
"""

from __future__ import annotations

from collections.abc import Mapping

from harem_pipeline.errors import InputError
from harem_pipeline.text import PathLike
from harem_pipeline.text.textio import read_bytes

MetaData = Mapping[str, tuple[str | None, str | None]]
"""DOCID → (variant, genre), as :func:`read_meta` gives them."""


def read_meta(path: PathLike) -> dict[str, tuple[str | None, str | None]]:
    """Read ``colSegundoHAREM-meta.xml``: DOCID → (variant, genre), as written.

    The variant is the ``VARIANTE`` text (``pt_PT``, ``pt_BR``, ...); the genre
    the ``TIPO_TEXTO`` texts joined by ``|`` (two documents have two).
    """
    return parse_meta(read_bytes(path), str(path))


def parse_meta(data: bytes | str, path: str) -> dict[str, tuple[str | None, str | None]]:
    """Parse the metadata file (see ``read_meta``).

    Unlike the collections, the metadata file is well-formed XML, so it is
    read with lxml, safely: no entity expansion, no DTD, no network.
    """
    from lxml import etree

    raw = data.encode("utf-8") if isinstance(data, str) else data
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(raw, parser)
    except etree.XMLSyntaxError as exc:
        raise InputError(path, "well-formed collection metadata XML", str(exc)) from None
    result: dict[str, tuple[str | None, str | None]] = {}
    for doc in root.iter("DOC"):
        docid = doc.get("DOCID")
        if not docid:
            raise InputError(path, '<DOC DOCID="...">', "a DOC without DOCID", line=doc.sourceline)
        variant = doc.findtext("VARIANTE")
        if variant is None:  # required by the file's DTD; a collection's DOC has none
            raise InputError(
                path,
                "collection metadata, a <VARIANTE> in every <DOC> (colSegundoHAREM-meta.xml)",
                "a DOC without one (a collection?)",
                line=doc.sourceline,
                docid=docid,
            )
        genres = [(g.text or "").strip() for g in doc.iter("TIPO_TEXTO")]
        result[docid] = (variant.strip() if variant else None, "|".join(genres) or None)
    if not result:
        raise InputError(path, "a HAREM metadata file with <DOC DOCID=...>", "no documents")
    return result
