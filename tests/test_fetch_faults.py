"""Faults of fetching found by probing: a body without chunking or length that trickles in past ``max_seconds``,
a cache that answered what the address guard would refuse, and a cache that never shrank."""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
from collections.abc import Iterator

import pytest

from bot.documents.addresses import guard, parse_networks
from bot.documents.fetching import Outcome
from bot.errors import ConfigError
from bot.wiring import Wiring
from documents_world import HTML, NEWS, world_options
from servers import RecordingServer, Reply, routed


@pytest.fixture
def site():
    server = RecordingServer(routed({}))
    yield server
    server.close()


def paths(server: RecordingServer) -> list[str]:
    return [request.path for request in server.requests]


class RawServer:
    """A server that answers every connection with ``head`` and then sends ``body`` in ``piece``-byte parts, one
    every ``pause`` seconds, and closes the connection at the end: a body delimited by the connection's close,
    with neither Content-Length nor chunking (HTTP/1.0 style)."""

    def __init__(self, head: bytes, body: bytes, piece: int, pause: float) -> None:
        self.head, self.body, self.piece, self.pause = head, body, piece, pause
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def _serve(self) -> None:
        while not self.closed.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            try:
                connection.recv(65536)
                connection.sendall(self.head)
                for start in range(0, len(self.body), self.piece):
                    if self.closed.is_set():
                        return
                    connection.sendall(self.body[start:start + self.piece])
                    time.sleep(self.pause)
            except OSError:
                return  # the client hung up: what a cut fetch does

    def close(self) -> None:
        self.closed.set()
        self.listener.close()


@pytest.fixture
def raw_server() -> Iterator[list[RawServer]]:
    servers: list[RawServer] = []
    yield servers
    for server in servers:
        server.close()


CLOSE_DELIMITED = {
    "http/1.0": b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n",
    "http/1.1 with close": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n",
}


# 1. The whole-request deadline holds whatever the transfer encoding.

@pytest.mark.parametrize("head", CLOSE_DELIMITED.values(), ids=CLOSE_DELIMITED.keys())
def test_a_close_delimited_body_trickling_at_50_bytes_a_second_is_cut_at_max_seconds(raw_server, head):
    server = RawServer(head, b"<html><body><p>" + b"slow " * 4000, piece=5, pause=0.1)
    raw_server.append(server)
    started = time.monotonic()
    fetched = fetcher_for_raw(fetch_max_seconds=2.0).fetch(server.url + "/drip")
    took = time.monotonic() - started
    assert fetched.outcome is Outcome.IRRETRIEVABLE and fetched.reason == "timed out (still reading after 2 s)"
    assert took < 3.0, f"the fetch took {took:.1f} s with max_seconds = 2"


def test_a_close_delimited_body_that_stalls_ends_at_max_seconds_before_the_read_timeout(raw_server):
    server = RawServer(CLOSE_DELIMITED["http/1.0"], b"<html><body><p>begun" + b" " * 10, piece=20, pause=30)
    raw_server.append(server)
    started = time.monotonic()
    fetched = fetcher_for_raw(fetch_max_seconds=1.5, fetch_read_timeout=20.0).fetch(server.url + "/stall")
    assert fetched.outcome is Outcome.IRRETRIEVABLE and fetched.reason == "timed out (still reading after 1.5 s)"
    assert time.monotonic() - started < 2.5


def test_a_stalled_body_within_max_seconds_ends_at_the_read_timeout_with_its_own_reason(raw_server):
    server = RawServer(CLOSE_DELIMITED["http/1.0"], b"<html><body><p>begun" + b" " * 10, piece=20, pause=30)
    raw_server.append(server)
    started = time.monotonic()
    fetched = fetcher_for_raw(fetch_max_seconds=20.0, fetch_read_timeout=1.0).fetch(server.url + "/stall")
    assert fetched.outcome is Outcome.IRRETRIEVABLE
    assert fetched.reason == "timed out (nothing received for 1 s while reading the body)"
    assert time.monotonic() - started < 2.5


def test_a_close_delimited_body_that_arrives_in_time_is_read_whole(raw_server):
    server = RawServer(CLOSE_DELIMITED["http/1.0"], NEWS, piece=700, pause=0.01)
    raw_server.append(server)
    fetched = fetcher_for_raw(fetch_max_seconds=5.0).fetch(server.url + "/news")
    assert fetched.ok and fetched.content == NEWS


def test_an_http10_body_with_a_length_on_a_connection_the_server_closes_is_read_whole(raw_server):
    # as Python's http.server answers (the demo world's sites): http.client closes the socket after the last byte
    head = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(NEWS)
    server = RawServer(head, NEWS, piece=len(NEWS), pause=0.0)
    raw_server.append(server)
    fetched = fetcher_for_raw(fetch_max_seconds=5.0).fetch(server.url + "/news")
    assert fetched.ok and fetched.content == NEWS, fetched.reason


def test_a_gzipped_close_delimited_body_is_decoded_and_still_capped(raw_server):
    import gzip

    head = b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n"
    server = RawServer(head, gzip.compress(NEWS), piece=512, pause=0.0)
    bomb = RawServer(head, gzip.compress(b"<p>" + b"0" * 3_000_000), piece=4096, pause=0.0)
    raw_server.extend([server, bomb])
    fetched = fetcher_for_raw().fetch(server.url + "/news")
    assert fetched.ok and fetched.content == NEWS
    bombed = fetcher_for_raw(fetch_max_bytes=100_000).fetch(bomb.url + "/bomb")
    assert bombed.outcome is Outcome.TOO_LARGE and bombed.reason == "more than 100,000 bytes"


def test_a_chunked_body_is_still_cut_at_max_seconds(site):
    site.script = routed({"/drip": Reply(200, NEWS, HTML, drip=0.2)})
    started = time.monotonic()
    fetched = fetcher_for_raw(fetch_max_seconds=1.0, fetch_read_timeout=5.0).fetch(site.url + "/drip")
    assert fetched.outcome is Outcome.IRRETRIEVABLE and fetched.reason == "timed out (still reading after 1 s)"
    assert time.monotonic() - started < 2.0


def fetcher_for_raw(**overrides):
    options = world_options(fetch_robots=False, **overrides)
    return Wiring(options).fetcher


# 2. The address guard comes before the cache, and the cache is kept apart per allow-list.

def test_a_page_cached_under_an_allowance_is_refused_once_the_allowance_is_gone(site, tmp_path):
    site.script = routed({"/news": Reply(200, NEWS, HTML)})
    cached = dict(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_robots=False)
    allowed = world_options(fetch_allow_addresses=("127.0.0.1",), **cached)
    assert Wiring(allowed).fetcher.fetch(site.url + "/news").ok
    refused = world_options(fetch_allow_addresses=(), **cached)
    fetched = Wiring(refused).fetcher.fetch(site.url + "/news")
    assert fetched.outcome is Outcome.BLOCKED and not fetched.content and not fetched.from_cache
    assert "refused to connect to 127.0.0.1 (127.0.0.1): loopback address" in fetched.reason
    assert paths(site) == ["/news"]


def test_the_guard_is_asked_before_the_cache_when_a_name_now_resolves_to_a_refused_address(site, tmp_path):
    site.script = routed({"/news": Reply(200, NEWS, HTML)})
    options = world_options(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_robots=False)
    answers = {"localhost": ["127.0.0.1"]}
    session = guard(Wiring(options).http, parse_networks(options.fetch.allow_addresses),
                    lambda host, port: answers[host])
    fetcher = Wiring(options, http=session).fetcher
    url = site.url.replace("127.0.0.1", "localhost") + "/news"
    first, again = fetcher.fetch(url), fetcher.fetch(url)
    assert first.ok and again.ok and again.from_cache
    answers["localhost"] = ["10.20.30.40"]  # the name moved to a private address refbot was not allowed
    moved = fetcher.fetch(url)
    assert moved.outcome is Outcome.BLOCKED and "(10.20.30.40): private address" in moved.reason
    assert paths(site) == ["/news"]


def test_a_cached_page_is_still_answered_when_its_host_no_longer_resolves(site, tmp_path):
    site.script = routed({"/news": Reply(200, NEWS, HTML)})
    options = world_options(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_robots=False)
    answers: dict[str, list[str]] = {"localhost": ["127.0.0.1"]}

    def resolve(host: str, port: int) -> list[str]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return answers[host]
    fetcher = Wiring(options, http=guard(Wiring(options).http, parse_networks(options.fetch.allow_addresses),
                                         resolve)).fetcher
    url = site.url.replace("127.0.0.1", "localhost") + "/news"
    assert fetcher.fetch(url).ok
    answers.clear()
    again = fetcher.fetch(url)
    assert again.ok and again.from_cache, "a name that does not resolve names no address to refuse"


def test_sessions_with_different_allow_lists_do_not_share_cache_entries(site, tmp_path):
    site.script = routed({"/news": Reply(200, NEWS, HTML)})
    cached = dict(fetch_cache=tmp_path / "http.sqlite", fetch_cache_days=1.0, fetch_robots=False)

    def fetch(*allowed: str):
        options = world_options(fetch_allow_addresses=allowed, **cached)
        return Wiring(options).fetcher.fetch(site.url + "/news")
    assert not fetch("127.0.0.1").from_cache
    assert fetch("127.0.0.1/32").from_cache, "the same allow-list, written another way, shares the cache"
    assert not fetch("127.0.0.0/8").from_cache, "another allow-list has its own entries"
    assert fetch("127.0.0.0/8").from_cache
    assert paths(site) == ["/news", "/news"]


def test_an_address_allowed_with_a_port_opens_only_that_port(site):
    site.script = routed({"/news": Reply(200, NEWS, HTML)})
    port = int(site.url.rsplit(":", 1)[1])
    allowed = fetcher_for_raw(fetch_allow_addresses=(f"127.0.0.1:{port}",)).fetch(site.url + "/news")
    assert allowed.ok
    other = fetcher_for_raw(fetch_allow_addresses=(f"127.0.0.1:{port + 1 if port < 65535 else port - 1}",))
    refused = other.fetch(site.url + "/news")
    assert refused.outcome is Outcome.BLOCKED and "loopback address" in refused.reason
    assert f"port {port} is not allowed" in refused.reason
    assert fetcher_for_raw(fetch_allow_addresses=("127.0.0.0/8",)).fetch(site.url + "/news").ok, \
        "a bare address or network still allows every port"
    assert paths(site) == ["/news", "/news"]


@pytest.mark.parametrize("entry, shown", [("127.0.0.1", "127.0.0.1/32"), ("127.0.0.1:8080", "127.0.0.1/32:8080"),
                                          ("10.0.0.0/8:443", "10.0.0.0/8:443"), ("[::1]:8080", "[::1/128]:8080"),
                                          ("::1", "::1/128"), ("[fd00::/8]", "fd00::/8"),
                                          (" 192.168.0.0/16 ", "192.168.0.0/16")])
def test_allowed_entries_are_addresses_or_networks_with_an_optional_port(entry, shown):
    assert [str(allowed) for allowed in parse_networks([entry])] == [shown]


@pytest.mark.parametrize("entry, message", [
    ("127.0.0.1:99999", "'127.0.0.1:99999': port 99999 is not between 1 and 65535"),
    ("127.0.0.1:0", "'127.0.0.1:0': port 0 is not between 1 and 65535"),
    ("127.0.0.1:http", "'127.0.0.1:http': port 'http' is not a number"),
    ("[::1:8080", "'[::1:8080': not an IP address or network"),
    ("[::1]8080", "'[::1]8080': not an IP address or network"),
    ("example.org:80", "'example.org:80': not an IP address or network"),
    ("10.0.0.0/33", "'10.0.0.0/33': not an IP address or network")])
def test_a_bad_allowed_entry_is_a_config_error_naming_it(entry, message):
    with pytest.raises(ConfigError) as caught:
        world_options(fetch_allow_addresses=("127.0.0.1", entry))
    text = str(caught.value)
    assert text.startswith(f"fetch allow_addresses: {message}") and "\n" not in text
    assert "127.0.0.1:8080" in text, "the hint shows the port form"


# 3. The cache is bounded by age and by size.

def cached_rows(path) -> int:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT count(*) FROM responses").fetchone()[0]


def test_expired_cache_entries_are_deleted_when_a_session_starts(site, tmp_path):
    site.script = routed({"/a": Reply(200, NEWS, HTML), "/b": Reply(200, NEWS, HTML),
                          "/gone": Reply(404, "gone", HTML)})
    path = tmp_path / "http.sqlite"
    short = world_options(fetch_cache=path, fetch_cache_days=0.5 / 86400, fetch_robots=False)  # half a second
    fetcher = Wiring(short).fetcher
    outcomes = [fetcher.fetch(site.url + page).outcome for page in ("/a", "/b", "/gone")]
    assert outcomes == [Outcome.OK, Outcome.OK, Outcome.IRRETRIEVABLE]
    assert cached_rows(path) == 3
    time.sleep(1.2)  # SQLite holds the expiry in whole seconds: up to half a second later
    Wiring(short).http
    assert cached_rows(path) == 0


def test_entries_older_than_a_shortened_cache_days_are_deleted(site, tmp_path):
    site.script = routed({"/a": Reply(200, NEWS, HTML)})
    path = tmp_path / "http.sqlite"
    long = world_options(fetch_cache=path, fetch_cache_days=30.0, fetch_robots=False)
    assert Wiring(long).fetcher.fetch(site.url + "/a").ok
    time.sleep(1.2)
    Wiring(long).http
    assert cached_rows(path) == 1, "an entry younger than cache_days stays"
    Wiring(world_options(fetch_cache=path, fetch_cache_days=1 / 86400, fetch_robots=False)).http
    assert cached_rows(path) == 0, "cache_days now says the entry is too old"


def test_the_cache_stays_within_cache_max_mb_and_drops_the_oldest_entries_first(site, tmp_path):
    import random

    generator = random.Random(7)
    pages = {f"/p{n}": b"<html><body><p>" + bytes(generator.getrandbits(8) for _ in range(60_000))
             for n in range(12)}
    site.script = routed({name: Reply(200, body, {"Content-Type": "text/html"}) for name, body in pages.items()})
    path = tmp_path / "http.sqlite"
    options = world_options(fetch_cache=path, fetch_cache_days=1.0, fetch_cache_max_mb=0.25, fetch_robots=False)
    limit = 0.25 * 1024 * 1024
    fetcher = Wiring(options).fetcher
    for name in pages:
        assert fetcher.fetch(site.url + name).ok
        assert path.stat().st_size <= limit * 1.2, "the bound holds during a session too"
    Wiring(options).http
    assert path.stat().st_size <= limit
    assert 0 < cached_rows(path) < len(pages)
    rerun = Wiring(options).fetcher
    assert rerun.fetch(site.url + "/p11").from_cache, "the newest page is kept"
    assert not rerun.fetch(site.url + "/p0").from_cache, "the oldest page went first"


def test_cache_max_mb_must_be_more_than_zero():
    with pytest.raises(ConfigError, match="fetch cache_max_mb must be more than 0"):
        world_options(fetch_cache_max_mb=0)


def test_a_cache_file_another_reader_holds_is_shrunk_later_not_raised(site, tmp_path):
    site.script = routed({f"/p{n}": Reply(200, b"<html><body><p>" + bytes([65 + n]) * 60_000, HTML)
                          for n in range(3)})
    path = tmp_path / "http.sqlite"
    options = world_options(fetch_cache=path, fetch_cache_days=1.0, fetch_robots=False)
    session = Wiring(options).http
    fetcher = Wiring(options, http=session).fetcher
    assert all(fetcher.fetch(f"{site.url}/p{n}").ok for n in range(3))
    cache = session.cache
    for table in (cache.responses, cache.redirects):
        with table.connection() as connection:
            connection.execute("PRAGMA busy_timeout = 50")
    session.max_bytes = 100_000
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM responses").fetchone()[0] == 3  # holds the file while reading
    started = time.monotonic()
    session.keep_within()
    assert time.monotonic() - started < 2 and cached_rows(path) == 3, "busy: left for later"
    reader.execute("ROLLBACK")
    reader.close()
    session.keep_within()
    assert cached_rows(path) == 1 and path.stat().st_size <= 100_000
