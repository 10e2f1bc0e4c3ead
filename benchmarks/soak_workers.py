#!/usr/bin/env python3
"""The soak under distribution: a worklist checked by `refbot worker` processes sharing a ledger on PostgreSQL and a
queue on Redis, while workers are SIGKILLed, Redis is restarted once and the database server is restarted once.

    benchmarks/soak_workers.py [--statements 1000] [--items 300] [--hosts 24] [--workers 4] [--kills 3]
                               [--seed 1] [--judge scripted|llama] [--max-minutes 60]

The world is the soak's (``benchmarks/soak_world.py``, with its faults). Servers from Debian's packages on 127.0.0.1
(``tests/databases.py``): PostgreSQL for the ledger, Redis (its append-only file on: the queue survives a restart)
for the queue and each host's turn. `refbot run --enqueue` puts one task an item on the queue; ``--workers``
`refbot worker` processes take them. As the run goes: ``--kills`` times a random worker is SIGKILLed (and a new one
started, as Kubernetes would); at a third of the statements Redis is killed and started again; at two thirds the
database server is. A worker that exits (its broker or ledger gone too long) is started again. It ends when the run
is finished in the ledger.

Printed: statements per outcome; lost (generated statements without a row in the run: must be 0); recorded twice
(rows of one statement in the run: must be 0, the uniqueness constraint forbids them); not terminal (rows whose
outcome is not one of refbot's: must be 0); errors; tasks delivered again and the items checked again because of
it (search queries asked twice: statements a dead worker had begun, checked again by design); whether the trace
(`refbot report --run`) is valid; statements/h. Exit status 1 if a statement was lost or recorded twice, the
run did not finish, or the trace is invalid.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

from databases import create_database, start_postgres, start_redis  # noqa: E402
from soak_world import Rates, SoakWorld, generate  # noqa: E402
from sqlalchemy import select  # noqa: E402

from bot.checking.records import Outcome  # noqa: E402
from bot.errors import RefbotError  # noqa: E402
from bot.ledger.tables import checks  # noqa: E402
from bot.options import ini_text  # noqa: E402
from bot.output import trace as traces  # noqa: E402
from bot.ledger.ledger import RunLedger  # noqa: E402


def environ() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")} | {
        "PYTHONPATH": str(ROOT)}


def refbot(ini: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", "--config", str(ini), *args], cwd=cwd, text=True,
                          capture_output=True, env=environ(), timeout=1800)


class Workers:
    def __init__(self, ini: Path, tmp: Path) -> None:
        self.ini, self.tmp, self.started = ini, tmp, 0
        self.processes: list[subprocess.Popen] = []
        self.restarted = 0
        self.crashed: list[str] = []  # the signals that ended workers the soak did not kill

    def start(self) -> None:
        self.started += 1
        log = (self.tmp / f"worker-{self.started}.log").open("w")
        self.processes.append(subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "--config", str(self.ini), "worker", "--name", f"w{self.started}",
             "--loglevel", "WARNING"], cwd=self.tmp, env=environ(), stdout=log, stderr=subprocess.STDOUT))

    def kill_one(self, rng: random.Random) -> None:
        victim = rng.choice([p for p in self.processes if p.poll() is None])
        victim.kill()
        victim.wait()
        self.processes.remove(victim)
        self.start()

    def keep_up(self) -> None:
        """A worker that exited is started again (its broker or ledger was gone too long); one a signal the soak did
        not send ended is refbot's error, counted apart."""
        for process in [p for p in self.processes if p.poll() is not None]:
            self.processes.remove(process)
            self.restarted += 1
            if process.returncode < 0:
                self.crashed.append(signal.Signals(-process.returncode).name)
            self.start()

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()


def recorded(ledger: RunLedger, run_id: int) -> list[tuple[str, str]] | None:
    try:
        with ledger.transaction() as connection:
            return [(row.guid, row.outcome) for row in connection.execute(
                select(checks.c.guid, checks.c.outcome).where(checks.c.run_id == run_id))]
    except RefbotError:
        return None  # the database is being restarted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--statements", type=int, default=1000)
    parser.add_argument("--items", type=int, default=300)
    parser.add_argument("--hosts", type=int, default=24)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--judge", choices=("scripted", "llama"), default="scripted")
    parser.add_argument("--max-minutes", type=float, default=60.0)
    parser.add_argument("--read-timeout", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="refbot-soak-workers-"))
    rates = Rates()
    manifest = generate(tmp / "data", statements=args.statements, items=args.items, hosts=args.hosts, seed=args.seed,
                        rates=rates)
    expected = set(manifest["statements"])
    items = tmp / "items.txt"
    items.write_text("\n".join(manifest["items"]) + "\n", encoding="utf-8")
    database, redis = start_postgres(), start_redis()
    world = SoakWorld(data=tmp / "data", workdir=tmp, seed=args.seed, rates=rates, hang_s=args.read_timeout + 1.5)
    judge = None
    workers: Workers | None = None
    events: list[str] = []
    try:
        world.start()
        ledger_url = create_database(database, "refbot_soak")
        settings = {**world.options(), "check_reports": tmp / "reports", "fetch_read_timeout": args.read_timeout,
                    "fetch_max_seconds": 15.0, "fetch_retries": 1, "fetch_backoff": 0.5, "fetch_delay": 0.1,
                    "properties_cache": tmp / "properties", "check_embeddings": False, "check_workers": 2,
                    "judge_backend": "scripted", "queue_broker": redis.url("0"), "queue_visibility_timeout": 60,
                    "run_ledger": ledger_url}
        if args.judge == "llama":
            from soak import JudgeServer

            from bot.demo.world import free_port

            judge = JudgeServer("smollm2-135m", free_port())
            judge.start()
            settings |= {"judge_backend": "openai", "judge_url": judge.url, "judge_in_flight": 2}
        ini = tmp / "refbot.ini"
        ini.write_text(ini_text(settings), encoding="utf-8")
        print(f"soak_workers: {len(expected)} statements over {len(manifest['items'])} items, {args.hosts} hosts; "
              f"{args.workers} workers; judge {settings['judge_backend']}; in {tmp}", flush=True)
        enqueued = refbot(ini, "--quiet", "run", "--enqueue", "--items", str(items), cwd=tmp)
        if enqueued.returncode:
            raise SystemExit(f"soak_workers: enqueue failed: {enqueued.stderr}")
        run_id = int(enqueued.stdout.split()[1])
        ledger = RunLedger(ledger_url)
        workers = Workers(ini, tmp)
        started = time.monotonic()
        for _ in range(args.workers):
            workers.start()
        kill_at = sorted(rng.uniform(0.1, 0.9) for _ in range(args.kills))
        restarts = [(1 / 3, "Redis", redis), (2 / 3, "PostgreSQL", database)]  # each killed once, started again
        finished = False
        while time.monotonic() - started < args.max_minutes * 60:
            rows = recorded(ledger, run_id)
            share = len(rows) / len(expected) if rows is not None else 0.0
            if kill_at and share >= kill_at[0]:
                kill_at.pop(0)
                workers.kill_one(rng)
                events.append(f"worker SIGKILLed at {len(rows or ())} statements")
            if restarts and share >= restarts[0][0]:
                _, name, server = restarts.pop(0)
                server.kill()
                time.sleep(2.0)
                server.restart()
                events.append(f"{name} killed and started again at {len(rows or ())} statements")
            workers.keep_up()
            if rows is not None:
                try:
                    record = ledger.run(run_id)
                    finished = bool(record and ledger.run_finished(record))
                except RefbotError:
                    finished = False
                if finished:
                    break
            time.sleep(0.5)
        wall = time.monotonic() - started
        workers.stop()
        rows = recorded(ledger, run_id) or []
        queue = ledger.queue(run_id)
        ledger.close()
        report = refbot(ini, "report", "--run", str(run_id), cwd=tmp)
        valid = False
        if report.returncode == 0:
            try:
                traces.read(Path(re.search(r"^trace: (.+)$", report.stdout, re.M).group(1)))
                valid = True
            except Exception as error:  # noqa: BLE001 (printed: the soak says what was wrong)
                print(f"  the trace is invalid: {error}")
        else:
            print(f"  report --run failed: {report.stderr.strip()[-500:]}")
    finally:
        if workers is not None:
            workers.stop()
        world.stop()
        if judge is not None:
            judge.kill()
        redis.stop()
        database.stop()
    guids = [guid for guid, _ in rows]
    outcomes = Counter(outcome for _, outcome in rows)
    terminal = {outcome.value for outcome in Outcome}
    lost = expected - set(guids)
    twice = len(guids) - len(set(guids))
    not_terminal = sum(n for outcome, n in outcomes.items() if outcome not in terminal)
    again = sum(1 for n in world.searches.values() if n > 1)
    for event in events:
        print(f"  {event}")
    print(f"  outcomes: {', '.join(f'{n} {o}' for o, n in sorted(outcomes.items()))}")
    print(f"  lost {len(lost)}, recorded twice {twice}, not terminal {not_terminal}, errors {outcomes.get('error', 0)}"
          f"; run finished: {finished}; trace valid: {valid}")
    print(f"  tasks delivered again {queue.redelivered if queue else '?'}; searches asked twice (statements begun "
          f"by a dead worker, checked again) {again}; workers started again after exiting {workers.restarted}; "
          f"workers dead by a signal the soak did not send (refbot's error) {len(workers.crashed)}"
          + (f" ({', '.join(workers.crashed)})" if workers.crashed else ""))
    print(f"  {len(rows)} statements in {wall:.0f} s = {len(rows) / wall * 3600:,.0f} statements/h with "
          f"{args.workers} workers")
    return 0 if not lost and not twice and finished and valid and not workers.crashed else 1


if __name__ == "__main__":
    sys.exit(main())
