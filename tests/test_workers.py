"""Runs that workers share, on the demo world: `refbot run --enqueue` puts the worklist on a real Redis queue, two
`refbot worker` processes (Celery) check it into a ledger on a real PostgreSQL server, one is SIGKILLed in the middle
of an item — and every statement ends once in the ledger, the killed worker's item is given to the other, the run
finishes, and its trace (`refbot report --run`) is valid and holds the outcomes a single-process `refbot run` of the
same worklist records. The judge is the scripted one: what is tested is the coordination."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.ledger.tables import checks, queued
from bot.options import ini_text
from bot.output import trace as traces
from bot.runledger import RunLedger
from conftest import ROOT

ITEMS = ["Q990201", "Q990202", "Q990203", "Q990204", "Q990205", "Q990206", "Q990207"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from bot.demo.world import DemoWorld

    with DemoWorld(workdir=tmp_path_factory.mktemp("world")) as running:
        yield running


def refbot(ini: Path, *args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", "--config", str(ini), *args], cwd=cwd, text=True,
                          capture_output=True, timeout=timeout, env=_environ())


def _environ() -> dict[str, str]:
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    return environ | {"PYTHONPATH": str(ROOT)}


def worker(ini: Path, name: str, cwd: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "--config", str(ini), "worker", "--name", name],
                            cwd=cwd, env=_environ(), stdout=log.open("w"), stderr=subprocess.STDOUT)


def test_two_workers_one_killed_mid_item_record_every_statement_once_as_one_process_would(
        world, postgres, redis_server, tmp_path):
    from databases import create_database

    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    common = world.options() | {"judge_backend": "scripted", "check_embeddings": "false", "fetch_delay": 0.3,
                                "check_reports": str(tmp_path / "reports")}
    alone = tmp_path / "alone.ini"
    alone.write_text(ini_text(common | {"run_ledger": str(tmp_path / "alone.sqlite")}), encoding="utf-8")
    single = refbot(alone, "run", "--items", str(items), cwd=tmp_path)
    assert single.returncode == 0, single.stderr
    expected = _outcomes(Path(re.search(r"^trace: (.+)$", single.stdout, re.M).group(1)))
    assert len(expected) >= 10

    ledger_url = create_database(postgres, "refbot_workers")
    shared = tmp_path / "shared.ini"
    shared.write_text(ini_text(common | {"run_ledger": ledger_url, "queue_broker": redis_server.url("0"),
                                         "queue_visibility_timeout": 5}), encoding="utf-8")
    enqueued = refbot(shared, "run", "--enqueue", "--items", str(items), cwd=tmp_path)
    assert enqueued.returncode == 0, enqueued.stderr
    run_id = int(re.match(r"run (\d+) \(new\): 7 item\(s\), 7 left; 7 task\(s\) sent", enqueued.stdout).group(1))

    ledger = RunLedger(ledger_url)
    first = worker(shared, "first", tmp_path, tmp_path / "first.log")
    killed = _mid_item(ledger, run_id, first)  # the first worker's (it runs alone so far)
    second = worker(shared, "second", tmp_path, tmp_path / "second.log")
    first.send_signal(signal.SIGKILL)  # dies holding the item's task, unacknowledged, and a host's turn
    first.wait()
    try:
        _until_finished(ledger, run_id, second, tmp_path / "second.log")
    finally:
        second.terminate()
        second.wait(timeout=60)

    with ledger.transaction() as connection:
        rows = list(connection.execute(select(checks.c.guid).where(checks.c.run_id == run_id)))
        deliveries = dict(connection.execute(select(queued.c.item, queued.c.deliveries)
                                             .where(queued.c.run_id == run_id)).all())
    assert len(rows) == len({row.guid for row in rows}) == len(expected), "every statement once"
    assert deliveries[killed] >= 2, "the killed worker's item was given to the other worker"
    status = refbot(shared, "run", "--status", str(run_id), cwd=tmp_path)
    assert status.returncode == 0 and f"run {run_id}: 7/7 item(s) finished, 0 left" in status.stdout, status
    assert "finished 20" in status.stdout
    report = refbot(shared, "report", "--run", str(run_id), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    xml = Path(re.search(r"^trace: (.+)$", report.stdout, re.M).group(1))
    assert _outcomes(xml) == expected, "the outcomes a single process records"
    ledger.close()


def _outcomes(xml: Path) -> dict[str, str]:
    tree = traces.read(xml)  # valid against the schema
    return {s.get("guid"): s.get("outcome") for s in tree.getroot().iter(traces.tag("statement"))}


def _mid_item(ledger: RunLedger, run_id: int, process: subprocess.Popen, seconds: float = 180) -> str:
    """The item the worker is in the middle of: started, some of its statements recorded, not finished."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the worker stopped"
        with ledger.transaction() as connection:
            started = connection.execute(select(queued.c.item).where(
                queued.c.run_id == run_id, queued.c.deliveries == 1, queued.c.finished.is_(None))).scalars().all()
            for item in started:
                if connection.execute(select(checks.c.id).where(checks.c.run_id == run_id,
                                                                checks.c.item == item)).first():
                    return item
        time.sleep(0.02)
    raise AssertionError("the worker never got into an item")


def _until_finished(ledger: RunLedger, run_id: int, process: subprocess.Popen, log: Path,
                    seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        if ledger.run_finished(ledger.run(run_id)):
            return
        time.sleep(0.2)
    raise AssertionError(f"the run did not finish: {json.dumps(ledger.queue(run_id).__dict__)}\n{log.read_text()}")
