"""A curator sees the edits the review service made as them, on the wiki's own pages (the edit's difference, the
item's history, their contributions, the recent changes), and undoes one: the reference refbot added is taken off
again, as them, with a summary naming the undo, and the card is open to decide again. Reopening a decided card
starts a fresh note; a ticked "leave out" box leaves the keys to the queue. Screenshots of the card, the history page
and the undo are kept in reports/test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from lxml import etree

from bot.demo.world import DemoWorld
from bot.review.applying import Edit
from bot.review.proposals import Proposal
from bot.references import Snak
from bot.review.undoing import Undo, inverse, undo_summary
from bot.demo.wikibase import Account
from test_review_service import CURATOR, GUIDS, PASSWORD, PROPOSED, Service, sign_in, start_service

ARTIFACTS = Path(__file__).resolve().parent.parent / "reports" / "test-artifacts"


@pytest.fixture
def service(tmp_path):
    with DemoWorld(workdir=tmp_path, accounts={CURATOR: Account({}, groups=(), password=PASSWORD)}) as world:
        running = start_service(world, tmp_path)
        yield running
        running.stop()


def _browser_sign_in(browser, service: Service) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.delete_all_cookies()
    browser.get(f"{service.url}/login?next=/run/{service.run_id}/queue")
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "wpName1"))
    browser.find_element(By.ID, "wpName1").send_keys(CURATOR)
    browser.find_element(By.ID, "wpPassword1").send_keys(PASSWORD)
    browser.find_element(By.ID, "allow").click()
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "account"))


def _press(browser, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(key).perform()


def _wait_for(browser, element_id: str, text: str = "") -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.ID, element_id) and text in d.find_element(By.ID, element_id).text)
    return browser.find_element(By.ID, element_id).text


def _shot(browser, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / name))


def _urls(world: DemoWorld, guid: str) -> list[str]:
    return [snak["datavalue"]["value"] for reference in world.wikibase.statement(guid).get("references") or []
            for snak in reference["snaks"].get("P854", [])]


def test_a_curator_sees_their_edit_in_the_wikis_history_and_undoes_it_as_themselves(service, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    world = service.world
    guid, _pid, _label, url = PROPOSED[0]
    _browser_sign_in(browser, service)
    browser.get(f"{service.url}/run/{service.run_id}/queue?show=all&at={guid}")
    _press(browser, "a")
    flash = _wait_for(browser, "flash", "written as")
    assert f"written as {CURATOR}, revision" in flash
    written = int(flash.rsplit("revision", 1)[1].split()[0].strip(" ;."))

    # The card of the written reference links its edit, and `u` (the last decision) opens it.
    _press(browser, "u")
    line = _wait_for(browser, "written-edit", "revision")
    assert f"revision {written}" in line and "z takes it off again" in line
    assert f"the item's history, {CURATOR}'s contributions" in line
    _shot(browser, "undo-1-written-card.png")
    card = browser.current_url
    browser.find_element(By.ID, "history-link").click()
    assert "Revision history" in browser.find_element(By.TAG_NAME, "h1").text
    browser.get(card)
    browser.find_element(By.ID, "contributions-link").click()
    assert f"User contributions for {CURATOR}" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(card)
    browser.find_element(By.ID, "revision-link").click()
    diff = _wait_for(browser, "diff", CURATOR)
    assert f"Revision {written}" in diff and f"approved by {CURATOR}" in diff
    assert f"+ reference: reference URL: {url}" in browser.find_element(By.TAG_NAME, "body").text
    browser.find_element(By.LINK_TEXT, "View history").click()
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "Revision history" in body and CURATOR in body and f"approved by {CURATOR}" in body
    _shot(browser, "undo-2-item-history.png")
    browser.find_element(By.CLASS_NAME, "mw-userlink").click()
    assert f"User contributions for {CURATOR}" in browser.find_element(By.TAG_NAME, "body").text

    # Undo, from the card: the reference comes off, as the curator, with a summary that names the undo.
    browser.get(f"{service.url}/run/{service.run_id}/queue?show=all&at={guid}")
    _wait_for(browser, "written-edit", "revision")
    browser.find_element(By.ID, "note").send_keys("wrong lecture")
    browser.find_element(By.ID, "note").send_keys(Keys.ESCAPE)
    _press(browser, "z")  # Undo's own key: a second press finds nothing to undo, and never rejects
    flash = _wait_for(browser, "flash", "Undone")
    _press(browser, "z")
    assert f"taken off as {CURATOR}" in flash
    _shot(browser, "undo-3-undone-card.png")
    assert browser.find_element(By.ID, "card").get_attribute("data-state") == "rejected"
    assert browser.find_elements(By.ID, "approve"), "the undone card can be decided again"
    assert _urls(world, guid) == []
    undo = world.wikibase.revisions[-1]
    assert (undo.user, undo.action, undo.statement, undo.bot) == (CURATOR, "wbremovereferences", guid, False)
    assert undo.summary.startswith(f"Undid revision {written}: refbot's reference taken off by {CURATOR} "
                                   "(wrong lecture)")
    reviews = service.reviews()
    assert reviews[guid].state == "rejected" and reviews[guid].note == f"undid revision {written}: wrong lecture"

    # The wiki's history, for programs too: the curator's contributions and the recent changes list both edits.
    api = world.base("wikidata") + "/w/api.php"
    contributions = requests.get(api, params={"action": "query", "list": "usercontribs", "ucuser": CURATOR,
                                              "format": "json"}, timeout=10).json()["query"]["usercontribs"]
    assert [(c["revid"], c["title"]) for c in contributions] == [(undo.revid, guid.split("$")[0]),
                                                                 (written, guid.split("$")[0])]
    changes = requests.get(api, params={"action": "query", "list": "recentchanges", "rcuser": CURATOR,
                                        "format": "json"}, timeout=10).json()["query"]["recentchanges"]
    assert [change["revid"] for change in changes] == [undo.revid, written]
    history = requests.get(api, params={"action": "query", "prop": "revisions", "titles": guid.split("$")[0],
                                        "format": "json"}, timeout=10).json()["query"]["pages"][0]["revisions"]
    assert history[0]["comment"] == undo.summary and history[0]["parentid"] == written

    # Approving it again writes it again.
    browser.find_element(By.ID, "approve").click()
    assert f"written as {CURATOR}" in _wait_for(browser, "flash", "written")
    assert _urls(world, guid) == [url]


def test_an_undo_that_finds_the_reference_changed_or_gone_leaves_the_wiki_as_it_is_and_says_why(service):
    world = service.world
    guid, _pid, _label, url = PROPOSED[1]
    http = requests.Session()
    sign_in(http, service, CURATOR, PASSWORD, f"/run/{service.run_id}/queue")
    _approve(http, service, guid)

    # Someone else edits the reference (adds a snak) before the curator undoes it.
    statement = world.wikibase.statement(guid)
    ours = next(reference for reference in statement["references"] if "P854" in reference["snaks"])
    world.wikibase.add_reference(guid, "https://elsewhere.example/other.html")
    world.wikibase.replace_reference(guid, ours["hash"], {**ours["snaks"], "P1683": [{
        **_text("a quotation someone added"), "property": "P1683"}]})
    edits = len(world.wikibase.revisions)
    page = etree.HTML(http.get(f"{service.url}/run/{service.run_id}/queue", params={"show": "all", "at": guid},
                               timeout=20).text)
    fields = {field.get("name"): field.get("value") for field in page.xpath("//form[@class='decide']/input")}
    refused = http.post(f"{service.url}/run/{service.run_id}/undo", data=fields, timeout=30)
    assert refused.status_code == 409
    assert "was changed since" in refused.text and "index.php?diff=" in refused.text
    assert len(world.wikibase.revisions) == edits and url in _urls(world, guid)
    assert service.reviews()[guid].state == "written"

    # Undoing a statement that is not written is refused by name.
    other = PROPOSED[2][0]
    refused = http.post(f"{service.url}/run/{service.run_id}/undo", data={**fields, "guid": other}, timeout=30)
    assert refused.status_code == 409 and "only a reference written to the wiki can be undone" in refused.text

    # A run the service does not hold is a 404 for an undo and a decision alike, naming no ledger.
    for action in ("undo", "decide"):
        missing = http.post(f"{service.url}/run/{service.run_id + 40}/{action}", timeout=30,
                            data={**fields, "decision": "approved"})
        assert missing.status_code == 404 and f"there is no run {service.run_id + 40}" in missing.text
        assert "runs.sqlite" not in missing.text


def _approve(http: requests.Session, service: Service, guid: str) -> None:
    page = etree.HTML(http.get(f"{service.url}/run/{service.run_id}/queue", params={"show": "all", "at": guid},
                               timeout=20).text)
    fields = {field.get("name"): field.get("value") for field in page.xpath("//form[@class='decide']/input")}
    done = http.post(f"{service.url}/run/{service.run_id}/decide", data={**fields, "decision": "approved"},
                     timeout=30)
    assert "written as" in done.text


def _undo(http: requests.Session, service: Service, guid: str) -> requests.Response:
    page = etree.HTML(http.get(f"{service.url}/run/{service.run_id}/queue", params={"show": "all", "at": guid},
                               timeout=20).text)
    fields = {field.get("name"): field.get("value") for field in page.xpath("//form[@class='decide']/input")}
    return http.post(f"{service.url}/run/{service.run_id}/undo", data=fields, timeout=30)


def _text(value: str) -> dict:
    return {"snaktype": "value", "datavalue": {"value": {"text": value, "language": "en"}, "type": "monolingualtext"}}


def test_undo_leaves_alone_a_reference_a_person_put_in_place_of_refbots_with_the_same_url(service):
    """refbot's reference written, then a person replaced it with their own to the same URL — another title,
    quotation and date, as many snaks of each property as refbot's: undo finds no reference with the hash the wiki
    gave refbot's, leaves the person's, and says why with the edit's link; the card stays written."""
    world = service.world
    guid, _pid, _label, url = PROPOSED[0]
    http = requests.Session()
    sign_in(http, service, CURATOR, PASSWORD, f"/run/{service.run_id}/queue")
    _approve(http, service, guid)
    ours = next(reference for reference in world.wikibase.statement(guid)["references"]
                if url in [snak["datavalue"]["value"] for snak in reference["snaks"].get("P854", [])])
    theirs = {property_id: [{**snak, "property": property_id} for snak in snaks]
              for property_id, snaks in ours["snaks"].items()}
    for property_id, snaks in theirs.items():
        for snak in snaks:
            kind = snak["datavalue"]["type"]
            if kind == "monolingualtext":
                snak["datavalue"] = _text("Their own title, read in the library")["datavalue"]
            elif kind == "time":
                moved = {**snak["datavalue"]["value"], "time": "+2001-02-03T00:00:00Z"}
                snak["datavalue"] = {**snak["datavalue"], "value": moved}
    assert {p: len(s) for p, s in theirs.items()} == {p: len(s) for p, s in ours["snaks"].items()}
    assert theirs != {p: [{k: v for k, v in snak.items() if k != "hash"} for snak in s]
                      for p, s in ours["snaks"].items()}, "the person's reference differs from refbot's"
    replaced = world.wikibase.replace_reference(guid, ours["hash"], theirs)
    edits = len(world.wikibase.revisions)

    refused = _undo(http, service, guid)
    assert refused.status_code == 409, refused.text
    assert "was changed since" in refused.text and "index.php?diff=" in refused.text
    assert len(world.wikibase.revisions) == edits, "nothing was sent to the wiki"
    assert [reference["hash"] for reference in world.wikibase.statement(guid)["references"]
            if reference["hash"] == replaced["hash"]] == [replaced["hash"]], "the person's reference is still there"
    assert service.reviews()[guid].state == "written"


def test_undo_takes_off_the_reference_the_wiki_named_when_refbot_wrote_it(service):
    """The write records the hash the wiki answered with; undo removes exactly that reference, and a reference to
    another source beside it stays."""
    world = service.world
    guid, _pid, _label, url = PROPOSED[0]
    http = requests.Session()
    sign_in(http, service, CURATOR, PASSWORD, f"/run/{service.run_id}/queue")
    _approve(http, service, guid)
    written = service.reviews()[guid].reference
    ours = next(reference for reference in world.wikibase.statement(guid)["references"]
                if url in [snak["datavalue"]["value"] for snak in reference["snaks"].get("P854", [])])
    assert written and written == ours["hash"]
    world.wikibase.add_reference(guid, "https://elsewhere.example/other.html")
    done = _undo(http, service, guid)
    assert done.status_code == 200 and "taken off as" in done.text
    assert _urls(world, guid) == ["https://elsewhere.example/other.html"]


def test_a_write_recorded_before_hashes_is_undone_only_snak_for_snak():
    """A write from before the ledger kept the wiki's hash: undo takes a reference off only when every snak is the
    one refbot sent; the same URL and properties with another title is a person's and stays."""
    page = "https://example.org/page.html"
    proposal = _proposal(_snak("P854", "url", f'"{page}"', page),
                         _snak("P1476", "monolingualtext", 'en:"The page"', "The page"),
                         _snak("P813", "time", "+2026-12-07T00:00:00Z/11", "2026-12-07"))

    def reference(hash_: str, title: str) -> dict:
        return {"hash": hash_, "snaks-order": ["P854", "P1476", "P813"], "snaks": {
            "P854": [{"snaktype": "value", "property": "P854", "hash": "s1",
                      "datavalue": {"value": page, "type": "string"}}],
            "P1476": [{**_text(title), "property": "P1476", "hash": "s2"}],
            "P813": [{"snaktype": "value", "property": "P813", "hash": "s3", "datavalue": {"type": "time", "value": {
                "time": "+2026-12-07T00:00:00Z", "timezone": 0, "before": 0, "after": 0, "precision": 11,
                "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}}}]}}

    changed = inverse(proposal, 42, {"references": [reference("theirs", "Another title")]}, "Undid")
    assert isinstance(changed, str) and "was changed since" in changed
    undo = inverse(proposal, 42, {"references": [reference("theirs", "Another title"), reference("ours", "The page")]},
                   "Undid")
    assert isinstance(undo, Undo) and undo.remove == "ours"
    by_hash = inverse(proposal, 42, {"references": [reference("theirs", "Another title")]}, "Undid", "ours")
    assert isinstance(by_hash, str) and "was changed since" in by_hash


def _proposal(*snaks: Snak, extends: str = "") -> Proposal:
    return Proposal("Q1$A-B", "Q1", "Someone", "P69", "educated at", "wikibase-item", "Q2", "Somewhere", 10, 0.9,
                    next((snak.text for snak in snaks if snak.property_id == "P854"), ""), tuple(snaks), "",
                    extends=extends)


def _snak(property_id: str, datatype: str, value: str, text: str) -> Snak:
    return Snak(property_id, value, text, datatype=datatype)


def test_the_inverse_of_an_archived_copy_added_to_a_reference_sets_the_reference_back_as_it_was():
    archive = "https://web.archive.org/web/2020/https://dead.example/page.html"
    proposal = _proposal(_snak("P1065", "url", f'"{archive}"', archive),
                         _snak("P2960", "time", "+2020-01-01T00:00:00Z/11", "2020-01-01"), extends="oldhash")
    original = {"P854": [{"snaktype": "value", "property": "P854", "hash": "h1",
                          "datavalue": {"value": "https://dead.example/page.html", "type": "string"}}]}
    current = {"references": [{"hash": "newhash", "snaks-order": ["P854", "P1065", "P2960"], "snaks": {
        **original,
        "P1065": [{"snaktype": "value", "property": "P1065", "datavalue": {"value": archive, "type": "string"}}],
        "P2960": [{"snaktype": "value", "property": "P2960",
                   "datavalue": {"value": {"time": "+2020-01-01T00:00:00Z", "timezone": 0, "before": 0, "after": 0,
                                           "precision": 11, "calendarmodel": "http://www.wikidata.org/entity/Q1985727"},
                                 "type": "time"}}]}}]}
    undo = inverse(proposal, 42, current, "Undid revision 41")
    assert isinstance(undo, Undo) and undo.remove == ""
    assert undo.restore == Edit("Q1", "Q1$A-B", {"P854": [{"snaktype": "value", "property": "P854", "datavalue": {
        "value": "https://dead.example/page.html", "type": "string"}}]}, ["P854"], 42, "Undid revision 41", "newhash")
    assert "no longer has the reference" in inverse(proposal, 42, {"references": []}, "")
    assert "no longer on the item" in inverse(proposal, 42, None, "")


def test_the_undos_summary_names_the_revision_the_curator_and_their_reason_and_keeps_the_batch_tag():
    text = undo_summary(812, curator="Ada Curator", note="wrong\n page " + "x" * 600, batch="0123456789abcdef")
    assert text.startswith("Undid revision 812: refbot's reference taken off by Ada Curator (wrong page x")
    assert text.endswith("([[:toolforge:editgroups/b/CB/0123456789abcdef|details]])") and len(text) <= 480


def test_reopening_a_rejected_card_starts_a_fresh_note_and_a_ticked_box_leaves_the_keys_to_the_queue(
        service, browser):
    from selenium.webdriver.common.by import By

    first, second = GUIDS[0], GUIDS[1]
    _browser_sign_in(browser, service)
    browser.get(f"{service.url}/run/{service.run_id}/queue?show=all&at={first}")
    browser.find_element(By.ID, "note").send_keys("the page is about another Novotná")
    browser.find_element(By.ID, "reject").click()
    _wait_for(browser, "flash", "Rejected")
    browser.get(f"{service.url}/run/{service.run_id}/queue?show=all&at={first}")
    assert browser.find_element(By.ID, "note").get_attribute("value") == ""
    assert "another Novotná" in browser.find_element(By.ID, "note-shown").text, "the kept note is shown, not reused"
    browser.find_element(By.ID, "approve").click()
    _wait_for(browser, "flash", "written as")
    assert service.reviews()[first].note == ""

    browser.get(f"{service.url}/run/{service.run_id}/queue?show=all&at={second}")
    box = browser.find_element(By.CSS_SELECTOR, "input[name='drop'][value='P1683']")
    box.click()
    assert box.is_selected()
    _press(browser, "a")
    _wait_for(browser, "flash", "written as")
    assert service.reviews()[second].dropped == ("P1683",)
    quotations = [reference["snaks"].get("P1683") for reference in service.world.wikibase.statement(second)
                  ["references"] if "P854" in reference["snaks"]]
    assert quotations == [None], "written without the quotation the curator left out"
