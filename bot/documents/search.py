"""Web search for grounding documents, behind one small interface.

Backends: SearXNG's JSON API (self-hostable, no key; enable ``json`` in its ``search.formats``) and the
Brave Search API (key from ``search_api_key`` / ``REFBOT_SEARCH_API_KEY``). Wikipedia and other Wikimedia
sites are never results: the method looks for the sources behind Wikipedia, not Wikipedia itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from bot.datamodel import Statement
from bot.documents.services import ServiceClient
from bot.errors import ConfigError, ServiceError
from bot.etiquette import is_wikimedia


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str = ""
    snippet: str = ""
    rank: int = 0
    engine: str = ""


class SearchBackend(Protocol):
    name: str

    def search(self, query: str, count: int) -> list[SearchResult]:
        """Up to about ``count`` results in the engine's order; ServiceError when the engine fails."""


def search_query(statement: Statement) -> str:
    """The published query shape: subject, property and object labels, Wikipedia excluded."""
    subject = statement.item_label or statement.item
    words = [f'"{subject}"' if " " in subject else subject, statement.property_label or statement.property_id,
             statement.value.text]
    return " ".join(word for word in words if word) + " -wikipedia"


def domain_matches(host: str, domains: Iterable[str]) -> bool:
    host = host.lower().rstrip(".")
    return any(host == domain or host.endswith("." + domain) for domain in (d.lower().lstrip(".") for d in domains))


def keep_results(results: Sequence[SearchResult], count: int, *, allow: Sequence[str] = (),
                 deny: Sequence[str] = ()) -> list[SearchResult]:
    """The first ``count`` results that are http(s), not Wikimedia, allowed and not denied, without repeats."""
    kept: list[SearchResult] = []
    seen: set[str] = set()
    for result in results:
        try:
            parts = urlsplit(result.url)
            host = parts.hostname or ""
            parts.port  # noqa: B018 (raises on a port that is not a number)
        except ValueError:  # an engine's malformed URL (a bad IPv6 literal, a port out of range) is no result
            continue
        key = result.url.split("#", 1)[0].rstrip("/")
        if parts.scheme not in ("http", "https") or not host or key in seen or is_wikimedia(result.url):
            continue
        if (allow and not domain_matches(host, allow)) or domain_matches(host, deny):
            continue
        seen.add(key)
        kept.append(result)
        if len(kept) == count:
            break
    return kept


class SearxngBackend:
    name = "searxng"

    def __init__(self, client: ServiceClient, url: str, *, language: str = "") -> None:
        if not url:
            raise ConfigError("the searxng search backend needs search_url",
                              hint="set [search] url = https://your-searxng.example/ or choose another backend")
        self.client = client
        self.url = url.rstrip("/")
        self.language = language

    def search(self, query: str, count: int) -> list[SearchResult]:
        params = {"q": query, "format": "json", "safesearch": "0"}
        if self.language:
            params["language"] = self.language
        answer = self.client.get_json("SearXNG", f"{self.url}/search", params)
        return _results(answer.get("results") if isinstance(answer, dict) else None, "content", self.url)


class BraveBackend:
    name = "brave"
    default_url = "https://api.search.brave.com/res/v1/web/search"

    def __init__(self, client: ServiceClient, api_key: str, url: str = "") -> None:
        if not api_key:
            raise ConfigError("the brave search backend needs an API key",
                              hint="set REFBOT_SEARCH_API_KEY or [search] api_key in refbot.ini")
        self.client = client
        self.api_key = api_key
        self.url = url or self.default_url

    def search(self, query: str, count: int) -> list[SearchResult]:
        answer = self.client.get_json("Brave Search", self.url, {"q": query, "count": str(min(max(count, 1), 20))},
                                      {"X-Subscription-Token": self.api_key})
        web = answer.get("web") if isinstance(answer, dict) else None
        return _results(web.get("results") if isinstance(web, dict) else [], "description", self.url,
                        engine="brave")


def _results(items: Any, snippet_key: str, url: str, engine: str = "") -> list[SearchResult]:
    if not isinstance(items, list):
        raise ServiceError("answered JSON without a results list", service="search", url=url,
                           hint="check that the URL is the search API's and that JSON output is enabled")
    results = []
    for rank, item in enumerate((i for i in items if isinstance(i, dict) and isinstance(i.get("url"), str)), 1):
        engines = item.get("engines")
        results.append(SearchResult(item["url"], str(item.get("title") or ""), str(item.get(snippet_key) or ""), rank,
                                    engine or (",".join(engines) if isinstance(engines, list) else
                                               str(item.get("engine") or ""))))
    return results


def web_search(backend: SearchBackend, statement: Statement, count: int, *, allow: Sequence[str] = (),
               deny: Sequence[str] = ()) -> tuple[str, list[SearchResult]]:
    """(query, kept results). Asks for more than ``count`` because excluded hosts are dropped afterwards."""
    query = search_query(statement)
    return query, keep_results(backend.search(query, count * 2 + 5), count, allow=allow, deny=deny)
