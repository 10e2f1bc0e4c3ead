"""A fetched body → a cleaned text and its paragraphs. Pure: takes bytes, returns records, never fetches.

HTML is read as a person reads it (``bot.documents.blocks``): trafilatura's main content (boilerplate removed,
its paragraphs, headings, lists, definition lists and tables), when it finds no paragraph every ``<p>`` (as the
published method did), and with either the blocks readers take facts from that trafilatura drops (the header line
under the page's heading, the breadcrumb, details tables, definition lists, captions, the title). Short lines are
read together (a heading and the label–value lines under it), tables as "header: cell" pairs: each such block is a
paragraph whatever its length, and says what it is (``Paragraph.kind``). PDF goes through pdfminer.six, plain text
is split at blank lines; there, blocks shorter than ``min_chars`` are not paragraphs. Whitespace is normalised,
repeated blocks are dropped, and blocks longer than ``max_chars`` are split between sentences. The cleaned text is
every kept block joined by a blank line; each paragraph records where it lies in it.

A document is read up to ``max_paragraphs`` paragraphs and ``max_text`` characters of text, so that what a page
costs (time, memory) is bounded by what is read of it, not by its bytes: an HTML page with more text is cut
before trafilatura sees it, and the document says where it stopped (``Document.cut``).

A body its parser cannot read raises :class:`Unreadable` (the page's outcome): the parser failed on it yet still
reads its known-good sample (``bot.documents.samples``). Any other exception is refbot's own failure (a missing
or broken library, a bug) and propagates, so that it is never blamed on the page (``bot.faults``).
"""

from __future__ import annotations

import functools
import html as html_entities
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import htmldate
from lxml import etree

from bot.datamodel import Paragraph
from bot.documents.blocks import PARAGRAPH, Block, main_blocks, main_heading, normalise, page_blocks, prose_blocks
from bot.documents.decoding import decode
from bot.documents.hidden import without_hidden
from bot.documents.sentences import sentence_spans, split_long
from bot.faults import blames_the_page, signature_of
from bot.values.language import text_language

PAGE_DATE_CHARS = 500_000  # of a page's HTML searched for its date (its head and byline come first)
_HTML_LANG = re.compile(r"""<(?:html|body)\b[^>]*?\blang\s*=\s*["']?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*)""", re.I)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)
_OG_TITLE = re.compile(r"""<meta\s[^>]*property=["']og:title["'][^>]*content=["']([^"']+)""", re.I)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.I | re.S)
_NOT_TEXT = frozenset(("script", "style", "noscript", "template"))
# What one document is read up to (``ParagraphRules``). Ranking looks at 200 paragraphs of a page, the best by the
# names they mention (``bot.checking.ranking.MAX_RANKED``), so this is far above that: 25 times as many paragraphs,
# and a million characters of text (a book of some 500 pages), which ordinary pages never reach: what they yield is
# unchanged. A 17.5 MB page of 92,000 paragraphs read whole held its statement for minutes and half a gigabyte
# (``benchmarks/large_page.py``).
MAX_PARAGRAPHS = 5_000
MAX_TEXT = 1_000_000


# Characters of a page's text its language is identified from, when it declares none.
IDENTIFIED_CHARS = 5000


@dataclass(frozen=True)
class ParagraphRules:
    min_chars: int = 100
    max_chars: int = 2000
    max_paragraphs: int = MAX_PARAGRAPHS
    max_text: int = MAX_TEXT


@dataclass(frozen=True)
class Document:
    url: str
    kind: str
    text: str
    paragraphs: tuple[Paragraph, ...]
    title: str = ""
    # The language the page declares (``<html lang>``, lowercase), else the one its text is identified as
    # (``bot.values.language``); "" when neither says.
    language: str = ""
    extractor: str = ""
    encoding: str = ""
    # Why the paragraphs end before the document does (a cap of ``ParagraphRules``); "" when it was read whole.
    cut: str = ""
    # The page's main heading (its first ``<h1>`` outside menus and banners), which names what the page is about
    # where its ``<title>`` names the site or the catalogue; "" when it has none.
    heading: str = ""
    # The date the page says it was published (YYYY-MM-DD: its metadata, its URL, its byline), "" when it says none:
    # what dates an event the page tells by the page's own date ("earlier this month").
    published: str = ""


class Unreadable(Exception):
    """The body defeats its parser (a truncated PDF, markup lxml refuses): the page's fault, not refbot's.
    ``signature`` names the exception's type and the parser's place (``bot.faults.signature_of``)."""

    def __init__(self, message: str, signature: str) -> None:
        super().__init__(message)
        self.signature = signature


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
    document = _read(content, content_type, url, rules, charset)
    if document.language:
        return document
    # A page that does not declare its language (a PDF, plain text, HTML without lang) says it by its words.
    return replace(document, language=text_language(document.text[:IDENTIFIED_CHARS]) or "")


def _read(content: bytes, content_type: str, url: str, rules: ParagraphRules, charset: str) -> Document:
    if content_type == "application/pdf":
        pdf, title = pdf_blocks(content)
        return assemble(pdf, rules, url=url, kind="pdf", title=title, extractor="pdfminer")
    text, encoding = decode(content, charset, html=content_type != "text/plain")
    if content_type == "text/plain":
        return assemble(text_blocks(text), rules, url=url, kind="text", extractor="text", encoding=encoding)
    match = _HTML_LANG.search(text[:20000])
    language = match.group(1).lower().replace("_", "-") if match else ""
    blocks, title, extractor, cut, heading = html_blocks(text, url, rules)
    return replace(assemble(blocks, rules, url=url, kind="html", title=title, language=language, extractor=extractor,
                            encoding=encoding, cut=cut, heading=heading), published=page_date(text, url))


def page_date(text: str, url: str = "") -> str:
    """The date a page says it was published (htmldate's quick search: metadata, structured data, the URL, the
    byline; not its guesses from any date in the text), as YYYY-MM-DD; "" when it says none or cannot be read."""
    try:
        found = htmldate.find_date(text[:PAGE_DATE_CHARS], extensive_search=False, original_date=True,
                                   url=url or None)
    except (ValueError, TypeError, etree.LxmlError):  # a page htmldate cannot parse: no date, not an error of refbot's
        return ""
    return found or ""


def html_blocks(text: str, url: str = "", rules: ParagraphRules = ParagraphRules()
                ) -> tuple[list[Block], str, str, str, str]:
    """(blocks, title, extractor, cut, heading): the page's blocks up to ``rules.max_text`` characters of its
    text — trafilatura's main content, or every ``<p>`` when it finds no paragraph, then the structured blocks it
    left out (``bot.documents.blocks``); ``cut`` says why the page was cut ("" if not); ``heading`` is its main
    heading ("" if none)."""
    import trafilatura
    from lxml import etree

    title = page_title(text)
    text, cut = bounded_html(text, rules.max_text, rules.max_chars)
    text = without_hidden(scripts_as_characters(text))
    blocks: list[Block] = []
    kept: list[str] = []
    # Without trafilatura's metadata: its date search costs more than the extraction on large pages.
    xml = trafilatura.extract(text, url=url or None, output_format="xml", with_metadata=False,
                              include_comments=False, include_tables=True, include_images=False)
    if xml:
        root = etree.fromstring(xml.encode("utf-8"))
        for line_break in root.iter("lb"):
            line_break.tail = " " + (line_break.tail or "")
        blocks = main_blocks(root, rules.min_chars)
        kept = ["".join(element.itertext()) for element in root.iter("p", "item", "cell", "head", "quote")]
        del root, xml
    extractor = "trafilatura"
    if not any(block.kind == PARAGRAPH for block in blocks):
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(text, "lxml")
        texts = [p.get_text(" ") for p in soup.find_all("p")]
        if any(len(normalise(text)) >= rules.min_chars for text in texts):
            blocks, kept, extractor = prose_blocks(texts, rules.min_chars), texts, "paragraphs"
        del soup
    tree = _page_tree(text)
    heading = ""
    if tree is not None:
        blocks += page_blocks(tree, kept + [block.text for block in blocks])
        heading = main_heading(tree)
    return blocks, title, extractor, cut, heading


_SCRIPT_DIGITS = re.compile(r"<(sup|sub)\b[^>]*>\s*(?:<a\b[^>]*>\s*)?\[?([0-9]{1,3})\]?\s*(?:</a>\s*)?</\1\s*>",
                            re.I)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def scripts_as_characters(text: str) -> str:
    """Digits in ``<sup>`` and ``<sub>`` as the superscript and subscript characters a plain text writes: a text
    extractor would glue them to what they follow ("1871<sup>2</sup>" read as "18712", "C<sub>42</sub>" as "C42"),
    while "1871²" keeps the year and its footnote apart, "10⁶" an exponent and "C₄₂H₇₈" a formula."""
    def written(match: re.Match[str]) -> str:
        table = _SUPERSCRIPT if match.group(1).lower() == "sup" else _SUBSCRIPT
        return match.group(2).translate(table)
    return _SCRIPT_DIGITS.sub(written, text) if "<su" in text.lower() else text


def _page_tree(text: str) -> Any:
    """The page's lxml tree (scripts and styles left in: ``bot.documents.blocks`` skips them), or None."""
    from trafilatura import load_html

    return load_html(text)


def bounded_html(text: str, max_text: int, keep_whole: int = 0) -> tuple[str, str]:
    """(html, cut): the page as it is when its text (outside scripts and styles) is at most ``max_text``
    characters; otherwise the page up to that much text, the rest dropped before any extractor parses it, and why.

    The text node that crosses the limit is kept whole when it is at most ``keep_whole`` characters (a paragraph
    is not cut in two), else up to its last sentence within the limit. The page is first scanned without building
    its tree, so that only the part read is ever parsed into one."""
    if len(text) <= max_text:
        return text, ""
    end = _where_text_exceeds(text, max_text)
    if end is None:
        return text, ""
    from lxml import etree
    from lxml.html import tostring
    from trafilatura import load_html

    root = load_html(text[:end])
    if root is None:
        return text, ""  # the extractors say what they make of it
    seen = 0
    for event, element in etree.iterwalk(root, events=("start", "end")):
        at = "text" if event == "start" else "tail"
        if at == "text" and element.tag in _NOT_TEXT:
            continue
        node = getattr(element, at) or ""
        if seen + len(node) > max_text:
            if len(node) > keep_whole:
                setattr(element, at, _sentences_within(node, max_text - seen))
            _drop_after(element, at)
            break
        seen += len(node)
    return tostring(root, encoding="unicode"), f"only the first {max_text:,} characters of the page's text were read"


class _TextCounter:
    """An lxml parser target that counts the characters of text outside scripts and styles, building nothing."""

    def __init__(self) -> None:
        self.characters = 0
        self._hidden = 0

    def start(self, tag: str, attributes: Any) -> None:
        if tag in _NOT_TEXT:
            self._hidden += 1

    def end(self, tag: str) -> None:
        if tag in _NOT_TEXT and self._hidden:
            self._hidden -= 1

    def data(self, data: str) -> None:
        if not self._hidden:
            self.characters += len(data)

    def close(self) -> int:
        return self.characters


def _where_text_exceeds(text: str, limit: int, chunk: int = 1 << 16) -> int | None:
    """How much of the page holds more than ``limit`` characters of text, with a margin of two chunks (so that
    the text node crossing the limit is whole in it); None when the whole page holds no more."""
    from lxml import etree

    counter = _TextCounter()
    parser = etree.HTMLParser(target=counter)
    for start in range(0, len(text), chunk):
        parser.feed(text[start:start + chunk])
        if counter.characters > limit:
            return start + 3 * chunk
    return None


def _sentences_within(text: str, limit: int) -> str:
    """The sentences of ``text`` that end within ``limit`` characters (at least its first ``limit``, cut at a
    space, when none does)."""
    head = text[:limit]
    spans = sentence_spans(head)
    if len(spans) > 1:
        return head[:spans[-2][1]]  # the last span may be a sentence cut at the limit
    return head.rsplit(" ", 1)[0] if " " in head else head


def _drop_after(element: Any, at: str) -> None:
    """Removes everything after ``element``'s text (``at`` = "text") or its tail from its tree."""
    if at == "text":
        del element[:]
        element.tail = None
    node, parent = element, element.getparent()
    while parent is not None:
        del parent[parent.index(node) + 1:]
        parent.tail = None
        node, parent = parent, parent.getparent()


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


def assemble(blocks: Iterable[Block | str], rules: ParagraphRules, *, url: str, kind: str, title: str = "",
             language: str = "", extractor: str = "", encoding: str = "", cut: str = "", heading: str = ""
             ) -> Document:
    """The document of ``blocks``, read block by block until ``rules.max_paragraphs`` paragraphs or
    ``rules.max_text`` characters of text (the block crossing it read whole if it is at most ``max_chars``, else
    up to its last sentence within); ``cut`` is why the blocks given already end early ("" if they do not).

    A prose block (a string, or a :class:`Block` of kind ``paragraph``) is a paragraph when it is at least
    ``min_chars`` long; a structured block (lines, a table's rows, a header line) is one whatever its length."""
    kept: list[str] = []
    seen: set[str] = set()
    paragraphs: list[Paragraph] = []
    offset = 0
    for given in blocks:
        block_kind = given.kind if isinstance(given, Block) else PARAGRAPH
        block = normalise(given.text if isinstance(given, Block) else given)
        key = block.casefold()
        if not block or key in seen:
            continue
        room = rules.max_text - offset
        if len(block) > room and (room <= 0 or len(block) > rules.max_chars):  # else the block is read whole
            cut = cut or f"only the first {rules.max_text:,} characters of its text were read"
            block = _sentences_within(block, max(0, room))
            if not block:
                break
        judged = len(block) >= rules.min_chars or block_kind != PARAGRAPH
        if len(paragraphs) >= rules.max_paragraphs and judged:
            cut = f"only the first {rules.max_paragraphs:,} paragraphs were read"
            break
        seen.add(key)
        kept.append(block)
        if judged:
            pieces = split_long(block, rules.max_chars)
            if len(pieces) > rules.max_paragraphs - len(paragraphs):
                cut = f"only the first {rules.max_paragraphs:,} paragraphs were read"
                del pieces[rules.max_paragraphs - len(paragraphs):]
            for start, end in pieces:
                paragraphs.append(Paragraph(block[start:end], url, len(paragraphs), offset + start, offset + end,
                                            block_kind))
        offset += len(block) + 2
    return Document(url, kind, "\n\n".join(kept), tuple(paragraphs), title, language, extractor, encoding, cut,
                    heading)
