"""`refbot review`'s queue in a real browser (Debian's chromium through chromedriver and Selenium), over a real run
of the demo world (its SPARQL store, sites, records and the real embedding model; the judge's model scripted, since
what is under test is the queue): a curator decides every proposal with one key each, never scrolling, the decisions
survive a reload, filters and skipping work, a hostile trace stays inert, and the server's checks hold for the queue."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import unquote, urlsplit

import pytest
import requests
from lxml import etree

from bot.demo.world import DemoWorld
from bot.datamodel import Paragraph
from bot.errors import InputError
from bot.judge.scripted import ScriptedBackend
from bot.options import Options
from bot.output.run_trace import default_stem, run_trace, write_run
from bot.output import trace as traces
from bot.references import quickstatements
from bot.review.queue import Card, card_from_json, card_json, cards
from bot.review.store import ReviewLedger, keep_for_review
from bot.ledger.ledger import RunLedger
from bot.check_run import Run
from bot.selection.worklists import Worklist
from bot.wiring import Wiring
from test_review import checks
from test_review_browser import (CURATOR, HOSTILE, TRACE, ReviewServer, detached, imported, review_options,
                                 start_server)
from test_trace import CONTEXT, run_info, supported_check

ITEMS = [f"Q99020{n}" for n in range(1, 9)]
MEDAL = "Q990201$B6C2B84D-6CC2-431B-8F79-CA1BC893485E"


def queue_url(server: ReviewServer, query: str = "") -> str:
    return server.url + "queue?" + (query + "&" if query else "") + "token=" + server.page.split("token=")[1]


def read_off(prefix: str, continuation: str) -> list[float]:
    text = prefix.lower()
    return [0.0 if word.lower() in text else -3.0 for word in continuation.split()]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> ReviewServer:
    """A run over the demo world's eight items, its trace in the ledger, and `refbot review`'s server for it. The
    scripted model supports every unit it is asked about but those of the page on the Catalysis Medal's winner: its
    paragraph that negates the medal for her, and its header line naming her only among the shortlist."""
    tmp = tmp_path_factory.mktemp("queue")
    with DemoWorld(workdir=tmp) as world:
        options = Options.flat(**world.options(), check_reports=tmp / "reports", run_ledger=tmp / "runs.sqlite",
                               check_workers=1, review_curator=CURATOR)
        model = ScriptedBackend(support=lambda prompt: 0.05 if "but not the European" in prompt
                                or "beats a shortlist" in prompt else 0.95,
                                logprobs=read_off)
        parts = Wiring(options, backend=model)
        with RunLedger(options.run.ledger) as ledger, Run.open(parts, Worklist.of_items(ITEMS), ledger) as run:
            result = run.check()
            tree = run_trace(result, ledger, parts)
            keep_for_review(ledger, result.run_id, tree)  # as `refbot run` does: the run is reviewed from the ledger
            write_run(tree, default_stem(result, options.check.reports, ledger))
            run_id = run.id
    return start_server(options, run_id)


def every_card(server: ReviewServer):
    ledger = RunLedger(server.options.run.ledger)
    try:
        return cards(ReviewLedger(ledger).trace(server.run_id).getroot())
    finally:
        ledger.close()


def card_guid(driver) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.ID, "card")
    return found[0].get_attribute("data-guid") if found else ""


def in_view(driver, element_id: str) -> bool:
    return driver.execute_script(
        "var r = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight && window.scrollY === 0;", element_id)


def press(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    before = driver.find_element("tag name", "main")
    ActionChains(driver).send_keys(key).perform()
    WebDriverWait(driver, 15).until(lambda _: detached(before))


@pytest.mark.slow
def test_a_curator_decides_every_proposal_of_a_demo_run_with_one_key_each_and_never_scrolls(demo_run, browser):
    from selenium.webdriver.common.by import By

    every = every_card(demo_run)
    proposals = [card for card in every if card.proposed]
    # The default queue holds the statements a source says are false, with nothing proposed, too: no extra click.
    resolvable = {card.guid for card in every if card.resolvable}
    to_decide = [card for card in every if card.proposed or card.resolvable]
    assert len(proposals) >= 10 and all(card.undecided for card in proposals) and resolvable
    browser.set_window_size(1280, 800)
    browser.get(queue_url(demo_run))
    assert browser.find_element(By.CSS_SELECTOR, "link[rel='icon']").get_attribute("href").startswith(
        "data:image/svg+xml,"), "the page has its icon (the policy allows data: images)"
    skipped = card_guid(browser)
    press(browser, "s")  # the first card is left for later: it comes back once the others are decided
    keys, decided, flashes = 1, {}, []
    while browser.find_elements(By.ID, "card"):
        guid = card_guid(browser)
        assert guid not in decided, "a decided card came round again"
        actions = ("acknowledge", "value-wrong") if guid in resolvable else ("approve", "reject")
        assert all(in_view(browser, action) for action in actions), "the actions are in view without scrolling"
        bottom, height = browser.execute_script("return [document.getElementById('card').getBoundingClientRect()"
                                                ".bottom, window.innerHeight];")
        assert bottom <= height, f"card {guid} is {bottom - height:.0f} px taller than a 1280×800 window"
        assert browser.switch_to.active_element.get_attribute("id") == actions[0]
        left = int(browser.find_element(By.ID, "left").text.split()[0])
        assert left == len(to_decide) - len(decided)
        key = "a" if guid in resolvable or len(decided) % 3 else "r"
        press(browser, key)
        keys += 1
        decided[guid] = "acknowledged" if guid in resolvable else "approved" if key == "a" else "rejected"
        flashes.append(browser.find_element(By.ID, "flash").text)
    assert keys == len(to_decide) + 1 and set(decided) == {card.guid for card in to_decide}
    assert list(decided)[-1] == skipped
    assert browser.find_element(By.ID, "done").text.startswith("Nothing left to decide")
    first = next(iter(decided))
    title = next(card.title for card in to_decide if card.guid == first)
    assert flashes[0] == (f"Seen, left as it is: {title}" if first in resolvable else f"Rejected: {title}") \
        + " · change it u"
    assert "with evidence against" not in browser.find_element(By.ID, "done").text, "every one resolved"

    reviews = demo_run.reviews()
    judged = {guid: state for guid, state in decided.items() if guid not in resolvable}
    assert {guid: reviews[guid].state for guid in judged} == judged
    assert {reviews[guid].curator for guid in judged} == {CURATOR}
    ledger = RunLedger(demo_run.options.run.ledger)
    try:
        assert set(ReviewLedger(ledger).resolved(demo_run.run_id, "acknowledged")) == resolvable
    finally:
        ledger.close()
    browser.refresh()  # decisions are kept: nothing is left after a reload, and each card shows its state
    assert browser.find_element(By.ID, "done")
    for guid, state in list(decided.items())[:3]:
        browser.get(queue_url(demo_run, f"show=all&at={guid.replace('$', '%24')}"))
        assert card_guid(browser) == guid
        assert browser.find_element(By.ID, "card").get_attribute("data-state") == state


@pytest.mark.slow
def test_the_medal_shows_its_evidence_against_and_the_filters_choose_the_cards(demo_run, browser):
    from selenium.webdriver.common.by import By

    every = every_card(demo_run)
    medal = next(card for card in every if card.guid == MEDAL)
    assert medal.outcome == "contradicted" and not medal.proposed
    assert [evidence.why for evidence in medal.against] == ["the value is negated (“not”)"]
    browser.get(queue_url(demo_run, "show=contradicted"))
    shown = []
    while card_guid(browser) not in shown:
        shown.append(card_guid(browser))
        browser.find_element(By.ID, "skip").click()
    assert MEDAL in shown and set(shown) == {card.guid for card in every if card.shown_in("contradicted")}
    browser.get(queue_url(demo_run, f"show=contradicted&at={MEDAL.replace('$', '%24')}"))
    text = browser.find_element(By.ID, "card").text
    assert "Evidence against (1)" in text and "but not the European Catalysis Medal itself" in text
    assert browser.find_elements(By.ID, "approve") == [], "nothing to approve on a statement with nothing proposed"
    marked = browser.find_element(By.CSS_SELECTOR, "blockquote.against mark").text
    assert "not the European Catalysis Medal" in marked

    award = next(card for card in every if card.property_id == "P166" and card.proposed)
    browser.get(queue_url(demo_run, "show=all&property=P166"))
    assert card_guid(browser) and all(card.property_id == "P166" for card in every if card.guid == card_guid(browser))
    assert {card.property_id for card in every if card.shown_in("all", "P166")} == {"P166"}
    assert award.shown_in("supported") and not award.shown_in("corroborated")


@pytest.mark.slow
def test_a_qualifier_and_the_source_are_on_the_card(demo_run):
    every = {card.guid: card for card in every_card(demo_run)}
    population = next(card for card in every.values() if card.property_id == "P1082")
    assert population.qualifiers == (("point in time", "2021"),), "the census year is on the card"
    brno = next(card for card in every.values() if card.value_text == "Brno Innovation Award")
    assert brno.source is not None and brno.source.archive_url.startswith("https://web.archive.org/")
    assert "archived copy of 2019-06-12" in brno.source.read
    assert brno.paragraph is not None and any(marked for _, marked in brno.paragraph.parts)
    # The card links the copy where refbot read it (here the demo world's archive, which has copies of its loopback
    # pages); the reference keeps the public archive's address.
    page = etree.HTML(requests.get(queue_url(demo_run, f"show=all&at={brno.guid.replace('$', '%24')}"),
                                   timeout=20).text)
    archived = page.xpath("//p[@class='source']/a[text()='archived copy']/@href")
    assert archived == [demo_run.options.archive.web_url + brno.source.archive_url[len("https://web.archive.org"):]]
    assert brno.source.archive_url in page.xpath("string(//table[@class='snaks'])")


@pytest.mark.slow
def test_each_qualifier_is_marked_checked_with_the_sentence_or_unchecked_with_the_pages_date(demo_run):
    web = [card for card in every_card(demo_run) if card.kind == "web" and card.qualifiers]
    assert web and all(len(card.qualifier_checks) == len(card.qualifiers) for card in web)
    checks = {(card.value_text, card.qualifiers[0][1]): card.qualifier_checks[0] for card in web}
    # "won the Prague Spring Violin Prize in 2004": the year is in the paragraph
    violin = next(check for (value, year), check in checks.items() if year == "2004")
    assert violin[0] == "checked" and "2004" in violin[1]
    # "earlier this month Novotná received the Purkyně Prize": no year in the paragraph; the page is dated in 2021
    purkyne = checks[("Purkyně Prize for Chemistry", "2021")]
    assert purkyne[0] == "dated" and purkyne[1].startswith("2021-06"), purkyne
    at = next(card.guid for card in web if card.value_text == "Purkyně Prize for Chemistry").replace("$", "%24")
    page = etree.HTML(requests.get(queue_url(demo_run, f"show=all&at={at}"), timeout=20).text)
    assert f"the paragraph gives no time, but the page is dated {purkyne[1]}, within it" in " ".join(
        page.xpath("string(//p[@class='qualifiers'])").split())
    # the 2021 population from a page of 2022 ("at the last census"): neither the paragraph nor the page's date
    census = next(card.qualifier_checks[0] for card in web if card.property_id == "P1082")
    assert census[0] == "unchecked" and census[1].startswith("2022"), census


@pytest.mark.slow
def test_a_record_card_shows_the_triple_the_record_states_and_whether_the_model_chose_its_relation(demo_run):
    records = [card for card in every_card(demo_run) if card.kind == "stated-in"]
    assert records and all(card.triple[1].startswith("http") and card.triple[2] for card in records), \
        [card.triple for card in records]
    birthplace = next(card for card in records if card.property_id == "P19")
    assert birthplace.triple[0] and "Brno" in birthplace.triple[2] and birthplace.chosen_by == ""
    assert all(not card.chosen_by for card in records), "the scripted model picks nothing: the mappings recognised all"
    page = etree.HTML(requests.get(queue_url(demo_run, f"show=all&at={birthplace.guid.replace('$', '%24')}"),
                                   timeout=20).text)
    assert birthplace.triple[1] in page.xpath("string(//table[@id='triple'])")
    assert not page.xpath("//*[@id='chosen-by']")

    # Where the model chose the relation (its picks accepted the chosen candidate's), the card says so.
    ledger = RunLedger(demo_run.options.run.ledger)
    try:
        root = ReviewLedger(ledger).trace(demo_run.run_id).getroot()
    finally:
        ledger.close()
    statement = next(element for element in root.iter(traces.tag("statement"))
                     if element.get("guid") == birthplace.guid)
    record = next(record for record in statement.iter(traces.tag("record")) if record.get("finding") == "corroborated")
    chosen = next(candidate for candidate in record.iter(traces.tag("candidate")) if candidate.get("chosen"))
    picks = etree.SubElement(record, traces.tag("picks"), model="qwen2.5-coder-1.5b")
    etree.SubElement(picks, traces.tag("accepted")).text = chosen.get("relation")
    picked = next(card for card in cards(root) if card.guid == birthplace.guid)
    assert picked.chosen_by == "qwen2.5-coder-1.5b" and picked.triple == birthplace.triple


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory) -> ReviewServer:
    options = review_options(tmp_path_factory.mktemp("hostile"))
    return start_server(options, imported(options))


def test_a_hostile_trace_stays_inert_in_the_queue(hostile_server, browser):
    from selenium.webdriver.common.by import By

    browser.get(queue_url(hostile_server, f"show=all&at={HOSTILE.replace('$', '%24')}"))
    assert card_guid(browser) == HOSTILE and "pwned" not in browser.title
    scripts = browser.find_elements(By.TAG_NAME, "script")
    assert len(scripts) == 1 and "keydown" in scripts[0].get_attribute("textContent"), "only the queue's own script"
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.find_elements(By.CSS_SELECTOR, "[onerror], [onmouseover], [onclick]") == []
    assert all(href.startswith(("http://", "https://"))
               for href in (a.get_attribute("href") for a in browser.find_elements(By.TAG_NAME, "a")))
    assert "<script>" in browser.find_element(By.ID, "card").text, "the page's markup is shown as text"


def test_the_queue_keeps_the_servers_checks(hostile_server, http):
    server = hostile_server
    page = http.get(queue_url(server), timeout=10)
    policy = page.headers["Content-Security-Policy"]
    nonce = policy.split("'nonce-", 1)[1].split("'", 1)[0]
    scripts = policy.split("script-src", 1)[1]
    assert scripts.strip().startswith("'nonce-") and "unsafe" not in scripts, "only the page's own script runs"
    assert f'<script nonce="{nonce}">' in page.text and page.text.count("<script") == 1
    assert http.get(queue_url(server), timeout=10).headers["Content-Security-Policy"] != policy, "a nonce per page"
    with requests.Session() as stranger:
        stranger.trust_env = False
        assert stranger.get(server.url + "queue", timeout=10).status_code == 403
        refused = stranger.get(server.url + "queue?token=guess", timeout=10)
        assert refused.status_code == 403 and "open the address <code>refbot review</code> printed" in refused.text
        assert "<a " not in refused.text, "no link a refusal would refuse again"
    port = urlsplit(server.url).port
    assert http.get(queue_url(server), headers={"Host": f"rebound.example:{port}"}, timeout=10).status_code == 403
    token = etree.HTML(page.text).xpath("//form[@class='decide']/input[@name='token']/@value")[0]
    seen = etree.HTML(page.text).xpath("//form[@class='decide']/input[@name='seen']/@value")[0]
    guid = etree.HTML(page.text).xpath("//form[@class='decide']/input[@name='guid']/@value")[0]
    form = {"guid": guid, "decision": "approved", "token": token, "seen": seen, "back": "queue", "show": "undecided"}
    forged = http.post(server.url + "decide", data=form, headers={"Origin": "http://evil.example"},
                       allow_redirects=False, timeout=10)
    assert forged.status_code == 403 and server.reviews()[guid].state == "proposed"
    accepted = http.post(server.url + "decide", data=form, headers={"Origin": server.origin},
                         allow_redirects=False, timeout=10)
    assert accepted.status_code == 303
    location = accepted.headers["Location"]
    assert location.startswith(urlsplit(server.url).path + "queue?show=undecided&after=")
    assert "done=approved" in location
    again = http.post(server.url + "decide", data={**form, "decision": "rejected", "note": "the page is a <b>blog</b>"},
                      headers={"Origin": server.origin}, allow_redirects=False, timeout=10)
    assert again.status_code == 409, "the decision was made on a page that showed the card undecided"
    page = etree.HTML(again.text)
    assert page.xpath("//style") and "A colleague decided this statement meanwhile" in page.xpath("string(//main)")
    kept = {field.get("name"): field.get("value") for field in page.xpath("//main//form//input")}
    assert kept["note"] == "the page is a <b>blog</b>", "the typed note is kept"
    assert kept["seen"] == str(server.reviews()[guid].decision_id) and kept["guid"] == guid
    assert page.xpath("//button[@id='again']/@value") == ["rejected"]
    over = http.post(server.url + "decide", data={**form, **kept, "decision": "rejected"},
                     headers={"Origin": server.origin}, allow_redirects=False, timeout=10)
    assert over.status_code == 303 and server.reviews()[guid].state == "rejected"
    assert server.reviews()[guid].note == "the page is a <b>blog</b>"


@pytest.fixture
def queue(tmp_path):
    """A run whose queue holds A, B, C (award received) and D (educated at), in this order, all undecided: its
    shelf, and a way to decide a card."""
    found = checks()[:3]
    educated = replace(found[0].statement, guid="Q990201$AAAA-5", property_id="P69", property_label="educated at")
    found.append(replace(found[0], statement=educated,
                         quickstatements=quickstatements(educated, found[0].reference, "refbot")))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, check) for check in found])])
    path = traces.write(tree, tmp_path / "check.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(path), path)
    names = dict(zip("ABCD", [check.statement.guid for check in found]))

    def guid(card: Card | None) -> str | None:
        return next(name for name, full in names.items() if full == card.guid) if card is not None else None

    def decide(name: str, decision: str) -> None:
        store.decide(run, [names[name]], decision, curator="Ada")

    yield store.shelf(run), guid, decide, names
    store.ledger.close()


def test_skipping_moves_on_and_a_skipped_card_comes_back_only_when_nothing_else_is_left(queue):
    shelf, guid, decide, names = queue
    assert guid(shelf.next_card("undecided")) == "A"
    assert guid(shelf.next_card("undecided", after=names["A"])) == "B"  # A skipped
    decide("B", "approved")
    assert guid(shelf.next_card("undecided", after=names["B"])) == "C", "after B is decided, C — not the skipped A"
    assert guid(shelf.next_card("undecided", "P69", after=names["A"])) == "D"
    assert shelf.next_card("undecided", "P31") is None
    # Browsing a filter other than undecided, a decision moves on to the next undecided card, else the next one.
    assert guid(shelf.next_card("all", after=names["A"])) == "C"
    decide("C", "rejected")
    decide("D", "rejected")
    assert guid(shelf.next_card("undecided", after=names["D"])) == "A", "the skipped card, once nothing else is left"
    assert guid(shelf.next_card("undecided", after=names["A"])) == "A"
    decide("A", "approved")
    assert shelf.next_card("undecided", after=names["C"]) is None
    assert guid(shelf.next_card("all", after=names["A"])) == "B"


def test_a_queue_page_shows_the_card_asked_for_or_moves_on_as_the_curator_did(queue):
    shelf, guid, decide, names = queue
    decide("A", "approved")
    decide("C", "rejected")
    decide("D", "approved")
    assert guid(shelf.pick("all", at=names["C"])) == "C"
    assert guid(shelf.pick("undecided", at=names["C"])) == "B", "a card the filter does not show is not shown"
    assert guid(shelf.pick("all", after=names["B"])) == "C", "Next while browsing: the next card, decided or not"
    assert guid(shelf.pick("all", after=names["A"], decided=True)) == "B", "after a decision: the next undecided"
    assert guid(shelf.pick("undecided", after=names["B"])) == "B", "the only undecided card comes back"
    assert shelf.neighbour("all", "", names["A"], -1) == names["D"]
    assert shelf.neighbour("all", "", names["D"], 1) == names["A"]
    assert shelf.neighbour("all", "P69", names["D"], 1) is None, "nothing else in the filter"
    assert shelf.pick("all", at=names["A"]).state == "approved" and shelf.card(names["B"]).undecided
    counts = shelf.counts("all", "P166")
    assert (counts.proposals, counts.decided, counts.left, counts.shown) == (4, 3, 1, 3)
    assert shelf.properties() == [("P166", "award received", 3), ("P69", "educated at", 1)]


def test_a_card_kept_in_the_ledger_is_the_card_read_from_the_trace():
    for card in cards(traces.read(TRACE).getroot()):
        assert card_from_json(card_json(card)) == card


def test_enter_in_the_note_records_nothing_and_escape_leaves_it(hostile_server, browser):
    """A curator who types why they reject and presses Enter must not have approved: only the buttons decide."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(queue_url(hostile_server))
    guid = card_guid(browser)
    before = hostile_server.reviews()[guid].state
    note = browser.find_element(By.ID, "note")
    note.send_keys("the page is about someone else", Keys.ENTER)
    assert card_guid(browser) == guid and hostile_server.reviews()[guid].state == before
    note.send_keys(Keys.ESCAPE)
    press(browser, "r")
    reviews = hostile_server.reviews()
    assert reviews[guid].state == "rejected" and reviews[guid].note == "the page is about someone else"


def fresh_copy(server: ReviewServer, tmp_path) -> ReviewServer:
    """Another `refbot review` server for the demo run, on a copy of its ledger as the fixture made it."""
    import shutil

    shutil.copy(server.options.run.ledger, tmp_path / "runs.sqlite")
    return start_server(server.options.replaced(run_ledger=tmp_path / "runs.sqlite"), server.run_id)


def page_of(server: ReviewServer, query: str):
    return etree.HTML(requests.get(queue_url(server, query), timeout=20).text)


def post(server: ReviewServer, page, decision: str, note: str = "") -> requests.Response:
    fields = {field.get("name"): field.get("value") for field in page.xpath("//form[@class='decide']/input")}
    return requests.post(server.url + "decide", data={**fields, "decision": decision, "note": note},
                         cookies={f"refbot_review_{urlsplit(server.url).port}": server.page.split("token=")[1]},
                         headers={"Origin": server.origin}, timeout=20)


@pytest.mark.slow
def test_evidence_against_is_resolved_counted_down_exported_and_every_decision_can_be_reopened(demo_run, tmp_path):
    from bot.cli import main

    server = fresh_copy(demo_run, tmp_path)
    resolvable = [card for card in every_card(server) if card.resolvable]
    assert len(resolvable) >= 2, [card.title for card in every_card(server)]
    first = page_of(server, "show=contradicted")
    against = int(first.xpath("string(//*[@id='against-count'])").split()[0])
    at = resolvable[0].guid.replace("$", "%24")
    card = page_of(server, f"show=contradicted&at={at}")
    assert card.xpath("//button[@id='approve']") == [] and card.xpath("//button[@id='acknowledge']")
    answer = post(server, card, "acknowledged", note="the source is a satire column")
    assert answer.status_code == 200
    after = etree.HTML(answer.text)
    assert "Seen, left as it is:" in after.xpath("string(//*[@id='flash'])")
    assert int(after.xpath("string(//*[@id='against-count'])").split()[0]) == against - 1, "the count drops"
    assert after.xpath("string(//*[@id='card']/@data-guid)") != resolvable[0].guid, "skip never returns to it"
    assert unquote(after.xpath("string(//*[@id='flash']/a[@id='undo']/@href)")).endswith(f"at={resolvable[0].guid}"), \
        "the confirmation links the decision, to change it (u)"

    # Reopened from anywhere (the last decision's link): its state and note are on the card.
    reopened = page_of(server, f"show=all&at={at}")
    assert "acknowledged by " + CURATOR in reopened.xpath("string(//*[@id='card']//span[@class='state acknowledged'])")
    assert reopened.xpath("string(//*[@id='note-shown'])") == "note: “the source is a satire column”"
    assert reopened.xpath("//input[@id='note']/@value") == [""], "a new decision starts a note of its own"

    wrong = page_of(server, f"show=contradicted&at={resolvable[1].guid.replace('$', '%24')}")
    assert post(server, wrong, "value-wrong", note="checked the parish register").status_code == 200
    out = tmp_path / "wrong.tsv"
    assert main(["export", "--run", str(server.run_id), "--wrong-values", "--out", str(out),
                 "--ledger", str(tmp_path / "runs.sqlite")]) in (0, None)
    header, *rows = out.read_text(encoding="utf-8").splitlines()
    assert header.split("\t")[:6] == ["item", "item label", "property", "property label", "value", "statement"]
    assert len(rows) == 1 and rows[0].split("\t")[5] == resolvable[1].guid
    assert rows[0].split("\t")[-3:] == [CURATOR, rows[0].split("\t")[-2], "checked the parish register"]


@pytest.mark.slow
def test_property_counts_follow_the_decisions(demo_run, tmp_path):
    server = fresh_copy(demo_run, tmp_path)
    page = page_of(server, "")
    counts = {link.get("data-property"): link.text.rsplit("(", 1)[1].rstrip(")")
              for link in page.xpath("//nav//*[@data-property]")}
    prop = page.xpath("string(//form[@class='decide']/input[@name='guid']/@value)")
    guid = prop
    property_id = next(card.property_id for card in every_card(server) if card.guid == guid)
    left, total = map(int, counts[property_id].split("/"))
    after = etree.HTML(post(server, page, "approved").text)
    link = after.xpath(f"//nav//*[@data-property='{property_id}']")[0]
    assert link.text.rsplit("(", 1)[1].rstrip(")") == f"{left - 1}/{total}"


def test_a_curator_approves_another_supporting_paragraph_and_its_reference_is_the_one_written(tmp_path):
    """A statement two pages support: the card offers the second page's paragraph, and an approval with it writes
    (apply) and exports (QuickStatements) the second page's reference, its quotation that paragraph's sentence."""
    from bot.cli import main
    from bot.review.server import make_app

    check = supported_check()
    first = check.documents[0]
    url = "https://chronicle.example/2021/06/novotna.html"
    text = "In June 2021 Marta Novotná received the Purkyně Prize for Chemistry, the chronicle reported."
    paragraph = Paragraph(text, url, 3, 400, 400 + len(text))
    ranked = replace(first.judged[0].ranked, paragraph=paragraph)
    judged = replace(first.judged[0], ranked=ranked, judgement=replace(first.judged[0].judgement, support=0.82))
    fetched = replace(first.retrieved.used, url=url, final_url=url, retrieved="2026-11-22T08:00:00Z")
    second = replace(first, candidate=replace(first.candidate, url=url, title="Novotná honoured", rank=2),
                     retrieved=replace(first.retrieved, url=url, live=fetched, document=replace(
                         first.retrieved.document, url=url, title="Novotná honoured", paragraphs=(paragraph,))),
                     judged=(judged,))
    check = replace(check, documents=(first, second))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, check)])])
    path = traces.write(tree, tmp_path / "check.xml")
    (card,) = cards(traces.read(path).getroot())
    (other,) = card.alternatives
    assert (other.url, other.paragraph, other.support) == (url, text, 0.82)

    options = review_options(tmp_path)
    store = ReviewLedger(RunLedger(options.run.ledger))
    try:
        run = store.import_trace(traces.read(path), path)
        base = "/a-secret-path-for-tests/"
        client = make_app(options, run, curator=CURATOR, token="t" * 32, base=base, store=store).test_client()
        page = etree.HTML(client.get(base + "queue?token=" + "t" * 32,
                                     environ_base={"REMOTE_ADDR": "127.0.0.1"},
                                     headers={"Host": "127.0.0.1:80"}).get_data(as_text=True))
        assert page.xpath("//input[@name='paragraph']/@value") == ["", other.key]
        with pytest.raises(InputError, match="no other supporting paragraph"):
            store.decide(run, [card.guid], "approved", curator=CURATOR, paragraph="9:9")
        store.decide(run, [card.guid], "approved", curator=CURATOR, paragraph=other.key)
        (written,) = [proposal for _, proposal in store.approved_unwritten([run])]
    finally:
        store.ledger.close()
    assert written.url == url and written.snak("P854").text == url and written.snak("P1476").text == "Novotná honoured"
    assert written.snak("P1683").text == text and written.snak("P813").text == "2026-11-22"
    assert main(["export", "--run", str(run), "--quickstatements", "--approved", "--out", str(tmp_path / "qs.tsv"),
                 "--ledger", str(options.run.ledger)]) in (0, None)
    (line,) = (tmp_path / "qs.tsv").read_text(encoding="utf-8").splitlines()
    assert line == written.quickstatements and f'"{url}"' in line


@pytest.mark.slow
def test_once_every_card_of_a_view_is_decided_the_view_says_so_instead_of_cycling_through_them(demo_run, tmp_path):
    server = fresh_copy(demo_run, tmp_path)
    in_view = {card.guid for card in every_card(server) if card.shown_in("contradicted")}
    page = page_of(server, "show=contradicted")
    seen = []
    while page.xpath("//*[@id='card']"):
        guid = page.xpath("string(//*[@id='card']/@data-guid)")
        assert guid not in seen, "a card decided in this view came round again"
        seen.append(guid)
        decision = "acknowledged" if page.xpath("//button[@id='acknowledge']") else "rejected"
        page = etree.HTML(post(server, page, decision).text)
    assert set(seen) == in_view
    assert "Nothing left to decide in this view" in page.xpath("string(//*[@id='done'])")
    browsed = page_of(server, "show=contradicted")  # opened again, the view shows its (decided) cards to change
    assert browsed.xpath("string(//*[@id='card']/@data-guid)") in in_view
