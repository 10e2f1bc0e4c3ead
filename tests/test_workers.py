"""Runs that workers share, on the demo world: `refbot run --enqueue` puts the worklist on a real Redis queue, two
`refbot worker` processes (Celery) check it into a ledger on a real PostgreSQL server, one is SIGKILLed in the middle
of an item — and every statement ends once in the ledger, the killed worker's item is given to the other, the run
finishes, and its trace (`refbot report --run`) is valid and holds the outcomes a single-process `refbot run` of the
same worklist records. On one Redis, the runs of two ledgers are each done by their own workers only, every key under
the tool's prefix; a worker with other settings refuses a run and names them; hostile messages are refused once each
and the worker goes on; a task whose judge is gone is tried again, then is the run's error; a worklist enqueued twice
at once is sent once. The judge is the scripted one: what is tested is the coordination."""

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
from bot.ledger.ledger import RunLedger
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
        stops = dict(connection.execute(select(queued.c.item, queued.c.stops).where(queued.c.run_id == run_id)).all())
    assert len(rows) == len({row.guid for row in rows}) == len(expected), "every statement once"
    assert deliveries[killed] >= 2, "the killed worker's item was given to the other worker"
    assert stops == {item: int(item == killed) for item in stops}, "one worker ended with an item in hand"
    said = (tmp_path / "second.log").read_text(encoding="utf-8")
    assert "superuser privileges" not in said, "Celery's root warning is refbot's one line"
    assert re.search(rf"item {killed}: 1 worker\(s\) ended while checking it, the last \S*first \(its process died "
                     r"mid-item.*\): refbot's error", said), said
    status = refbot(shared, "run", "--status", str(run_id), cwd=tmp_path)
    assert status.returncode == 0 and f"run {run_id}: 7/7 item(s) finished, 0 left" in status.stdout, status
    assert "finished 20" in status.stdout
    latest = refbot(shared, "run", "--status", "latest", cwd=tmp_path)  # as `report --run latest` takes it
    assert latest.returncode == 0 and latest.stdout == status.stdout, latest
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


# -- runs that share one Redis, and what a worker takes from it ---------------------------------------------------

def _config(world, tmp_path: Path, name: str, redis_url: str, **changed) -> Path:
    values = world.options() | {"judge_backend": "scripted", "check_embeddings": "false", "fetch_delay": 0.1,
                                "check_reports": str(tmp_path / "reports"), "queue_broker": redis_url,
                                "run_ledger": str(tmp_path / name / "runs.sqlite")} | changed
    (tmp_path / name).mkdir(exist_ok=True)
    ini = tmp_path / name / "refbot.ini"
    ini.write_text(ini_text(values), encoding="utf-8")
    return ini


def _items(tmp_path: Path, name: str, items: list[str]) -> Path:
    path = tmp_path / f"{name}.txt"
    path.write_text("\n".join(items) + "\n", encoding="utf-8")
    return path


def _enqueue(ini: Path, items: Path, cwd: Path, *more: str) -> int:
    done = refbot(ini, "run", "--enqueue", "--items", str(items), *more, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return int(re.match(r"run (\d+) ", done.stdout).group(1))


def _until(test, what: str, *processes: subprocess.Popen, logs: tuple[Path, ...] = (), seconds: float = 120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for process, log in zip(processes, logs):
            assert process.poll() is None, f"a worker stopped: {log.read_text()[-3000:]}"
        found = test()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{what}, not in {seconds:g} s\n" + "\n".join(log.read_text()[-3000:] for log in logs))


def _stop(*processes: subprocess.Popen) -> list[int]:
    """Each worker's exit status after SIGTERM (it finishes its task first); killed when it does not stop."""
    for process in processes:
        process.terminate()
    codes = []
    for process in processes:
        try:
            codes.append(process.wait(timeout=60))
        except subprocess.TimeoutExpired:
            process.kill()
            codes.append(process.wait())
    return codes


def _deliveries(ledger: RunLedger, run_id: int) -> dict[str, int]:
    with ledger.transaction() as connection:
        return {row.item: row.deliveries for row in connection.execute(
            select(queued.c.item, queued.c.deliveries).where(queued.c.run_id == run_id))}


def _statements(ledger: RunLedger, run_id: int) -> list[str]:
    with ledger.transaction() as connection:
        return list(connection.execute(select(checks.c.item).where(checks.c.run_id == run_id)).scalars())


def test_the_runs_of_two_ledgers_on_one_redis_are_each_done_by_their_own_workers(world, redis_server, tmp_path):
    """Both ledgers' first run is run 1 and both have the default prefix (their files are both runs.sqlite): only the
    ledger's identity keeps their queues apart. The worklist's --recheck-days travels with its run."""
    import redis

    url = redis_server.url("6")
    first, second = (_config(world, tmp_path, name, url) for name in ("first", "second"))
    mine, theirs = _items(tmp_path, "mine", ITEMS[:2]), _items(tmp_path, "theirs", ITEMS[2:4])
    assert _enqueue(first, mine, tmp_path) == 1 and _enqueue(second, theirs, tmp_path) == 1
    ours, other = RunLedger(tmp_path / "first" / "runs.sqlite"), RunLedger(tmp_path / "second" / "runs.sqlite")
    assert ours.identity != other.identity
    client = redis.Redis.from_url(url)
    assert client.llen(f"runs:refbot.{other.identity}.run-1") == 2

    log = tmp_path / "first.log"
    ours_worker = worker(first, "ours", tmp_path, log)
    try:
        _until(lambda: ours.run_finished(ours.run(1)), "the first ledger's run finished", ours_worker, logs=(log,))
        time.sleep(6)  # a refresh of the worker's runs more: still nothing of the other ledger's taken
        assert _deliveries(other, 1) == {"Q990203": 0, "Q990204": 0} and other.queue(1).finished == 0
        assert client.llen(f"runs:refbot.{other.identity}.run-1") == 2, "the other ledger's tasks are still queued"
        assert "Q990203" not in log.read_text() and "Q990204" not in log.read_text()

        checked = len(_statements(ours, 1))
        assert checked >= 2
        again = _enqueue(first, mine, tmp_path, "--new", "--recheck-days", "0")  # the worker's own setting: 30 days
        _until(lambda: ours.run_finished(ours.run(again)), "the rechecking run finished", ours_worker, logs=(log,))
        assert len(_statements(ours, again)) == checked, "the run's --recheck-days 0, not the worker's 30"
    finally:
        assert _stop(ours_worker) == [0]

    log = tmp_path / "second.log"
    theirs_worker = worker(second, "theirs", tmp_path, log)
    try:
        _until(lambda: other.run_finished(other.run(1)), "the second ledger's run finished", theirs_worker,
               logs=(log,))
    finally:
        assert _stop(theirs_worker) == [0]
    assert _deliveries(other, 1) == {"Q990203": 1, "Q990204": 1}
    assert all(key.startswith(b"runs:") for key in client.keys("*")), client.keys("*")
    ours.close()
    other.close()


def test_a_worker_with_other_settings_refuses_the_run_naming_them_and_keys_stay_under_the_tools_prefix(
        world, redis_server, tmp_path):
    import redis

    url, secret = redis_server.url("7"), "tool-7f3a9c-s3cr3t"
    shared = _config(world, tmp_path, "shared", url, queue_prefix=secret)
    other = _config(world, tmp_path, "other", url, queue_prefix=secret, paragraph_min_chars=150, search_results=9,
                    run_ledger=str(tmp_path / "shared" / "runs.sqlite"))
    enqueued = refbot(shared, "run", "--enqueue", "--items", str(_items(tmp_path, "items", ITEMS[:2])), cwd=tmp_path)
    assert enqueued.returncode == 0, enqueued.stderr
    ledger = RunLedger(tmp_path / "shared" / "runs.sqlite")
    client = redis.Redis.from_url(url)

    refusing_log = tmp_path / "other.log"
    refusing = worker(other, "other", tmp_path, refusing_log)
    try:
        _until(lambda: "refusing run 1" in refusing_log.read_text(), "the refusal", refusing, logs=(refusing_log,))
        time.sleep(6)  # a refresh more: refused once, and nothing taken
    finally:
        assert _stop(refusing) == [0]
    refusals = [line for line in refusing_log.read_text().splitlines() if "refusing run 1" in line]
    assert len(refusals) == 1 and refusals[0].endswith(
        "refusing run 1: it was enqueued with other settings than this worker's: [paragraph] min_chars (the run's "
        "100, this worker's 150); [search] results (the run's 5, this worker's 9) (start workers with the "
        "configuration it was enqueued with)"), refusals
    assert _deliveries(ledger, 1) == {"Q990201": 0, "Q990202": 0}
    assert client.llen(f"{secret}:refbot.{ledger.identity}.run-1") == 2

    serving_log = tmp_path / "shared.log"
    serving = worker(shared, "shared", tmp_path, serving_log)
    try:
        _until(lambda: ledger.run_finished(ledger.run(1)), "the run finished", serving, logs=(serving_log,))
    finally:
        assert _stop(serving) == [0]
    keys = client.keys("*")
    assert keys and all(key.startswith(secret.encode() + b":") for key in keys), keys
    said = enqueued.stdout + enqueued.stderr + refusing_log.read_text() + serving_log.read_text()
    assert secret not in said, "the prefix is a secret"
    ledger.close()


def _envelope(redis_url: str, queue: str, message) -> dict:
    """What refbot sends to ``queue`` for ``message``, as Redis holds it (sent under a prefix of its own, taken
    back)."""
    import redis

    from bot.distributed.app import CeleryBroker, make_app
    from bot.options import QueueOptions

    app = make_app(QueueOptions(broker=redis_url), prefix="scratch:", default_queue="idle")
    CeleryBroker(app, redis_url).send(queue, message)
    return json.loads(redis.Redis.from_url(redis_url).rpop(f"scratch:{queue}"))


def test_hostile_messages_are_refused_once_each_and_the_worker_goes_on(world, redis_server, tmp_path):
    """Put on the run's queue ahead of its tasks: not JSON, an envelope that would stop Celery, a message of 1.5 MB
    listing 100,000 items, another run's task, another ledger's, an item outside the run, a malformed item, a message
    sent to another queue; an unreadable task among those the broker holds for workers; a host's turn held by a key
    without an expiry, and a hold-off for ever. The worker refuses each message once, checks the run, and stops with
    status 0 when asked."""
    import redis

    from bot.distributed.messages import TaskMessage
    from bot.documents.politeness import host_key

    url = redis_server.url("8")
    ini = _config(world, tmp_path, "hostile", url)
    run_id = _enqueue(ini, _items(tmp_path, "items", ITEMS[:2]), tmp_path)
    ledger = RunLedger(tmp_path / "hostile" / "runs.sqlite")
    client, name = redis.Redis.from_url(url), f"refbot.{ledger.identity}.run-{run_id}"
    queue = f"runs:{name}"

    def envelope(message: TaskMessage) -> bytes:
        return json.dumps(_envelope(url, name, message)).encode()

    stopping = _envelope(url, name, TaskMessage(ledger.identity, run_id, ("Q990201",)))
    stopping["headers"]["timelimit"] = "x"
    huge = _envelope(url, name, TaskMessage(ledger.identity, run_id, tuple(f"Q{n}" for n in range(1, 100_001))))
    elsewhere = _envelope(url, f"refbot.{ledger.identity}.run-{run_id + 1}",
                          TaskMessage(ledger.identity, run_id, ("Q990201",)))
    hostile = {
        b"not json": "it is not JSON",
        json.dumps(stopping).encode(): "timelimit in its headers is 'x'",
        json.dumps(huge).encode(): "more than a task takes",
        envelope(TaskMessage(ledger.identity, 99, ("Q990201",))): "it names run 99 but came on queue",
        envelope(TaskMessage("feedfacefeedface", run_id, ("Q990201",))): "a task of another ledger",
        envelope(TaskMessage(ledger.identity, run_id, ("Q990205",))): f"Q990205 is not an item of run {run_id}",
        envelope(TaskMessage(ledger.identity, run_id, ("Q0",))): "'Q0' is not an item id",
        json.dumps(elsewhere).encode(): f"but was on queue {name}",
    }
    for raw in hostile:
        client.rpush(queue, raw)  # taken before the run's own tasks
    client.lpush(f"runs:refbot.{ledger.identity}.idle", b"[]")
    client.hset("runs:unacked", "poisoned", b"not json")  # a task a dead worker held, as the broker keeps it
    client.zadd("runs:unacked_index", {"poisoned": 1.0})
    hostile[b"[]"] = "it is not a message"
    wikidata = host_key(world.base("wikidata"))
    client.set(f"runs:host:{wikidata}:turn", "held for ever")
    client.set(f"runs:host:{wikidata}:not-before", "1e18")
    client.set(f"runs:host:{wikidata}:last", "not a time")

    log = tmp_path / "hostile.log"
    process = worker(ini, "hostile", tmp_path, log)
    try:
        _until(lambda: ledger.run_finished(ledger.run(run_id)), "the run finished", process, logs=(log,))
    finally:
        assert _stop(process) == [0]
    lines = log.read_text().splitlines()
    refused = [line for line in lines if "refused a message" in line or "refused a task" in line]
    assert len(refused) == len(hostile), refused
    for reason in hostile.values():
        assert sum(reason in line for line in refused) == 1, (reason, refused)
    assert any("turn was held by a key without an expiry" in line for line in lines)
    assert sum("dropped an unacknowledged task the broker held: it is not JSON" in line for line in lines) == 1
    assert "Q990205" not in set(_statements(ledger, run_id)) and set(_deliveries(ledger, run_id)) == set(ITEMS[:2])
    assert client.ttl(f"runs:host:{wikidata}:turn") != -1
    ledger.close()


def test_a_task_whose_judge_is_gone_is_tried_again_later_then_is_the_runs_error(world, redis_server, tmp_path):
    from databases import free_port

    url = redis_server.url("9")
    ini = _config(world, tmp_path, "gone", url, judge_backend="openai", judge_model="scripted",
                  judge_url=f"http://127.0.0.1:{free_port()}/v1", judge_retries=0, judge_timeout=2,
                  queue_retries=2, queue_retry_delay=0.5)
    run_id = _enqueue(ini, _items(tmp_path, "items", ITEMS[:1]), tmp_path)
    ledger = RunLedger(tmp_path / "gone" / "runs.sqlite")
    log = tmp_path / "gone.log"
    process = worker(ini, "gone", tmp_path, log)
    try:
        error = _until(lambda: ledger.queue(run_id).error, "the run's error", process, logs=(log,))
    finally:
        assert _stop(process) == [0]
    text = log.read_text()
    assert "trying again in 0.5 s" in text and "trying again in 1 s" in text, text[-3000:]
    assert error.startswith("items Q990201: ") and error.endswith("(tried 3 times)"), error
    assert _deliveries(ledger, run_id) == {"Q990201": 3}
    status = refbot(ini, "run", "--status", str(run_id), cwd=tmp_path)
    assert status.returncode == 1 and f"not finished; error: {error}" in status.stdout, status
    ledger.close()


def test_one_worklist_enqueued_twice_at_once_is_sent_once(world, redis_server, tmp_path):
    import redis

    url = redis_server.url("10")
    ini = _config(world, tmp_path, "twice", url)
    items = _items(tmp_path, "items", ITEMS)
    both = [subprocess.Popen([sys.executable, "-m", "bot.cli", "--config", str(ini), "run", "--enqueue", "--items",
                              str(items)], cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=_environ()) for _ in range(2)]
    said = [process.communicate(timeout=300) for process in both]
    assert [process.returncode for process in both] == [0, 0], said
    sent = [re.match(r"run 1 \((?:new|resumed)\): 7 item\(s\), 7 left; (\d+) task\(s\) sent", out) for out, _ in said]
    assert all(sent), said
    assert sorted(int(match.group(1)) for match in sent) == [0, 7]
    ledger = RunLedger(tmp_path / "twice" / "runs.sqlite")
    queue = f"runs:refbot.{ledger.identity}.run-1"
    assert redis.Redis.from_url(url).llen(queue) == 7, "each item's task once"
    again = refbot(ini, "run", "--enqueue", "--items", str(items), cwd=tmp_path)
    assert again.returncode == 0 and "7 left; 0 task(s) sent" in again.stdout, again
    assert redis.Redis.from_url(url).llen(queue) == 7
    ledger.close()


def test_a_worker_goes_on_when_redis_is_restarted_under_its_task(world, redis_server, tmp_path):
    """Redis killed while the worker is in the middle of an item (its host's turn and its task's acknowledgement
    fail) and started again on its data: the worker notices, takes tasks again, and the run finishes, each
    statement once."""
    url = redis_server.url("11")
    ini = _config(world, tmp_path, "restart", url, fetch_delay=1.0, queue_visibility_timeout=5)
    run_id = _enqueue(ini, _items(tmp_path, "items", ITEMS[:3]), tmp_path)
    ledger = RunLedger(tmp_path / "restart" / "runs.sqlite")
    log = tmp_path / "restart.log"
    process = worker(ini, "restart", tmp_path, log)
    try:
        _mid_item(ledger, run_id, process)
        redis_server.kill()
        time.sleep(3)
        redis_server.restart()
        _until(lambda: ledger.run_finished(ledger.run(run_id)), "the run finished", process, logs=(log,),
               seconds=240)
    finally:
        assert _stop(process) == [0]
    rows = _statements(ledger, run_id)
    with ledger.transaction() as connection:
        guids = list(connection.execute(select(checks.c.guid).where(checks.c.run_id == run_id)).scalars())
    assert len(guids) == len(set(guids)) == len(rows) >= 3
    ledger.close()
