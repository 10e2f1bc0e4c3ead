#!/usr/bin/env python3
"""Runs that workers share, measured: statements an hour with 1, 2, 4 and 8 `refbot worker` processes on this
machine, and the coordination overhead per statement (the queue and the ledger), in ms.

    benchmarks/workers.py [--statements 300] [--items 90] [--hosts 24] [--workers 1,2,4,8] [--seed 1]
                          [--judge scripted|llama] [--overhead 300] [--ledger postgresql|mariadb|sqlite]

The world is the soak's (``benchmarks/soak_world.py``: invented people, their pages on ``--hosts`` loopback hosts,
search, Wikipedia and Wayback stand-ins, its faults: 5xx, hangs past the read timeout, dead and hostile pages,
authority records). Real servers from Debian's packages are started on 127.0.0.1 (``tests/databases.py``): the ledger
on PostgreSQL (or MariaDB; or a SQLite file the processes share), the queue on Redis, which also holds each host's
turn for all workers. For each worker count: a new database, `refbot run --enqueue` of every item (one task an
item), N `refbot worker` processes started together, timed until the run is finished in the ledger; statements/h
is the run's statements over that wall time (enqueuing excluded; each worker's start — Python, its parts — is
in). The judge is the scripted backend (``[judge] backend = scripted``: no model), so the figure measures refbot's
coordination and its fetching, not a CPU model; ``--judge llama`` uses llama.cpp's server with the small test model
(``scripts/llama_server.py``) instead.

Overhead: ``--overhead`` items of a run whose tasks do only what coordination costs — a task taken from Redis, the
item started in the ledger, one statement recorded, the item finished (and the run at the last) — by one worker
process with no checking: wall time per statement.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

from databases import create_database, start_mariadb, start_postgres, start_redis  # noqa: E402
from soak_world import Rates, SoakWorld, generate  # noqa: E402

from bot.options import ini_text  # noqa: E402
from bot.ledger.ledger import RunLedger  # noqa: E402


def refbot(ini: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", "--config", str(ini), *args], cwd=cwd, text=True,
                          capture_output=True, env=environ(), timeout=3600)


def environ() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")} | {
        "PYTHONPATH": str(ROOT)}


def measure(workers: int, ini: Path, items: Path, tmp: Path, ledger_url: str) -> tuple[float, int, int, float]:
    """(wall seconds, statements, tasks delivered again, peak load average) of one run with ``workers``."""
    enqueued = refbot(ini, "--quiet", "run", "--enqueue", "--items", str(items), cwd=tmp)
    if enqueued.returncode:
        raise SystemExit(f"workers: enqueue failed: {enqueued.stderr}")
    run_id = int(enqueued.stdout.split()[1])
    logs = [(tmp / f"worker-{workers}-{n}.log").open("w") for n in range(workers)]
    started = time.monotonic()
    processes = [subprocess.Popen([sys.executable, "-m", "bot.cli", "--config", str(ini), "worker", "--name",
                                   f"w{n}", "--loglevel", "WARNING"], cwd=tmp, env=environ(), stdout=log,
                                  stderr=subprocess.STDOUT) for n, log in enumerate(logs)]
    ledger = RunLedger(ledger_url)
    load = 0.0
    try:
        while True:
            load = max(load, os.getloadavg()[0])
            dead = [n for n, p in enumerate(processes) if p.poll() is not None]
            if dead:
                said = (tmp / f"worker-{workers}-{dead[0]}.log").read_text(encoding="utf-8")[-2000:]
                code = processes[dead[0]].returncode
                how = f"died by {signal.Signals(-code).name} (refbot's error)" if code < 0 else f"exited {code}"
                raise SystemExit(f"workers: a worker {how}: {said}")
            if ledger.run_finished(ledger.run(run_id)):
                break
            time.sleep(0.2)
        wall = time.monotonic() - started
        queue = ledger.queue(run_id)
        statements = sum(ledger.counts(ledger.run(run_id)).values())
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=120)
        for log in logs:
            log.close()
        ledger.close()
    return wall, statements, queue.redelivered if queue else 0, load


OVERHEAD_WORKER = """
import sys, time
from bot.distributed.app import make_app
from bot.options import Options
from bot.ledger.ledger import RunLedger
options = Options.flat(queue_broker=sys.argv[1], run_ledger=sys.argv[2])
app = make_app(options.queue)
ledger = RunLedger(options.run.ledger)

@app.task(name="refbot.overhead", acks_late=True)
def task(run_id, items):
    record = ledger.run(run_id)
    for item in items:
        if ledger.start_item(record, item):
            ledger.record(record, item + "$S", item, "not-found", "<statement/>")
            ledger.finish_item(record, item)

app.worker_main(["worker", "--pool=solo", "--queues=overhead", "--without-gossip", "--without-mingle",
                 "--loglevel=WARNING"])
"""


def overhead(count: int, broker: str, ledger_url: str, tmp: Path) -> float:
    """ms per statement of coordination alone (see the module)."""
    from bot.distributed.app import make_app
    from bot.options import Options

    options = Options.flat(queue_broker=broker, run_ledger=ledger_url)
    ledger = RunLedger(ledger_url)
    run = ledger.open_run("overhead", "coordination alone", new=True)
    items = [f"Q{9_000_000 + n}" for n in range(count)]
    ledger.enqueue(run, items, settings="overhead", properties=())
    worker = subprocess.Popen([sys.executable, "-c", OVERHEAD_WORKER, broker, ledger_url], cwd=tmp, env=environ(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    app = make_app(options.queue)
    time.sleep(3.0)  # the worker's start is not coordination
    started = time.monotonic()
    for item in items:
        app.send_task("refbot.overhead", args=[run.id, [item]], queue="overhead")
    while not ledger.run_finished(run):
        time.sleep(0.01)
    wall = time.monotonic() - started
    worker.terminate()
    worker.wait(timeout=60)
    ledger.close()
    return wall / count * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=300)
    parser.add_argument("--items", type=int, default=90)
    parser.add_argument("--hosts", type=int, default=24)
    parser.add_argument("--workers", default="1,2,4,8", help="worker counts, comma-separated (1,2,4,8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--judge", choices=("scripted", "llama"), default="scripted")
    parser.add_argument("--ledger", choices=("postgresql", "mariadb", "sqlite"), default="postgresql")
    parser.add_argument("--overhead", type=int, default=300, help="items of the coordination-only run (300)")
    parser.add_argument("--read-timeout", type=float, default=2.0, help="[fetch] read_timeout (2 s)")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]

    tmp = Path(tempfile.mkdtemp(prefix="refbot-workers-"))
    rates = Rates()
    manifest = generate(tmp / "data", statements=args.statements, items=args.items, hosts=args.hosts, seed=args.seed,
                        rates=rates)
    items = tmp / "items.txt"
    items.write_text("\n".join(manifest["items"]) + "\n", encoding="utf-8")
    database = {"postgresql": start_postgres, "mariadb": start_mariadb}.get(args.ledger, lambda: None)()
    redis = start_redis()
    judge = None
    world = SoakWorld(data=tmp / "data", workdir=tmp, seed=args.seed, rates=rates, hang_s=args.read_timeout + 1.5)
    results = []
    try:
        world.start()
        settings = {**world.options(), "check_reports": tmp / "reports", "fetch_read_timeout": args.read_timeout,
                    "fetch_max_seconds": 15.0, "fetch_retries": 1, "fetch_backoff": 0.5, "fetch_delay": 0.1,
                    "properties_cache": tmp / "properties", "check_embeddings": False, "check_workers": 2,
                    "judge_backend": "scripted", "queue_broker": redis.url("0"), "queue_visibility_timeout": 600}
        if args.judge == "llama":
            from soak import JudgeServer

            from bot.demo.world import free_port

            judge = JudgeServer("smollm2-135m", free_port())
            judge.start()
            settings |= {"judge_backend": "openai", "judge_url": judge.url, "judge_in_flight": 4}
        print(f"workers: {len(manifest['statements'])} statements over {len(manifest['items'])} items, {args.hosts} "
              f"hosts (faults as the soak's); ledger on {args.ledger}, queue on Redis; judge "
              f"{settings['judge_backend']}; {os.cpu_count()} CPU(s)", flush=True)
        for count in counts:
            if database is not None:
                ledger_url = create_database(database, f"refbot_workers_{count}_{int(time.time())}")
            else:
                ledger_url = str(tmp / f"workers-{count}.sqlite")
            ini = tmp / f"workers-{count}.ini"
            ini.write_text(ini_text({**settings, "run_ledger": ledger_url}), encoding="utf-8")
            redis_flush(redis)
            wall, statements, again, load = measure(count, ini, items, tmp, ledger_url)
            results.append((count, wall, statements, again, load))
            print(f"  {count} worker(s): {statements} statements in {wall:.1f} s = {statements / wall * 3600:,.0f} "
                  f"statements/h; {again} task(s) delivered again; peak load average {load:.1f}", flush=True)
        ledger_url = create_database(database, f"refbot_overhead_{int(time.time())}") if database is not None \
            else str(tmp / "overhead.sqlite")
        per = overhead(args.overhead, redis.url("1"), ledger_url, tmp)
    finally:
        world.stop()
        if judge is not None:
            judge.kill()
        redis.stop()
        if database is not None:
            database.stop()
    base = results[0][2] / results[0][1] if results else 0.0
    print("\n| workers | statements | wall s | statements/h | × one worker |\n| --- | --- | --- | --- | --- |")
    for count, wall, statements, _, _ in results:
        rate = statements / wall
        print(f"| {count} | {statements} | {wall:.1f} | {rate * 3600:,.0f} | {rate / base if base else 0:.2f} |")
    print(f"\ncoordination overhead (queue + ledger on {args.ledger}, one worker, no checking): {per:.1f} ms a "
          f"statement over {args.overhead} items")
    return 0


def redis_flush(server) -> None:
    import redis

    redis.Redis.from_url(server.url("0")).flushdb()


if __name__ == "__main__":
    sys.exit(main())
