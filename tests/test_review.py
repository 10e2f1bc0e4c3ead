"""Curators' decisions kept in the run ledger, proposals read back from a trace, the QuickStatements export, and
what `refbot apply` decides before it writes (the values as Wikibase JSON, the skips)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.output import trace as traces
from bot.cli import main
from bot.checking.records import Outcome
from bot.datamodel import Statement, Value
from bot.errors import ConfigError, InputError
from bot.options import load_options
from bot.references import ProposedReference, quickstatements
from bot.review.applying import skip_reason
from bot.review.summaries import summary
from bot.review.datavalues import reference_snaks, same_url, same_value
from bot.ledger.tables import decisions
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger
from test_trace import CONTEXT, STATEMENT, run_info, supported_check

GUIDS = ("Q990201$AAAA-1", "Q990201$AAAA-2", "Q990201$AAAA-3")


def checks():
    """Three supported statements (support 0.91, 0.62, 0.91) and one not found."""
    found = []
    for number, guid in enumerate(GUIDS, start=1):
        statement = replace(STATEMENT, guid=guid, value=Value("wikibase-item", f"Q99021{number}", f"Prize {number}"))
        check = supported_check()
        reference = replace(check.reference, url=f"https://news.example.org/{number}")
        judged = check.documents[0].judged[0]
        if number == 2:
            judged = replace(judged, judgement=replace(judged.judgement, support=0.62))
        document = replace(check.documents[0], judged=(judged,))
        found.append(replace(check, statement=statement, reference=reference, documents=(document,),
                             quickstatements=quickstatements(statement, reference, "refbot")))
    missing = replace(STATEMENT, guid="Q990201$AAAA-4", property_id="P69", property_label="educated at")
    found.append(replace(supported_check(), statement=missing, outcome=Outcome.NOT_FOUND, reference=None,
                         quickstatements="", reason="no paragraph supports it"))
    return found


@pytest.fixture
def trace_file(tmp_path):
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, check) for check in checks()])])
    return traces.write(tree, tmp_path / "check-Q990201.xml")


@pytest.fixture
def options(tmp_path):
    return load_options(None, environ={}, overrides={"run_ledger": tmp_path / "runs.sqlite",
                                                     "check_reports": tmp_path / "reports"})


def test_a_trace_file_becomes_a_run_once_with_its_proposals(ledger_target, trace_file):
    store = ReviewLedger(RunLedger(ledger_target))
    run = store.import_trace(traces.read(trace_file), trace_file)
    assert store.import_trace(traces.read(trace_file), trace_file) == run
    proposals = store.proposals(run)
    assert [p.guid for p in proposals] == list(GUIDS)
    assert [p.support for p in proposals] == [0.91, 0.62, 0.91]
    first = proposals[0]
    assert (first.item, first.property_id, first.value, first.url) == \
        ("Q990201", "P166", "Q990211", "https://news.example.org/1")
    assert [s.property_id for s in first.snaks] == ["P854", "P813", "P1476", "P407", "P1683"]
    assert store.model(run) == "qwen"
    assert {guid: review.state for guid, review in store.reviews(run).items()} == dict.fromkeys(GUIDS, "proposed")


def test_decisions_keep_who_when_and_why_and_a_written_one_is_final(ledger_target, trace_file):
    store = ReviewLedger(RunLedger(ledger_target))
    run = store.import_trace(traces.read(trace_file), trace_file)
    assert store.decide(run, [GUIDS[0], GUIDS[1]], "approved", curator="Ada") == [GUIDS[0], GUIDS[1]]
    assert store.decide(run, [GUIDS[0]], "approved", curator="Ada") == []  # no change, no new row
    assert store.decide(run, [GUIDS[1]], "rejected", curator="Bob", note="the page is a forum") == [GUIDS[1]]
    reviews = store.reviews(run)
    assert (reviews[GUIDS[0]].state, reviews[GUIDS[0]].curator) == ("approved", "Ada")
    assert (reviews[GUIDS[1]].state, reviews[GUIDS[1]].curator, reviews[GUIDS[1]].note) == \
        ("rejected", "Bob", "the page is a forum")
    assert reviews[GUIDS[2]].state == "proposed"
    with store.ledger.transaction() as db:
        history = [tuple(row) for row in db.execute(select(decisions.c.guid, decisions.c.decision, decisions.c.curator)
                                                    .order_by(decisions.c.id))]
    assert history == [(GUIDS[0], "approved", "Ada"), (GUIDS[1], "approved", "Ada"), (GUIDS[1], "rejected", "Bob")]

    assert [p.guid for _, p in store.approved_unwritten([run])] == [GUIDS[0]]
    store.record_write(run, GUIDS[0], "failed", reason="editconflict: …", site="https://w.example/w/api.php")
    assert store.reviews(run)[GUIDS[0]].state == "approved"  # a failed write stays approved, to be tried again
    assert [p.guid for _, p in store.approved_unwritten([run])] == [GUIDS[0]]
    store.record_write(run, GUIDS[0], "written", revision=4242, site="https://w.example/w/api.php")
    written = store.reviews(run)[GUIDS[0]]
    assert (written.state, written.revision, written.revision_url) == \
        ("written", 4242, "https://w.example/w/index.php?diff=4242")
    assert store.approved_unwritten([run]) == []
    with pytest.raises(InputError, match="final"):
        store.decide(run, [GUIDS[0]], "rejected", curator="Bob")
    with pytest.raises(InputError, match="proposes no reference"):
        store.decide(run, ["Q990201$AAAA-4"], "approved", curator="Ada")
    with pytest.raises(InputError, match="curator"):
        store.decide(run, [GUIDS[2]], "approved", curator=" ")

    tree = store.trace(run)
    traces.validate(tree)
    states = {s.get("guid"): s.find(traces.tag("review")).get("state")
              for s in tree.getroot().iter(traces.tag("statement")) if s.find(traces.tag("review")) is not None}
    assert states == {GUIDS[0]: "written", GUIDS[1]: "rejected", GUIDS[2]: "proposed"}


def test_approve_reject_and_export_from_the_command_line(tmp_path, trace_file, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", "Ada")
    ledger = ["--ledger", str(tmp_path / "runs.sqlite")]
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace_file), trace_file)
    store.ledger.close()

    assert main(["approve", "--all-supported", "--min-support", "0.9", *ledger]) == 0
    assert f"run {run}: 2 reference(s) approved" in capsys.readouterr().out
    assert main(["reject", GUIDS[1], "--note", "forum post", "--curator", "Bob", *ledger]) == 0
    assert main(["approve", "Q990201$NOPE", *ledger]) == 2
    assert "proposes no reference for statement Q990201$NOPE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # neither GUIDs nor --all-supported: argparse's usage error
        main(["approve", *ledger])
    assert usage.value.code == 2 and "name statement GUIDs or --all-supported" in capsys.readouterr().err

    assert main(["export", "--quickstatements", "--out", "batch.tsv", "--approved", *ledger]) == 0
    lines = (tmp_path / "batch.tsv").read_text(encoding="utf-8").splitlines()
    assert [line.split("\t")[:3] for line in lines] == [["Q990201", "P166", "Q990211"], ["Q990201", "P166", "Q990213"]]
    assert lines[0].split("\t")[3:5] == ["S854", '"https://news.example.org/1"']
    assert main(["export", "--quickstatements", *ledger]) == 0
    assert f"2 command(s) written to reports/run-{run}-quickstatements.tsv" in capsys.readouterr().out
    every = (tmp_path / "reports" / f"run-{run}-quickstatements.tsv").read_text(encoding="utf-8")
    assert len(every.splitlines()) == 2  # the rejected one is left out

    report = (tmp_path / "reports" / f"run-{run}.xml")
    assert report.is_file() and (tmp_path / "reports" / f"run-{run}.html").is_file()
    reviews = {s.get("guid"): s.find(traces.tag("review")) for s in traces.read(report).getroot().iter(
        traces.tag("statement")) if s.find(traces.tag("review")) is not None}
    assert reviews[GUIDS[1]].get("state") == "rejected" and reviews[GUIDS[1]].get("curator") == "Bob"
    assert reviews[GUIDS[1]].findtext(traces.tag("note")) == "forum post"
    assert reviews[GUIDS[0]].get("curator") == "Ada"


def test_the_proposed_reference_as_wbsetreference_takes_it():
    reference = ProposedReference("https://news.example.org/a", date(2026, 11, 21), 'A "quoted" title', "cs",
                                  "https://web.archive.org/web/2019/https://news.example.org/a", date(2019, 5, 1),
                                  "Novotná získala cenu.")
    snaks = tuple(reference.snaks())
    values, order = reference_snaks(snaks)
    assert order == ["P854", "P813", "P1476", "P407", "P1065", "P2960", "P1683"]
    assert values["P854"] == [{"snaktype": "value", "property": "P854", "datatype": "url",
                               "datavalue": {"type": "string", "value": "https://news.example.org/a"}}]
    assert values["P813"][0]["datavalue"] == {"type": "time", "value": {
        "time": "+2026-11-21T00:00:00Z", "timezone": 0, "before": 0, "after": 0, "precision": 11,
        "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}}
    # the title as the page has it, straight quotes and all
    assert values["P1476"][0]["datavalue"] == {"type": "monolingualtext",
                                               "value": {"text": 'A "quoted" title', "language": "cs"}}
    assert values["P407"][0]["datavalue"] == {"type": "wikibase-entityid",
                                              "value": {"entity-type": "item", "numeric-id": 9056, "id": "Q9056"}}
    assert values["P2960"][0]["datavalue"]["value"]["time"] == "+2019-05-01T00:00:00Z"
    assert values["P1683"][0]["datavalue"]["value"] == {"text": "Novotná získala cenu.", "language": "cs"}
    json.dumps(values)


def snak(datatype_value):
    return {"snaktype": "value", "datavalue": {"value": datatype_value}}


@pytest.mark.parametrize("datatype, raw, value, same", [
    ("wikibase-item", "Q5", {"entity-type": "item", "numeric-id": 5, "id": "Q5"}, True),
    ("wikibase-item", "Q5", {"entity-type": "item", "numeric-id": 6, "id": "Q6"}, False),
    ("time", "+1936-10-00T00:00:00Z/10", {"time": "+1936-10-00T00:00:00Z", "precision": 10,
                                          "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}, True),
    ("time", "+1936-10-05T00:00:00Z/11", {"time": "+1936-10-06T00:00:00Z", "precision": 11,
                                          "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}, False),
    ("time", "+1712-01-10T00:00:00Z/11/J", {"time": "+1712-01-10T00:00:00Z", "precision": 11,
                                            "calendarmodel": "http://www.wikidata.org/entity/Q1985786"}, True),
    ("quantity", "271U11573", {"amount": "+271", "unit": "http://www.wikidata.org/entity/Q11573"}, True),
    ("quantity", "1.96~0.01U11573", {"amount": "+1.96", "lowerBound": "+1.95", "upperBound": "+1.97",
                                     "unit": "http://www.wikidata.org/entity/Q11573"}, True),
    ("quantity", "12480", {"amount": "+12481", "unit": "1"}, False),
    # pywikibot's Claim.toJSON() writes bounds a quantity does not have as None
    ("quantity", "12480", {"amount": "+12480", "unit": "1", "upperBound": None, "lowerBound": None}, True),
    ("monolingualtext", 'cs:"Hana \\"H\\" Nová"', {"text": 'Hana "H" Nová', "language": "cs"}, True),
    ("string", '"0000-0002-1825-0097"', "0000-0002-1825-0097", True),
    ("globe-coordinate", "@50.08/14.42", {"latitude": 50.08, "longitude": 14.42, "globe": "…Q2"}, True),
])
def test_a_statement_keeps_its_value_only_when_the_wiki_still_has_it(datatype, raw, value, same):
    assert same_value(datatype, raw, snak(value)) is same


def test_reference_urls_are_compared_as_people_mean_them():
    assert same_url("https://www.example.org/a/#top", "http://example.org/a")
    assert same_url("HTTPS://Example.org:443/a?b=1", "https://example.org/a?b=1")
    assert not same_url("https://example.org/a", "https://example.org/b")
    # a query or a routing fragment names another page; so does another host
    assert not same_url("https://x.org/record?uid=123", "https://x.org/record?uid=456")
    assert not same_url("https://x.org/view?refnum=77", "https://x.org/view")
    assert not same_url("https://x.org/book.php?1234", "https://x.org/book.php?5678")
    assert not same_url("https://example.org/#/person/1", "https://example.org/#/person/2")
    assert not same_url("https://www2.example.org/a", "https://example.org/a")
    assert same_url("https://x.org/a?b=1&c=2", "https://x.org/a?c=2&b=1")


def test_apply_skips_a_statement_gone_changed_or_referenced_already(tmp_path, trace_file):
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    proposal = store.proposals(store.import_trace(traces.read(trace_file), trace_file))[0]
    now = {"id": proposal.guid, "mainsnak": snak({"entity-type": "item", "numeric-id": 990211, "id": "Q990211"})}
    assert skip_reason(proposal, now) == ""
    assert skip_reason(proposal, None) == "the statement is no longer on the item"
    changed = {**now, "mainsnak": snak({"entity-type": "item", "numeric-id": 7, "id": "Q7"})}
    assert "value changed since the check (now Q7)" in skip_reason(proposal, changed)
    cited = [{"snaks": {"P854": [{"datavalue": {"value": "http://www.news.example.org/1/"}}]}}]
    referenced = {**now, "references": cited}
    assert skip_reason(proposal, referenced) == \
        "the statement already has a reference to http://www.news.example.org/1/"
    text = summary(proposal, model="qwen2.5-coder-1.5b", curator="Ada", report_url="https://example.org/r/run-1.html")
    assert text.startswith("refbot ") and "qwen2.5-coder-1.5b" in text and "approved by Ada" in text
    assert text.endswith("report: https://example.org/r/run-1.html")


def test_the_statement_value_in_the_trace_is_the_one_compared():
    statement = Statement("Q1", "x", "Q1$A", "P2046", "area", Value("quantity", "18.6U712226", "18.6 km²"))
    assert statement.value.raw == "18.6U712226"
    assert same_value("quantity", statement.value.raw,
                      snak({"amount": "+18.60", "unit": "http://www.wikidata.org/entity/Q712226"}))


def test_a_decision_needs_a_curator(options, trace_file):
    from bot.review.actions import decide, reviewing

    with reviewing(options, trace=trace_file) as (store, run):
        with pytest.raises(InputError, match=r"\[review\] curator"):
            decide(options, store, run, [GUIDS[0]], "approved", curator="")
    with pytest.raises(InputError, match="has no run 7"):
        with reviewing(options, run_id=7):
            pass


def test_an_unknown_file_is_named(tmp_path):
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    with pytest.raises(InputError, match="holds no run yet"):
        store.run_or_latest(None)
    assert Path(tmp_path / "runs.sqlite").is_file()


def test_doctor_says_whether_apply_has_an_account_and_never_shows_the_password(tmp_path):
    from bot.doctor import Problem, writes

    def options_with(**values):
        return load_options(None, environ={}, overrides=values)

    assert "simulates" in writes(options_with())
    with pytest.raises(Problem, match="has no BotPassword"):
        writes(options_with(apply_user="ExampleBot@refbot"))
    shown = writes(options_with(apply_user="ExampleBot@refbot", apply_password="s3cret-value"))
    assert "ExampleBot@refbot" in shown and "s3cret-value" not in shown
    secrets = tmp_path / "user-password.py"
    secrets.write_text("('ExampleBot', BotPassword('refbot', 's3cret-value'))\n", encoding="utf-8")
    secrets.chmod(0o644)
    with pytest.raises(Problem, match="can be read by other users"):
        writes(options_with(apply_user="ExampleBot@refbot", apply_password_file=str(secrets)))
    secrets.chmod(0o600)
    assert str(secrets) in writes(options_with(apply_user="ExampleBot@refbot", apply_password_file=str(secrets)))


def test_the_botpassword_is_never_read_from_refbot_ini(tmp_path):
    config = tmp_path / "refbot.ini"
    config.write_text("[apply]\nuser = ExampleBot@refbot\npassword = s3cret\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="REFBOT_APPLY_PASSWORD"):
        load_options(config, environ={})
    config.write_text("[apply]\nuser = ExampleBot@refbot\n", encoding="utf-8")
    assert load_options(config, environ={"REFBOT_APPLY_PASSWORD": "s3cret"}).apply.password == "s3cret"


def test_an_import_stopped_half_way_leaves_no_run(tmp_path, trace_file, monkeypatch):
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))

    def broken(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(store.ledger, "record_run_element", broken)
    with pytest.raises(KeyboardInterrupt):
        store.import_trace(traces.read(trace_file), trace_file)
    monkeypatch.undo()
    assert store.ledger.latest_run() is None
    run = store.import_trace(traces.read(trace_file), trace_file)
    assert len(store.proposals(run)) == 3 and store.trace(run) is not None


def test_a_reference_written_through_one_run_is_written_in_every_run_that_proposed_it(tmp_path, trace_file):
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    first = store.import_trace(traces.read(trace_file), trace_file)
    tree = traces.read(trace_file)
    tree.getroot().find(traces.tag("run")).set("started", "2026-11-22T10:00:00Z")  # another trace, same proposals
    second = store.import_trace(tree, trace_file)
    assert second != first
    store.decide(first, [GUIDS[0]], "approved", curator="Ada")
    store.decide(second, [GUIDS[0]], "approved", curator="Bob")
    assert [(run, p.guid) for run, p in store.approved_unwritten([first, second])] == [(first, GUIDS[0])]
    store.record_write(first, GUIDS[0], "written", revision=7, site="https://w.example/w/api.php")
    assert store.reviews(second)[GUIDS[0]].state == "written"
    assert store.approved_unwritten([first, second]) == []


def test_a_value_with_a_double_quote_is_left_out_of_the_quickstatements_batch(options, tmp_path):
    from bot.review.actions import export_quickstatements, reviewing

    statement = replace(STATEMENT, guid="Q990201$QUOTE", property_id="P1448", property_label="official name",
                        value=Value("monolingualtext", 'en:"The \\"Best\\" Prize"', 'The "Best" Prize'))
    check = supported_check()
    check = replace(check, statement=statement, quickstatements=quickstatements(statement, check.reference))
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT), [traces.statement_element(CONTEXT, check)])])
    path = traces.write(tree, tmp_path / "quoted.xml")
    with reviewing(options, trace=path) as (store, run):
        batch, left_out, trimmed = export_quickstatements(store, run, tmp_path / "batch.tsv", approved_only=False)
    assert batch == [] and trimmed == [] and [(p.guid, why) for p, why in left_out] == [
        ("Q990201$QUOTE", "its value holds a double quote, which QuickStatements cannot match (it has no escapes)")]


def test_a_long_summary_cuts_its_free_text_never_the_batch_tag_and_the_documentation_must_be_a_page(tmp_path,
                                                                                                    trace_file):
    from bot.review.applying import new_batch
    from bot.review.summaries import SUMMARY_MAX, batch_tag

    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace_file), trace_file)
    proposal = store.proposals(run)[0]
    store.ledger.close()
    batch = new_batch()
    assert re.fullmatch(r"[0-9a-f]{16}", batch) and batch != new_batch()
    text = summary(proposal, model="m", curator="Ada " * 200, report_url="https://r.example/1",
                   documentation="User:Example", batch=batch)
    assert len(text) == SUMMARY_MAX and text.endswith("…" + batch_tag(batch))
    assert text.startswith("[[User:Example|refbot]] ") and ": page judged by m, support 0.91, approved by Ada" in text
    assert load_options(None, environ={}, overrides={"apply_user": "Example@refbot"}).apply.documentation_page == \
        "User:Example"
    with pytest.raises(ConfigError, match="wiki page title"):
        load_options(None, environ={}, overrides={"apply_documentation": "[[User:Example]]"})


def test_an_approval_that_leaves_out_the_title_is_exported_and_applied_without_it(options, trace_file, tmp_path):
    from bot.review.actions import export_quickstatements, reviewing

    with reviewing(options, trace=trace_file) as (store, run):
        store.decide(run, [GUIDS[0]], "approved", curator="Ada", dropped=["P1476"])
        store.decide(run, [GUIDS[1]], "approved", curator="Ada")
        with pytest.raises(InputError, match="only an approved reference may leave out snaks"):
            store.decide(run, [GUIDS[2]], "rejected", curator="Ada", dropped=["P1476"])
        assert store.reviews(run)[GUIDS[0]].dropped == ("P1476",)
        chosen = {proposal.guid: proposal for _, proposal in store.approved_unwritten([run])}
        batch, left_out, trimmed = export_quickstatements(store, run, tmp_path / "batch.tsv", approved_only=True)
    assert chosen[GUIDS[0]].snak("P1476") is None and chosen[GUIDS[1]].snak("P1476") is not None
    first, second = (tmp_path / "batch.tsv").read_text(encoding="utf-8").splitlines()
    assert "S1476" not in first.split("\t") and "S1476" in second.split("\t") and not left_out and not trimmed
