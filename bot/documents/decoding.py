"""Bytes to text: the charset the server declared, then the one the page declares, then detection."""

from __future__ import annotations

import codecs
import re

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:-]+)""")


def _codec(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def declared_in_page(content: bytes) -> str:
    head = content[:4096]
    match = _XML_ENCODING.match(head.lstrip()) or _META_CHARSET.search(head)
    return match.group(1).decode("ascii") if match else ""


def decode(content: bytes, declared: str = "", *, html: bool = False) -> tuple[str, str]:
    """(text, codec used). A byte-order mark wins, then ``declared`` (HTTP), then the page's own
    declaration, then charset-normalizer's detection; a declaration that does not decode is ignored."""
    for bom, name in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                      (codecs.BOM_UTF16_BE, "utf-16")):
        if content.startswith(bom):
            return content.decode(name, "replace"), name
    candidates = [declared] + ([declared_in_page(content)] if html else [])
    for candidate in candidates:
        found = _codec(candidate) if candidate else None
        if found:
            # Pages declaring Latin-1 are read as Windows-1252, as browsers do (WHATWG Encoding Standard).
            name = "cp1252" if found in ("latin_1", "ascii") else found
            try:
                return content.decode(name), name
            except (UnicodeDecodeError, LookupError):  # LookupError: a bytes codec (hex, base64), not a charset
                continue
    try:
        return content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(content).best()
    if best is not None:
        return str(best), best.encoding
    return content.decode("utf-8", "replace"), "utf-8"
