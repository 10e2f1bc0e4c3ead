"""`refbot serve-review`: the review queue as a web service. A curator signs in with their (demo) Wikimedia account
through the demo world's OAuth 2.0 provider stand-in, decides in Chromium, and each approved reference is written to
the demo Wikibase as that curator, once; a signed-out or unauthorised user reads but cannot decide; forms from
another site are refused; the item API answers the user script's origin."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import requests
from lxml import etree
from sqlalchemy import select

from bot.demo.wikibase import Account
from bot.demo.world import DemoWorld, free_port
from bot.errors import ConfigError
from bot.ledger.tables import run_elements, service_sessions
from bot.options import Options, load_options
from bot.output import trace as traces
from bot.review.lanes import Lanes
from bot.review.service import make_service
from bot.review.stoppable import StoppableServer
from bot.review.sessions import LedgerSessions
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger
from test_apply import PROPOSED, trace_of

CURATOR, PASSWORD = "Ada Curator", "ada-demo-password"
NEWCOMER, NEWCOMER_PASSWORD = "New Editor", "new-demo-password"
GUIDS = [guid for guid, *_ in PROPOSED]


@dataclass
class Service:
    world: DemoWorld
    options: Options
    url: str
    run_id: int
    stop: Any
    dispatcher: Any = None  # the server's task dispatcher, when the test gave it one

    def reviews(self) -> dict[str, Any]:
        store = ReviewLedger(RunLedger(self.options.run.ledger))
        try:
            return store.reviews(self.run_id)
        finally:
            store.ledger.close()

    def edits(self) -> list[Any]:
        return [revision for revision in self.world.wikibase.revisions if revision.action == "wbsetreference"]


def start_service(world: DemoWorld, tmp: Path, *, clock: Any = None, lanes: type[Lanes] | None = None,
                  threads: int = 4, **settings: Any) -> Service:
    trace = trace_of(world, tmp / "check.xml")
    store = ReviewLedger(RunLedger(tmp / "runs.sqlite"))
    run_id = store.import_trace(traces.read(trace), trace)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    consumer = world.oauth.register(url + "/oauth/callback")
    empty = tmp / "empty.ini"
    empty.write_text("", encoding="utf-8")
    options = load_options(config_file=empty, environ={}, overrides={
        **world.options(), "run_ledger": tmp / "runs.sqlite", "check_reports": tmp / "reports",
        "service_url": url, "service_oauth_url": world.oauth_url, "service_client_id": consumer.client_id,
        "service_client_secret": consumer.secret, "service_secret_key": "s" * 40, "apply_retries": 1,
        "apply_retry_wait": 0.1, **settings})
    app = make_service(options, store, **({"session_clock": clock} if clock is not None else {}))
    dispatcher = lanes(app.extensions["refbot.sessions"].is_curator, reserved=2, waiting=8) if lanes else None
    server = StoppableServer(app, host="127.0.0.1", port=port, threads=threads, dispatcher=dispatcher)
    thread = threading.Thread(target=server.run, daemon=True, name="review-service")
    thread.start()

    def stop() -> None:
        server.stop()
        thread.join(30)
        assert not thread.is_alive(), "the review service did not stop"
        store.ledger.close()

    return Service(world, options, url, run_id, stop, dispatcher)


@pytest.fixture
def world(tmp_path):
    accounts = {CURATOR: Account({}, groups=(), password=PASSWORD),
                NEWCOMER: Account({}, groups=(), password=NEWCOMER_PASSWORD, autoconfirmed=False)}
    with DemoWorld(workdir=tmp_path, accounts=accounts) as running:
        yield running


@pytest.fixture
def service(world, tmp_path):
    running = start_service(world, tmp_path)
    yield running
    running.stop()


def sign_in(http: requests.Session, service: Service, user: str, password: str, start: str = "/") -> requests.Response:
    """The sign-in as a browser makes it, by plain HTTP: the service's redirect, the provider's form, the callback."""
    form_page = http.get(f"{service.url}/login", params={"next": start}, timeout=20)
    assert form_page.url.startswith(service.world.oauth_url + "/oauth2/authorize"), form_page.url
    hidden = etree.HTML(form_page.text).xpath("//form//input[@type='hidden']")
    assert hidden, "the provider's sign-in form"
    fields = {field.get("name"): field.get("value") for field in hidden}
    answer = {**fields, "username": user, "password": password, "decision": "allow"}
    return http.post(form_page.url.split("?", 1)[0], data=answer, timeout=20)


def queue_form(http: requests.Session, service: Service) -> dict[str, str]:
    page = etree.HTML(http.get(f"{service.url}/run/{service.run_id}/queue", timeout=20).text)
    return {field.get("name"): field.get("value") for field in page.xpath("//form[@class='decide']/input")}


def test_sign_in_decide_in_chromium_and_the_edits_are_made_as_the_curator_once_each(service, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.delete_all_cookies()
    browser.get(f"{service.url}/")
    assert browser.find_elements(By.ID, "approve") == [], "a signed-out reader sees no approve button"
    assert "Read only" in browser.find_element(By.ID, "readonly").text
    browser.find_element(By.ID, "signin").click()
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "wpName1"))
    browser.find_element(By.ID, "wpName1").send_keys(CURATOR)
    browser.find_element(By.ID, "wpPassword1").send_keys(PASSWORD)
    browser.find_element(By.ID, "allow").click()
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "account"))
    assert f"signed in as {CURATOR}" in browser.find_element(By.ID, "account").text
    assert browser.current_url.startswith(f"{service.url}/run/{service.run_id}/queue")

    for _ in GUIDS:
        button = browser.find_element(By.ID, "approve")
        button.click()
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "flash"))
        flash = browser.find_element(By.ID, "flash").text
        assert f"written as {CURATOR}, revision" in flash, flash
    assert "Nothing left to decide" in browser.find_element(By.ID, "done").text

    edits = service.edits()
    assert sorted(edit.statement for edit in edits) == sorted(GUIDS), "each approved reference written once"
    assert {edit.user for edit in edits} == {CURATOR} and not any(edit.bot for edit in edits)
    assert all(f"approved by {CURATOR}" in edit.summary for edit in edits)
    batches = {re.search(r"editgroups/b/CB/([0-9a-f]+)", edit.summary).group(1) for edit in edits}
    assert len(batches) == 1, "one EditGroups batch for the sign-in's edits"
    reviews = service.reviews()
    assert {reviews[guid].state for guid in GUIDS} == {"written"}
    assert {reviews[guid].curator for guid in GUIDS} == {CURATOR}
    for guid, _pid, _label, url in PROPOSED:
        urls = [snak["datavalue"]["value"] for reference in service.world.wikibase.statement(guid)["references"]
                for snak in reference["snaks"].get("P854", [])]
        assert urls == [url]

    # Approving a written reference again changes nothing on the wiki.
    http = requests.Session()
    http.cookies.update({cookie["name"]: cookie["value"] for cookie in browser.get_cookies()})
    page = etree.HTML(http.get(f"{service.url}/run/{service.run_id}/queue?show=all", timeout=20).text)
    assert page.xpath("//button[@id='approve']") == [], "a written reference offers no decision"
    assert len(service.edits()) == len(GUIDS)


def test_a_signed_out_or_unauthorised_user_reads_but_cannot_decide(service):
    anonymous = requests.Session()
    page = anonymous.get(f"{service.url}/run/{service.run_id}/queue", timeout=20)
    assert page.status_code == 200 and etree.HTML(page.text).xpath("//button[@id='approve']") == []
    form = queue_form(anonymous, service)
    refused = anonymous.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": GUIDS[0], "decision": "approved", "seen": "0"})
    assert refused.status_code == 403 and "sign in" in refused.text

    newcomer = requests.Session()
    back = sign_in(newcomer, service, NEWCOMER, NEWCOMER_PASSWORD)
    assert back.status_code == 200 and f"signed in as {NEWCOMER}" in " ".join(back.text.split()).replace(
        "<strong>", "").replace("</strong>", "")
    assert "is not autoconfirmed yet" in back.text
    form = queue_form(newcomer, service)
    refused = newcomer.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": GUIDS[0], "decision": "approved", "seen": "0"})
    assert refused.status_code == 403 and "not autoconfirmed" in refused.text
    assert service.reviews()[GUIDS[0]].state == "proposed" and service.edits() == []


def test_the_operators_list_of_deciders_and_the_forms_own_token_and_origin(world, tmp_path):
    service = start_service(world, tmp_path, service_deciders=("New_Editor",))
    try:
        curator = requests.Session()
        sign_in(curator, service, CURATOR, PASSWORD)
        form = queue_form(curator, service)
        page = etree.HTML(curator.get(f"{service.url}/run/{service.run_id}/queue", timeout=20).text)
        assert page.xpath("//button[@id='approve']") == [] and "not among the curators" in page.xpath(
            "string(//*[@id='readonly'])")
        refused = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
            "token": form["token"], "guid": GUIDS[0], "decision": "approved", "seen": "0"})
        assert refused.status_code == 403 and "not among the curators" in refused.text

        newcomer = requests.Session()
        sign_in(newcomer, service, NEWCOMER, NEWCOMER_PASSWORD)
        form = queue_form(newcomer, service)
        decision = {"guid": GUIDS[1], "decision": "rejected", "seen": form["seen"]}
        assert newcomer.post(f"{service.url}/run/{service.run_id}/decide", data={**decision, "token": "forged"},
                             timeout=20).status_code == 403
        assert newcomer.post(f"{service.url}/run/{service.run_id}/decide", data={**decision, "token": form["token"]},
                             headers={"Origin": "https://elsewhere.example"}, timeout=20).status_code == 403
        assert service.reviews()[GUIDS[1]].state == "proposed"
        done = newcomer.post(f"{service.url}/run/{service.run_id}/decide", timeout=20,
                             data={**decision, "guid": form["guid"], "token": form["token"]})
        assert done.status_code == 200 and service.reviews()[form["guid"]].state == "rejected"
        assert service.reviews()[form["guid"]].curator == NEWCOMER and service.edits() == []
    finally:
        service.stop()


def test_an_expired_grant_records_nothing_and_approving_again_after_signing_in_writes_it(service):
    """The account is read again with the grant before a decision: a grant the wiki refuses records nothing."""
    curator = requests.Session()
    sign_in(curator, service, CURATOR, PASSWORD)
    service.world.oauth.expire_tokens()
    form = queue_form(curator, service)
    answer = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": form["guid"], "decision": "approved", "seen": form["seen"]})
    assert answer.status_code == 403 and "Not recorded" in answer.text and "sign in again" in answer.text
    assert service.reviews()[form["guid"]].state == "proposed" and service.edits() == []

    sign_in(curator, service, CURATOR, PASSWORD, start=f"/run/{service.run_id}/queue?show=all")
    again = queue_form(curator, service)
    fresh = etree.HTML(curator.get(f"{service.url}/run/{service.run_id}/queue",
                                   params={"show": "all", "at": form["guid"]}, timeout=20).text)
    seen = fresh.xpath(f"//form[@data-guid='{form['guid']}']/input[@name='seen']/@value")[0]
    answer = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": again["token"], "guid": form["guid"], "decision": "approved", "seen": seen})
    assert f"written as {CURATOR}" in answer.text
    assert [edit.statement for edit in service.edits()] == [form["guid"]]


def test_the_item_api_answers_the_user_scripts_origin_only(service):
    http = requests.Session()
    answer = http.get(f"{service.url}/api/item/Q990201", headers={"Origin": "https://www.wikidata.org"}, timeout=20)
    assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == "https://www.wikidata.org"
    found = {statement["guid"]: statement for statement in answer.json()["statements"]}
    assert set(GUIDS) <= set(found)
    first = found[GUIDS[0]]
    assert first["outcome"] == "supported" and first["state"] == "proposed"
    assert first["reference"][0]["property"] == "P854" and first["card"].startswith(service.url + "/run/")
    elsewhere = http.get(f"{service.url}/api/item/Q990201", headers={"Origin": "https://evil.example"}, timeout=20)
    assert "Access-Control-Allow-Origin" not in elsewhere.headers
    wrong = http.get(f"{service.url}/api/item/Q0", timeout=20)
    assert wrong.status_code == 400 and "Q42" in wrong.json()["hint"]
    assert http.get(f"{service.url}/api/item/Q1", timeout=20).json() == {"item": "Q1", "statements": []}


def test_the_service_names_the_setting_it_lacks(tmp_path):
    options = Options.flat(service_url="https://refbot.example", service_client_id="key",
                           service_client_secret="secret")
    with pytest.raises(ConfigError, match=r"\[service\] secret_key") as raised:
        make_service(options, None)  # type: ignore[arg-type]
    assert "REFBOT_SERVICE_SECRET_KEY" in str(raised.value)


GADGET = Path(__file__).resolve().parent.parent / "gadget" / "refbot.js"


def test_the_user_script_shows_each_checked_statement_on_the_item_page_with_a_link_to_its_card(world, tmp_path,
                                                                                               browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wiki = world.base("wikidata")
    service = start_service(world, tmp_path, service_cors_origins=(wiki,))
    try:
        # What the user's common.js holds: the service's address, then the script (as importScript loads it).
        world.common_js = f"window.refbotService = {service.url!r};\n" + GADGET.read_text(encoding="utf-8")
        browser.delete_all_cookies()
        browser.get(f"{wiki}/wiki/Q990201")
        WebDriverWait(browser, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".refbot-finding")) >= 3)
        findings = service_findings(service)
        for guid in GUIDS:
            statement = browser.find_element(By.CSS_SELECTOR, f'[class~="wikibase-statement-{guid}"]')
            boxes = statement.find_elements(By.CSS_SELECTOR, ".wikibase-statementview-mainsnak-container "
                                                             ".refbot-finding")
            assert len(boxes) == 1, guid
            assert boxes[0].get_attribute("data-outcome") == findings[guid]["outcome"] == "supported"
            assert "refbot: supported by a page" in boxes[0].text
            assert "“Marta Novotná was honoured.”" in boxes[0].text or "Marta Novotná was honoured." in boxes[0].text
            card = boxes[0].find_element(By.CSS_SELECTOR, "a.refbot-card")
            assert card.get_attribute("href") == findings[guid]["card"]
        unchecked = [element for element in browser.find_elements(By.CSS_SELECTOR, ".wikibase-statementview")
                     if not any(guid in element.get_attribute("class") for guid in GUIDS)]
        assert unchecked and all(not element.find_elements(By.CSS_SELECTOR, ".refbot-finding")
                                 for element in unchecked), "statements refbot never checked show nothing"
        assert browser.find_elements(By.CSS_SELECTOR, ".refbot-finding script, .refbot-finding img") == []

        # The link leads to the statement's card in the review service.
        browser.find_element(By.CSS_SELECTOR, f'[class~="wikibase-statement-{GUIDS[1]}"] a.refbot-card').click()
        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "card"))
        assert browser.find_element(By.ID, "card").get_attribute("data-guid") == GUIDS[1]
    finally:
        service.stop()


def service_findings(service: Service) -> dict[str, Any]:
    answer = requests.get(f"{service.url}/api/item/Q990201", timeout=20).json()
    return {statement["guid"]: statement for statement in answer["statements"]}


def test_the_card_shows_every_snak_verbatim_and_the_edit_summary_that_will_be_written(service):
    curator = requests.Session()
    sign_in(curator, service, CURATOR, PASSWORD)
    page = etree.HTML(curator.get(f"{service.url}/run/{service.run_id}/queue", timeout=20).text)
    rows = {row.xpath("string(td[1]/span)"): " ".join(row.xpath("string(td[2])").split())
            for row in page.xpath("//table[@class='snaks']/tr")}
    assert rows["P1476"] == "Novotná honoured (language: en)"
    assert rows["P1683"].startswith("Marta Novotná was honoured. (language: en)"), "the quotation verbatim"
    assert rows["P407"] == "English (Q1860)"
    shown = page.xpath("string(//*[@id='edit-summary']/span)")
    guid = page.xpath("string(//*[@id='card']/@data-guid)")
    assert f"approved by {CURATOR}" in shown and f"report: {service.url}/run/{service.run_id}/queue" in shown
    form = queue_form(curator, service)
    curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": guid, "decision": "approved", "seen": form["seen"]})
    assert [edit.summary for edit in service.edits()] == [shown], "the summary shown is the summary written"


def test_a_curator_leaves_out_an_optional_snak_and_the_reference_is_written_without_it(service):
    curator = requests.Session()
    sign_in(curator, service, CURATOR, PASSWORD)
    page = etree.HTML(curator.get(f"{service.url}/run/{service.run_id}/queue", timeout=20).text)
    assert sorted(page.xpath("//input[@name='drop']/@value")) == ["P1476", "P1683"], "the title and the quotation"
    form = queue_form(curator, service)
    answer = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": form["guid"], "decision": "approved", "seen": form["seen"], "drop": "P1683"})
    assert f"written as {CURATOR}" in answer.text
    (edit,) = service.edits()
    reference = service.world.wikibase.statement(form["guid"])["references"][-1]
    assert "P1683" not in reference["snaks"] and {"P854", "P1476", "P813"} <= set(reference["snaks"])
    assert service.reviews()[form["guid"]].dropped == ("P1683",)
    shown = etree.HTML(curator.get(f"{service.url}/run/{service.run_id}/queue",
                                   params={"show": "all", "at": form["guid"]}, timeout=20).text)
    assert shown.xpath("//table[@class='snaks']/tr[@class='dropped']/td[1]/span[@class='pid']/text()") == ["P1683"]
    forged = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": GUIDS[2], "decision": "approved", "seen": "0", "drop": "P854"})
    assert forged.status_code == 400 and "only P1476, P1683" in forged.text, "the reference URL is never left out"


@pytest.mark.parametrize("elsewhere", ["//evil.example/", "/\\evil.example/", "https://evil.example/",
                                       "/\t/evil.example", "/run/1/queue\n/evil.example"])
def test_signing_in_never_returns_to_another_site(service, elsewhere):
    http = requests.Session()
    form_page = http.get(f"{service.url}/login", params={"next": elsewhere}, timeout=20)
    hidden = {field.get("name"): field.get("value")
              for field in etree.HTML(form_page.text).xpath("//form//input[@type='hidden']")}
    back = http.post(form_page.url.split("?", 1)[0], timeout=20, allow_redirects=False, data={
        **hidden, "username": CURATOR, "password": PASSWORD, "decision": "allow"})
    landed = http.get(back.headers["Location"], timeout=20, allow_redirects=False)
    assert landed.status_code == 303 and landed.headers["Location"] == "/"


# Where `/login?next=…` may send a curator back to once signed in: only a path of this service, rebuilt from its parts.
RETURN_ADDRESSES = [
    ("/", "/"), ("/run/1/queue", "/run/1/queue"), ("/run/2/", "/run/2/"),
    ("/run/1/queue?show=all&property=P569", "/run/1/queue?show=all&property=P569"),
    ("/run/1/queue?show=all#card", "/run/1/queue?show=all"),
    ("/run/1/queue?next=//evil.example", "/run/1/queue?next=//evil.example"),
    ("/%2F%2Fevil.example", "/%2F%2Fevil.example"),  # a path here: a browser never decodes %2F to resolve it
    ("", "/"), ("//evil.example", "/"), ("//evil.example/", "/"), ("///evil.example", "/"), ("////evil.example", "/"),
    ("/\\evil.example", "/"), ("\\\\evil.example", "/"), ("/\\/evil.example", "/"), ("\\/evil.example", "/"),
    ("https://evil.example", "/"), ("http://evil.example/run/1/queue", "/"), ("HTTPS://evil.example", "/"),
    ("https:/evil.example", "/"), ("http:evil.example", "/"), ("//evil.example:80/", "/"), ("//own@evil.example", "/"),
    ("javascript:alert(1)", "/"), ("JaVaScRiPt:alert(1)", "/"), ("data:text/html,<b>", "/"),
    ("/\t/evil.example", "/"), ("/\n/evil.example", "/"), ("/\r/evil.example", "/"), ("\t//evil.example", "/"),
    (" //evil.example", "/"), ("/ /evil.example", "/"), ("/\x00/evil.example", "/"), ("/\x7f/evil.example", "/"),
    ("/\u3000/evil.example", "/"), ("/\uff0f/evil.example", "/"), ("/\u2028/evil.example", "/"),
    ("/run/1/queue\r\nSet-Cookie: refbot_service=x", "/"), ("/.//evil.example", "/"), ("/../evil.example", "/"),
    ("evil.example", "/"), ("run/1/queue", "/"), ("%2F%2Fevil.example", "/"),
]


def test_the_address_after_signing_in_is_one_of_the_services_own_paths(tmp_path):
    """The return address is kept at `/login` and used after the provider's answer: whatever the link carried,
    only a path of this service, or `/`."""
    assert len(RETURN_ADDRESSES) >= 30
    empty = tmp_path / "empty.ini"
    empty.write_text("", encoding="utf-8")
    options = load_options(config_file=empty, environ={}, overrides={
        "run_ledger": tmp_path / "runs.sqlite", "service_url": "http://127.0.0.1:8000",
        "service_oauth_url": "http://127.0.0.1:9/w/rest.php", "service_client_id": "refbot",
        "service_client_secret": "secret", "service_secret_key": "s" * 40})
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    client = make_service(options, store).test_client()
    kept = {}
    for wanted, _ in RETURN_ADDRESSES:
        answer = client.get("/login", query_string={"next": wanted})
        assert answer.status_code == 302 and answer.headers["Location"].startswith("http://127.0.0.1:9/w/rest.php")
        with client.session_transaction() as session:
            kept[wanted] = session["next"]
    assert kept == dict(RETURN_ADDRESSES)
    store.ledger.close()


def test_the_services_pages_never_show_the_addresss_text_or_the_ledgers_path(service):
    """A link can make the service say nothing of its own choosing: not the provider's error text, not an edit's
    outcome, not a run id SQLite cannot hold (a 404, not a 500); and no page names where the ledger lives."""
    http = requests.Session()
    planted = "Your account is suspended; call PLANTED-4711"
    answers = [
        http.get(f"{service.url}/oauth/callback", params={"error": "x", "error_description": planted}, timeout=20),
        http.get(f"{service.url}/run/{service.run_id}/queue", timeout=20, params={
            "done": "approved", "of": GUIDS[0], "written": planted}),
        http.get(f"{service.url}/run/99999999999999999999/queue", timeout=20),
        http.get(f"{service.url}/run/99999999999999999999/", timeout=20),
        http.get(f"{service.url}/run/{service.run_id + 7}/queue", timeout=20),
        http.get(f"{service.url}/run/{service.run_id + 7}/", timeout=20),
        http.get(f"{service.url}/{planted.replace(' ', '-')}", timeout=20),
    ]
    assert [answer.status_code for answer in answers] == [400, 200, 404, 404, 404, 404, 404]
    ledger = str(service.options.run.ledger)
    for answer in answers:
        assert "suspended" not in answer.text and "PLANTED" not in answer.text, answer.url
        assert ledger not in answer.text and "runs.sqlite" not in answer.text, answer.url
    assert "did not complete" in answers[0].text and "sign in again" in answers[0].text
    assert f"there is no run {service.run_id + 7} to review here" in answers[4].text


def _signed_in_as(page: requests.Response) -> str:
    account = etree.HTML(page.text).xpath("//span[@id='account']/strong/text()")
    return account[0] if account else ""


def _sessions(service: Service) -> list[Any]:
    ledger = RunLedger(service.options.run.ledger)
    try:
        with ledger.transaction() as connection:
            return list(connection.execute(select(service_sessions)))
    finally:
        ledger.close()


def test_the_session_is_kept_on_the_server_and_a_cookie_copied_before_sign_out_is_refused_after(service):
    """The cookie holds a random id, never a token; signing out ends the session for every copy of the cookie."""
    reader = requests.Session()
    assert reader.get(f"{service.url}/run/{service.run_id}/queue", timeout=20).status_code == 200
    assert not reader.cookies and _sessions(service) == [], "a reader makes no session"

    curator = requests.Session()
    sign_in(curator, service, CURATOR, PASSWORD)
    [cookie] = list(curator.cookies)
    assert cookie.name == "refbot_service" and re.fullmatch(r"[A-Za-z0-9_-]{43}", cookie.value or "")
    [row] = _sessions(service)
    assert "access_token" not in row.data and cookie.value not in row.data and row.id != cookie.value
    kept = LedgerSessions(RunLedger(None), service.options.service.secret_key).fernet.decrypt(row.data.encode())
    assert b'"access_token"' in kept, "the row holds the token, encrypted with the service's secret key"
    copied = requests.Session()
    copied.cookies.set(cookie.name, cookie.value, domain=cookie.domain, path=cookie.path)
    form = queue_form(copied, service)
    assert _signed_in_as(copied.get(f"{service.url}/run/{service.run_id}/queue", timeout=20)) == CURATOR

    forged = curator.get(f"{service.url}/oauth/callback", params={"error": "access_denied"}, timeout=20)
    assert forged.status_code == 400 and "you did not allow refbot" in forged.text
    assert _signed_in_as(curator.get(f"{service.url}/run/{service.run_id}/queue", timeout=20)) == CURATOR, \
        "a forged link to the callback does not sign a curator out"
    out = curator.post(f"{service.url}/logout", data={"token": form["token"]}, timeout=20)
    assert out.status_code == 200 and _sessions(service) == [] and not curator.cookies
    assert _signed_in_as(copied.get(f"{service.url}/run/{service.run_id}/queue", timeout=20)) == ""
    replay = copied.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": GUIDS[0], "decision": "approved", "seen": form["seen"]})
    assert replay.status_code == 403 and "sign in" in replay.text
    assert service.reviews()[GUIDS[0]].state == "proposed" and service.edits() == []


def test_a_session_ends_after_two_idle_hours_and_after_eight_however_busy(world, tmp_path):
    now = [time.time()]
    service = start_service(world, tmp_path, clock=lambda: now[0])
    try:
        def signed_in_after(hours: float, http: requests.Session) -> str:
            now[0] += hours * 3600
            return _signed_in_as(http.get(f"{service.url}/run/{service.run_id}/queue", timeout=20))

        idle = requests.Session()
        sign_in(idle, service, CURATOR, PASSWORD)
        assert signed_in_after(1.9, idle) == CURATOR and signed_in_after(1.9, idle) == CURATOR
        assert signed_in_after(2.1, idle) == "", "two hours without a request"

        busy = requests.Session()
        sign_in(busy, service, CURATOR, PASSWORD)
        assert all(signed_in_after(0.5, busy) == CURATOR for _ in range(15)), "seven and a half hours in use"
        assert signed_in_after(0.6, busy) == "", "eight hours after signing in"
        assert _sessions(service) == []
    finally:
        service.stop()


def _block(world: DemoWorld, name: str, blocked: bool = True) -> None:
    """Block (or unblock) the account on the demo wiki, as an administrator would, whatever the sessions hold."""
    for accounts in {id(world.wikibase.accounts): world.wikibase.accounts, id(world.oauth.accounts):
                     world.oauth.accounts}.values():
        accounts[name] = replace(accounts[name], blocked=blocked)


def test_an_account_blocked_after_signing_in_decides_nothing(service):
    """Blocks are read again before every decision, not only at sign-in."""
    curator = requests.Session()
    sign_in(curator, service, CURATOR, PASSWORD)
    form = queue_form(curator, service)
    _block(service.world, CURATOR)
    answer = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": form["guid"], "decision": "approved", "seen": form["seen"]})
    assert answer.status_code == 403 and f"{CURATOR} is blocked on the wiki" in answer.text
    assert service.reviews()[form["guid"]].state == "proposed" and service.edits() == []
    page = etree.HTML(curator.get(f"{service.url}/run/{service.run_id}/queue", timeout=20).text)
    assert page.xpath("//button[@id='approve']") == [], "the queue no longer offers the blocked account a decision"

    _block(service.world, CURATOR, blocked=False)
    form = queue_form(curator, service)
    answer = curator.post(f"{service.url}/run/{service.run_id}/decide", timeout=20, data={
        "token": form["token"], "guid": form["guid"], "decision": "approved", "seen": form["seen"]})
    assert f"written as {CURATOR}" in answer.text


def test_a_sign_in_begun_and_left_keeps_nothing_on_the_server_and_its_cookie_ends_in_fifteen_minutes(world,
                                                                                                     tmp_path):
    """An anonymous visitor's `/login` keeps the sign-in's state in a small encrypted cookie, not a row; repeated
    sign-ins do not grow it; a cookie older than fifteen minutes (by the service's clock) is no sign-in, so the
    callback refuses it; a changed cookie is none either."""
    now = [time.time()]
    service = start_service(world, tmp_path, clock=lambda: now[0])
    try:
        left = requests.Session()
        for _ in range(5):
            assert left.get(f"{service.url}/login", timeout=20, allow_redirects=False).status_code == 302
        assert _sessions(service) == []
        [cookie] = list(left.cookies)
        assert cookie.name == "refbot_service_signin" and len(cookie.value or "") < 4096
        assert "_state_" not in (cookie.value or "") and "code_verifier" not in (cookie.value or "")

        stale = requests.Session()
        form_page = stale.get(f"{service.url}/login", timeout=20)
        now[0] += 16 * 60
        hidden = etree.HTML(form_page.text).xpath("//form//input[@type='hidden']")
        answer = {**{field.get("name"): field.get("value") for field in hidden},
                  "username": CURATOR, "password": PASSWORD, "decision": "allow"}
        late = stale.post(form_page.url.split("?", 1)[0], data=answer, timeout=20)
        assert late.status_code == 400 and "the sign-in was not started here or was used already" in late.text
        assert _sessions(service) == [] and _signed_in_as(
            stale.get(f"{service.url}/run/{service.run_id}/queue", timeout=20)) == ""

        changed = requests.Session()
        form_page = changed.get(f"{service.url}/login", timeout=20)
        value = changed.cookies["refbot_service_signin"]
        changed.cookies.set("refbot_service_signin", value[:-6] + ("A" if value[-6] != "A" else "B") + value[-5:],
                            domain="127.0.0.1", path="/")
        hidden = etree.HTML(form_page.text).xpath("//form//input[@type='hidden']")
        answer = {**{field.get("name"): field.get("value") for field in hidden},
                  "username": CURATOR, "password": PASSWORD, "decision": "allow"}
        assert changed.post(form_page.url.split("?", 1)[0], data=answer, timeout=20).status_code == 400
        assert _sessions(service) == []
    finally:
        service.stop()


def test_a_stream_of_anonymous_sign_ins_leaves_the_sessions_table_empty_and_a_curator_signs_in_during_it(
        world, tmp_path, monkeypatch):
    """However many anonymous `/login`s arrive (here far beyond a lowered cap on sessions), none makes a row: a
    curator signs in in the middle of the stream, lands on the page they began on, and theirs is the only row; the
    cap then answers a further sign-in 503 with Retry-After, and the signed-in curator is untouched."""
    from bot.review import sessions

    monkeypatch.setattr(sessions, "MAX_SESSIONS", 1)
    service = start_service(world, tmp_path)
    try:
        stop, sent = threading.Event(), [0]

        def crowd() -> None:
            while not stop.is_set():
                answer = requests.get(f"{service.url}/login", timeout=20, allow_redirects=False)
                assert answer.status_code == 302
                sent[0] += 1

        crowds = [threading.Thread(target=crowd) for _ in range(3)]
        for thread in crowds:
            thread.start()
        try:
            while sent[0] < 60:
                time.sleep(0.05)
            assert _sessions(service) == [], "an anonymous sign-in made a row"
            curator = requests.Session()
            landed = sign_in(curator, service, CURATOR, PASSWORD, start=f"/run/{service.run_id}/queue")
            assert landed.status_code == 200 and _signed_in_as(landed) == CURATOR
            assert landed.url.startswith(f"{service.url}/run/{service.run_id}/queue")
            assert "refbot_service_signin" not in curator.cookies, "the sign-in's cookie goes once signed in"
            while sent[0] < 150:
                time.sleep(0.05)
        finally:
            stop.set()
            for thread in crowds:
                thread.join(30)
        assert len(_sessions(service)) == 1
        other = requests.Session()
        form_page = other.get(f"{service.url}/login", timeout=20)
        hidden = etree.HTML(form_page.text).xpath("//form//input[@type='hidden']")
        answer = {**{field.get("name"): field.get("value") for field in hidden},
                  "username": NEWCOMER, "password": NEWCOMER_PASSWORD, "decision": "allow"}
        refused = other.post(form_page.url.split("?", 1)[0], data=answer, timeout=20)
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "300"
        assert "too many curators are signed in" in refused.text and len(_sessions(service)) == 1
        assert _signed_in_as(curator.get(f"{service.url}/run/{service.run_id}/queue", timeout=20)) == CURATOR
    finally:
        service.stop()


def test_report_pages_are_put_together_a_few_at_a_time_and_the_rest_are_told_to_come_back(world, tmp_path,
                                                                                          monkeypatch):
    """Anyone may read a run's report, so requests for it cannot be let to fill the server's memory: however many
    arrive at once, no more than ``[service] reports_at_once`` pages are put together at the same time; a request that
    finds no turn within the wait is answered 503 with Retry-After, and is served when it comes back."""
    from bot.review import actions, limits

    monkeypatch.setattr(actions, "REPORT_PAGE_STATEMENTS", 1)
    monkeypatch.setattr(limits, "WAIT_S", 0.2)
    building, most = [0], [0]
    lock, refused = threading.Lock(), threading.Event()
    real = actions.report_page

    def counted(*args: Any, **kwargs: Any) -> Any:  # the real page, counted while it is put together
        with lock:
            building[0] += 1
            most[0] = max(most[0], building[0])
        try:
            refused.wait(10)  # (held until a request was told to come back: the test needs no race to win)
            return real(*args, **kwargs)
        finally:
            with lock:
                building[0] -= 1

    monkeypatch.setattr(actions, "report_page", counted)
    service = start_service(world, tmp_path, service_reports_at_once=1)
    try:
        answers: list[requests.Response] = []

        def read(page: int) -> None:
            answer = requests.get(f"{service.url}/run/{service.run_id}/?page={page}", timeout=30)
            with lock:
                answers.append(answer)
            if answer.status_code == 503:
                refused.set()

        readers = [threading.Thread(target=read, args=(1 + number % 3,)) for number in range(4)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join(60)
        statuses = sorted(answer.status_code for answer in answers)
        assert most[0] == 1, f"{most[0]} report pages were put together at once"
        assert statuses.count(200) >= 1 and statuses.count(503) >= 1 and set(statuses) == {200, 503}, statuses
        for answer in answers:
            if answer.status_code == 503:
                assert answer.headers["Retry-After"] == str(limits.RETRY_AFTER_S) and "try again" in answer.text
        refused.set()
        again = requests.get(f"{service.url}/run/{service.run_id}/?page=2", timeout=30)
        assert again.status_code == 200 and "Page 2 of" in " ".join(again.text.split())
    finally:
        service.stop()


def test_an_operator_who_allows_no_report_page_at_once_is_told_the_setting(world, tmp_path):
    with pytest.raises(ConfigError, match=r"\[service\] reports_at_once is 0"):
        start_service(world, tmp_path, service_reports_at_once=0)


def test_the_service_starts_before_any_run_and_says_how_a_run_gets_there(world, tmp_path):
    """A new operator starts the service first: it makes the empty ledger and its home page says what records a run;
    the run's queue opens there once `refbot run` has recorded one."""
    import os
    import signal
    import subprocess
    import sys

    port = free_port()
    consumer = world.oauth.register(f"http://127.0.0.1:{port}/oauth/callback")
    config = tmp_path / "refbot.ini"
    config.write_text(f"[service]\nurl = http://127.0.0.1:{port}\noauth_url = {world.oauth_url}\n"
                      f"client_id = {consumer.client_id}\n[run]\nledger = {tmp_path / 'fresh' / 'runs.sqlite'}\n",
                      encoding="utf-8")
    (tmp_path / "fresh").mkdir()
    environ = {**os.environ, "REFBOT_SERVICE_CLIENT_SECRET": consumer.secret,
               "REFBOT_SERVICE_SECRET_KEY": "k" * 40}
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve-review", "--port", str(port)],
                               cwd=tmp_path, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        home = None
        for _ in range(150):
            try:
                home = requests.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except requests.ConnectionError:
                assert process.poll() is None, process.stdout.read() if process.stdout else ""
                time.sleep(0.2)
        assert home is not None and home.status_code == 200, "the service started without a run"
        assert "Nothing to review" in home.text and "<code>refbot run</code>" in home.text
        assert "`" not in home.text and "<style>" in home.text, "styled as the queue, commands as code"
        assert (tmp_path / "fresh" / "runs.sqlite").exists()

        trace = trace_of(world, tmp_path / "check.xml")
        store = ReviewLedger(RunLedger(tmp_path / "fresh" / "runs.sqlite"))
        run_id = store.import_trace(traces.read(trace), trace)
        store.ledger.close()
        queue = requests.get(f"http://127.0.0.1:{port}/", timeout=10)
        assert queue.url.endswith(f"/run/{run_id}/queue") and "left to decide" in queue.text
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_home_page_opens_the_newest_run_kept_for_review_not_a_newer_one_still_being_checked(service):
    """Workers' newer run, not finished (not yet kept for review): the home page still opens a queue, the newest one
    there is, never a page saying there is no such run."""
    with RunLedger(service.options.run.ledger) as ledger:
        newer = ledger.open_run("another worklist, being checked", "")
    assert newer.id > service.run_id
    home = requests.get(f"{service.url}/", timeout=20)
    assert home.status_code == 200 and home.url.endswith(f"/run/{service.run_id}/queue"), home.url


def test_the_home_page_opens_the_newest_curation_run_not_a_newer_verify_run(service):
    """A curator who opens the service came for the curation queue: a newer verify run kept for review has its own
    queue (`/run/N/queue`), but `/` opens the newest curation run; a ledger of verify runs only opens the newest."""
    from bot.ledger.ledger import VERIFY_KEY

    with RunLedger(service.options.run.ledger) as ledger:
        element = ledger.run_element(service.run_id)
        verify = ledger.open_run(VERIFY_KEY + "verify worklist", "verify worklist")
        ledger.record_run_element(verify, element)
    home = requests.get(f"{service.url}/", timeout=20)
    assert home.status_code == 200 and home.url.endswith(f"/run/{service.run_id}/queue"), home.url
    store = ReviewLedger(RunLedger(service.options.run.ledger))
    try:
        with store.ledger.transaction() as connection:
            connection.execute(run_elements.delete().where(run_elements.c.run_id == service.run_id))
        assert store.latest_reviewable() == verify.id
    finally:
        store.ledger.close()
