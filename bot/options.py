"""One options object, built from defaults ← configuration file ← environment ← command line.

The configuration file is INI (``refbot.ini`` in the working directory, ``~/.config/refbot/refbot.ini``, or
``--config PATH``); section ``[judge]`` holds the judge keys below without their ``judge_`` prefix, ``[sparql]``
the ``sparql_`` keys, and ``[refbot]`` the rest (``contact``, ``languages``, …). Lists are comma-separated.
Environment variables are ``REFBOT_`` plus the upper-case field name (``REFBOT_JUDGE_URL``). Secrets such
as ``REFBOT_JUDGE_API_KEY`` are read from the environment or the file, and never written anywhere.
"""

from __future__ import annotations

import configparser
import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from bot.datamodel import LANGUAGE_PATTERN, PID_PATTERN
from bot.errors import ConfigError
from bot.etiquette import check_contact
from bot.modelstore import default_cache

SECRET_FIELDS = frozenset({"judge_api_key", "search_api_key", "apply_password", "queue_prefix",
                           "service_client_secret", "service_secret_key"})
# Secrets only the environment gives: the bot's password, which can edit Wikidata.
FROM_ENVIRONMENT_ONLY = frozenset({"apply_password"})
# Where `refbot check` looks for evidence (``check_source``), and what each value takes in.
SOURCES = {"all": frozenset({"kg", "web", "wikipedia"}), "both": frozenset({"web", "wikipedia"}),
           "kg": frozenset({"kg"}), "web": frozenset({"web"}), "wikipedia": frozenset({"wikipedia"})}


def uses(source: str, kind: str) -> bool:
    """Whether ``check_source`` ``source`` takes evidence from ``kind`` (kg, web or wikipedia)."""
    return kind in SOURCES.get(source, frozenset())


# Configuration file sections; a field named <section>_<key> is written as "key" in [section], others in [refbot].
SECTIONS = ("judge", "properties", "sparql", "fetch", "paragraph", "search", "archive", "wikipedia", "wikidata",
            "check", "run", "queue", "ask", "review", "apply", "service")


def section_key(name: str) -> tuple[str, str]:
    """``fetch_delay`` → ("fetch", "delay"); ``contact`` → ("refbot", "contact")."""
    for section in SECTIONS:
        if name.startswith(section + "_"):
            return section, name[len(section) + 1:]
    return "refbot", name


def ini_text(values: dict[str, Any]) -> str:
    """Options as a configuration file's text: ``{"fetch_delay": 0}`` → ``[fetch]\ndelay = 0``."""
    lines: dict[str, list[str]] = {}
    for name, value in values.items():
        section, key = section_key(name)
        shown = ",".join(value) if isinstance(value, tuple) else str(value)
        lines.setdefault(section, []).append(f"{key} = {shown}")
    return "\n".join(f"[{section}]\n" + "\n".join(entries) + "\n" for section, entries in lines.items())


@dataclass(frozen=True)
class JudgeOptions:
    backend: str = "transformers"
    model: str = "qwen2.5-coder-1.5b"
    # The server's URL, or several (spaces or commas between) serving the same model: the requests are shared.
    url: str = "http://127.0.0.1:8000/v1"
    api_key: str = field(default="", repr=False)
    timeout: float = 120.0
    in_flight: int = 4  # requests at once on each server
    # Relations compared by their echoed prompt log-probabilities where the server gives them; no: by the first
    # token's generation log-probabilities (vLLM's V1 engine reads a request for prompt log-probabilities past its
    # prefix cache, in full).
    echo: bool = True
    retries: int = 3
    context: int = 0
    # The in-process transformers judge's arithmetic on a CPU: auto (bfloat16 where the CPU multiplies it natively,
    # float32 elsewhere: bot.judge.arithmetic), bfloat16 (half the memory) or float32.
    dtype: str = "auto"
    template: str = "refbot"
    # The calibrated support at or above which a paragraph supports; None: the calibration's own (chosen for
    # precision 0.95 on development data; 0.5 for a judge no calibration was fitted for).
    threshold: float | None = None
    justify: bool = False
    threads: int = 0
    model_cache: Path = field(default_factory=default_cache)


@dataclass(frozen=True)
class PropertiesOptions:
    """Property profiles ([properties]): phrases and contrasting properties looked up on the SPARQL endpoint are
    kept on disk this many days (0: neither read nor write the cache; the catalogue still answers)."""

    cache: Path = field(default_factory=lambda: default_cache().parent / "properties")
    cache_days: float = 30.0


@dataclass(frozen=True)
class SparqlOptions:
    endpoint: str = "wdqs"
    timeout: float = 70.0
    retries: int = 3
    backoff: float = 2.0
    max_wait: float = 300.0
    page_size: int = 100
    post_above: int = 2000


@dataclass(frozen=True)
class FetchOptions:
    """Fetching grounding documents ([fetch]): timeouts in seconds, sizes in bytes, the pause between two
    requests to one host, an on-disk HTTP cache (0 days: none), addresses allowed despite being private."""

    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    max_seconds: float = 120.0
    max_bytes: int = 20_000_000
    max_redirects: int = 5
    retries: int = 2
    backoff: float = 2.0
    delay: float = 1.0
    robots: bool = True
    workers: int = 8
    cache: Path = field(default_factory=lambda: default_cache().parent / "http-cache.sqlite")
    cache_days: float = 30.0
    # The HTTP cache's file is kept under this many megabytes (MiB), the oldest entries deleted first.
    cache_max_mb: float = 500.0
    allow_addresses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParagraphOptions:
    """Paragraphs ([paragraph]): shorter blocks are dropped, longer ones split between sentences."""

    min_chars: int = 100
    max_chars: int = 2000


@dataclass(frozen=True)
class SearchOptions:
    """Web search ([search]): backend searxng or brave (empty: no web search), its URL and key, results kept."""

    backend: str = ""
    url: str = ""
    api_key: str = field(default="", repr=False)
    results: int = 5
    language: str = ""
    allow_domains: tuple[str, ...] = ()
    deny_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArchiveOptions:
    """The Wayback Machine ([archive]) for dead links."""

    enabled: bool = True
    availability_url: str = "https://archive.org/wayback/available"
    cdx_url: str = "https://web.archive.org/cdx/search/cdx"
    web_url: str = "https://web.archive.org"


@dataclass(frozen=True)
class WikipediaOptions:
    """Wikipedia's cited sources ([wikipedia], [wikidata]): which wiki, where its Parsoid HTML is, chunk size."""

    wiki: str = "enwiki"
    article_url: str = "https://{host}/w/rest.php/v1/page/{title}/html"
    chunk_chars: int = 10_000


@dataclass(frozen=True)
class WikidataOptions:
    api_url: str = "https://www.wikidata.org/w/api.php"


@dataclass(frozen=True)
class CheckOptions:
    """Checking statements ([check]): where evidence comes from (kg: the item's authority records read as RDF;
    web; wikipedia: the sources its article cites; both: web and wikipedia; all: the three), the order paragraphs
    are judged in (ranked: the best `top` paragraphs of each document that name the value and are about the item;
    paper: every paragraph in document order, as published), documents per statement, statements checked at once,
    embeddings."""

    source: str = "all"
    # Search the web and Wikipedia's sources even for a statement an authority record corroborates.
    all_sources: bool = False
    # Authority records (kg): candidate facts kept per record (GPT-LODS's top K) and records read per item at most.
    kg_top: int = 5
    kg_records: int = 5
    strategy: str = "ranked"
    top: int = 3
    require_mention: bool = True
    require_subject: bool = True
    unnamed: int = 2
    # Units about the item judged besides in a page that never writes an item value, for the model to name the value
    # in their words (``bot.judge.naming``; each costs a generation): off unless asked for.
    naming: int = 0
    # Units about the item judged besides in a page that never writes an item value whole but writes a word of one of
    # its names in some form ("Treasury" of "Department of the Treasury", "Parliament" of "Member of the 1399
    # Parliament"): the model names the value in their words, refbot checks them (``bot.judge.naming``). Such a unit
    # is where the naming can be shown; at most this many a statement. Off by default: on wtr-dev's item statements it
    # found 2 of 69 more (1 supported, 1 undecided) at 15 % fewer statements an hour on a CPU (benchmarks/README.md).
    value_words: int = 0
    # Units about the item judged besides in a page in another alphabet than every name of an item value (a Russian
    # page, an English label: ``bot.values.names_beyond_reach``), where not finding the value says nothing.
    across: int = 2
    documents: int = 8
    # Paragraphs of one document ranked at most (ranked): the best by the names they mention; the rest are never
    # embedded nor judged, which bounds what a huge page costs its statement.
    paragraphs: int = 200
    workers: int = 2
    embeddings: bool = True
    embedding_model: str = "all-minilm-l6-v2"
    reports: Path = Path("reports")


@dataclass(frozen=True)
class RunOptions:
    """Scheduled runs ([run]): the ledger that makes a run resumable, and how long a checked statement rests."""

    # A SQLite file, or a database server's URL that any number of processes share: postgresql://USER@HOST/DB,
    # mysql+pymysql://USER@HOST/DB (the password from REFBOT_RUN_LEDGER_PASSWORD or ledger_credentials).
    ledger: Path | str = Path("reports/runs.sqlite")
    recheck_days: float = 30.0
    # A file with a [client] section (user, password), as Toolforge's replica.my.cnf: the server's credentials.
    ledger_credentials: str = ""


@dataclass(frozen=True)
class QueueOptions:
    """Runs that workers share ([queue]): the broker the tasks go through (Redis, which also holds each host's turn
    for every worker), items per task, and how long a task a worker took but never acknowledged (it died) waits
    before another worker gets it."""

    broker: str = ""  # redis://HOST:6379/0; "" no queue (refbot run checks in one process)
    batch: int = 1
    visibility_timeout: float = 3600.0  # seconds; longer than an item ever takes
    # What every Redis key refbot writes begins with (a Redis that many tools share, as Toolforge's, asks each tool
    # for a prefix of its own, kept secret); "" the ledger's database name.
    prefix: str = field(default="", repr=False)
    # A task that failed (a part unavailable, an unexpected error) is tried again this many times, the first after
    # retry_delay seconds, each next after twice as long (at most an hour); then its error is the run's.
    retries: int = 8
    retry_delay: float = 30.0


GENERATORS = ("auto", "llama", "judge")


@dataclass(frozen=True)
class AskOptions:
    """Worklists asked in plain words ([ask]): candidate queries the model writes, and the most items one
    returns."""

    candidates: int = 3
    limit: int = 500
    # Where a question's names are looked up: the Wikidata API's search box (api), or the SPARQL endpoint's own
    # labels and aliases (endpoint: a local store or a Wikibase with no API).
    entities: str = "api"
    # What writes the candidate queries: auto (llama.cpp in-process on the judge model's GGUF where the judge runs
    # in-process, several times faster on a CPU than transformers; the judge's own backend otherwise), llama, or
    # judge (the judge's backend: a server, or the transformers copy).
    generator: str = "auto"
    # A draft that reads every word of the question (bot.asking.draft) is taken as it is, without the model; no:
    # the model writes candidates for every question.
    take_complete_draft: bool = True


@dataclass(frozen=True)
class ReviewOptions:
    """Curators' review ([review]): the name decisions are recorded with."""

    curator: str = ""


@dataclass(frozen=True)
class ApplyOptions:
    """Writes ([apply]): the BotPassword login name (Example@refbot); its password from REFBOT_APPLY_PASSWORD or
    pywikibot's password file; seconds between edits (pywikibot's put_throttle), maxlag, retries and their wait;
    where refbot keeps pywikibot's configuration; the published report the edit summary links to ({run}: the
    run); the wiki page documenting the bot, which every edit summary links (default: the account's user page)."""

    user: str = ""
    password: str = field(default="", repr=False)
    password_file: str = ""
    edit_delay: float = 10.0
    maxlag: int = 5
    retries: int = 3
    retry_wait: float = 5.0
    pywikibot_dir: Path = field(default_factory=lambda: default_cache().parent / "pywikibot")
    report_url: str = ""
    documentation: str = ""

    @property
    def documentation_page(self) -> str:
        """``[apply] documentation``, else the bot account's user page (``User:Example`` for Example@refbot)."""
        user = self.user.partition("@")[0].strip()
        return self.documentation.strip() or (f"User:{user}" if user else "")


@dataclass(frozen=True)
class ServiceOptions:
    """The review queue as a web service ([service], `refbot serve-review`): its public address (the OAuth consumer's
    callback is URL/oauth/callback), the OAuth 2.0 provider's REST base (Wikimedia's for every wiki is Meta's), the
    consumer's key and secret (Special:OAuthConsumerRegistration), the key that encrypts the sessions kept in the
    ledger, who may decide (user names, or ``autoconfirmed``: any autoconfirmed account) and the sites whose pages may
    read the item API (the user script on Wikidata's item pages)."""

    url: str = ""
    oauth_url: str = "https://meta.wikimedia.org/w/rest.php"
    client_id: str = ""
    client_secret: str = field(default="", repr=False)
    secret_key: str = field(default="", repr=False)
    deciders: tuple[str, ...] = ("autoconfirmed",)
    cors_origins: tuple[str, ...] = ("https://www.wikidata.org", "https://m.wikidata.org")
    # Report pages put together at once (each about 10 MB); more requests wait up to 10 s, then get 503.
    reports_at_once: int = 2


@dataclass(frozen=True)
class Options:
    """Every setting, grouped by the part that reads it: each part is given its own section (``options.fetch`` to
    the fetcher, ``options.judge`` to the judge's backend), and what every part shares stays here. Outside the code a
    setting has one flat name — ``fetch_delay``, ``template`` — the same in the configuration file ([fetch] delay,
    [refbot] template), the environment (REFBOT_FETCH_DELAY) and the command line's options."""

    # Who runs this copy of refbot (an email address or a user page URL): sent in the User-Agent, required by
    # Wikimedia's policy before any request to a Wikimedia host.
    contact: str = ""
    # Label languages in order of preference; an entity without a label in any of them is shown by its id.
    languages: tuple[str, ...] = ("en", "mul")
    # A reference made only of these properties does not count (imports are not evidence); empty: any does.
    ignored_reference_properties: tuple[str, ...] = ("P143", "P4656", "P813")
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    properties: PropertiesOptions = field(default_factory=PropertiesOptions)
    sparql: SparqlOptions = field(default_factory=SparqlOptions)
    fetch: FetchOptions = field(default_factory=FetchOptions)
    paragraph: ParagraphOptions = field(default_factory=ParagraphOptions)
    search: SearchOptions = field(default_factory=SearchOptions)
    archive: ArchiveOptions = field(default_factory=ArchiveOptions)
    wikipedia: WikipediaOptions = field(default_factory=WikipediaOptions)
    wikidata: WikidataOptions = field(default_factory=WikidataOptions)
    check: CheckOptions = field(default_factory=CheckOptions)
    run: RunOptions = field(default_factory=RunOptions)
    queue: QueueOptions = field(default_factory=QueueOptions)
    ask: AskOptions = field(default_factory=AskOptions)
    review: ReviewOptions = field(default_factory=ReviewOptions)
    apply: ApplyOptions = field(default_factory=ApplyOptions)
    service: ServiceOptions = field(default_factory=ServiceOptions)

    @classmethod
    def flat(cls, **values: Any) -> Options:
        """The defaults with these settings, by their flat names: ``Options.flat(fetch_delay=0, contact="…")``."""
        return cls().replaced(**values)

    def replaced(self, **values: Any) -> Options:
        """These settings changed, by their flat names; TypeError for a name that is no setting."""
        sections: dict[str, dict[str, Any]] = {}
        shared: dict[str, Any] = {}
        for name, value in values.items():
            if name not in FLAT:
                raise TypeError(f"no setting named {name!r}")
            section, attribute, _ = FLAT[name]
            (sections.setdefault(section, {}) if section else shared)[attribute] = value
        changed = {section: replace(getattr(self, section), **given) for section, given in sections.items()}
        return replace(self, **shared, **changed)

    def value(self, name: str) -> Any:
        """A setting by its flat name: ``options.value("fetch_delay") == options.fetch.delay``."""
        section, attribute, _ = FLAT[name]
        return getattr(getattr(self, section) if section else self, attribute)

    def public(self) -> dict[str, Any]:
        """The settings as they may be printed or recorded, by their flat names: secrets left out."""
        def shown(value: Any) -> str:
            if isinstance(value, str) and "://" in value:  # a URL's password (the ledger's) is never shown
                return without_password(value)
            return ",".join(value) if isinstance(value, tuple) else str(value)
        return {name: shown(self.value(name)) for name in FLAT if name not in SECRET_FIELDS}


def judge_urls(url: str) -> list[str]:
    """``[judge] url``: one server's URL, or several, with spaces or commas between."""
    return [part for part in url.replace(",", " ").split() if part]


def without_password(url: str) -> str:
    """``postgresql://refbot:secret@db/refbot`` → ``postgresql://refbot:***@db/refbot``."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if not password:
        return url
    user, host = parts.netloc.rsplit("@", 1)
    return parts._replace(netloc=f"{user.split(':', 1)[0]}:***@{host}").geturl()


# The judge's settings that the configuration file keeps in [refbot] and that have no judge_ prefix.
UNPREFIXED = frozenset({"template", "threshold", "justify", "threads", "model_cache"})


def _flat_names() -> dict[str, tuple[str, str, str]]:
    """Flat name → (section, attribute, type); the section "" for the settings every part shares."""
    classes = {f.name: f.default_factory for f in fields(Options) if f.name in SECTIONS}
    names = {f.name: ("", f.name, str(f.type)) for f in fields(Options) if f.name not in SECTIONS}
    for section, kind in classes.items():
        for f in fields(kind):  # type: ignore[arg-type]
            flat = f.name if section == "judge" and f.name in UNPREFIXED else f"{section}_{f.name}"
            names[flat] = (section, f.name, str(f.type))
    return names


FLAT = _flat_names()


def _convert(name: str, raw: str) -> Any:
    kind = FLAT[name][2]
    try:
        if kind == "bool":
            lowered = raw.strip().lower()
            if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                raise ValueError(raw)
            return lowered in ("1", "true", "yes", "on")
        if kind == "int":
            return int(raw)
        if kind in ("float", "float | None"):
            return float(raw)
        if kind == "Path":
            return Path(raw).expanduser()
        if kind == "Path | str":  # a path, or a URL (which a Path would spoil: "postgresql:/host")
            return raw.strip() if "://" in raw else Path(raw).expanduser()
        if kind.startswith("tuple"):
            return tuple(part for part in raw.replace(",", " ").split() if part)
        return raw
    except ValueError:
        raise ConfigError(f"option {name} expects a {kind}, not {raw!r}") from None


def from_text(name: str, raw: str) -> Any:
    """A setting's value from its text, by its flat name (as the configuration file gives it); ConfigError when it
    does not read as the setting's type."""
    return _convert(name, raw)


def _from_file(path: Path) -> dict[str, Any]:
    # No interpolation: a % in a value (a URL's %20, a password) is the value's own.
    parser = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    try:
        with path.open(encoding="utf-8") as stream:
            parser.read_file(stream)
    except OSError as error:
        raise ConfigError(f"cannot read configuration file {path}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        line = path.read_bytes()[:error.start].count(b"\n") + 1
        raise ConfigError(f"configuration file {path} is not UTF-8 (line {line})",
                          hint="save it as UTF-8") from None
    except configparser.Error as error:
        raise ConfigError(f"configuration file {path} is not valid INI: {error.message}") from None
    values: dict[str, Any] = {}
    for section in parser.sections():
        for key, raw in parser.items(section):
            name = key if section == "refbot" else f"{section}_{key}"
            if name in FROM_ENVIRONMENT_ONLY:
                raise ConfigError(f"{path}: [{section}] {key}: the BotPassword is not read from refbot.ini, which may "
                                  "sit in a repository", hint="export REFBOT_APPLY_PASSWORD, or set [apply] "
                                  "password_file to pywikibot's password file")
            if name not in FLAT:
                raise ConfigError(f"{path}: unknown key [{section}] {key}",
                                  hint="see docs/configuration.md for every key")
            values[name] = _convert(name, raw)
    return values


def secrets_in(path: Path) -> list[str]:
    """The secrets a configuration file holds, as ``[section] key`` (never their values): a secret setting
    (SECRET_FIELDS: an API key, the queue's prefix) with a value, or a URL with a password in it (the ledger's)."""
    parser = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    try:
        with path.open(encoding="utf-8") as stream:
            parser.read_file(stream)
    except (OSError, UnicodeDecodeError, configparser.Error):
        return []
    found = []
    for section in parser.sections():
        for key, raw in parser.items(section):
            name = key if section == "refbot" else f"{section}_{key}"
            if (name in SECRET_FIELDS and raw.strip()) or ("://" in raw and without_password(raw) != raw):
                found.append(f"[{section}] {key}")
    return found


def default_config_file(cwd: Path | None = None) -> Path | None:
    for candidate in ((cwd or Path.cwd()) / "refbot.ini",
                      Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "refbot" / "refbot.ini"):
        if candidate.is_file():
            return candidate
    return None


def _check(options: Options) -> Options:
    problems = [
        (options.judge.threshold is not None and not 0.0 <= options.judge.threshold <= 1.0,
         "threshold must be between 0 and 1"),
        (options.judge.timeout <= 0, "judge timeout must be more than 0 seconds"),
        (options.judge.in_flight < 1, "judge in-flight must be at least 1"),
        (options.judge.retries < 0, "judge retries cannot be negative"),
        (options.judge.context < 0, "judge context cannot be negative (0: ask the server or model)"),
        (options.judge.dtype not in ("auto", "bfloat16", "float32"), "judge dtype must be auto, bfloat16 or float32"),
        (options.judge.threads < 0, "threads cannot be negative (0: the cores no other process keeps busy)"),
        (not options.languages, "languages needs at least one language code"),
        (options.sparql.timeout <= 0, "sparql timeout must be more than 0 seconds"),
        (options.sparql.retries < 0, "sparql retries cannot be negative"),
        (options.sparql.backoff < 0, "sparql backoff cannot be negative"),
        (options.sparql.max_wait < 0, "sparql max_wait cannot be negative"),
        (options.sparql.page_size < 1, "sparql page_size must be at least 1"),
        (options.sparql.post_above < 0, "sparql post_above cannot be negative"),
        (options.fetch.connect_timeout <= 0 or options.fetch.read_timeout <= 0 or options.fetch.max_seconds <= 0,
         "fetch timeouts must be more than 0 seconds"),
        (options.fetch.max_bytes < 1, "fetch max_bytes must be at least 1"),
        (options.fetch.max_redirects < 0 or options.fetch.retries < 0 or options.fetch.backoff < 0
         or options.fetch.delay < 0 or options.fetch.cache_days < 0,
         "fetch max_redirects, retries, backoff, delay and cache_days cannot be negative"),
        (options.fetch.workers < 1, "fetch workers must be at least 1"),
        (not options.fetch.cache_max_mb > 0, "fetch cache_max_mb must be more than 0 (cache_days = 0: no cache)"),
        (options.paragraph.min_chars < 0, "paragraph min_chars cannot be negative"),
        (options.paragraph.max_chars < max(options.paragraph.min_chars, 50),
         "paragraph max_chars must be at least min_chars (and 50)"),
        (options.search.backend not in ("", "searxng", "brave"),
         f"search backend {options.search.backend!r} is not one of searxng, brave (or empty for none)"),
        (options.search.results < 1, "search results must be at least 1"),
        (options.wikipedia.chunk_chars < 1, "wikipedia chunk_chars must be at least 1"),
        (options.check.source not in SOURCES,
         f"check source {options.check.source!r} is not one of {', '.join(SOURCES)}"),
        (options.check.kg_top < 1, "check kg_top must be at least 1"),
        (options.check.kg_records < 1, "check kg_records must be at least 1"),
        (options.check.strategy not in ("ranked", "paper"),
         f"check strategy {options.check.strategy!r} is not one of ranked, paper"),
        (options.check.top < 1, "check top must be at least 1"),
        (options.check.documents < 1, "check documents must be at least 1"),
        (options.check.paragraphs < 1, "check paragraphs must be at least 1"),
        (options.check.workers < 1, "check workers must be at least 1"),
        (options.run.recheck_days < 0, "run recheck_days cannot be negative"),
        (not 1 <= options.ask.candidates <= 8, "ask candidates must be between 1 and 8"),
        (not 1 <= options.queue.batch <= 1000, "queue batch must be between 1 and 1000 items a task"),
        (not 1 <= options.queue.visibility_timeout, "queue visibility_timeout must be at least 1 second"),
        (bool(options.queue.broker) and not options.queue.broker.startswith(("redis://", "rediss://", "unix://")),
         f"queue broker {without_password(options.queue.broker)!r} is not a Redis URL (redis://HOST:6379/0)"),
        (bool(re.search(r"[\s\x00-\x1f\x7f]", options.queue.prefix)) or len(options.queue.prefix) > 200,
         "queue prefix must be at most 200 characters, with no spaces or control characters"),
        (options.queue.retries < 0, "queue retries cannot be negative"),
        (not options.queue.retry_delay > 0, "queue retry_delay must be more than 0 seconds"),
        (not 1 <= options.ask.limit <= 10_000, "ask limit must be between 1 and 10000"),
        (options.ask.entities not in ("api", "endpoint"),
         f"ask entities {options.ask.entities!r} is not one of api, endpoint"),
        (options.ask.generator not in GENERATORS,
         f"ask generator {options.ask.generator!r} is not one of {', '.join(GENERATORS)}"),
        (options.properties.cache_days < 0, "properties cache_days cannot be negative"),
        (options.apply.edit_delay < 0 or options.apply.retry_wait < 0 or options.apply.retries < 0,
         "apply edit_delay, retries and retry_wait cannot be negative"),
        (not 0 < options.apply.maxlag <= 30, "apply maxlag must be between 1 and 30 seconds (Wikidata asks for 5)"),
        (bool(re.search(r"[][{}|<>#\n]", options.apply.documentation)),
         "apply documentation must be a wiki page title (such as User:Example/refbot), with no [ ] { } | < > #"),
        ("{title}" not in options.wikipedia.article_url, "wikipedia article_url must contain {title}"),
    ]
    for wrong, message in problems:
        if wrong:
            raise ConfigError(message)
    for language in options.languages:
        if not LANGUAGE_PATTERN.match(language):
            raise ConfigError(f"not a language code: {language!r}", hint="use codes such as en, de, pt-br, mul")
    for property_id in options.ignored_reference_properties:
        if not PID_PATTERN.match(property_id):
            raise ConfigError(f"ignored_reference_properties: not a property id: {property_id!r}",
                              hint="list property ids such as P143, P4656, P813")
    from bot.documents.addresses import parse_networks

    try:
        parse_networks(options.fetch.allow_addresses)
    except ValueError as error:
        raise ConfigError(f"fetch allow_addresses: {error}", hint="list addresses or networks, each with an "
                          "optional port, such as 10.0.0.5, 192.168.0.0/16, 127.0.0.1:8080, [::1]:8080") from None
    if not re.match(r"^[a-z][a-z0-9_]*wiki\Z", options.wikipedia.wiki):
        raise ConfigError(f"wikipedia wiki: not a Wikipedia site id: {options.wikipedia.wiki!r}",
                          hint="use a site id such as enwiki, cswiki, dewiki")
    for name in URL_OPTIONS:
        for value in judge_urls(options.value(name)) if name == "judge_url" else [options.value(name)]:
            _check_url(name, value)
    if options.queue.broker.startswith(("redis://", "rediss://")):
        _check_url("queue_broker", options.queue.broker, example="redis://HOST:6379/0")
    check_contact(options.contact)
    return options


# Options that hold a URL (the SPARQL endpoint may instead be a name, such as wdqs); templates keep their {…}.
URL_OPTIONS = ("judge_url", "sparql_endpoint", "search_url", "archive_availability_url", "archive_cdx_url",
               "archive_web_url", "wikipedia_article_url", "wikidata_api_url", "apply_report_url", "service_url",
               "service_oauth_url")


def _check_url(name: str, value: str, *, example: str = "") -> None:
    """ConfigError naming the option when ``value`` does not parse as a URL (``http://[::1``, a port that is not a
    number), rather than a traceback from the first request."""

    if not value or (name == "sparql_endpoint" and "://" not in value):
        return
    try:
        urlsplit(value).port  # noqa: B018 (parses the host and the port, raising ValueError on either)
    except ValueError as error:
        section, key = section_key(name)
        default = Options().value(name)
        example = example or (default if "://" in str(default) else "https://host.example/path")
        raise ConfigError(f"{section} {key}: not a URL: {without_password(value)!r} ({error})",
                          hint=f"set [{section}] {key} to a URL such as {example}") from None


def load_options(config_file: Path | None = None, environ: Mapping[str, str] | None = None,
                 overrides: Mapping[str, Any] | None = None) -> Options:
    options = Options()
    path = config_file or default_config_file()
    from_file = _from_file(path) if path is not None else {}
    options = options.replaced(**from_file)
    environ = os.environ if environ is None else environ
    # A path set empty (`export REFBOT_MODEL_CACHE=`) is unset, as a shell user means it: its default, never ".".
    from_env = {name: _convert(name, environ[f"REFBOT_{name.upper()}"])
                for name in FLAT if f"REFBOT_{name.upper()}" in environ
                and not (FLAT[name][2].startswith("Path") and not environ[f"REFBOT_{name.upper()}"].strip())}
    if "judge_api_key" not in from_env and environ.get("OPENAI_API_KEY"):
        from_env["judge_api_key"] = environ["OPENAI_API_KEY"]
    if "search_api_key" not in from_env and environ.get("BRAVE_API_KEY"):
        from_env["search_api_key"] = environ["BRAVE_API_KEY"]
    options = options.replaced(**from_env)
    given = {**from_file, **from_env, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    options = options.replaced(**{k: v for k, v in (overrides or {}).items() if v is not None})
    if "run_ledger" not in given and "check_reports" in given:  # the ledger lives in the reports folder it names
        options = options.replaced(run_ledger=Path(options.check.reports) / "runs.sqlite")
    return _check(options)
