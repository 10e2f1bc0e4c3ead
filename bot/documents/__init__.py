"""Grounding documents: fetching, paragraphs, archives, web search and Wikipedia's cited sources.

Modules, one stage each: ``addresses`` (refusing private networks), ``politeness`` (per-host pacing, robots),
``fetching`` (one fetch → one outcome), ``decoding`` and ``paragraphs`` and ``sentences`` (bytes → paragraphs,
pure), ``archive`` (Wayback), ``retrieval`` (fetch + paragraphs + archive fallback), ``services`` (the web APIs),
``search`` (web search backends), ``citations`` (Wikipedia HTML → cited paragraphs, pure), ``wikipedia``
(sitelink and article). The factories below wire them from the options; nothing else builds a session.
"""

from __future__ import annotations

from datetime import date
from http.cookiejar import DefaultCookiePolicy
from typing import TYPE_CHECKING

from bot.clock import Clock, system_clock
from bot.etiquette import user_agent

if TYPE_CHECKING:
    import requests

    from bot.documents.archive import Wayback
    from bot.documents.fetching import Fetcher, FetchRules
    from bot.documents.paragraphs import ParagraphRules
    from bot.documents.politeness import Politeness
    from bot.documents.retrieval import Retrieved
    from bot.documents.search import SearchBackend
    from bot.documents.services import ServiceClient
    from bot.documents.wikipedia import Article, Sitelink
    from bot.options import Options

# Request headers and parameters that may hold a secret; never written to the HTTP cache.
SECRET_HEADERS = ("Authorization", "Proxy-Authorization", "X-Subscription-Token", "X-API-Key")


def make_session(options: Options, *, cache: bool = True) -> requests.Session:
    """A requests session that refuses private addresses (except those allowed) and, unless ``cache`` is
    False or ``fetch_cache_days`` is 0, answers repeated requests from the on-disk cache (asked after the
    address guard, kept apart per allow-list, within ``fetch_cache_days`` and ``fetch_cache_max_mb``)."""
    import requests

    from bot.documents import cache as http_cache
    from bot.documents.addresses import guard, parse_networks

    session: requests.Session
    if cache and options.fetch_cache_days > 0:
        session = http_cache.open_session(options.fetch_cache, days=options.fetch_cache_days,
                                          max_mb=options.fetch_cache_max_mb, ignored_parameters=SECRET_HEADERS)
    else:
        session = requests.Session()
    session.headers["User-Agent"] = user_agent(options.contact, f"requests/{requests.__version__}")
    # No cookies: pages read the same on every run, and nothing ties one site's visits together.
    session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))
    return guard(session, parse_networks(options.fetch_allow_addresses))


def fetch_rules(options: Options) -> FetchRules:
    import requests

    from bot.documents.fetching import FetchRules

    return FetchRules(user_agent=user_agent(options.contact, f"requests/{requests.__version__}"),
                      connect_timeout=options.fetch_connect_timeout, read_timeout=options.fetch_read_timeout,
                      max_seconds=options.fetch_max_seconds, max_bytes=options.fetch_max_bytes,
                      max_redirects=options.fetch_max_redirects, retries=options.fetch_retries,
                      backoff=options.fetch_backoff, robots=options.fetch_robots)


def paragraph_rules(options: Options) -> ParagraphRules:
    from bot.documents.paragraphs import ParagraphRules

    return ParagraphRules(options.paragraph_min_chars, options.paragraph_max_chars)


def make_politeness(options: Options) -> Politeness:
    from bot.documents.politeness import Politeness

    return Politeness(options.fetch_delay)


def make_fetcher(options: Options, session: requests.Session, politeness: Politeness | None = None,
                 clock: Clock = system_clock) -> Fetcher:
    from bot.documents.fetching import Fetcher

    return Fetcher(session, fetch_rules(options), politeness or make_politeness(options), clock=clock)


def make_services(options: Options, session: requests.Session, politeness: Politeness | None = None
                  ) -> ServiceClient:
    from bot.documents.services import ServiceClient

    rules = fetch_rules(options)
    return ServiceClient(session, user_agent=rules.user_agent, contact=options.contact,
                         timeout=(rules.connect_timeout, rules.read_timeout), retries=rules.retries,
                         backoff=rules.backoff, politeness=politeness or make_politeness(options))


def make_wayback(options: Options, client: ServiceClient) -> Wayback | None:
    from bot.documents.archive import Wayback

    if not options.archive_enabled:
        return None
    return Wayback(client, availability_url=options.archive_availability_url, cdx_url=options.archive_cdx_url,
                   web_url=options.archive_web_url)


def make_search(options: Options, client: ServiceClient) -> SearchBackend | None:
    from bot.documents.search import BraveBackend, SearxngBackend

    if options.search_backend == "searxng":
        return SearxngBackend(client, options.search_url, language=options.search_language)
    if options.search_backend == "brave":
        return BraveBackend(client, options.search_api_key, options.search_url)
    return None


def fetch_document(options: Options, url: str, *, access_date: date | None = None, archive_url: str = "",
                   cache: bool = True) -> Retrieved:
    """One URL as a check fetches a grounding document (politeness, robots.txt, size cap, the archive for a dead
    page: ``archive_url`` first, else a snapshot from before ``access_date``), read into paragraphs."""
    from bot.documents.retrieval import retrieve

    session, politeness = make_session(options, cache=cache), make_politeness(options)
    fetcher = make_fetcher(options, session, politeness)
    wayback = make_wayback(options, make_services(options, session, politeness))
    return retrieve(url, fetcher, paragraph_rules(options), wayback, access_date=access_date,
                    archive_url=archive_url)


def cited_sources(options: Options, item: str, *, cache: bool = True) -> tuple[Sitelink, Article] | None:
    """The item's article on ``options.wikipedia_wiki`` (its sitelink), read as Parsoid HTML into paragraphs with
    the sources each cites; None when the item has no article there."""
    from bot.documents.wikipedia import article, sitelink

    session = make_session(options, cache=cache)
    client = make_services(options, session, make_politeness(options))
    link = sitelink(client, options.wikidata_api_url, item, options.wikipedia_wiki)
    if link is None:
        return None
    return link, article(client, link, options.wikipedia_article_url, options.wikipedia_chunk_chars)
