"""What refbot reads about an item before checking its statements: its revision, its official websites and its
Wikipedia article.

These are Wikimedia requests, made one at a time from the caller's thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from bot.documents.services import ServiceClient
from bot.documents.wikipedia import Article, article, entity_info, official_websites
from bot.errors import ServiceError


@dataclass(frozen=True)
class ItemContext:
    item: str
    label: str
    site_url: str  # the Wikidata site, for links: https://www.wikidata.org
    revision: int | None = None
    article: Article | None = None
    # Why the revision or the article could not be read (the statements are still checked, on the web).
    error: str = ""
    # Its official websites (P856): a page on one of them is about the item.
    websites: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"{self.site_url}/wiki/{self.item}"

    @property
    def permalink(self) -> str:
        return f"{self.site_url}/w/index.php?title={self.item}&oldid={self.revision}" if self.revision else self.url

    def statement_url(self, guid: str) -> str:
        """Wikidata gives each statement's element its GUID as id."""
        return f"{self.url}#{quote(guid, safe='$-')}"


def wikidata_site(api_url: str) -> str:
    """``https://www.wikidata.org/w/api.php`` → ``https://www.wikidata.org``."""
    base = api_url.split("?", 1)[0]
    for suffix in ("/w/api.php", "/api.php"):
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base.rstrip("/")


def read_item(client: ServiceClient, api_url: str, item: str, label: str, *, wiki: str, article_url: str,
              chunk_chars: int, want_article: bool = True) -> ItemContext:
    """InputError when the item does not exist; a failing service is recorded in ``error``."""
    site = wikidata_site(api_url)
    try:
        info = entity_info(client, api_url, item, wiki)
    except ServiceError as error:
        return ItemContext(item, label, site, error=str(error))
    try:
        websites = official_websites(client, api_url, item)
    except ServiceError:
        websites = ()  # only one way of knowing a page is about the item: its title and opening still are
    if info.sitelink is None or not want_article:
        return ItemContext(item, label, site, info.revision, websites=websites)
    try:
        read = article(client, info.sitelink, article_url, chunk_chars)
    except ServiceError as error:
        return ItemContext(item, label, site, info.revision, error=f"the {wiki} article: {error}", websites=websites)
    return ItemContext(item, label, site, info.revision, read, websites=websites)
