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

SECRET_FIELDS = frozenset({"judge_api_key", "search_api_key", "apply_password"})
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
            "check", "run", "ask", "review", "apply")


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
class Options:
    judge_backend: str = "transformers"
    judge_model: str = "qwen2.5-coder-1.5b"
    judge_url: str = "http://127.0.0.1:8000/v1"
    judge_api_key: str = field(default="", repr=False)
    judge_timeout: float = 120.0
    judge_in_flight: int = 4
    judge_retries: int = 3
    judge_context: int = 0
    # The weights' type for the in-process transformers judge on a CPU: bfloat16 (half the memory) or float32.
    judge_dtype: str = "bfloat16"
    template: str = "refbot"
    # The calibrated support at or above which a paragraph supports; None: the calibration's own (chosen for
    # precision 0.95 on development data; 0.5 for a judge no calibration was fitted for).
    threshold: float | None = None
    justify: bool = False
    threads: int = 0
    model_cache: Path = field(default_factory=default_cache)
    # Who runs this copy of refbot (an email address or a user page URL): sent in the User-Agent, required by
    # Wikimedia's policy before any request to a Wikimedia host.
    contact: str = ""
    # Label languages in order of preference; an entity without a label in any of them is shown by its id.
    languages: tuple[str, ...] = ("en", "mul")
    # A reference made only of these properties does not count (imports are not evidence); empty: any does.
    ignored_reference_properties: tuple[str, ...] = ("P143", "P4656", "P813")
    sparql_endpoint: str = "wdqs"
    sparql_timeout: float = 70.0
    sparql_retries: int = 3
    sparql_backoff: float = 2.0
    sparql_max_wait: float = 300.0
    sparql_page_size: int = 100
    sparql_post_above: int = 2000
    # Fetching grounding documents ([fetch]): timeouts in seconds, sizes in bytes, the pause between two
    # requests to one host, an on-disk HTTP cache (0 days: none), addresses allowed despite being private.
    fetch_connect_timeout: float = 10.0
    fetch_read_timeout: float = 30.0
    fetch_max_seconds: float = 120.0
    fetch_max_bytes: int = 20_000_000
    fetch_max_redirects: int = 5
    fetch_retries: int = 2
    fetch_backoff: float = 2.0
    fetch_delay: float = 1.0
    fetch_robots: bool = True
    fetch_workers: int = 8
    fetch_cache: Path = field(default_factory=lambda: default_cache().parent / "http-cache.sqlite")
    fetch_cache_days: float = 30.0
    # The HTTP cache's file is kept under this many megabytes (MiB), the oldest entries deleted first.
    fetch_cache_max_mb: float = 500.0
    fetch_allow_addresses: tuple[str, ...] = ()
    # Paragraphs ([paragraph]): shorter blocks are dropped, longer ones split between sentences.
    paragraph_min_chars: int = 100
    paragraph_max_chars: int = 2000
    # Web search ([search]): backend searxng or brave (empty: no web search), its URL and key, results kept.
    search_backend: str = ""
    search_url: str = ""
    search_api_key: str = field(default="", repr=False)
    search_results: int = 5
    search_language: str = ""
    search_allow_domains: tuple[str, ...] = ()
    search_deny_domains: tuple[str, ...] = ()
    # The Wayback Machine ([archive]) for dead links.
    archive_enabled: bool = True
    archive_availability_url: str = "https://archive.org/wayback/available"
    archive_cdx_url: str = "https://web.archive.org/cdx/search/cdx"
    archive_web_url: str = "https://web.archive.org"
    # Wikipedia's cited sources ([wikipedia], [wikidata]): which wiki, where its Parsoid HTML is, chunk size.
    wikipedia_wiki: str = "enwiki"
    wikipedia_article_url: str = "https://{host}/w/rest.php/v1/page/{title}/html"
    wikipedia_chunk_chars: int = 10_000
    wikidata_api_url: str = "https://www.wikidata.org/w/api.php"
    # Checking statements ([check]): where evidence comes from (kg: the item's authority records read as RDF; web;
    # wikipedia: the sources its article cites; both: web and wikipedia; all: the three), the order paragraphs are
    # judged in (ranked: the best `top` paragraphs of each document that name the value and are about the item;
    # paper: every paragraph in document order, as published), documents per statement, statements checked at
    # once, embeddings.
    check_source: str = "all"
    # Search the web and Wikipedia's sources even for a statement an authority record corroborates.
    check_all_sources: bool = False
    # Authority records (kg): candidate facts kept per record (GPT-LODS's top K) and records read per item at most.
    check_kg_top: int = 5
    check_kg_records: int = 5
    check_strategy: str = "ranked"
    check_top: int = 3
    check_require_mention: bool = True
    check_require_subject: bool = True
    check_unnamed: int = 1
    check_documents: int = 8
    # Paragraphs of one document ranked at most (ranked): the best by the names they mention; the rest are never
    # embedded nor judged, which bounds what a huge page costs its statement.
    check_paragraphs: int = 200
    check_workers: int = 2
    check_embeddings: bool = True
    check_embedding_model: str = "all-minilm-l6-v2"
    check_reports: Path = Path("reports")
    # Property profiles ([properties]): phrases and contrasting properties looked up on the SPARQL endpoint are
    # kept on disk this many days (0: neither read nor write the cache; the catalogue still answers).
    properties_cache: Path = field(default_factory=lambda: default_cache().parent / "properties")
    properties_cache_days: float = 30.0
    # Scheduled runs ([run]): the ledger that makes a run resumable, and how long a checked statement rests.
    run_ledger: Path = Path("reports/runs.sqlite")
    run_recheck_days: float = 30.0
    # Worklists asked in plain words ([ask]): candidate queries the model writes, and the most items one returns.
    ask_candidates: int = 3
    ask_limit: int = 500
    # Where a question's names are looked up: the Wikidata API's search box (api), or the SPARQL endpoint's own
    # labels and aliases (endpoint: a local store or a Wikibase with no API).
    ask_entities: str = "api"
    # Curators' review ([review]): the name decisions are recorded with.
    review_curator: str = ""
    # Writes ([apply]): the BotPassword login name (Example@refbot); its password from REFBOT_APPLY_PASSWORD or
    # pywikibot's password file; seconds between edits (pywikibot's put_throttle), maxlag, retries and their wait;
    # where refbot keeps pywikibot's configuration; the published report the edit summary links to ({run}: the run).
    apply_user: str = ""
    apply_password: str = field(default="", repr=False)
    apply_password_file: str = ""
    apply_edit_delay: float = 10.0
    apply_maxlag: int = 5
    apply_retries: int = 3
    apply_retry_wait: float = 5.0
    apply_pywikibot_dir: Path = field(default_factory=lambda: default_cache().parent / "pywikibot")
    apply_report_url: str = ""

    def public(self) -> dict[str, Any]:
        """The options as they may be printed or recorded: secrets left out."""
        def shown(value: Any) -> str:
            return ",".join(value) if isinstance(value, tuple) else str(value)
        return {f.name: shown(getattr(self, f.name)) for f in fields(self) if f.name not in SECRET_FIELDS}


def _convert(name: str, raw: str) -> Any:
    kind = {f.name: f.type for f in fields(Options)}[name]
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
        if kind.startswith("tuple"):
            return tuple(part for part in raw.replace(",", " ").split() if part)
        return raw
    except ValueError:
        raise ConfigError(f"option {name} expects a {kind}, not {raw!r}") from None


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
    known = {f.name for f in fields(Options)}
    values: dict[str, Any] = {}
    for section in parser.sections():
        for key, raw in parser.items(section):
            name = key if section == "refbot" else f"{section}_{key}"
            if name in FROM_ENVIRONMENT_ONLY:
                raise ConfigError(f"{path}: [{section}] {key}: the BotPassword is not read from refbot.ini, which may "
                                  "sit in a repository", hint="export REFBOT_APPLY_PASSWORD, or set [apply] "
                                  "password_file to pywikibot's password file")
            if name not in known:
                raise ConfigError(f"{path}: unknown key [{section}] {key}",
                                  hint="see the README's configuration section")
            values[name] = _convert(name, raw)
    return values


def default_config_file(cwd: Path | None = None) -> Path | None:
    for candidate in ((cwd or Path.cwd()) / "refbot.ini",
                      Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "refbot" / "refbot.ini"):
        if candidate.is_file():
            return candidate
    return None


def _check(options: Options) -> Options:
    problems = [
        (options.threshold is not None and not 0.0 <= options.threshold <= 1.0, "threshold must be between 0 and 1"),
        (options.judge_timeout <= 0, "judge timeout must be more than 0 seconds"),
        (options.judge_in_flight < 1, "judge in-flight must be at least 1"),
        (options.judge_retries < 0, "judge retries cannot be negative"),
        (options.judge_context < 0, "judge context cannot be negative (0: ask the server or model)"),
        (options.judge_dtype not in ("bfloat16", "float32"), "judge dtype must be bfloat16 or float32"),
        (options.threads < 0, "threads cannot be negative (0: torch's default)"),
        (not options.languages, "languages needs at least one language code"),
        (options.sparql_timeout <= 0, "sparql timeout must be more than 0 seconds"),
        (options.sparql_retries < 0, "sparql retries cannot be negative"),
        (options.sparql_backoff < 0, "sparql backoff cannot be negative"),
        (options.sparql_max_wait < 0, "sparql max_wait cannot be negative"),
        (options.sparql_page_size < 1, "sparql page_size must be at least 1"),
        (options.sparql_post_above < 0, "sparql post_above cannot be negative"),
        (options.fetch_connect_timeout <= 0 or options.fetch_read_timeout <= 0 or options.fetch_max_seconds <= 0,
         "fetch timeouts must be more than 0 seconds"),
        (options.fetch_max_bytes < 1, "fetch max_bytes must be at least 1"),
        (options.fetch_max_redirects < 0 or options.fetch_retries < 0 or options.fetch_backoff < 0
         or options.fetch_delay < 0 or options.fetch_cache_days < 0,
         "fetch max_redirects, retries, backoff, delay and cache_days cannot be negative"),
        (options.fetch_workers < 1, "fetch workers must be at least 1"),
        (not options.fetch_cache_max_mb > 0, "fetch cache_max_mb must be more than 0 (cache_days = 0: no cache)"),
        (options.paragraph_min_chars < 0, "paragraph min_chars cannot be negative"),
        (options.paragraph_max_chars < max(options.paragraph_min_chars, 50),
         "paragraph max_chars must be at least min_chars (and 50)"),
        (options.search_backend not in ("", "searxng", "brave"),
         f"search backend {options.search_backend!r} is not one of searxng, brave (or empty for none)"),
        (options.search_results < 1, "search results must be at least 1"),
        (options.wikipedia_chunk_chars < 1, "wikipedia chunk_chars must be at least 1"),
        (options.check_source not in SOURCES,
         f"check source {options.check_source!r} is not one of {', '.join(SOURCES)}"),
        (options.check_kg_top < 1, "check kg_top must be at least 1"),
        (options.check_kg_records < 1, "check kg_records must be at least 1"),
        (options.check_strategy not in ("ranked", "paper"),
         f"check strategy {options.check_strategy!r} is not one of ranked, paper"),
        (options.check_top < 1, "check top must be at least 1"),
        (options.check_documents < 1, "check documents must be at least 1"),
        (options.check_paragraphs < 1, "check paragraphs must be at least 1"),
        (options.check_workers < 1, "check workers must be at least 1"),
        (options.run_recheck_days < 0, "run recheck_days cannot be negative"),
        (not 1 <= options.ask_candidates <= 8, "ask candidates must be between 1 and 8"),
        (not 1 <= options.ask_limit <= 10_000, "ask limit must be between 1 and 10000"),
        (options.ask_entities not in ("api", "endpoint"),
         f"ask entities {options.ask_entities!r} is not one of api, endpoint"),
        (options.properties_cache_days < 0, "properties cache_days cannot be negative"),
        (options.apply_edit_delay < 0 or options.apply_retry_wait < 0 or options.apply_retries < 0,
         "apply edit_delay, retries and retry_wait cannot be negative"),
        (not 0 < options.apply_maxlag <= 30, "apply maxlag must be between 1 and 30 seconds (Wikidata asks for 5)"),
        ("{title}" not in options.wikipedia_article_url, "wikipedia article_url must contain {title}"),
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
        parse_networks(options.fetch_allow_addresses)
    except ValueError as error:
        raise ConfigError(f"fetch allow_addresses: {error}", hint="list addresses or networks, each with an "
                          "optional port, such as 10.0.0.5, 192.168.0.0/16, 127.0.0.1:8080, [::1]:8080") from None
    if not re.match(r"^[a-z][a-z0-9_]*wiki\Z", options.wikipedia_wiki):
        raise ConfigError(f"wikipedia wiki: not a Wikipedia site id: {options.wikipedia_wiki!r}",
                          hint="use a site id such as enwiki, cswiki, dewiki")
    for name in URL_OPTIONS:
        _check_url(name, getattr(options, name))
    check_contact(options.contact)
    return options


# Options that hold a URL (the SPARQL endpoint may instead be a name, such as wdqs); templates keep their {…}.
URL_OPTIONS = ("judge_url", "sparql_endpoint", "search_url", "archive_availability_url", "archive_cdx_url",
               "archive_web_url", "wikipedia_article_url", "wikidata_api_url", "apply_report_url")


def _check_url(name: str, value: str) -> None:
    """ConfigError naming the option when ``value`` does not parse as a URL (``http://[::1``, a port that is not a
    number), rather than a traceback from the first request."""

    if not value or (name == "sparql_endpoint" and "://" not in value):
        return
    try:
        urlsplit(value).port  # noqa: B018 (parses the host and the port, raising ValueError on either)
    except ValueError as error:
        section, key = section_key(name)
        default = {f.name: f.default for f in fields(Options)}[name]
        example = default if "://" in str(default) else "https://host.example/path"
        raise ConfigError(f"{section} {key}: not a URL: {value!r} ({error})",
                          hint=f"set [{section}] {key} to a URL such as {example}") from None


def load_options(config_file: Path | None = None, environ: Mapping[str, str] | None = None,
                 overrides: Mapping[str, Any] | None = None) -> Options:
    options = Options()
    path = config_file or default_config_file()
    if path is not None:
        options = replace(options, **_from_file(path))
    environ = os.environ if environ is None else environ
    from_env = {f.name: _convert(f.name, environ[f"REFBOT_{f.name.upper()}"])
                for f in fields(Options) if f"REFBOT_{f.name.upper()}" in environ}
    if "judge_api_key" not in from_env and environ.get("OPENAI_API_KEY"):
        from_env["judge_api_key"] = environ["OPENAI_API_KEY"]
    if "search_api_key" not in from_env and environ.get("BRAVE_API_KEY"):
        from_env["search_api_key"] = environ["BRAVE_API_KEY"]
    options = replace(options, **from_env)
    return _check(replace(options, **{k: v for k, v in (overrides or {}).items() if v is not None}))
