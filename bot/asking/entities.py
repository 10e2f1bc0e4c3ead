"""Entity lookups for linking (``bot.asking.linking.Lookup``): the Wikidata API's ``wbsearchentities``, which ranks
matches by label, alias and the entity's popularity, as the search box does; or, for a store with no API, the
endpoint's own labels and aliases (``entity-search.rq``: exact matches of a name's spellings, by sitelinks). Answers
are kept for the question, so an n-gram is asked once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.asking.linking import Candidate
from bot.datamodel import QID_PATTERN
from bot.errors import InputError, ServiceError
from bot.selection.binding import TEXT_PATTERN, bind, entity_id, load_query

if TYPE_CHECKING:
    from bot.documents.services import ServiceClient
    from bot.selection.endpoint import SparqlEndpoint

SERVICE = "the Wikidata API"
MAX_TEXT = 120  # characters of an n-gram sent as a search (wbsearchentities takes up to 250)


class EntitySearch:
    """``EntitySearch(client, api_url, "en")("Czech")`` → the items the search box offers for "Czech"."""

    def __init__(self, client: ServiceClient, api_url: str, language: str, *, limit: int = 7) -> None:
        self.client, self.api_url, self.language, self.limit = client, api_url, language, limit
        self.asked: dict[str, list[Candidate]] = {}

    def __call__(self, text: str) -> Sequence[Candidate]:
        key = " ".join(text.split())[:MAX_TEXT]
        if not key:
            return []
        if key not in self.asked:
            self.asked[key] = candidates(self.client.get_json(SERVICE, self.api_url, {
                "action": "wbsearchentities", "search": key, "language": self.language, "uselang": self.language,
                "type": "item", "limit": str(self.limit), "strictlanguage": "1", "format": "json",
                "formatversion": "2"}), self.api_url)
        return self.asked[key]


def candidates(answer: Any, api_url: str) -> list[Candidate]:
    """Pure: a ``wbsearchentities`` answer → candidates in its order. ServiceError for an error or a wrong shape."""
    if not isinstance(answer, dict):
        raise ServiceError("answered JSON that is not an object", service=SERVICE, url=api_url)
    if "error" in answer:
        error = answer["error"] if isinstance(answer["error"], dict) else {}
        raise ServiceError(f"{error.get('code', 'error')}: {error.get('info', '')}".strip(), service=SERVICE,
                           url=api_url)
    found = []
    for entry in answer.get("search") or []:
        if not isinstance(entry, dict) or not QID_PATTERN.match(str(entry.get("id", ""))):
            continue
        match = entry["match"] if isinstance(entry.get("match"), dict) else {}
        label = str(entry.get("label") or "")
        found.append(Candidate(str(entry["id"]), label, str(entry.get("description") or ""),
                               str(match.get("text") or label)))
    return found


class EndpointSearch:
    """``EndpointSearch(endpoint, "en")("Czech")`` → the items whose label or alias is "Czech" (or "czech"), the
    best linked first."""

    def __init__(self, endpoint: SparqlEndpoint, language: str) -> None:
        self.endpoint, self.language = endpoint, language
        self.asked: dict[str, list[Candidate]] = {}

    def __call__(self, text: str) -> Sequence[Candidate]:
        key = " ".join(text.split())[:MAX_TEXT]
        if not key or not TEXT_PATTERN.match(key):
            return []  # a name with other characters is no label this lookup can match
        if key not in self.asked:
            spellings = [key, key.casefold(), key[:1].upper() + key[1:], key.title()]
            if len(key) <= 6 and " " not in key:
                spellings.append(key.upper())  # an acronym: CTU, UNESCO
            spellings = list(dict.fromkeys(spellings))
            try:
                rows = self.endpoint.select(bind(load_query("entity-search"), text=spellings,
                                                 language=[self.language]))
            except InputError:
                rows = []
            found: dict[str, Candidate] = {}
            for row in rows:
                entity = entity_id(row["entity"].value)
                label = row["label"].value if row.get("label") is not None else row["matched"].value
                description = row["description"].value if row.get("description") is not None else ""
                found.setdefault(entity, Candidate(entity, label, description, row["matched"].value))
            self.asked[key] = list(found.values())
        return self.asked[key]
