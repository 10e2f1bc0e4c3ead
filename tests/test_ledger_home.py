"""A ledger knows where it lives: a copy (``cp runs.sqlite elsewhere/``) carries the original's identity, after which
its runs' queues and workers are named on the broker, so a worker or an enqueue on the copy is refused, naming both,
instead of taking the original's tasks; the copy is given an identity of its own on purpose (`refbot run
--new-identity`), and a ledger moved on purpose keeps its own (`--ledger-moved`, or a rename in place)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.distributed.lease import lease_key
from bot.errors import InputError
from bot.options import ini_text
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


def test_a_backup_restored_at_the_ledgers_own_path_is_named_once_with_what_happened(tmp_path):
    ledger = tmp_path / "runs.sqlite"
    identity = _enqueued(ledger)
    backup = tmp_path / "backup.sqlite"
    shutil.copy(ledger, backup)
    shutil.copy(backup, tmp_path / "runs.new")
    os.replace(tmp_path / "runs.new", ledger)  # the backup put in the ledger's place: another file (inode)
    refused = refbot(tmp_path, "run", "--status", "1", "--ledger", str(ledger))
    assert refused.returncode == 2, refused
    said = " ".join(refused.stderr.split())
    assert said.count(str(ledger)) == 1 and "the file at this path was replaced since" in said, said
    assert "refbot run --ledger-moved" in said and "copy of the ledger at" not in said
    assert refbot(tmp_path, "run", "--ledger-moved", "--ledger", str(ledger)).returncode == 0
    kept = RunLedger(ledger)
    assert kept.identity == identity
    kept.close()


def test_a_ledger_on_a_server_has_one_home_whatever_address_a_process_reaches_it_by(ledger_target):
    if not isinstance(ledger_target, str):
        pytest.skip("a server's ledger")
    first = RunLedger(ledger_target)
    identity = first.identity
    first.close()
    other = RunLedger(ledger_target.replace("@127.0.0.1:", "@localhost:"))
    assert other.identity == identity
    other.close()


def _fresh_volume(path: Path) -> Path:
    """A tmpfs of its own at ``path``: the first file written on it gets the same inode as on any other (mounting
    one needs root)."""
    path.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(path)], capture_output=True).returncode:
        pytest.skip("mounting a tmpfs needs root")
    return path


def _snapshot(ledger: Path, volume: Path) -> Path:
    """The ledger's files copied onto a fresh volume as a snapshot would carry them (the file first: the same
    inode as the original's on its own fresh volume)."""
    copy = volume / ledger.name
    for suffix in ("", "-wal"):
        if Path(f"{ledger}{suffix}").exists():
            shutil.copy(f"{ledger}{suffix}", f"{copy}{suffix}")
    return copy


def _lease(url: str, identity: str) -> dict:
    import redis

    raw = redis.Redis.from_url(url).get(lease_key("runs:", identity))
    return json.loads(raw) if raw else {}


def _until(test, what: str, seconds: float = 60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if test():
            return
        time.sleep(0.2)
    raise AssertionError(f"{what}, not in {seconds:g} s")


def test_a_copy_with_the_same_home_is_refused_while_the_original_runs_and_a_restore_takes_over_after(
        tmp_path, redis_server):
    """A volume snapshot of a live ledger on another fresh volume (the same inode: no file property tells them
    apart) is refused by `run --status`, `run --enqueue` and a real worker while the original's worker runs, each
    naming both places — the lease on the broker, whose mark the original's processes change every few seconds;
    once the original's worker stops, the copy (a restore) takes the lease over."""
    first, second = _fresh_volume(tmp_path / "a"), _fresh_volume(tmp_path / "b")
    worker_process = None
    try:
        original = first / "runs.sqlite"
        identity = _enqueued(original)
        url = redis_server.url("13")
        ini = {}
        for name, ledger in (("original", original), ("copy", second / "runs.sqlite")):
            ini[name] = tmp_path / f"{name}.ini"
            ini[name].write_text(ini_text({"run_ledger": str(ledger), "queue_broker": url}), encoding="utf-8")
        log = (tmp_path / "worker.log").open("w")
        worker_process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "--config", str(ini["original"]), "worker", "--name", "original"],
            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, env={
                key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")} | {
                "PYTHONPATH": str(ROOT)})
        _until(lambda: _lease(url, identity).get("mark"), "the original's worker took the lease")
        copy = _snapshot(original, second)  # taken while the original's worker runs
        assert copy.stat().st_ino == original.stat().st_ino and copy.stat().st_dev != original.stat().st_dev
        held = RunLedger(copy)
        taken = held.lease_marks()
        held.close()
        assert _lease(url, identity)["mark"] in taken, "the snapshot carries the mark of its moment"
        _until(lambda: _lease(url, identity)["mark"] not in taken, "the original's worker changed the mark", 40)

        status = refbot(tmp_path, "--config", str(ini["copy"]), "run", "--status", "1")
        items = tmp_path / "items.txt"
        items.write_text("Q1\n", encoding="utf-8")
        enqueue = refbot(tmp_path, "--config", str(ini["copy"]), "run", "--enqueue", "--items", str(items))
        worker = refbot(tmp_path, "--config", str(ini["copy"]), "worker", "--name", "copy")
        for refused in (status, enqueue, worker):
            assert refused.returncode == 2, refused
            said = " ".join(refused.stderr.split())
            assert f"the ledger {copy.resolve()} on " in said and f"of the ledger at {original.resolve()} on " in said
            assert "refbot run --new-identity" in said and "Traceback" not in said
            assert [line for line in refused.stderr.splitlines() if "error" in line] == [
                refused.stderr.splitlines()[-1]], "one line"
        assert worker_process.poll() is None, "the original's worker goes on"
        assert refbot(tmp_path, "--config", str(ini["original"]), "run", "--status", "1").returncode == 0

        worker_process.send_signal(signal.SIGTERM)
        assert worker_process.wait(timeout=60) == 0
        restored = refbot(tmp_path, "--config", str(ini["copy"]), "run", "--status", "1")
        assert restored.returncode == 0, restored.stderr
        later = refbot(tmp_path, "--config", str(ini["original"]), "run", "--status", "1")
        assert later.returncode == 2 and f"of the ledger at {copy.resolve()} on " in " ".join(later.stderr.split())
    finally:
        if worker_process is not None and worker_process.poll() is None:
            worker_process.kill()
            worker_process.wait()
        for volume in (first, second):
            subprocess.run(["umount", str(volume)], capture_output=True)


def test_a_dump_restored_elsewhere_holding_the_same_home_is_refused_while_the_original_holds_the_lease(
        ledger_target, request, tmp_path, redis_server, monkeypatch):
    """On each database refbot keeps a ledger in: a dump of a live ledger restored where its home is the same (a
    default server's port and database name; here the identity row as such a restore leaves it) is refused by the
    lease, naming both places, until the original frees it; then the restore takes it."""
    import uuid

    import redis

    from bot.distributed import lease
    from bot.ledger import database
    from bot.ledger.tables import ledger_identity
    from databases import create_database

    monkeypatch.setattr(lease, "ROTATE_S", 0.0)  # (each hold changes the mark: no wait for the clock)
    if isinstance(ledger_target, Path):
        restored_target: Path | str = tmp_path / "restored" / "runs.sqlite"
    else:
        server = request.getfixturevalue("postgres" if ledger_target.startswith("postgresql") else "mariadb")
        restored_target = create_database(server, f"refbot_{uuid.uuid4().hex[:12]}")
    client = redis.Redis.from_url(redis_server.url("15"))
    original, restored = RunLedger(ledger_target), RunLedger(restored_target)
    try:
        assert lease.hold(client, "t:", original) == "taken"
        with original.transaction() as connection:
            row = connection.execute(select(ledger_identity)).one()
        restored.identity  # (its own row first, then the dump's in its place)
        here = database.home(restored.engine, restored.path)
        with restored.transaction() as connection:
            connection.execute(ledger_identity.delete())
            connection.execute(ledger_identity.insert().values(**{**row._mapping, "home": here[0],
                                                                  "home_text": here[1]}))
        restored = RunLedger(restored_target)
        assert restored.identity == original.identity
        assert lease.hold(client, "t:", original) == "rotated", "the original's next use changes the mark"
        with pytest.raises(InputError) as refused:
            lease.hold(client, "t:", restored)
        for target in (ledger_target, restored_target):  # both places: the file, or the database on its server
            assert (str(target.resolve()) if isinstance(target, Path) else target.rsplit("/", 1)[1]) \
                in str(refused.value)
        assert lease.hold(client, "t:", original) in ("renewed", "rotated"), "the original goes on"
        assert lease.release(client, "t:", original) and not lease.release(client, "t:", restored)
        assert lease.hold(client, "t:", restored) == "taken", "a restore takes over once the original stopped"
        with pytest.raises(InputError):
            lease.hold(client, "t:", original)
    finally:
        original.close()
        restored.close()
        client.close()
