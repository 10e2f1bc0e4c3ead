"""The run ledger: finished statements survive a killed process; a restarted run resumes; recent checks rest."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from bot.cli.arguments import duration
from bot.ledger.ledger import RunLedger
from conftest import ROOT


def test_an_unfinished_run_is_resumed_and_a_finished_one_is_not(ledger_target):
    now = [datetime(2026, 11, 24, 10, tzinfo=timezone.utc)]
    ledger = RunLedger(ledger_target, clock=lambda: now[0])
    run = ledger.open_run("k1", "items a.txt")
    assert run.started == "2026-11-24T10:00:00Z"
    ledger.record_item(run, "Q1", "<item/>")
    ledger.record(run, "Q1$A", "Q1", "supported", "<statement/>")
    ledger.close()

    ledger = RunLedger(ledger_target, clock=lambda: now[0])  # as a new process would
    again = ledger.open_run("k1", "items a.txt")
    assert again.id == run.id and again.resumed and ledger.done(again) == {"Q1$A"}
    assert ledger.open_run("k2", "other").id != run.id
    ledger.finish(again)
    fresh = ledger.open_run("k1", "items a.txt")
    assert fresh.id != run.id and not fresh.resumed and ledger.done(fresh) == set()
    assert ledger.recently_checked(fresh, 30) == {"Q1$A"}
    now[0] += timedelta(days=31)
    assert ledger.recently_checked(fresh, 30) == set()


def test_a_statement_is_recorded_once_per_run_and_the_first_record_stands(ledger_target):
    ledger = RunLedger(ledger_target)
    run = ledger.open_run("k", "")
    ledger.record_item(run, "Q1", "<item first/>")
    assert ledger.record(run, "Q1$A", "Q1", "not-found", "<statement/>")
    assert not ledger.record(run, "Q1$A", "Q1", "supported", "<statement/>")
    ledger.record_item(run, "Q1", "<item second/>")
    assert ledger.counts(run) == {"not-found": 1}
    assert ledger.items(run) == [("Q1", "<item first/>", [("Q1$A", "<statement/>")])]


def test_errors_are_checked_again_by_the_next_run(ledger_target):
    ledger = RunLedger(ledger_target)
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


def test_a_run_is_checked_by_one_process_at_a_time(tmp_path):
    first = RunLedger(tmp_path / "runs.sqlite")
    run = first.open_run("k", "items a.txt")
    first.claim(run)
    # another process resuming the same run is refused, and names who holds it
    claim_in_another_process = (
        "import sys; from pathlib import Path; from bot.ledger.ledger import RunLedger\n"
        "ledger = RunLedger(Path(sys.argv[1])); run = ledger.open_run('k', 'items a.txt')\n"
        "try:\n    ledger.claim(run)\nexcept Exception as error:\n    print(error); sys.exit(3)\n"
        "if len(sys.argv) > 2:\n    ledger.close()\n")  # else it ends as a killed process would: lock file left
    other = subprocess.run([sys.executable, "-c", claim_in_another_process, str(tmp_path / "runs.sqlite")],
                           capture_output=True, text=True, env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=60)
    assert other.returncode == 3
    assert f"run {run.id} of {tmp_path / 'runs.sqlite'} is being checked by process {os.getpid()}" in other.stdout
    assert "--new" in other.stdout
    first.close()  # finished (or killed): the run is free again, and no lock file is left
    killed = subprocess.run([sys.executable, "-c", claim_in_another_process, str(tmp_path / "runs.sqlite")],
                            capture_output=True, text=True, env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=60)
    assert killed.returncode == 0, killed.stdout  # and its lock died with it
    again = subprocess.run([sys.executable, "-c", claim_in_another_process, str(tmp_path / "runs.sqlite"), "close"],
                           capture_output=True, text=True, env=os.environ | {"PYTHONPATH": str(ROOT)}, timeout=60)
    assert again.returncode == 0, again.stdout
    assert not list(tmp_path.glob("*.lock"))


def _open_at_once(path: str, barrier, rounds: int, answers) -> None:
    """One process of the race below: the ledger, then each round's worklist, opened when every process is ready."""
    try:
        barrier.wait(timeout=60)
        ledger = RunLedger(path if "://" in path else Path(path))
        for number in range(rounds):
            barrier.wait(timeout=60)
            answers.put((number, ledger.open_run(f"worklist {number}", "items a.txt").id))
        ledger.close()
    except BaseException as error:
        barrier.abort()  # the others stop waiting for this one
        answers.put((-1, repr(error)))


def test_processes_opening_one_worklist_at_the_same_instant_share_one_run(ledger_target):
    """A new ledger and then each worklist opened by several processes at once (a barrier starts them together):
    one run per worklist, the others resume it."""
    import multiprocessing

    processes, rounds = 4, 6
    context = multiprocessing.get_context("spawn")
    barrier, answers = context.Barrier(processes), context.Queue()
    workers = [context.Process(target=_open_at_once, args=(str(ledger_target), barrier, rounds, answers))
               for _ in range(processes)]
    for worker in workers:
        worker.start()
    opened: dict[int, set[int]] = {}
    for _ in range(processes * rounds):
        number, answer = answers.get(timeout=120)
        assert number >= 0, f"a process failed: {answer}"
        opened.setdefault(number, set()).add(answer)
    for worker in workers:
        worker.join(timeout=60)
    assert [len(ids) for _, ids in sorted(opened.items())] == [1] * rounds, opened
    ledger = RunLedger(ledger_target)
    assert ledger.latest_run().id - min(min(ids) for ids in opened.values()) + 1 == rounds, "no run made twice"
    ledger.close()
