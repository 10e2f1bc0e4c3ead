"""A Wikipedia article (Parsoid or legacy parser HTML) → paragraphs with their citations resolved. Pure.

Citation markers are read structurally: a ``sup.mw-ref`` (Parsoid) or ``sup.reference`` (legacy) links to
``#cite_note-…``, the reference list item with that id holds the citation. From the citation template's
parameters (Parsoid's ``data-mw``) or else from its HTML come the cited URL, title, access date and
archive-url. Markers are removed from the paragraph text; each keeps its offset, so a later stage can tell
which sentence a citation follows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from bot.documents.archive import is_archive_url, parse_wayback
from bot.documents.paragraphs import normalise

_REVISION = re.compile(r"revision/(\d+)")
_SKIPPED_CLASSES = ("mw-editsection", "noprint", "mw-ref", "reference", "navbox", "hatnote", "infobox", "metadata",
                    "mw-references", "references", "reflist", "mw-empty-elt", "thumb", "gallery", "sistersitebox")
_SKIPPED_TAGS = frozenset({"style", "script", "table", "figure", "link", "meta", "math"})
_PARAMS = {
    "url": ("url", "URL"),
    "title": ("title", "titel", "titre", "titolo", "título", "název"),
    "access-date": ("access-date", "accessdate", "abruf", "zugriff", "consulté le", "accesso", "fechaacceso",
                    "datum přístupu", "access_date"),
    "archive-url": ("archive-url", "archiveurl", "archiv-url", "archive_url", "urlarchivio", "urlarchivo",
                    "url archivu"),
    "archive-date": ("archive-date", "archivedate", "archiv-datum", "archive_date", "dataarchivio", "fechaarchivo",
                     "datum archivace"),
}
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


@dataclass(frozen=True)
class Citation:
    note: str
    label: str = ""
    url: str = ""
    other_urls: tuple[str, ...] = ()
    title: str = ""
    access_date: str = ""
    archive_url: str = ""
    archive_date: str = ""
    text: str = ""


@dataclass(frozen=True)
class ArticleParagraph:
    position: int
    text: str
    section: str = ""
    citations: tuple[Citation, ...] = ()
    # (note id, offset in ``text`` just after the sentence the marker follows), in reading order.
    markers: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Chunk:
    position: int
    text: str
    paragraphs: tuple[int, ...]


def revision_of(html: str) -> int | None:
    """The revision id Parsoid states in ``<html about=".../revision/N">``."""
    head = html[:3000]
    match = re.search(r"<html[^>]*\babout=\"[^\"]*revision/(\d+)", head)
    return int(match.group(1)) if match else None


def parse_article(html: str) -> list[ArticleParagraph]:
    import lxml.html

    data = html.encode("utf-8") if isinstance(html, str) else html
    root = lxml.html.document_fromstring(data, parser=lxml.html.HTMLParser(encoding="utf-8"))
    notes = {item.get("id"): item for item in root.iter("li") if (item.get("id") or "").startswith("cite_note")}
    resolved: dict[str, Citation] = {}
    labels: dict[str, str] = {}
    paragraphs: list[ArticleParagraph] = []
    section = ""
    for element in root.iter("h1", "h2", "h3", "h4", "p"):
        if _inside_skipped(element):
            continue
        if element.tag != "p":
            section = normalise(element.text_content())
            continue
        pieces: list[str] = []
        markers: list[tuple[str, int]] = []
        _walk(element, pieces, markers, labels, top=True)
        text, markers = _tidy("".join(pieces), markers)
        if not text or (not markers and len(text.split()) < 4):
            continue  # empty, or a stray caption-like line ("Coordinates: 40°N 100°W") that cites nothing
        citations = []
        for note, _ in markers:
            if note not in resolved:
                resolved[note] = _citation(note, notes.get(note), labels.get(note, ""))
            if resolved[note] not in citations:
                citations.append(resolved[note])
        paragraphs.append(ArticleParagraph(len(paragraphs), text, section, tuple(citations), tuple(markers)))
    return paragraphs


def chunk_paragraphs(paragraphs: list[ArticleParagraph], limit: int = 10_000) -> list[Chunk]:
    """Consecutive paragraphs packed into chunks of at most ``limit`` characters (a longer paragraph alone)."""
    chunks: list[Chunk] = []
    current: list[ArticleParagraph] = []
    size = 0
    for paragraph in paragraphs:
        extra = len(paragraph.text) + (2 if current else 0)
        if current and size + extra > limit:
            chunks.append(_chunk(len(chunks), current))
            current, size, extra = [], 0, len(paragraph.text)
        current.append(paragraph)
        size += extra
    if current:
        chunks.append(_chunk(len(chunks), current))
    return chunks


def _chunk(position: int, paragraphs: list[ArticleParagraph]) -> Chunk:
    return Chunk(position, "\n\n".join(p.text for p in paragraphs), tuple(p.position for p in paragraphs))


def _classes(element: Any) -> set[str]:
    return set((element.get("class") or "").split())


def _inside_skipped(element: Any) -> bool:
    for ancestor in element.iterancestors():
        if ancestor.tag in _SKIPPED_TAGS or ancestor.tag == "li" and (ancestor.get("id") or "").startswith(
                "cite_note") or _classes(ancestor) & {"navbox", "hatnote", "infobox", "mw-references", "references",
                                                      "reflist", "thumb", "gallery", "metadata", "sistersitebox"}:
            return True
    return "mw-empty-elt" in _classes(element)


def _walk(element: Any, pieces: list[str], markers: list[tuple[str, int]], labels: dict[str, str],
          top: bool = False) -> None:
    if not top:
        if not isinstance(element.tag, str) or element.tag in _SKIPPED_TAGS:
            pieces.append(element.tail or "")
            return
        classes = _classes(element)
        if element.tag == "sup" and classes & {"mw-ref", "reference"}:
            for link in element.iter("a"):
                href = link.get("href") or ""
                if "#cite_note" in href:
                    note = unquote(href.split("#", 1)[1])
                    markers.append((note, len("".join(pieces))))
                    labels.setdefault(note, normalise(link.text_content()))
            pieces.append(element.tail or "")
            return
        if classes & set(_SKIPPED_CLASSES):
            pieces.append(element.tail or "")
            return
    pieces.append(element.text or "")
    for child in element:
        _walk(child, pieces, markers, labels)
    if not top:
        pieces.append(element.tail or "")


def _tidy(raw: str, markers: list[tuple[str, int]]) -> tuple[str, list[tuple[str, int]]]:
    """Whitespace collapsed as ``normalise`` does, with the marker offsets moved along."""
    out: list[str] = []
    mapping = []
    length = 0
    for character in raw:
        mapping.append(length)
        if character.isspace():
            if length and out[-1] != " ":
                out.append(" ")
                length += 1
        else:
            out.append(character)
            length += 1
    mapping.append(length)
    text = "".join(out)
    stripped = text.rstrip()
    tidy = normalise(stripped)
    moved = [(note, min(mapping[offset], len(stripped))) for note, offset in markers]
    if tidy != stripped:  # NFC or invisible characters changed the length: fall back to the paragraph's end
        moved = [(note, min(offset, len(tidy))) for note, offset in moved]
    return tidy, moved


def _templates(body: Any) -> list[dict[str, str]]:
    """The parameters of each template a citation is made of (Parsoid's ``data-mw``), under canonical names."""
    found: list[dict[str, str]] = []
    for element in body.iter():
        data = element.get("data-mw") if isinstance(element.tag, str) else None
        if not data or "template" not in data:
            continue
        try:
            parts = json.loads(data).get("parts", [])
        except (ValueError, AttributeError):
            continue
        for part in parts:
            params = part.get("template", {}).get("params", {}) if isinstance(part, dict) else {}
            if not isinstance(params, dict):
                continue
            values: dict[str, str] = {}
            for key, aliases in _PARAMS.items():
                for alias in aliases:
                    value = params.get(alias)
                    text = value.get("wt", "").strip() if isinstance(value, dict) else ""
                    if text and key not in values:
                        values[key] = text
            if values:
                found.append(values)
    return found


def _citation(note: str, item: Any, label: str = "") -> Citation:
    if item is None:
        return Citation(note, label)
    body = item
    for span in item.iter("span"):
        if "mw-reference-text" in _classes(span) or "reference-text" in _classes(span):
            body = span
            break
    links: list[tuple[str, str, Any]] = []
    for link in body.iter("a"):
        href = link.get("href") or ""
        if "mw:ExtLink" in (link.get("rel") or "") or "external" in _classes(link):
            links.append(("https:" + href if href.startswith("//") else href, normalise(link.text_content()), link))
    cited = [(href, text, link) for href, text, link in links if not is_archive_url(href)]
    archives = [href for href, _, _ in links if is_archive_url(href)]
    templates = _templates(body)
    # One citation may hold several templates; title and dates come from the one that gave the URL.
    primary = next((t for t in templates if _web(t.get("url", "")) and not is_archive_url(t["url"])), {})
    archives = [t["url"] for t in templates if _web(t.get("url", "")) and is_archive_url(t["url"])] + archives
    url = _absolute(primary.get("url", "")) or (cited[0][0] if cited else "")
    anchor = next((link for href, _, link in cited if href == url), None)
    # The template's title first: with an archive-url, CS1 links the title to the archive, "the original" to url.
    title = _plain(primary.get("title", "")) or next((text for href, text, _ in cited if href == url), "")
    scope = next((a for a in anchor.iterancestors("cite")), body) if anchor is not None else body
    access = _date(primary.get("access-date", "")) or _accessed_in_html(scope)
    archive_url = primary.get("archive-url", "") if _web(primary.get("archive-url", "")) else ""
    archive_date = _date(primary.get("archive-date", "")) if archive_url else ""
    if not archive_url and url:
        archive_url = next((a for a in archives if _same_page(parse_wayback(a), url)), "")
        if not archive_url and len({href for href, _, _ in cited}) == 1 and archives:
            archive_url = archives[0]
    snapshot = parse_wayback(archive_url) if archive_url else None
    if snapshot and not archive_date and len(snapshot.timestamp) >= 8:
        stamp = snapshot.timestamp
        archive_date = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"
    others = tuple(dict.fromkeys(href for href, _, _ in cited if href != url))
    return Citation(note, label, url, others, _strip_quotes(title), access, archive_url, archive_date,
                    normalise(body.text_content()))


def _web(url: str) -> bool:
    return url.startswith(("http://", "https://", "//"))


def _absolute(url: str) -> str:
    return "https:" + url if url.startswith("//") else url if _web(url) else ""


def _same_page(snapshot: Any, url: str) -> bool:
    def bare(address: str) -> str:
        try:
            parts = urlsplit(address)
            host = (parts.hostname or "").removeprefix("www.")
        except ValueError:  # a malformed address in the article's markup
            return address
        return f"{host}{parts.path.rstrip('/')}?{parts.query}"
    return snapshot is not None and bare(snapshot.original) == bare(url)


def _plain(wikitext: str) -> str:
    """Wikitext of a title parameter as text: links, quotes marks and templates removed."""
    text = wikitext.replace("{{!}}", "|")
    text = re.sub(r"\{\{[^{}]*\}\}", "", text)
    text = re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]", r"\1", text)
    text = re.sub(r"\[https?://\S+\s+([^\]]*)\]", r"\1", text)
    return normalise(re.sub(r"'{2,}", "", text))


def _strip_quotes(title: str) -> str:
    return title.strip().strip("\"“”„'‘’«»").strip()


def _accessed_in_html(body: Any) -> str:
    for span in body.iter("span"):
        if "reference-accessdate" in _classes(span):
            return _date(re.sub(r"^[^\d]*?(?=\d|[A-Z][a-z]+ \d)", "", normalise(span.text_content()).strip(". ")))
    return ""


def _date(text: str) -> str:
    """An access or archive date as ISO ``YYYY-MM-DD``; "" when it cannot be read."""
    text = text.strip()
    if not text:
        return ""
    match = _ISO_DATE.search(text)
    if match:
        return match.group(0)
    import dateparser

    parsed = dateparser.parse(text, settings={"STRICT_PARSING": True, "PREFER_DAY_OF_MONTH": "first"})
    return parsed.date().isoformat() if parsed else ""
