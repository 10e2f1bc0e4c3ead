"""A document with the archive fallback, against a local server that also plays the Wayback Machine."""

from __future__ import annotations

import json
from datetime import date
from urllib.parse import urlsplit

import pytest

from bot.documents import paragraph_rules
from bot.documents.fetching import Outcome
from bot.documents.paragraphs import ParagraphRules
from bot.documents.retrieval import retrieve
from bot.wiring import Wiring
from documents_world import HTML, NEWS, NEWS_PARAGRAPHS, make_pdf, prose, world_options
from servers import Recorded, RecordingServer, Reply

EMPTY = b"<html><body><div id='app'></div><script>render()</script></body></html>"


class Archive:
    """Pages by path, plus the availability API, the CDX API and raw snapshots (``/web/<ts>id_/<url>``)."""

    def __init__(self) -> None:
        self.pages: dict[str, Reply] = {}
        self.snapshots: dict[tuple[str, str], Reply] = {}  # (timestamp, original URL) → reply
        self.availability_status = 200
        self.server = RecordingServer(self.answer)

    def answer(self, request: Recorded) -> Reply:
        path = urlsplit(request.path).path
        if path == "/wayback/available":
            if self.availability_status != 200:
                return Reply(self.availability_status, "upstream error")
            answer = self.available(request.params["url"][0], request.params.get("timestamp", [""])[0])
            return Reply(200, json.dumps(answer), {"Content-Type": "application/json"})
        if path == "/cdx/search/cdx":
            url, to = request.params["url"][0], request.params["to"][0]
            rows = [[ts, "200"] for ts, original in sorted(self.snapshots) if original == url and ts[:8] <= to]
            return Reply(200, json.dumps([["timestamp", "statuscode"]] + rows if rows else []),
                         {"Content-Type": "application/json"})
        if path.startswith("/web/"):
            stamp, _, original = request.path[len("/web/"):].partition("id_/")
            return self.snapshots.get((stamp, original), Reply(404, "no such snapshot"))
        return self.pages.get(path, Reply(404, "<html><body><p>Not found</p></body></html>", HTML))

    def available(self, url: str, timestamp: str) -> dict:
        stamps = sorted(ts for ts, original in self.snapshots if original == url)
        if not stamps:
            return {"url": url, "archived_snapshots": {}}
        target = int(timestamp.ljust(14, "0")) if timestamp else 99999999999999
        closest = min(stamps, key=lambda ts: abs(int(ts) - target))
        return {"url": url, "archived_snapshots": {"closest": {
            "available": True, "url": f"http://web.archive.org/web/{closest}/{url}", "timestamp": closest,
            "status": "200"}}}

    def asked(self, prefix: str) -> list[Recorded]:
        return [request for request in self.server.requests if request.path.startswith(prefix)]


@pytest.fixture
def archive():
    world = Archive()
    yield world
    world.server.close()


def run(archive: Archive, path: str, rules: ParagraphRules | None = None, **keywords):
    options = world_options(archive_availability_url=archive.server.url + "/wayback/available",
                            archive_cdx_url=archive.server.url + "/cdx/search/cdx", archive_web_url=archive.server.url)
    parts = Wiring(options)
    return retrieve(archive.server.url + path, parts.fetcher, rules or paragraph_rules(options.paragraph),
                    parts.wayback, **keywords)


def test_a_live_page_never_touches_the_archive(archive):
    archive.pages["/news"] = Reply(200, NEWS, HTML)
    result = run(archive, "/news", access_date=date(2019, 5, 3))
    assert result.outcome is Outcome.OK and result.archived is None
    assert prose(result.paragraphs) == NEWS_PARAGRAPHS
    assert not archive.asked("/wayback") and not archive.asked("/web/") and not archive.asked("/cdx")


def test_a_dead_page_is_read_from_the_snapshot_before_its_access_date(archive):
    url = archive.server.url + "/dead"
    archive.snapshots[("20180101000000", url)] = Reply(200, NEWS, HTML)
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    result = run(archive, "/dead", access_date=date(2019, 5, 3))
    assert result.live.outcome is Outcome.IRRETRIEVABLE and result.live.status == 404
    assert result.outcome is Outcome.OK and prose(result.paragraphs) == NEWS_PARAGRAPHS
    assert result.archived.archive_url == f"https://web.archive.org/web/20190501000000/{url}"
    assert result.archived.archive_timestamp == "20190501000000"
    (asked,) = archive.asked("/wayback/available")
    assert asked.params == {"url": [url], "timestamp": ["20190503"]}
    assert [r.path for r in archive.asked("/web/")] == [f"/web/20190501000000id_/{url}"], "the raw copy, no toolbar"
    assert not archive.asked("/cdx"), "the closest snapshot was already before the access date"


def test_when_the_closest_snapshot_is_later_an_earlier_one_is_preferred(archive):
    url = archive.server.url + "/dead"
    archive.snapshots[("20150101000000", url)] = Reply(200, NEWS, HTML)
    archive.snapshots[("20190504000000", url)] = Reply(200, NEWS, HTML)
    result = run(archive, "/dead", access_date=date(2019, 5, 3))
    assert result.archived.archive_timestamp == "20150101000000"
    assert archive.asked("/cdx")[0].params["to"] == ["20190503"]
    later_only = Archive()
    try:
        later_url = later_only.server.url + "/dead"
        later_only.snapshots[("20200101000000", later_url)] = Reply(200, NEWS, HTML)
        assert run(later_only, "/dead", access_date=date(2019, 5, 3)).archived.archive_timestamp == "20200101000000"
    finally:
        later_only.server.close()


def test_the_citations_own_archive_url_is_tried_first(archive):
    url = archive.server.url + "/dead"
    archive.snapshots[("20100101120000", url)] = Reply(200, NEWS, HTML)
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    result = run(archive, "/dead", access_date=date(2019, 5, 3),
                 archive_url=f"https://web.archive.org/web/20100101120000/{url}")
    assert result.archived.archive_timestamp == "20100101120000" and result.outcome is Outcome.OK
    assert [r.path for r in archive.asked("/web/")] == [f"/web/20100101120000id_/{url}"]
    assert not archive.asked("/wayback"), "the availability API is not needed"


def test_a_failing_citation_archive_falls_back_to_the_wayback_machine(archive):
    url = archive.server.url + "/dead"
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    result = run(archive, "/dead", archive_url=f"https://web.archive.org/web/20100101120000/{url}")
    assert result.archived.archive_timestamp == "20190501000000" and result.outcome is Outcome.OK
    assert any("20100101120000" in note for note in result.notes)


def test_a_page_without_paragraphs_is_read_from_the_archive(archive):
    url = archive.server.url + "/app"
    archive.pages["/app"] = Reply(200, EMPTY, HTML)
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    result = run(archive, "/app")
    assert result.live.outcome is Outcome.OK and result.archived is not None
    assert prose(result.paragraphs) == NEWS_PARAGRAPHS


def test_a_page_read_only_in_part_says_so_in_a_note(archive):
    """Live or archived, a document cut at the paragraph cap carries a note the trace and the report show."""
    from dataclasses import replace

    url = archive.server.url + "/dead"
    archive.pages["/news"] = Reply(200, NEWS, HTML)
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    rules = replace(paragraph_rules(world_options().paragraph), max_paragraphs=2)
    for path in ("/news", "/dead"):
        result = run(archive, path, rules=rules)
        assert prose(result.paragraphs) == NEWS_PARAGRAPHS[:2], path
        assert result.notes[-1] == ("read in part: only the first 2 paragraphs were read; the rest of the document "
                                    "was not extracted nor ranked"), path
    assert run(archive, "/news").notes == (), "a page read whole has no such note"


@pytest.mark.parametrize("reply, outcome", [
    (Reply(403, "paywall", HTML), Outcome.BLOCKED), (Reply(451, "unavailable", HTML), Outcome.BLOCKED),
    (Reply(200, b"GIF89a", {"Content-Type": "image/gif"}), Outcome.UNSUPPORTED),
    (Reply(200, b"<p>" + b"x" * 30_000_000 + b"</p>", HTML), Outcome.TOO_LARGE)])
def test_blocked_unsupported_and_too_large_pages_are_not_looked_up(archive, reply, outcome):
    url = archive.server.url + "/page"
    archive.pages["/page"] = reply
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    result = run(archive, "/page")
    assert result.outcome is outcome and result.archived is None and not result.paragraphs
    assert not archive.asked("/wayback") and not archive.asked("/web/")


def test_no_snapshot_or_a_failing_archive_leaves_the_page_irretrievable(archive):
    nothing = run(archive, "/dead")
    assert nothing.outcome is Outcome.IRRETRIEVABLE and nothing.notes == (
        "the Wayback Machine has no snapshot of this page",)
    archive.availability_status = 503
    failing = run(archive, "/dead")
    assert failing.outcome is Outcome.IRRETRIEVABLE and "HTTP 503" in failing.notes[0]


def test_a_broken_pdf_is_recorded_as_unsupported_with_the_reason(archive):
    archive.pages["/broken.pdf"] = Reply(200, b"%PDF-1.4\n garbage", {"Content-Type": "application/pdf"})
    archive.pages["/good.pdf"] = Reply(200, make_pdf(), {"Content-Type": "application/pdf"})
    broken = run(archive, "/broken.pdf")
    assert broken.outcome is Outcome.UNSUPPORTED and "cannot read the application/pdf body" in broken.live.reason
    assert run(archive, "/good.pdf").document.title == "Decorations conferred in 1990"


def test_damaged_pdfs_are_the_pages_outcome_whatever_pdfminer_raises(archive):
    """Truncated and scrambled copies of a real PDF: every one that pdfminer cannot read is unsupported with its
    reason, none raises out of retrieval."""
    good = make_pdf()
    damaged = {"/cut.pdf": good[: len(good) // 2], "/head.pdf": good[:40], "/tail.pdf": b"%PDF-1.7\n" + good[-300:],
               "/scrambled.pdf": good[:200] + bytes(range(256)) * 4 + good[1200:]}
    unreadable = []
    for path, body in damaged.items():
        archive.pages[path] = Reply(200, body, {"Content-Type": "application/pdf"})
        result = run(archive, path)
        assert result.live.outcome in (Outcome.OK, Outcome.UNSUPPORTED), path
        if result.live.outcome is Outcome.UNSUPPORTED:
            assert result.live.reason.startswith("cannot read the application/pdf body: "), result.live.reason
            unreadable.append(path)
    assert {"/cut.pdf", "/head.pdf", "/scrambled.pdf"} <= set(unreadable)


def test_refbot_failing_inside_extraction_is_never_blamed_on_the_page(archive, monkeypatch):
    """A broken install (here: trafilatura without its extract function, as a failed import leaves it) raises
    out of retrieval instead of making the page unsupported or irretrievable."""
    import trafilatura

    archive.pages["/news"] = Reply(200, NEWS, HTML)
    monkeypatch.delattr(trafilatura, "extract")
    with pytest.raises(AttributeError, match="extract"):
        run(archive, "/news")


def test_refbot_fetch_prints_the_outcome_the_archive_and_the_paragraphs(archive, monkeypatch, capsys):
    from bot.cli import main

    for name, path in (("AVAILABILITY_URL", "/wayback/available"), ("CDX_URL", "/cdx/search/cdx"),
                       ("WEB_URL", "")):
        monkeypatch.setenv(f"REFBOT_ARCHIVE_{name}", archive.server.url + path)
    monkeypatch.setenv("REFBOT_FETCH_DELAY", "0")
    url = archive.server.url + "/dead"
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    archive.pages["/paywall"] = Reply(402, "pay first", HTML)
    common = ["--contact", "tester@example.org", "--allow-address", "127.0.0.1", "--no-cache"]
    assert main(["fetch", url, "--access-date", "2019-05-03"] + common) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"irretrievable  HTTP 404  {url}  — HTTP 404 Not Found"
    assert lines[1].startswith(f"archived copy https://web.archive.org/web/20190501000000/{url} (snapshot "
                               "20190501000000): ok  HTTP 200  text/html")
    assert lines[2].startswith("title: Havel honoured with Asturias prize  language: en  read by: trafilatura")
    assert lines[3] == f"¶0 [0–201] {NEWS_PARAGRAPHS[0]}"
    assert lines[7].startswith("¶4 [") and lines[7].endswith("(lines) Short line."), "a block says its kind"
    assert lines[-1] == (f"refbot: ok: 4 paragraph(s) and 3 structured block(s) (1 header, 1 lines, 1 title) from "
                         f"{archive.server.url}/web/20190501000000id_/{url}")
    assert main(["fetch", archive.server.url + "/paywall", "--json"] + common) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["outcome"] == "blocked" and answer["live"]["status"] == 402 and answer["archived"] is None
    assert answer["paragraphs"] == []
    assert main(["fetch", "http://10.0.0.1/", "--json"] + common) == 1
    assert "private address" in json.loads(capsys.readouterr().out)["live"]["reason"]


def test_many_documents_are_retrieved_in_parallel_across_hosts_in_order():
    from bot.documents.retrieval import Wanted, retrieve_many

    hosts = [RecordingServer(lambda request: Reply(200, NEWS, HTML, delay=0.3)) for _ in range(2)]
    try:
        options = world_options(fetch_robots=False, archive_enabled=False)
        wanted = [Wanted(f"{hosts[n % 2].url}/page{n}") for n in range(6)]
        import time

        started = time.monotonic()
        results = retrieve_many(wanted, Wiring(options).fetcher, paragraph_rules(options.paragraph), workers=8)
        elapsed = time.monotonic() - started
        assert [r.url for r in results] == [w.url for w in wanted] and all(r.outcome is Outcome.OK for r in results)
        assert all(host.most_in_flight == 1 for host in hosts), "one request at a time per host"
        assert 0.85 < elapsed < 1.5, "two hosts side by side: about 3 × 0.3 s, not 6 × 0.3 s"
    finally:
        for host in hosts:
            host.close()


def test_non_utf8_pages_served_with_or_without_a_charset_are_read(archive):
    from documents_world import czech_page

    latin2 = {"Content-Type": "text/html; charset=ISO-8859-2"}
    archive.pages["/latin2"] = Reply(200, czech_page("iso-8859-2", False), latin2)
    archive.pages["/cp1250"] = Reply(200, czech_page("windows-1250", False), {"Content-Type": "text/html"})
    for path in ("/latin2", "/cp1250"):
        result = run(archive, path)
        assert result.outcome is Outcome.OK and result.document.language == "cs"
        assert result.paragraphs[0].text.startswith("Prezident Václav Havel v pátek v Oviedu převzal Cenu knížete "
                                                    "asturského"), path


@pytest.mark.parametrize("broken, why", [("http://[::1", "Invalid IPv6 URL"), ("http://example.org:99999999/a", "Port"),
                                         ("http:///nohost", "no host")])
def test_a_malformed_url_a_page_cites_is_an_outcome_not_a_crash(archive, broken, why):
    options = world_options(archive_availability_url=archive.server.url + "/wayback/available",
                            archive_cdx_url=archive.server.url + "/cdx/search/cdx", archive_web_url=archive.server.url)
    parts = Wiring(options)
    result = retrieve(broken, parts.fetcher, paragraph_rules(options.paragraph), parts.wayback,
                      access_date=date(2019, 5, 3))
    assert result.outcome is Outcome.UNSUPPORTED and why in result.live.reason
    assert not archive.server.requests, "nothing was asked of anyone"


def test_refbot_fetch_names_a_malformed_url_in_one_line(capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["fetch", "http://[::1"])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("refbot fetch: error: argument url: malformed URL: Invalid IPv6 URL")


def test_a_page_whose_main_heading_alone_says_it_does_not_exist_is_read_from_its_archived_copy(archive):
    from bot.documents.retrieval import Wanted, retrieve_many

    url = archive.server.url + "/obituary"
    archive.pages["/obituary"] = Reply(200, b"<html><head><title>The Prague Courier</title></head><body><main>"
                                       b"<h1>404: this page does not exist</h1><p>Try the search box, or go back to "
                                       b"the front page of the Courier to find the story you were looking for.</p>"
                                       b"</main></body></html>", HTML)
    archive.snapshots[("20190501000000", url)] = Reply(200, NEWS, HTML)
    options = world_options(archive_availability_url=archive.server.url + "/wayback/available",
                            archive_cdx_url=archive.server.url + "/cdx/search/cdx", archive_web_url=archive.server.url)
    parts = Wiring(options)
    (result,) = retrieve_many([Wanted(url, date(2019, 5, 3))], parts.fetcher, paragraph_rules(options.paragraph),
                              parts.wayback)
    assert result.live.status == 200 and "main heading says it is not there" in result.gone
    assert result.archived.archive_timestamp == "20190501000000"
    assert prose(result.paragraphs) == NEWS_PARAGRAPHS, "the copy is read, never the page that says it is gone"
