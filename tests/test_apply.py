"""`refbot apply` writes the approved references with pywikibot to the demo world's Wikibase API stand-in, which
records every request: the exact snaks and datatypes, base revision, summary, maxlag, bot flag and token; each
reference once; nothing unapproved and nothing without --live; a statement removed, changed or referenced already
is skipped with its reason; refusals end in a clear message and a recorded state, and nothing approved is lost.

refbot runs as a user runs it, `python -m bot.cli apply`, in a process of its own: pywikibot reads its configuration
once, at import.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from bot import __version__
from bot.output import trace as traces
from bot.checking.items import ItemContext
from bot.datamodel import Qualifier, Statement, Value
from bot.demo.wikibase import Account
from bot.demo.world import DemoWorld
from bot.references import ProposedReference, quickstatements
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger
from test_trace import run_info, supported_check

ROOT = Path(__file__).resolve().parent.parent
ITEM = "Q990201"
# Marta Novotná: educated at Charles University; award received: Purkyně Prize (two statements)
PROPOSED = [("Q990201$C02516BA-149F-4F9A-B1EE-CA96C86C2934", "P69", "educated at",
             "https://science.example/en/news/2022/03/kalous-lecture.html"),
            ("Q990201$FD23D3AF-2C9B-4A49-A6AB-C6A9F40FEBC2", "P166", "award received",
             "https://chronicle.example/2021/06/novotna-prize.html"),
            ("Q990201$E3079FD3-74F2-4226-A9F1-CA27692B5767", "P166", "award received",
             "https://gazette.example/2019/05/medal.html")]


@pytest.fixture
def world(tmp_path):
    with DemoWorld(workdir=tmp_path) as running:
        yield running


def item_value(world: DemoWorld, guid: str) -> str:
    return world.wikibase.statement(guid)["mainsnak"]["datavalue"]["value"]["id"]


def trace_of(world: DemoWorld, path: Path) -> Path:
    """A `refbot check` trace proposing a reference for each of PROPOSED, with the values the world holds."""
    context = ItemContext(ITEM, "Marta Novotná", world.base("wikidata"),
                          int(world.wikibase.entity(ITEM)["lastrevid"]))
    elements = []
    for guid, property_id, label, url in PROPOSED:
        value = item_value(world, guid)
        statement = Statement(ITEM, "Marta Novotná", guid, property_id, label, Value("wikibase-item", value, value))
        reference = ProposedReference(url, date(2026, 11, 21), "Novotná honoured", "en",
                                      quotation="Marta Novotná was honoured.")
        check = supported_check()
        elements.append(traces.statement_element(context, check.__class__(
            **{**check.__dict__, "statement": statement, "reference": reference,
               "quickstatements": quickstatements(statement, reference)})))
    return traces.write(traces.assemble(run_info(model="qwen2.5-coder-1.5b"),
                                        [(traces.item_element(context), elements)]), path)


@pytest.fixture
def setup(world, tmp_path):
    """The ledger with the trace as run 1, and refbot.ini pointing at the world with the demo's bot account."""
    trace = trace_of(world, tmp_path / "check.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace), trace)
    store.ledger.close()
    write_config(world, tmp_path, "report_url = https://reports.example/run-{run}.html\n")
    return run


def write_config(world: DemoWorld, tmp_path: Path, extra: str = "") -> None:
    """refbot.ini pointing at the world with the demo's bot account (``extra``: more [apply] lines)."""
    (tmp_path / "refbot.ini").write_text(
        "[refbot]\ncontact = refbot-tests@example.org\n"
        f"[wikidata]\napi_url = {world.base('wikidata')}/w/api.php\n"
        f"[run]\nledger = {tmp_path / 'runs.sqlite'}\n[check]\nreports = {tmp_path / 'reports'}\n"
        f"[apply]\nuser = {world.bot_login}\nedit_delay = 0\nretries = 1\nretry_wait = 1\n"
        f"pywikibot_dir = {tmp_path / 'pywikibot'}\n{extra}", encoding="utf-8")


def refbot(tmp_path: Path, *args: str, password: str | None = None) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("REFBOT_", "PYWIKIBOT"))}
    environ["PYTHONPATH"] = str(ROOT)
    if password is not None:
        environ["REFBOT_APPLY_PASSWORD"] = password
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=environ)


def decide(tmp_path: Path, run: int, decision: str, guids: list[str]) -> None:
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    store.decide(run, guids, decision, curator="Ada")
    store.ledger.close()


def edits(world: DemoWorld) -> list[dict[str, str]]:
    return [r.params for r in world.requests if r.site == "wikidata" and r.params.get("action") == "wbsetreference"]


BATCH_TAG = re.compile(r" \(\[\[:toolforge:editgroups/b/CB/([0-9a-f]{8,32})\|details\]\]\)$")


def batch_of(edit: dict[str, str]) -> str:
    """The EditGroups batch id at the end of an edit's summary."""
    match = BATCH_TAG.search(edit["summary"])
    assert match, edit["summary"]
    return match.group(1)


def reviews(tmp_path: Path, run: int):
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    try:
        return store.reviews(run)
    finally:
        store.ledger.close()


def test_apply_writes_exactly_the_approved_references_once_and_simulates_without_live(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    decide(tmp_path, run, "rejected", [PROPOSED[2][0]])

    dry = refbot(tmp_path, "apply", "--dry-run", password=world.bot_password)
    assert dry.returncode == 0, dry.stderr
    assert "simulating (nothing is sent; add --live to write)" in dry.stderr
    assert "review or undo its edits" not in dry.stderr, "a simulation sends nothing: no batch to review"
    assert dry.stdout.count("simulated ") == 2
    assert f"add a reference to {PROPOSED[0][0]}, based on revision {world.wikibase.entity(ITEM)['lastrevid']}:" \
        in dry.stdout
    assert f"      reference URL (P854): {PROPOSED[0][3]}\n" in dry.stdout, dry.stdout
    assert "      title (P1476): Novotná honoured (language: en)\n" in dry.stdout
    assert "      language of work (P407): English (Q1860)\n" in dry.stdout
    assert "      quotation (P1683): Marta Novotná was honoured. (language: en)\n" in dry.stdout
    assert "      edit summary: [[User:RefbotDemo|refbot]] " in dry.stdout
    assert '{"snaktype"' not in dry.stdout and "baserevid=" not in dry.stdout, "people read it, not API JSON"
    assert edits(world) == [] and not any(r.params.get("action") == "login" for r in world.requests)
    assert {review.state for review in reviews(tmp_path, run).values()} == {"approved", "rejected"}

    base = int(world.wikibase.entity(ITEM)["lastrevid"])
    live = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert live.returncode == 0, live.stderr
    assert f"writing to {world.base('wikidata')}/w/api.php as RefbotDemo (bot flag)" in live.stderr
    sent = edits(world)
    assert [edit["statement"] for edit in sent] == [PROPOSED[0][0], PROPOSED[1][0]]
    first = sent[0]
    assert json.loads(first["snaks"]) == {
        "P854": [{"snaktype": "value", "property": "P854", "datatype": "url",
                  "datavalue": {"type": "string", "value": PROPOSED[0][3]}}],
        "P813": [{"snaktype": "value", "property": "P813", "datatype": "time",
                  "datavalue": {"type": "time", "value": {
                      "time": "+2026-11-21T00:00:00Z", "timezone": 0, "before": 0, "after": 0, "precision": 11,
                      "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}}}],
        "P1476": [{"snaktype": "value", "property": "P1476", "datatype": "monolingualtext",
                   "datavalue": {"type": "monolingualtext", "value": {"text": "Novotná honoured", "language": "en"}}}],
        "P407": [{"snaktype": "value", "property": "P407", "datatype": "wikibase-item",
                  "datavalue": {"type": "wikibase-entityid",
                                "value": {"entity-type": "item", "numeric-id": 1860, "id": "Q1860"}}}],
        "P1683": [{"snaktype": "value", "property": "P1683", "datatype": "monolingualtext",
                   "datavalue": {"type": "monolingualtext",
                                 "value": {"text": "Marta Novotná was honoured.", "language": "en"}}}]}
    assert json.loads(first["snaks-order"]) == ["P854", "P813", "P1476", "P407", "P1683"]
    assert first["baserevid"] == str(base)  # the revision read just before the edit
    assert int(sent[1]["baserevid"]) > base  # the item as the first edit left it
    assert first["maxlag"] == "5" and first["bot"] == "" and first["assert"] == "bot"
    assert first["token"].endswith("+\\") and len(first["token"]) > 10
    batch = batch_of(first)
    assert first["summary"] == (
        f"[[User:RefbotDemo|refbot]] {__version__}: reference for P69 (educated at) = Q990215: page judged by "
        "qwen2.5-coder-1.5b, support 0.91, approved by Ada; report: https://reports.example/run-1.html "
        f"([[:toolforge:editgroups/b/CB/{batch}|details]])")
    assert batch_of(sent[1]) == batch, "one batch tag for every edit of one apply"
    assert f"refbot apply: batch {batch}: review or undo its edits at https://editgroups.toolforge.org/b/CB/{batch}/" \
        in live.stderr
    assert f"batch {batch}: https://editgroups.toolforge.org/b/CB/{batch}/" in live.stdout

    written = reviews(tmp_path, run)
    revisions = [revision.revid for revision in world.wikibase.revisions if revision.action == "wbsetreference"]
    assert [written[guid].revision for guid, *_ in PROPOSED[:2]] == revisions
    assert written[PROPOSED[0][0]].state == "written" and written[PROPOSED[2][0]].state == "rejected"
    assert f"revision {revisions[0]}" in live.stdout
    references = world.wikibase.statement(PROPOSED[0][0])["references"]
    assert references[-1]["snaks"]["P854"][0]["datavalue"]["value"] == PROPOSED[0][3]
    assert written[PROPOSED[0][0]].reference == references[-1]["hash"], "the hash the wiki gave it, for an undo"
    report = traces.read(tmp_path / "reports" / f"run-{run}.xml").getroot()
    states = {s.get("guid"): s.find(traces.tag("review")) for s in report.iter(traces.tag("statement"))}
    assert states[PROPOSED[0][0]].get("state") == "written"
    assert states[PROPOSED[0][0]].get("revision") == str(revisions[0])
    assert states[PROPOSED[0][0]].get("revision-url") == f"{world.base('wikidata')}/w/index.php?diff={revisions[0]}"
    assert f"revision {revisions[0]}" in (tmp_path / "reports" / f"run-{run}.html").read_text(encoding="utf-8")

    again = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert again.returncode == 0 and "no approved reference waits to be written" in again.stdout
    assert len(edits(world)) == 2  # nothing twice


def test_a_statement_removed_changed_or_referenced_already_is_skipped_with_its_reason(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [guid for guid, *_ in PROPOSED])
    world.wikibase.remove_statement(PROPOSED[0][0])
    world.wikibase.change_value(PROPOSED[1][0], {"entity-type": "item", "numeric-id": 5, "id": "Q5"})
    world.wikibase.add_reference(PROPOSED[2][0], "http://www.gazette.example/2019/05/medal.html#top")

    result = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert result.returncode == 0, result.stderr
    assert edits(world) == []
    now = reviews(tmp_path, run)
    assert {guid: (now[guid].state, now[guid].reason) for guid, *_ in PROPOSED} == {
        PROPOSED[0][0]: ("skipped", "the statement is no longer on the item"),
        PROPOSED[1][0]: ("skipped", "the statement's value changed since the check (now Q5)"),
        PROPOSED[2][0]: ("skipped", "the statement already has a reference to "
                                    "http://www.gazette.example/2019/05/medal.html#top")}
    assert result.stdout.count("skipped ") == 3 and "3 skipped" in result.stdout


def test_a_statement_whose_point_in_time_changed_since_the_check_is_skipped(world, tmp_path):
    """The Purkyně Prize was checked for 2021 (its P585, read with the statement); a reference for that year is not
    written once an editor has made the statement about another year, and is written while the year stands."""
    guid, property_id, label, url = PROPOSED[1]
    context = ItemContext(ITEM, "Marta Novotná", world.base("wikidata"), int(world.wikibase.entity(ITEM)["lastrevid"]))
    year = Qualifier("P585", "point in time", Value("time", "+2021-00-00T00:00:00Z/9", "2021"))
    statement = Statement(ITEM, "Marta Novotná", guid, property_id, label,
                          Value("wikibase-item", item_value(world, guid), "Purkyně Prize"), qualifiers=(year,))
    reference = ProposedReference(url, date(2026, 11, 21), "Novotná honoured", "en")
    check = supported_check()
    element = traces.statement_element(context, check.__class__(**{
        **check.__dict__, "statement": statement, "reference": reference,
        "quickstatements": quickstatements(statement, reference)}))
    trace = traces.write(traces.assemble(run_info(model="qwen2.5-coder-1.5b"), [(traces.item_element(context),
                                                                                [element])]), tmp_path / "c.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace), trace)
    store.ledger.close()
    write_config(world, tmp_path)
    decide(tmp_path, run, "approved", [guid])
    simulated = refbot(tmp_path, "apply", password=world.bot_password)
    assert simulated.returncode == 0 and "simulated" in simulated.stdout, simulated.stderr  # 2021 still holds

    world.wikibase.set_qualifier(guid, "P585", {"time": "+2020-00-00T00:00:00Z", "timezone": 0, "before": 0,
                                                "after": 0, "precision": 9,
                                                "calendarmodel": "http://www.wikidata.org/entity/Q1985727"})
    result = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert result.returncode == 0, result.stderr
    assert edits(world) == []
    reason = reviews(tmp_path, run)[guid].reason
    assert reason == "the statement's time qualifiers changed since the check (now P585 2020)"


def test_a_refused_edit_stays_approved_and_the_next_apply_writes_it(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    world.wikibase.inject("wbsetreference", "failed-save", times=1)  # an abuse filter, as Wikidata answers it

    first = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert first.returncode == 1
    assert "an abuse filter refused the edit of " + PROPOSED[0][0] in first.stdout
    now = reviews(tmp_path, run)
    assert now[PROPOSED[0][0]].state == "approved" and "abuse filter" in now[PROPOSED[0][0]].reason
    assert now[PROPOSED[1][0]].state == "written"

    second = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert second.returncode == 0, second.stderr
    assert reviews(tmp_path, run)[PROPOSED[0][0]].state == "written"
    sent = edits(world)
    assert [edit["statement"] for edit in sent] == [PROPOSED[0][0], PROPOSED[1][0], PROPOSED[0][0]]
    assert batch_of(sent[0]) == batch_of(sent[1]) != batch_of(sent[2]), "each apply is a batch of its own"


def test_a_blocked_account_or_a_lagged_wiki_stops_the_apply_and_loses_nothing(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    world.wikibase.inject("wbsetreference", "blocked", times=1)
    blocked = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert blocked.returncode == 1
    assert "blocked" in blocked.stderr and "nothing approved is lost" in blocked.stderr
    assert len(edits(world)) == 1  # it stopped at the first refusal
    assert {review.state for review in reviews(tmp_path, run).values()} == {"approved", "proposed"}

    world.wikibase.inject("wbsetreference", "maxlag", times=5)
    lagged = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert lagged.returncode == 1 and "stayed lagged" in lagged.stderr
    assert len(edits(world)) == 1 + 2  # the edit and pywikibot's one retry ([apply] retries = 1)
    world.wikibase.clear_faults()
    done = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert done.returncode == 0, done.stderr
    assert {reviews(tmp_path, run)[guid].state for guid, *_ in PROPOSED[:2]} == {"written"}


def test_an_approval_by_an_account_blocked_since_is_not_written_until_the_block_ends(tmp_path):
    """The bot's apply reads the approving curator's block before every write: blocked since approving, their
    approval is not written with the bot's account, stays approved with the reason, and is written once unblocked.
    Only an account OAuth confirmed (the review service) is read: the same name typed into `refbot review` is a name,
    not that account, and its approval is written."""
    curator = "Bo Curator"
    with DemoWorld(workdir=tmp_path, accounts={curator: Account({}, groups=(), password="bo-demo-password")}) as world:
        trace = trace_of(world, tmp_path / "check.xml")
        store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
        run = store.import_trace(traces.read(trace), trace)
        store.decide(run, [PROPOSED[0][0]], "approved", curator=curator, confirmed=True)  # signed in to the service
        store.decide(run, [PROPOSED[1][0]], "approved", curator=curator)  # typed into `refbot review`: a name only
        store.ledger.close()
        write_config(world, tmp_path)
        world.wikibase.accounts[curator] = replace(world.wikibase.accounts[curator], blocked=True)

        simulated = refbot(tmp_path, "apply")
        assert simulated.returncode == 1 and f"approved by {curator}, who is blocked now" in simulated.stdout
        applied = refbot(tmp_path, "apply", "--live", password=world.bot_password)
        assert applied.returncode == 1 and f"approved by {curator}, who is blocked now" in applied.stdout
        assert [edit["statement"] for edit in edits(world)] == [PROPOSED[1][0]]
        held = reviews(tmp_path, run)[PROPOSED[0][0]]
        assert held.state == "approved" and f"approved by {curator}, who is blocked now" in held.reason
        assert "refbot demo block" in held.reason

        world.wikibase.accounts[curator] = replace(world.wikibase.accounts[curator], blocked=False)
        again = refbot(tmp_path, "apply", "--live", password=world.bot_password)
        assert again.returncode == 0, again.stderr
        assert [edit["statement"] for edit in edits(world)] == [PROPOSED[1][0], PROPOSED[0][0]]
        assert reviews(tmp_path, run)[PROPOSED[0][0]].state == "written"


def test_a_failed_login_says_what_to_fix_and_no_credentials_send_nothing(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0]])
    wrong = refbot(tmp_path, "apply", "--live", password="not-the-password")
    assert wrong.returncode == 1
    assert f"login to {world.base('wikidata')}/w/api.php as RefbotDemo failed" in wrong.stderr
    assert "Special:BotPasswords" in wrong.stderr and "not-the-password" not in wrong.stderr + wrong.stdout
    none = refbot(tmp_path, "apply", "--live")
    assert none.returncode == 2 and "no BotPassword for RefbotDemo@refbot" in none.stderr
    assert "REFBOT_APPLY_PASSWORD" in none.stderr
    assert edits(world) == [] and reviews(tmp_path, run)[PROPOSED[0][0]].state == "approved"
    config = (tmp_path / "pywikibot").rglob("user-config.py")
    assert all("not-the-password" not in path.read_text() for path in config)


def test_the_botpassword_may_come_from_pywikibots_own_password_file(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[1][0]])
    secrets = tmp_path / "user-password.py"
    secrets.write_text(f"('RefbotDemo', BotPassword('refbot', {world.bot_password!r}))\n", encoding="utf-8")
    secrets.chmod(0o600)
    config = tmp_path / "refbot.ini"
    config.write_text(config.read_text(encoding="utf-8") + f"password_file = {secrets}\n", encoding="utf-8")
    result = refbot(tmp_path, "apply", "--live")
    assert result.returncode == 0, result.stderr
    assert [edit["statement"] for edit in edits(world)] == [PROPOSED[1][0]]
    assert reviews(tmp_path, run)[PROPOSED[1][0]].state == "written"


def test_refbot_review_serves_the_run_on_loopback_until_stopped(world, setup, tmp_path):
    import lxml.html
    import requests

    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ |= {"PYTHONPATH": str(ROOT), "REFBOT_REVIEW_CURATOR": "Ada"}
    server = subprocess.Popen([sys.executable, "-m", "bot.cli", "review", "--run", str(setup)], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ)
    try:
        line = server.stdout.readline()
        assert line.startswith("review: http://127.0.0.1:"), server.stderr.read() if not line else line
        queue = line.split()[-1]
        assert "/queue?token=" in queue
        card = lxml.html.fromstring(requests.get(queue, timeout=10).text)
        assert len(card.xpath('//article[@id="card"]')) == 1 and card.xpath('//button[@id="approve"]')
        assert card.get_element_by_id("left").text_content() == "3 left to decide"
        line = server.stdout.readline()
        assert line.startswith("report: http://127.0.0.1:")
        address = line.split()[-1]
        assert requests.get(address.split("?")[0], timeout=10).status_code == 403  # the token is needed
        page = requests.get(address, timeout=10)
        assert page.status_code == 200 and "default-src 'none'" in page.headers["Content-Security-Policy"]
        html = lxml.html.fromstring(page.text)
        assert len(html.xpath('//form[@class="decide"]')) == 3
        assert " ".join(html.get_element_by_id("reviewing").text_content().split()).startswith("Reviewing run 1 as Ada")
    finally:
        server.terminate()
        server.wait(timeout=10)
    missing = refbot(tmp_path, "review", "--run", "9")
    assert missing.returncode == 2 and "has no run 9" in missing.stderr


def test_refbot_review_without_a_curator_name_stops_before_it_serves(world, setup, tmp_path):
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ |= {"PYTHONPATH": str(ROOT)}
    ended = subprocess.run([sys.executable, "-m", "bot.cli", "review", "--run", str(setup)], cwd=tmp_path,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, env=environ, timeout=60)
    assert ended.returncode != 0 and ended.stdout == ""
    assert "no curator name" in ended.stderr and "REFBOT_REVIEW_CURATOR" in ended.stderr
    assert "Ctrl-C" not in ended.stderr and "serving" not in ended.stderr


def test_an_apply_killed_after_sending_finds_its_edit_and_never_writes_it_again(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0]])
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    store.record_write(run, PROPOSED[0][0], "sending")  # as an apply SIGKILLed while its edit was on the wire
    assert "stopped while sending" in store.reviews(run)[PROPOSED[0][0]].reason
    store.ledger.close()
    world.wikibase.add_reference(PROPOSED[0][0], PROPOSED[0][3])  # the edit had landed

    result = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert result.returncode == 0, result.stderr
    assert edits(world) == []
    assert reviews(tmp_path, run)[PROPOSED[0][0]].state == "written"
    assert "an earlier apply sent it and stopped before it heard back" in result.stdout
    assert "revision None" not in result.stdout


def test_limit_counts_the_edits_sent_failed_ones_too(world, setup, tmp_path):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    world.wikibase.inject("wbsetreference", "failed-save", times=2)
    result = refbot(tmp_path, "apply", "--live", "--limit", "1", password=world.bot_password)
    assert result.returncode == 1
    assert len(edits(world)) == 1
    assert {review.state for review in reviews(tmp_path, run).values()} == {"approved", "proposed"}


def test_an_apply_sigkilled_while_its_edit_lands_writes_each_reference_once(world, setup, tmp_path):
    import signal
    import time

    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    world.wikibase.delay_answer("wbsetreference", 60)  # the edit is made; its answer never reaches refbot
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("REFBOT_", "PYWIKIBOT"))}
    environ |= {"PYTHONPATH": str(ROOT), "REFBOT_APPLY_PASSWORD": world.bot_password}
    apply = subprocess.Popen([sys.executable, "-m", "bot.cli", "apply", "--live"], cwd=tmp_path, env=environ,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not any(r.action == "wbsetreference" for r in world.wikibase.revisions) and time.monotonic() < deadline:
        time.sleep(0.05)
    apply.send_signal(signal.SIGKILL)
    apply.wait(timeout=10)
    assert len(edits(world)) == 1
    assert reviews(tmp_path, run)[PROPOSED[0][0]].state == "approved"  # refbot never heard back

    world.wikibase.clear_faults()
    again = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert again.returncode == 0, again.stderr
    assert [edit["statement"] for edit in edits(world)] == [PROPOSED[0][0], PROPOSED[1][0]], "each edit once"
    now = reviews(tmp_path, run)
    assert now[PROPOSED[0][0]].state == "written" and now[PROPOSED[1][0]].state == "written"


@pytest.mark.parametrize("fault", [{"error": "badtoken"}, {"status": 503}, {"error": "maxlag"}, {"status": 429}])
def test_a_stale_token_a_server_error_or_a_lag_once_still_writes_each_reference_once(world, setup, tmp_path, fault):
    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    world.wikibase.inject("wbsetreference", fault.get("error"), status=fault.get("status", 200),
                          retry_after=1 if fault.get("status") == 429 else None)
    result = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert result.returncode == 0, result.stderr
    landed = [revision.statement for revision in world.wikibase.revisions if revision.action == "wbsetreference"]
    assert landed == [PROPOSED[0][0], PROPOSED[1][0]]
    assert {reviews(tmp_path, run)[guid].state for guid in landed} == {"written"}


def test_a_session_lost_mid_apply_is_logged_in_again_and_each_reference_written_once(world, setup, tmp_path):
    """The wiki forgets refbot's session (an expired login) while an apply runs: the next edit's token is refused,
    pywikibot logs in again, and the apply goes on."""
    import threading
    import time

    run = setup
    decide(tmp_path, run, "approved", [PROPOSED[0][0], PROPOSED[1][0]])
    world.wikibase.delay_answer("wbsetreference", 1.5)

    def forget_sessions() -> None:
        deadline = time.monotonic() + 60
        while not world.wikibase.revisions and time.monotonic() < deadline:
            time.sleep(0.02)
        world.wikibase.end_sessions()  # while the first edit's answer is held

    thread = threading.Thread(target=forget_sessions, daemon=True)
    thread.start()
    result = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    thread.join()
    assert result.returncode == 0, result.stderr
    landed = [revision for revision in world.wikibase.revisions if revision.action == "wbsetreference"]
    assert [revision.statement for revision in landed] == [PROPOSED[0][0], PROPOSED[1][0]]
    assert {revision.user for revision in landed} == {world.bot_user} and all(r.bot for r in landed)
    assert {reviews(tmp_path, run)[guid].state for guid in (PROPOSED[0][0], PROPOSED[1][0])} == {"written"}


BORN = "Q990201$ECD1FCB7-12C2-46B3-AE1C-ED267BD68816"  # Marta Novotná: date of birth 11 February 1968 (case n)


def test_a_stated_in_reference_from_an_authority_record_is_written_with_its_items_and_identifiers_datatypes(
        world, tmp_path):
    from bot.checking.records import Outcome, StatementCheck
    from bot.references import StatedIn

    context = ItemContext(ITEM, "Marta Novotná", world.base("wikidata"), int(world.wikibase.entity(ITEM)["lastrevid"]))
    statement = Statement(ITEM, "Marta Novotná", BORN, "P569", "date of birth",
                          Value("time", "+1968-02-11T00:00:00Z/11", "11 February 1968"))
    reference = StatedIn("Q36578", "Integrated Authority File", "P227", "GND ID", "1099020101", date(2026, 11, 24),
                         "https://d-nb.info/gnd/1099020101/about/lds")
    check = StatementCheck(statement, Outcome.CORROBORATED, "an authority record states it", "2026-11-24T10:00:00Z",
                           0.4, reference=reference, quickstatements=quickstatements(statement, reference))
    trace = traces.write(traces.assemble(run_info(model="qwen2.5-coder-1.5b"), [(
        traces.item_element(context), [traces.statement_element(context, check)])]), tmp_path / "check.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace), trace)
    store.ledger.close()
    write_config(world, tmp_path)
    decide(tmp_path, run, "approved", [BORN])

    live = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert live.returncode == 0, live.stderr
    (sent,) = edits(world)
    assert sent["statement"] == BORN
    snaks = json.loads(sent["snaks"])
    assert snaks["P248"] == [{"snaktype": "value", "property": "P248", "datatype": "wikibase-item", "datavalue": {
        "type": "wikibase-entityid", "value": {"entity-type": "item", "numeric-id": 36578, "id": "Q36578"}}}]
    assert snaks["P227"] == [{"snaktype": "value", "property": "P227", "datatype": "external-id",
                              "datavalue": {"type": "string", "value": "1099020101"}}]
    assert snaks["P813"][0]["datavalue"]["value"]["time"] == "+2026-11-24T00:00:00Z"
    assert "P854" not in snaks  # the identifier leads to the record
    assert json.loads(sent["snaks-order"]) == ["P248", "P227", "P813"]
    assert sent["summary"] == (
        f"[[User:RefbotDemo|refbot]] {__version__}: reference for P569 (date of birth) = 11 February 1968: stated in "
        "Integrated "
        f"Authority File, GND ID 1099020101, approved by Ada ([[:toolforge:editgroups/b/CB/{batch_of(sent)}|details]])")
    assert {review.state for review in reviews(tmp_path, run).values()} == {"written"}
    written = world.wikibase.statement(BORN)["references"]
    assert [sorted(reference["snaks"]) for reference in written] == [["P227", "P248", "P813"]]

    # Checked again and approved again, the same reference is not written twice: the statement cites that record.
    from bot.review.applying import skip_reason
    from bot.review.proposals import proposals

    (proposal,) = proposals(traces.read(trace).getroot())
    assert skip_reason(proposal, world.wikibase.statement(BORN)) == \
        "the statement already has a reference to P227 1099020101 (stated in Integrated Authority File)"


def test_an_archived_copy_is_written_with_the_citations_access_date_and_the_archives(world, tmp_path):
    """The live page dead, the Wayback copy read: P854 the page, P813 the day the article's citation says it was
    read, P1065 and P2960 the copy; the summary links the documentation page [apply] documentation names."""
    guid, property_id, label, url = PROPOSED[2]
    context = ItemContext(ITEM, "Marta Novotná", world.base("wikidata"), int(world.wikibase.entity(ITEM)["lastrevid"]))
    value = item_value(world, guid)
    statement = Statement(ITEM, "Marta Novotná", guid, property_id, label, Value("wikibase-item", value, value))
    archive = f"https://web.archive.org/web/20190612083015/{url}"
    reference = ProposedReference(url, date(2019, 6, 14), 'The "Brno" chemist | Herald', "en", archive,
                                  date(2019, 6, 12), "Novotná received the “Brno” award.")
    check = supported_check()
    check = check.__class__(**{**check.__dict__, "statement": statement, "reference": reference,
                               "quickstatements": quickstatements(statement, reference)})
    trace = traces.write(traces.assemble(run_info(model="qwen2.5-coder-1.5b"), [(
        traces.item_element(context), [traces.statement_element(context, check)])]), tmp_path / "check.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace), trace)
    store.ledger.close()
    write_config(world, tmp_path, "documentation = User:RefbotDemo/About\n")
    decide(tmp_path, run, "approved", [guid])

    live = refbot(tmp_path, "apply", "--live", password=world.bot_password)
    assert live.returncode == 0, live.stderr
    (sent,) = edits(world)
    snaks = json.loads(sent["snaks"])
    assert json.loads(sent["snaks-order"]) == ["P854", "P813", "P1476", "P407", "P1065", "P2960", "P1683"]
    assert {pid: snaks[pid][0]["datavalue"]["value"] for pid in ("P854", "P1065", "P1476", "P1683")} == {
        "P854": url, "P1065": archive, "P1476": {"text": 'The "Brno" chemist | Herald', "language": "en"},
        "P1683": {"text": "Novotná received the “Brno” award.", "language": "en"}}  # verbatim
    assert snaks["P813"][0]["datavalue"]["value"]["time"] == "+2019-06-14T00:00:00Z"
    assert snaks["P2960"][0]["datavalue"]["value"]["time"] == "+2019-06-12T00:00:00Z"
    assert sent["summary"] == (
        f"[[User:RefbotDemo/About|refbot]] {__version__}: reference for P166 (award received) = Q990212: page judged "
        "by "
        f"qwen2.5-coder-1.5b, support 0.91, approved by Ada ([[:toolforge:editgroups/b/CB/{batch_of(sent)}|details]])")
