"""``refbot doctor``: is this installation able to do its job? One finding per check, each with the fix.

Every stage is tried on a tiny built-in sample — HTML and PDF into paragraphs, the trace schema, the report
stylesheet, the SPARQL queries — so a library that is missing or broken shows up here, by name, and not as a web
full of unreadable pages. ``preflight`` runs the stage checks a check or run needs before it starts.

States: ``ok``; ``warn`` — something a command will need is not there yet but can be added (a model not fetched,
no contact, the demo's or the tests' tools); ``fail`` — something installed does not work.
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

from bot import __version__
from bot.errors import InternalError, RefbotError
from bot.faults import FIX
from bot.options import Options, default_config_file, load_options

OK, WARN, FAIL = "ok", "warn", "fail"
REINSTALL = "run scripts/setup, or `pip install -c constraints.txt -e .` in a checkout"
WIKIMEDIA = re.compile(r"(^|\.)(wikidata|wikipedia|wikimedia)\.org$")

SAMPLE_HTML = """<!doctype html><html lang="en"><head><title>A sample page | refbot doctor</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav><article><h1>A sample page</h1>
<p>Marta Novotná received the Purkyně Prize for Chemistry in 2021 for her work on catalysts that turn plastic
waste back into its building blocks, the jury of the Czech Chemical Society said on Monday.</p>
<p>The prize has been awarded every year since 1998 to a chemist who works in the Czech Republic and whose work
has been published in the previous five years; it carries a medal and a grant for the laboratory.</p>
</article><footer>© refbot doctor</footer></body></html>"""
SAMPLE_TEXT = ("Marta Novotna received the Purkyne Prize for Chemistry in 2021 for her work on catalysts that turn "
               "plastic waste back into its building blocks.")


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
    from bot.documents.paragraphs import ParagraphRules, extract

    document = extract(SAMPLE_HTML.encode("utf-8"), "text/html", "https://example.org/refbot-doctor",
                       ParagraphRules(min_chars=100), charset="utf-8")
    if document.extractor != "trafilatura" or len(document.paragraphs) != 2:
        raise Problem(FAIL, f"trafilatura found {len(document.paragraphs)} paragraph(s) in the sample, not 2 "
                            f"(extractor {document.extractor or 'none'})", REINSTALL)
    libraries = _versions("trafilatura", "lxml", "lxml_html_clean", "justext", "beautifulsoup4")
    return f"sample page → 2 paragraphs; {libraries}"


def pdf_paragraphs() -> str:
    from bot.documents.paragraphs import ParagraphRules, extract

    document = extract(sample_pdf(SAMPLE_TEXT), "application/pdf", "https://example.org/refbot-doctor.pdf",
                       ParagraphRules(min_chars=50))
    if len(document.paragraphs) != 1 or "Purkyne Prize" not in document.paragraphs[0].text:
        raise Problem(FAIL, f"pdfminer read {len(document.paragraphs)} paragraph(s) from the sample PDF, not 1",
                      REINSTALL)
    return "sample PDF → 1 paragraph; " + _versions("pdfminer.six")


def trace_schema() -> str:
    from bot import trace

    trace.schema()
    trace.validate(_sample_trace())
    return "xslt/trace.xsd compiles and accepts a sample trace; " + _versions("lxml")


def report_stylesheet() -> str:
    from bot.report import render

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


# The stages a check or a run goes through; tried before one starts (``preflight``).
STAGES: dict[str, Callable[[], str]] = {
    "html → paragraphs": html_paragraphs,
    "pdf → paragraphs": pdf_paragraphs,
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


def contact(options: Options) -> str:
    from urllib.parse import urlsplit

    from bot.selection import endpoint_url

    urls = (endpoint_url(options.sparql_endpoint), options.wikidata_api_url,
            options.wikipedia_article_url.replace("{host}", "wikipedia.org"))
    hosts = {urlsplit(url).hostname or "" for url in urls}
    wikimedia = sorted(host for host in hosts if WIKIMEDIA.search(host))
    if options.contact:
        return f"{options.contact} (sent in the User-Agent)"
    if not wikimedia:
        return "not set; no Wikimedia host is configured"
    raise Problem(WARN, f"not set; refbot will not query {', '.join(wikimedia)} without one",
                  "set contact = you@example.org under [refbot] in refbot.ini, or REFBOT_CONTACT")


def judge(options: Options) -> str:
    if options.judge_backend == "openai":
        from bot.judge.openai_backend import OpenAIBackend, make_session

        # Without a model name the backend asks the server which one it serves: that is the check.
        served = OpenAIBackend(make_session(retries=0, api_key=options.judge_api_key), options.judge_url,
                               timeout_s=10).model_id
        return f"openai server at {options.judge_url} serves {served}"
    import torch
    import transformers

    return (f"transformers {transformers.__version__}, torch {torch.__version__} "
            f"({'CUDA' if torch.cuda.is_available() else 'CPU'}); model {options.judge_model}")


def model(name: str, options: Options, *, needed_for: str, transformers: bool = False) -> str:
    """A catalogue model installed and verified by sha256; ``transformers``: the judge loads its bf16 copy."""
    from bot import modelstore

    if name not in modelstore.CATALOGUE:
        if not Path(name).expanduser().exists():
            raise Problem(FAIL, f"no model at {name}", "set [judge] model to a model file, directory or catalogue "
                                                       "name (`refbot models list`)")
        return f"{name} (a path; not in the catalogue, so not verified)"
    if not modelstore.installed(name, options.model_cache):
        fetch = f"refbot models fetch {name}" + (" --transformers" if transformers else "")
        raise Problem(WARN, f"{name} is not installed in {options.model_cache}; {needed_for} needs it", fetch)
    try:
        verified = modelstore.verify(name, options.model_cache)
    except RefbotError as error:
        raise Problem(FAIL, error.args[0], error.hint or f"refbot models fetch {name}") from error
    if transformers and not modelstore.transformers_path(name, options.model_cache).joinpath("config.json").exists():
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
    return found


def writable(options: Options) -> str:
    for folder in (options.check_reports, options.model_cache, options.fetch_cache.parent):
        probe = Path(folder)
        try:
            probe.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=probe):
                pass
        except OSError as error:
            raise Problem(FAIL, f"cannot write in {probe}: {error.strerror or error}",
                          "make the folder writable, or point the option that names it elsewhere") from error
    return f"reports ({options.check_reports}), model cache and HTTP cache can be written"


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
    findings += [
        _run("contact", lambda: contact(options)),
        _run("judge", lambda: judge(options)),
    ]
    if options.judge_backend == "transformers":
        findings.append(_run("judge model", lambda: model(options.judge_model, options, needed_for="the judge",
                                                          transformers=True)))
    if options.check_embeddings:
        findings.append(_run("embedding model", lambda: model(options.check_embedding_model, options,
                                                              needed_for="pre-ranking (or use --no-embeddings)")))
    findings += [_run("folders", lambda: writable(options)), _run("oxigraph (demo)", oxigraph),
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
        return Finding(name, FAIL, f"{type(error).__name__}: {_first_line(error)}", fix_for(error))


def fix_for(error: BaseException) -> str:
    """How to mend an exception raised by a broken install: the package to install where it can be told."""
    if isinstance(error, ImportError):
        moved = re.search(r"separate project (\w+)", str(error))
        missing = moved.group(1) if moved else _distribution(error.name or "")
        return f"pip install {missing}" if missing else REINSTALL
    return FIX


def _distribution(module: str) -> str:
    top = module.split(".")[0]
    if not top:
        return ""
    return (metadata.packages_distributions().get(top) or [top])[0]


def _versions(*distributions: str) -> str:
    shown = []
    for name in distributions:
        try:
            shown.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            shown.append(f"{name} (not installed)")
    return ", ".join(shown)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def sample_pdf(text: str) -> bytes:
    """A one-page PDF with ``text`` in Helvetica, built by hand (byte offsets and all) so the check needs nothing
    but the library it checks."""
    stream = f"BT /F1 10 Tf 40 760 Td ({text}) Tj ET".encode("latin-1")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1200 842] /Resources << /Font << /F1 4 0 R >> >> "
               b"/Contents 5 0 R >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
               b"<< /Title (refbot doctor) >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _sample_trace():
    from bot import trace

    info = trace.RunInfo(mode="check", started="2026-01-01T00:00:00Z", finished="2026-01-01T00:00:01Z",
                         duration_s=1.0, complete=True, judge_backend="transformers", model="doctor",
                         template="refbot", prompt_template="{claim}", threshold=0.5, strategy="ranked", top=3,
                         embeddings="none")
    return trace.assemble(info, [])
