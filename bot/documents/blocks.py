"""The blocks a reader takes facts from on a web page, prose and structure alike. Pure: trees in, blocks out.

A person reading a biography's page takes its date of birth from the header line under the name ("(b. 4 March
1931, Prague)"), a register's date from its details table ("Registered: 12 May 2004"), a jurisdiction from the
breadcrumb, an act's number from the title. Each such block becomes a :class:`Block` the judge can read, with its
context, and says what it is (``kind``, recorded in the trace):

- ``paragraph``: prose, as trafilatura keeps it;
- ``lines``: short lines read together — a heading and the label–value lines under it ("Person. Birth
  1766-02-01. Death 1840-12-08."), a list of short items;
- ``table``: a table's rows as "header: cell" pairs under its caption or heading; a two-column table (an infobox)
  as "label: value" lines, one block per section;
- ``definitions``: a definition list's term–definition pairs ("Local Authority: Dumfries And Galloway");
- ``header``: the page's main heading and the short lines right under it;
- ``breadcrumb``: where the page sits on its site ("Home › Legislation › Ireland");
- ``caption``: a figure's caption;
- ``title``: the page's whole title.

trafilatura reads the main content (``include_tables``; its XML keeps ``<head>``, ``<list rend="dl">`` and
``<table>``): :func:`main_blocks` turns that XML into blocks. lxml reads what trafilatura drops as boilerplate
although readers take facts from it: :func:`page_blocks` finds the title, the header line, the breadcrumb and the
tables, definition lists and captions outside what trafilatura kept. Menus, footers, sidebars, cookie notices and
link lists stay out by how pages mark them (``nav``, ``footer``, ``aside``, ARIA roles, their class names) and by
how much of their text is links. Nothing here names a site.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

PARAGRAPH = "paragraph"
LINES = "lines"
TABLE = "table"
DEFINITIONS = "definitions"
HEADER = "header"
BREADCRUMB = "breadcrumb"
CAPTION = "caption"
TITLE = "title"
KINDS = (PARAGRAPH, LINES, TABLE, DEFINITIONS, HEADER, BREADCRUMB, CAPTION, TITLE)

# A line is short when it is shorter than a paragraph (``ParagraphRules.min_chars``); a block of lines, a table
# section or a definition list is cut into blocks of at most this many characters (the judge reads each whole).
BLOCK_CHARS = 600
# Lines right under the page's main heading that make its header line, at most; longer text is the page's body.
HEADER_LINES = 2
HEADER_LINE_CHARS = 200
# A table, definition list or breadcrumb whose text is mostly the text of links is a menu or a link list.
LINK_SHARE = 0.8
# A block of lines must have at least this many words to be judged ("Death 1987-06-14" has two).
MIN_WORDS = 2

_SPACE = re.compile(r"\s+")
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_ENDS_SENTENCE = re.compile(r"[.!?:;…]['\"”’)\]]*\Z")
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_NOT_TEXT = frozenset(("script", "style", "noscript", "template", "svg", "button", "select", "option", "input",
                       "textarea"))
_BOILERPLATE_TAGS = frozenset(("nav", "footer", "aside", "menu", "dialog"))
_BOILERPLATE_ROLES = frozenset(("navigation", "contentinfo", "complementary", "search", "menu", "menubar",
                                "dialog", "alertdialog", "toolbar", "tablist"))
# Class and id words by which pages mark what is not their content (a word of the name: "site-footer", "navbar",
# "cookie_notice", not "canvas").
_BOILERPLATE_NAMES = re.compile(r"(?:^|[\s_-])(?:nav|navbar|navigation|menu|footer|cookie|cookies|consent|gdpr|"
                                r"sidebar|share|sharing|social|advert|advertisement|ads|promo|newsletter|subscribe|"
                                r"related|comments?|skip|modal|popup|banner|toolbar|pagination|pager)(?:$|[\s_-])",
                                re.I)
# Elements marked as a breadcrumb by their class, id, ARIA label or schema.org type.
_BREADCRUMBS = ("//*[contains(translate(concat(@class, ' ', @id, ' ', @aria-label, ' ', @itemtype), 'BREADCUMLIST', "
                "'breadcumlist'), 'breadcrumb')]")
_BLOCK_TAGS = frozenset(("p", "item", "quote", "head"))
# What separates the parts of a cell's text (HTML's and trafilatura's blocks and line breaks).
_CELL_BREAKS = frozenset(("p", "div", "li", "br", "ul", "ol", "item", "list", "lb"))


@dataclass(frozen=True)
class Block:
    text: str
    kind: str = PARAGRAPH


def normalise(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text).translate(_INVISIBLE)).strip()


def as_lines(lines: Iterable[str]) -> str:
    """Short lines read as sentences: each ends with a full stop unless it ends with punctuation already."""
    return " ".join(line if _ENDS_SENTENCE.search(line) else f"{line.rstrip(',')}." for line in lines if line)


def pairs(label: str, values: Iterable[str]) -> str:
    """ "label: value, value" (the value alone when there is no label)."""
    said = ", ".join(value for value in values if value)
    return f"{label}: {said}" if label and said else label or said


# -- trafilatura's XML -----------------------------------------------------------------------------------------

def main_blocks(root: Any, min_chars: int) -> list[Block]:
    """The blocks of trafilatura's XML (``root``, with ``<lb>`` already read as spaces), in reading order: each
    prose block that is at least ``min_chars`` long a ``paragraph``; shorter ones (headings, short paragraphs,
    list items) grouped into ``lines`` — a heading starts a new group; definition lists and tables as such."""
    blocks: list[Block] = []
    lines: list[str] = []
    heading = ""

    def flush() -> None:
        # A heading alone states nothing: it is the caption of what follows (kept in the text, not judged).
        if lines and (len(lines) > 1 or lines[0] != heading):
            blocks.extend(_lines_blocks(lines))
        lines.clear()

    for element in _reading_order(root):
        if element.tag == "table":
            flush()
            blocks.extend(table_blocks(_xml_rows(element), caption=heading))
        elif element.tag == "list":
            flush()
            blocks.extend(definition_blocks(_xml_definitions(element), caption=heading))
        else:
            text = normalise("".join(element.itertext()))
            if not text:
                continue
            if element.tag == "head":
                flush()
                heading = text
                lines.append(text)
            elif len(text) >= min_chars:
                flush()
                blocks.append(Block(text))
            else:
                lines.append(text)
    flush()
    return blocks


def prose_blocks(texts: Iterable[str], min_chars: int) -> list[Block]:
    """Prose blocks in order: each at least ``min_chars`` long a ``paragraph``, the runs of shorter ones
    ``lines`` (the ``<p>`` of a page trafilatura finds no paragraph in)."""
    blocks: list[Block] = []
    lines: list[str] = []
    for text in map(normalise, texts):
        if len(text) >= min_chars:
            blocks.extend(_lines_blocks(lines))
            lines.clear()
            blocks.append(Block(text))
        elif text:
            lines.append(text)
    return blocks + _lines_blocks(lines)


def _reading_order(root: Any) -> Iterator[Any]:
    """trafilatura's leaf blocks (``p``, ``item``, ``quote``, ``head`` holding no other), its tables and its
    definition lists, in document order; the inside of a table or definition list is read with it."""
    stack = [iter([root])]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        if not isinstance(element.tag, str):
            continue
        if element.tag == "table" or element.tag == "list" and element.get("rend") == "dl":
            yield element
        elif element.tag in _BLOCK_TAGS and next(element.iterdescendants(*_BLOCK_TAGS), None) is None:
            yield element
        else:
            stack.append(iter(element))


def _xml_rows(table: Any) -> list[list[tuple[str, bool]]]:
    return [[(_cell_text(cell), cell.get("role") == "head") for cell in row.iter("cell")]
            for row in table.iter("row")]


def _xml_definitions(dl: Any) -> list[tuple[str, str]]:
    """(term, definition) pairs of trafilatura's ``<list rend="dl">`` (items rendered ``dt-N`` and ``dd-N``)."""
    return _paired((item.get("rend", "").startswith("dt"), _cell_text(item)) for item in dl.iter("item"))


def _paired(entries: Iterable[tuple[bool, str]]) -> list[tuple[str, str]]:
    """Terms and definitions in order as (term, definition) pairs; a term without one, or one without a term,
    paired with ""."""
    found: list[tuple[str, str]] = []
    term = ""
    for is_term, text in entries:
        if is_term:
            if term:
                found.append((term, ""))
            term = text
        else:
            found.append((term, text))
            term = ""
    if term:
        found.append((term, ""))
    return found


# -- structure into blocks -------------------------------------------------------------------------------------

def _lines_blocks(lines: list[str]) -> list[Block]:
    """Short lines as blocks of at most ``BLOCK_CHARS``; a group of fewer than ``MIN_WORDS`` words is no block."""
    blocks = []
    for group in _packed(lines):
        text = as_lines(group)
        if len(text.split()) >= MIN_WORDS:
            blocks.append(Block(text, LINES))
    return blocks


def _packed(lines: list[str], limit: int = BLOCK_CHARS) -> list[list[str]]:
    groups: list[list[str]] = []
    size = limit + 1
    for line in lines:
        if size + len(line) > limit and (not groups or groups[-1]):
            groups.append([])
            size = 0
        groups[-1].append(line)
        size += len(line) + 2
    return [group for group in groups if group]


def table_blocks(rows: list[list[tuple[str, bool]]], caption: str = "") -> list[Block]:
    """A table's rows as blocks: under a header row, each row its "header: cell" pairs (a record); without one,
    each row "label: value" (an infobox, a details table), a row with a single cell starting a new section."""
    rows = [row for row in rows if any(text for text, _ in row)]
    if not rows:
        return []
    first = [text for text, _ in rows[0]]
    header = len(rows) > 1 and sum(1 for text in first if text) >= 2 and all(head for text, head in rows[0] if text)
    blocks = []
    if header:
        for row in rows[1:]:
            cells = [pairs(label, [text]) for label, (text, _) in zip(first + [""] * len(row), row) if text]
            if cells:
                blocks.append(Block(_titled(caption, "; ".join(cells)), TABLE))
        return blocks
    section: list[str] = []
    label = caption
    for row in rows:
        cells = [text for text, _ in row if text]
        if len(cells) == 1 and len(row) > 1:  # a section's label spanning the table ("Personal information")
            blocks.extend(_section(label, section, TABLE))
            section, label = [], cells[0]
            continue
        section.append(pairs(cells[0], cells[1:]) if len(cells) > 1 else cells[0])
    blocks.extend(_section(label, section, TABLE))
    return blocks


def definition_blocks(definitions: list[tuple[str, str]], caption: str = "") -> list[Block]:
    """A definition list's "term: definition" pairs, under its caption, as blocks of at most ``BLOCK_CHARS``."""
    return _section(caption, [pairs(term, [definition]) for term, definition in definitions
                              if term or definition], DEFINITIONS)


def _section(label: str, lines: list[str], kind: str) -> list[Block]:
    return [Block(_titled(label, as_lines(group)), kind) for group in _packed(lines) if group]


def _titled(caption: str, text: str) -> str:
    if not caption or caption.casefold() in text.casefold():
        return text
    return f"{caption}{'' if _ENDS_SENTENCE.search(caption) else '.'} {text}"


# -- what trafilatura leaves out -------------------------------------------------------------------------------

def page_blocks(root: Any, kept: Iterable[str]) -> list[Block]:
    """Blocks of the page's tree (lxml, ``root``) that readers take facts from and that ``kept`` (the texts of
    the blocks already read) lacks: the header line, the breadcrumb, tables, definition lists and captions outside
    menus and footers, and the page's whole title."""
    known = {normalise(text).casefold() for text in kept}
    known_text = " ".join(known)
    found: list[Block] = []
    header = _header_line(root, known)
    if header and not all(line.casefold() in known_text for line in header[1:]):
        found.append(Block(as_lines(header), HEADER))
    crumbs = _breadcrumb(root)
    if crumbs:
        found.append(Block(" › ".join(crumbs), BREADCRUMB))
    for element in root.iter("table", "dl", "figcaption"):
        if _inside_kept(element) or _boilerplate(element):
            continue
        if element.tag == "table":
            if element.find(".//table") is not None:  # a layout table: its inner tables are read
                continue
            rows = _html_rows(element)
            cells = [text for row in rows for text, _ in row if text]
            if _mostly_links(element) or _covered(cells, known):
                continue
            found.extend(table_blocks(rows, _caption(element)))
        elif element.tag == "dl":
            definitions = _html_definitions(element)
            texts = [text for pair in definitions for text in pair if text]
            if _mostly_links(element) or _covered(texts, known):
                continue
            found.extend(definition_blocks(definitions, _caption(element)))
        else:
            text = _text(element)
            if text and text.casefold() not in known:
                found.append(Block(text, CAPTION))
        element.set("data-refbot-read", "1")
    title = _title(root)
    if title and title.casefold() not in known and not any(title.casefold() == b.text.casefold() for b in found):
        found.append(Block(title, TITLE))
    return found


def _inside_kept(element: Any) -> bool:
    """Whether an enclosing table or list was read already (its inner ones are read with it)."""
    return any(ancestor.get("data-refbot-read") for ancestor in element.iterancestors())


def _covered(texts: list[str], known: set[str]) -> bool:
    """Most of the cells or terms are blocks or cells trafilatura kept: the structure was read already."""
    pieces = [text.casefold() for text in texts if len(text) >= 3]
    return not pieces or sum(1 for piece in pieces if piece in known) >= 0.8 * len(pieces)


def _text(element: Any) -> str:
    """The element's visible text (no scripts, styles, form controls), its blocks and line breaks as spaces."""
    pieces: list[str] = []

    def walk(node: Any) -> None:
        if not isinstance(node.tag, str) or node.tag in _NOT_TEXT:
            return
        if node.tag == "br":
            pieces.append(" ")
        pieces.append(node.text or "")
        for child in node:
            walk(child)
            pieces.append(child.tail or "")
        if node.tag in ("p", "div", "li", "dd", "dt", "td", "th", "tr") or node.tag in _HEADINGS:
            pieces.append(" ")
    walk(element)
    return normalise("".join(pieces))


def _cell_text(cell: Any) -> str:
    """A cell's text (a table's, a definition's; lxml's or trafilatura's), its paragraphs, list items and line
    breaks separated by commas."""
    pieces = [cell.text or ""]
    for child in cell:
        if not isinstance(child.tag, str) or child.tag in _NOT_TEXT:
            pieces.append(child.tail or "" if isinstance(child.tag, str) else "")
            continue
        separator = ", " if child.tag in _CELL_BREAKS else ""
        pieces.append(separator + _text(child))
        pieces.append(child.tail or "")
    text = normalise("".join(pieces))
    return re.sub(r"^(?:,\s*)+|(?:\s*,)+$", "", re.sub(r"\s*,(?:\s*,)+", ",", text)).strip()


def _html_rows(table: Any) -> list[list[tuple[str, bool]]]:
    rows = []
    for row in table.iter("tr"):
        if next((a for a in row.iterancestors("table")), None) is not table:
            continue
        rows.append([(_cell_text(cell), cell.tag == "th") for cell in row if cell.tag in ("td", "th")])
    return rows


def _html_definitions(dl: Any) -> list[tuple[str, str]]:
    return _paired((child.tag == "dt", _cell_text(child)) for child in dl.iter("dt", "dd")
                   if next(child.iterancestors("dl"), None) is dl)


def _caption(element: Any) -> str:
    """A table's ``<caption>``, else the nearest heading before it in the same section (up to three levels)."""
    caption = element.find("caption")
    if caption is not None and _text(caption):
        return _text(caption)
    node = element
    for _ in range(3):
        for sibling in node.itersiblings(preceding=True):
            if not isinstance(sibling.tag, str):
                continue
            if sibling.tag in _HEADINGS:
                return _text(sibling)
            if sibling.tag in ("table", "dl") or len(_text(sibling)) > HEADER_LINE_CHARS:
                return ""
        node = node.getparent()
        if node is None:
            return ""
    return ""


def _boilerplate(element: Any) -> bool:
    """Whether the element or what encloses it is marked as a menu, footer, sidebar, notice or the page's banner."""
    for node in (element, *element.iterancestors()):
        if node.tag in ("body", "html"):  # their classes describe the whole page ("has-banner")
            break
        if node.tag in _BOILERPLATE_TAGS:
            return True
        if node.tag == "header" and next(node.iterancestors("article", "main"), None) is None:
            return True
        role = (node.get("role") or "").strip().lower()
        if role in _BOILERPLATE_ROLES:
            return True
        names = f"{node.get('class') or ''} {node.get('id') or ''}"
        if names.strip() and _BOILERPLATE_NAMES.search(names):
            return True
        if node.get("hidden") is not None or node.get("aria-hidden") == "true" or \
                re.search(r"display\s*:\s*none", node.get("style") or ""):
            return True
    return False


def _mostly_links(element: Any) -> bool:
    text = len(_text(element))
    linked = sum(len(_text(link)) for link in element.iter("a"))
    return text > 0 and linked >= LINK_SHARE * text


def main_heading(root: Any) -> str:
    """The text of the page's main heading: its first ``<h1>`` with text outside menus, banners and notices;
    "" when it has none. It names what the page is about where the ``<title>`` names the site."""
    heading = _main_heading(root)
    return _text(heading) if heading is not None else ""


def _main_heading(root: Any) -> Any:
    return next((h for h in root.iter("h1") if _text(h) and not _boilerplate(h)), None)


def _header_line(root: Any, known: set[str]) -> list[str]:
    """The page's main heading and the short lines right under it (at most ``HEADER_LINES``, up to the first
    block already read as the page's text), where there are any: a biography's "(b. 10 March 1958, The
    Netherlands)" under the name, a byline."""
    heading = _main_heading(root)
    if heading is None:
        return []
    lines: list[str] = []
    node = heading
    for _ in range(3):  # the heading's own siblings, else those of the block that wraps it
        for sibling in node.itersiblings():
            if not isinstance(sibling.tag, str) or sibling.tag in _NOT_TEXT:
                continue
            text = _text(sibling)
            if not text:
                continue
            if len(text) > HEADER_LINE_CHARS or text.casefold() in known or sibling.tag in _HEADINGS or \
                    sibling.tag in ("table", "dl", "ul", "ol"):
                return [_text(heading), *lines] if lines else []
            lines.append(text)
            if len(lines) == HEADER_LINES:
                return [_text(heading), *lines]
        if lines:
            return [_text(heading), *lines]
        node = node.getparent()
        if node is None or node.tag in ("body", "html"):
            return []
    return [_text(heading), *lines] if lines else []


def _breadcrumb(root: Any) -> list[str]:
    """The steps of the page's breadcrumb (marked by its class, id, label or schema.org type), where it has one."""
    for element in root.xpath(_BREADCRUMBS):
        if element.tag in ("html", "body"):
            continue
        if element.tag == "li" and element.getparent() is not None:
            element = element.getparent()  # a step of the breadcrumb marked as such: its list is the breadcrumb
        steps = [text for text in (_text(item) for item in element.iter("li")) if text] or \
            [text for text in (_text(link) for link in element.iter("a")) if text]
        if len(steps) >= 2 and all(len(step) <= 100 for step in steps):
            return list(dict.fromkeys(steps))
    return []


def _title(root: Any) -> str:
    """The page's ``<title>`` (not an image's: an SVG has titles too)."""
    title = next((t for t in root.iter("title") if next(t.iterancestors("svg"), None) is None), None)
    return _text(title) if title is not None else ""
