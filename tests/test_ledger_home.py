"""A ledger knows where it lives: a copy (``cp runs.sqlite elsewhere/``) carries the original's identity, after which
its runs' queues and workers are named on the broker, so a worker or an enqueue on the copy is refused, naming both,
instead of taking the original's tasks; the copy is given an identity of its own on purpose (`refbot run
--new-identity`), and a ledger moved on purpose keeps its own (`--ledger-moved`, or a rename in place)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.errors import InputError
from bot.ledger.tables import queued
from bot.ledger.ledger import RunLedger

ROOT = Path(__file__).resolve().parents[1]


def refbot(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=environ)


def _enqueued(path: Path) -> str:
    """A ledger with a run whose two items were sent to its queue; its identity."""
    ledger = RunLedger(path)
    run = ledger.open_run("worklist", "items")
    ledger.enqueue(run, ["Q1", "Q2"], settings="s", properties=())
    ledger.send_unsent(run, lambda items: None)
    identity = ledger.identity
    ledger.close()
    return identity


def _sent(path: Path) -> list[object]:
    ledger = RunLedger(path)
    try:
        with ledger.transaction() as connection:
            return [row.sent for row in connection.execute(select(queued).order_by(queued.c.item))]
    finally:
        ledger.close()


def test_a_copied_ledger_is_refused_by_a_worker_naming_both_until_it_is_given_its_own_identity(
        tmp_path, redis_server):
    original, copy = tmp_path / "a" / "runs.sqlite", tmp_path / "c" / "runs.sqlite"
    original.parent.mkdir()
    copy.parent.mkdir()
    identity = _enqueued(original)
    shutil.copy(original, copy)

    with pytest.raises(InputError, match="is a copy of the ledger at") as refused:
        RunLedger(copy).identity
    assert str(copy) in str(refused.value) and str(original.resolve()) in str(refused.value)
    assert "--new-identity" in str(refused.value.hint)
    worker = refbot(tmp_path, "worker", "--ledger", str(copy), "--broker", redis_server.url("14"))
    assert worker.returncode == 2, worker.stderr
    assert f"the ledger {copy} is a copy of the ledger at {original.resolve()}" in worker.stderr
    status = refbot(tmp_path, "run", "--status", "1", "--ledger", str(copy))
    assert status.returncode == 2 and "refbot run --new-identity" in status.stderr

    given = refbot(tmp_path, "run", "--new-identity", "--ledger", str(copy))
    assert given.returncode == 0, given.stderr
    ledger = RunLedger(copy)
    assert ledger.identity != identity and ledger.identity in given.stdout
    ledger.close()
    assert _sent(copy) == [None, None], "the copy's unfinished items go to its own queues when enqueued again"
    assert all(_sent(original)), "the original's tasks are its own still"
    ledger = RunLedger(original)
    assert ledger.identity == identity
    ledger.close()
    mistaken = refbot(tmp_path, "run", "--new-identity", "--ledger", str(original))
    assert mistaken.returncode == 2 and "is the one its identity" in mistaken.stderr
    assert all(_sent(original)), "the original keeps its identity and its tasks"


def test_a_ledger_renamed_in_place_keeps_its_identity_and_one_moved_on_purpose_too(tmp_path):
    first = tmp_path / "runs.sqlite"
    identity = _enqueued(first)
    renamed = tmp_path / "kept" / "runs.sqlite"
    renamed.parent.mkdir()
    first.rename(renamed)  # the same file (the same inode) under another name
    ledger = RunLedger(renamed)
    assert ledger.identity == identity
    ledger.close()

    restored = tmp_path / "restored.sqlite"
    shutil.copy(renamed, restored)  # as a backup put back: another file
    renamed.unlink()
    moved = refbot(tmp_path, "run", "--ledger-moved", "--ledger", str(restored))
    assert moved.returncode == 0, moved.stderr
    ledger = RunLedger(restored)
    assert ledger.identity == identity and all(_sent(restored))
    ledger.close()


def test_a_ledger_on_a_server_has_one_home_whatever_address_a_process_reaches_it_by(ledger_target):
    if not isinstance(ledger_target, str):
        pytest.skip("a server's ledger")
    first = RunLedger(ledger_target)
    identity = first.identity
    first.close()
    other = RunLedger(ledger_target.replace("@127.0.0.1:", "@localhost:"))
    assert other.identity == identity
    other.close()
