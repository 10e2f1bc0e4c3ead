"""Two curators reviewing one run: a decision carries the decision its page showed and is refused (409, saying what
the colleague decided) when another came since, so a stale page never overwrites a colleague's rejection; and two
review servers stopping at once each write the run's report through a temporary file of their own."""

from __future__ import annotations

import re
import sqlite3
import threading

import pytest
import requests
from lxml import etree

from bot.output import trace as traces
from bot.output.file_names import CLAIM
from bot.clock import fixed_clock
from bot.review.actions import decide, reviewing
from bot.review.store import DecidedMeanwhile, ReviewLedger
from bot.ledger.ledger import RunLedger
from test_review_browser import GUIDS, ReviewServer, imported, review_options, start_server


def form(http: requests.Session, server: ReviewServer, guid: str) -> dict[str, str]:
    """The hidden fields of the statement's form on a fresh page."""
    page = etree.HTML(http.get(server.page, timeout=10).text)
    (found,) = page.xpath(f"//form[@class='decide'][@data-guid='{guid}']")
    return {field.get("name"): field.get("value") for field in found.xpath("input[@type='hidden']")}


def post(http: requests.Session, server: ReviewServer, fields: dict[str, str], decision: str,
         note: str = "") -> requests.Response:
    return http.post(server.url + "decide", data={**fields, "decision": decision, "note": note},
                     headers={"Origin": server.origin}, allow_redirects=False, timeout=30)


@pytest.fixture
def colleagues(tmp_path):
    """Ada's and Bob's review servers of one run (one ledger, one reports folder)."""
    options = review_options(tmp_path, "Ada")
    run = imported(options)
    return start_server(options, run), start_server(options.replaced(review_curator="Bob"), run)


@pytest.fixture
def sessions():
    with requests.Session() as ada, requests.Session() as bob:
        ada.trust_env = bob.trust_env = False
        yield ada, bob


def test_a_decision_from_a_stale_page_is_refused_and_says_what_the_colleague_decided(colleagues, sessions):
    (ada, bob), (ada_http, bob_http) = colleagues, sessions
    stale = form(ada_http, ada, GUIDS[0])  # Ada's page, loaded before Bob decides
    assert stale["seen"] == "0"
    assert post(bob_http, bob, form(bob_http, bob, GUIDS[0]), "rejected", "the page is a forum").status_code == 303

    refused = post(ada_http, ada, stale, "approved")
    assert refused.status_code == 409
    text = " ".join(etree.HTML(refused.text).xpath("string(//body)").split())
    assert "A colleague decided this statement meanwhile: Bob rejected it at" in text
    assert "with the note “the page is a forum”" in text and "Your decision (approved) was not recorded" in text
    review = ada.reviews()[GUIDS[0]]
    assert (review.state, review.curator, review.note) == ("rejected", "Bob", "the page is a forum")

    again = post(bob_http, bob, form(bob_http, bob, GUIDS[0]) | {"seen": stale["seen"]}, "rejected",
                 "the page is a forum")
    assert again.status_code == 303, "the same decision sent twice (a double click) is no conflict"
    fresh = form(ada_http, ada, GUIDS[0])  # Ada reloads, sees Bob's rejection, and overrules it knowingly
    assert int(fresh["seen"]) > 0
    assert post(ada_http, ada, fresh, "approved", "a newspaper, not a forum").status_code == 303
    assert (ada.reviews()[GUIDS[0]].state, ada.reviews()[GUIDS[0]].curator) == ("approved", "Ada")
    assert post(ada_http, ada, {k: v for k, v in fresh.items() if k != "seen"}, "rejected").status_code == 400


def test_the_ledger_refuses_a_decision_made_on_an_older_one(tmp_path):
    options = review_options(tmp_path, "Ada")
    run = imported(options)
    store = ReviewLedger(RunLedger(options.run.ledger, clock=fixed_clock("2026-11-24T10:00:00Z")))
    shown = store.reviews(run)[GUIDS[1]].decision_id
    assert store.decide(run, [GUIDS[1]], "rejected", curator="Bob", seen={GUIDS[1]: shown}) == [GUIDS[1]]
    meanwhile = rf"statement {re.escape(GUIDS[1])} was rejected by Bob at 2026-11-24T10:00:00Z after your page"
    with pytest.raises(DecidedMeanwhile, match=meanwhile):
        store.decide(run, [GUIDS[1]], "approved", curator="Ada", seen={GUIDS[1]: shown})
    with sqlite3.connect(options.run.ledger) as db:
        assert db.execute("SELECT decision, curator FROM decisions").fetchall() == [("rejected", "Bob")]
    now = store.reviews(run)[GUIDS[1]].decision_id
    review = [s.find(traces.tag("review")) for s in store.trace(run).getroot().iter(traces.tag("statement"))
              if s.get("guid") == GUIDS[1]][0]
    assert review.get("decision-id") == str(now), "the page is rendered with the decision it shows"
    assert store.decide(run, [GUIDS[1]], "approved", curator="Ada", seen={GUIDS[1]: now}) == [GUIDS[1]]
    store.ledger.close()


def test_two_review_servers_deciding_at_once_answer_every_decision(colleagues, sessions):
    (ada, bob), (ada_http, bob_http) = colleagues, sessions
    answers: list[int] = []

    def review(server: ReviewServer, http: requests.Session, guid: str) -> None:
        for turn in range(12):
            answers.append(post(http, server, form(http, server, guid), ("approved", "rejected")[turn % 2]).status_code)

    workers = [threading.Thread(target=review, args=(ada, ada_http, GUIDS[0])),
               threading.Thread(target=review, args=(bob, bob_http, GUIDS[1]))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert answers == [303] * 24
    reviews = ada.reviews()
    assert (reviews[GUIDS[0]].state, reviews[GUIDS[0]].curator) == ("rejected", "Ada")
    assert (reviews[GUIDS[1]].state, reviews[GUIDS[1]].curator) == ("rejected", "Bob")
    stopped: list[object] = []
    stoppers = [threading.Thread(target=lambda server=server: stopped.append(server.stop())) for server in colleagues]
    for stopper in stoppers:  # both stop at once: each writes the report through a temporary file of its own
        stopper.start()
    for stopper in stoppers:
        stopper.join(120)
    reports = ada.options.check.reports
    assert stopped == [reports / f"run-{ada.run_id}.html"] * 2
    assert sorted(path.name for path in reports.iterdir()) == [CLAIM, f"run-{ada.run_id}.html", f"run-{ada.run_id}.xml"]
    states = {statement.get("guid"): statement.find(traces.tag("review")).get("state")
              for statement in traces.read(reports / f"run-{ada.run_id}.xml").getroot().iter(traces.tag("statement"))
              if statement.find(traces.tag("review")) is not None}
    assert states[GUIDS[0]] == states[GUIDS[1]] == "rejected"


def test_each_write_of_a_report_has_a_temporary_file_of_its_own(tmp_path):
    options = review_options(tmp_path, "Ada")
    run = imported(options)
    reports = options.check.reports
    reports.mkdir()
    theirs = {reports / f"run-{run}.xml.partial": "<half of another server's trace",
              reports / f"run-{run}.html.partial": "<half of another server's report"}
    for path, text in theirs.items():
        path.write_text(text, encoding="utf-8")
    with reviewing(options, run_id=run) as (store, chosen):
        decide(options, store, chosen, [GUIDS[0]], "approved", curator="Ada")
    assert {path: path.read_text(encoding="utf-8") for path in theirs} == theirs, "another writer's file was taken"
    written = reports / f"run-{run}.xml"
    assert traces.read(written).getroot().find(traces.tag("item")) is not None
    assert (written.stat().st_mode & 0o777) == 0o600 and ((reports / f"run-{run}.html").stat().st_mode & 0o777) == 0o600
    assert sorted(path.name for path in reports.iterdir()) == sorted(
        [CLAIM, f"run-{run}.xml", f"run-{run}.html", *(path.name for path in theirs)])
