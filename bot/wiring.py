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
from collections.abc import Callable
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
from bot.distributed.names import tool_prefix
from bot.distributed.politeness import SharedPoliteness
from bot.documents.politeness import HostTurns, Politeness
from bot.documents.search import BraveBackend, SearchBackend, SearxngBackend
from bot.documents.services import ServiceClient
from bot.errors import ConfigError, ModelError
from bot.etiquette import require_contact, user_agent
from bot.judge.backend import Backend
from bot.judge.calibration import for_judge
from bot.judge.engine import Judge
from bot.judge.naming import Naming
from bot.judge.llama_backend import LlamaBackend
from bot.judge.openai_backend import MAX_RETRY_WAIT_S, OpenAIBackend
from bot.judge.openai_backend import make_session as judge_session
from bot.judge.prompts import template_by_id
from bot.judge.scripted import ScriptedBackend
from bot.judge.loading import LoadingBackend
from bot.judge.transformers_backend import TransformersBackend, judge_arithmetic, judge_name
from bot.options import (ArchiveOptions, AskOptions, CheckOptions, FetchOptions, JudgeOptions, Options,
                         SearchOptions, SparqlOptions, judge_urls, uses)
from bot.output.run_trace import TraceRecords
from bot.properties import PropertyProfiles
from bot.properties.cache import ProfileCache
from bot.redaction import redact_url
from bot.review.wikibase import PywikibotWiki
from bot.selection import ENDPOINTS, endpoint_url
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.page_language import SubjectNames
from bot.selection.related import RelatedLookup

# scripted: no model — every paragraph asked about supports its claim (P(yes) 0.9), a relation is the one whose
# words the text writes: for measuring refbot's own coordination (benchmarks/workers.py), never for real runs.
BACKENDS = ("transformers", "openai", "scripted")
# Request headers and parameters that may hold a secret; never written to the HTTP cache.
SECRET_HEADERS = ("Authorization", "Proxy-Authorization", "X-Subscription-Token", "X-API-Key")


def service_urls(options: Options) -> tuple[str, ...]:
    """The URLs refbot was configured to talk to (``bot.redaction``: their requests' query values are never
    written). The Wayback Machine's web address is left out: an archived copy is a document, evidence a reader must
    be able to open."""
    urls = (*judge_urls(options.judge.url), endpoint_url(options.sparql.endpoint), options.search.url,
            options.archive.availability_url, options.archive.cdx_url, options.wikipedia.article_url,
            options.wikidata.api_url)
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
        self._lock = threading.Lock()  # guards the two dicts
        self._building: dict[str, threading.RLock] = {}  # a part's own lock, held while it is built

    def _part(self, name: str, build: Any) -> Any:
        """The part, built once: two threads never build one part twice (nor load one model twice), while a part
        being built — a model loading — holds up only those that need it."""
        with self._lock:
            if name in self._built:
                return self._built[name]
            building = self._building.setdefault(name, threading.RLock())
        with building:
            with self._lock:
                if name in self._built:
                    return self._built[name]
            part = build()
            with self._lock:
                self._built[name] = part
            return part

    def built(self, name: str) -> bool:
        """Whether the part was built (or given) already: what a command can report without building it."""
        return name in self._built

    @property
    def endpoint(self) -> SparqlEndpoint | None:
        return self._part("endpoint", lambda: make_endpoint(self.options.sparql, self.options.contact))

    def require_endpoint(self) -> SparqlEndpoint:
        endpoint = self.endpoint
        if endpoint is None:
            raise ConfigError("this command needs a SPARQL endpoint, and none is wired (offline)")
        return endpoint

    @property
    def http(self) -> requests.Session:
        """The session for pages and web APIs: private addresses refused, the HTTP cache unless it is off."""
        return self._part("http", lambda: make_session(self.options.fetch, self.options.contact))

    @property
    def politeness(self) -> HostTurns:
        """Each host's turn: in this process, or — with a queue ([queue] broker) — in Redis, for every worker."""
        fetch, broker = self.options.fetch, self.options.queue.broker
        prefix = tool_prefix(self.options)
        return self._part("politeness", lambda: SharedPoliteness.connect(broker, fetch.delay, prefix=prefix)
                          if broker else Politeness(fetch.delay))

    @property
    def services(self) -> ServiceClient:
        return self._part("services", lambda: make_services(
            self.options.fetch, self.options.contact, self.http, self.politeness))

    @property
    def fresh_services(self) -> ServiceClient:
        """The web APIs without the HTTP cache: answers that must be today's (the search box ``--ask`` links with)."""
        fetch, contact = self.options.fetch, self.options.contact
        return self._part("fresh_services", lambda: make_services(
            fetch, contact, make_session(fetch, contact, cache=False), self.politeness))

    @property
    def backend(self) -> Backend:
        """The judge's model: scores paragraphs (one forward pass, its key-value cache reused)."""
        return self._part("backend", lambda: make_backend(self.options.judge))

    @property
    def generator(self) -> Backend:
        """The model that writes ``--ask``'s candidate queries (:func:`make_generator`: llama.cpp on the judge
        model's GGUF where the judge runs in-process, the judge's own backend otherwise)."""
        return self._part("generator", lambda: make_generator(self.options.judge, self.options.ask,
                                                              lambda: self.backend))

    @property
    def judge(self) -> Judge:
        return self._part("judge", lambda: make_judge(self.options.judge, self.backend,
                                                      embed=self._embed if self.options.check.embeddings else None))

    @property
    def embedder(self) -> Embed | None:
        return self._part("embedder", lambda: make_embedder(self.options.check, self.options.judge))

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """The embedding model, loaded when first used: the judge compares the words a model names for an item
        with the item's names by it only where a text names an item another way."""
        embedder = self.embedder
        if embedder is None:
            raise ConfigError("embeddings are off", hint="set [check] embeddings = true")
        return embedder(texts)

    @property
    def profiles(self) -> PropertyProfiles:
        """Property profiles: the catalogue and the cache, and the endpoint unless offline."""
        return self._part("profiles", lambda: make_profiles(self.options, self.endpoint))

    @property
    def fetcher(self) -> Fetcher:
        rules = fetch_rules(self.options.fetch, self.options.contact)
        return self._part("fetcher", lambda: Fetcher(self.http, rules, self.politeness, clock=self.clock))

    @property
    def wayback(self) -> Wayback | None:
        return self._part("wayback", lambda: make_wayback(self.options.archive, self.services))

    @property
    def search(self) -> SearchBackend | None:
        return self._part("search", lambda: make_search(self.options.search, self.services))

    @property
    def entity_search(self) -> Lookup:
        """Where ``--ask`` looks up the names in a question: the Wikidata API's search box, or the endpoint."""
        def build() -> Lookup:
            language = self.options.languages[0]
            if self.options.ask.entities == "endpoint":
                return EndpointSearch(self.require_endpoint(), language)
            return EntitySearch(self.fresh_services, self.options.wikidata.api_url, language)
        return self._part("entity_search", build)

    @property
    def related(self) -> RelatedLookup | None:
        def build() -> RelatedLookup | None:
            endpoint = self.endpoint
            return RelatedLookup(endpoint, self.options.languages) if endpoint is not None else None
        return self._part("related", build)

    @property
    def subject_names(self) -> SubjectNames | None:
        def build() -> SubjectNames | None:
            endpoint = self.endpoint
            return SubjectNames(endpoint, self.options.languages) if endpoint is not None else None
        return self._part("subject_names", build)

    @property
    def corroborator(self) -> Corroborator | None:
        """Authority records, when the options take evidence from them and an endpoint is wired."""
        def build() -> Corroborator | None:
            endpoint = self.endpoint
            if not uses(self.options.check.source, "kg") or endpoint is None:
                return None
            return make_corroborator(self.options, endpoint, self.fetcher, backend=self.backend,
                                     embed=self.embedder)
        return self._part("corroborator", build)

    @property
    def tools(self) -> Tools:
        """Everything one statement's check uses (the judge with its model loaded, the fetcher, the archive, the
        search engine, the embedding model, the property profiles, the records)."""
        return self._part("tools", self._tools)

    def _tools(self) -> Tools:
        options = self.options
        if uses(options.check.source, "web") and not options.search.backend and not self.built("search"):
            raise ConfigError("no web search engine is configured",
                              hint="set [search] backend and url (searxng or brave), or check --source kg or "
                                   "wikipedia")
        # The embedding model first: the judge's then loads in a thread of its own (bot.judge.loading), and models
        # load one at a time (bot.model_lock).
        embed = self.embedder if options.check.strategy == "ranked" else None
        judge = self.judge
        if options.check.strategy == "paper":
            # The published method asks the model about every paragraph; refbot's shortcut (a paragraph that does
            # not name the value is answered without the model) is a pre-ranking of its own.
            judge.template = replace(judge.template, require_object_mention=False)
        return Tools(judge, self.fetcher, paragraph_rules(options.paragraph), self.wayback,
                     self.search if uses(options.check.source, "web") else None,
                     embed, self.profiles, self.corroborator, self.clock, self.related, self.subject_names)

    @property
    def verify_tools(self) -> Tools:
        """What verifying a reference uses (`refbot verify`): the judge, the fetcher, the archive, the embedding
        model, the property profiles and the value's other names — no search engine and no authority records: it
        reads only the page the reference names."""
        def build() -> Tools:
            options = self.options
            embed = self.embedder if options.check.strategy == "ranked" else None  # before the judge's (_tools)
            return Tools(self.judge, self.fetcher, paragraph_rules(options.paragraph), self.wayback, None,
                         embed, self.profiles, None, self.clock, self.related, self.subject_names)
        return self._part("verify_tools", build)

    def wiki(self, *, live: bool) -> PywikibotWiki:
        """The wiki approved references are written to, through pywikibot: simulated (no login, no edit) unless
        ``live``."""
        return self._part(f"wiki ({'live' if live else 'simulated'})", lambda: PywikibotWiki(self.options, live=live))

    @property
    def records(self) -> TraceRecords:
        """How a run keeps each item and statement in its ledger: as trace elements, service URLs redacted."""
        return self._part("records", lambda: TraceRecords(service_urls(self.options)))


PARTS = tuple(name for name, value in vars(Wiring).items() if isinstance(value, property))


# -- the factories: options → one client each ---------------------------------------------------------------------

def make_endpoint(sparql: SparqlOptions, contact: str) -> SparqlEndpoint:
    url = endpoint_url(sparql.endpoint)
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"sparql endpoint {sparql.endpoint!r} is neither a URL nor one of "
                          f"{', '.join(ENDPOINTS)}", hint="set --endpoint or [sparql] endpoint")
    require_contact(url, contact, "the SPARQL endpoint")
    return SparqlEndpoint(url, user_agent(contact, f"SPARQLWrapper/{SPARQLWrapper.__version__}"),
                          timeout=sparql.timeout, retries=sparql.retries, backoff=sparql.backoff,
                          max_wait=sparql.max_wait, post_above=sparql.post_above)


def make_backend(judge: JudgeOptions) -> Backend:
    """The judge's model, where the options say it runs: the only place that builds its session or loads it."""
    backend: Backend
    if judge.backend == "openai":
        session = judge_session(retries=judge.retries, api_key=judge.api_key or None,
                                pool_size=judge.in_flight * 4,  # each judgement's continuations too
                                max_wait_s=min(MAX_RETRY_WAIT_S, judge.timeout))
        # The default model name is a local catalogue entry; a server is asked what it serves instead.
        served = judge.model if judge.model and judge.model != JudgeOptions().model else None
        backend = OpenAIBackend(session, judge_urls(judge.url), served, timeout_s=judge.timeout,
                                max_in_flight=judge.in_flight, context_tokens=judge.context or None, echo=judge.echo)
    elif judge.backend == "transformers":
        path = modelstore.resolve(judge.model, judge.model_cache, transformers=True)
        chosen = judge_arithmetic(path, judge.dtype)  # a missing model or an unknown arithmetic: refused now
        dtype = chosen.dtype if chosen is not None else judge.dtype
        # The model loads in a thread of its own while the statements are selected and their pages read.
        # Computed in float32, the weights load as they are from a float32 copy where one was made (`refbot models
        # fetch NAME --float32`): the same numbers, widened once rather than in every process.
        widened = modelstore.float32_copy(path) if dtype == "float32" else None
        backend = LoadingBackend(lambda: TransformersBackend(widened or path, threads=judge.threads,
                                                             context_tokens=judge.context or 8192, dtype=dtype),
                                 model_id=judge_name(path, chosen), arithmetic=chosen,
                                 max_in_flight=TransformersBackend.max_in_flight)
    elif judge.backend == "scripted":
        backend = ScriptedBackend(support=0.9, logprobs=_read_off, model_id="scripted")
    else:
        raise ConfigError(f"unknown judge backend {judge.backend!r}", hint=f"choose one of: {', '.join(BACKENDS)}")
    return backend


def _read_off(prefix: str, continuation: str) -> list[float]:
    """The scripted judge's relation scores: a word the text writes is likely, one it does not write is not."""
    text = prefix.lower()
    return [0.0 if word.lower() in text else -3.0 for word in continuation.split()]


def make_generator(judge: JudgeOptions, ask: AskOptions, backend: Callable[[], Backend]) -> Backend:
    """What writes ``--ask``'s candidate queries. Scoring and writing want different runtimes for the same weights:
    the judge scores with transformers (prompt log-probabilities over a reused key-value cache, which llama.cpp
    does not return), while its candidates — queries of ~100 tokens, mostly copied from the draft in the prompt —
    are written several times faster by llama.cpp on the model's GGUF
    (benchmarks/README.md, ``ask.py``). ``backend`` gives the judge's own backend, built only if it is chosen."""
    choice = ask.generator
    if choice == "auto":
        if judge.backend != "transformers":
            return backend()  # a server generates as it judges
        path = modelstore.resolve(judge.model, judge.model_cache)
        if path.suffix != ".gguf" or not path.is_file():
            return backend()  # a transformers directory of the user's own: no GGUF beside it
        choice = "llama"
    if choice == "judge":
        return backend()
    path = modelstore.resolve(judge.model, judge.model_cache)
    if not path.is_file():
        raise ModelError(f"{path} is no GGUF file: llama.cpp reads one",
                         hint="set [judge] model to a catalogue name or a .gguf file, or [ask] generator = judge")
    # Two slots: one keeps the question's prompt (a sample reads none of it again) while the other reads the
    # model's choice among candidates, so that the next question finds the worked example still read; that prompt
    # is kept on disk beside the models, so the next process does not read it again either.
    return LlamaBackend(path, threads=judge.threads, parallel=2, context_tokens=judge.context or 4096,
                        prompt_cache=judge.model_cache / "llama-prompts")


def make_judge(judge: JudgeOptions, backend: Backend, *, embed: Embed | None = None) -> Judge:
    """The judge over ``backend``: the template the options name, its calibration for this model; the words a
    model names for an item the text does not write are checked by names and stems, and by ``embed``'s similarity
    where it is given (``bot.judge.naming``)."""
    template = template_by_id(judge.template)
    return Judge(backend, template, threshold=judge.threshold, justify=judge.justify,
                 calibration=for_judge(backend.model_id, template.id), naming=Naming(embed=embed))


def make_embedder(check: CheckOptions, judge: JudgeOptions) -> Embed | None:
    """The embedding model (from the judge's model cache, on its threads), unless embeddings are off."""
    if not check.embeddings:
        return None
    return SentenceEmbedder(modelstore.resolve(check.embedding_model, judge.model_cache), threads=judge.threads)


def endpoint_name(sparql: SparqlOptions) -> str:
    """The endpoint as caches and traces name it: never its password or key."""
    return redact_url(endpoint_url(sparql.endpoint), service=True)


def make_profiles(options: Options, endpoint: SparqlEndpoint | None) -> PropertyProfiles:
    kept = options.properties
    cache = ProfileCache(Path(kept.cache), kept.cache_days) if kept.cache_days > 0 else None
    return PropertyProfiles(endpoint=endpoint, endpoint_name=endpoint_name(options.sparql) if endpoint else "",
                            cache=cache, languages=options.languages)


def make_corroborator(options: Options, endpoint: SparqlEndpoint, fetcher: Fetcher, *,
                      backend: Backend | None = None, embed: Embed | None = None) -> Corroborator:
    kept = options.properties
    cache = IdentifierCache(Path(kept.cache), kept.cache_days) if kept.cache_days > 0 else None
    return Corroborator(endpoint, fetcher, backend=backend, embed=embed, languages=options.languages, cache=cache,
                        endpoint_name=endpoint_name(options.sparql), top=options.check.kg_top,
                        max_records=options.check.kg_records)


def make_session(fetch: FetchOptions, contact: str, *, cache: bool = True) -> requests.Session:
    """A requests session that refuses private addresses (except those allowed) and, unless ``cache`` is
    False or ``fetch.cache_days`` is 0, answers repeated requests from the on-disk cache (asked after the
    address guard, kept apart per allow-list, within ``fetch.cache_days`` and ``fetch.cache_max_mb``)."""
    session: requests.Session
    if cache and fetch.cache_days > 0:
        session = http_cache.open_session(fetch.cache, days=fetch.cache_days, max_mb=fetch.cache_max_mb,
                                          ignored_parameters=SECRET_HEADERS)
    else:
        session = requests.Session()
    session.headers["User-Agent"] = user_agent(contact, f"requests/{requests.__version__}")
    # No cookies: pages read the same on every run, and nothing ties one site's visits together.
    session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))
    return guard(session, parse_networks(fetch.allow_addresses))


def make_services(fetch: FetchOptions, contact: str, session: requests.Session,
                  politeness: HostTurns) -> ServiceClient:
    rules = fetch_rules(fetch, contact)
    return ServiceClient(session, user_agent=rules.user_agent, contact=contact,
                         timeout=(rules.connect_timeout, rules.read_timeout), retries=rules.retries,
                         backoff=rules.backoff, politeness=politeness)


def make_wayback(archive: ArchiveOptions, client: ServiceClient) -> Wayback | None:
    if not archive.enabled:
        return None
    return Wayback(client, availability_url=archive.availability_url, cdx_url=archive.cdx_url,
                   web_url=archive.web_url)


def make_search(search: SearchOptions, client: ServiceClient) -> SearchBackend | None:
    if search.backend == "searxng":
        return SearxngBackend(client, search.url, language=search.language)
    if search.backend == "brave":
        return BraveBackend(client, search.api_key, search.url)
    return None
