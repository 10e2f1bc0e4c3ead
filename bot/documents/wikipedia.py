"""Wikipedia's cited sources for an item: sitelink → article HTML and revision → cited paragraphs.

The article is read as Parsoid HTML (MediaWiki's REST API), whose citation markers and reference list are
structured. Wikipedia itself is never the evidence; the sources it cites are. Which wiki is read is
``wikipedia_wiki`` (default ``enwiki``); service URLs are configuration, so a mirror or a local world works too.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from bot.documents.citations import ArticleParagraph, Chunk, chunk_paragraphs, parse_article, revision_of
from bot.documents.services import ServiceClient
from bot.errors import InputError, ServiceError

DEFAULT_ARTICLE_URL = "https://{host}/w/rest.php/v1/page/{title}/html"


@dataclass(frozen=True)
class Sitelink:
    wiki: str
    title: str
    url: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc

    @property
    def path_title(self) -> str:
        return quote(self.title.replace(" ", "_"), safe="")


@dataclass(frozen=True)
class Article:
    sitelink: Sitelink
    revision: int | None
    paragraphs: tuple[ArticleParagraph, ...]
    chunks: tuple[Chunk, ...]

    @property
    def permalink(self) -> str:
        """The revision read, on the wiki the sitelink names (its scheme too: a mirror or a test wiki may be http)."""
        scheme = urlsplit(self.sitelink.url).scheme or "https"
        base = f"{scheme}://{self.sitelink.host}/w/index.php?title={self.sitelink.path_title}"
        return f"{base}&oldid={self.revision}" if self.revision else base


@dataclass(frozen=True)
class EntityInfo:
    """What the Wikidata API says of an item: its current revision and its article on one wiki."""

    item: str
    revision: int | None
    sitelink: Sitelink | None


def entity_info(client: ServiceClient, api_url: str, item: str, wiki: str) -> EntityInfo:
    """The item's revision and its article on ``wiki``. InputError for an item that does not exist."""
    answer = client.get_json("the Wikidata API", api_url, {
        "action": "wbgetentities", "ids": item, "props": "info|sitelinks/urls", "sitefilter": wiki,
        "format": "json", "formatversion": "2"})
    if not isinstance(answer, dict):
        raise ServiceError("answered JSON that is not an object", service="the Wikidata API", url=api_url)
    if "error" in answer:
        error = answer["error"] if isinstance(answer["error"], dict) else {}
        if error.get("code") == "no-such-entity":
            raise InputError(f"{item} does not exist on Wikidata", hint="check the item id")
        raise ServiceError(f"{error.get('code', 'error')}: {error.get('info', '')}".strip(),
                           service="the Wikidata API", url=api_url)
    entities = answer.get("entities") or {}
    # A redirected item comes back under the id it redirects to.
    entity = entities.get(item) or (next(iter(entities.values())) if len(entities) == 1 else None)
    if not isinstance(entity, dict):
        raise ServiceError(f"the answer has no entity {item}", service="the Wikidata API", url=api_url)
    if "missing" in entity:
        raise InputError(f"{item} does not exist on Wikidata", hint="check the item id")
    revision = entity.get("lastrevid")
    revision = revision if isinstance(revision, int) else None
    link = (entity.get("sitelinks") or {}).get(wiki)
    if not isinstance(link, dict) or not link.get("title"):
        return EntityInfo(item, revision, None)
    return EntityInfo(item, revision, Sitelink(wiki, str(link["title"]), str(link.get("url") or "")))


def official_websites(client: ServiceClient, api_url: str, item: str) -> tuple[str, ...]:
    """The item's official websites (P856 statements that are not deprecated), by ``wbgetclaims``."""
    answer = client.get_json("the Wikidata API", api_url, {
        "action": "wbgetclaims", "entity": item, "property": "P856", "format": "json"})
    if not isinstance(answer, dict) or "error" in answer:
        error = answer.get("error") if isinstance(answer, dict) else None
        info = error.get("info", "") if isinstance(error, dict) else "an answer that is not a JSON object"
        raise ServiceError(f"official websites of {item}: {info}", service="the Wikidata API", url=api_url)
    claims = (answer.get("claims") or {}).get("P856") or []
    websites = []
    for claim in claims if isinstance(claims, list) else []:
        if not isinstance(claim, dict) or claim.get("rank") == "deprecated":
            continue
        value = ((claim.get("mainsnak") or {}).get("datavalue") or {}).get("value")
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            websites.append(value)
    return tuple(websites)


def sitelink(client: ServiceClient, api_url: str, item: str, wiki: str) -> Sitelink | None:
    """The item's article on ``wiki``; None when it has none. InputError for an item that does not exist."""
    return entity_info(client, api_url, item, wiki).sitelink


def article(client: ServiceClient, link: Sitelink, url_template: str = DEFAULT_ARTICLE_URL,
            chunk_chars: int = 10_000) -> Article:
    """The article's paragraphs with resolved citations, its chunks, and the revision that was read."""
    if not link.url:
        raise ServiceError(f"the sitelink to {link.title!r} has no URL", service="the Wikidata API", url=link.wiki)
    url = url_template.format(host=link.host, title=link.path_title, wiki=link.wiki)
    response = client.get(f"Wikipedia ({link.wiki})", url)
    assert response is not None
    if "charset" not in response.headers.get("Content-Type", "").lower():
        response.encoding = "utf-8"  # Parsoid HTML is UTF-8; requests would guess ISO-8859-1 for text/html
    html = response.text
    revision = revision_of(html) or _revision_from_etag(response.headers.get("ETag", ""))
    paragraphs = parse_article(html)
    return Article(link, revision, tuple(paragraphs), tuple(chunk_paragraphs(paragraphs, chunk_chars)))


def _revision_from_etag(etag: str) -> int | None:
    """Parsoid's ETag is ``"<revision>/<render id>"`` (optionally weak)."""
    value = etag.removeprefix("W/").strip('"')
    head = value.split("/", 1)[0]
    return int(head) if head.isdecimal() else None
