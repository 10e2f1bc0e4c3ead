"""Fetching against a local server: every outcome, the address guard, politeness, robots.txt and the cache."""

from __future__ import annotations

import socket
import time

import pytest

from bot.clock import fixed_clock
from bot.documents import fetch_rules
from bot.documents.addresses import guard, parse_networks
from bot.documents.fetching import Fetcher, Outcome
from bot.documents.politeness import Politeness
from bot.wiring import Wiring
from documents_world import HTML, NEWS, make_pdf, world_options
from servers import RecordingServer, Reply, routed


@pytest.fixture
def site():
    server = RecordingServer(routed({}))
    yield server
    server.close()


def serve(server: RecordingServer, routes: dict) -> None:
    server.script = routed(routes)


def fetcher_for(**overrides) -> Fetcher:
    options = world_options(**overrides)
    return Wiring(options, clock=fixed_clock("2026-11-24T10:00:00Z")).fetcher


def paths(server: RecordingServer) -> list[str]:
    return [request.path for request in server.requests]


def test_a_page_is_fetched_with_the_configured_user_agent(site):
    serve(site, {"/news": Reply(200, NEWS, HTML)})
    fetched = fetcher_for().fetch(site.url + "/news")
    assert fetched.outcome is Outcome.OK and fetched.status == 200
    assert fetched.content == NEWS and fetched.content_type == "text/html" and fetched.charset == "utf-8"
    assert fetched.final_url == site.url + "/news" and fetched.sha256 and fetched.retrieved == "2026-11-24T10:00:00Z"
    assert paths(site) == ["/robots.txt", "/news"]
    agents = {request.headers["User-Agent"] for request in site.requests}
    assert agents == {f"refbot/0.1.0 (tester@example.org) requests/{__import__('requests').__version__}"}


@pytest.mark.parametrize("status, outcome", [(404, Outcome.IRRETRIEVABLE), (410, Outcome.IRRETRIEVABLE),
                                             (401, Outcome.BLOCKED), (402, Outcome.BLOCKED),
                                             (403, Outcome.BLOCKED), (451, Outcome.BLOCKED),
                                             (400, Outcome.IRRETRIEVABLE)])
def test_http_errors_map_to_outcomes(site, status, outcome):
    serve(site, {"/page": Reply(status, "<html><body>nope</body></html>", HTML)})
    fetched = fetcher_for().fetch(site.url + "/page")
    assert fetched.outcome is outcome and fetched.status == status and f"HTTP {status}" in fetched.reason
    assert fetched.retrieved == "2026-11-24T10:00:00Z", "the fetcher's clock stamps a failure too"
    assert paths(site) == ["/robots.txt", "/page"], "client errors are not retried"


def test_server_errors_are_retried_then_irretrievable(site):
    serve(site, {"/flaky": Reply(503, "busy"), "/down": Reply(500, "broken")})
    answers = iter([Reply(503, "busy"), Reply(502, "bad gateway"), Reply(200, NEWS, HTML)])
    serve(site, {"/flaky": lambda request: next(answers), "/down": Reply(500, "broken")})
    fetcher = fetcher_for(fetch_retries=2)
    assert fetcher.fetch(site.url + "/flaky").outcome is Outcome.OK
    down = fetcher.fetch(site.url + "/down")
    assert down.outcome is Outcome.IRRETRIEVABLE and down.reason == "HTTP 500 Internal Server Error after 3 attempts"
    assert paths(site).count("/flaky") == 3 and paths(site).count("/down") == 3


def test_a_page_that_never_answers_times_out(site):
    serve(site, {"/slow": Reply(200, NEWS, HTML, delay=5)})
    started = time.monotonic()
    fetched = fetcher_for(fetch_read_timeout=0.5).fetch(site.url + "/slow")
    assert fetched.outcome is Outcome.IRRETRIEVABLE and fetched.reason == "timed out (no answer)"
    assert time.monotonic() - started < 3


def test_a_refused_connection_is_irretrievable():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fetched = fetcher_for().fetch(f"http://127.0.0.1:{port}/gone")
    assert fetched.outcome is Outcome.IRRETRIEVABLE
    # One readable line naming the host and why, not urllib3's wrapped exceptions cut mid-word.
    assert fetched.reason == f"cannot connect to 127.0.0.1:{port}: connection refused"


def test_a_host_that_does_not_resolve_is_irretrievable_without_any_lookup_on_the_network():
    def resolver(host, port):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    options = world_options()
    session = guard(Wiring(options).http, parse_networks(options.fetch.allow_addresses), resolver)
    fetched = Fetcher(session, fetch_rules(options.fetch, options.contact)).fetch("http://dead-host.test/article")
    assert fetched.outcome is Outcome.IRRETRIEVABLE
    assert fetched.reason == "cannot connect to dead-host.test: the host name does not resolve"


def test_pages_over_the_size_cap_are_too_large(site):
    big = b"<html><body>" + b"<p>" + b"x" * 60_000 + b"</p></body></html>"
    serve(site, {"/declared": Reply(200, big, HTML), "/streamed": Reply(200, big, HTML, chunked=True)})
    fetcher = fetcher_for(fetch_max_bytes=20_000)
    declared = fetcher.fetch(site.url + "/declared")
    assert declared.outcome is Outcome.TOO_LARGE and declared.reason.startswith("60,")
    streamed = fetcher.fetch(site.url + "/streamed")
    assert streamed.outcome is Outcome.TOO_LARGE and streamed.reason == "more than 20,000 bytes"
    assert not streamed.content


def test_unsupported_content_is_not_read(site):
    serve(site, {"/photo.png": Reply(200, b"\x89PNG\r\n\x1a\n" + b"0" * 100, {"Content-Type": "image/png"}),
                 "/report": Reply(200, make_pdf(), {}), "/guess": Reply(200, b"\x00\x01binary", {})})
    fetcher = fetcher_for()
    photo = fetcher.fetch(site.url + "/photo.png")
    assert photo.outcome is Outcome.UNSUPPORTED and "image/png" in photo.reason
    assert fetcher.fetch(site.url + "/report").content_type == "application/pdf", "sniffed when undeclared"
    assert fetcher.fetch(site.url + "/guess").outcome is Outcome.UNSUPPORTED
    assert fetcher.fetch("ftp://127.0.0.1/file.txt").outcome is Outcome.UNSUPPORTED


def test_a_redirect_chain_is_followed_and_recorded(site):
    serve(site, {"/old": Reply(301, "", {"Location": "/moved"}), "/moved": Reply(302, "", {"Location": "/final"}),
                 "/final": Reply(307, "", {"Location": site.url + "/news"}), "/news": Reply(200, NEWS, HTML)})
    fetched = fetcher_for().fetch(site.url + "/old")
    assert fetched.outcome is Outcome.OK and fetched.final_url == site.url + "/news"
    assert fetched.redirects == (site.url + "/moved", site.url + "/final", site.url + "/news")


def test_too_many_redirects_loops_and_soft_404s_are_irretrievable(site):
    serve(site, {**{f"/hop{n}": Reply(302, "", {"Location": f"/hop{n + 1}"}) for n in range(10)},
                 "/a": Reply(302, "", {"Location": "/b"}), "/b": Reply(302, "", {"Location": "/a"}),
                 "/2019/story": Reply(301, "", {"Location": "/"}), "/": Reply(200, NEWS, HTML)})
    fetcher = fetcher_for(fetch_max_redirects=3)
    assert fetcher.fetch(site.url + "/hop0").reason == "more than 3 redirects"
    assert fetcher.fetch(site.url + "/a").reason == "redirect loop"
    home = fetcher.fetch(site.url + "/2019/story")
    assert home.outcome is Outcome.IRRETRIEVABLE and "home page" in home.reason
    assert "/" not in paths(site), "the home page is not fetched"


def test_a_redirect_to_another_loopback_address_is_refused_before_connecting(site):
    other = RecordingServer(routed({"/internal": Reply(200, NEWS, HTML)}), host="127.0.0.2")
    try:
        serve(site, {"/innocent": Reply(302, "", {"Location": other.url + "/internal"})})
        fetched = fetcher_for().fetch(site.url + "/innocent")
        assert fetched.outcome is Outcome.BLOCKED
        assert "refused to connect to 127.0.0.2 (127.0.0.2): loopback address" in fetched.reason
        assert other.requests == [], "nothing was sent to the address that is not allowed"
        allowed = fetcher_for(fetch_allow_addresses=("127.0.0.1", "127.0.0.2")).fetch(site.url + "/innocent")
        assert allowed.outcome is Outcome.OK and [r.path for r in other.requests][-1] == "/internal"
    finally:
        other.close()


def test_with_nothing_allowed_even_the_local_server_is_refused(site):
    serve(site, {"/news": Reply(200, NEWS, HTML)})
    fetched = fetcher_for(fetch_allow_addresses=()).fetch(site.url + "/news")
    assert fetched.outcome is Outcome.BLOCKED and "loopback" in fetched.reason
    assert site.requests == []
    for private in ("http://10.1.2.3/", "http://192.168.0.1/", "http://169.254.169.254/latest/meta-data/",
                    "http://[::1]/", "http://[fe80::1]/", "http://0.0.0.0/", "http://100.100.100.200/latest/meta-data/",
                    "http://[::ffff:127.0.0.1]/", "http://[2002:a9fe:a9fe::]/", "http://[fec0::1]/",
                    "http://[fd00::1]/", "http://127.1/", "http://2130706433/"):
        assert fetcher_for(fetch_allow_addresses=()).fetch(private).outcome is Outcome.BLOCKED, private


def test_robots_txt_is_obeyed_and_its_crawl_delay_respected(site):
    robots = "User-agent: *\nDisallow: /news\n\nUser-agent: refbot\nDisallow: /members/\nCrawl-delay: 0.4\n"
    serve(site, {"/robots.txt": Reply(200, robots, {"Content-Type": "text/plain"}),
                 "/members/list": Reply(200, NEWS, HTML), "/news": Reply(200, NEWS, HTML),
                 "/other": Reply(200, NEWS, HTML)})
    fetcher = fetcher_for()
    members = fetcher.fetch(site.url + "/members/list")
    assert members.outcome is Outcome.BLOCKED and "robots.txt" in members.reason
    assert fetcher.fetch(site.url + "/news").ok and fetcher.fetch(site.url + "/other").ok
    assert paths(site) == ["/robots.txt", "/news", "/other"], "robots.txt read once; the disallowed page never"
    assert site.requests[2].started - site.requests[1].finished >= 0.39, "Crawl-delay 0.4 raises the pause of 0"
    # refbot's own group applies, not the one for every agent (RFC 9309): /news is allowed to refbot.
    ignoring = fetcher_for(fetch_robots=False)
    assert ignoring.fetch(site.url + "/members/list").ok


def test_one_request_at_a_time_per_host_with_a_pause_between(site):
    serve(site, {f"/p{n}": Reply(200, NEWS, HTML, delay=0.05) for n in range(4)})
    options = world_options(fetch_delay=0.3, fetch_robots=False)
    fetcher = Wiring(options).fetcher
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        assert all(f.ok for f in pool.map(fetcher.fetch, [f"{site.url}/p{n}" for n in range(4)]))
    assert site.most_in_flight == 1
    starts = sorted(request.started for request in site.requests)
    ends = sorted(request.finished for request in site.requests)
    assert all(later - earlier >= 0.29 for earlier, later in zip(ends, starts[1:]))


def test_different_hosts_are_fetched_in_parallel(site):
    other = RecordingServer(routed({"/p": Reply(200, NEWS, HTML, delay=0.5)}))
    try:
        serve(site, {"/p": Reply(200, NEWS, HTML, delay=0.5)})
        fetcher = fetcher_for(fetch_delay=2.0, fetch_robots=False)
        from concurrent.futures import ThreadPoolExecutor

        started = time.monotonic()
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(fetcher.fetch, [site.url + "/p", other.url + "/p"]))
        assert all(result.ok for result in results) and time.monotonic() - started < 0.95
    finally:
        other.close()


def test_the_http_cache_answers_repeated_fetches_without_asking_again(site, tmp_path):
    serve(site, {"/news": Reply(200, NEWS, HTML), "/gone": Reply(404, "gone", HTML)})
    options = world_options(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_delay=5.0)
    fetcher = Wiring(options).fetcher
    first, again = fetcher.fetch(site.url + "/news"), fetcher.fetch(site.url + "/news")
    assert first.ok and not first.from_cache and again.ok and again.from_cache and again.content == NEWS
    assert fetcher.fetch(site.url + "/gone").outcome is Outcome.IRRETRIEVABLE
    assert fetcher.fetch(site.url + "/gone").outcome is Outcome.IRRETRIEVABLE
    assert paths(site).count("/news") == 1 and paths(site).count("/gone") == 1
    started = time.monotonic()
    rerun = Wiring(options).fetcher  # a new run reads the same cache from disk
    assert rerun.fetch(site.url + "/news").from_cache and time.monotonic() - started < 4
    assert paths(site).count("/news") == 1


def test_a_connection_dropped_mid_body_is_recorded_not_raised():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/cut"

        def answer_half():
            connection, _ = listener.accept()
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n<p>half")
            connection.close()
        import threading

        threading.Thread(target=answer_half, daemon=True).start()
        fetched = fetcher_for(fetch_robots=False).fetch(url)
    assert fetched.outcome is Outcome.IRRETRIEVABLE and fetched.reason


def test_politeness_serialises_one_host_only():
    clock = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds
    politeness = Politeness(1.0, clock=lambda: clock[0], sleep=sleep)
    with politeness.turn("http://a.example/1"):
        pass
    with politeness.turn("http://b.example/1"):
        pass
    with politeness.turn("http://a.example/2"):
        pass
    assert slept == [1.0]


def test_with_the_cache_on_the_size_cap_still_holds_and_nothing_large_is_stored(site, tmp_path):
    import gzip

    bomb = gzip.compress(b"<p>" + b"0" * 5_000_000 + b"</p>")
    serve(site, {"/bomb": Reply(200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"}),
                 "/video": Reply(200, b"v" * 3_000_000, {"Content-Type": "video/mp4"}),
                 "/chunked": Reply(200, NEWS, HTML, chunked=True)})
    options = world_options(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_max_bytes=100_000)
    fetcher = Wiring(options).fetcher
    assert len(bomb) < 100_000
    bombed = fetcher.fetch(site.url + "/bomb")
    assert bombed.outcome is Outcome.TOO_LARGE and bombed.reason == "more than 100,000 bytes"
    assert fetcher.fetch(site.url + "/video").outcome is Outcome.UNSUPPORTED
    first, again = fetcher.fetch(site.url + "/chunked"), fetcher.fetch(site.url + "/chunked")
    assert first.ok and again.from_cache and again.content == NEWS, "a chunked page is cached after the capped read"
    assert paths(site).count("/chunked") == 1
    assert fetcher.fetch(site.url + "/bomb").outcome is Outcome.TOO_LARGE and paths(site).count("/bomb") == 2
    assert (tmp_path / "http.sqlite").stat().st_size < 1_000_000


def test_a_body_that_trickles_in_is_cut_at_max_seconds(site):
    serve(site, {"/drip": Reply(200, NEWS, HTML, drip=0.2)})
    started = time.monotonic()
    fetched = fetcher_for(fetch_max_seconds=1.0, fetch_read_timeout=5.0, fetch_robots=False).fetch(site.url + "/drip")
    assert fetched.outcome is Outcome.IRRETRIEVABLE and fetched.reason == "timed out (still reading after 1 s)"
    assert time.monotonic() - started < 2.5


def test_a_host_turn_lasts_until_the_body_is_read(site):
    serve(site, {f"/slow{n}": Reply(200, NEWS[:320], HTML, drip=0.02) for n in range(3)})
    fetcher = fetcher_for(fetch_robots=False)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(3) as pool:
        assert all(f.ok for f in pool.map(fetcher.fetch, [f"{site.url}/slow{n}" for n in range(3)]))
    assert site.most_in_flight == 1


def test_an_expired_cache_entry_waits_for_its_turn(site, tmp_path):
    serve(site, {"/a": Reply(200, NEWS, HTML), "/b": Reply(200, NEWS, HTML)})
    options = world_options(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1 / 86400, fetch_delay=0.8,
                            fetch_robots=False)
    Wiring(options).fetcher.fetch(site.url + "/a")
    time.sleep(1.1)
    fetcher = Wiring(options).fetcher
    assert fetcher.fetch(site.url + "/b").ok and fetcher.fetch(site.url + "/a").ok
    b, a = site.requests[-2:]
    assert (b.path, a.path) == ("/b", "/a") and a.started - b.finished >= 0.75


def test_robots_txt_redirects_are_followed_and_broken_files_do_not_block(site):
    serve(site, {"/robots.txt": Reply(301, "", {"Location": "/real-robots.txt"}),
                 "/real-robots.txt": Reply(200, "User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"}),
                 "/private": Reply(200, NEWS, HTML), "/public": Reply(200, NEWS, HTML)})
    fetcher = fetcher_for()
    assert fetcher.fetch(site.url + "/private").outcome is Outcome.BLOCKED
    assert fetcher.fetch(site.url + "/public").ok
    garbled = Reply(200, "User-agent: *\nDisallow: /", {"Content-Type": "text/plain", "Content-Encoding": "gzip"})
    serve(site, {"/robots.txt": garbled, "/page": Reply(200, NEWS, HTML)})
    assert fetcher_for().fetch(site.url + "/page").ok, "an undecodable robots.txt is no rules, not a failure"


def test_a_robots_txt_answering_5xx_means_the_site_is_not_crawled(site):
    serve(site, {"/robots.txt": Reply(503, "down"), "/page": Reply(200, NEWS, HTML)})
    fetched = fetcher_for(fetch_retries=1).fetch(site.url + "/page")
    assert fetched.outcome is Outcome.IRRETRIEVABLE and "robots.txt unreadable" in fetched.reason
    assert "/page" not in paths(site)


def test_robots_txt_is_read_once_per_host_by_many_threads(site):
    serve(site, {"/robots.txt": Reply(200, "User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"}, delay=0.2),
                 **{f"/p{n}": Reply(200, NEWS, HTML) for n in range(6)}})
    fetcher = fetcher_for()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(6) as pool:
        assert all(f.ok for f in pool.map(fetcher.fetch, [f"{site.url}/p{n}" for n in range(6)]))
    assert paths(site).count("/robots.txt") == 1


def test_octet_stream_is_sniffed_and_odd_redirect_schemes_are_unsupported(site):
    serve(site, {"/file": Reply(200, make_pdf(), {"Content-Type": "application/octet-stream"}),
                 "/mail": Reply(302, "", {"Location": "mailto:editor@example.org"})})
    fetcher = fetcher_for()
    assert fetcher.fetch(site.url + "/file").content_type == "application/pdf"
    mail = fetcher.fetch(site.url + "/mail")
    assert mail.outcome is Outcome.UNSUPPORTED and "mailto" in mail.reason


def test_cached_pages_with_vary_or_key_parameters_stay_distinct_and_polite(site, tmp_path):
    serve(site, {"/doc": lambda request: Reply(200, f"<p>{request.path} {'x' * 120}</p>".encode(),
                                               {"Content-Type": "text/html", "Vary": "*",
                                                "Set-Cookie": "session=1; Path=/"})})
    options = world_options(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_robots=False)
    fetcher = Wiring(options).fetcher
    first, second = fetcher.fetch(site.url + "/doc?id=AAA"), fetcher.fetch(site.url + "/doc?id=BBB")
    assert b"id=AAA" in first.content and b"id=BBB" in second.content, "a parameter is part of the page's key"
    assert fetcher.fetch(site.url + "/doc?id=AAA").from_cache, "Vary and cookies do not force a resend"
    assert len(site.requests) == 2


def test_a_trickling_error_page_does_not_stall_a_cached_session(site, tmp_path):
    serve(site, {"/gone": Reply(404, b"x" * 64, HTML, drip=0.5)})
    fetcher = fetcher_for(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_robots=False)
    started = time.monotonic()
    assert fetcher.fetch(site.url + "/gone").outcome is Outcome.IRRETRIEVABLE, "its body is never read"
    assert time.monotonic() - started < 1.5


def test_refbots_own_failure_while_fetching_is_raised_not_recorded_as_a_dead_page(site, monkeypatch):
    """A bug or a broken library inside the fetcher must not read as "irretrievable"; what the network did still
    does (a refused connection)."""
    import bot.documents.fetching as fetching

    serve(site, {"/news": Reply(200, NEWS, HTML)})
    fetcher = fetcher_for()
    assert fetcher.fetch(site.url + "/news").outcome is Outcome.OK

    monkeypatch.setattr(fetching, "media_type", None)  # a bug in refbot's fetcher: it calls what is not there
    with pytest.raises(TypeError, match="not callable"):
        fetcher_for().fetch(site.url + "/news")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    refused = fetcher_for().fetch(f"http://127.0.0.1:{closed}/page")
    assert refused.outcome is Outcome.IRRETRIEVABLE and "cannot connect" in refused.reason


def test_a_damaged_robots_txt_allows_the_site_but_a_broken_parser_is_raised(site, monkeypatch):
    import protego

    serve(site, {"/robots.txt": Reply(200, "User-agent: *\nDisallow: /private\n", {"Content-Type": "text/plain"}),
                 "/news": Reply(200, NEWS, HTML)})

    def damaged(text):  # what the parser does with a file it cannot make sense of
        raise ValueError("unexpected line")

    monkeypatch.setattr(protego.Protego, "parse", staticmethod(damaged))
    assert fetcher_for().fetch(site.url + "/news").outcome is Outcome.OK, "no rules: the site may be read"

    def gone(text):  # what a broken install does: the parser's module lacks what refbot calls
        raise AttributeError("module 'protego' has no attribute 'parse'", name="parse", obj=protego)

    monkeypatch.setattr(protego.Protego, "parse", staticmethod(gone))
    with pytest.raises(AttributeError):
        fetcher_for().fetch(site.url + "/news")


def test_the_http_cache_file_is_private_and_so_is_the_folder_refbot_makes_for_it(site, tmp_path):
    import os
    import stat

    serve(site, {"/news": Reply(200, NEWS, HTML)})
    previous = os.umask(0o022)  # the usual umask, which makes files 0644 and folders 0755
    try:
        cache = tmp_path / "made" / "by-refbot" / "http.sqlite"
        fetcher_for(fetch_cache=cache, fetch_cache_days=1.0, fetch_robots=False).fetch(site.url + "/news")
        assert fetcher_for(fetch_cache=cache, fetch_cache_days=1.0).fetch(site.url + "/news").from_cache
    finally:
        os.umask(previous)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    assert {stat.S_IMODE(folder.stat().st_mode) for folder in (cache.parent, cache.parent.parent)} == {0o700}
    older = tmp_path / "older.sqlite"  # a cache written by a refbot before this one, readable by all
    fetcher_for(fetch_cache=older, fetch_cache_days=1.0, fetch_robots=False).fetch(site.url + "/news")
    older.chmod(0o644)
    assert fetcher_for(fetch_cache=older, fetch_cache_days=1.0).fetch(site.url + "/news").from_cache
    assert stat.S_IMODE(older.stat().st_mode) == 0o600


def test_answers_to_urls_with_credentials_are_never_kept_in_the_http_cache(site, tmp_path):
    page = lambda request: Reply(200, f"<p>{request.path} {'x' * 120}</p>".encode(), HTML)  # noqa: E731
    serve(site, {"/doc": page, "/gone": Reply(404, "gone", HTML),
                 "/moved": Reply(301, "", {"Location": "/doc?access_token=SECRET-3"})})
    cache = tmp_path / "http.sqlite"
    with_credentials = [site.url.replace("://", "://reader:SECRET-1@") + "/doc", site.url + "/doc?api_key=SECRET-2",
                        site.url + "/gone?sessionToken=SECRET-4", site.url + "/moved"]
    for _ in range(2):
        fetcher = fetcher_for(fetch_cache=cache, fetch_cache_days=1.0, fetch_robots=False)
        for url in with_credentials:
            assert not fetcher.fetch(url).from_cache, url
    assert fetcher.fetch(site.url + "/doc?id=1").status == 200 and fetcher.fetch(site.url + "/doc?id=1").from_cache
    assert paths(site).count("/doc") == 2 and paths(site).count("/moved") == 2, "each asked again, not cached"
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("http.sqlite*"))
    assert b"/doc?id=1" in stored, "the cache holds the page without a credential"
    assert not any(secret in stored for secret in (b"SECRET-1", b"SECRET-2", b"SECRET-3", b"SECRET-4"))
