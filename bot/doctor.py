"""``refbot doctor``: is this installation able to do its job? One finding per check, each with the fix.

Every stage is tried on a tiny built-in sample — HTML and PDF into paragraphs, the trace schema, the report
stylesheet, the SPARQL queries — so a library that is missing or broken shows up here, by name, and not as a web
full of unreadable pages. ``preflight`` runs the stage checks a check or run needs before it starts.

States: ``ok``; ``warn`` — something a command may need is not there yet but can be added (no contact, a model's
transformers copy, the demo's or the tests' tools); ``fail`` — something installed does not work, or a model the
configuration uses (the embedded judge's, the embedding model) is not there: checking cannot work without it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import redis
import requests

from bot import __version__, modelstore
from bot.errors import InputError, InternalError, RefbotError
from bot.faults import FIX, REINSTALL, first_line
from bot.judge.arithmetic import arithmetic, weights_bytes
from bot.ledger.database import is_url, sqlite_problem
from bot.options import (JudgeOptions, Options, default_config_file, judge_urls, load_options, secrets_in,
                         without_password)
from bot.ledger.ledger import RunLedger

OK, WARN, FAIL = "ok", "warn", "fail"
WIKIMEDIA = re.compile(r"(^|\.)(wikidata|wikipedia|wikimedia)\.org$")
# Modules refbot imports under another name than the package that provides them.
PROVIDED_BY = {"bs4": "beautifulsoup4", "pdfminer": "pdfminer.six", "sklearn": "scikit-learn",
               "lxml_html_clean": "lxml_html_clean"}
# Packages a plain `pip install NAME` gets wrong: torch's CPU build comes first (scripts/setup).
NOT_BY_NAME = {"torch"}


@dataclass(frozen=True)
class Finding:
    check: str
    state: str  # ok, warn or fail
    detail: str
    fix: str = ""

    def line(self) -> str:
        fix = f" — fix: {self.fix}" if self.fix and self.state != OK else ""
        return f"{self.state.upper() if self.state == FAIL else self.state:<5} {self.check:<20} {self.detail}{fix}"


class Problem(Exception):
    """A check's finding that is not ok."""

    def __init__(self, state: str, detail: str, fix: str = "") -> None:
        super().__init__(detail)
        self.state, self.detail, self.fix = state, detail, fix


# -- the stages, on built-in samples ----------------------------------------------------------------------------
def html_paragraphs() -> str:
    found = _sample("text/html")
    libraries = _versions("trafilatura", "lxml", "lxml_html_clean", "justext", "beautifulsoup4")
    return f"sample page → {found}; {libraries}"


def pdf_paragraphs() -> str:
    return f"sample PDF → {_sample('application/pdf')}; {_versions('pdfminer.six')}"


def _sample(content_type: str) -> str:
    from bot.documents.paragraphs import ParagraphRules, extract
    from bot.documents.samples import SAMPLES

    sample = SAMPLES[content_type]
    document = extract(sample.content, content_type, sample.url, ParagraphRules(min_chars=50))
    if document.extractor != sample.extractor or len(document.paragraphs) != sample.paragraphs:
        raise Problem(FAIL, f"{len(document.paragraphs)} paragraph(s) found in the sample by "
                            f"{document.extractor or 'nothing'}, not {sample.paragraphs} by {sample.extractor}",
                      REINSTALL)
    return f"{sample.paragraphs} paragraph(s)"


def trace_schema() -> str:
    from bot.output import trace

    trace.schema()
    trace.validate(_sample_trace())
    return "xslt/trace.xsd compiles and accepts a sample trace; " + _versions("lxml")


def report_stylesheet() -> str:
    from bot.output.report import render

    html = render(_sample_trace())
    if "<html" not in html.lower():
        raise Problem(FAIL, "xslt/report.xsl rendered no HTML page from the sample trace", REINSTALL)
    return "xslt/report.xsl renders the sample trace"


def sparql_queries() -> str:
    from rdflib.plugins.sparql import prepareQuery

    from bot.assets import asset_names, query_text

    names = asset_names("queries")
    for name in names:
        try:
            prepareQuery(query_text(name))
        except Exception as error:
            raise Problem(FAIL, f"queries/{name}.rq does not parse: {type(error).__name__}: {error}",
                          "restore the file from the checkout (git checkout queries/)") from error
    return f"{len(names)} queries in queries/ parse; " + _versions("SPARQLWrapper", "rdflib")


def property_catalogue() -> str:
    from bot.properties.catalogue import catalogue, curated_profile

    try:
        entries = catalogue()
    except InternalError as error:
        raise Problem(FAIL, str(error), "reinstall refbot (`pip install .`)") from error
    profile = curated_profile("P166")
    if profile is None or not profile.contrasts:
        raise Problem(FAIL, "the property catalogue has no profile for P166 (award received)",
                      "reinstall refbot (`pip install .`)")
    return f"{len(entries)} curated property profiles (P166: “{profile.phrase}”, against " \
           f"{', '.join(c.label for c in profile.contrasts)})"


# The stages a check or a run goes through; tried before one starts (``preflight``).
STAGES: dict[str, Callable[[], str]] = {
    "html → paragraphs": html_paragraphs,
    "pdf → paragraphs": pdf_paragraphs,
    "property catalogue": property_catalogue,
    "trace schema": trace_schema,
    "report stylesheet": report_stylesheet,
}


def preflight(names: Iterable[str] = tuple(STAGES)) -> None:
    """InternalError naming the component and the fix when one of the stages ``names`` (default: all of
    ``STAGES``) does not work on its sample."""
    for name in names:
        finding = _run(name, STAGES[name])
        if finding.state == FAIL:
            raise InternalError(f"refbot's {name} does not work: {finding.detail}", component=name,
                                hint=f"{finding.fix}; then `refbot doctor` checks the whole installation")


# -- the installation around the stages -------------------------------------------------------------------------
def dependencies() -> str:
    from packaging.requirements import Requirement

    wrong, missing = [], []
    requirements = [Requirement(text) for text in metadata.requires("refbot") or ()]
    required = [r for r in requirements if r.marker is None or r.marker.evaluate({"extra": ""})]
    for requirement in required:
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{requirement.name} is not installed")
            missing.append(requirement.name)
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            wrong.append(f"{requirement.name} {version} is installed, refbot needs {requirement.specifier}")
    if wrong:
        only_missing = len(missing) == len(wrong)
        raise Problem(FAIL, "; ".join(wrong), f"pip install {' '.join(missing)}" if only_missing else REINSTALL)
    return f"{len(required)} required packages installed at versions refbot accepts"


def configuration(config_file: Path | None, environ: Mapping[str, str]) -> tuple[str, Options]:
    path = config_file or default_config_file()
    options = load_options(config_file, environ)
    return (f"{path} read" if path else "no refbot.ini found; defaults and REFBOT_* variables"), options


def config_secrets(config_file: Path | None) -> str:
    """A configuration file that holds a secret (a password in the ledger's URL, an API key, the queue's prefix)
    is readable by its owner only: other users of the machine (a shared Toolforge bastion) could read it."""
    path = config_file or default_config_file()
    if path is None:
        return "no configuration file"
    secrets = secrets_in(path)
    if not secrets:
        return f"{path} holds no password, key or prefix"
    if path.stat().st_mode & 0o044:
        raise Problem(WARN, f"{path} holds secrets ({', '.join(secrets)}) and other users can read it "
                            f"(mode {path.stat().st_mode & 0o777:o})", f"chmod 600 {path}")
    return f"{path} holds secrets ({', '.join(secrets)}), readable by its owner only"


def contact(options: Options) -> str:
    from urllib.parse import urlsplit

    from bot.selection import endpoint_url

    urls = (endpoint_url(options.sparql.endpoint), options.wikidata.api_url,
            options.wikipedia.article_url.replace("{host}", "wikipedia.org"))
    hosts = {urlsplit(url).hostname or "" for url in urls}
    wikimedia = sorted(host for host in hosts if WIKIMEDIA.search(host))
    if options.contact:
        return f"{options.contact} (sent in the User-Agent)"
    if not wikimedia:
        return "not set; no Wikimedia host is configured"
    raise Problem(WARN, f"not set; refbot will not query {', '.join(wikimedia)} without one",
                  "set contact = you@example.org under [refbot] in refbot.ini, or REFBOT_CONTACT")


def judge(options: Options) -> str:
    if options.judge.backend == "openai":
        from bot.judge.openai_backend import OpenAIBackend, make_session

        from bot.redaction import redact_url

        # Without a model name the backend asks the server which one it serves: that is the first check.
        session = make_session(retries=0, api_key=options.judge.api_key)
        # [judge] model names the served model (every server must serve it); without it the server is asked
        wanted = options.judge.model if options.judge.model != JudgeOptions().model else None
        backend = OpenAIBackend(session, judge_urls(options.judge.url), wanted, timeout_s=30,
                                context_tokens=options.judge.context or None)
        where = redact_url(options.judge.url, service=True)
        context = backend.context_tokens()
        # refbot scores the first answer token's log-probabilities: a server that gives none cannot judge.
        choice = backend.choose([{"role": "user", "content": "Is Paris in France? Answer yes or no."}], ("yes", "no"))
        if not choice.probabilities:
            raise Problem(FAIL, f"the server at {where} answered without the log-probabilities of yes or no",
                          "serve the model with vLLM (`refbot serve-judge`) or llama.cpp's server, which give them")
        detail = (f"openai server at {where} serves {backend.model_id}: context {context} tokens, "
                  f"log-probabilities of the answer given")
        caching = _vllm_prefix_caching(session, backend.base_url)
        if caching is False:
            raise Problem(WARN, f"{detail}; vLLM's prefix caching is off (every paragraph's prompt is read in full)",
                          "start vLLM with --enable-prefix-caching, as `refbot serve-judge` does")
        return detail + ("; vLLM, prefix caching on" if caching else "")
    import torch
    import transformers

    return (f"transformers {transformers.__version__}, torch {torch.__version__} "
            f"({'CUDA' if torch.cuda.is_available() else 'CPU'}); model {options.judge.model}")


def judge_arithmetic(options: Options) -> str:
    """What the embedded judge computes in on this CPU ([judge] dtype; auto: bf16 only where it is native)."""
    try:
        path: Path | None = modelstore.resolve(options.judge.model, options.judge.model_cache, transformers=True)
    except RefbotError:  # no model yet ("judge model" says so): the CPU alone decides
        path = None
    chosen = arithmetic(options.judge.dtype, weights=weights_bytes(path) if path else 0)
    if chosen.dtype == "bfloat16" and not chosen.native_bf16 and not chosen.memory:
        raise Problem(WARN, f"{chosen.describe()}: torch emulates bf16 products here, about six times slower "
                            "than float32", "set [judge] dtype = auto (or float32)")
    if chosen.dtype == "float32" and path is not None and path.name == "transformers-bf16" \
            and modelstore.float32_copy(path) is None:
        return (f"{chosen.describe()}; each process widens the weights as it loads them "
                f"(`refbot models fetch {path.parent.name} --float32` keeps a float32 copy that loads as it is)")
    return chosen.describe()


def _vllm_prefix_caching(session, base_url: str) -> bool | None:
    """Whether a vLLM server caches prompt prefixes, from its /metrics (cache_config_info); None: not vLLM, or it
    does not say."""
    root = base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url
    try:
        response = session.get(f"{root}/metrics", timeout=10)
    except requests.RequestException:
        return None
    found = re.search(r'^vllm:cache_config_info\{[^}]*enable_prefix_caching="(\w+)"', response.text, re.MULTILINE) \
        if response.ok else None
    return None if found is None else found.group(1) == "True"


def model(name: str, options: Options, *, needed_for: str, transformers: bool = False) -> str:
    """A catalogue model installed and verified by sha256; ``transformers``: the judge loads its bf16 copy."""

    if name not in modelstore.CATALOGUE:
        if not Path(name).expanduser().exists():
            raise Problem(FAIL, f"no model at {name}", "set [judge] model to a model file, directory or catalogue "
                                                       "name (`refbot models list`)")
        return f"{name} (a path; not in the catalogue, so not verified)"
    if not modelstore.installed(name, options.judge.model_cache):
        fetch = f"refbot models fetch {name}" + (" --transformers" if transformers else "")
        # The configuration uses it: `refbot check` and `run` cannot do their job until it is fetched.
        raise Problem(FAIL, f"{name} is not installed in {options.judge.model_cache}; {needed_for} cannot work "
                            "without it", fetch)
    try:
        verified = modelstore.verify(name, options.judge.model_cache)
    except RefbotError as error:
        raise Problem(FAIL, error.args[0], error.hint or f"refbot models fetch {name}") from error
    copy = modelstore.transformers_path(name, options.judge.model_cache)
    if transformers and not copy.joinpath("config.json").exists():
        raise Problem(WARN, f"{name}: {verified}; no transformers copy yet (the CPU judge loads the GGUF slowly)",
                      f"refbot models fetch {name} --transformers")
    return f"{name}: {verified}"


def oxigraph() -> str:
    from bot.demo.sparql import oxigraph_binary

    try:
        return f"{oxigraph_binary()} ({_versions('oxigraph')})"
    except RefbotError as error:
        raise Problem(WARN, f"{error.args[0]}; only `refbot demo` and the tests need it",
                      "pip install -c constraints.txt -e '.[demo]'") from error


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        raise Problem(WARN, "not found (only the tests need it, to render the report headless)",
                      "apt-get install chromium (scripts/setup --test does)")
    driver = shutil.which("chromedriver")
    if not driver:
        raise Problem(WARN, f"{found}, but no chromedriver (the review page's browser tests need it)",
                      "apt-get install chromium-driver (scripts/setup --test does)")
    return f"{found}, {driver}"


def writes(options: Options) -> str:
    """Whether `refbot apply --live` has an account and a BotPassword (the password itself is never shown)."""
    if not options.apply.user:
        return "no account configured: `refbot apply` simulates; --live needs [apply] user and a BotPassword"
    if options.apply.password:
        source = "the BotPassword from the environment (REFBOT_APPLY_PASSWORD)"
    elif options.apply.password_file:
        from bot.review.wikibase import check_password_file

        try:
            path = check_password_file(options.apply.password_file)
        except RefbotError as error:
            raise Problem(FAIL, error.args[0], error.hint or "") from error
        if path.stat().st_mode & 0o077:
            raise Problem(WARN, f"{path} can be read by other users", f"chmod 600 {path}")
        source = f"the BotPassword in {path}"
    else:
        raise Problem(WARN, f"[apply] user {options.apply.user} has no BotPassword: apply --live will refuse",
                      "export REFBOT_APPLY_PASSWORD, or set [apply] password_file")
    from bot.redaction import redact_url

    return f"{options.apply.user} at {redact_url(options.wikidata.api_url, service=True)}, with {source}"


def writable(options: Options) -> str:
    for folder in (options.check.reports, options.judge.model_cache, options.fetch.cache.parent):
        probe = Path(folder)
        try:
            probe.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=probe):
                pass
        except OSError as error:
            raise Problem(FAIL, f"cannot write in {probe}: {error.strerror or error}",
                          "make the folder writable, or point the option that names it elsewhere") from error
    return f"reports ({options.check.reports}), model cache and HTTP cache can be written"


def run_ledger(options: Options) -> str:
    """A database ledger reachable and at the current shape (refbot migrates it); a SQLite one is made on first
    use in a folder the "folders" check tries. Nothing is made here: an existing file that is not a ledger, or a
    database with no ledger yet, is said as it is."""
    target = options.run.ledger
    if not is_url(target):
        path = Path(target)
        if not path.exists():
            return f"SQLite file {path} (made by the first `refbot run`)"
        problem = sqlite_problem(path)
        if problem:
            raise Problem(FAIL, f"{path} is not a run ledger: {problem}",
                          "set [run] ledger to the ledger's file, or to a new file's path")
        return f"SQLite file {path}"
    try:
        with RunLedger.of(options.run, create=False) as ledger:
            return f"{ledger.path}: reachable, its tables at the current shape"
    except InputError as error:  # reachable, and empty: the first run makes the tables
        return f"{error.args[0]}: the first `refbot run` makes its tables"


def queue(options: Options) -> str:
    """The broker of runs that workers share answers (none: `refbot run` checks in one process)."""
    broker = options.queue.broker
    if not broker:
        return "none: runs are checked in one process ([queue] broker for `run --enqueue` and `worker`)"
    try:
        redis.Redis.from_url(broker, socket_connect_timeout=5, socket_timeout=5).ping()
    except redis.RedisError as error:
        raise Problem(FAIL, f"Redis at {without_password(broker)} does not answer: {first_line(error)}",
                      "start Redis, or fix [queue] broker") from None
    return f"Redis at {without_password(broker)} answers"


def diagnose(config_file: Path | None = None, environ: Mapping[str, str] | None = None) -> list[Finding]:
    """Every check, in order; never raises for what it finds."""
    environ = os.environ if environ is None else environ
    findings = [Finding("refbot", OK, f"{__version__} on Python {sys.version.split()[0]} ({sys.executable})"),
                _run("dependencies", dependencies)]
    findings += [_run(name, stage) for name, stage in STAGES.items()]
    findings.append(_run("SPARQL queries", sparql_queries))
    try:
        detail, options = configuration(config_file, environ)
    except RefbotError as error:
        return findings + [Finding("configuration", FAIL, error.args[0], error.hint or "fix the file or the variable")]
    findings.append(Finding("configuration", OK, detail))
    findings.append(_run("config secrets", lambda: config_secrets(config_file)))
    findings += [
        _run("contact", lambda: contact(options)),
        _run("judge", lambda: judge(options)),
    ]
    if options.judge.backend == "transformers":
        findings.append(_run("judge model", lambda: model(options.judge.model, options, needed_for="the judge",
                                                          transformers=True)))
        findings.append(_run("judge arithmetic", lambda: judge_arithmetic(options)))
    if options.check.embeddings:
        findings.append(_run("embedding model", lambda: model(options.check.embedding_model, options,
                                                              needed_for="pre-ranking (or use --no-embeddings)")))
    findings += [_run("folders", lambda: writable(options)), _run("run ledger", lambda: run_ledger(options)),
                 _run("queue", lambda: queue(options)), _run("writes (apply)", lambda: writes(options)),
                 _run("oxigraph (demo)", oxigraph),
                 _run("chromium (tests)", chromium)]
    return findings


def _run(name: str, check: Callable[[], str]) -> Finding:
    try:
        return Finding(name, OK, check())
    except Problem as problem:
        return Finding(name, problem.state, problem.detail, problem.fix)
    except RefbotError as error:
        return Finding(name, FAIL, error.args[0], error.hint or REINSTALL)
    except Exception as error:  # what the check is for: a library that is missing or broken
        return Finding(name, FAIL, f"{type(error).__name__}: {first_line(error)}", fix_for(error))


def fix_for(error: BaseException) -> str:
    """How to mend an exception raised by a broken install: the package to install, where it is one of
    refbot's requirements; else reinstall."""
    if isinstance(error, ImportError):
        moved = re.search(r"separate project (\w+)", str(error))
        missing = _requirement_providing(moved.group(1) if moved else error.name or "")
        return f"pip install {missing}" if missing else REINSTALL
    return FIX


def _requirement_providing(module: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    top = module.split(".")[0]
    if not top:
        return ""
    installed = metadata.packages_distributions().get(top) or []
    candidate = PROVIDED_BY.get(top) or (installed[0] if installed else top)
    required = {canonicalize_name(Requirement(text).name): Requirement(text).name
                for text in metadata.requires("refbot") or ()}
    name = required.get(canonicalize_name(candidate), "")
    return "" if name in NOT_BY_NAME else name


def _versions(*distributions: str) -> str:
    shown = []
    for name in distributions:
        try:
            shown.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            shown.append(f"{name} (not installed)")
    return ", ".join(shown)


def _sample_trace():
    from bot.output import trace

    info = trace.RunInfo(mode="check", started="2026-01-01T00:00:00Z", finished="2026-01-01T00:00:01Z",
                         duration_s=1.0, complete=True, judge_backend="transformers", model="doctor",
                         template="refbot", prompt_template="{claim}", threshold=0.5, strategy="ranked", top=3,
                         embeddings="none")
    return trace.assemble(info, [])
