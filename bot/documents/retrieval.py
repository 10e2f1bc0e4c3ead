"""One grounding document: fetch it, read its paragraphs, and fall back to an archived copy when it is dead.

The archive is asked exactly when the live page is irretrievable or yields no paragraph — never for a page
that is blocked (a paywall is not a dead link), unsupported or too large. A citation's own archive-url is
tried before the Wayback Machine is searched. A document read only in part (``Document.cut``) says so in a note.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import date
from urllib.parse import urlsplit

from bot.datamodel import Paragraph
from bot.documents.archive import Snapshot, Wayback, is_archive_url, parse_wayback
from bot.documents.fetching import Fetched, Fetcher, Outcome
from bot.documents.gone import gone
from bot.documents.paragraphs import Document, ParagraphRules, Unreadable, extract
from bot.documents.politeness import host_key
from bot.errors import ServiceError


@dataclass(frozen=True)
class Retrieved:
    """``live`` is the page itself; ``archived`` the copy read instead, if one was tried."""

    url: str
    live: Fetched
    document: Document | None = None
    archived: Fetched | None = None
    notes: tuple[str, ...] = ()
    # Why the live page, though it answered, is not the page asked for (``bot.documents.gone``: a soft 404, a
    # redirect to the front page); "" when it is, or was not asked. Its own paragraphs are then not read.
    gone: str = ""

    @property
    def dead(self) -> bool:
        """The page asked for is not there: its address fails (404, 410, a vanished host) or it is ``gone``."""
        return self.live.outcome is Outcome.IRRETRIEVABLE or bool(self.gone)

    @property
    def used(self) -> Fetched:
        """The fetch the paragraphs came from (or the last one tried)."""
        return self.archived if self.archived is not None and \
            (self.archived.ok or not self.live.ok or self.gone) else self.live

    @property
    def outcome(self) -> Outcome:
        return self.used.outcome

    @property
    def paragraphs(self) -> tuple[Paragraph, ...]:
        return self.document.paragraphs if self.document is not None else ()


def read(fetched: Fetched, rules: ParagraphRules) -> tuple[Fetched, Document | None]:
    """Paragraphs of a successful fetch; a body its parser cannot read becomes ``unsupported`` with the reason.

    Any other exception is refbot's own failure (a missing library, a bug) and propagates: it is never recorded
    as what the page did."""
    if not fetched.ok:
        return fetched, None
    try:
        return fetched, extract(fetched.content, fetched.content_type, fetched.final_url or fetched.url, rules,
                                charset=fetched.charset)
    except Unreadable as error:  # a damaged PDF or page must not stop the run; the reason goes to the trace
        return replace(fetched, outcome=Outcome.UNSUPPORTED, reason=f"cannot read the {fetched.content_type} body: "
                       f"{error}", parser_failure=error.signature), None


def wants_archive(fetched: Fetched, document: Document | None) -> bool:
    return fetched.outcome is Outcome.IRRETRIEVABLE or (fetched.ok and (document is None or not document.paragraphs))


def malformed(url: str) -> str:
    """Why a URL cannot be fetched at all ("" when it can be tried): pages and citations hold broken ones."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError as error:
        return f"malformed URL: {error}"
    return "" if parts.hostname else "malformed URL: no host"


def retrieve(url: str, fetcher: Fetcher, rules: ParagraphRules, wayback: Wayback | None = None, *,
             access_date: date | None = None, archive_url: str = "", notice_gone: bool = False) -> Retrieved:
    """``notice_gone``: a live page that answered but is not the page asked for (``bot.documents.gone``) counts as
    dead — its archived copy is read instead, and never its own paragraphs."""
    broken = malformed(url)
    if broken:
        return Retrieved(url, Fetched(url, Outcome.UNSUPPORTED, broken), None)
    live, document = read(fetcher.fetch(url), rules)
    why_gone = _gone(url, live, document) if notice_gone and not is_archive_url(url) else ""
    if why_gone:
        document = None
    elif not wants_archive(live, document) or is_archive_url(url):
        return Retrieved(url, live, document, notes=_cut_notes(document))
    notes: list[str] = []
    archived: Fetched | None = None
    archived_document: Document | None = None
    tried: set[str] = set()
    for candidate in _archive_candidates(url, archive_url, wayback, access_date, notes):
        if candidate.raw_url in tried:
            continue
        tried.add(candidate.raw_url)
        fetched, archived_document = read(fetcher.fetch(candidate.raw_url), rules)
        archived = replace(fetched, archive_url=candidate.archive_url, archive_timestamp=candidate.timestamp)
        if archived_document is not None and archived_document.paragraphs:
            return Retrieved(url, live, archived_document, archived, (*notes, *_cut_notes(archived_document)),
                             gone=why_gone)
        notes.append(f"archived copy {candidate.archive_url}: {archived.reason or 'no paragraph'}")
    used = document if live.ok and not why_gone else archived_document
    return Retrieved(url, live, used, archived, (*notes, *_cut_notes(used)), gone=why_gone)


def _gone(url: str, live: Fetched, document: Document | None) -> str:
    if not live.ok:
        return ""
    return gone(url, live.final_url or url, document.title if document else "", document.heading if document else "")


def _cut_notes(document: Document | None) -> tuple[str, ...]:
    if document is None or not document.cut:
        return ()
    return (f"read in part: {document.cut}; the rest of the document was not extracted nor ranked",)


def _archive_candidates(url: str, archive_url: str, wayback: Wayback | None, when: date | None,
                        notes: list[str]) -> Iterator[Snapshot]:
    """The citation's own archive-url first; the Wayback Machine is asked only if that copy fails."""
    web_url = wayback.web_url if wayback is not None else "https://web.archive.org"
    if archive_url:
        yield parse_wayback(archive_url, web_url) or Snapshot(url, "", archive_url, archive_url)
    if wayback is None:
        return
    try:
        found = wayback.closest(url, when)
    except ServiceError as error:
        notes.append(str(error))
        return
    if found is None:
        notes.append("the Wayback Machine has no snapshot of this page")
        return
    yield found


@dataclass(frozen=True)
class Wanted:
    """A document to retrieve, with what its citation says about it."""

    url: str
    access_date: date | None = None
    archive_url: str = ""


def retrieve_many(wanted: Sequence[Wanted], fetcher: Fetcher, rules: ParagraphRules, wayback: Wayback | None = None,
                  *, workers: int = 8) -> list[Retrieved]:
    """Retrieve documents in parallel across hosts and one after another within a host, in the given order.

    Grouping by host keeps a slow or paced host from occupying every worker while other hosts wait. A page that
    answered but is not the page asked for (a soft 404, a redirect to the front page: ``notice_gone``) is dead, and
    its archived copy is read: a page saying it does not exist is evidence of nothing.
    """
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(wanted):
        groups.setdefault(host_key(item.url), []).append(index)
    results: list[Retrieved | None] = [None] * len(wanted)

    def run_host(indices: list[int]) -> None:
        for index in indices:
            item = wanted[index]
            results[index] = retrieve(item.url, fetcher, rules, wayback, access_date=item.access_date,
                                      archive_url=item.archive_url, notice_gone=True)

    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(groups)))) as pool:
        for future in [pool.submit(run_host, indices) for indices in groups.values()]:
            future.result()
    return [result for result in results if result is not None]
