"""`refbot review` at the size of a real run (issue 44): the server starts, serves a queue page and records a decision
reading the run's cards and a few counts from the ledger, never the statements' trace elements (every SQL statement
the real server sends over the test's requests is recorded and read); a run kept before cards existed gets them once;
a run still being checked gets its new statements on the next page; the cards' order and counts are the trace's; and
a trace file is read no further than the cap (``refbot review /dev/zero`` is refused at once, naming the file)."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests
from lxml import etree
from sqlalchemy import event
from sqlalchemy.engine import Engine

from bot.cli import main
from bot.options import Options
from bot.output import trace as traces
from bot.review.queue import cards
from bot.review.store import ReviewLedger, keep_for_review
from bot.ledger.ledger import RunLedger
from test_review_browser import CURATOR, TRACE, ReviewServer, review_options, start_server

# A statement's or an item's trace element read from the ledger: what putting the whole trace together reads.
READS_TRACE = re.compile(r"\b(checks|items)\.element\b")


@contextmanager
def sql_sent() -> Iterator[list[str]]:
    """Every SQL statement this process sends meanwhile (the review server's threads included)."""
    sent: list[str] = []

    def record(connection, cursor, statement, parameters, context, executemany) -> None:
        sent.append(" ".join(statement.split()))

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(Engine, "before_cursor_execute", record)


def reading_the_trace(sent: list[str]) -> list[str]:
    return [statement for statement in sent if READS_TRACE.search(statement)]


def record_run(options: Options, copies: int, *, kept: bool = True, finished: bool = True) -> int:
    """A run of the review trace's four statements, ``copies`` times each (new GUIDs), recorded as `refbot run`
    records one: the item, each statement as it finished, then (``kept``) the run kept for review at its end —
    without it, a run as one kept before the queue's cards existed (its run element alone)."""
    root = traces.read(TRACE).getroot()
    item = copy.deepcopy(root.find(traces.tag("item")))
    statements = list(item.iter(traces.tag("statement")))
    for statement in statements:
        item.remove(statement)
    with RunLedger(options.run.ledger) as ledger:
        run = ledger.open_run(f"scale-{copies}-{kept}-{finished}", "a run for the review's scale", new=True)
        ledger.record_item(run, item.get("id"), traces.to_string(item))
        for number in range(copies):
            for statement in statements:
                record_statement(ledger, run.id, statement, number)
        if finished:
            ledger.finish(run)
        if kept:
            trace = etree.Element(traces.tag("trace"), nsmap={None: traces.NS})
            trace.append(copy.deepcopy(root.find(traces.tag("run"))))
            keep_for_review(ledger, run.id, etree.ElementTree(trace))
        else:
            ledger.record_run_element(run, traces.to_string(root.find(traces.tag("run"))))
        return run.id


def record_statement(ledger: RunLedger, run_id: int, statement, number: int) -> str:
    statement = copy.deepcopy(statement)
    guid = f"{statement.get('guid')[:-12]}{number:012d}"
    statement.set("guid", guid)
    record = ledger.run(run_id)
    assert record is not None
    ledger.record(record, guid, "Q990301", statement.get("outcome"), traces.to_string(statement))
    return guid


def queue_page(http: requests.Session, server: ReviewServer, query: str = "") -> etree._Element:
    page = http.get(server.url + "queue?" + (query + "&" if query else "") + "token=" + server.page.split("token=")[1],
                    timeout=30)
    assert page.status_code == 200
    return etree.HTML(page.text)


def decide(http: requests.Session, server: ReviewServer, page: etree._Element, decision: str) -> requests.Response:
    fields = {field.get("name"): field.get("value") or ""
              for field in page.xpath("//form[@class='decide']/input[@type='hidden']")}
    return http.post(server.url + "decide", data={**fields, "decision": decision}, headers={"Origin": server.origin},
                     allow_redirects=False, timeout=30)


def left(page: etree._Element) -> int:
    return int(page.xpath("string(//*[@id='left'])").split()[0])


def test_a_queue_page_and_a_decision_read_one_card_and_the_counts_never_the_trace(tmp_path, http):
    options = review_options(tmp_path)
    run = record_run(options, copies=25)  # 100 statements, 75 proposals
    server = start_server(options, run)
    with sql_sent() as sent:
        first = queue_page(http, server)
        assert left(first) == 75
        answer = decide(http, server, first, "approved")
        assert answer.status_code == 303
        following = etree.HTML(http.get(server.origin + answer.headers["Location"], timeout=30).text)
        assert left(following) == 74 and following.xpath("string(//*[@id='flash'])").startswith("Approved: ")
        queue_page(http, server, "show=contradicted")
        queue_page(http, server, "show=all&property=P166")
    assert sent and reading_the_trace(sent) == [], "a queue page or a decision read statements of the trace"
    guid = first.xpath("string(//form[@class='decide']/input[@name='guid']/@value)")
    assert server.reviews()[guid].state == "approved"
    server.stop()


def test_a_run_kept_for_review_starts_without_reading_its_statements(tmp_path):
    options = review_options(tmp_path)
    run = record_run(options, copies=25)
    with sql_sent() as sent:
        server = start_server(options, run)
    assert sent and reading_the_trace(sent) == [], "starting read the run's statements again"
    assert server.stop() is None, "nothing decided: the report is not rewritten"


def test_a_run_kept_before_the_queue_had_cards_gets_them_once(tmp_path, http):
    options = review_options(tmp_path)
    run = record_run(options, copies=3, kept=False)
    with sql_sent() as sent:
        server = start_server(options, run)
    assert reading_the_trace(sent), "the statements are read into cards when the run is first reviewed"
    assert left(queue_page(http, server)) == 9
    server.stop()
    with sql_sent() as sent:
        again = start_server(options, run)
        assert left(queue_page(http, again)) == 9
    assert reading_the_trace(sent) == [], "read once: a second review reads no statement again"
    again.stop()


def test_a_statement_recorded_while_the_run_is_reviewed_comes_into_the_queue(tmp_path, http):
    options = review_options(tmp_path)
    run = record_run(options, copies=2, finished=False)  # workers still checking it
    server = start_server(options, run)
    assert left(queue_page(http, server)) == 6
    statement = next(traces.read(TRACE).getroot().iter(traces.tag("statement")))
    with RunLedger(options.run.ledger) as ledger:
        guid = record_statement(ledger, run, statement, 7)
    page = queue_page(http, server, f"show=all&at={guid}")
    assert left(page) == 7 and page.xpath("string(//*[@id='card']/@data-guid)") == guid
    server.stop()


def test_the_queues_order_and_counts_are_the_traces(tmp_path):
    """What the ledger's cards give is what the cards read from the whole trace give: the order, each card, the
    counts, after decisions and a reference written by another run."""
    options = review_options(tmp_path)
    run = record_run(options, copies=4)
    with RunLedger(options.run.ledger) as ledger:
        store = ReviewLedger(ledger)
        proposals = store.reviews(run)
        some = list(proposals)[:5]
        store.decide(run, some[:3], "approved", curator=CURATOR)
        store.decide(run, some[3:4], "rejected", curator=CURATOR, note="a forum")
        other = record_run(options, copies=4)  # the same statements proposed by another run, one written there
        store.decide(other, [some[4]], "approved", curator=CURATOR)
        store.record_write(other, some[4], "written", revision=7, site="https://w.example/w/api.php")

        every = cards(store.trace(run).getroot())
        shelf = store.index(run)
        walked = [every[0].guid]
        while (following := shelf.neighbour("all", "", walked[-1], +1)) not in (walked[0], None):
            walked.append(following)
        assert walked == [card.guid for card in every]
        assert [shelf.card(guid) for guid in walked] == every
        counts = shelf.counts("contradicted", "P166")
        undecided = [card for card in every if card.shown_in("undecided")]
        assert (counts.proposals, counts.decided) == (len([c for c in every if c.proposed]),
                                                      len([c for c in every if c.proposed and not c.undecided]))
        assert counts.left == len([card for card in undecided if card.property_id == "P166"])
        assert counts.shown == len([card for card in every if card.shown_in("contradicted", "P166")])
        assert counts.against == len([card for card in every if card.shown_in("contradicted")
                                      and (card.undecided or (card.resolvable and not card.state))]), \
            "the evidence against nobody decided or resolved yet"
        assert shelf.counts("undecided").left == len(undecided) == len(proposals) - 5
        assert {card.guid: card.state for card in every if card.guid in some} == {
            some[0]: "approved", some[1]: "approved", some[2]: "approved", some[3]: "rejected", some[4]: "written"}


def test_a_trace_file_larger_than_refbot_reads_is_refused_naming_it_and_the_cap(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", CURATOR)
    monkeypatch.setattr(traces, "MAX_TRACE_BYTES", 2**20)
    large = tmp_path / "large.xml"
    large.write_bytes(TRACE.read_bytes() + b"<!-- padding -->" * 2**17)
    for path in (large, "/dev/zero"):
        capsys.readouterr()
        assert main(["review", str(path)]) != 0
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and f"{path}: " in error and "1 MiB" in error, error
        assert "--run ID" in error
    with pytest.raises(Exception, match="1 MiB"):
        traces.read(large)
    monkeypatch.setattr(traces, "MAX_TRACE_BYTES", 2**30)
    assert traces.read(large).getroot().tag == traces.tag("trace"), "under the cap: read"


def test_the_report_is_served_a_page_at_a_time_reading_that_pages_statements_alone(tmp_path, http, monkeypatch):
    """However large the run, a page of its report reads and puts together its own statements only (contradicted
    ones first), and links the others; a page beyond the last, or not a page number, is a 404."""
    from bot.review import actions

    monkeypatch.setattr(actions, "REPORT_PAGE_STATEMENTS", 5)
    options = review_options(tmp_path)
    run = record_run(options, copies=3)  # 12 statements
    root = traces.read(TRACE).getroot()
    contradicted = copy.deepcopy(next(root.iter(traces.tag("statement"))))
    contradicted.set("outcome", "contradicted")
    with RunLedger(options.run.ledger) as ledger:
        last = record_statement(ledger, run, contradicted, 99)  # recorded last, shown first
    server = start_server(options, run)
    seen: list[str] = []
    for number in (1, 2, 3):
        with sql_sent() as sent:
            answer = http.get(server.page + f"&page={number}", timeout=30)
        assert answer.status_code == 200
        page = etree.HTML(answer.text)
        rows = page.xpath("//tr[@class='statement-row']//a[starts-with(@href, '#statement-')]/@href")
        seen += [row.removeprefix("#statement-") for row in rows]
        assert len(rows) == (5, 5, 3)[number - 1]
        nav = " ".join(page.xpath("string(//nav[@class='pages meta'])").split())
        assert nav.startswith(f"Page {number} of 3 (statements {5 * number - 4}–{min(13, 5 * number)} of 13"), nav
        assert bool(page.xpath("//nav//a[@rel='next']")) == (number < 3)
        read = [statement for statement in reading_the_trace(sent) if "checks.element" in statement]
        assert read and all(re.search(r"checks\.id IN \((\?, ){0,4}\?\)", statement) for statement in read), \
            f"a page read more statements than it shows: {read}"
    assert seen[0] == last.replace(" ", "_"), "the contradicted statement is the report's first"
    assert len(set(seen)) == 13, "each statement on one page"
    for beyond in ("4", "0", "-1", "x", "1e3", "99999999999"):
        assert http.get(server.page + f"&page={beyond}", timeout=30).status_code == 404, beyond
    server.stop()


def test_a_run_too_large_for_its_whole_report_is_decided_without_putting_the_trace_together(tmp_path, http,
                                                                                            monkeypatch, capsys):
    """The whole report of a run puts its trace together in memory: for a run over the limit neither a decision nor
    stopping the server builds it; each says how to write it."""
    from bot.review import actions

    monkeypatch.setattr(actions, "REPORT_MOST_STATEMENTS", 10)
    options = review_options(tmp_path)
    run = record_run(options, copies=3)  # 12 statements
    server = start_server(options, run)
    with sql_sent() as sent:
        first = queue_page(http, server)
        assert decide(http, server, first, "approved").status_code == 303
    assert reading_the_trace(sent) == [], "a decision put the trace together"
    with sql_sent() as sent:
        assert server.stop() is None, "a decision was made, but the report of a run this size is not rewritten"
    assert reading_the_trace(sent) == [] and not (tmp_path / "reports" / f"run-{run}.html").exists()

    guid = next(g for g, review in server.reviews().items() if review.state == "proposed")
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", CURATOR)
    monkeypatch.chdir(tmp_path)  # (the reports folder by default: ./reports)
    assert main(["approve", "--run", str(run), guid, "--ledger", str(options.run.ledger)]) == 0
    err = capsys.readouterr().err
    assert f"refbot: run {run} has 12 statements" in err and f"`refbot report --run {run}` writes the report" in err
    assert not (tmp_path / "reports" / f"run-{run}.html").exists()
    assert server.reviews()[guid].state == "approved"
