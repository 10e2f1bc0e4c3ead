"""``refbot fetch URL`` and ``refbot sources QID``: the document stages on their own, for debugging and review."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from bot.cli.arguments import id_list, iso_date, network_options
from bot.cli.exits import Ended
from bot.doctor import preflight
from bot.documents import paragraph_rules
from bot.documents.blocks import PARAGRAPH
from bot.documents.retrieval import retrieve
from bot.documents.wikipedia import article, sitelink
from bot.options import Options
from bot.wiring import Wiring

if TYPE_CHECKING:
    from bot.documents.citations import Citation
    from bot.documents.fetching import Fetched
    from bot.documents.retrieval import Retrieved


def add_parsers(commands: Any) -> None:
    fetch = commands.add_parser(
        "fetch", help="fetch one URL and print its outcome and paragraphs",
        description="Fetch a URL as refbot fetches grounding documents (politeness, robots.txt, size cap, archive "
                    "fallback for dead pages) and print the outcome and the paragraphs the judge would see.")
    fetch.add_argument("url", type=web_address, help="the page, PDF or text file to fetch")
    fetch.add_argument("--access-date", type=iso_date, metavar="YYYY-MM-DD",
                       help="when the page was cited; the archive prefers a snapshot from before it")
    fetch.add_argument("--archive-url", default="", metavar="URL",
                       help="an archived copy to try first if the page is dead (as a citation's archive-url)")
    fetch.add_argument("--no-archive", dest="archive_enabled", action="store_false", default=None,
                       help="do not ask the Wayback Machine for dead pages")
    fetch.add_argument("--min-chars", dest="paragraph_min_chars", type=int, metavar="N",
                       help="shortest paragraph kept (100)")
    fetch.add_argument("--max-chars", dest="paragraph_max_chars", type=int, metavar="N",
                       help="longer paragraphs are split between sentences (2000)")
    fetch.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    network_options(fetch)

    sources = commands.add_parser(
        "sources", help="list the sources an item's Wikipedia article cites, per paragraph",
        description="Find the item's Wikipedia article (sitelink), read it as Parsoid HTML and list, for each "
                    "paragraph, the URLs its citations point to, with title, access date and archive-url.")
    sources.add_argument("qid", type=id_list("item"), metavar="QID", help="the item, e.g. Q36233")
    sources.add_argument("--wiki", dest="wikipedia_wiki", metavar="SITE",
                         help="which Wikipedia to read, as a site id (enwiki, default; cswiki, dewiki, …)")
    sources.add_argument("--all", action="store_true", help="also list paragraphs that cite nothing")
    sources.add_argument("--json", action="store_true", help="print JSON Lines, one paragraph each")
    network_options(sources)


def web_address(text: str) -> str:
    """An argparse type: a URL refbot can try to fetch (a malformed one is a usage error, not a page's outcome)."""
    from bot.documents.retrieval import malformed

    broken = malformed(text.strip())
    if broken:
        raise argparse.ArgumentTypeError(f"{broken} ({text!r}; give an http(s) address such as https://example.org/a)")
    return text.strip()


def run_fetch(args: argparse.Namespace, options: Options) -> Ended:
    preflight(["html → paragraphs", "pdf → paragraphs"])  # a broken extractor is named, not blamed on the page
    parts = Wiring(options)
    result = retrieve(args.url, parts.fetcher, paragraph_rules(options.paragraph), parts.wayback,
                      access_date=args.access_date, archive_url=args.archive_url)
    if args.json:
        print(json.dumps(retrieved_json(result), ensure_ascii=False))
    else:
        for line in describe(result):
            print(line)
    return Ended(failed=not result.paragraphs)


def describe(result: Retrieved) -> list[str]:
    live, used, document = result.live, result.used, result.document
    lines = [_fetch_line(live)]
    if result.archived is not None:
        archived = result.archived
        lines.append(f"archived copy {archived.archive_url} (snapshot {archived.archive_timestamp or '?'}): "
                     f"{_fetch_line(archived)}")
    lines += [f"note: {note}" for note in result.notes]
    if document is not None:
        lines.append(f"title: {document.title or '(none)'}  language: {document.language or '?'}  "
                     f"read by: {document.extractor}  encoding: {document.encoding or '-'}")
        for paragraph in document.paragraphs:
            kind = f"({paragraph.kind}) " if paragraph.kind != PARAGRAPH else ""
            lines.append(f"¶{paragraph.position} [{paragraph.start}–{paragraph.end}] {kind}{paragraph.text}")
    prose = sum(1 for paragraph in result.paragraphs if paragraph.kind == PARAGRAPH)
    others = Counter(paragraph.kind for paragraph in result.paragraphs if paragraph.kind != PARAGRAPH)
    structured = f" and {sum(others.values())} structured block(s) (" + ", ".join(
        f"{count} {kind}" for kind, count in sorted(others.items())) + ")" if others else ""
    lines.append(f"refbot: {used.outcome.value}: {prose} paragraph(s){structured} from {used.final_url or used.url}")
    return lines


def _fetch_line(fetched: Fetched) -> str:
    parts = [fetched.outcome.value]
    if fetched.status:
        parts.append(f"HTTP {fetched.status}")
    if fetched.content_type:
        parts.append(fetched.content_type)
    if fetched.ok:
        parts.append(f"{len(fetched.content):,} bytes")
    parts.append(fetched.final_url or fetched.url)
    if fetched.redirects:
        parts.append(f"after {len(fetched.redirects)} redirect(s)")
    if fetched.from_cache:
        parts.append("(from cache)")
    if fetched.reason:
        parts.append(f"— {fetched.reason}")
    return "  ".join(parts)


def retrieved_json(result: Retrieved) -> dict[str, Any]:
    def fetched_json(fetched: Fetched) -> dict[str, Any]:
        return {"url": fetched.url, "outcome": fetched.outcome.value, "reason": fetched.reason,
                "status": fetched.status, "final_url": fetched.final_url, "content_type": fetched.content_type,
                "redirects": list(fetched.redirects), "retrieved": fetched.retrieved, "sha256": fetched.sha256,
                "bytes": len(fetched.content), "from_cache": fetched.from_cache,
                "archive_url": fetched.archive_url, "archive_timestamp": fetched.archive_timestamp}

    document = result.document
    return {"url": result.url, "outcome": result.outcome.value, "live": fetched_json(result.live),
            "archived": fetched_json(result.archived) if result.archived is not None else None,
            "notes": list(result.notes),
            "title": document.title if document else "", "language": document.language if document else "",
            "paragraphs": [{"position": p.position, "start": p.start, "end": p.end, "kind": p.kind, "text": p.text}
                           for p in result.paragraphs]}


def run_sources(args: argparse.Namespace, options: Options) -> Ended | None:
    item, client = args.qid[0], Wiring(options).services
    link = sitelink(client, options.wikidata.api_url, item, options.wikipedia.wiki)
    if link is None:
        print(f"refbot: {item} has no {options.wikipedia.wiki} article")
        return Ended(failed=1)
    read = article(client, link, options.wikipedia.article_url, options.wikipedia.chunk_chars)
    chunk_of = {position: chunk.position for chunk in read.chunks for position in chunk.paragraphs}
    shown = [p for p in read.paragraphs if p.citations or args.all]
    if not args.json:
        print(f"{item} → {link.title} ({link.wiki}), revision {read.revision or '?'}: {read.permalink}")
    for paragraph in shown:
        if args.json:
            print(json.dumps({"item": item, "article": link.title, "revision": read.revision,
                              "permalink": read.permalink, "position": paragraph.position,
                              "chunk": chunk_of[paragraph.position], "section": paragraph.section,
                              "text": paragraph.text, "markers": [list(m) for m in paragraph.markers],
                              "citations": [citation_json(c) for c in paragraph.citations]}, ensure_ascii=False))
            continue
        section = f" ({paragraph.section})" if paragraph.section else ""
        text = paragraph.text if len(paragraph.text) <= 100 else paragraph.text[:99] + "…"
        print(f"¶{paragraph.position}{section} {text}")
        for citation in paragraph.citations:
            print(f"   {citation.label or citation.note} {citation_line(citation)}")
    cited = {c.url for p in read.paragraphs for c in p.citations if c.url}
    print(f"refbot: {sum(1 for p in read.paragraphs if p.citations)} of {len(read.paragraphs)} paragraph(s) cite "
          f"{len(cited)} URL(s); {len(read.chunks)} chunk(s) of up to {options.wikipedia.chunk_chars:,} characters",
          file=sys.stderr if args.json else sys.stdout)
    return None


def citation_line(citation: Citation) -> str:
    details = []
    if citation.title:
        details.append(f"“{citation.title}”")
    if citation.access_date:
        details.append(f"accessed {citation.access_date}")
    if citation.archive_url:
        details.append(f"archived {citation.archive_url}" + (f" on {citation.archive_date}"
                                                             if citation.archive_date else ""))
    head = citation.url or "(no URL) " + (citation.text[:80] if citation.text else "")
    return head + (f" — {'; '.join(details)}" if details else "")


def citation_json(citation: Citation) -> dict[str, Any]:
    return {"note": citation.note, "label": citation.label, "url": citation.url,
            "other_urls": list(citation.other_urls), "title": citation.title, "access_date": citation.access_date,
            "archive_url": citation.archive_url, "archive_date": citation.archive_date, "text": citation.text}


HANDLERS = {"fetch": run_fetch, "sources": run_sources}
