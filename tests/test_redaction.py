"""No credential leaves refbot: one rule redacts every URL written to a trace, a report, an eval summary or an error
(``bot.redaction``), and the run files that may hold such values are readable by their owner only. Traces that
declare a DTD are refused before anything in them is expanded."""

from __future__ import annotations

import base64
import json
import stat
import time
from dataclasses import replace
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.output import trace as traces
from bot.checking.items import ItemContext
from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome, Search, StatementCheck
from bot.clock import fixed_clock
from bot.cli import main
from bot.datamodel import Claim, Judgement, Paragraph, Statement, Value, Verdict
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.documents.paragraphs import Document
from bot.documents.retrieval import Retrieved
from bot.documents.search import SearchResult
from bot.errors import BackendUnavailable, InputError, QueryError, ServiceError
from bot.evaluation.dataset import LabelledStatement
from bot.evaluation.ledger import LedgerWriter, judgement_record
from bot.evaluation.measure import settings, write_summary
from bot.evaluation.runner import evaluate
from bot.options import Options
from bot.judge.prompts import template_by_id
from bot.checking.ranking import rank
from bot.redaction import redact_text, redact_url
from bot.references import ProposedReference, quickstatements
from bot.review.applying import skip_reason
from bot.review.proposals import Proposal
from bot.output.run_trace import default_stem, run_trace, write_run
from bot.review.store import keep_for_review
from bot.ledger.ledger import RunLedger
from bot.check_run import Run
from bot.selection.binding import Query
from bot.selection.endpoint import SparqlEndpoint
from bot.selection.worklists import Worklist
from bot.checking.subject_check import NAMED
from bot.wiring import Wiring, service_urls
from servers import Reply

# Distinct secrets, so that finding none of them anywhere in a file means none leaked.
JUDGE_URL = "https://user:pw-JUDGE@judge.example/v1?api_key=KEY-ONE&k=KEY-TWO"
DOCUMENT_URL = "https://news.example/a?sig=SIG-THREE&page=2"
SECRETS = ("pw-JUDGE", "KEY-ONE", "KEY-TWO", "SIG-THREE")
TEXT = "Marta Novotná received the Purkyně Prize for Chemistry in 2021, the jury said on Tuesday in Prague."
STATEMENT = Statement("Q990201", "Marta Novotná", "Q990201$AAAA-1", "P166", "award received",
                      Value("wikibase-item", "Q990211", "Purkyně Prize for Chemistry"))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- the rule -----------------------------------------------------------------------------------------------------

def test_a_document_url_keeps_its_query_but_not_userinfo_nor_secret_looking_values():
    assert redact_url(DOCUMENT_URL) == "https://news.example/a?sig=…&page=2"
    assert redact_url("https://u:p@x.example/a?X-Amz-Signature=s&code=c&session_id=t&lang=en#access_token=z") == \
        "https://x.example/a?X-Amz-Signature=…&code=…&session_id=…&lang=en#access_token=…"
    for name in ("passwd", "apikey", "access_token", "credential", "sid", "secret", "auth", "token", "signature"):
        assert redact_url(f"https://x.example/?{name}=V&q=1") == f"https://x.example/?{name}=…&q=1"


def test_a_url_with_no_host_keeps_its_slashes_so_a_message_names_the_path_it_means():
    """sqlite:///runs.sqlite is relative and sqlite:////srv/runs.sqlite absolute: a redacted message must keep that."""
    assert redact_url("sqlite:///reports/runs.sqlite") == "sqlite:///reports/runs.sqlite"
    assert redact_url("sqlite:////srv/refbot/runs.sqlite?token=t") == "sqlite:////srv/refbot/runs.sqlite?token=…"
    assert redact_text("refused sqlite:///etc/passwd.") == "refused sqlite:///etc/passwd."
    assert redact_url("file:///etc/hosts") == "file:///etc/hosts"


def test_a_service_url_hides_every_query_value_whatever_its_name():
    assert redact_url(JUDGE_URL, service=True) == "https://judge.example/v1?api_key=…&k=…"
    services = ("http://127.0.0.1:8000/v1", "https://{host}/w/rest.php/v1/page/{title}/html")
    assert redact_url("http://a:b@127.0.0.1:8000/v1/chat/completions?k=K", services=services) == \
        "http://127.0.0.1:8000/v1/chat/completions?k=…"
    assert redact_url("https://de.wikipedia.org/w/rest.php/v1/page/X/html?t=1", services=services).endswith("t=…")
    # Under a service means under its path, whole segments: a page elsewhere on the host is a document.
    assert redact_url("http://127.0.0.1:8000/v10?k=1", services=services) == "http://127.0.0.1:8000/v10?k=1"


def test_the_configured_services_are_the_urls_refbot_talks_to_but_not_the_archives_copies():
    options = Options.flat(judge_url=JUDGE_URL, search_url="https://search.example/s?k=1", sparql_endpoint="qlever")
    services = service_urls(options)
    assert JUDGE_URL in services and "https://search.example/s?k=1" in services
    assert "https://qlever.cs.uni-freiburg.de/api/wikidata" in services
    assert options.archive.web_url not in services  # an archived copy is evidence: its query stays usable
    assert redact_text(f"cannot reach {JUDGE_URL}.", services=services) == \
        "cannot reach https://judge.example/v1?api_key=…&k=…."


# --- traces -------------------------------------------------------------------------------------------------------

def supported_check(url: str) -> StatementCheck:
    paragraph = Paragraph(TEXT, url, 1, 0, len(TEXT))
    ranked = replace(rank([paragraph], STATEMENT)[0], subject_rule=NAMED)
    fetched = Fetched(url, FetchOutcome.OK, final_url=url, status=200, content_type="text/html",
                      content=b"<html>...</html>", retrieved="2026-11-21T10:00:00Z",
                      reason=f"redirected from {url.replace('https://', 'https://bob:pw-JUDGE@')}")
    retrieved = Retrieved(url, fetched, Document(url, "html", TEXT, (paragraph,), title="Prize", language="en"))
    reference = ProposedReference(url, date(2026, 11, 21), "Prize", "en", quotation=TEXT)
    judgement = Judgement(Verdict.SUPPORTS, 0.91, "P(yes) 0.910", f"As {url} says.", "qwen", "refbot", 120, 1, 0.8)
    return StatementCheck(
        STATEMENT, Outcome.SUPPORTED, "1 supporting paragraph(s) in 1 document(s)", "2026-11-21T10:00:00Z", 3.2,
        (Search("searxng", "Marta Novotná Purkyně Prize", (SearchResult(url, "Prize", rank=1),)),),
        (DocumentCheck(Candidate(url, "search", "Prize", rank=1), retrieved, (Judged(ranked, judgement),), 0),),
        reference, quickstatements(STATEMENT, reference, "reference proposed by refbot"))


@pytest.fixture
def written_run(tmp_path):
    """A run kept in its ledger whose options hold credentials, with one statement supported by a page whose URL
    carries a signature; its trace and report written as `refbot run` writes them."""
    options = Options.flat(judge_backend="openai", judge_url=JUDGE_URL, search_backend="searxng",
                           search_url="https://search.example/?k=KEY-TWO", check_reports=tmp_path / "reports",
                           run_ledger=tmp_path / "runs.sqlite")
    judge = SimpleNamespace(model_id="qwen", template=template_by_id("refbot"), threshold=0.5)
    clock = fixed_clock("2026-11-24T10:00:00Z")
    parts = Wiring(options, clock=clock, judge=judge,  # the run only writes: nothing is called
                   tools=SimpleNamespace(judge=judge, embed=None, clock=clock))
    worklist = Worklist.of_items([STATEMENT.item])
    with RunLedger(options.run.ledger) as ledger:
        record = ledger.open_run("key", worklist.description)
        run = Run(parts, worklist, ledger, record, [STATEMENT], [STATEMENT], 0, 0, started=record.started)
        context = ItemContext(STATEMENT.item, STATEMENT.item_label, "https://www.wikidata.org", 2301234567)
        run._remember(context)
        run._record(context, supported_check(DOCUMENT_URL))
        result = run.result()
        tree = run_trace(result, ledger, parts)
        keep_for_review(ledger, result.run_id, tree)
        yield options, write_run(tree, default_stem(result, options.check.reports, ledger))


def test_a_runs_trace_and_report_show_no_credential_and_keep_the_documents_query(written_run):
    options, (xml, html) = written_run
    for path in (xml, html):
        text = path.read_text(encoding="utf-8")
        assert not [secret for secret in SECRETS if secret in text], path
        assert "https://news.example/a?sig=…&amp;page=2" in text or "https://news.example/a?sig=…&page=2" in text
    tree = traces.read(xml)
    ns = {"t": traces.NS}
    endpoints = {e.get("service"): e.get("url") for e in tree.iterfind("t:run/t:endpoint", ns)}
    assert endpoints["judge"] == "https://judge.example/v1?api_key=…&k=…"
    assert endpoints["search (searxng)"] == "https://search.example/?k=…"
    document = tree.find("t:item/t:statement/t:document", ns)
    assert document.get("url") == document.get("final-url") == "https://news.example/a?sig=…&page=2"
    assert document.findtext("t:reason", namespaces=ns) == "redirected from https://news.example/a?sig=…&page=2"
    assert tree.find("t:item/t:statement/t:reference", ns).get("url") == "https://news.example/a?sig=…&page=2"
    # The page's own text is evidence, quoted as published.
    assert "".join(tree.find("t:item/t:statement/t:document/t:judgement/t:paragraph", ns).itertext()) == TEXT


def test_a_runs_files_are_readable_by_their_owner_only(written_run):
    options, (xml, html) = written_run
    assert mode(xml) == mode(html) == mode(options.run.ledger) == 0o600
    assert not [secret for secret in SECRETS if secret.encode() in options.run.ledger.read_bytes()]


def test_a_reference_url_whose_value_was_withheld_is_not_written_to_wikidata():
    proposal = Proposal(guid=STATEMENT.guid, item=STATEMENT.item, item_label=STATEMENT.item_label,
                        property_id="P166", property_label="award received", datatype="wikibase-item",
                        value="Q990211", value_text="Purkyně Prize for Chemistry", item_revision=1, support=0.9,
                        url="https://news.example/a?sig=…&page=2", snaks=(), quickstatements="")
    assert "withheld" in skip_reason(proposal, {"mainsnak": {}})


# --- eval ---------------------------------------------------------------------------------------------------------

def test_the_eval_summary_and_judgements_show_no_credential_and_are_private(tmp_path):
    options = Options.flat(judge_backend="openai", judge_url=JUDGE_URL, judge_api_key="KEY-ONE",
                           sparql_endpoint="https://u:pw-JUDGE@sparql.example/q?key=KEY-TWO")
    made = settings(options, None, "look-up")
    assert made["relations"].endswith("https://sparql.example/q?key=…")
    out = tmp_path / "eval.jsonl"
    row = LabelledStatement("r1", Claim("Marta Novotná", "award received", "Purkyně Prize"), TEXT, True)
    writer = LedgerWriter(out)
    writer.append(judgement_record("r1", True, Judgement(Verdict.SUPPORTS, 0.9, "a", "", "qwen", "refbot", 10, 1,
                                                         0.1), made))
    writer.close()
    evaluation = evaluate([row], lambda: pytest.fail("every row is judged already"), out, template="refbot",
                          settings=made)
    summary = write_summary(evaluation, tmp_path / "data.jsonl", options, tmp_path / "eval.summary.json")
    text = summary.read_text(encoding="utf-8")
    assert not [secret for secret in SECRETS if secret in text + out.read_text(encoding="utf-8")]
    assert json.loads(text)["options"]["judge_url"] == "https://judge.example/v1?api_key=…&k=…"
    assert mode(summary) == mode(out) == 0o600


def test_property_profiles_are_cached_and_traced_under_the_endpoints_name_without_its_key(tmp_path):
    options = Options.flat(sparql_endpoint="https://u:pw-JUDGE@sparql.example/q?key=KEY-ONE",
                           properties_cache=tmp_path / "properties")
    endpoint = SparqlEndpoint(options.sparql.endpoint, "refbot/test (ops@example.org)")
    assert Wiring(options, endpoint=endpoint).profiles.endpoint_name == "https://sparql.example/q?key=…"


# --- errors -------------------------------------------------------------------------------------------------------

def test_a_query_error_names_the_endpoint_without_its_password_or_key():
    message = str(QueryError("refused", query="short", endpoint="https://u:p@sparql.example/q?key=K", status=400))
    assert "p@" not in message and "K" not in message
    assert "https://sparql.example/q?key=…" in message


def test_service_and_judge_errors_name_their_urls_without_credentials():
    error = ServiceError("answered https://u:pw-JUDGE@search.example/s?k=KEY-ONE", service="search",
                         url="https://u:pw-JUDGE@search.example/s?k=KEY-ONE")
    unavailable = BackendUnavailable(f"no answer from {JUDGE_URL}", url=JUDGE_URL)
    shown = f"{error} {error.url} {unavailable} {unavailable.url}"
    assert not [secret for secret in SECRETS if secret in shown]


def test_a_sparql_endpoint_with_credentials_sends_them_and_never_shows_them(recording_server):
    address = recording_server.url.replace("http://", "http://bob:pw-JUDGE@") + "/q?key=KEY-ONE"
    recording_server.script = lambda request: Reply(400, f"cannot parse the query sent to {address}")
    endpoint = SparqlEndpoint(address, "refbot/test (ops@example.org)", timeout=5.0, retries=0)
    with pytest.raises(QueryError) as raised:
        endpoint.select(Query("short", "SELECT ?item WHERE { ?item ?p ?o } LIMIT 1"))
    assert not [secret for secret in SECRETS if secret in str(raised.value)]
    assert "(HTTP 400)" in str(raised.value) and "/q?key=…" in str(raised.value)
    sent = recording_server.requests[0]
    assert sent.params["key"] == ["KEY-ONE"] and "query" in sent.params  # the endpoint's own parameter goes along
    assert sent.headers["Authorization"] == "Basic " + base64.b64encode(b"bob:pw-JUDGE").decode()


# --- DTDs ---------------------------------------------------------------------------------------------------------

BILLION_LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE trace [\n <!ENTITY lol "lol">\n'
                  + "".join(f' <!ENTITY lol{n} "{("&lol%s;" % (n - 1 or "")) * 10}">\n' for n in range(1, 10))
                  + ']>\n<trace xmlns="urn:refbot:trace:1">&lol9;</trace>\n')


@pytest.mark.parametrize("text", [
    '<?xml version="1.0"?>\n<!DOCTYPE trace [<!ENTITY x "boom">]>\n<trace xmlns="urn:refbot:trace:1">&x;</trace>',
    BILLION_LAUGHS,
    '<!-- a comment first --><!DOCTYPE trace SYSTEM "file:///etc/passwd"><trace xmlns="urn:refbot:trace:1"/>',
], ids=["entity", "billion-laughs", "external"])
def test_refbot_report_refuses_a_trace_with_a_dtd_in_one_line_naming_the_file(tmp_path, capsys, text):
    path = tmp_path / "trace.xml"
    path.write_text(text, encoding="utf-8")
    started = time.monotonic()
    assert main(["report", str(path)]) == 2
    assert time.monotonic() - started < 5
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"{path}: a trace has no DOCTYPE;" in error
    assert "boom" not in error and not (tmp_path / "trace.html").exists()


def test_a_utf16_trace_with_a_dtd_is_refused_too(tmp_path):
    path = tmp_path / "trace.xml"
    path.write_bytes('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE trace [<!ENTITY x "boom">]>'
                     '<trace xmlns="urn:refbot:trace:1">&x;</trace>'.encode("utf-16"))
    with pytest.raises(InputError, match="a trace has no DOCTYPE"):
        traces.read(path)


def test_a_ledger_element_with_a_dtd_is_refused():
    with pytest.raises(InputError, match="the run ledger: a trace has no DOCTYPE"):
        traces.from_string('<!DOCTYPE item [<!ENTITY x "boom">]><item xmlns="urn:refbot:trace:1">&x;</item>')


def test_a_documents_address_keeps_the_parameters_a_page_needs():
    from bot.redaction import redact_url

    kept = "https://news.example/a?author=smith&zipcode=60601&design=2&p=123&s=prize&page=2"
    assert redact_url(kept) == kept
    assert redact_url("https://news.example/a?apiKey=K&X-Amz-Signature=S&access_token=T&sessionid=I&code=C") == \
        "https://news.example/a?apiKey=…&X-Amz-Signature=…&access_token=…&sessionid=…&code=…"


@pytest.mark.parametrize("url, secret", [
    ("https://news.example/2021/06/article.html?page=2&author=novotna", False),
    ("https://reader:hunter2@news.example/article", True),
    ("https://api.example/v1/doc?api_key=abc", True), ("https://api.example/doc?apiKey=abc", True),
    ("https://cdn.example/file.pdf?X-Amz-Signature=abc&X-Amz-Date=1", True),
    ("https://site.example/callback#access_token=abc", True), ("https://site.example/page#section-2", False),
    ("https://site.example/?token", True), ("http://[::1", True),
])
def test_a_url_carries_a_secret_exactly_when_redaction_would_hide_part_of_it(url, secret):
    from bot.redaction import carries_secret

    assert carries_secret(url) is secret
    if url != "http://[::1":
        assert (redact_url(url) != url) is secret
