"""What a curator approves is what `refbot apply` writes: the review page shows each snak as the edit writes it (an
item by its id, with its label), and a trace whose snak texts, values and QuickStatements line disagree is refused
when it is read, with one line naming the trace, the statement and the snak."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from lxml import etree

from bot.output import trace as traces
from bot.checking.records import Outcome, StatementCheck
from bot.cli import main
from bot.datamodel import Value
from bot.errors import InputError
from bot.options import load_options
from bot.references import StatedIn, quickstatements
from bot.output.report import render
from bot.review.actions import reviewing
from bot.review.datavalues import reference_snaks
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger
from test_trace import CONTEXT, STATEMENT, run_info, supported_check

BORN = "Q990201$BORN-0001"
WEB = STATEMENT.guid


def checks() -> list[StatementCheck]:
    """A web reference (P854, P813, P1476, P407, P1683) and an authority record's (P248, P227, P813)."""
    born = replace(STATEMENT, guid=BORN, property_id="P569", property_label="date of birth",
                   value=Value("time", "+1968-02-11T00:00:00Z/11", "11 February 1968"))
    record = StatedIn("Q36578", "Integrated Authority File", "P227", "GND ID", "1099020101", date(2026, 11, 24),
                      "https://d-nb.info/gnd/1099020101/about/lds")
    return [supported_check(),
            StatementCheck(born, Outcome.CORROBORATED, "an authority record states it", "2026-11-24T10:00:00Z", 0.4,
                           reference=record, quickstatements=quickstatements(born, record, "refbot"))]


def trace_file(path: Path, changes: dict[tuple[str, str], dict[str, str]] | None = None) -> Path:
    """The trace of :func:`checks`, with ``changes`` made to it: {(GUID, snak's property or "reference"):
    {attribute: value}} — as someone editing the file would."""
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, check) for check in checks()])])
    for (guid, target), attributes in (changes or {}).items():
        (statement,) = [s for s in tree.getroot().iter(traces.tag("statement")) if s.get("guid") == guid]
        reference = statement.find(traces.tag("reference"))
        element = reference if target == "reference" else next(
            snak for snak in reference.iter(traces.tag("snak")) if snak.get("property") == target)
        for name, value in attributes.items():
            element.set(name, value)
    return traces.write(tree, path)


@pytest.fixture
def options(tmp_path):
    return load_options(None, environ={}, overrides={"run_ledger": tmp_path / "runs.sqlite",
                                                     "check_reports": tmp_path / "reports"})


def shown(html: str, guid: str) -> dict[str, str]:
    """The proposed reference's table on the page: property id → the value cell's text."""
    page = etree.HTML(html)
    (section,) = page.xpath(f"//section[@data-guid='{guid}']")
    rows = {}
    for row in section.xpath(".//table[contains(@class, 'reference')]/tbody/tr"):
        name, value = ("".join(cell.itertext()) for cell in row.xpath("td"))
        rows[re.search(r"\((P\d+)\)", name).group(1)] = " ".join(value.split())
    return rows


def as_written(datavalue: dict) -> list[str]:
    """What a curator must read to know the value an edit writes."""
    value = datavalue["value"]
    if datavalue["type"] == "wikibase-entityid":
        return [value["id"]]
    if datavalue["type"] == "monolingualtext":
        return [value["text"], f"({value['language']})"]
    if datavalue["type"] == "time":
        return [value["time"][1:11]]
    return [value]


def test_the_review_page_shows_every_snak_as_apply_writes_it_with_labels_for_ids(options, tmp_path):
    with reviewing(options, trace=trace_file(tmp_path / "check.xml")) as (store, run):
        html = render(store.trace(run), review_token="t0ken", review_run=str(run), review_curator="Ada",
                      review_base="/a-secret-path-for-tests/")
        proposals = {proposal.guid: proposal for proposal in store.proposals(run)}
    for guid in (WEB, BORN):
        rows = shown(html, guid)
        written, order = reference_snaks(proposals[guid].snaks)
        assert list(rows) == order, "the page shows exactly the snaks the edit writes"
        for property_id, snaks in written.items():
            for part in as_written(snaks[0]["datavalue"]):
                assert part in rows[property_id], f"{guid} {property_id}: {part} is written, the page shows " \
                                                  f"{rows[property_id]!r}"
    stated = shown(html, BORN)
    assert stated["P248"] == "Q36578 Integrated Authority File"
    assert shown(html, WEB)["P407"] == "Q1860 English"
    assert 'action="/a-secret-path-for-tests/decide"' in html


@pytest.mark.parametrize("changes, snak, problem", [
    # the probe's case: the page showed "Integrated Authority File" and S248 Q36578; apply would have written Q42
    ({(BORN, "P248"): {"value": "Q42"}}, "P248 (stated in)", "its value Q42 is not the QuickStatements line's "
                                                             "(S248 Q36578)"),
    ({(WEB, "P407"): {"value": "Q150"}}, "P407 (language of work)", "it shows “English” but its value is Q150"),
    ({(BORN, "P813"): {"value": "+2020-01-01T00:00:00Z/11"}}, "P813 (retrieved)", "it shows “2026-11-24”"),
    ({(WEB, "P854"): {"text": "https://news.example.org/other"}}, "P854 (reference URL)",
     "it shows “https://news.example.org/other”"),
    ({(WEB, "P1476"): {"text": "Another title"}}, "P1476 (title)", "it shows “Another title”"),
    ({(BORN, "P227"): {"value": '"118540238"', "text": "118540238"}}, "P227 (GND ID)",
     "its value \"118540238\" is not the QuickStatements line's"),
    ({(BORN, "P248"): {"datatype": "string"}}, "P248 (stated in)", "its datatype string is not P248's"),
    ({(WEB, "reference"): {"url": "https://elsewhere.example/"}}, "P854 (reference URL)",
     "but the reference's URL is https://elsewhere.example/"),
])
def test_a_trace_whose_snaks_disagree_is_refused_on_load_naming_the_trace_statement_and_snak(
        options, tmp_path, changes, snak, problem):
    path = trace_file(tmp_path / "changed.xml", changes)
    with pytest.raises(InputError) as refused:
        with reviewing(options, trace=path):
            pass
    message = str(refused.value)
    guid = next(iter(changes))[0]
    assert message.startswith(f"{path}: statement {guid}: snak {snak}: ") and problem in message
    assert "\n" not in message and "changed after refbot wrote it" in message
    store = ReviewLedger(RunLedger(options.run.ledger))
    assert store.ledger.latest_run() is None, "nothing of a refused trace enters the ledger"


def test_a_changed_proposal_is_refused_from_a_file_and_from_the_ledger_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = trace_file(tmp_path / "changed.xml", {(BORN, "P248"): {"value": "Q42"}})
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    with pytest.raises(InputError, match="snak P248"):
        store.import_trace(traces.read(path), path)
    # a run already in the ledger whose proposal was changed there (before refbot checked): nothing decides it
    tree = traces.read(trace_file(tmp_path / "check.xml"))
    run = store.import_trace(tree, tmp_path / "check.xml")
    ((_, _, statements),) = store.ledger.items(store.ledger.run(run))
    changed = dict(statements)[BORN].replace('value="Q36578"', 'value="Q42"')
    store.ledger.close()
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.execute("UPDATE checks SET element = ? WHERE run_id = ? AND guid = ?", (changed, run, BORN))
    assert main(["approve", BORN, "--ledger", str(tmp_path / "runs.sqlite"), "--curator", "Ada"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"run {run}: statement {BORN}: snak P248 (stated in): its value Q42" in err and "\n" not in err
