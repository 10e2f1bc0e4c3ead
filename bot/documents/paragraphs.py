"""A fetched body → a cleaned text and its paragraphs. Pure: takes bytes, returns records, never fetches.

HTML goes through trafilatura (main content, boilerplate removed, paragraph structure kept); when trafilatura
finds nothing, every ``<p>`` is taken, as the published method did. PDF goes through pdfminer.six, plain text
is split at blank lines. Whitespace is normalised, repeated blocks are dropped, blocks shorter than
``min_chars`` are not paragraphs, and blocks longer than ``max_chars`` are split between sentences. The
cleaned text is every kept block joined by a blank line; each paragraph records where it lies in it.

A body its parser cannot read raises :class:`Unreadable` (the page's outcome): the parser failed on it yet still
reads its known-good sample (``bot.documents.samples``). Any other exception is refbot's own failure (a missing
or broken library, a bug) and propagates, so that it is never blamed on the page (``bot.faults``).
"""

from __future__ import annotations

import functools
import html as html_entities
import io
import re
import unicodedata
from dataclasses import dataclass

from bot.datamodel import Paragraph
from bot.documents.decoding import decode
from bot.documents.sentences import split_long
from bot.faults import blames_the_page, signature_of

_SPACE = re.compile(r"\s+")
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_HTML_LANG = re.compile(r"""<(?:html|body)\b[^>]*?\blang\s*=\s*["']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)""", re.I)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_OG_TITLE = re.compile(r"""<meta\s[^>]*property=["']og:title["'][^>]*content=["']([^"']+)""", re.I)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_BLOCK_TAGS = ("p", "item", "quote")


@dataclass(frozen=True)
class ParagraphRules:
    min_chars: int = 100
    max_chars: int = 2000


@dataclass(frozen=True)
class Document:
    url: str
    kind: str
    text: str
    paragraphs: tuple[Paragraph, ...]
    title: str = ""
    language: str = ""
    extractor: str = ""
    encoding: str = ""


class Unreadable(Exception):
    """The body defeats its parser (a truncated PDF, markup lxml refuses): the page's fault, not refbot's.
    ``signature`` names the exception's type and the parser's place (``bot.faults.signature_of``)."""

    def __init__(self, message: str, signature: str) -> None:
        super().__init__(message)
        self.signature = signature


def normalise(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text).translate(_INVISIBLE)).strip()


def extract(content: bytes, content_type: str, url: str, rules: ParagraphRules = ParagraphRules(),
            *, charset: str = "") -> Document:
    """Paragraphs of one document; ``content_type`` is a bare media type (``text/html``).

    Raises :class:`Unreadable` when the body defeats its parser; any other exception is refbot's own failure."""
    try:
        return _extract(content, content_type, url, rules, charset)
    except Exception as error:
        if blames_the_page(error, lambda: reads_its_sample(content_type)):
            raise Unreadable(f"{type(error).__name__}: {error}", signature_of(error)) from error
        raise


@functools.cache
def reads_its_sample(content_type: str) -> bool:
    """Whether the parser for ``content_type`` finds the paragraphs of its known-good sample (tried once)."""
    from bot.documents.samples import SAMPLES

    sample = SAMPLES.get(content_type, SAMPLES["text/html"])
    try:
        document = _extract(sample.content, sample.content_type, sample.url, ParagraphRules(min_chars=50), "")
    except Exception:
        return False
    return len(document.paragraphs) == sample.paragraphs and document.extractor == sample.extractor


def _extract(content: bytes, content_type: str, url: str, rules: ParagraphRules, charset: str) -> Document:
    if content_type == "application/pdf":
        blocks, title = pdf_blocks(content)
        return assemble(blocks, rules, url=url, kind="pdf", title=title, extractor="pdfminer")
    text, encoding = decode(content, charset, html=content_type != "text/plain")
    if content_type == "text/plain":
        return assemble(text_blocks(text), rules, url=url, kind="text", extractor="text", encoding=encoding)
    blocks, title, extractor = html_blocks(text, url, rules)
    match = _HTML_LANG.search(text[:20000])
    language = match.group(1).lower().replace("_", "-") if match else ""
    return assemble(blocks, rules, url=url, kind="html", title=title, language=language, extractor=extractor,
                    encoding=encoding)


def html_blocks(text: str, url: str = "", rules: ParagraphRules = ParagraphRules()) -> tuple[list[str], str, str]:
    """(blocks, title, extractor): trafilatura's main text, or every ``<p>`` when it finds no paragraph."""
    import trafilatura
    from lxml import etree

    blocks: list[str] = []
    # Without trafilatura's metadata: its date search costs more than the extraction on large pages.
    xml = trafilatura.extract(text, url=url or None, output_format="xml", with_metadata=False,
                              include_comments=False, include_tables=False, include_images=False)
    if xml:
        root = etree.fromstring(xml.encode("utf-8"))
        for line_break in root.iter("lb"):
            line_break.tail = " " + (line_break.tail or "")
        for element in root.iter(*_BLOCK_TAGS):
            if next(element.iterdescendants(*_BLOCK_TAGS), None) is None:
                blocks.append("".join(element.itertext()))
    title = page_title(text)
    if any(len(normalise(block)) >= rules.min_chars for block in blocks):
        return blocks, title, "trafilatura"
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "lxml")
    return [p.get_text(" ") for p in soup.find_all("p")], title, "paragraphs"


def page_title(text: str) -> str:
    """The page's title without the site's name: og:title, else <title> cut at " | ", " – ", " - " to the part
    that is the page's <h1>, or else its longest part."""
    head = text[:100_000]
    og = _OG_TITLE.search(head)
    if og:
        return normalise(html_entities.unescape(og.group(1)))
    match = _HTML_TITLE.search(head)
    if not match:
        return ""
    title = normalise(html_entities.unescape(re.sub(r"<[^>]+>", "", match.group(1))))
    parts = [part.strip() for part in re.split(r"\s+[|–—·»-]\s+", title) if part.strip()]
    if len(parts) < 2:
        return title
    heading = _H1.search(head)
    h1 = normalise(html_entities.unescape(re.sub(r"<[^>]+>", "", heading.group(1)))) if heading else ""
    return next((part for part in parts if part == h1), max(parts, key=len))


def pdf_blocks(content: bytes) -> tuple[list[str], str]:
    """Text blocks pdfminer's layout analysis finds (blank-line separated), and the PDF's Title."""
    from pdfminer.high_level import extract_text
    from pdfminer.layout import LAParams

    text = extract_text(io.BytesIO(content), laparams=LAParams())
    return text_blocks(text.replace("\x0c", "\n\n")), _pdf_title(content)


def _pdf_title(content: bytes) -> str:
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1
    from pdfminer.utils import decode_text

    try:
        for info in PDFDocument(PDFParser(io.BytesIO(content))).info:
            title = resolve1(info.get("Title"))
            if isinstance(title, bytes):
                return normalise(decode_text(title))
            if isinstance(title, str):
                return normalise(title)
    except Exception:  # a damaged info dictionary costs the title only
        return ""
    return ""


def text_blocks(text: str) -> list[str]:
    """Blank-line separated blocks; a line ending in a hyphen joins the next without a space."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [re.sub(r"(?<=\w-)\n(?=\w)", "", block) for block in re.split(r"\n[ \t]*\n", text)]


def assemble(blocks: list[str], rules: ParagraphRules, *, url: str, kind: str, title: str = "", language: str = "",
             extractor: str = "", encoding: str = "") -> Document:
    kept: list[str] = []
    seen: set[str] = set()
    for block in map(normalise, blocks):
        key = block.casefold()
        if block and key not in seen:
            seen.add(key)
            kept.append(block)
    paragraphs: list[Paragraph] = []
    offset = 0
    for block in kept:
        if len(block) >= rules.min_chars:
            for start, end in split_long(block, rules.max_chars):
                paragraphs.append(Paragraph(block[start:end], url, len(paragraphs), offset + start, offset + end))
        offset += len(block) + 2
    return Document(url, kind, "\n\n".join(kept), tuple(paragraphs), title, language, extractor, encoding)
