"""The run ledger: finished statements survive a killed process; a restarted run resumes; recent checks rest."""

from __future__ import annotations

from datetime import timedelta

import argparse

import pytest

from bot.cli.arguments import duration
from bot.runledger import RunLedger, utc_now


def test_an_unfinished_run_is_resumed_and_a_finished_one_is_not(tmp_path):
    ledger = RunLedger(tmp_path / "runs.sqlite")
    run = ledger.open_run("k1", "items a.txt")
    ledger.record_item(run, "Q1", "<item/>")
    ledger.record(run, "Q1$A", "Q1", "supported", "<statement/>")
    ledger.close()

    ledger = RunLedger(tmp_path / "runs.sqlite")  # as a new process would
    again = ledger.open_run("k1", "items a.txt")
    assert again.id == run.id and again.resumed and ledger.done(again) == {"Q1$A"}
    assert ledger.open_run("k2", "other").id != run.id
    ledger.finish(again)
    fresh = ledger.open_run("k1", "items a.txt")
    assert fresh.id != run.id and not fresh.resumed and ledger.done(fresh) == set()
    assert ledger.recently_checked(fresh, 30) == {"Q1$A"}
    assert ledger.recently_checked(fresh, 30, now=utc_now() + timedelta(days=31)) == set()


def test_a_statement_is_recorded_once_per_run_and_the_first_record_stands(tmp_path):
    ledger = RunLedger(tmp_path / "runs.sqlite")
    run = ledger.open_run("k", "")
    ledger.record_item(run, "Q1", "<item first/>")
    assert ledger.record(run, "Q1$A", "Q1", "not-found", "<statement/>")
    assert not ledger.record(run, "Q1$A", "Q1", "supported", "<statement/>")
    ledger.record_item(run, "Q1", "<item second/>")
    assert ledger.counts(run) == {"not-found": 1}
    assert ledger.items(run) == [("Q1", "<item first/>", [("Q1$A", "<statement/>")])]


def test_errors_are_checked_again_by_the_next_run(tmp_path):
    ledger = RunLedger(tmp_path / "runs.sqlite")
    first = ledger.open_run("k", "")
    ledger.record(first, "Q1$A", "Q1", "error", "<statement/>")
    ledger.record(first, "Q1$B", "Q1", "not-found", "<statement/>")
    ledger.finish(first)
    assert ledger.recently_checked(ledger.open_run("k", ""), 30) == {"Q1$B"}


def test_an_unwritable_ledger_says_how_to_fix_it(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(Exception, match="ledger"):
        RunLedger(tmp_path / "file" / "runs.sqlite")


@pytest.mark.parametrize("text, seconds", [("2h", 7200), ("90m", 5400), ("1h30m", 5400), ("45s", 45), ("600", 600)])
def test_time_budgets_read_as_people_write_them(text, seconds):
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "2d", "h"])
def test_a_wrong_time_budget_is_a_usage_error(text):
    with pytest.raises(argparse.ArgumentTypeError, match="not a duration"):
        duration(text)
