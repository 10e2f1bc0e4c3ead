"""Text a page hides from its readers. Pure: HTML in, HTML out.

A page may carry text that no reader sees: a note left in with ``display: none``, an element with ``hidden`` that no
script will reveal, a ``<template>``'s content, a line for screen readers that repeats or contradicts what is
shown. A reference's evidence must be what a reader of the page finds there, so such text is removed before any
extractor reads the page: it is never quoted as support, nor read as a contradiction.

What hides text follows from how HTML and CSS are written, not from any one site: the ``hidden`` attribute,
``aria-hidden="true"``, an inline style with ``display: none`` or ``visibility: hidden``, ``<template>``, and the
class names by which the common CSS frameworks hide an element or show it to screen readers only
(``visually-hidden``, ``sr-only``, ``screen-reader-text``, ``element-invisible``, ``d-none``, ``hidden``). A class
that hides at some screen sizes only (``hidden-xs``) hides nothing from a reader of the page as a whole and is kept.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree
from lxml import html as lxml_html

# A page with none of these cannot hide text in any of the ways above: it is left as it is, unparsed.
_MARKERS = re.compile(r"hidden|display\s*:\s*none|<template|sr-only|screen-?reader|invisible|d-none", re.I)
_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)",
                    re.I)
_CLASSES = frozenset(("visually-hidden", "visuallyhidden", "sr-only", "screen-reader-text", "screenreader-text",
                      "screen-reader-only", "element-invisible", "hidden", "is-hidden", "u-hidden", "d-none",
                      "invisible", "hide"))
# The page itself: never removed, whatever its attributes say (a script may show a page it starts hidden).
_PAGE = frozenset(("html", "head", "body"))


def is_hidden(element: Any) -> bool:
    """Whether ``element`` (an lxml element) is hidden from readers by its own markup."""
    if not isinstance(element.tag, str) or element.tag in _PAGE:
        return False
    if element.tag == "template":
        return True
    if element.get("hidden") is not None or (element.get("aria-hidden") or "").strip().lower() == "true":
        return True
    if _STYLE.search(element.get("style") or ""):
        return True
    return any(name.lower() in _CLASSES for name in (element.get("class") or "").split())


def without_hidden(html: str) -> str:
    """``html`` with every element hidden from readers removed (the text after each kept); ``html`` itself when it
    hides nothing or cannot be parsed."""
    if not _MARKERS.search(html):
        return html
    # As UTF-8 bytes: the text is decoded already, whatever its XML declaration or meta charset says.
    encoded = html.encode("utf-8", "replace")  # a lone surrogate, which no page's bytes decode to, as "?"
    try:
        root = lxml_html.document_fromstring(encoded, parser=lxml_html.HTMLParser(encoding="utf-8"))
    except (etree.ParserError, ValueError):  # text lxml takes for no HTML
        return html
    hidden = [element for element in root.iter() if is_hidden(element)]
    if not hidden:
        return html
    for element in hidden:
        parent = element.getparent()
        if parent is None:
            continue  # the document's root
        if element.tail:  # the text after it stays where it was
            previous = element.getprevious()
            if previous is not None:
                previous.tail = (previous.tail or "") + element.tail
            else:
                parent.text = (parent.text or "") + element.tail
        parent.remove(element)
    return str(lxml_html.tostring(root, encoding="unicode"))
