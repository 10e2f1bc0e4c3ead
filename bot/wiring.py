"""The composition root: every client a command talks to, built here and nowhere else, once, from the options — or
taken as given, so that a test or a benchmark passes its own::

    parts = Wiring(options)                                 # nothing is built yet
    parts.endpoint                                          # built on first use, then kept
    Wiring(options, backend=ScriptedBackend(support=...))   # the judge over a scripted model; the rest as configured
    Wiring(options, endpoint=None)                          # offline: profiles from the catalogue, no records

A part is built at most once per :class:`Wiring`, from the parts it needs: one ``Wiring`` shared by the steps of a
command (``run --ask`` asks with the same model it then judges with) loads each model once per process. The
factories below are the only code that turns options into clients; the stages take their clients as parameters.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any

import requests
import SPARQLWrapper

from bot import modelstore
from bot.asking.entities import EndpointSearch, EntitySearch
from bot.asking.linking import Lookup
from bot.checking.embedding import SentenceEmbedder
from bot.checking.ranking import Embed
from bot.checking.statement import Tools
from bot.clock import Clock, system_clock
from bot.corroboration.identifiers import IdentifierCache
from bot.corroboration.stage import Corroborator
from bot.documents import cache as http_cache
from bot.documents import fetch_rules, paragraph_rules
from bot.documents.addresses import guard, parse_networks
from bot.documents.archive import Wayback
from bot.documents.fetching import Fetcher
from bot.documents.politeness import Politeness
from bot.documents.search import BraveBackend, SearchBackend, SearxngBackend
from bot.documents.services import ServiceClient
from bot.errors import ConfigError
from bot.etiquette import require_contact, user_agent
from bot.judge.backend import Backend
from bot.judge.calibration import for_judge
from bot.judge.engine import Judge
from bot.judge.openai_backend import MAX_RETRY_WAIT_S, OpenAIBackend
from bot.judge.openai_backend import make_session as judge_session
from bot.judge.prompts import template_by_id
from bot.judge.transformers_backend import TransformersBackend
from bot.options import Options, uses
from bot.output.runs import TraceRecords
from bot.properties import PropertyProfiles
from bot.properties.cache import ProfileCache
from bot.redaction import redact_url
from bot.selection import ENDPOINTS, endpoint_url
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.related import RelatedLookup

BACKENDS = ("transformers", "openai")
# Request headers and parameters that may hold a secret; never written to the HTTP cache.
SECRET_HEADERS = ("Authorization", "Proxy-Authorization", "X-Subscription-Token", "X-API-Key")


def service_urls(options: Options) -> tuple[str, ...]:
    """The URLs refbot was configured to talk to (``bot.redaction``: their requests' query values are never
    written). The Wayback Machine's web address is left out: an archived copy is a document, evidence a reader must
    be able to open."""
    urls = (options.judge_url, endpoint_url(options.sparql_endpoint), options.search_url,
            options.archive_availability_url, options.archive_cdx_url, options.wikipedia_article_url,
            options.wikidata_api_url)
    return tuple(url for url in urls if url and "://" in url)


class Wiring:
    """The parts of one command, each built on first use from the options and the parts it needs, then kept.
    ``given``: parts already built (their names are the properties below; ``endpoint=None`` means offline);
    ``clock`` stamps what the parts record (fetches, checks)."""

    def __init__(self, options: Options, *, clock: Clock = system_clock, **given: Any) -> None:
        unknown = set(given) - set(PARTS)
        if unknown:
            raise TypeError(f"Wiring has no part {', '.join(sorted(unknown))} (parts: {', '.join(PARTS)})")
        self.options = options
        self.clock = clock
        self._built: dict[str, Any] = dict(given)
        self._lock = threading.RLock()

    def _part(self, name: str, build: Any) -> Any:
        with self._lock:  # two statements' threads never load one model twice
            if name not in self._built:
                self._built[name] = build()
            return self._built[name]

    def built(self, name: str) -> bool:
        """Whether the part was built (or given) already: what a command can report without building it."""
        return name in self._built

    @property
    def endpoint(self) -> SparqlEndpoint | None:
        return self._part("endpoint", lambda: make_endpoint(self.options))

    def require_endpoint(self) -> SparqlEndpoint:
        endpoint = self.endpoint
        if endpoint is None:
            raise ConfigError("this command needs a SPARQL endpoint, and none is wired (offline)")
        return endpoint

    @property
    def http(self) -> requests.Session:
        """The session for pages and web APIs: private addresses refused, the HTTP cache unless it is off."""
        return self._part("http", lambda: make_session(self.options))

    @property
    def politeness(self) -> Politeness:
        return self._part("politeness", lambda: Politeness(self.options.fetch_delay))

    @property
    def services(self) -> ServiceClient:
        return self._part("services", lambda: make_services(self.options, self.http, self.politeness))

    @property
    def fresh_services(self) -> ServiceClient:
        """The web APIs without the HTTP cache: answers that must be today's (the search box ``--ask`` links with)."""
        return self._part("fresh_services", lambda: make_services(
            self.options, make_session(self.options, cache=False), self.politeness))

    @property
    def backend(self) -> Backend:
        """The judge's model: scores paragraphs (one forward pass, its key-value cache reused)."""
        return self._part("backend", lambda: make_backend(self.options))

    @property
    def generator(self) -> Backend:
        """The model that writes text (``--ask``'s candidate queries, justifications, relation picks): the judge's
        own backend, so that one model is loaded once."""
        return self._part("generator", lambda: self.backend)

    @property
    def judge(self) -> Judge:
        return self._part("judge", lambda: make_judge(self.options, self.backend))

    @property
    def embedder(self) -> Embed | None:
        return self._part("embedder", lambda: make_embedder(self.options))

    @property
    def profiles(self) -> PropertyProfiles:
        """Property profiles: the catalogue and the cache, and the endpoint unless offline."""
        return self._part("profiles", lambda: make_profiles(self.options, self.endpoint))

    @property
    def fetcher(self) -> Fetcher:
        return self._part("fetcher", lambda: Fetcher(self.http, fetch_rules(self.options), self.politeness,
                                                     clock=self.clock))

    @property
    def wayback(self) -> Wayback | None:
        return self._part("wayback", lambda: make_wayback(self.options, self.services))

    @property
    def search(self) -> SearchBackend | None:
        return self._part("search", lambda: make_search(self.options, self.services))

    @property
    def entity_search(self) -> Lookup:
        """Where ``--ask`` looks up the names in a question: the Wikidata API's search box, or the endpoint."""
        def build() -> Lookup:
            language = self.options.languages[0]
            if self.options.ask_entities == "endpoint":
                return EndpointSearch(self.require_endpoint(), language)
            return EntitySearch(self.fresh_services, self.options.wikidata_api_url, language)
        return self._part("entity_search", build)

    @property
    def related(self) -> RelatedLookup | None:
        def build() -> RelatedLookup | None:
            endpoint = self.endpoint
            return RelatedLookup(endpoint, self.options.languages) if endpoint is not None else None
        return self._part("related", build)

    @property
    def corroborator(self) -> Corroborator | None:
        """Authority records, when the options take evidence from them and an endpoint is wired."""
        def build() -> Corroborator | None:
            endpoint = self.endpoint
            if not uses(self.options.check_source, "kg") or endpoint is None:
                return None
            return make_corroborator(self.options, endpoint, self.fetcher, backend=self.generator,
                                     embed=self.embedder)
        return self._part("corroborator", build)

    @property
    def tools(self) -> Tools:
        """Everything one statement's check uses (the judge with its model loaded, the fetcher, the archive, the
        search engine, the embedding model, the property profiles, the records)."""
        return self._part("tools", self._tools)

    def _tools(self) -> Tools:
        options = self.options
        if uses(options.check_source, "web") and not options.search_backend and not self.built("search"):
            raise ConfigError("no web search engine is configured",
                              hint="set [search] backend and url (searxng or brave), or check --source kg or "
                                   "wikipedia")
        judge = self.judge
        if options.check_strategy == "paper":
            # The published method asks the model about every paragraph; refbot's shortcut (a paragraph that does
            # not name the value is answered without the model) is a pre-ranking of its own.
            judge.template = replace(judge.template, require_object_mention=False)
        ranked = options.check_strategy == "ranked"
        return Tools(judge, self.fetcher, paragraph_rules(options), self.wayback,
                     self.search if uses(options.check_source, "web") else None,
                     self.embedder if ranked else None, self.profiles, self.corroborator, self.clock, self.related)

    @property
    def records(self) -> TraceRecords:
        """How a run keeps each item and statement in its ledger: as trace elements, service URLs redacted."""
        return self._part("records", lambda: TraceRecords(service_urls(self.options)))


PARTS = tuple(name for name, value in vars(Wiring).items() if isinstance(value, property))


# -- the factories: options → one client each ---------------------------------------------------------------------

def make_endpoint(options: Options) -> SparqlEndpoint:
    url = endpoint_url(options.sparql_endpoint)
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"sparql endpoint {options.sparql_endpoint!r} is neither a URL nor one of "
                          f"{', '.join(ENDPOINTS)}", hint="set --endpoint or [sparql] endpoint")
    require_contact(url, options.contact, "the SPARQL endpoint")
    return SparqlEndpoint(url, user_agent(options.contact, f"SPARQLWrapper/{SPARQLWrapper.__version__}"),
                          timeout=options.sparql_timeout, retries=options.sparql_retries,
                          backoff=options.sparql_backoff, max_wait=options.sparql_max_wait,
                          post_above=options.sparql_post_above)


def make_backend(options: Options) -> Backend:
    """The judge's model, where the options say it runs: the only place that builds its session or loads it."""
    backend: Backend
    if options.judge_backend == "openai":
        session = judge_session(retries=options.judge_retries, api_key=options.judge_api_key or None,
                                pool_size=options.judge_in_flight * 4,  # each judgement's continuations too
                                max_wait_s=min(MAX_RETRY_WAIT_S, options.judge_timeout))
        # The default model name is a local catalogue entry; a server is asked what it serves instead.
        served = options.judge_model if options.judge_model and options.judge_model != Options().judge_model \
            else None
        backend = OpenAIBackend(session, options.judge_url, served, timeout_s=options.judge_timeout,
                                max_in_flight=options.judge_in_flight,
                                context_tokens=options.judge_context or None)
    elif options.judge_backend == "transformers":
        path = modelstore.resolve(options.judge_model, options.model_cache, transformers=True)
        backend = TransformersBackend(path, threads=options.threads,
                                      context_tokens=options.judge_context or 8192, dtype=options.judge_dtype)
    else:
        raise ConfigError(f"unknown judge backend {options.judge_backend!r}",
                          hint=f"choose one of: {', '.join(BACKENDS)}")
    return backend


def make_judge(options: Options, backend: Backend) -> Judge:
    """The judge over ``backend``: the template the options name, its calibration for this model."""
    template = template_by_id(options.template)
    return Judge(backend, template, threshold=options.threshold, justify=options.justify,
                 calibration=for_judge(backend.model_id, template.id))


def make_embedder(options: Options) -> Embed | None:
    if not options.check_embeddings:
        return None
    return SentenceEmbedder(modelstore.resolve(options.check_embedding_model, options.model_cache),
                            threads=options.threads)


def make_profiles(options: Options, endpoint: SparqlEndpoint | None) -> PropertyProfiles:
    cache = ProfileCache(Path(options.properties_cache), options.properties_cache_days) \
        if options.properties_cache_days > 0 else None
    # The name profiles are kept under in the cache and shown in traces: never the endpoint's password or key.
    name = redact_url(endpoint_url(options.sparql_endpoint), service=True) if endpoint else ""
    return PropertyProfiles(endpoint=endpoint, endpoint_name=name, cache=cache, languages=options.languages)


def make_corroborator(options: Options, endpoint: SparqlEndpoint, fetcher: Fetcher, *,
                      backend: Backend | None = None, embed: Embed | None = None) -> Corroborator:
    cache = IdentifierCache(Path(options.properties_cache), options.properties_cache_days) \
        if options.properties_cache_days > 0 else None
    return Corroborator(endpoint, fetcher, backend=backend, embed=embed, languages=options.languages, cache=cache,
                        endpoint_name=redact_url(endpoint_url(options.sparql_endpoint), service=True),
                        top=options.check_kg_top, max_records=options.check_kg_records)


def make_session(options: Options, *, cache: bool = True) -> requests.Session:
    """A requests session that refuses private addresses (except those allowed) and, unless ``cache`` is
    False or ``fetch_cache_days`` is 0, answers repeated requests from the on-disk cache (asked after the
    address guard, kept apart per allow-list, within ``fetch_cache_days`` and ``fetch_cache_max_mb``)."""
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


def make_services(options: Options, session: requests.Session, politeness: Politeness) -> ServiceClient:
    rules = fetch_rules(options)
    return ServiceClient(session, user_agent=rules.user_agent, contact=options.contact,
                         timeout=(rules.connect_timeout, rules.read_timeout), retries=rules.retries,
                         backoff=rules.backoff, politeness=politeness)


def make_wayback(options: Options, client: ServiceClient) -> Wayback | None:
    if not options.archive_enabled:
        return None
    return Wayback(client, availability_url=options.archive_availability_url, cdx_url=options.archive_cdx_url,
                   web_url=options.archive_web_url)


def make_search(options: Options, client: ServiceClient) -> SearchBackend | None:
    if options.search_backend == "searxng":
        return SearxngBackend(client, options.search_url, language=options.search_language)
    if options.search_backend == "brave":
        return BraveBackend(client, options.search_api_key, options.search_url)
    return None
