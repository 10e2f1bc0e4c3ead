"""`refbot run --status` tells a slow run from a stuck one: the workers seen in the last minute (each worker's
heartbeat in Redis, under the tool's prefix), each idle or on its task for so long, and the age of the oldest task
still unfinished; a run that is over has its queue's keys deleted, and a worker stopped its heartbeat."""

from __future__ import annotations

import json
import re
import time

import redis

from bot.distributed.presence import seen_workers, worker_key
from bot.ledger.ledger import RunLedger
from test_workers import ITEMS, _config, _enqueue, _items, _stop, _until, refbot, world, worker  # noqa: F401


def test_status_names_the_workers_at_work_and_the_oldest_task_and_a_finished_runs_keys_go(
        world, redis_server, tmp_path):  # noqa: F811 (the world fixture of test_workers)
    import redis

    url = redis_server.url("12")  # (a database no other test uses: every key in it is checked)
    ini = _config(world, tmp_path, "presence", url, queue_prefix="tool-9", fetch_delay=1.5)
    run_id = _enqueue(ini, _items(tmp_path, "items", ITEMS[:3]), tmp_path)
    status = refbot(ini, "run", "--status", str(run_id), cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert re.fullmatch(r"  oldest unfinished task: sent \d+ s ago", lines[1]), lines
    assert lines[2] == "  no worker seen in the last 60 s", lines

    log = tmp_path / "w1.log"
    w1 = worker(ini, "w1", tmp_path, log)
    ledger = RunLedger(tmp_path / "presence" / "runs.sqlite")
    client = redis.Redis.from_url(url)
    try:
        working = re.compile(rf"  1 worker\(s\) seen in the last 60 s: w1 \(run {run_id}: Q99020[123] for \d+ s; "
                             r"seen \d+ s ago\)")
        _until(lambda: working.fullmatch(refbot(ini, "run", "--status", str(run_id), cwd=tmp_path)
                                         .stdout.splitlines()[2]), "w1 shown at work", w1, logs=(log,))
        _until(lambda: ledger.run_finished(ledger.run(run_id)), "the run finished", w1, logs=(log,))
        _until(lambda: not client.keys(f"tool-9:*run-{run_id}*"), f"the finished run's queue deleted: "
               f"{client.keys('tool-9:*')}", w1, logs=(log,), seconds=30)
        assert client.exists("tool-9:refbot." + ledger.identity + ".worker.w1"), "w1 is still at work"
        done = refbot(ini, "run", "--status", str(run_id), cwd=tmp_path).stdout
        assert len(done.splitlines()) == 1 and "finished 20" in done, "a finished run: nothing to wait for"
    finally:
        assert _stop(w1) == [0]
    assert client.keys("tool-9:*worker*") == [], "a worker stopped takes its heartbeat away"
    assert all(key.startswith(b"tool-9:") for key in client.keys("*"))
    ledger.close()


def test_a_heartbeat_written_by_anyone_is_printed_escaped_never_as_terminal_control(redis_server):
    """A name or an item in Redis that carries escape sequences or a newline cannot fake a line of `run --status`."""
    client = redis.Redis.from_url(redis_server.url("13"))
    client.flushdb()
    faked = "w9\x1b[2K\r\nrun 1 finished: 3 supported\u202e"
    client.set(worker_key("refbot:", "0123456789abcdef", "w9"), json.dumps(
        {"name": faked, "at": time.time(), "run": 1, "items": ["Q1\x1b[31m"], "since": time.time()}))
    [seen] = seen_workers(client, "refbot:", "0123456789abcdef")
    assert seen.shown.isprintable() and "\n" not in seen.shown and "\x1b" not in seen.shown
    assert seen.name == "w9\\x1b[2K\\r\\nrun 1 finished: 3 supported\\u202e" and seen.items == ("Q1\\x1b[31m",)
    client.flushdb()
