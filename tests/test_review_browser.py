"""`refbot review`'s page in a real browser (Debian's chromium through chromedriver and Selenium): decisions made
by clicking land in the run ledger, a hostile page's text stays inert, the session's cookie goes to no other server
of the machine, and the server refuses requests without its token, from another origin, for another host or from
another machine."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from lxml import etree

from bot.output import trace as traces
from bot.errors import ConfigError
from bot.options import Options, load_options
from bot.review.server import make_app, serve
from bot.review.store import Review, ReviewLedger
from bot.ledger.ledger import RunLedger

TRACE = Path(__file__).resolve().parent / "data" / "review-trace.xml"
GUIDS = [f"Q990301$0A1B2C3D-000{n}-4000-8000-00000000000{n}" for n in (1, 2, 3)]
HOSTILE = GUIDS[2]
CURATOR = "Test Curator"
BASE = "/a-secret-path-for-tests/"


@dataclass
class ReviewServer:
    options: Options
    run_id: int
    page: str  # the address serve() gives, with the session's token
    stopping: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    returned: list[Path | None] = field(default_factory=list)  # what serve() returned, once stopped

    def stop(self) -> Path | None:
        """Stop the server as Ctrl-C does; the report it rewrote (None: nothing was decided)."""
        self.stopping.set()
        assert self.thread is not None
        self.thread.join(60)
        assert not self.thread.is_alive() and len(self.returned) == 1, "the review server did not stop"
        return self.returned[0]

    @property
    def url(self) -> str:
        """The page without the token: http://127.0.0.1:PORT/BASE/"""
        return self.page.split("?", 1)[0]

    @property
    def origin(self) -> str:
        parts = urlsplit(self.page)
        return f"{parts.scheme}://{parts.netloc}"

    def reviews(self) -> dict[str, Review]:
        ledger = RunLedger(self.options.run.ledger)
        try:
            return ReviewLedger(ledger).reviews(self.run_id)
        finally:
            ledger.close()

    def token(self, session: requests.Session) -> str:
        page = etree.HTML(session.get(self.page, timeout=10).text)
        return page.xpath("//form[@class='decide']/input[@name='token']/@value")[0]


def seen(http: requests.Session, server: ReviewServer, guid: str) -> str:
    """The decision a fresh page shows for the statement, as its form sends it."""
    page = etree.HTML(http.get(server.page, timeout=10).text)
    return page.xpath(f"//form[@data-guid='{guid}']/input[@name='seen']/@value")[0]


def review_options(tmp: Path, curator: str = CURATOR) -> Options:
    empty = tmp / "empty.ini"
    empty.write_text("", encoding="utf-8")
    return load_options(config_file=empty, environ={}, overrides={
        "run_ledger": tmp / "runs.sqlite", "check_reports": tmp / "reports", "review_curator": curator})


def imported(options: Options, trace: Path = TRACE) -> int:
    """The run a trace file becomes in the options' ledger."""
    ledger = RunLedger(options.run.ledger)
    try:
        return ReviewLedger(ledger).import_trace(traces.read(trace), trace)
    finally:
        ledger.close()


def start_server(options: Options, run_id: int) -> ReviewServer:
    """`refbot review`'s server for the run, in a daemon thread: it lives as long as the test process, or until
    its ``stop()``."""
    ready: list[str] = []
    listening = threading.Event()
    stopping = threading.Event()
    returned: list[Path | None] = []

    def on_ready(url: str) -> None:
        ready.append(url)
        listening.set()

    def run() -> None:
        returned.append(serve(options, run_id, curator=options.review.curator, on_ready=on_ready, stop=stopping))

    thread = threading.Thread(target=run, daemon=True, name="review-server")
    thread.start()
    assert listening.wait(20), "the review server did not start"
    return ReviewServer(options, run_id, ready[0], stopping, thread, returned)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> ReviewServer:
    options = review_options(tmp_path_factory.mktemp("review"))
    return start_server(options, imported(options))


def detached(element) -> bool:
    """Whether the page the element was found in has gone (the form was posted and a new page loaded).

    Chromium may answer a query about a node of a replaced document with a generic error ("Node with given id
    does not belong to the document") instead of a stale-element one, depending on when the query lands."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error) or "No node with given id" in str(error):
            return True
        raise
    return False


def decide_by_clicking(driver, guid: str, button: str, note: str = "") -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    form = driver.find_element(By.CSS_SELECTOR, f'form.decide[data-guid="{guid}"]')
    if note:
        form.find_element(By.CSS_SELECTOR, "input[name='note']").send_keys(note)
    form.find_element(By.CSS_SELECTOR, f"button.{button}").click()
    WebDriverWait(driver, 15).until(lambda _: detached(form))
    WebDriverWait(driver, 15).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f'div.review[data-guid="{guid}"]'))


def test_approving_two_and_rejecting_one_by_clicking_lands_in_the_ledger(tmp_path, browser):
    from selenium.webdriver.common.by import By

    options = review_options(tmp_path)
    server = start_server(options, imported(options))
    browser.get(server.page)
    assert f"Reviewing run {server.run_id} as {CURATOR}" in " ".join(
        browser.find_element(By.ID, "reviewing").text.split())
    assert {state.get_attribute("data-state")
            for state in browser.find_elements(By.CSS_SELECTOR, "div.review")} <= {"proposed", "approved"}
    decide_by_clicking(browser, GUIDS[0], "approve")
    assert urlsplit(browser.current_url).fragment.startswith("statement-Q990301")
    decide_by_clicking(browser, GUIDS[1], "approve")
    decide_by_clicking(browser, HOSTILE, "reject", note="the source page is <b>hostile</b>")

    reviews = server.reviews()
    assert [reviews[guid].state for guid in GUIDS] == ["approved", "approved", "rejected"]
    assert {reviews[guid].curator for guid in GUIDS} == {CURATOR}
    assert all(reviews[guid].decided for guid in GUIDS)
    assert reviews[HOSTILE].note == "the source page is <b>hostile</b>" and reviews[GUIDS[0]].note == ""

    states = {box.get_attribute("data-guid"): box.get_attribute("data-state")
              for box in browser.find_elements(By.CSS_SELECTOR, "div.review")}
    assert states == dict(zip(GUIDS, ["approved", "approved", "rejected"]))
    rejected = browser.find_element(By.CSS_SELECTOR, f'div.review[data-guid="{HOSTILE}"]').text
    assert f"rejected by {CURATOR}" in rejected and "(the source page is <b>hostile</b>)" in rejected
    report = server.options.check.reports / f"run-{server.run_id}.html"
    assert not report.exists(), "the report on disk is rewritten once, when the server stops, not per decision"
    assert server.stop() == report
    static = report.read_text(encoding="utf-8")
    assert static.count('class="badge review-state approved"') >= 2 and "/decide" not in static
    assert 'class="badge review-state rejected"' in static


def test_a_hostile_paragraph_stays_inert(server, browser):
    from selenium.webdriver.common.by import By

    browser.get(server.page)
    assert browser.title.startswith("refbot report") and "pwned" not in browser.title
    assert browser.find_elements(By.TAG_NAME, "script") == []
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.find_elements(By.CSS_SELECTOR, 'a[href^="javascript:"]') == []
    assert browser.find_elements(By.CSS_SELECTOR, "[onerror], [onmouseover]") == []
    hostile = browser.find_element(By.CSS_SELECTOR, f'section.statement[data-guid="{HOSTILE}"]').text
    assert "<script>document.title='pwned'</script>" in hostile, "the page's markup is shown as text"
    assert "javascript:alert(1)" in hostile, "a javascript: URL is shown, not linked"
    assert all(href.startswith(("http://", "https://"))
               for href in (a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")))


def test_requests_without_the_token_or_from_elsewhere_are_refused(server, http):
    before = server.reviews()
    own = server.url.rstrip("/")
    token = server.token(http)
    decision = {"guid": GUIDS[1], "decision": "rejected", "note": "forged", "seen": "0"}

    def post(data: dict[str, str], **headers: str) -> requests.Response:
        return http.post(own + "/decide", data=data, headers=headers, allow_redirects=False, timeout=10)

    assert post(decision).status_code == 403
    assert post({**decision, "token": "not-the-token"}).status_code == 403
    assert post({**decision, "token": token}, Origin="http://evil.example").status_code == 403
    assert post({**decision, "token": token}, Origin="null").status_code == 403
    assert post({**decision, "token": token}, **{"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert post({**decision, "token": token}, **{"Sec-Fetch-Site": "same-site"}).status_code == 403
    port = urlsplit(server.url).port
    assert post({**decision, "token": token}, Host=f"evil.example:{port}").status_code in (400, 403)
    assert http.get(server.page, headers={"Host": f"rebound.example:{port}"}, timeout=10).status_code in (400, 403)
    with requests.Session() as stranger:  # another user of this machine, without the printed address
        assert stranger.get(server.url, timeout=10).status_code == 403
        assert stranger.get(server.url + "?token=guess", timeout=10).status_code == 403
    assert server.reviews() == before, "a refused request changed the ledger"

    unknown = post({"guid": "Q1$<b>nope</b>", "decision": "approved", "token": token, "seen": "0"},
                   Origin=server.origin)
    assert unknown.status_code == 400 and "Q1$&lt;b&gt;nope&lt;/b&gt;" in unknown.text
    accepted = post({"guid": GUIDS[0], "decision": "approved", "token": token, "seen": seen(http, server, GUIDS[0])},
                    Origin=server.origin, **{"Sec-Fetch-Site": "same-origin"})
    assert accepted.status_code == 303
    assert accepted.headers["Location"].startswith(urlsplit(server.url).path + "#statement-Q990301$")
    assert server.reviews()[GUIDS[0]].state == "approved"


def test_every_response_carries_the_security_headers(server, http):
    for response in (http.get(server.page, timeout=10),
                     http.post(server.url + "decide", data={}, allow_redirects=False, timeout=10)):
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src" not in policy
        assert "form-action 'self'" in policy and "base-uri 'none'" in policy
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Cache-Control"] == "no-store"
        assert response.headers["Referrer-Policy"] in ("no-referrer", "same-origin")
    page = http.get(server.page, timeout=10)
    assert page.headers["Content-Type"].startswith("text/html") and 'name="decision"' in page.text
    assert "<script" not in page.text.lower()


def test_a_client_from_another_machine_is_refused(tmp_path):
    options = review_options(tmp_path)
    ledger = RunLedger(options.run.ledger)
    try:
        run_id = ReviewLedger(ledger).import_trace(traces.read(TRACE), TRACE)
    finally:
        ledger.close()
    client = make_app(options, run_id, curator=CURATOR, token="t0ken", base=BASE).test_client()
    assert client.get(BASE + "?token=t0ken", base_url="http://127.0.0.1:8765/").status_code == 200
    remote = client.get(BASE + "?token=t0ken", base_url="http://127.0.0.1:8765/",
                        environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert remote.status_code == 403 and "own machine" in remote.get_data(as_text=True)


def test_no_curator_no_server(tmp_path):
    options = review_options(tmp_path).replaced(review_curator="")
    with pytest.raises(ConfigError, match=r"\[review\] curator"):
        serve(options, 1, curator="  ")
    with pytest.raises(ConfigError, match=r"\[review\] curator"):
        make_app(options, 1, curator="", token="t0ken", base=BASE)


def test_the_sessions_cookie_is_named_for_this_port_and_scoped_to_its_secret_path(server, http):
    parts = urlsplit(server.url)
    assert len(parts.path.strip("/")) >= 16 and server.token(http)  # a secret path, drawn for this server
    issued = http.get(server.page, timeout=10).headers["Set-Cookie"]
    assert issued.startswith(f"refbot_review_{parts.port}=")
    assert f"Path={parts.path};" in issued + ";" and "HttpOnly" in issued and "SameSite=Strict" in issued
    with requests.Session() as browser_like:  # the cookie alone opens the page, beneath the path only
        browser_like.cookies.set(f"refbot_review_{parts.port}", issued.split(";")[0].split("=", 1)[1])
        assert browser_like.get(server.url, timeout=10).status_code == 200
        outside = browser_like.get(f"{server.origin}/?token={server.page.split('token=')[1]}", timeout=10)
        assert outside.status_code == 404  # nothing is served outside the path


def test_the_browser_sends_the_sessions_cookie_to_no_other_server_on_the_machine(server, browser, recording_server):
    """Cookies are not scoped by port and SameSite counts every port of 127.0.0.1 as one site: a page of another
    local server (every evidence link in the demo world is one) must not receive the review token."""
    from selenium.webdriver.common.by import By
    from servers import Reply

    recording_server.script = lambda request: Reply(200, "<html><body><p>another server</p></body></html>",
                                                    {"Content-Type": "text/html"})
    browser.get(server.page)
    browser.get(server.url)  # the address without the token: the cookie carries the session
    assert f"Reviewing run {server.run_id}" in browser.find_element(By.ID, "reviewing").text
    for path in ("/", "/decide", "/news/article.html"):
        browser.get(recording_server.url + path)
    token = server.page.split("token=")[1]
    assert len(recording_server.requests) >= 3
    for request in recording_server.requests:
        cookies = request.headers.get("Cookie", "")
        assert token not in cookies and "refbot_review" not in cookies, f"{request.path} got {cookies}"
