"""The report's QuickStatements box says what `refbot export` does with each reference — by the export's own rule,
with its reason: a line it leaves out is marked not to be pasted, a reference it writes without a title or quotation
QuickStatements would change shows the line it writes — in a report of a trace file and of a run of the ledger, and
shows the others as before."""

from __future__ import annotations

import re
from dataclasses import replace

import lxml.html

from bot.cli import main
from bot.output import trace as traces
from bot.datamodel import Value
from bot.references import quickstatements
from test_review import GUIDS, checks
from test_review_cli import imported
from test_trace import CONTEXT, run_info


def _found():
    """A value QuickStatements cannot match (left out), a quotation it would change (written without it), one as it
    is."""
    found = checks()[:3]
    found[0] = replace(found[0], statement=replace(found[0].statement, property_id="P1448", property_label="official "
                                                   "name", value=Value("monolingualtext", 'en:"The \\"Best\\" Prize"',
                                                                       'The "Best" Prize')))
    found[1] = replace(found[1], reference=replace(found[1].reference, quotation="the jury cited her “patience”"))
    return [replace(check, quickstatements=quickstatements(check.statement, check.reference, "refbot"))
            for check in found]


def test_the_quickstatements_box_says_what_export_does_with_each_reference(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    found = _found()
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, check) for check in found])])
    trace = traces.write(tree, tmp_path / "check.xml")
    assert main(["report", str(trace), "--out", str(tmp_path / "check.html")]) == 0
    page = (tmp_path / "check.html").read_text(encoding="utf-8")

    run = imported(tmp_path, found)
    assert main(["export", "--quickstatements", "--out", "batch.tsv", "--ledger", "runs.sqlite"]) == 1, \
        "an export that leaves a reference or a snak out says so with its status"
    said = capsys.readouterr()
    assert "2 command(s) written to batch.tsv; 1 of the 3 proposed or approved reference(s) left out, which " \
           "QuickStatements would change; 1 written without a title or quotation QuickStatements would change " \
           "(below)" in said.out
    left_out = re.search(r"left out .*? \((\S+)\): (.*); use refbot apply", said.err)
    assert left_out and left_out.group(1) == GUIDS[0]
    trimmed = re.search(r"written (without the quotation \(P1683\), which holds “: .*?): .* \((\S+)\); refbot apply",
                        said.err)
    assert trimmed and trimmed.group(2) == GUIDS[1], said.err
    batch = (tmp_path / "batch.tsv").read_text(encoding="utf-8").splitlines()
    assert len(batch) == 2 and "S1683" not in batch[0] and "S1476" in batch[0], "only the quotation is left out"
    assert batch[1] == found[2].quickstatements

    assert main(["report", "--run", str(run), "--ledger", "runs.sqlite", "--out", "run.html"]) == 0
    for html in (page, (tmp_path / "run.html").read_text(encoding="utf-8")):
        document = lxml.html.fromstring(html)
        boxes = {box.get("class"): box for box in document.iter("textarea")}
        assert set(boxes) == {"qs unsafe", "qs trimmed", "qs"}
        said = [" ".join(warning.text_content().split()) for warning in document.find_class("qs-unsafe")]
        assert said == [f"Not for QuickStatements: refbot export leaves this line out: {left_out.group(2)}. Do not "
                        "paste it; refbot apply writes the reference as it is.",
                        f"Exported in part: refbot export writes this reference {trimmed.group(1)}. The line below "
                        "is what it writes; refbot apply writes the whole reference as it is."]
        assert boxes["qs trimmed"].text == batch[0], "the report shows the line the export writes"
        assert boxes["qs"].text.startswith(found[2].statement.item)
        assert "QuickStatements (select and copy; tab-separated, V1):" in html


def test_a_report_rewritten_after_a_decision_still_marks_the_lines_export_leaves_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = imported(tmp_path, _found())
    assert main(["approve", "--run", str(run), GUIDS[2], "--ledger", "runs.sqlite", "--curator", "Tester"]) == 0
    document = lxml.html.fromstring((tmp_path / "reports" / f"run-{run}.html").read_text(encoding="utf-8"))
    assert len(document.find_class("qs-unsafe")) == 2
    assert len([box for box in document.iter("textarea") if box.get("class") == "qs"]) == 1
