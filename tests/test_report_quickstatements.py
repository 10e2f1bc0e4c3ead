"""The report's QuickStatements box marks each line `refbot export` leaves out — by the export's own rule, with its
reason — as not to be pasted, in a report of a trace file and of a run of the ledger, and shows the others as
before."""

from __future__ import annotations

import re
from dataclasses import replace

import lxml.html

from bot.cli import main
from bot.output import trace as traces
from bot.references import quickstatements
from test_review import GUIDS, checks
from test_review_cli import imported
from test_trace import CONTEXT, run_info


def _found():
    found = checks()[:3]
    found[0] = replace(found[0], reference=replace(found[0].reference, title="Výsledky | 1968"))
    found[1] = replace(found[1], reference=replace(found[1].reference, quotation="the jury cited her “patience”"))
    return [replace(check, quickstatements=quickstatements(check.statement, check.reference, "refbot"))
            for check in found]


def test_the_quickstatements_box_marks_the_lines_export_leaves_out_with_its_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    found = _found()
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, check) for check in found])])
    trace = traces.write(tree, tmp_path / "check.xml")
    assert main(["report", str(trace), "--out", str(tmp_path / "check.html")]) == 0
    page = (tmp_path / "check.html").read_text(encoding="utf-8")

    run = imported(tmp_path, found)
    assert main(["export", "--quickstatements", "--out", "batch.tsv", "--ledger", "runs.sqlite"]) == 1, \
        "an export that leaves references out says so with its status"
    exported = {match.group(1): match.group(2) for match in re.finditer(
        r"left out .*? \((\S+)\): (.*); use refbot apply", capsys.readouterr().err)}
    assert set(exported) == {GUIDS[0], GUIDS[1]}

    assert main(["report", "--run", str(run), "--ledger", "runs.sqlite", "--out", "run.html"]) == 0
    for html in (page, (tmp_path / "run.html").read_text(encoding="utf-8")):
        document = lxml.html.fromstring(html)
        unsafe = document.find_class("qs-unsafe")
        assert len(unsafe) == 2 and len([box for box in document.iter("textarea")
                                         if box.get("class") == "qs unsafe"]) == 2
        said = [" ".join(warning.text_content().split()) for warning in unsafe]
        assert said == [f"Not for QuickStatements: refbot export leaves this line out: {exported[guid]}. Do not "
                        "paste it; refbot apply writes the reference as it is." for guid in GUIDS[:2]]
        safe = [box for box in document.iter("textarea") if box.get("class") == "qs"]
        assert len(safe) == 1 and safe[0].text.startswith(found[2].statement.item)
        assert "QuickStatements (select and copy; tab-separated, V1):" in html


def test_a_report_rewritten_after_a_decision_still_marks_the_lines_export_leaves_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = imported(tmp_path, _found())
    assert main(["approve", "--run", str(run), GUIDS[2], "--ledger", "runs.sqlite", "--curator", "Tester"]) == 0
    document = lxml.html.fromstring((tmp_path / "reports" / f"run-{run}.html").read_text(encoding="utf-8"))
    assert len(document.find_class("qs-unsafe")) == 2
    assert len([box for box in document.iter("textarea") if box.get("class") == "qs"]) == 1
