"""`refbot approve`, `reject` and `export` as a curator types them: statements named by label, every GUID form
Wikidata and the query service print accepted, a GUID the shell mangled named with the fix, `--dry-run` recording
nothing, and QuickStatements lines left out with the reason when QuickStatements would not write them faithfully."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.checking.records import Outcome, StatementCheck
from bot.cli import main
from bot.output import trace as traces
from bot.references import quickstatements
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger
from test_review import GUIDS, checks
from test_trace import CONTEXT, run_info

UUID = "963B5C52-0B6A-4C9B-9F5B-2B6F1D0E7A11"
PURKYNE = f"Q990201${UUID}"  # the first proposal, with a GUID as Wikidata makes them


def with_guid(check: StatementCheck, guid: str) -> StatementCheck:
    statement = replace(check.statement, guid=guid)
    return replace(check, statement=statement, quickstatements=quickstatements(statement, check.reference, "refbot"))


@pytest.fixture
def run(tmp_path, monkeypatch):
    """Run 1: the Purkyně Prize (support 0.91), Prize 2 (0.62), Prize 3 (0.91), and one statement not found."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", "Ada")
    found = checks()
    found[0] = with_guid(replace(found[0], statement=replace(found[0].statement, value=replace(
        found[0].statement.value, text="Purkyně Prize for Chemistry"))), PURKYNE)
    return imported(tmp_path, found)


def imported(tmp_path, found) -> int:
    """The run a trace of these checks becomes in tmp_path's ledger."""
    tree = traces.assemble(run_info(), [(traces.item_element(CONTEXT),
                                         [traces.statement_element(CONTEXT, check) for check in found])])
    path = traces.write(tree, tmp_path / "check.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    try:
        return store.import_trace(traces.read(path), path)
    finally:
        store.ledger.close()


def states(tmp_path, run: int) -> dict[str, str]:
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    try:
        return {guid: review.state for guid, review in store.reviews(run).items()}
    finally:
        store.ledger.close()


@pytest.mark.parametrize("form", [
    PURKYNE,
    f"q990201${UUID}",
    f"Q990201-{UUID}",
    f"wds:Q990201-{UUID}",
    f"http://www.wikidata.org/entity/statement/Q990201-{UUID}",
    f"https://www.wikidata.org/entity/statement/q990201-{UUID.lower()}",
])
def test_every_guid_form_names_the_statement_and_the_confirmation_names_it_by_label(tmp_path, run, capsys, form):
    assert main(["approve", form, "--ledger", "runs.sqlite"]) == 0
    out = capsys.readouterr().out
    assert f"run {run}: 1 reference(s) approved" in out
    assert f"  approved  Marta Novotná · award received · Purkyně Prize for Chemistry ({PURKYNE})  support 0.91" \
        in out.splitlines()
    assert states(tmp_path, run)[PURKYNE] == "approved"


@pytest.mark.parametrize("mangled, named", [
    ("Q990201", "'Q990201' is not a whole statement GUID"),  # "Q990201$…" unquoted: $… was a variable
    ("Q990201-", "'Q990201-' is not a whole statement GUID"),
    ("Q99020163B5C52-0B6A-4C9B-9F5B-2B6F1D0E7A11", "'Q99020163B5C52-0B6A-4C9B-9F5B-2B6F1D0E7A11' is not a whole"),
    ("Q990201-0B6A-4C9B-9F5B-2B6F1D0E7A11", "run 1 proposes no reference for statement "
                                            "Q990201-0B6A-4C9B-9F5B-2B6F1D0E7A11"),
])
def test_a_guid_the_shell_mangled_is_named_with_the_fix(tmp_path, run, capsys, mangled, named):
    assert main(["approve", mangled, "--ledger", "runs.sqlite"]) == 2
    err = capsys.readouterr().err
    assert named in err and "quote the GUID ('Q990201$…') or use the Q990201-… form" in err
    assert set(states(tmp_path, run).values()) == {"proposed"}


def test_all_supported_dry_run_lists_what_would_be_decided_and_records_nothing(tmp_path, run, capsys):
    report = tmp_path / "reports" / f"run-{run}.html"
    assert main(["approve", "--all-supported", "--min-support", "0.9", "--dry-run", "--ledger", "runs.sqlite"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"run {run}: 2 reference(s) would be approved (dry run: nothing recorded)",
                   f"  approved  Marta Novotná · award received · Purkyně Prize for Chemistry ({PURKYNE})  "
                   "support 0.91",
                   f"  approved  Marta Novotná · award received · Prize 3 ({GUIDS[2]})  support 0.91",
                   "  left out by --min-support 0.9: 1 judged below it"]
    assert set(states(tmp_path, run).values()) == {"proposed"} and not report.exists()

    assert main(["reject", f"wds:Q990201-{UUID}", GUIDS[1], "--dry-run", "--ledger", "runs.sqlite"]) == 0
    assert "2 reference(s) would be rejected" in capsys.readouterr().out
    assert main(["approve", "--all-supported", "--min-support", "0.9", "--ledger", "runs.sqlite"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [line for line in out[1:]]
    assert states(tmp_path, run)[PURKYNE] == "approved" and report.exists()


def test_export_writes_a_reference_without_the_title_or_quotation_quickstatements_would_change_saying_why(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    found = checks()[:3]
    found[0] = replace(found[0], reference=replace(found[0].reference, title="Výsledky | 1968"))
    found[1] = replace(found[1], reference=replace(found[1].reference, quotation="the jury cited her “patience”"))
    found[2] = replace(found[2], reference=replace(found[2].reference, title='The "Brno" chemist',
                                                   quotation='She said: "we want\tyour pots back".'))
    found = [replace(check, quickstatements=quickstatements(check.statement, check.reference, "refbot"))
             for check in found]
    run = imported(tmp_path, found)

    # the summary says what is missing, and the export ends with status 1: no batch silently lacks a snak
    assert main(["export", "--quickstatements", "--out", "batch.tsv", "--ledger", "runs.sqlite"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f"run {run}: 3 command(s) written to batch.tsv; 2 written without a title "
                                         "or quotation QuickStatements would change (below)"]
    assert captured.err.splitlines() == [
        "  written without the title (P1476), which holds |: older QuickStatements 3 reads every | as a column break: "
        f"Marta Novotná · award received · Prize 1 ({GUIDS[0]}); refbot apply writes the whole reference",
        "  written without the quotation (P1683), which holds “: QuickStatements 3 turns typographic quotes into "
        f"straight ones: Marta Novotná · award received · Prize 2 ({GUIDS[1]}); refbot apply writes the whole "
        "reference"]
    first, second, line = (tmp_path / "batch.tsv").read_text(encoding="utf-8").splitlines()
    assert "S1476" not in first.split("\t") and "S1683" in first.split("\t"), "only the title is left out"
    assert "S1683" not in second.split("\t") and "S1476" in second.split("\t")
    columns = line.split("\t")
    assert columns[:3] == ["Q990201", "P166", "Q990213"]
    assert 'en:"The "Brno" chemist"' in columns and 'en:"She said: "we want your pots back"."' in columns


def test_a_statements_guid_names_its_references_fix_and_a_quoted_guid_the_run_lacks_gets_no_shell_hint():
    """A verify run's fixes are keyed GUID#HASH: the statement's GUID alone names its one fix; with two, both are
    named; a GUID quoted whole (nothing eaten by the shell) is told where the run's proposals are listed."""
    from bot.errors import InputError
    from bot.review.guids import resolve

    one = f"Q990201${UUID}#9a24b1"
    assert resolve([f"Q990201${UUID}"], [one], 4) == [one]
    assert resolve([f"wds:Q990201-{UUID}"], [one], 4) == [one]
    two = [f"Q990201${UUID}#9a24b1", f"Q990201${UUID}#77c0de"]
    with pytest.raises(InputError) as raised:
        resolve([f"Q990201${UUID}"], two, 4)
    assert "run 4 proposes fixes for 2 of statement" in str(raised.value)
    assert f"'{two[0]}', '{two[1]}'" in raised.value.hint
    with pytest.raises(InputError) as raised:
        resolve(["Q990201$0B6A4C9B-9F5B-2B6F-1D0E-7A1100000000"], [one], 4)
    assert "quote the GUID" not in raised.value.hint and "GUID#HASH" in raised.value.hint


def test_approve_finds_the_run_that_proposes_the_statement_and_says_which(run, tmp_path, capsys):
    """A later run (a verify run, another worklist) does not propose the statement: `approve GUID` without --run
    decides it in the run that does, and says so, instead of "run 2 proposes no reference"."""
    later = checks()[3:]
    assert imported(tmp_path, later) == run + 1
    assert main(["approve", PURKYNE, "--ledger", "runs.sqlite"]) == 0
    captured = capsys.readouterr()
    assert f"run {run} proposes it (the latest run, {run + 1}, does not); deciding in run {run}" in captured.err
    assert f"run {run}: 1 reference(s) approved" in captured.out
    assert states(tmp_path, run)[PURKYNE] == "approved"
    assert main(["approve", "Q990201$00000000-0000-0000-0000-000000000000", "--ledger", "runs.sqlite"]) == 2
    assert f"run {run + 1} proposes no reference for statement" in capsys.readouterr().err


def test_approve_refuses_to_replace_a_colleagues_decision_without_force(run, tmp_path, capsys, monkeypatch):
    assert main(["reject", PURKYNE, "--ledger", "runs.sqlite", "--note", "wrong prize"]) == 0
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", "Bea")
    capsys.readouterr()
    assert main(["approve", PURKYNE, "--ledger", "runs.sqlite"]) == 2
    err = capsys.readouterr().err
    assert f"statement {PURKYNE} was rejected by Ada at " in err and "(note: wrong prize)" in err
    assert "--force" in err and err.count("\n") == 1
    assert states(tmp_path, run)[PURKYNE] == "rejected"
    assert main(["approve", PURKYNE, "--ledger", "runs.sqlite", "--force"]) == 0
    assert states(tmp_path, run)[PURKYNE] == "approved"
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", "Ada")
    assert main(["reject", PURKYNE, "--ledger", "runs.sqlite"]) == 2, "Bea's decision now: Ada needs --force too"
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", "Bea")
    assert main(["reject", PURKYNE, "--ledger", "runs.sqlite"]) == 0, "Bea changes her own decision freely"


def test_all_supported_names_corroborated_proposals_and_min_support_says_it_leaves_them_out(tmp_path, monkeypatch,
                                                                                            capsys):
    """A proposal a record corroborates has no judge's support: `--all-supported` lists it as corroborated (not
    "support 0.00"), and `--min-support` says it leaves it out rather than dropping it silently."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REFBOT_REVIEW_CURATOR", "Ada")
    found = checks()
    found[1] = replace(found[1], outcome=Outcome.CORROBORATED)
    run = imported(tmp_path, found)
    assert main(["approve", "--all-supported", "--dry-run", "--ledger", "runs.sqlite"]) == 0
    out = capsys.readouterr().out
    assert f"· Prize 2 ({GUIDS[1]})  corroborated by a record" in out and "support 0.00" not in out
    assert main(["approve", "--all-supported", "--min-support", "0.5", "--dry-run", "--ledger", "runs.sqlite"]) == 0
    out = capsys.readouterr().out
    assert GUIDS[1] not in out and "left out by --min-support 0.5: 0 judged below it, 1 corroborated by a record" in out
    assert states(tmp_path, run)[GUIDS[1]] == "proposed"
